"""Assemble a report from one :class:`~evalband.analysis.Analysis`: its figures, tables and sentences. Every
number comes from the analysis (computed once); writing HTML, Markdown or LaTeX is in ``html.py``."""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from ..display import format_level, format_p, format_short
from ..display.reprs import displayed
from .plots.matrices import annotates


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
    """Everything one report shows. Build with :func:`build_report`; render with ``evalband.report.writers``."""

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
    kind: str = "comparison"          # 'comparison', 'summary' (one model, or models sharing no task), 'preference',
    #                                   'cells' (one score per model and task: the sparse leaderboard only)
    summary_reason: str = ""          # why a summary report has no comparison
    passk: pd.DataFrame | None = None  # summary reports: pass@k and pass^k per model, task and k
    sections: list = field(default_factory=list)  # Section objects of other capabilities (report.section)
    tests: object = None              # the tests over tasks (TaskTestResult) behind the critical-difference figure

    def add_section(self, section) -> None:
        """Append a :class:`~evalband.report.section.Section`; its figures join :attr:`figures` (saved, embedded)."""
        self.sections.append(section)
        self.figures.extend(section.figures)


def build_report(data, *, aggregate: str = "mean", n_resamples: int | None = None, confidence_level=0.95, rng=None,
                 bayes: bool = True, command: str | None = None, timestamp: str | None = None,
                 max_pairs_shown: int = 30, fixed=None, ppi: str = "ppi++", sections=None) -> Report:
    """The report of an analysis: figures, tables and sentences, computed from one :class:`Analysis`.

    Parameters
    ----------
    data : Analysis, Selection, ResultsTable, BattleTable, DataFrame or path
        An analysis from :func:`evalband.analyze` (rendered as it is), or anything :func:`evalband.select`
        accepts (analysed first with the options below). Pairwise battles give a preference report (ratings,
        win probabilities, rank distributions, style control).
    aggregate : str
        Aggregate over tasks (see ``evalband.aggregate.AGGREGATES``); 'mean' by default.
    n_resamples : int, optional
        Bootstrap replicates shared by every interval, comparison and ranking; by default the rule of every
        command (:func:`evalband.analyze`: 10,000 re-averaged, 2,000 for sections that refit a model).
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
    fixed : str, sequence of str, True or None
        Facets to condition on (by default facet columns are random; see :func:`evalband.analyze`).
    ppi : {'ppi++', 'classic', 'labelled', 'none'}
        Results with human labels: the report is of the human-scale means (see :func:`evalband.analyze`).
    sections : str or sequence of str, optional
        Sections shown only when asked: 'items' (item diagnostics of item-level results; see
        :func:`evalband.analyze`). Data with missing cells get the sparse-leaderboard section without asking.

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

    if not isinstance(data, Analysis):  # one score per model and task: what those data support
        from ..analysis.latent import cell_scores_ability

        seed = rng if isinstance(rng, (int, np.integer)) else int(np.random.SeedSequence().entropy % 2 ** 32)
        fit = cell_scores_ability(data, n_resamples=n_resamples, confidence_level=confidence_level, rng=seed)
        if fit is not None:
            from .sections.sparse import cell_scores_report

            return cell_scores_report(fit, seed=seed, command=command, timestamp=timestamp)
    a = data if isinstance(data, Analysis) else analyze(
        data, aggregate=aggregate, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng,
        bayes=bayes, fixed=fixed, ppi=ppi, sections=sections)
    if a.kind == "preference":  # pairwise battles: the leaderboard's sections (report/sections/preferences.py)
        from .sections.preferences import preference_report

        return preference_report(a, command=command, timestamp=timestamp)
    from .._progress import status

    with status("report: drawing figures"):
        if a.kind == "summary":
            from .sections.summary import summary_report

            report = summary_report(a, command=command, timestamp=timestamp)
        else:
            report = _comparison_report(a, command=command, timestamp=timestamp)
        from .sections import sections_for  # (the sections build on this module's Figure and Table)

        for section in sections_for(a):  # what the capabilities that apply add (report.sections)
            report.add_section(section)
    return report


def _comparison_report(a, *, command, timestamp) -> Report:
    from . import plots
    from .sections.findings import findings_for, method_notes, references

    table, reps, ranking, pairs = a.table, a.replicates, a.ranking, a.pairs
    level, aggregate, order = a.confidence_level, a.aggregate, a.order
    models = ranking.models
    M = len(models)
    scale, hib = a.scale, a.higher_is_better

    figures = []
    label = f"{aggregate} over tasks" + (" (%)" if scale == 100 else "")
    caption = (f"Dots: {aggregate} over tasks. Thin bars: {format_level(level)} bootstrap intervals. Thick bars: 83.4% "
               "intervals; when two thick bars do not overlap, the two models differ at about the 5% level (a rule "
               "of thumb for independent estimates; the pairwise table is the test).")
    if plots.narrow_intervals(ranking.estimate, ranking.ci):  # bars too short to see: add the differences
        leader = int(order[0])
        d, dlo, dhi = _differences(pairs, order, M, reference=leader)
        what = f"each model minus {models[leader]}"
        if plots.narrow_intervals(d, (np.where(np.isnan(dlo), 0, dlo), np.where(np.isnan(dhi), 0, dhi))):
            d, dlo, dhi = _differences(pairs, order, M)  # still too narrow: each model minus its neighbour
            what = "each model minus the model ranked just above it"
        fig = plots.headline_plot(models, ranking.estimate, ranking.ci, a.overlap, difference=d,
                                  difference_ci=(dlo, dhi), reference=leader, scale=scale, xlabel=label,
                                  confidence_level=level, order=order,
                                  unit="points" if scale == 100 else "score units",
                                  difference_label="from the leader" if "minus the model" not in what
                                  else "from the model above")
        caption += (f" Right: {what}, with the {format_level(level)} interval of the difference itself (paired where the"
                    " items are shared); an interval that reaches 0 is not yet decided.")
    else:
        fig = plots.forest_plot(models, ranking.estimate, ranking.ci, a.overlap, scale=scale, xlabel=label,
                                confidence_level=level, order=order).figure
    figures.append(Figure("forest", "Each model's aggregate score", caption, fig))
    annotate = annotates(len(reps.models), len(reps.tasks))
    ax = plots.task_heatmap(reps.models, reps.tasks, reps.observed, np.asarray(a.task_ci.high) - a.task_ci.low,
                            annotate=annotate)
    figures.append(Figure("tasks", "Per-task scores", task_caption(annotate, level, scale), ax.figure))
    diff = np.zeros((M, M))
    decided = np.zeros((M, M), dtype=bool)
    ia, ib = np.asarray(pairs.index_a), np.asarray(pairs.index_b)
    diff[ia, ib], diff[ib, ia] = pairs.difference, -pairs.difference
    decided[ia, ib] = decided[ib, ia] = np.isin(pairs.verdict, ("A better", "B better"))
    ax = plots.pairwise_matrix(models, diff, decided, order=order, scale=scale)
    figures.append(Figure("pairs", "Pairwise differences",
                          f"Row model minus column model, in points. Coloured where the {format_level(level)} interval of the "
                          "difference excludes zero (paired bootstrap of the difference itself); grey where it "
                          "does not: that difference is not yet decided.", ax.figure))
    ax = plots.rank_distribution_plot(models, ranking.distribution, ranking.rank_ci)
    figures.append(Figure("ranks", "Rank distributions",
                          "Share of bootstrap replicates in which each model takes each rank; orange bars: "
                          f"{format_level(level)} rank intervals; ticks: mean rank.", ax.figure))
    if a.tests is not None:
        from .plots.cd_diagram import cd_diagram

        ax = cd_diagram(a.tests)
        figures.append(Figure("cd", "Critical-difference diagram (tasks as the sample)", cd_caption(a.tests),
                              ax.figure))
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
                              f"{format_level(level)} bootstrap percentile intervals beside {format_level(level)} equal-tailed "
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
    if a.task_se is not None:
        per_task["se"] = np.asarray(a.task_se).ravel()
    per_task["ci_low"] = np.asarray(a.task_ci.low).ravel()
    per_task["ci_high"] = np.asarray(a.task_ci.high).ravel()
    cov = table.coverage()
    cov_summary = (cov.groupby("model", observed=True)
                   .agg(tasks=("task", "nunique"), items=("items", "sum"), left_out=("left_out", "sum"))
                   .reset_index())
    if a.independent:
        cov_summary["left_out"] = 0  # each model is resampled on all of its own items
    facts = dict(table=table, reps=reps, ranking=ranking, pairs=pairs, weights=list(a.weight_maps),
                 variance=a.extra("variance"),
                 bayes=bayes_frame, level=level, aggregate=aggregate, scale=scale, comparison=a.comparison,
                 order=order, higher_is_better=hib)
    return Report(
        title=report_title(table.source), source=table.source, description=table.describe(),
        notes=_table_notes(table, paired=not a.independent), attribution=table.attribution, coverage=cov_summary,
        ranking=rank_frame, pairs=pairs.to_frame(), per_task=per_task, weights=weights_frame, bayes=bayes_frame,
        findings=findings_for(facts), methods=method_notes(facts), references=references(facts), figures=figures,
        reproduce=_reproduce(a, command), timestamp=_stamp(timestamp),
        sections_skipped=[f"{section}: {why}." for section, why in a.skipped if section != "pass@k and pass^k"],
        analysis_notes=a.notes, scale=float(scale), higher_is_better=hib, tests=a.tests)


def _differences(pairs, order, M: int, *, reference: int | None = None):
    """Each model minus model ``reference`` (or, without it, minus the model ranked just above it in ``order``)
    and the interval of that difference, read from the pairwise comparison (0 and NaN for the leader)."""
    d, lo, hi = np.zeros(M), np.full(M, np.nan), np.full(M, np.nan)
    index = {(int(a), int(b)): k for k, (a, b) in enumerate(zip(pairs.index_a, pairs.index_b))}
    diff = np.asarray(pairs.difference, dtype=np.float64)
    low, high = np.asarray(pairs.ci.low, dtype=np.float64), np.asarray(pairs.ci.high, dtype=np.float64)
    order = [int(i) for i in order]
    for pos, m in enumerate(order[1:], start=1):
        ref = order[pos - 1] if reference is None else reference
        if (m, ref) in index:  # m - ref as stored
            k = index[(m, ref)]
            d[m], lo[m], hi[m] = diff[k], low[k], high[k]
        elif (ref, m) in index:  # ref - m: negate
            k = index[(ref, m)]
            d[m], lo[m], hi[m] = -diff[k], -high[k], -low[k]
    return d, lo, hi


def _reproduce(a, command) -> dict:
    import evalband

    return {"command": command or "(API call: evalband.report.build_report)", "seed": int(a.seed),
            "evalband": evalband.__version__, "n_resamples": a.n_resamples, "confidence_level": a.confidence_level,
            "aggregate": a.aggregate, "python": platform.python_version(), "numpy": np.__version__}


def _stamp(timestamp) -> str:
    return timestamp or time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())


def _table_notes(table, *, paired: bool) -> tuple:
    """The table's notes, without the one on items left out of paired analyses where nothing is paired."""
    from ..data.table import COVERAGE_UNSHARED

    return tuple(n for n in table.notes if paired or getattr(n, "code", None) != COVERAGE_UNSHARED.code)


