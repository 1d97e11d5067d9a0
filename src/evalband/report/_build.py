"""Compute everything a report shows, from one bootstrap replicate set: rankings, comparisons, weight
sensitivity, Bayesian intervals, per-task intervals, and the figures. Rendering is in ``html.py``."""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validate import check_confidence_level, check_positive_int

__all__ = ["Report", "Figure", "build_report"]


@dataclass(frozen=True)
class Figure:
    """A report figure: a key (file name), title, caption and the matplotlib Figure."""

    key: str
    title: str
    caption: str
    figure: object


@dataclass
class Report:
    """Everything one report shows. Build with :func:`build_report`; render with ``evalband.report.html``."""

    title: str
    source: str
    description: str
    notes: tuple
    attribution: str | None
    coverage: pd.DataFrame
    ranking: pd.DataFrame
    pairs: pd.DataFrame
    per_task: pd.DataFrame
    weights: pd.DataFrame | None
    bayes: pd.DataFrame | None
    findings: list
    methods: list
    references: list
    figures: list
    reproduce: dict
    timestamp: str
    sections_skipped: list = field(default_factory=list)
    analysis_notes: tuple = ()
    scale: float = 100.0
    higher_is_better: bool = True
    kind: str = "comparison"          # 'comparison', or 'summary' (one model, or models that share no task)
    summary_reason: str = ""          # why a summary report has no comparison
    passk: pd.DataFrame | None = None  # summary reports: pass@k and pass^k per model, task and k


