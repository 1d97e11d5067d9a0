"""``evalband summarize``: each model's score on each task with standard error and interval, plus its pooled
score."""

from __future__ import annotations

import sys
import warnings

import typer

from ._common import (LOG_INPUT, TABLE_INPUT, ConfidenceOpt, FormatOpt, InputOptions, emit, errors,
                      parse_confidence, reads_input)
from typing import Annotated
from .._validate import ArgumentError

MethodOpt = Annotated[str, typer.Option(
    "--method", help="auto, wilson, clopper-pearson (exact), jeffreys, agresti-coull, wald, t, normal or cluster."
                     " auto: cluster when clusters are given, wilson for 0/1 scores, t otherwise.")]


@reads_input(after={"method": "cluster", "fmt": f"{TABLE_INPUT} models tasks weights drop_cols accuracy_scale"
                                                f" {LOG_INPUT}"})
def summarize(
    method: MethodOpt = "auto",
    confidence: ConfidenceOpt = "0.95",
    fmt: FormatOpt = "table",
    *,
    inputs: InputOptions,
):
    """Per model and task: estimate, standard error, confidence interval and n, plus each model's pooled score.

    Estimates are fractions (not percent); displayed digits follow the standard error. Notes on what was
    assumed or left out are printed below the table (on stderr for csv and json).
    """
    from .._validate import OVERLAP_CONFIDENCE
    from ..estimation import estimate
    from ..report.format import FORMATS, render

    with errors():
        if fmt not in FORMATS:
            raise ArgumentError(f"`--format` must be one of {', '.join(FORMATS)}; got {fmt!r}.")
        sel = inputs.selection()
        table = sel.table
        level = parse_confidence(confidence)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the same text is in result.notes
            result = estimate(sel, method=method, confidence_level=level,
                              cluster=True if inputs.cluster is not None else None)
        frame = result.to_frame(pooled=True)
        notes = list(result.notes)
        notes.append(f"{result.confidence_level:.1%} intervals, method {result.method}; '(pooled)' rows pool"
                     " every item of the model" + (" (summary counts: sum(correct) / sum(n))"
                                                   if table.level == "summary" else " (micro average)"))
        if abs(result.confidence_level - OVERLAP_CONFIDENCE) < 1e-9:
            notes.append("83.4% ('overlap') intervals are for displays only: two independent estimates whose"
                         " intervals do not overlap differ at about the 5% level (Goldstein & Healy 1995); this is"
                         " not a 95% statement, and for models scored on the same items use evalband compare")
        if table.attribution:
            notes.append(table.attribution)
        if fmt in ("table", "markdown"):
            emit(render(frame, fmt, notes=notes))
        else:
            emit(render(frame, fmt))
            for note in notes:
                if fmt == "latex":
                    emit(f"% note: {note}")
                else:
                    sys.stderr.write(f"note: {note}\n")
