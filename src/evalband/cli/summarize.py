"""``evalband summarize``: each model's score on each task with standard error and interval, plus its pooled
score."""

from __future__ import annotations

import sys
import warnings

import typer

from ._common import BaselinesOpt, FilterOpt, MetricOpt, SplitOpt
from ._common import AccuracyScaleOpt, DropColsOpt
from ._common import (ClusterOpt, ConfidenceOpt, CountRuleOpt, ExampleOpt, FormatOpt, GroupColOpt, ItemColOpt,
                      ModelColOpt, ModelsOpt, PathArg, ScoreColOpt, ShapeOpt, SourceOpt, TaskColOpt, TrialColOpt,
                      UnboundedOpt, emit, errors, load_input)
from typing import Annotated

MethodOpt = Annotated[str, typer.Option(
    "--method", help="auto, wilson, clopper-pearson (exact), jeffreys, agresti-coull, wald, t, normal or cluster."
                     " auto: cluster when clusters are given, wilson for 0/1 scores, t otherwise.")]


def summarize(
    path: PathArg = None,
    example: ExampleOpt = None,
    method: MethodOpt = "auto",
    cluster: ClusterOpt = None,
    confidence: ConfidenceOpt = "0.95",
    fmt: FormatOpt = "table",
    source: SourceOpt = "auto",
    shape: ShapeOpt = "auto",
    model_col: ModelColOpt = "model",
    task_col: TaskColOpt = "task",
    item_col: ItemColOpt = "item",
    score_col: ScoreColOpt = "score",
    trial_col: TrialColOpt = "trial",
    group_col: GroupColOpt = "group",
    unbounded: UnboundedOpt = False,
    count_rule: CountRuleOpt = "floor",
    models: ModelsOpt = None,
    drop_cols: DropColsOpt = None,
    accuracy_scale: AccuracyScaleOpt = None,
    metric: MetricOpt = None,
    filter_: FilterOpt = None,
    split: SplitOpt = None,
    baselines: BaselinesOpt = None,
):
    """Per model and task: estimate, standard error, confidence interval and n, plus each model's pooled score.

    Estimates are fractions (not percent); displayed digits follow the standard error. Notes on what was
    assumed or left out are printed below the table (on stderr for csv and json).
    """
    from .._validate import OVERLAP_CONFIDENCE
    from ..estimate import estimate
    from ..report.format import FORMATS, render

    with errors():
        if fmt not in FORMATS:
            raise ValueError(f"`--format` must be one of {', '.join(FORMATS)}; got {fmt!r}.")
        table = load_input(path, example, metric=metric, filter=filter_, split=split, baselines=baselines,
                           source=source, shape=shape, model_col=model_col, task_col=task_col,
                           item_col=item_col, score_col=score_col, trial_col=trial_col, cluster=cluster,
                           group_col=group_col, unbounded=unbounded, count_rule=count_rule, models=models,
                           drop_cols=drop_cols, accuracy_scale=accuracy_scale)
        level = _confidence(confidence)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the same text is in result.notes
            result = estimate(table, method=method, confidence_level=level,
                              cluster=True if cluster is not None else None)
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


def _confidence(text):
    """'0.95' -> 0.95; '95%' and 'overlap' pass through to the library's check."""
    try:
        return float(text)
    except ValueError:
        return text
