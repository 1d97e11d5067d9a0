"""``evalband compare``: every pairwise difference of an aggregate, with intervals, p-values and verdicts."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ._common import (LOG_INPUT, TABLE_INPUT, ConfidenceOpt, FormatOpt, InputOptions, SchedulerOpt, SeedOpt,
                      cli_message, emit, errors, executor_for, parse_confidence, reads_input, resolve_seed)
from .._validate import ArgumentError

AggregateOpt = Annotated[str, typer.Option(
    "--aggregate", help="Aggregate over tasks: mean, geometric, harmonic, minmax, mean-rank, win-rate, median, iqm,"
                        " binned-rank:WIDTH, optimality-gap:GAMMA, chance-normalized:CHANCE,"
                        " probability-of-improvement:BASELINE (comma-separated for several).")]
ResamplingOpt = Annotated[str, typer.Option(
    "--resampling", help="paired (same items for every model; item data) or independent; summary data are"
                         " always resampled independently (binomially). Default: auto.")]
NResamplesOpt = Annotated[int, typer.Option("--n-resamples", help="Bootstrap replicates.")]
IntervalOpt = Annotated[str, typer.Option("--interval", help="Bootstrap interval: percentile, basic or bca.")]
CorrectionOpt = Annotated[str, typer.Option(
    "--correction", help="Multiple comparisons: none, bonferroni, holm, bh (Benjamini-Hochberg) or max-t"
                         " (simultaneous bootstrap intervals).")]
MarginOpt = Annotated[str, typer.Option(
    "--margin", help="Practical margin for verdicts, on the score scale (0.01 or '1%' = one point): 'A better'"
                     " needs the whole interval beyond it, 'equivalent' the whole interval within it; otherwise the"
                     " reading says what is decided (e.g. better, but not by more than the margin).")]


def parse_margin(text) -> float:
    text = str(text).strip()
    try:
        return float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise ArgumentError(f"`--margin` must be a number such as 0.01 or '1%'; got {text!r}.") from None


def emit_frame(frame, fmt, notes, *, scale, value_cols, title=None, p_floor=None):
    """Render ``frame`` and print the notes (below a table, on stderr for csv/json, as comments in latex)."""
    from ..report.format import FORMATS, render

    if fmt not in FORMATS:
        raise ArgumentError(f"`--format` must be one of {', '.join(FORMATS)}; got {fmt!r}.")
    if fmt in ("table", "markdown"):
        emit(render(frame, fmt, value_cols=value_cols, se_col="se", scale=scale, title=title, notes=notes,
                    p_floor=p_floor))
        return
    emit(render(frame, fmt, value_cols=value_cols, se_col="se", scale=scale, p_floor=p_floor))
    for note in notes:
        if fmt == "latex":
            emit(f"% note: {note}")
        else:
            sys.stderr.write(f"note: {note}\n")


def in_points(frame, scales, value_cols):
    """Human formats (table, markdown, latex): each row on its aggregate's display scale, and the note saying so.

    Accuracy-like aggregates of bounded scores are shown in points (x100); rank-based aggregates and scores
    outside [0, 1] on their own scale, so ``--aggregate mean,mean-rank`` shows the mean in points and the mean
    rank as a rank in every human format. CSV and JSON always give fractions (the JSON contract).
    """
    import pandas as pd

    out = frame.copy()
    factor = out["aggregate"].map(dict(scales)).fillna(1.0).to_numpy(dtype=float)
    for c in value_cols:
        if c in out.columns:
            out[c] = pd.to_numeric(out[c], errors="coerce").to_numpy(dtype=float) * factor
    hundred = [a for a, s in scales if s == 100.0]
    if not hundred:
        return out, None
    rest = [a for a, s in scales if s != 100.0]
    note = ("values in points (x100)" if not rest else
            f"{', '.join(hundred)} in points (x100); {', '.join(rest)} on {'its' if len(rest) == 1 else 'their'} own"
            " scale")
    return out, note + "; JSON and CSV give fractions"


@reads_input("path example models tasks drop_cols accuracy_scale",
             after={"aggregate": "weights", "fmt": f"cluster {TABLE_INPUT} {LOG_INPUT}"})
def compare(
    aggregate: AggregateOpt = "mean",
    resampling: ResamplingOpt = "auto",
    n_resamples: NResamplesOpt = 10_000,
    seed: SeedOpt = None,
    confidence: ConfidenceOpt = "0.95",
    interval: IntervalOpt = "percentile",
    correction: CorrectionOpt = "none",
    margin: MarginOpt = "0",
    fmt: FormatOpt = "table",
    scheduler: SchedulerOpt = None,
    *,
    inputs: InputOptions,
):
    """Every pair of models: difference of the aggregate, bootstrap interval, p-value and verdict.

    Differences, intervals and verdicts are computed on the difference itself (paired for item-level data),
    never from overlapping per-model intervals. JSON and CSV keep fractions at full precision; the table shows
    points. Summary data (per-task accuracy and n) have no pairing: the verdict is also given for an assumed
    between-model correlation from 0 to 0.5.
    """
    from ..comparison import compare as compare_models

    with errors(method="--interval"), executor_for(scheduler):  # the bootstrap interval `method`
        sel = inputs.selection()
        table = sel.table
        seed, seed_text = resolve_seed(seed)
        result = compare_models(sel, aggregate=aggregate, resampling=resampling, n_resamples=n_resamples,
                                method=interval, confidence_level=parse_confidence(confidence),
                                correction=correction, margin=parse_margin(margin), per_task=False, rng=seed)
        frame = result.to_frame()
        readings = result.readings()
        notes = [cli_message(n) for n in result.notes]
        notes.append(f"{seed_text}, {result.replicates.n_resamples:,} replicates")
        if table.attribution:
            notes.append(table.attribution)
        value_cols = ("difference", "se", "ci_low", "ci_high")
        if fmt in ("table", "markdown", "latex"):
            shown = frame[[c for c in ("aggregate", "model_a", "model_b", "difference", "se", "ci_low", "ci_high",
                                       "p_value", "p_adjusted", "verdict") if c in frame.columns]]
            shown, points = in_points(shown, [(p.statistic, p.scale) for p in result.aggregates], value_cols)
            if points:
                notes.insert(0, points)
            floor = 2 / (result.replicates.replicates.shape[0] + 1)  # two-sided bootstrap p-values
            emit_frame(shown, fmt, readings + notes, scale=1.0, value_cols=value_cols, p_floor=floor)
        else:
            emit_frame(frame, fmt, notes, scale=1.0, value_cols=("difference", "se", "ci_low", "ci_high"))
