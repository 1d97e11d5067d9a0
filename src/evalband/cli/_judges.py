"""Options and output shared by the commands that read human labels (summarize, compare, rank, report) and by
``evalband agreement``."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["PpiOpt", "ppi_records", "PPI_COLUMNS", "ppi_line", "ppi_columns"]

PpiOpt = Annotated[str, typer.Option(
    "--ppi", help="With human labels (--human-col, or a 'human' column): ppi++ (power-tuned lambda), classic"
                  " (lambda = 1), labelled (the labels alone) or none (the judge's scores at face value).")]

#: the PPI columns a command's JSON carries per model and task
PPI_COLUMNS = ("model", "task", "estimate", "se", "ci_low", "ci_high", "n_labelled", "n_unlabelled", "lambda",
               "ess", "gain", "labelled_estimate", "labelled_ci_low", "labelled_ci_high", "judge_mean", "method")


def ppi_records(replicates) -> list | None:
    """The PPI cells (lambda, n_labelled, n_unlabelled, effective sample size, ...) of a PPI replicate set as JSON
    records, or None for other replicates."""
    est = getattr(replicates, "ppi", None)
    if est is None:
        return None
    from ..display import json_records

    frame = est.to_frame()
    return json_records(frame[[c for c in PPI_COLUMNS if c in frame.columns]])


def ppi_line(records, limit: int = 8) -> str | None:
    """One note on what the human labels bought per model (human formats): lambda, labelled + unlabelled, ess."""
    if not records:
        return None
    several = len({r["task"] for r in records}) > 1
    parts = [f"{r['model']}{' / ' + r['task'] if several else ''}: lambda {r['lambda']:.2f},"
             f" {r['n_labelled']:,} labelled + {r['n_unlabelled']:,}, effective n {r['ess']:,.0f}"
             for r in records[:limit] if r.get("lambda") is not None]
    more = f"; ... {len(records) - limit} more in the JSON" if len(records) > limit else ""
    return f"PPI ({records[0]['method']}) per model: " + "; ".join(parts) + more


def ppi_columns(frame, records):
    """With one task: the rank frame with each model's lambda, n_labelled and effective n beside it."""
    if not records or len({r["task"] for r in records}) != 1 or "model" not in frame.columns:
        return frame
    by = {r["model"]: r for r in records}
    out = frame.copy()
    for col in ("n_labelled", "lambda", "ess"):
        out[col] = [by.get(m, {}).get(col) for m in out["model"]]
    return out
