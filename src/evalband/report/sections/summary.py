"""The report of a summary analysis (one model, or models that share no task): each model's scores with
intervals, per task and over its tasks (computed in :mod:`evalband.analysis.summary`; rendered here)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...resample.floors import FLOOR_METHOD

__all__ = ["summary_report"]


def summary_report(a, *, command, timestamp):
    """The :class:`~evalband.report.build.Report` of a summary analysis (module doc); renders only."""
    from .. import plots
    from ...display import estimate_text, format_level
    from ..build import Figure, Report, _reproduce, _stamp, _table_notes, report_title, task_caption
    from ..plots.matrices import annotates
    from .findings import references

    table = a.table
    level, agg_name, scores, per_task = a.confidence_level, a.aggregate, a.scores, a.per_task
    models = list(a.selection.models)
    order = a.order
    overlap = a.overlap
    unit = a.summary_samples[0][2] if a.summary_samples else "item"
    skipped = []
    reason = a.reason
    n_resamples = a.n_resamples
    scale = a.scale
    figures = []
    label = f"{agg_name} over tasks" + (" (%)" if scale == 100 else "")
    if len(models) == 1:
        overlap = None  # one model: one interval per quantity (the 83.4% interval is for comparing models)
    ax = plots.forest_plot(models, scores["estimate"], (scores["ci_low"], scores["ci_high"]), overlap, scale=scale,
                           xlabel=label, confidence_level=level, order=order)
    figures.append(Figure("forest", "Aggregate score" + ("s" if len(models) > 1 else ""),
                          f"Dots: {agg_name} over tasks. Bars: {format_level(level)} bootstrap intervals"
                          + ("; thick bars: 83.4% intervals." if overlap is not None else "."), ax.figure))
    if len(table.tasks) > 1:
        est = np.full((len(models), len(table.tasks)), np.nan)
        width = np.full_like(est, np.nan)
        for _, x in per_task.iterrows():
            i, j = models.index(x["model"]), table.tasks.index(x["task"])
            est[i, j], width[i, j] = x["estimate"], x["ci_high"] - x["ci_low"]
        annotate = annotates(len(models), len(table.tasks))
        ax = plots.task_heatmap(models, table.tasks, est, width, annotate=annotate, scale=scale)
        figures.append(Figure("tasks", "Per-task scores", task_caption(annotate, level, scale), ax.figure))

    passk_frame = None
    if a.passk is not None:
        passk_frame = pd.concat([pk.to_frame() for pk in a.passk], ignore_index=True)
        for key, metric, title, caption in (
                ("passk", "pass@k", "pass@k: at least one of k trials succeeds",
                 "Unbiased estimator per item (Chen et al. 2021), averaged over tasks; bands: mean of the "
                 "per-task intervals."),
                ("passhatk", "pass^k", "pass^k: all k trials succeed",
                 "Unbiased estimator per item (Yao et al. 2024), averaged over tasks: the chance that k "
                 "independent attempts all succeed; bands: mean of the per-task intervals.")):
            ks, est, low, high = a.passk_curve(metric)
            ax = plots.pass_at_k_plot(ks, est, models, (low, high))
            ax.set_ylabel(f"{metric} (%)")
            figures.append(Figure(key, title, caption, ax.figure))
    else:
        skipped += [f"{section}: {why}." for section, why in a.skipped]

    findings = [reason]
    for i in order:
        x = scores.iloc[i]
        what = f"{agg_name} over its {x['tasks']} tasks" if x["tasks"] > 1 else "score on its one task"
        findings.append(f"{x['model']}: {what} "
                        f"{estimate_text(x['estimate'], x['ci_low'], x['ci_high'], x['se'], confidence_level=level, scale=scale)}"
                        f"; bootstrap standard error {scale * x['se']:.2g}{' points' if scale == 100 else ''}.")
    if passk_frame is not None:
        for m in models:
            h = passk_frame[(passk_frame["model"] == m) & (passk_frame["metric"] == "pass^k")]
            h = h.groupby("k")["estimate"].mean()
            if len(h) > 1:
                findings.append(f"{m}: pass^k falls from {100 * h.iloc[0]:.1f}% at k = {h.index[0]} to "
                                f"{100 * h.iloc[-1]:.1f}% at k = {h.index[-1]}: the chance that every one of k "
                                "attempts succeeds, a measure of consistency that pass@1 alone hides.")
    many = per_task.groupby("model")["n"].min()
    few = [m for m, n in many.items() if n < 30]
    if few:
        findings.append(f"Few items on some task ({', '.join(few)}: as few as {int(many[few].min())}): intervals "
                        "are wide" + (", and a proportion's bootstrap interval is widened to contain Wilson's there."
                                      if table.is_binary else
                                      " and the bootstrap percentile interval is approximate with so few items."))

    methods = [
        f"Bootstrap: {n_resamples:,} replicates; within each task the {unit}s of each model are resampled on their "
        "own (no pairing is needed with nothing to compare); repeated trials stay with their item.",
        f"Intervals: bootstrap percentile intervals at {format_level(level)} for each task and for the {agg_name} over tasks "
        "(the same replicates)." + (f" {FLOOR_METHOD}" if table.is_binary else ""),
    ]
    if passk_frame is not None:
        methods.append("pass@k and pass^k: unbiased per-item estimators from n trials with c successes, "
                       "1 - C(n-c, k)/C(n, k) and C(c, k)/C(n, k), averaged over items; intervals from the "
                       "standard error across items (t interval, clipped to [0, 1]).")
    cov = table.coverage()
    cov_summary = (cov.groupby("model", observed=True)
                   .agg(tasks=("task", "nunique"), items=("items", "sum"), left_out=("left_out", "sum"))
                   .reset_index())
    cov_summary["left_out"] = 0  # nothing is paired, so nothing is left out
    reproduce = _reproduce(a, command)
    stamp = _stamp(timestamp)
    empty = pd.DataFrame()
    refs = references({}) + [
        ("M. Chen et al. (2021). Evaluating Large Language Models Trained on Code. arXiv:2107.03374 (pass@k).",
         "https://arxiv.org/abs/2107.03374"),
        ("S. Yao, N. Shinn, P. Razavi, K. Narasimhan (2024). tau-bench: A Benchmark for Tool-Agent-User Interaction "
         "in Real-World Domains. arXiv:2406.12045 (pass^k).", "https://arxiv.org/abs/2406.12045")]
    return Report(
        title=report_title(table.source), source=table.source, description=table.describe(),
        notes=_table_notes(table, paired=False), attribution=table.attribution, coverage=cov_summary, ranking=scores,
        pairs=empty, per_task=per_task, weights=None, bayes=None, findings=findings, methods=methods,
        references=refs, figures=figures, reproduce=reproduce, timestamp=stamp, sections_skipped=skipped,
        analysis_notes=a.notes, scale=scale, higher_is_better=True,
        kind="summary", summary_reason=reason, passk=passk_frame)
