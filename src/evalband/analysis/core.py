"""The analysis behind a report: one selection, one replicate set, every statistic derived from them once.

:func:`analyze` decides what can be compared (one model, or models that share no task, give a summary analysis;
otherwise a comparison), draws the bootstrap replicates once, and derives from them the ranking, the pairwise
comparison, the 83.4% overlap intervals, the per-task intervals, the task-weight maps and, beside them, the
Friedman test over tasks, the Beta-Binomial posterior and pass@k. A section that does not apply to the data is
recorded in :attr:`Analysis.skipped` with the reason; nothing is skipped because of an exception other than a
user-level :class:`~evalband._validate.InputError` raised by the section's own checks.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

import numpy as np

from .._validate import ArgumentTypeError, InputError, check_confidence_level, check_positive_int
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["Analysis", "analyze"]


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class Analysis:
    """Every statistic of one report, computed once (:func:`analyze`).

    Attributes
    ----------
    kind : {'comparison', 'summary', 'preference'}
        'summary' with one model or models that share no task (nothing to compare: :attr:`reason` says why);
        'preference' for pairwise battles (:attr:`preference` holds the leaderboard).
    selection : Selection
        The models, tasks and weights analysed.
    aggregate : str
    confidence_level : float
    n_resamples : int
    seed : int
        The one seed of the run (bootstrap, posterior draws, Dirichlet weights).
    replicates : Replicates or None
        The one replicate set of a comparison.
    comparison : Comparison or None
        Every pair on the aggregate.
    ranking : ModelRanking or None
        The aggregate's ranking, from the comparison's aggregate values.
    overlap : ConfidenceInterval or None
        83.4% per-model intervals (for overlap displays).
    task_ci : ConfidenceInterval or None
        Per (model, task) bootstrap intervals, (M, T), with the floor of :mod:`evalband.resample.floors` (Wilson's
        interval under a proportion's bootstrap interval from few items or with every item alike).
    task_se : numpy.ndarray or None
        Their standard errors (M, T): the bootstrap's, at least the one a widened interval implies.
    order : numpy.ndarray or None
        Model indices best first.
    independent : bool
        Some task has no item every model has, so every model was resampled on its own items.
    tests : TaskTestResult or None
        Friedman test and Nemenyi critical difference over tasks.
    weight_maps : tuple of (str, WeightSensitivity)
        Task-weight sensitivity ('measured' with paired replicates; 'independent' and 'correlated' otherwise).
    bayes : BayesResult or None
    passk : PassKResult or tuple or None
        pass@k and pass^k (one result; in a summary analysis one per model).
    scores, per_task : pandas.DataFrame or None
        Summary analysis: each model's aggregate over its own tasks, and its per-task estimates.
    reason : str
        Why a summary analysis compares nothing.
    skipped : tuple of (str, str)
        Sections that do not apply, with the reason.
    notes : tuple of str
        What the analysis assumed or left out (beyond the table's notes).
    extras : tuple of (str, object)
        Results of the capability analyses that apply (:mod:`evalband.analysis.extensions`), by key; see
        :meth:`extra`.
    """

    kind: str
    selection: object
    aggregate: str
    confidence_level: float
    n_resamples: int
    seed: int
    replicates: object = None
    comparison: object = None
    ranking: object = None
    overlap: object = None
    task_ci: object = None
    order: np.ndarray | None = None
    independent: bool = False
    tests: object = None
    weight_maps: tuple = ()
    bayes: object = None
    passk: object = None
    scores: object = None
    per_task: object = None
    summary_samples: tuple = field(default=(), repr=False)
    reason: str = ""
    skipped: tuple = ()
    notes: tuple = ()
    extras: tuple = ()
    task_se: object = None

    def extra(self, key: str):
        """The result of the capability analysis ``key`` (:mod:`evalband.analysis.extensions`), or None."""
        return dict(self.extras).get(key)

    @property
    def preference(self):
        """The preference leaderboard (:class:`~evalband.preferences.ArenaResult`) of battles, or None."""
        return self.extra("arena")

    @property
    def table(self):
        """The selected table."""
        return self.selection.table

    @property
    def pairs(self):
        """The aggregate's pairwise comparison (a PairwiseComparison), or None."""
        return None if self.comparison is None else self.comparison.aggregates[0]

    @property
    def scale(self) -> float:
        """Display multiplier of the aggregate: 100 for proportions (points), 1 otherwise."""
        if self.ranking is not None:
            return float(self.ranking.scale)
        return 100.0 if self.table.score_kind in ("binary", "bounded") else 1.0

    @property
    def higher_is_better(self) -> bool:
        return True if self.ranking is None else bool(self.ranking.higher_is_better)

    def passk_curve(self, metric: str = "pass@k"):
        """``(k, estimate, low, high)``: each model's pass@k (or pass^k) for every k, averaged over tasks, with
        the mean of the per-task interval ends (arrays (M, K)); None without repeated trials."""
        if self.passk is None:
            return None
        results = self.passk if isinstance(self.passk, tuple) else (self.passk,)
        parts = []
        for pk in results:
            est = pk.pass_at_k if metric == "pass@k" else pk.pass_hat_k
            parts.append([_mean_of_tasks(x) for x in (est.estimate, est.ci.low, est.ci.high)])
        est, low, high = (np.concatenate([p[j] for p in parts], axis=0) for j in range(3))
        return results[0].k, est, low, high

    def __repr__(self) -> str:
        sel = self.selection
        if self.kind == "preference":
            return (f"Analysis(preference: {len(sel.models)} models, {sel.table.n_battles:,} battles,"
                    f" {self.aggregate}, {self.n_resamples:,} replicates, seed {self.seed})")
        head = (f"Analysis({self.kind}: {len(sel.models)} models x {len(sel.tasks)} tasks, aggregate"
                f" {self.aggregate!r}, {self.n_resamples:,} replicates, seed {self.seed})")
        lines = [head]
        if self.ranking is not None and self.order is not None:
            best = self.ranking.models[int(self.order[0])]
            lines.append(f"  best: {best} (P(best) {float(self.ranking.p_best[int(self.order[0])]):.0%})")
        if self.skipped:
            lines.append("  skipped: " + "; ".join(s for s, _ in self.skipped))
        return "\n".join(lines)


def analyze(data, *, aggregate: str = "mean", n_resamples: int | None = None, confidence_level=0.95, rng=None,
            bayes: bool = True, models=None, tasks=None, weights=None, group_weights=None, fixed=None,
            ppi: str = "ppi++", sections=None) -> Analysis:
    """Run every analysis a report shows, on one selection and one replicate set.

    Parameters
    ----------
    data : Selection, ResultsTable, BattleTable, DataFrame or path
        Anything :func:`evalband.select` accepts. Pairwise battles give an analysis of kind 'preference': the
        leaderboard of :func:`evalband.arena` (Bradley-Terry, questions resampled whole) on the same seed, replicate
        count and confidence level (:mod:`evalband.analysis.preferences`).
    aggregate : str
        Aggregate over tasks ('mean', 'geometric', 'minmax', 'mean-rank', ...).
    n_resamples : int, optional
        Bootstrap replicates shared by every interval, comparison and ranking (at least 100). By default the rule
        of every command (:mod:`evalband._defaults`): 10,000 for the replicate set, which re-averages the scores,
        and 2,000 for the sections that refit a model in every replicate (preference ratings, variance
        components); a number given sets them all.
    confidence_level : float or str
    rng : None, int, SeedSequence, BitGenerator or Generator
        The run's randomness, anything :func:`numpy.random.default_rng` takes: one integer seed is drawn from it
        once and kept in :attr:`Analysis.seed`, so the run can be repeated; an integer is that seed itself (the
        report prints it); None draws one from the operating system.
    bayes : bool
        Add the Beta-Binomial posterior (0/1 scores or counts).
    models, tasks, weights, group_weights : optional
        The selection (:func:`evalband.select`).
    fixed : str, sequence of str, True or None
        Facets to condition on. By default facet columns crossed with items are random and the one replicate set
        is the crossed bootstrap; with few clusters it carries the small-sample correction
        (:func:`evalband.facets.default_replicates`).
    ppi : {'ppi++', 'classic', 'labelled', 'none'}
        Item-level results with human labels: every interval, comparison and ranking is of the human-scale means,
        from one replicate set of prediction-powered estimates (:mod:`evalband.resample.ppi`); the
        sections that read the judge's item scores as they are (Bayes, tests over tasks, pass@k) are skipped with
        the reason. 'none': the judge's scores at face value.
    sections : str or sequence of str, optional
        Capability sections shown only when asked (:data:`~evalband.analysis.extensions.ON_REQUEST`): 'items'
        adds the item diagnostics of item-level results (:func:`evalband.items`). The other capabilities
        (variance, judges, costs, the sparse leaderboard of data with missing cells) run whenever their data are
        present.

    Returns
    -------
    Analysis

    Notes
    -----
    What can be compared decides what is computed. With one model, or models that share no task, the analysis
    is a summary: each model's scores with intervals per task and over its tasks, and pass@k / pass^k with
    repeated trials. Tasks some model lacks are left out of a comparison (named in the notes). Where the models
    share no item of a task, the items cannot be paired and every model is resampled independently on its own
    items.

    Examples
    --------
    >>> import evalband as eb
    >>> a = eb.analyze("example:vtab", n_resamples=200, rng=1, bayes=False)
    >>> a.kind, len(a.ranking.models)
    ('comparison', 16)
    """
    from ..selection import missing_tasks, select
    from .extensions import check_sections

    level = check_confidence_level(confidence_level)
    sections = check_sections(sections)
    if n_resamples is not None:  # else by the kind of work (evalband._defaults): 10,000 re-averaged, 2,000 refits
        n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=100)
    seed = _seed(rng)
    sel = select(data, models=models, tasks=tasks, weights=weights, group_weights=group_weights)
    if type(sel.table).__name__ == "BattleTable":  # pairwise battles: a preference leaderboard
        from .preferences import preference_analysis

        return preference_analysis(sel, n_resamples=n_resamples, confidence_level=level, seed=seed)
    table = sel.table
    if type(table).__name__ == "RatingsTable":
        raise InputError("a report analyses results (models scored on items); for raters' ratings use"
                         " evalband.judges.agreement", source=table.source)
    table.require_models(1, "a report")
    if len(sel.models) == 1:
        reason = (f"There is one model ({sel.models[0]}), so there is nothing to compare or rank: the report "
                  "shows its scores with their intervals, and leaves out the sections on pairwise "
                  "comparisons, ranks, task weights and tests over tasks.")
        return _summary(sel, reason, aggregate, n_resamples, level, seed, sections)
    lacking = missing_tasks(table, shared_items=False)  # the rule of compare and rank
    if len(lacking) == len(sel.tasks):
        own = "; ".join(f"{m}: {_names([t for t in sel.tasks if m not in lacking.get(t, ())], 3)}"
                        for m in sel.models[:6])
        reason = (f"The {len(sel.models)} models share no task ({own}{'; ...' if len(sel.models) > 6 else ''}), so "
                  "there is no common ground to compare or rank them: the report shows each model's scores on "
                  "its own tasks, and leaves out the sections on pairwise comparisons, ranks, task weights and "
                  "tests over tasks. Choose models that share tasks with --models to compare them.")
        return _summary(sel, reason, aggregate, n_resamples, level, seed, sections)
    return _comparison(sel, aggregate, n_resamples, level, seed, bayes, fixed, ppi, sections)


def _seed(rng) -> int:
    if rng is None:
        return secrets.randbits(32)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        if rng < 0:
            raise ArgumentTypeError(words('`{arg:rng}` must be a non-negative integer seed (the report prints it to reproduce the run), a SeedSequence, BitGenerator or Generator, or None; got {rng!r}.', rng=rng))
        return int(rng)
    if not isinstance(rng, (np.random.SeedSequence, np.random.BitGenerator, np.random.Generator)):
        raise ArgumentTypeError(words('`{arg:rng}` must be a non-negative integer seed (the report prints it to reproduce the run), a SeedSequence, BitGenerator or Generator, or None; got {rng!r}.', rng=rng))
    return int(np.random.default_rng(rng).integers(0, 2**32))  # drawn once: the seed the report prints


def _names(items, limit) -> str:
    items = list(items)
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


NOTE_MODELS_SHARE_NO_ITEM = NoteKind(
    'analysis.models-share-no-item', 'caveat',
    'the models share no item on {value}: items cannot be paired, so every model is resampled independently on '
    'its own items (unpaired bootstrap); differences are less precise than a paired comparison on shared items '
    'would make them')


def _comparison(sel, aggregate, requested, level, seed, bayes, fixed=None, ppi="ppi++", sections=()) -> Analysis:
    from .._defaults import n_resamples_for

    n_resamples = n_resamples_for("average", requested)  # the one replicate set re-averages the scores
    from ..comparison import compare
    from ..selection.judgements import uses_ppi
    from ..ranking import rank_models
    from .._progress import status
    from .extensions import run_extensions
    from ..resample import bootstrap
    from ..selection import missing_tasks

    table = sel.table
    independent = False
    notes = []
    human = uses_ppi(table, ppi)  # PPI replicates resample every item of a task for every model at once
    if table.level == "item" and not human:
        probe = sel.complete_tasks(shared_items=False)
        unpaired = list(missing_tasks(probe.table))  # tasks on which no item has a result from every model
        independent = bool(unpaired) or not table.paired_items
        if unpaired:
            notes.append(NOTE_MODELS_SHARE_NO_ITEM(value=_names(unpaired, 4)))
    sel = sel.complete_tasks(shared_items=not independent and not human,
                             independent=independent or table.level == "summary")
    from ..selection.facet_design import check_fixed
    from ..resample.dispatch import default_replicates
    from ..resample.prepare import require_clusters

    require_clusters(sel, what="a report's comparison")
    fixed = check_fixed(table, fixed)
    reps = None if independent or human else default_replicates(sel, fixed=fixed, n_resamples=n_resamples,
                                                                rng=seed)
    if reps is None:  # no random facet and enough clusters (or human labels: PPI replicates): the engine's
        reps = bootstrap(sel, resampling="independent" if independent else "auto", n_resamples=n_resamples,
                         rng=seed, ppi=ppi)
    # without pairing, compare works on the replicates alone (there are no shared items to measure)
    source = reps if independent else sel
    comparison = compare(source, replicates=None if independent else reps, aggregate=aggregate,
                         weights=sel.weights if independent else None, confidence_level=level, per_task=False,
                         rng=seed, ppi=ppi)
    av = comparison.aggregate_values[0]
    ranking = rank_models(av.observed, av.samples, reps.models, aggregate=av.name,
                          higher_is_better=av.higher_is_better, confidence_level=level, scale=av.scale,
                          n_units=float(np.sum(np.asarray(reps.n_units))))
    ranking, overlap, task_ci, task_se, floor_notes = _floored(reps, av, ranking, level)
    notes += floor_notes
    order = np.lexsort((ranking.rank_mean, ranking.rank))  # best first, whatever the direction
    skipped = []
    if human:  # these read the judge's item scores as they are; the report's numbers are of the human scale
        why = "reads the judge's scores at face value; with human labels the report is of the human-scale means (PPI)"
        skipped += [(title, why) for title in ("Critical-difference diagram", "Bayesian intervals",
                                               "pass@k and pass^k")]
        tests = fit = pk = None
    else:
        with status("analysis: tests over tasks"):
            tests = _tests(sel, level, ranking.higher_is_better, skipped)
        with status("analysis: Bayesian intervals"):
            fit = _bayes(sel, aggregate, level, seed, skipped) if bayes else None
        with status("analysis: pass@k"):
            pk = _passk(sel, level, skipped)
    with status("analysis: task-weight sensitivity"):
        maps = _weight_maps(sel, reps, seed, skipped)
    with status("analysis: further sections"):
        extras, more = run_extensions(sel, aggregate=aggregate, n_resamples=requested, confidence_level=level,
                                      rng=seed, replicates=reps, sections=sections)
    skipped += more
    notes += [*sel.notes, *(n for n in comparison.notes if n not in table.notes)]
    return Analysis("comparison", sel, aggregate, level, n_resamples, seed, reps, comparison, ranking, overlap,
                    task_ci, order, independent, tests, maps, fit, pk, skipped=tuple(skipped),
                    notes=tuple(dict.fromkeys(notes)), extras=extras, task_se=task_se)


def _floored(reps, av, ranking, level):
    """The ranking's intervals, the 83.4% overlap intervals and the per-task intervals with the floor of
    :mod:`evalband.resample.floors` (Wilson's interval under a bootstrap interval of a proportion from few items
    or with every item alike; no interval where a bootstrap that never varies has nothing else to go on)."""
    from dataclasses import replace

    from ..resample import interval
    from ..resample.floors import widen_aggregate, widen_tasks
    from ..estimation.confidence import ConfidenceInterval

    if getattr(reps, "heavy_tails", False):  # t mixture replicates: the SE from their central spread
        from ..resample import central_se

        ranking = replace(ranking, se=central_se(ranking.samples))
    w = widen_aggregate(reps, av.function, ranking.estimate, ranking.samples, ranking.ci.low, ranking.ci.high,
                        ranking.se, confidence_level=level)
    ranking = replace(ranking, ci=w.ci, se=w.se)
    raw = interval(ranking.samples, ranking.estimate, confidence_level="overlap")
    o = widen_aggregate(reps, av.function, ranking.estimate, ranking.samples, raw.low, raw.high, ranking.se,
                        confidence_level="overlap")
    overlap = ConfidenceInterval(o.ci.low, o.ci.high)
    raw = interval(reps.replicates, reps.observed, confidence_level=level)
    t = widen_tasks(reps, raw.low, raw.high, reps.se, confidence_level=level)
    return ranking, overlap, t.ci, t.se, [*w.notes, *t.notes]


def _tests(sel, level, hib, skipped):
    """Friedman / Nemenyi over tasks, or why not."""
    from ..tasks import run_test

    if len(sel.tasks) < 2:
        skipped.append(("Critical-difference diagram", "needs at least two tasks and two models"))
        return None
    try:
        return run_test(sel, test="friedman", confidence_level=level, higher_is_better=hib)
    except InputError as exc:  # the test's own check on these data (too few complete tasks, ...)
        skipped.append(("Critical-difference diagram", exc.problem))
        return None


def _weight_maps(sel, reps, seed, skipped) -> tuple:
    """Which model is best under which task weights, from the one replicate set."""
    from ..weights import weight_sensitivity

    groups = sel.task_groups or {t: t for t in sel.tasks}
    if len(set(groups.values())) < 2:
        skipped.append(("Task-weight sensitivity", "the tasks form a single group"))
        return ()
    if reps.resampling == "paired":
        return (("measured", weight_sensitivity(reps, z="independent", rng=seed)),)
    return (("independent", weight_sensitivity(reps, z="independent", rng=seed)),
            ("correlated", weight_sensitivity(reps, z="correlated", rng=seed)))


def _bayes(sel, aggregate, level, seed, skipped):
    """The Beta-Binomial posterior (0/1 scores or counts), or why not."""
    from ..bayes import beta_binomial

    table = sel.table
    if not (table.level == "summary" or table.binary_items):
        skipped.append(("Bayesian intervals", "the Beta-Binomial model needs 0/1 scores with one row per item, or"
                        " summary counts"))
        return None
    try:
        return beta_binomial(sel, n_draws=4000, confidence_level=level, aggregate=aggregate, rng=seed)
    except InputError as exc:
        skipped.append(("Bayesian intervals", exc.problem))
        return None


def passk_ks(table) -> tuple:
    """The k values a pass@k curve shows: 1, 2, 3, 5, 10, ... up to the fewest trials of an item."""
    table.require_trial_rows("pass@k")
    kmax = int(table.data.groupby(["model", "task", "item"], observed=True).size().min())
    return tuple(k for k in (1, 2, 3, 4, 5, 8, 10, 16, 20, 50, 100) if k <= kmax)


def _passk(sel, level, skipped):
    from ..estimation import passk

    table = sel.table
    if not (table.level == "item" and table.has_trials and table.is_binary):
        skipped.append(("pass@k and pass^k", "need repeated trials of 0/1 scores"))
        return None
    return passk(sel, k=passk_ks(table), confidence_level=level)


def _summary(sel, reason, aggregate, n_resamples, level, seed, sections=()) -> Analysis:
    from .summary import summary_analysis

    return summary_analysis(sel, reason=reason, aggregate=aggregate, n_resamples=n_resamples, level=level,
                            seed=seed, sections=sections)


def _mean_of_tasks(x) -> np.ndarray:
    """Mean over tasks (axis 1) of the finite values; NaN where a model has none (an interval left empty on
    every task: its items' pass rates did not vary), without NumPy's empty-slice warning."""
    x = np.asarray(x, dtype=np.float64)
    ok = np.isfinite(x)
    count = ok.sum(axis=1)
    total = np.where(ok, x, 0.0).sum(axis=1)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)
