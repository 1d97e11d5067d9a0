"""Rankings with uncertainty: per model and aggregate, the rank distribution, intervals, P(best) and tiers."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._validate import ArgumentError, OVERLAP_CONFIDENCE, check_choice, check_confidence_level, check_positive_int
from ..estimation.confidence import ConfidenceInterval
from .distribution import marginal_rank_intervals, probability_best, rank_distribution, ranks
from .simultaneous import better_matrix, simultaneous_rank_intervals, tiers
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["rank", "Ranking", "ModelRanking", "rank_models", "SIMULTANEOUS"]

#: how pairwise intervals are built for the simultaneous rank intervals and tiers ('max-t', 'bonferroni' and
#: 'holm' give joint coverage; 'bh' and 'none' do not and are offered for exploration)
SIMULTANEOUS = ("max-t", "bonferroni", "holm", "bh", "none")


@displayed


@dataclass(frozen=True, repr=False)
class ModelRanking:
    """Ranking of the models under one aggregate.

    Attributes
    ----------
    aggregate : str
    models : tuple of str
    estimate : numpy.ndarray, shape (M,)
        The aggregate on the data.
    se : numpy.ndarray
        Bootstrap standard deviation of the aggregate.
    ci : ConfidenceInterval
        Interval for each model's aggregate.
    rank : numpy.ndarray of int
        Observed rank (1 = best; tied models share the best rank).
    rank_mean : numpy.ndarray
        Mean rank over replicates.
    rank_ci : ConfidenceInterval
        Marginal bootstrap percentile interval of each model's rank.
    rank_simultaneous : ConfidenceInterval
        Rank intervals holding for all models at once (Klein, Wright & Wieczorek 2020), from simultaneous
        pairwise difference intervals.
    p_best : numpy.ndarray
        Share of replicates where the model is best.
    tier : numpy.ndarray of int
        Tiers of mutually indistinguishable models (1 = top).
    distribution : numpy.ndarray, shape (M, M)
        ``distribution[m, r - 1]`` = P*(model m has rank r).
    rank_samples : numpy.ndarray of int, shape (B, M)
        The rank of every model on every replicate.
    samples : numpy.ndarray, shape (B, M)
        The aggregate on every replicate.
    better : numpy.ndarray of bool, shape (M, M)
        ``better[j, k]``: j significantly better than k under the simultaneous pairwise intervals.
    confidence_level : float
    method : str
    simultaneous : str
    higher_is_better : bool
    """

    __display__ = {"columns": ("model", "estimate", "se", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "rank_sim_low", "rank_sim_high", "p_best", "tier", "confidence_level")}

    aggregate: str
    models: tuple
    estimate: np.ndarray
    se: np.ndarray
    ci: ConfidenceInterval
    rank: np.ndarray
    rank_mean: np.ndarray
    rank_ci: ConfidenceInterval
    rank_simultaneous: ConfidenceInterval
    p_best: np.ndarray
    tier: np.ndarray
    distribution: np.ndarray
    rank_samples: np.ndarray
    samples: np.ndarray
    better: np.ndarray
    confidence_level: float
    method: str
    simultaneous: str
    higher_is_better: bool
    margin: float = 0.0
    scale: float = 100.0
    """Display multiplier (100 for accuracy-like aggregates, shown in points; 1 for ranks)."""

    def to_frame(self) -> pd.DataFrame:
        """One row per model, best first: estimate and interval, ranks and their intervals, P(best), tier."""
        frame = pd.DataFrame({
            "aggregate": self.aggregate, "model": list(self.models), "estimate": self.estimate, "se": self.se,
            "ci_low": np.asarray(self.ci.low, dtype=float), "ci_high": np.asarray(self.ci.high, dtype=float),
            "rank": self.rank, "rank_mean": self.rank_mean, "rank_low": self.rank_ci.low,
            "rank_high": self.rank_ci.high, "rank_sim_low": self.rank_simultaneous.low,
            "rank_sim_high": self.rank_simultaneous.high, "p_best": self.p_best, "tier": self.tier,
            "confidence_level": self.confidence_level,
        })
        order = np.lexsort((self.rank_mean, self.rank))
        return frame.iloc[order].reset_index(drop=True)

    def distribution_frame(self) -> pd.DataFrame:
        """Tidy rank distribution: model, rank, probability."""
        m = len(self.models)
        return pd.DataFrame({"aggregate": self.aggregate, "model": np.repeat(self.models, m),
                             "rank": np.tile(np.arange(1, m + 1), m), "probability": self.distribution.ravel()})


@displayed


@dataclass(frozen=True, repr=False)
class Ranking:
    """Result of :func:`rank`: one :class:`ModelRanking` per aggregate, all from one replicate set.

    ``notes`` say what was assumed or left out; ``tasks_left_out`` maps each task left out (because a selected
    model has no result on it, or the models share no item on it) to the models lacking it.
    """

    rankings: tuple
    replicates: object
    notes: tuple = ()
    tasks_left_out: dict = field(default_factory=dict)
    selection: object = field(default=None, repr=False, compare=False)

    def to_frame(self) -> pd.DataFrame:
        return pd.concat([r.to_frame() for r in self.rankings], ignore_index=True)

    def __getitem__(self, aggregate: str) -> ModelRanking:
        for r in self.rankings:
            if r.aggregate == aggregate:
                return r
        raise KeyError(f"no ranking for aggregate {aggregate!r}; have {[r.aggregate for r in self.rankings]}")


def rank_models(observed, samples, models, *, aggregate: str = "statistic", higher_is_better: bool = True,
                confidence_level=0.95, method: str = "percentile", simultaneous: str = "max-t", margin: float = 0.0,
                jackknife=None, jackknife_strata=None, scale: float = 100.0, n_units=None,
                decision_level=None, pairs=None) -> ModelRanking:
    """Rank models from a statistic's observed values (M,) and joint bootstrap replicates (B, M).

    See :func:`rank` for the meaning of each output. This array-level function is what :func:`rank` calls for
    each aggregate; use it for a statistic computed elsewhere from the same replicates. ``n_units`` (resampling
    units behind the statistic) lets tiers ignore separations the bootstrap cannot support: with fewer than 10
    units, or a zero-width interval for a difference, the pair is not separated
    (:func:`evalband.comparison.verdict.withhold`). ``decision_level`` (default: ``confidence_level``) is the level
    of the pairwise intervals behind the tiers and simultaneous rank intervals. ``pairs``: the
    :class:`~evalband.comparison.PairwiseComparison` of these same ``observed`` and ``samples`` that a caller has
    already made with ``correction=simultaneous`` at the decision level (and the same ``n_units``), used instead of
    forming every pair's replicates a second time (its intervals are the ones this function would compute).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.ranking import rank_models
    >>> rng = np.random.default_rng(0)
    >>> observed = np.array([0.70, 0.68, 0.60])
    >>> samples = observed + rng.normal(0, 0.02, size=(200, 3))
    >>> ranking = rank_models(observed, samples, ["a", "b", "c"])
    >>> ranking.to_frame()[["model", "rank", "rank_low", "rank_high", "tier"]]
      model  rank  rank_low  rank_high  tier
    0     a     1         1          2     1
    1     b     2         1          2     1
    2     c     3         3          3     2
    """
    from ..comparison.pairwise import pairwise_differences
    from ..resample import interval

    level = check_confidence_level(confidence_level)
    simultaneous = check_choice(simultaneous, SIMULTANEOUS, "simultaneous")
    obs = np.asarray(observed, dtype=np.float64)
    s = np.asarray(samples, dtype=np.float64)
    m = obs.size
    kw = {}
    if method == "bca":
        kw = {"jackknife": jackknife, "jackknife_strata": jackknife_strata}
    ci = interval(s, obs, method=method, confidence_level=level, **kw)
    r_obs = ranks(obs, higher_is_better=higher_is_better)
    r_s = ranks(s, higher_is_better=higher_is_better)
    low, high = marginal_rank_intervals(r_s, confidence_level=level)
    if m > 1:
        decide = level if decision_level is None else check_confidence_level(decision_level)
        if pairs is not None:
            _check_pairs(pairs, m, simultaneous, decide, higher_is_better)
        else:
            pairs = pairwise_differences(obs, s, models, statistic=aggregate, higher_is_better=higher_is_better,
                                         method="percentile" if method == "bca" else method,
                                         confidence_level=decide, correction=simultaneous, keep_replicates=False,
                                         n_units=n_units)
        better = better_matrix(pairs.ci.low, pairs.ci.high, pairs.index_a, pairs.index_b, m,
                               higher_is_better=higher_is_better, margin=margin)
        withheld = np.asarray(pairs.verdict_basis) != "bootstrap"
        better[pairs.index_a[withheld], pairs.index_b[withheld]] = False
        better[pairs.index_b[withheld], pairs.index_a[withheld]] = False
    else:
        better = np.zeros((1, 1), dtype=bool)
    s_low, s_high = simultaneous_rank_intervals(better)
    return ModelRanking(
        aggregate, tuple(models), obs, s.std(axis=0, ddof=1), ci, r_obs, r_s.mean(axis=0),
        ConfidenceInterval(low, high), ConfidenceInterval(s_low, s_high),
        probability_best(s, higher_is_better=higher_is_better), tiers(obs, better, higher_is_better=higher_is_better),
        rank_distribution(r_s, m), r_s, s, better, level, method, simultaneous, bool(higher_is_better),
        float(margin), float(scale))


NOTE_REPLICATES_GIVEN_ASSUMED_BETWEEN = NoteKind(
    'ranking.replicates-given-assumed-between', 'caveat',
    'replicates given an assumed between-model correlation of {correlation:g}')
NOTE_MODEL_COUNTS_BETTER_THAN = NoteKind(
    'ranking.model-counts-better-than', 'caveat',
    'with the {value}: a model counts as better than another (tiers, simultaneous rank intervals) only when the '
    'interval of their difference lies beyond the margin')
NOTE_CONFIDENCE_OVERLAP_APPLIES_EACH = NoteKind(
    'ranking.confidence-overlap-applies-each', 'caveat',
    "confidence 'overlap' (83.4%) applies to each model's interval and its marginal rank interval (two such "
    "intervals that do not overlap suggest a difference at about 5%); the tiers and simultaneous rank intervals "
    "judge differences and stay at 95%")
NOTE_SUMMARY_LEVEL_DATA_MODELS = NoteKind(
    'ranking.summary-level-data-models', 'caveat',
    'summary-level data: models resampled independently (binomially), i.e. assumed uncorrelated')


def _check_pairs(pairs, m: int, simultaneous: str, level: float, higher_is_better: bool) -> None:
    """``pairs`` given to :func:`rank_models` must be the comparison it would make: every pair of the ``m`` models,
    with the simultaneous correction at the decision level, in the same direction."""
    n = m * (m - 1) // 2
    if (len(pairs.index_a) != n or pairs.correction != simultaneous or float(pairs.confidence_level) != level
            or bool(pairs.higher_is_better) != bool(higher_is_better) or pairs.method not in ("percentile", "basic")):
        raise ArgumentError(words('`pairs` must compare all {n:,} pairs with {arg:correction={simultaneous!r}} at confidence level {level:g} (the intervals behind the simultaneous rank intervals); got {n_index_a:,} pairs, {arg:correction={correction!r}}, level {value:g}.', n=n, simultaneous=simultaneous, level=level, n_index_a=len(pairs.index_a), correction=pairs.correction, value=float(pairs.confidence_level)))


def rank(data, *, aggregate="mean", weights=None, group_weights=None, models=None, tasks=None, replicates=None,
         resampling: str = "auto", n_resamples: int = 10_000, method: str = "percentile", confidence_level=0.95,
         simultaneous: str = "max-t", margin: float = 0.0, correlation: float | None = None, cluster=None,
         aggregate_options=None, rng=None, fixed=None, ppi: str = "ppi++", missing: str = "drop") -> Ranking:
    """Rank models with uncertainty under one or several aggregates, from one bootstrap replicate set.

    Parameters
    ----------
    data : ResultsTable, path, DataFrame or Replicates
    aggregate : str, callable or sequence
        E.g. 'mean', 'mean-rank', 'minmax' or 'mean,mean-rank' (see ``evalband.aggregate.AGGREGATES``).
    weights, group_weights, models, tasks, replicates, resampling, n_resamples, cluster, aggregate_options, rng, fixed
        As for :func:`evalband.comparison.compare` (``fixed``: facets to condition on; by default they are random).
    method : {'percentile', 'basic', 'bca'}
        Interval method for each model's aggregate.
    confidence_level : float or str
        For the aggregate intervals, the marginal rank intervals and (jointly) the simultaneous rank intervals.
        'overlap' (83.4%) sets the first two only; tiers and simultaneous rank intervals then stay at 95%.
    simultaneous : {'max-t', 'bonferroni', 'holm', 'bh', 'none'}
        Pairwise intervals behind the simultaneous rank intervals and the tiers; only 'max-t', 'bonferroni' and
        'holm' (Bonferroni intervals) hold jointly.
    margin : float
        A model counts as better than another only when their difference's interval lies beyond ``margin``.
    correlation : float, optional
        Summary data only: rank on replicates with this assumed between-model correlation (default 0).
    ppi : {'ppi++', 'classic', 'labelled', 'none'}
        Item-level results with human labels: rank the human-scale means (as :func:`evalband.comparison.compare`).
    missing : {'drop', 'common', 'ability'}
        Tasks some selected model has no result on. 'drop' (default): left out, named in a note that counts the
        cells left out. 'common': on such data, ranks from every pair compared on the tasks both models have
        (:mod:`evalband.ranking.from_pairs`: rank intervals from the pairs' decisions, no P(best)); on complete
        data the ranking of 'drop'. 'ability': the latent-ability model's ranking (:func:`evalband.ability`;
        ``evalband rank --missing ability``).

    Returns
    -------
    Ranking

    Notes
    -----
    For each replicate the models are ranked (1 = best, ties share the best rank), giving each model's rank
    distribution, mean rank, marginal percentile rank interval and probability of being best (Longjohn et al.
    2025 report these). Marginal rank intervals describe one model at a time and can be too narrow when models
    are close (the bootstrap of a rank is inconsistent at ties; Hall & Miller 2009). The simultaneous rank
    intervals hold for all models together: model k's rank lies in ``[1 + #models significantly better,
    M - #models significantly worse]``, with "significantly" judged by simultaneous pairwise intervals at
    ``confidence_level`` (Klein, Wright & Wieczorek 2020; with the bootstrap max-t intervals this is the
    construction of Mogstad, Romano, Shaikh & Wilhelm 2024). Tiers group models that no simultaneous interval
    separates.

    References
    ----------
    Klein, M., Wright, T. & Wieczorek, J. (2020). A joint confidence region for an overall ranking of populations.
    JRSS C 69(3), 589-606.
    Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks. Rev. Econ. Stud. 91,
    476-518.
    Hall, P. & Miller, H. (2009). Using the bootstrap to quantify the authority of an empirical ranking.
    Ann. Statist. 37(6B), 3929-3959.
    Longjohn, R., Gopalan, G. & Casleton, E. (2025). arXiv:2501.04234.

    Examples
    --------
    >>> import evalband as eb
    >>> table = eb.load_example("vtab")
    >>> ranking = eb.rank(table, models=["Exemplar", "Rotation", "VAE"], n_resamples=500, rng=0)
    >>> ranking.to_frame()[["model", "rank", "rank_low", "rank_high"]]
          model  rank  rank_low  rank_high
    0  Rotation     1         1          1
    1  Exemplar     2         2          2
    2       VAE     3         3          3
    """
    from ..aggregate import aggregate_notes, evaluate_aggregates
    from ..comparison.sensitivity import correlated_replicates
    from ..comparison.verdict import check_margin
    from ..resample import replicates_for
    from ..resample import central_se
    from ..resample.floors import widen_aggregate

    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    level = check_confidence_level(confidence_level)
    simultaneous = check_choice(simultaneous, SIMULTANEOUS, "simultaneous")
    margin = check_margin(margin)
    from ..comparison.comparison import MISSING

    missing = check_choice(missing, MISSING, "missing")
    if missing == "ability":
        raise ArgumentError(words("`{arg:missing='ability'}` ranks latent abilities: evalband.ability(data).ranking"))
    if missing == "common" and replicates is None:
        from ..comparison.shared import lacks_tasks
        from ..selection import select

        base = select(data, models=models, tasks=tasks, weights=weights, group_weights=group_weights)
        if lacks_tasks(base):
            return _rank_common(base, aggregate=aggregate, resampling=resampling, n_resamples=n_resamples,
                                method=method, level=level, margin=margin, cluster=cluster,
                                aggregate_options=aggregate_options, rng=rng, fixed=fixed, ppi=ppi)
        data, models, tasks, weights, group_weights = base, None, None, None, None
    sel, reps, gen = replicates_for(data, models=models, tasks=tasks, weights=weights, group_weights=group_weights,
                                    replicates=replicates, resampling=resampling, n_resamples=n_resamples, rng=rng,
                                    cluster=cluster, what="a ranking", fixed=fixed, jackknife=method == "bca",
                                    ppi=ppi)
    table = sel.table
    summary = reps.resampling == "binomial" or (table is None and reps.resampling != "paired")
    notes = list(dict.fromkeys([*reps.notes, *sel.notes]))
    aggs = evaluate_aggregates(reps, aggregate, weights=sel.weights, jackknife=(method == "bca"),
                               **dict(aggregate_options or {}))
    notes += aggregate_notes(aggs)
    corr_reps = None
    if correlation is not None:
        if not summary:
            raise ArgumentError("`correlation` applies to data without pairing (summary-level counts) only; with"
                             " item-level data the correlation is measured.")
        if correlation > 0:
            corr_reps = correlated_replicates(reps.observed, reps.replicates, correlation, rng=gen)
        notes.append(NOTE_REPLICATES_GIVEN_ASSUMED_BETWEEN(correlation=correlation))
    elif summary:
        notes.append(NOTE_SUMMARY_LEVEL_DATA_MODELS())
    if margin > 0:  # otherwise nothing in the output shows that the margin changed the tiers
        from ..comparison.verdict import margin_text

        notes.append(NOTE_MODEL_COUNTS_BETTER_THAN(value=margin_text(margin, scale=aggs[0].scale)))
    decision_level = None
    if abs(level - OVERLAP_CONFIDENCE) < 1e-9:  # overlap displays are per model; tiers judge differences
        decision_level = 0.95
        notes.append(NOTE_CONFIDENCE_OVERLAP_APPLIES_EACH())
    strata = reps.jackknife_strata() if method == "bca" else None
    out = []
    for av in aggs:
        samples = av.samples if corr_reps is None else np.asarray(av.function(corr_reps), dtype=np.float64)
        r = rank_models(av.observed, samples, reps.models, aggregate=av.name,
                        higher_is_better=av.higher_is_better, confidence_level=level, method=method,
                        simultaneous=simultaneous, margin=margin, jackknife=av.jackknife,
                        jackknife_strata=strata, scale=av.scale,
                        n_units=float(np.sum(np.asarray(reps.n_units))), decision_level=decision_level)
        if corr_reps is None:  # each model's interval with the floor of evalband.resample.floors
            if getattr(reps, "heavy_tails", False):  # t mixture replicates: the SE from their central spread
                r = replace(r, se=central_se(samples))
            w = widen_aggregate(reps, av.function, r.estimate, samples, r.ci.low, r.ci.high, r.se,
                                confidence_level=level)
            r = replace(r, ci=w.ci, se=w.se)
            notes += [n for n in w.notes if n not in notes]
        out.append(r)
    return Ranking(tuple(out), reps, tuple(notes), sel.tasks_left_out, sel)


def _rank_common(sel, *, aggregate, resampling, n_resamples, method, level, margin, cluster, aggregate_options, rng,
                 fixed, ppi) -> Ranking:
    """``rank(..., missing='common')`` on data where some model lacks a task: ranks from the pairs
    (:mod:`evalband.ranking.from_pairs`)."""
    from ..comparison import compare
    from ..comparison.shared import pair_tasks
    from .from_pairs import rank_from_pairs

    if abs(level - OVERLAP_CONFIDENCE) < 1e-9:
        raise ArgumentError(words("`{arg:confidence_level='overlap'}` does not apply to ranks from pairs ({arg:missing='common'})"))
    if margin > 0:
        raise ArgumentError(words("`{arg:margin}` does not apply to ranks from pairs ({arg:missing='common'}, decided by the pairs' p-values); use {arg:missing='ability'}, or compare with {arg:missing='common'} and a margin"))
    comparison = compare(sel, aggregate=aggregate, resampling=resampling, n_resamples=n_resamples,
                         method="percentile" if method == "bca" else method, confidence_level=level,
                         correction="none", margin=margin, per_task=False, cluster=cluster,
                         aggregate_options=aggregate_options, rng=rng, fixed=fixed, ppi=ppi, missing="common")
    counts = pair_tasks(sel)
    rankings = rank_from_pairs(comparison, np.diag(counts), confidence_level=level)
    notes = list(comparison.notes) + [
        words("{arg:missing='common'}: ranks from every pair compared on the tasks both models have;"
              " rank_low/rank_high hold for one model at a time (Bonferroni over its pairs),"
              " rank_sim_low/rank_sim_high for all models at once (Holm over every pair); no P(best) without a"
              " replicate set shared by every model ({arg:missing='ability'} gives one)")]
    return Ranking(rankings, comparison.replicates, tuple(dict.fromkeys(notes)), {}, sel)