def build_report(table, *, aggregate: str = "mean", n_resamples: int = 2000, confidence_level=0.95, seed: int = 0,
                 bayes: bool = True, command: str | None = None, timestamp: str | None = None,
                 max_pairs_shown: int = 30) -> Report:
    """Run the analyses of a report on ``table`` (a ResultsTable) with one seed.

    Parameters
    ----------
    aggregate : str
        Aggregate over tasks (see ``evalband.aggregate.AGGREGATES``); 'mean' by default.
    n_resamples : int
        Bootstrap replicates shared by every interval, comparison and ranking.
    confidence_level : float or str
    seed : int
        The one seed of the run (bootstrap, Dirichlet weights, posterior draws).
    bayes : bool
        Add Beta-Binomial credible intervals (binary scores or counts only).
    command : str, optional
        The command line that reproduces the report (shown in the report).
    timestamp : str, optional
        Shown on the report's one timestamp line; default now (UTC).

    Notes
    -----
    What can be compared decides what the report holds. With one model, or models that share no task, it is a
    summary report (``kind='summary'``): each model's scores with intervals per task and over its tasks, pass@k
    and pass^k when the data have repeated trials, and a sentence saying why nothing is compared. Tasks that some
    model lacks are left out of a comparison (named in the notes). Where the models share no item of a task, the
    items cannot be paired and every model is resampled independently on its own items (said in the notes).
    """
    from ..comparison import compare
    from ..ranking import rank
    from ..resample import bootstrap, interval
    from ..weights import weight_sensitivity
    from . import plots
    from ._findings import findings_for, method_notes, references

    level = check_confidence_level(confidence_level)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=100)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"`seed` must be an integer; got {seed!r}.")
    table.require_models(1, "a report")
    skipped = []
    table, reason, plan_notes, independent = _plan(table)
    if reason:
        from ._summary import build_summary_report

        return build_summary_report(table, reason=reason, aggregate=aggregate, n_resamples=n_resamples,
                                    level=level, seed=seed, command=command, timestamp=timestamp,
                                    extra_notes=plan_notes)

    if independent:
        # each model on its own items where they share none (the engine's streams are keyed by model, so this
        # equals one bootstrap per model)
        reps = bootstrap(table, resampling="independent", n_resamples=n_resamples, rng=seed)
        source = reps  # rank and compare work on the replicates alone (no item pairing to use)
    else:
        reps = bootstrap(table, n_resamples=n_resamples, rng=seed)
        source = table
    given = None if independent else reps
    ranking = rank(source, replicates=given, aggregate=aggregate, confidence_level=level, rng=seed)[aggregate]
    comparison = compare(source, replicates=given, aggregate=aggregate, confidence_level=level, per_task=False,
                         rng=seed)
    pairs = comparison.aggregates[0]
    models = ranking.models
    M = len(models)
    overlap = interval(ranking.samples, ranking.estimate, confidence_level="overlap")
    scale = getattr(ranking, "scale", 100.0)
    hib = bool(getattr(ranking, "higher_is_better", True))
    order = np.lexsort((ranking.rank_mean, ranking.rank))          # best first, whatever the direction

    # ---------------------------------------------------------------- figures
    figures = []
    label = f"{aggregate} over tasks" + (" (%)" if scale == 100 else "")
    ax = plots.forest_plot(models, ranking.estimate, ranking.ci, overlap, scale=scale, xlabel=label,
                           confidence_level=level, order=order)
    figures.append(Figure("forest", "Each model's aggregate score",
                          f"Dots: {aggregate} over tasks. Thin bars: {level:.0%} bootstrap intervals. Thick bars: "
                          "83.4% intervals; when two thick bars do not overlap, the two models differ at about the "
                          "5% level (a rule of thumb for independent estimates; the pairwise table is the test).",
                          ax.figure))
    task_ci = interval(reps.replicates, reps.observed, confidence_level=level)
    ax = plots.task_heatmap(reps.models, reps.tasks, reps.observed, np.asarray(task_ci.high) - task_ci.low,
                            annotate=len(reps.models) * len(reps.tasks) <= 320)
    figures.append(Figure("tasks", "Per-task scores", f"Score (%) in each cell and, below it, ± half the width of its "
                          f"{level:.0%} bootstrap interval.", ax.figure))
    diff = np.zeros((M, M))
    decided = np.zeros((M, M), dtype=bool)
    ia = np.array([models.index(a) for a in pairs.model_a])
    ib = np.array([models.index(b) for b in pairs.model_b])
    diff[ia, ib], diff[ib, ia] = pairs.difference, -pairs.difference
    dec = np.isin(pairs.verdict, ("A better", "B better"))
    decided[ia, ib] = decided[ib, ia] = dec
    ax = plots.pairwise_matrix(models, diff, decided, order=order, scale=scale)
    figures.append(Figure("pairs", "Pairwise differences",
                          f"Row model minus column model, in points. Coloured where the {level:.0%} interval of the "
                          "difference excludes zero (paired bootstrap of the difference itself); grey where it "
                          "does not: that difference is not yet decided.", ax.figure))
    ax = plots.rank_distribution_plot(models, ranking.distribution, ranking.rank_ci)
    figures.append(Figure("ranks", "Rank distributions",
                          "Share of bootstrap replicates in which each model takes each rank; orange bars: "
                          f"{level:.0%} rank intervals; ticks: mean rank.", ax.figure))

    # ---------------------------------------------------------------- tasks as the sample
    if len(table.tasks) >= 2 and len(models) >= 2:
        try:
            from ..tasks import run_test
            from .cd_diagram import cd_diagram

            tt = run_test(table, test="friedman", confidence_level=level, higher_is_better=hib)
            ax = cd_diagram(tt)
            figures.append(Figure("cd", "Critical-difference diagram (tasks as the sample)",
                                  "Mean rank of each model over tasks (Friedman test, Nemenyi critical difference);"
                                  " bars join models whose mean ranks do not differ significantly. This treats the"
                                  " tasks as the sample and ignores the test-set noise within each task. "
                                  + " ".join(tt.summary().splitlines()), ax.figure))
        except (ImportError, ValueError, TypeError) as exc:
            skipped.append(f"Critical-difference diagram: {str(exc).splitlines()[0]}")
    else:
        skipped.append("Critical-difference diagram: needs at least two tasks and two models.")

    # ---------------------------------------------------------------- weight sensitivity
    weights_frame = None
    ws_results = []
    groups = table.task_groups or {t: t for t in table.tasks}
    if len(set(groups.values())) < 2:
        skipped.append("Task-weight sensitivity: the tasks form a single group.")
    else:
        if reps.resampling == "paired":
            ws_results.append(("measured", weight_sensitivity(reps, z="independent", rng=seed)))
        else:
            ws_results.append(("independent", weight_sensitivity(reps, z="independent", rng=seed)))
            ws_results.append(("correlated", weight_sensitivity(reps, z="correlated", rng=seed)))
        for name, ws in ws_results:
            what = {"measured": "correlation between models measured from the paired replicates, z = 2",
                    "independent": "models assumed independent, z = 2",
                    "correlated": "moderate positive correlation allowed for, z = 1.4"}[name]
            ax = plots.weight_sensitivity_plot(ws)
            figures.append(Figure(f"weights-{name}", f"Which model is best under which task weights ({what})",
                                  _weights_caption(ws), ax.figure))
        frames = []
        for name, ws in ws_results:
            s = ws.shares()
            s = s[(s["points"] > 0) | (s["model"] == "undecided")].copy()
            s.insert(0, "threshold", f"z = {ws.z:g}")
            frames.append(s)
        weights_frame = pd.concat(frames, ignore_index=True)

    # ---------------------------------------------------------------- Bayesian intervals
    bayes_frame = None
    if bayes:
        try:
            from ..bayes import beta_binomial

            fit = beta_binomial(table, n_draws=4000, confidence_level=level, aggregate=aggregate, rng=seed)
            bayes_frame = fit.summary()
            b = bayes_frame.set_index("model").loc[list(models)]
            ax = plots.interval_comparison_plot(
                models, {"bootstrap": ranking.ci, "Bayesian (Beta-Binomial)": (b["ci_low"], b["ci_high"])},
                {"bootstrap": ranking.estimate, "Bayesian (Beta-Binomial)": b["posterior_mean"].to_numpy()},
                scale=scale, xlabel=label, order=order)
            figures.append(Figure("bayes", "Bayesian and bootstrap intervals",
                                  f"{level:.0%} bootstrap percentile intervals beside {level:.0%} equal-tailed "
                                  "credible intervals of the Beta-Binomial hierarchy (exact posterior draws).",
                                  ax.figure))
        except (ImportError, ValueError, TypeError) as exc:
            skipped.append(f"Bayesian intervals: {str(exc).splitlines()[0]}")

    # ---------------------------------------------------------------- pass@k
    if table.level == "item" and table.has_trials and table.is_binary:
        try:
            from ..estimation.passk import passk

            kmax = int(table.data.groupby(["model", "task", "item"], observed=True).size().min())
            ks = tuple(k for k in (1, 2, 3, 5, 10, 20, 50, 100) if k <= kmax)
            pk = passk(table, k=ks, confidence_level=level)
            est = np.asarray(pk.pass_at_k.estimate).mean(axis=1)
            lo = np.asarray(pk.pass_at_k.ci.low).mean(axis=1)
            hi = np.asarray(pk.pass_at_k.ci.high).mean(axis=1)
            ax = plots.pass_at_k_plot(ks, est, pk.models, (lo, hi))
            figures.append(Figure("passk", "pass@k", "pass@k averaged over tasks (unbiased estimator per item);"
                                  " bands: the mean of the per-task intervals.", ax.figure))
        except (ImportError, ValueError, TypeError) as exc:
            skipped.append(f"pass@k: {str(exc).splitlines()[0]}")

    # ---------------------------------------------------------------- tables
    rank_frame = ranking.to_frame()
    o = pd.Series(np.asarray(overlap.low), index=models)
    rank_frame["ci834_low"] = rank_frame["model"].map(o)
    rank_frame["ci834_high"] = rank_frame["model"].map(pd.Series(np.asarray(overlap.high), index=models))
    pair_frame = pairs.to_frame()
    per_task = reps.to_frame()
    per_task["ci_low"] = np.asarray(task_ci.low).ravel()
    per_task["ci_high"] = np.asarray(task_ci.high).ravel()

    cov = table.coverage()
    cov_summary = (cov.groupby("model", observed=True)
                   .agg(tasks=("task", "nunique"), items=("items", "sum"), left_out=("left_out", "sum"))
                   .reset_index())
    if independent:
        cov_summary["left_out"] = 0  # each model is resampled on all of its own items

    facts = dict(table=table, reps=reps, ranking=ranking, pairs=pairs, weights=ws_results, bayes=bayes_frame,
                 level=level, aggregate=aggregate, scale=scale, comparison=comparison, order=order,
                 higher_is_better=hib)
    import evalband

    reproduce = {"command": command or "(API call: evalband.report.build_report)", "seed": int(seed),
                 "evalband": evalband.__version__, "n_resamples": n_resamples,
                 "confidence_level": level, "aggregate": aggregate,
                 "python": platform.python_version(), "numpy": np.__version__}
    stamp = timestamp or time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    return Report(
        title=f"evalband report: {table.source}", source=table.source, description=table.describe(),
        notes=_table_notes(table, paired=not independent), attribution=table.attribution, coverage=cov_summary,
        ranking=rank_frame,
        pairs=pair_frame, per_task=per_task, weights=weights_frame, bayes=bayes_frame,
        findings=findings_for(facts), methods=method_notes(facts), references=references(facts), figures=figures,
        reproduce=reproduce, timestamp=stamp, sections_skipped=skipped,
        analysis_notes=tuple(dict.fromkeys(list(plan_notes) + [n for n in comparison.notes
                                                                if n not in table.notes])),
        scale=float(scale), higher_is_better=hib,
    )


