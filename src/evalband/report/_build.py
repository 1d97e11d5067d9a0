"""Assemble a report from one :class:`~evalband.analysis.Analysis`: its figures, tables and sentences. Every
number comes from the analysis (computed once); writing HTML, Markdown or LaTeX is in ``html.py``."""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from ..display.reprs import displayed
from .sections import sections_for


__all__ = ["Report", "Figure", "build_report"]


@displayed
@dataclass(frozen=True, repr=False)
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
    sections: list = field(default_factory=list)  # Section objects of other capabilities (report.section)

    def add_section(self, section) -> None:
        """Append a :class:`~evalband.report.section.Section`; its figures join :attr:`figures` (saved, embedded)."""
        self.sections.append(section)
        self.figures.extend(section.figures)


def build_report(data, *, aggregate: str = "mean", n_resamples: int = 2000, confidence_level=0.95, rng=None,
                 bayes: bool = True, command: str | None = None, timestamp: str | None = None,
                 max_pairs_shown: int = 30, ppi: str = "ppi++") -> Report:
    """The report of an analysis: figures, tables and sentences, computed from one :class:`Analysis`.

    Parameters
    ----------
    data : Analysis, Selection, ResultsTable, DataFrame or path
        An analysis from :func:`evalband.analyze` (rendered as it is), or anything :func:`evalband.select`
        accepts (analysed first with the options below).
    aggregate : str
        Aggregate over tasks (see ``evalband.aggregate.AGGREGATES``); 'mean' by default.
    n_resamples : int
        Bootstrap replicates shared by every interval, comparison and ranking.
    confidence_level : float or str
    rng : int or None
        The one seed of the run (bootstrap, Dirichlet weights, posterior draws); None draws one (printed in the
        report so the run can be repeated).
    bayes : bool
        Add Beta-Binomial credible intervals (binary scores or counts only).
    command : str, optional
        The command line that reproduces the report (shown in the report).
    timestamp : str, optional
        Shown on the report's one timestamp line; default now (UTC).
    ppi : {'ppi++', 'classic', 'labelled', 'none'}
        Results with human labels: the report is of the human-scale means (see :func:`evalband.analyze`).

    Returns
    -------
    Report
        Rendered by :func:`evalband.report.write_report` (HTML, Markdown, LaTeX); nothing here computes a
        statistic: every number comes from the analysis.

    Examples
    --------
    >>> import evalband as eb
    >>> from evalband.report import build_report
    >>> rep = build_report("example:vtab", n_resamples=200, rng=0, bayes=False)   # doctest: +SKIP
    """
    from ..analysis import Analysis, analyze

    a = data if isinstance(data, Analysis) else analyze(
        data, aggregate=aggregate, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng,
        bayes=bayes, ppi=ppi)
    if a.kind == "summary":
        from ._summary import summary_report

        report = summary_report(a, command=command, timestamp=timestamp)
    else:
        report = _comparison_report(a, command=command, timestamp=timestamp)
    for section in sections_for(a):  # what the capabilities that apply add (report.sections)
        report.add_section(section)
    return report


