"""A report without comparisons: each model's scores with intervals, per task and over its tasks.

Used when there is nothing to compare: a file with one model (tau-bench and CRUXEval users often have one), or
models that share no task. Every model is bootstrapped on its own items, with the random streams a joint
``bootstrap(table, resampling='independent')`` would use.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["build_summary_report", "SUMMARY_AGGREGATES"]

#: Aggregates that are a function of one model's own task scores (rank-based ones need other models).
SUMMARY_AGGREGATES = ("mean", "geometric", "harmonic", "chance-normalized")


def _model_tasks(table) -> dict:
    d = table.data
    rows = d if table.level == "item" else d.loc[d["n"] > 0]
    present = rows.groupby(["model", "task"], observed=True).size()
    out = {m: [] for m in table.models}
    for m, t in present.index:
        out[str(m)].append(str(t))
    return {m: [t for t in table.tasks if t in ts] for m, ts in out.items()}


def build_summary_report(table, *, reason: str, aggregate: str, n_resamples: int, level: float, seed: int,
                         command: str | None, timestamp: str | None, extra_notes=()):
    """The :class:`~evalband.report._build.Report` of a table whose models are not compared (see module doc)."""
    import platform
    import time

    import evalband

    from ..aggregate import get_aggregate
    from ..resample import bootstrap, interval
    from . import plots
    from ._build import Figure, Report, _table_notes
    from ._findings import references

    analysis_notes = list(extra_notes)
    skipped = []
    agg_name = aggregate
    if aggregate not in SUMMARY_AGGREGATES:
        agg_name = "mean"
        analysis_notes.append(f"aggregate '{aggregate}' compares models with each other; with nothing to compare"
                              " the report shows the mean over tasks")
    tasks_of = _model_tasks(table)
    rows, task_frames, samples = [], [], []
    unit, resampled_notes = "item", []
    for m in table.models:
        sub = table.select(models=[m], tasks=tasks_of[m])
        reps = bootstrap(sub, resampling="independent", n_resamples=n_resamples, rng=seed, progress=False)
        unit = reps.unit
        resampled_notes += [n for n in reps.notes if n not in table.notes]
        agg = get_aggregate(agg_name, task_groups=sub.task_groups, tasks=list(sub.tasks), models=[m])
        est, rep = agg(reps.observed)[0], agg(reps.replicates)[:, 0]
        ci = interval(rep[:, None], np.array([est]), confidence_level=level)
        samples.append((est, rep))
        rows.append({"model": m, "aggregate": agg_name, "estimate": float(est), "se": float(rep.std(ddof=1)),
                     "ci_low": float(np.asarray(ci.low).ravel()[0]), "ci_high": float(np.asarray(ci.high).ravel()[0]),
                     "tasks": len(sub.tasks), "confidence_level": level})
        frame = reps.to_frame()
        task_ci = interval(reps.replicates, reps.observed, confidence_level=level)
        frame["ci_low"] = np.asarray(task_ci.low).ravel()
        frame["ci_high"] = np.asarray(task_ci.high).ravel()
        task_frames.append(frame)
    scores = pd.DataFrame(rows)
    per_task = pd.concat(task_frames, ignore_index=True)
    models = list(table.models)
    order = np.argsort(-scores["estimate"].to_numpy(), kind="stable")

    scale = 100.0 if table.score_kind in ("binary", "bounded") else 1.0
    val = (lambda v: f"{100 * v:.1f}%") if scale == 100 else (lambda v: f"{v:.4g}")  # noqa: E731
    figures = []
    label = f"{agg_name} over tasks" + (" (%)" if scale == 100 else "")
    overlap = interval(np.column_stack([r for _, r in samples]), scores["estimate"].to_numpy(),
                       confidence_level="overlap")
    overlap = overlap if len(models) > 1 else None  # 83.4% bars compare models: none to compare with
    ax = plots.forest_plot(models, scores["estimate"], (scores["ci_low"], scores["ci_high"]), overlap, scale=scale,
                           xlabel=label, confidence_level=level, order=order)
    figures.append(Figure("forest", "Aggregate score" + ("s" if len(models) > 1 else ""),
                          f"Dots: {agg_name} over tasks. Bars: {level:.0%} bootstrap intervals"
                          + ("; thick bars: 83.4% intervals." if overlap is not None else "."), ax.figure))
    if len(table.tasks) > 1:
        est = np.full((len(models), len(table.tasks)), np.nan)
        width = np.full_like(est, np.nan)
        for _, x in per_task.iterrows():
            i, j = models.index(x["model"]), table.tasks.index(x["task"])
            est[i, j], width[i, j] = x["estimate"], x["ci_high"] - x["ci_low"]
        try:
            ax = plots.task_heatmap(models, table.tasks, est, width, annotate=est.size <= 320, scale=scale)
            figures.append(Figure("tasks", "Per-task scores", f"Score{' (%)' if scale == 100 else ''} in each cell"
                                  " and, below it, ± half the "
                                  f"width of its {level:.0%} bootstrap interval.", ax.figure))
        except (ValueError, TypeError) as exc:
            skipped.append(f"Per-task heat map: {str(exc).splitlines()[0]}")

    passk_frame = None
    if table.level == "item" and table.has_trials and table.is_binary:
        try:
            from ..estimation.passk import passk

            kmax = int(table.data.groupby(["model", "task", "item"], observed=True).size().min())
            ks = tuple(k for k in (1, 2, 3, 4, 5, 8, 10, 16, 20, 50, 100) if k <= kmax)
            frames = []
            for m in models:
                pk = passk(table.select(models=[m], tasks=tasks_of[m]), k=ks, confidence_level=level)
                frames.append(pk.to_frame())
            passk_frame = pd.concat(frames, ignore_index=True)
            for key, metric, title, caption in (
                    ("passk", "pass@k", "pass@k: at least one of k trials succeeds",
                     "Unbiased estimator per item (Chen et al. 2021), averaged over tasks; bands: mean of the "
                     "per-task intervals."),
                    ("passhatk", "pass^k", "pass^k: all k trials succeed",
                     "Unbiased estimator per item (Yao et al. 2024), averaged over tasks: the chance that k "
                     "independent attempts all succeed; bands: mean of the per-task intervals.")):
                f = passk_frame[passk_frame["metric"] == metric]
                g = f.groupby(["model", "k"], sort=False)[["estimate", "ci_low", "ci_high"]].mean()
                shape = (len(models), len(ks))
                def pick(col, g=g, shape=shape):
                    return np.array([[g.loc[(m, k), col] for k in ks] for m in models]).reshape(shape)
                ax = plots.pass_at_k_plot(ks, pick("estimate"), models, (pick("ci_low"), pick("ci_high")))
                ax.set_ylabel(f"{metric} (%)")
                figures.append(Figure(key, title, caption, ax.figure))
        except (ImportError, ValueError, TypeError) as exc:
            skipped.append(f"pass@k: {str(exc).splitlines()[0]}")
    else:
        skipped.append("pass@k and pass^k: need repeated trials of 0/1 scores.")

    findings = [reason]
    for i in order:
        x = scores.iloc[i]
        what = f"{agg_name} over its {x['tasks']} tasks" if x["tasks"] > 1 else "score on its one task"
        findings.append(f"{x['model']}: {what} "
                        f"{val(x['estimate'])}, {level:.0%} interval {val(x['ci_low'])} to {val(x['ci_high'])} "
                        f"(bootstrap standard error {scale * x['se']:.2g}{' points' if scale == 100 else ''}).")
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
                        "are wide and the bootstrap percentile interval is approximate with so few items.")

    methods = [
        f"Bootstrap: {n_resamples:,} replicates; within each task the {unit}s of each model are resampled on their "
        "own (no pairing is needed with nothing to compare); repeated trials stay with their item.",
        f"Intervals: bootstrap percentile intervals at {level:.0%} for each task and for the {agg_name} over tasks "
        "(the same replicates).",
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
    reproduce = {"command": command or "(API call: evalband.report.build_report)", "seed": int(seed),
                 "evalband": evalband.__version__, "n_resamples": n_resamples, "confidence_level": level,
                 "aggregate": agg_name, "python": platform.python_version(), "numpy": np.__version__}
    stamp = timestamp or time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    empty = pd.DataFrame()
    refs = references({}) + [
        ("M. Chen et al. (2021). Evaluating Large Language Models Trained on Code. arXiv:2107.03374 (pass@k).",
         "https://arxiv.org/abs/2107.03374"),
        ("S. Yao, N. Shinn, P. Razavi, K. Narasimhan (2024). tau-bench: A Benchmark for Tool-Agent-User Interaction "
         "in Real-World Domains. arXiv:2406.12045 (pass^k).", "https://arxiv.org/abs/2406.12045")]
    return Report(
        title=f"evalband report: {table.source}", source=table.source, description=table.describe(),
        notes=_table_notes(table, paired=False), attribution=table.attribution, coverage=cov_summary, ranking=scores,
        pairs=empty, per_task=per_task, weights=None, bayes=None, findings=findings, methods=methods,
        references=refs, figures=figures, reproduce=reproduce, timestamp=stamp, sections_skipped=skipped,
        analysis_notes=tuple(dict.fromkeys(analysis_notes + resampled_notes)), scale=scale, higher_is_better=True,
        kind="summary", summary_reason=reason, passk=passk_frame)
