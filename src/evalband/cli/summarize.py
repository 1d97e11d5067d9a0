"""``evalband summarize``: each model's score on each task with standard error and interval, plus its pooled
score."""

from __future__ import annotations

import warnings

import typer

from ._common import (LOG_INPUT, TABLE_INPUT, ConfidenceOpt, FixedOpt, FormatOpt, InputOptions, WideOpt, errors,
                      output_format, parse_confidence, parse_fixed, reads_input, show)
from typing import Annotated

MethodOpt = Annotated[str, typer.Option(
    "--method", help="auto, wilson, clopper-pearson (exact), jeffreys, agresti-coull, wald, t, normal, cluster or"
                     " crossed. auto: crossed when facet columns (prompt, judge, ...) are random, cluster when"
                     " clusters are given, wilson for 0/1 scores, t otherwise.")]


@reads_input(after={"method": "cluster", "fixed": "facets",
                    "fmt": f"{TABLE_INPUT} models tasks weights drop_cols accuracy_scale {LOG_INPUT}"})
def summarize(
    method: MethodOpt = "auto",
    fixed: FixedOpt = None,
    confidence: ConfidenceOpt = "0.95",
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    *,
    inputs: InputOptions,
):
    """Per model and task: estimate, standard error, confidence interval and n, plus each model's pooled score.

    Tables show proportions in points; JSON and CSV give fractions at full precision. Displayed digits follow the
    standard error. Notes on what was assumed or left out are printed below the table (on stderr for csv and
    json).
    """
    from .._validate import OVERLAP_CONFIDENCE
    from ..display import format_level, scale_for
    from ..estimation import estimate

    with errors():
        fmt = output_format(fmt, wide)
        sel = inputs.selection()
        table = sel.table
        level = parse_confidence(confidence)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the same text is in result.notes
            result = estimate(sel, method=method, confidence_level=level,
                              cluster=True if inputs.cluster is not None else None, fixed=parse_fixed(fixed))
        frame = result.to_frame(pooled=True)
        notes = list(result.notes)
        notes.append(f"{format_level(result.confidence_level)} intervals, method {result.method}; '(pooled)' rows pool"
                     " every item of the model" + (" (summary counts: sum(correct) / sum(n))"
                                                   if table.level == "summary" else " (micro average)"))
        if abs(result.confidence_level - OVERLAP_CONFIDENCE) < 1e-9:
            notes.append("83.4% ('overlap') intervals are for displays only: two independent estimates whose"
                         " intervals do not overlap differ at about the 5% level (Goldstein & Healy 1995); this is"
                         " not a 95% statement, and for models scored on the same items use evalband compare")
        if table.attribution:
            notes.append(table.attribution)
        scale = scale_for(table.score_kind)
        if scale == 100 and fmt not in ("csv", "json"):
            notes.insert(0, "values in points (x100); JSON and CSV give fractions")
        shown = frame if fmt in ("csv", "json") else frame.assign(confidence_level=result.confidence_level)
        show(shown, fmt, notes=notes, scale=scale)