def _plan(table):
    """``(table, summary_reason, notes, independent)``: what the report can compare.

    ``summary_reason`` is set (and the report shows scores only) with one model or when the models share no task;
    otherwise ``table`` keeps the tasks every model has, and ``independent`` says whether some task has no item
    shared by all models (then every model is resampled on its own items).
    """
    models = list(table.models)
    if len(models) == 1:
        return table, (f"There is one model ({models[0]}), so there is nothing to compare or rank: the report "
                       "shows its scores with their intervals, and leaves out the sections on pairwise "
                       "comparisons, ranks, task weights and tests over tasks."), [], False
    from ..comparison._setup import TasksLeftOut, missing_tasks

    lacking = missing_tasks(table, shared_items=False)  # the rule compare and rank use
    kept = [t for t in table.tasks if str(t) not in lacking]
    notes = []
    if not kept:
        own = "; ".join(f"{m}: {_names([t for t in table.tasks if m not in lacking.get(str(t), ())], 3)}"
                        for m in models[:6])
        return table, (f"The {len(models)} models share no task ({own}{'; ...' if len(models) > 6 else ''}), so "
                       "there is no common ground to compare or rank them: the report shows each model's scores "
                       "on its own tasks, and leaves out the sections on pairwise comparisons, ranks, task weights "
                       "and tests over tasks. Choose models that share tasks with --models to compare them."), \
            [], False
    all_tasks, all_groups = tuple(str(t) for t in table.tasks), table.task_groups
    gone = dict(lacking)
    if gone:
        table = table.select(tasks=kept)
    independent = False
    if table.level == "item":
        unpaired = list(missing_tasks(table))  # tasks on which no item has a result from every model
        if unpaired or not getattr(table, "paired_items", True):
            independent = True
            if unpaired:
                notes.append(f"the models share no item on {_names(unpaired, 4)}: items cannot be paired, so every "
                             "model is resampled independently on its own items (unpaired bootstrap); differences "
                             "are less precise than a paired comparison on shared items would make them")
    if gone:  # the notes of compare and rank (evalband.comparison._setup.TasksLeftOut), word for word
        notes[:0] = TasksLeftOut(all_tasks, gone, independent or table.level == "summary", all_groups).notes()
    return table, "", notes, independent


def _table_notes(table, *, paired: bool) -> tuple:
    """The table's notes, without the one on items left out of paired analyses where nothing is paired."""
    from ..table import UNSHARED_NOTE

    return tuple(n for n in table.notes if paired or not n.startswith(UNSHARED_NOTE))


def _names(items, limit) -> str:
    items = list(items)
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _weights_caption(ws) -> str:
    where = {"simplex": "Each point of the triangle is a weighting of the three task groups (a vertex puts all "
                        "weight on one group; the star is equal weights).",
             "line": "Each position is a weighting of the two task groups.",
             "sampled": f"{len(ws.weights):,} weightings drawn uniformly over all weightings of the"
                        f" {len(ws.groups)} task groups."}[ws.layout]
    return (f"{where} A model is coloured where its weighted score leads the runner-up by more than {ws.z:g} "
            "standard errors of their difference; grey where no model does (undecided).")
