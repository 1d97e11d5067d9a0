"""The analysis of data without comparisons: each model's scores with intervals, per task and over its tasks.

Used when there is nothing to compare: one model (tau-bench and CRUXEval users often have one), or models that
share no task. Every model is bootstrapped on its own items, with the random streams a joint
``bootstrap(table, resampling='independent')`` would use.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .extensions import run_extensions
from ..display.notes import NoteKind

__all__ = ["summary_analysis", "SUMMARY_AGGREGATES"]

#: Aggregates that are a function of one model's own task scores (rank-based ones need other models).
SUMMARY_AGGREGATES = ("mean", "geometric", "harmonic", "chance-normalized")


def model_tasks(table) -> dict:
    """Model -> the tasks it has results on, in table order."""
    d = table.data
    rows = d if table.level == "item" else d.loc[d["n"] > 0]
    present = rows.groupby(["model", "task"], observed=True).size()
    out = {m: [] for m in table.models}
    for m, t in present.index:
        out[str(m)].append(str(t))
    return {m: [t for t in table.tasks if t in ts] for m, ts in out.items()}


NOTE_AGGREGATE_COMPARES_MODELS_EACH = NoteKind(
    'analysis.aggregate-compares-models-each', 'caveat',
    "aggregate '{aggregate}' compares models with each other; with nothing to compare the report shows the mean "
    "over tasks")


def summary_analysis(sel, *, reason: str, aggregate: str, n_resamples: int | None, level: float, seed: int,
                     sections=()):
    """The :class:`~evalband.analysis.Analysis` of a selection whose models are not compared (module doc)."""
    from ..aggregate import get_aggregate
    from ..estimation import passk
    from ..resample import bootstrap, interval
    from ..resample.floors import widen_aggregate, widen_tasks
    from ..estimation.confidence import ConfidenceInterval
    from .core import Analysis, passk_ks

    from .._defaults import n_resamples_for

    requested, n_resamples = n_resamples, n_resamples_for("average", n_resamples)  # extensions: by their kind
    table = sel.table
    notes, skipped = [], []
    agg_name = aggregate
    if aggregate not in SUMMARY_AGGREGATES:
        agg_name = "mean"
        notes.append(NOTE_AGGREGATE_COMPARES_MODELS_EACH(aggregate=aggregate))
    tasks_of = model_tasks(table)
    rows, task_frames, samples, bars = [], [], [], []
    for m in sel.models:
        sub = table.select(models=[m], tasks=tasks_of[m])
        reps = bootstrap(sub, resampling="independent", n_resamples=n_resamples, rng=seed, progress=False)
        notes += [n for n in reps.notes if n not in table.notes]
        agg = get_aggregate(agg_name, task_groups=sub.task_groups, tasks=list(sub.tasks), models=[m])
        est, rep = agg(reps.observed)[0], agg(reps.replicates)[:, 0]
        ci = interval(rep[:, None], np.array([est]), confidence_level=level)
        w = widen_aggregate(reps, agg, np.array([est]), rep[:, None], ci.low, ci.high, np.array([rep.std(ddof=1)]),
                            confidence_level=level)
        samples.append((est, rep, reps.unit))
        raw = interval(rep[:, None], np.array([est]), confidence_level="overlap")
        o = widen_aggregate(reps, agg, np.array([est]), rep[:, None], raw.low, raw.high, w.se,
                            confidence_level="overlap")
        bars.append((float(o.ci.low[0]), float(o.ci.high[0])))
        rows.append({"model": m, "aggregate": agg_name, "estimate": float(est), "se": float(w.se[0]),
                     "ci_low": float(w.ci.low[0]), "ci_high": float(w.ci.high[0]),
                     "tasks": len(sub.tasks), "confidence_level": level})
        frame = reps.to_frame()
        task_ci = interval(reps.replicates, reps.observed, confidence_level=level)
        t = widen_tasks(reps, task_ci.low, task_ci.high, reps.se, confidence_level=level)
        frame["se"] = np.asarray(t.se).ravel()
        frame["ci_low"] = np.asarray(t.ci.low).ravel()
        frame["ci_high"] = np.asarray(t.ci.high).ravel()
        task_frames.append(frame)
        notes += [*w.notes, *t.notes]
    scores = pd.DataFrame(rows)
    per_task = pd.concat(task_frames, ignore_index=True)
    order = np.argsort(-scores["estimate"].to_numpy(), kind="stable")
    overlap = None
    if len(sel.models) > 1:  # 83.4% bars compare models: none to compare with one model
        overlap = ConfidenceInterval(np.array([b[0] for b in bars]), np.array([b[1] for b in bars]))
    pk = None
    if table.level == "item" and table.has_trials and table.is_binary:
        ks = passk_ks(table)
        pk = tuple(passk(table.select(models=[m], tasks=tasks_of[m]), k=ks, confidence_level=level)
                   for m in sel.models)
    else:
        skipped.append(("pass@k and pass^k", "need repeated trials of 0/1 scores"))
    extras, more = run_extensions(sel, aggregate=aggregate, n_resamples=requested, confidence_level=level,
                                  rng=seed, replicates=None, sections=sections)
    return Analysis("summary", sel, agg_name, level, n_resamples, seed, overlap=overlap, order=order, passk=pk,
                    scores=scores, per_task=per_task, summary_samples=tuple(samples), reason=reason,
                    skipped=tuple([*skipped, *more]), notes=tuple(dict.fromkeys([*sel.notes, *notes])),
                    extras=extras)
