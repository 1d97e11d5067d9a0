"""Options and output shared by the commands that read human labels (summarize, compare, rank, report) and by
``evalband agreement``."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["PpiOpt", "ppi_records", "PPI_COLUMNS"]

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