def _weights_caption(ws) -> str:
    where = {"simplex": "Each point of the triangle is a weighting of the three task groups (a vertex puts all "
                        "weight on one group; the star is equal weights).",
             "line": "Each position is a weighting of the two task groups.",
             "sampled": f"{len(ws.weights):,} weightings drawn uniformly over all weightings of the"
                        f" {len(ws.groups)} task groups."}[ws.layout]
    return (f"{where} A model is coloured where its weighted score leads the runner-up by more than {ws.z:g} "
            "standard errors of their difference; grey where no model does (undecided).")


def task_caption(annotate: bool, level, scale) -> str:
    """The per-task heatmap's caption, saying what is drawn."""
    unit = "Score (%)" if scale == 100 else "Score"
    if annotate:
        return (f"{unit} in each cell and, below it, ± half the width of its {format_level(level)} bootstrap"
                " interval.")
    return (f"Colour: {unit.lower()} on each task (numbers left out: too many tasks to read them); the per-task"
            " table below gives every value with its interval.")


def cd_caption(tests) -> str:
    """The critical-difference diagram's caption: what the bars mean and the Friedman test, in two sentences
    (the groups are a table of the section)."""
    text = ("Mean rank of each model over the tasks (1 = best); a bar joins models whose mean ranks differ by less"
            " than the Nemenyi critical difference")
    cd = getattr(tests.posthoc, "critical_difference", None)
    text += f" ({format_short(cd)})." if cd is not None else "."
    o = tests.omnibus
    if o is not None and getattr(o, "p_value", None) is not None:
        text += (f" Friedman test that all models rank alike: chi-square({format_short(o.df)}) ="
                 f" {format_short(o.statistic)}, p {_p_text(o.p_value)}.")
    return text + " This treats the tasks as the sample and ignores the test-set noise within each task."


def _p_text(p) -> str:
    shown = format_p(p)
    return shown if shown.startswith("<") else f"= {shown}"


def report_title(source) -> str:
    """'evalband report: results.csv': the file's name, not its folder (an example's name as it is)."""
    import os

    text = str(source)
    if os.sep in text or (os.altsep and os.altsep in text):
        text = os.path.basename(text.rstrip(os.sep)) or text
    return f"evalband report: {text}"