def _comparison_report(a, *, command, timestamp) -> Report:
    from . import plots
    from ._findings import findings_for, method_notes, references

    table, reps, ranking, pairs = a.table, a.replicates, a.ranking, a.pairs
    level, aggregate, order = a.confidence_level, a.aggregate, a.order
    models = ranking.models
    M = len(models)
    scale, hib = a.scale, a.higher_is_better

    figures = []
    label = f"{aggregate} over tasks" + (" (%)" if scale == 100 else "")
    ax = plots.forest_plot(models, ranking.estimate, ranking.ci, a.overlap, scale=scale, xlabel=label,
                           confidence_level=level, order=order)
    figures.append(Figure("forest", "Each model's aggregate score",
                          f"Dots: {aggregate} over tasks. Thin bars: {level:.0%} bootstrap intervals. Thick bars: "
                          "83.4% intervals; when two thick bars do not overlap, the two models differ at about the "
                          "5% level (a rule of thumb for independent estimates; the pairwise table is the test).",
                          ax.figure))
    ax = plots.task_heatmap(reps.models, reps.tasks, reps.observed, np.asarray(a.task_ci.high) - a.task_ci.low,
                            annotate=len(reps.models) * len(reps.tasks) <= 320)
    figures.append(Figure("tasks", "Per-task scores", f"Score (%) in each cell and, below it, ± half the width of its "
                          f"{level:.0%} bootstrap interval.", ax.figure))
    diff = np.zeros((M, M))
    decided = np.zeros((M, M), dtype=bool)
    ia, ib = np.asarray(pairs.index_a), np.asarray(pairs.index_b)
    diff[ia, ib], diff[ib, ia] = pairs.difference, -pairs.difference
    decided[ia, ib] = decided[ib, ia] = np.isin(pairs.verdict, ("A better", "B better"))
    ax = plots.pairwise_matrix(models, diff, decided, order=order, scale=scale)
    figures.append(Figure("pairs", "Pairwise differences",
                          f"Row model minus column model, in points. Coloured where the {level:.0%} interval of the "
                          "difference excludes zero (paired bootstrap of the difference itself); grey where it "
                          "does not: that difference is not yet decided.", ax.figure))
    ax = plots.rank_distribution_plot(models, ranking.distribution, ranking.rank_ci)
    figures.append(Figure("ranks", "Rank distributions",
                          "Share of bootstrap replicates in which each model takes each rank; orange bars: "
                          f"{level:.0%} rank intervals; ticks: mean rank.", ax.figure))
    if a.tests is not None:
        from .cd_diagram import cd_diagram

        ax = cd_diagram(a.tests)
        figures.append(Figure("cd", "Critical-difference diagram (tasks as the sample)",
                              "Mean rank of each model over tasks (Friedman test, Nemenyi critical difference);"
                              " bars join models whose mean ranks do not differ significantly. This treats the"
                              " tasks as the sample and ignores the test-set noise within each task. "
                              + " ".join(a.tests.summary().splitlines()), ax.figure))
    weights_frame = None
    if a.weight_maps:
        for name, ws in a.weight_maps:
            what = {"measured": "correlation between models measured from the paired replicates, z = 2",
                    "independent": "models assumed independent, z = 2",
                    "correlated": "moderate positive correlation allowed for, z = 1.4"}[name]
            ax = plots.weight_sensitivity_plot(ws)
            figures.append(Figure(f"weights-{name}", f"Which model is best under which task weights ({what})",
                                  _weights_caption(ws), ax.figure))
        frames = []
        for name, ws in a.weight_maps:
            sh = ws.shares()
            sh = sh[(sh["points"] > 0) | (sh["model"] == "undecided")].copy()
            sh.insert(0, "threshold", f"z = {ws.z:g}")
            frames.append(sh)
        weights_frame = pd.concat(frames, ignore_index=True)
    bayes_frame = None
    if a.bayes is not None:
        bayes_frame = a.bayes.summary()
        b = bayes_frame.set_index("model").loc[list(models)]
        ax = plots.interval_comparison_plot(
            models, {"bootstrap": ranking.ci, "Bayesian (Beta-Binomial)": (b["ci_low"], b["ci_high"])},
            {"bootstrap": ranking.estimate, "Bayesian (Beta-Binomial)": b["posterior_mean"].to_numpy()},
            scale=scale, xlabel=label, order=order)
        figures.append(Figure("bayes", "Bayesian and bootstrap intervals",
                              f"{level:.0%} bootstrap percentile intervals beside {level:.0%} equal-tailed "
                              "credible intervals of the Beta-Binomial hierarchy (exact posterior draws).",
                              ax.figure))
    if a.passk is not None:
        ks, est, lo, hi = a.passk_curve("pass@k")
        ax = plots.pass_at_k_plot(ks, est, a.passk.models, (lo, hi))
        figures.append(Figure("passk", "pass@k", "pass@k averaged over tasks (unbiased estimator per item);"
                              " bands: the mean of the per-task intervals.", ax.figure))

    rank_frame = ranking.to_frame()
    o = pd.Series(np.asarray(a.overlap.low), index=models)
    rank_frame["ci834_low"] = rank_frame["model"].map(o)
    rank_frame["ci834_high"] = rank_frame["model"].map(pd.Series(np.asarray(a.overlap.high), index=models))
    per_task = reps.to_frame()
    per_task["ci_low"] = np.asarray(a.task_ci.low).ravel()
    per_task["ci_high"] = np.asarray(a.task_ci.high).ravel()
    cov = table.coverage()
    cov_summary = (cov.groupby("model", observed=True)
                   .agg(tasks=("task", "nunique"), items=("items", "sum"), left_out=("left_out", "sum"))
                   .reset_index())
    if a.independent:
        cov_summary["left_out"] = 0  # each model is resampled on all of its own items
    facts = dict(table=table, reps=reps, ranking=ranking, pairs=pairs, weights=list(a.weight_maps),
                 bayes=bayes_frame, level=level, aggregate=aggregate, scale=scale, comparison=a.comparison,
                 order=order, higher_is_better=hib)
    return Report(
        title=f"evalband report: {table.source}", source=table.source, description=table.describe(),
        notes=_table_notes(table, paired=not a.independent), attribution=table.attribution, coverage=cov_summary,
        ranking=rank_frame, pairs=pairs.to_frame(), per_task=per_task, weights=weights_frame, bayes=bayes_frame,
        findings=findings_for(facts), methods=method_notes(facts), references=references(facts), figures=figures,
        reproduce=_reproduce(a, command), timestamp=_stamp(timestamp),
        sections_skipped=[f"{section}: {why}." for section, why in a.skipped if section != "pass@k and pass^k"],
        analysis_notes=a.notes, scale=float(scale), higher_is_better=hib)


def _reproduce(a, command) -> dict:
    import evalband

    return {"command": command or "(API call: evalband.report.build_report)", "seed": int(a.seed),
            "evalband": evalband.__version__, "n_resamples": a.n_resamples, "confidence_level": a.confidence_level,
            "aggregate": a.aggregate, "python": platform.python_version(), "numpy": np.__version__}


def _stamp(timestamp) -> str:
    return timestamp or time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())


def _table_notes(table, *, paired: bool) -> tuple:
    """The table's notes, without the one on items left out of paired analyses where nothing is paired."""
    from ..table import UNSHARED_NOTE

    return tuple(n for n in table.notes if paired or not n.startswith(UNSHARED_NOTE))


def _weights_caption(ws) -> str:
    where = {"simplex": "Each point of the triangle is a weighting of the three task groups (a vertex puts all "
                        "weight on one group; the star is equal weights).",
             "line": "Each position is a weighting of the two task groups.",
             "sampled": f"{len(ws.weights):,} weightings drawn uniformly over all weightings of the"
                        f" {len(ws.groups)} task groups."}[ws.layout]
    return (f"{where} A model is coloured where its weighted score leads the runner-up by more than {ws.z:g} "
            "standard errors of their difference; grey where no model does (undecided).")
