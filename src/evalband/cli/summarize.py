"""``evalband summarize``: each model's score on each task with standard error and interval, plus its pooled
score."""

from __future__ import annotations

import warnings

import typer

from ._common import (LOG_INPUT, TABLE_INPUT, ConfidenceOpt, FixedOpt, FormatOpt, InputOptions, SchedulerOpt,
                      WideOpt, errors, executor_for, output_format, parse_confidence, parse_fixed, reads_input, show)
from ._common import ATTRIBUTION, POINTS
from typing import Annotated

from ._judges import PpiOpt
from ..display.notes import NoteKind

MethodOpt = Annotated[str, typer.Option(
    "--method", help="auto, wilson, clopper-pearson (exact), jeffreys, agresti-coull, wald, t, normal, cluster or"
                     " crossed. auto: crossed when facet columns (prompt, judge, ...) are random, cluster when"
                     " clusters are given, wilson for 0/1 scores, t otherwise.")]


NOTE_OVERLAP_INTERVALS_DISPLAYS_ONLY = NoteKind(
    'cli.overlap-intervals-displays-only', 'caveat',
    "83.4% ('overlap') intervals are for displays only: two independent estimates whose intervals do not overlap "
    "differ at about the 5% level (Goldstein & Healy 1995); this is not a 95% statement, and for models scored "
    "on the same items use evalband compare")


NOTE_SUMMARIZE_INTERVALS = NoteKind('cli.summarize-intervals', 'info',
                                    "{value} intervals, method {method}; '(pooled)' rows pool every item of the model ({pooled})")


@reads_input(after={"method": "cluster", "fixed": "facets", "ppi": "human_col",
                    "fmt": f"{TABLE_INPUT} models tasks weights drop_cols accuracy_scale {LOG_INPUT}"})


def summarize(
    method: MethodOpt = "auto",
    fixed: FixedOpt = None,
    ppi: PpiOpt = "ppi++",
    confidence: ConfidenceOpt = "0.95",
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    scheduler: SchedulerOpt = None,
    *,
    inputs: InputOptions,
):
    """Per model and task: estimate, standard error, confidence interval and n, plus each model's pooled score.

    Tables show proportions in points; JSON and CSV give fractions at full precision. Displayed digits follow the
    standard error. Notes on what was assumed or left out are printed below the table (on stderr for csv and
    json). With human labels (--human-col, or a column named 'human') the score is a judge's and the estimates
    are of the human-scale mean (PPI++; --ppi), with the labels-only interval and the judge's own mean beside.
    """
    from .._validate import OVERLAP_CONFIDENCE
    from ..display import format_level, scale_for
    from ..estimation import estimate

    with errors(), executor_for(scheduler):
        fmt = output_format(fmt, wide)
        sel = inputs.selection(trials="average")  # the trial variance reads each item's exact sums (trial_means)
        table = sel.table
        level = parse_confidence(confidence)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the same text is in result.notes
            result = estimate(sel, method=method, confidence_level=level,
                              cluster=True if inputs.cluster is not None else None, fixed=parse_fixed(fixed),
                              ppi=ppi)
        if hasattr(result, "labelled_estimate"):  # human labels: prediction-powered estimates
            return _show_ppi(result, table, fmt)
        frame = result.to_frame(pooled=True)
        notes = list(result.notes)
        notes.append(NOTE_SUMMARIZE_INTERVALS(
            value=format_level(result.confidence_level), method=result.method,
            pooled="summary counts: sum(correct) / sum(n)" if table.level == "summary" else "micro average"))
        if abs(result.confidence_level - OVERLAP_CONFIDENCE) < 1e-9:
            notes.append(NOTE_OVERLAP_INTERVALS_DISPLAYS_ONLY())
        if table.attribution:
            notes.append(ATTRIBUTION(attribution=table.attribution))
        scale = scale_for(table.score_kind)
        if scale == 100 and fmt not in ("csv", "json"):
            notes.insert(0, POINTS())
        shown = frame if fmt in ("csv", "json") else frame.assign(confidence_level=result.confidence_level)
        show(shown, fmt, notes=notes, scale=scale)


NOTE_T_INTERVALS_LABELLED_DEGREES = NoteKind(
    'cli.t-intervals-labelled-degrees', 'info',
    "{value} t intervals on the labelled degrees of freedom ({method}); 'labelled ci': the human labels alone; "
    "'judge mean': the judge's scores at face value; 'ess': the human labels alone that would be as precise")


def _show_ppi(result, table, fmt):
    """The PPI estimates: per model and task, the human-scale estimate and interval, the labels-only interval,
    the judge's own mean, lambda, labelled and unlabelled counts and the effective sample size."""
    from ..display import format_level, scale_for

    frame = result.to_frame()
    notes = list(result.notes)
    notes.append(NOTE_T_INTERVALS_LABELLED_DEGREES(value=format_level(result.confidence_level), method=result.method))
    if table.attribution:
        notes.append(ATTRIBUTION(attribution=table.attribution))
    scale = scale_for(table.score_kind)
    if fmt in ("csv", "json"):
        show(frame, fmt, notes=notes)
        return
    if scale == 100:
        notes.insert(0, POINTS())
    shown = frame[["model", "task", "estimate", "se", "ci_low", "ci_high", "labelled_ci_low", "labelled_ci_high",
                   "judge_mean", "lambda", "n_labelled", "n_unlabelled", "ess", "confidence_level"]]
    title = None
    if len(result.tasks) == 1:  # one task: its name in the title, the columns for the numbers
        shown, title = shown.drop(columns="task"), f"task: {result.tasks[0]}"
    show(shown, fmt, notes=notes, scale=scale, title=title,
         value_cols=("estimate", "se", "ci_low", "ci_high", "labelled_ci_low", "labelled_ci_high", "judge_mean"))
