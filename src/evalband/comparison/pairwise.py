"""All pairwise differences of one per-model statistic from its joint bootstrap replicates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import (ArgumentError, check_alternative, check_choice, check_confidence_level, no_other_keywords,
                         renamed)
from ..estimation.confidence import ConfidenceInterval
from .pairs import pair_indices
from .multiplicity import CORRECTIONS, adjust_p_values, correction_level, max_deviation, max_t_from_deviations
from .p_values import INTERVAL_METHODS, bootstrap_p_value
from ..estimation.edges import degenerate
from .verdict import MIN_UNITS, check_margin, reading, verdict, verdict_detail, withhold, withheld_text
from ..display.reprs import displayed
from ..display.notes import NoteKind

__all__ = ["PairwiseComparison", "pairwise_differences"]


#: how many pairs are decided (PairwiseComparison.decided_text)
NOTE_PAIRS_DECIDED = NoteKind("comparison.pairs-decided", "info",
                              "{statistic}: {n_decided:,} of {n:,} pair{s} decided{equivalent}{open}")


@displayed
@dataclass(frozen=True, repr=False)
class PairwiseComparison:
    """All pairwise differences ``A - B`` of one statistic: an aggregate over tasks, or one task's mean.

    Pairs are oriented best first: ``model_a`` has the better observed value, so differences are positive for
    statistics where higher is better.

    Attributes
    ----------
    statistic : str
        Aggregate name, or task name for per-task comparisons.
    level : {'aggregate', 'task'}
    model_a, model_b : tuple of str
    index_a, index_b : numpy.ndarray of int
        Positions of the models in ``Comparison.models`` (to recompute differences from the replicates).
    difference : numpy.ndarray, shape (P,)
    se : numpy.ndarray
        Bootstrap standard deviation of each difference.
    ci : ConfidenceInterval
        Interval for each difference at ``interval_level`` (or simultaneous, for max-t).
    p_value, p_adjusted : numpy.ndarray
        Bootstrap p-value for ``difference = 0`` (inverting the interval method), and after the correction.
    verdict : numpy.ndarray of str
        'A better', 'B better', 'equivalent' or 'not yet decided' (see :func:`~evalband.comparison.verdict`).
    se_analytic : numpy.ndarray
        Analytic standard error: paired (``sqrt(var_a + var_b - 2 cov) / sqrt(n)`` on common items, summed over
        tasks with the aggregate's weights) for item-level data, binomial at the assumed correlation for summary
        data; NaN for aggregates that are not weighted means.
    correlation : numpy.ndarray
        Between-model correlation of the per-item scores (Miller 2024; seed 001): within the task for per-task
        comparisons, pooled within tasks for aggregates (item-level data); the assumed one for summary data; NaN
        when there are no item-level data.
    p_mcnemar, p_permutation : numpy.ndarray
        Exact McNemar and sign-flip permutation p-values (per task, binary/item data; NaN where not computed).
    replicates : numpy.ndarray or None, shape (B, P)
        Bootstrap replicates of the differences (kept for aggregates up to
        :data:`~evalband.comparison.pairwise.KEEP_REPLICATES_MAX` values; None for larger families, whose
        differences are the model replicates at ``index_a`` minus those at ``index_b``).
    readings : tuple of str
        One sentence per pair.
    confidence_level : float
        Family (or per-comparison when correction is 'none') confidence level asked for.
    interval_level : float
        Confidence level of each interval after the correction (simultaneous level for max-t).
    correction, method : str
    margin : float
    higher_is_better : bool
    assumed_correlation : float or None
        Set for summary data (no pairing): the correlation the replicates were given.
    """

    __display__ = {"columns": ("model_a", "model_b", "difference", "se", "ci_low", "ci_high", "p_value", "p_adjusted", "verdict", "confidence_level")}

    statistic: str
    level: str
    model_a: tuple
    model_b: tuple
    index_a: np.ndarray
    index_b: np.ndarray
    difference: np.ndarray
    se: np.ndarray
    ci: ConfidenceInterval
    p_value: np.ndarray
    p_adjusted: np.ndarray
    verdict: np.ndarray
    se_analytic: np.ndarray
    correlation: np.ndarray
    p_mcnemar: np.ndarray
    p_permutation: np.ndarray
    replicates: np.ndarray | None
    readings: tuple
    confidence_level: float
    interval_level: float
    correction: str
    method: str
    margin: float
    higher_is_better: bool
    assumed_correlation: float | None = None
    scale: float = 100.0
    """Display multiplier (100 for accuracy-like statistics, shown in points; 1 for ranks)."""
    verdict_by_correlation: tuple | None = None
    """Summary data: how each pair's verdict moves as the assumed correlation sweeps (e.g. 'not yet decided at
    0-0.4, A better at 0.5')."""
    replicate_correlation: np.ndarray | None = None
    """Correlation of the two models' statistics over the bootstrap replicates (how strongly the two aggregate
    estimates move together; larger than the per-item correlation when many items are averaged)."""
    n_units: np.ndarray | None = None
    """Resampling units (items or clusters) behind each difference, when known."""
    verdict_basis: tuple | None = None
    """What each verdict rests on: 'bootstrap', 'exact McNemar', or why it was withheld ('too few units',
    'degenerate interval', 'too few replicates'); see :func:`evalband.comparison.verdict.withhold`."""
    verdict_detail: tuple | None = None
    """What is and is not decided about each pair, in words (the end of its reading): the verdict with the better
    model named, and with a margin what the interval settles when the verdict is 'not yet decided', e.g. 'not
    yet decided: A better, but not decidedly by more than the 1-point margin' (see
    :func:`evalband.comparison.verdict.verdict_detail`). ``verdict`` keeps its four values."""

    se_bootstrap: np.ndarray | None = None
    """The bootstrap SD of each difference, when ``se`` is read from the replicates' central spread instead
    (heavy-tailed replicates: :attr:`evalband.resample.Replicates.heavy_tails`)."""

    def decided_text(self, *, undecided: bool = True) -> str:
        """How many pairs are decided, in one line: ``'mean: 117 of 120 pairs decided; 3 not yet decided: A vs B,
        C vs D and E vs F'`` (the pairs within the margin counted as equivalent). ``undecided=False`` gives the
        count alone (``Comparison.headline``).

        Examples
        --------
        >>> import evalband as eb
        >>> comparison = eb.compare(eb.load_example("vtab"), n_resamples=200, rng=0)
        >>> comparison.aggregates[0].decided_text(undecided=False)
        'mean: 116 of 120 pairs decided'
        """
        from .._lists import and_names

        v = np.asarray(self.verdict)
        n = len(v)
        open_ = [f"{a} vs {b}" for a, b, x in zip(self.model_a, self.model_b, v) if x == "not yet decided"]
        text = f"{self.statistic}: {n - len(open_):,} of {n:,} pair{'s' if n != 1 else ''} decided"
        if not undecided:
            return text
        return NOTE_PAIRS_DECIDED(
            statistic=self.statistic, n_decided=n - len(open_), n=n, s="s" if n != 1 else "",
            equivalent=(f" ({int((v == 'equivalent').sum()):,} equivalent within the margin)"
                        if (v == "equivalent").any() else ""),
            open=f"; {len(open_):,} not yet decided: {and_names(open_, limit=5, noun='pairs')}" if open_ else "")

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: model_a, model_b, difference, se, ci_low, ci_high, p_value, p_adjusted, verdict, ..."""
        key = "aggregate" if self.level == "aggregate" else "task"
        frame = pd.DataFrame({
            key: self.statistic, "model_a": list(self.model_a), "model_b": list(self.model_b),
            "difference": self.difference, "se": self.se, "ci_low": np.asarray(self.ci.low, dtype=float),
            "ci_high": np.asarray(self.ci.high, dtype=float), "p_value": self.p_value,
            "p_adjusted": self.p_adjusted, "verdict": list(self.verdict), "se_analytic": self.se_analytic,
            "correlation": self.correlation,
        })
        if self.se_bootstrap is not None:
            frame.insert(frame.columns.get_loc("se") + 1, "se_bootstrap", self.se_bootstrap)
        if self.replicate_correlation is not None:
            frame["replicate_correlation"] = self.replicate_correlation
        if self.n_units is not None:
            frame["n_units"] = self.n_units
        if self.verdict_basis is not None:
            frame["verdict_basis"] = list(self.verdict_basis)
        if self.verdict_detail is not None:
            frame["verdict_detail"] = list(self.verdict_detail)
        if self.level == "task":
            frame["p_mcnemar"] = self.p_mcnemar
            frame["p_permutation"] = self.p_permutation
        if self.assumed_correlation is not None:
            frame["assumed_correlation"] = self.assumed_correlation
        if self.verdict_by_correlation is not None:
            frame["verdict_by_correlation"] = list(self.verdict_by_correlation)
        frame["confidence_level"] = self.confidence_level
        frame["interval_level"] = self.interval_level
        frame["correction"] = self.correction
        frame["reading"] = list(self.readings)
        return frame


def pairwise_differences(observed, samples, names, *, statistic: str = "statistic", scope: str = "aggregate",
                         jackknife=None, jackknife_strata=None, higher_is_better: bool = True, method: str = "percentile",
                         confidence_level: float = 0.95, alternative: str = "two-sided",
                         correction: str = "none", margin: float = 0.0, se_analytic=None, correlation=None,
                         scale: float = 100.0, unit: str = "points", keep_replicates: bool | str = True,
                         assumed_correlation: float | None = None, extra_readings=None,
                         order=None, n_units=None, unit_name: str = "items",
                         family: int | None = None, **deprecated) -> PairwiseComparison:
    """All pairwise differences of a per-model statistic from its joint bootstrap replicates.

    Parameters
    ----------
    observed : array_like, shape (M,)
        The statistic for each model on the data.
    samples : array_like, shape (B, M)
        Its replicates, drawn jointly for all models (one replicate set).
    names : sequence of str
        Model names.
    statistic : str
        The aggregate's or task's name.
    scope : {'aggregate', 'task'}
        Whether the statistic is an aggregate over tasks or one task's mean (``level=`` before 0.2, deprecated).
    jackknife : array_like, shape (n_jack, M), optional
        Delete-one values, for BCa.
    se_analytic, correlation : callable or array, optional
        ``f(ia, ib) -> (P,)`` arrays for the pairs, or None.
    order : array_like of int, optional
        Model order (best first) defining the pairs; default by ``observed``.
    n_units : int or array_like, optional
        Resampling units (items, or clusters when clusters are resampled) behind each difference. With fewer than
        :data:`~evalband.comparison.verdict.MIN_UNITS`, or when an interval has zero width, no verdict is given
        (:func:`~evalband.comparison.verdict.withhold`).
    unit_name : str
        What the units are called in readings ('items', 'clusters').
    family : int, optional
        The size of the family the correction counts when these pairs are part of a larger one (the pairs of
        :func:`~evalband.comparison.compare` on shared items, compared one at a time): Bonferroni and Holm
        intervals at ``1 - alpha / family``, and Bonferroni's bound ``min(1, family p)`` as the adjusted p-value
        (the family's own adjustment needs every p-value). Default: the pairs here.
    keep_replicates : bool or 'auto'
        Keep the (B, P) replicate differences in the result; 'auto' keeps them up to
        :data:`KEEP_REPLICATES_MAX` values (all pairs of 1,000 models at B = 1,000 would be 4 GB: they are
        recomputed from ``samples[:, index_a] - samples[:, index_b]`` when needed).

    Returns
    -------
    PairwiseComparison

    Notes
    -----
    The differences are formed and reduced in blocks of pairs (:data:`BLOCK_ELEMENTS` values at a time), so that
    memory does not grow with the number of pairs; the numbers do not depend on the block size.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> samples = np.array([0.70, 0.60, 0.65]) + rng.normal(0, 0.01, size=(2000, 3))
    >>> pc = pairwise_differences([0.70, 0.60, 0.65], samples, ["a", "b", "c"], correction="holm")
    >>> pc.model_a, pc.model_b
    (('a', 'a', 'c'), ('c', 'b', 'b'))
    >>> list(pc.verdict)
    ['A better', 'A better', 'A better']
    """
    scope = renamed(deprecated, old="level", new="scope", function="pairwise_differences", value=scope,
                    default="aggregate")
    no_other_keywords(deprecated, "pairwise_differences")
    scope = check_choice(scope, ("aggregate", "task"), "scope")
    method = check_choice(method, INTERVAL_METHODS, "method")
    correction = check_choice(correction, CORRECTIONS, "correction")
    alternative = check_alternative(alternative)
    confidence_level = check_confidence_level(confidence_level)
    margin = check_margin(margin)
    obs = np.asarray(observed, dtype=np.float64)
    s = np.asarray(samples, dtype=np.float64)
    if order is None:
        order = np.argsort(-obs if higher_is_better else obs, kind="stable")
    ia, ib = pair_indices(order)
    d = obs[ia] - obs[ib]
    jk = None
    if jackknife is not None and method == "bca":
        jk = np.asarray(jackknife, dtype=np.float64)
    m = d.size
    strata = jackknife_strata if jk is not None else None
    if family is not None and correction in ("bh", "max-t"):
        raise ArgumentError(f"`family` applies to the corrections 'bonferroni' and 'holm'; got {correction!r}.")
    stats = _pair_statistics(s, d, ia, ib, jk, strata, method=method, alternative=alternative,
                             correction=correction, confidence_level=confidence_level, family=family,
                             keep=(s.shape[0] * m <= KEEP_REPLICATES_MAX) if isinstance(keep_replicates, str)
                             and keep_replicates == "auto" else bool(keep_replicates))
    p, p_adj, se, low, high, level_used, rep_corr, reps = stats
    verdicts = verdict(low, high, margin=margin, higher_is_better=higher_is_better)
    units = None if n_units is None else np.broadcast_to(np.asarray(n_units, dtype=np.float64), (m,)).copy()
    # the smallest p-value is 2 / (B + 1) two-sided, 1 / (B + 1) one-sided: compared with 2 x the one-sided level
    significance = (1 - level_used) * (1 if alternative == "two-sided" else 2)
    verdicts, basis = withhold(verdicts, low, high, se, units, n_resamples=s.shape[0], significance=significance)
    if (basis != "bootstrap").any():  # a withheld verdict has no trustworthy bootstrap p-value either
        p, p_adj = np.where(basis != "bootstrap", np.nan, p), np.where(basis != "bootstrap", np.nan, p_adj)
    flat = degenerate(low, high, se)
    if flat.any():  # a zero-width interval (or SE 0) is never shown as a result: it says only that the units agree
        low, high, se = (np.where(flat, np.nan, x) for x in (low, high, se))
    missing = ~np.isfinite(d)  # never a p-value beside a missing difference (max-t included)
    if missing.any():
        p, p_adj = np.where(missing, np.nan, p), np.where(missing, np.nan, p_adj)
    names = tuple(names)
    ma = tuple(names[i] for i in ia)
    mb = tuple(names[j] for j in ib)
    se_an = _pair_values(se_analytic, ia, ib, m)
    corr = _pair_values(correlation, ia, ib, m)
    label = interval_label(correction)
    extras = list(extra_readings) if extra_readings is not None else [""] * m
    needed = int(np.ceil(2.0 / significance)) - 1  # the fewest replicates whose smallest p-value reaches the level
    basis_l, units_l = basis.tolist(), None if units is None else units.tolist()
    for k in np.flatnonzero(basis != "bootstrap").tolist():  # 'bootstrap' adds no words
        if basis_l[k] == "too few replicates":
            why = withheld_text(basis_l[k], s.shape[0], min_units=needed)
        else:
            why = withheld_text(basis_l[k], None if units_l is None else units_l[k], unit=unit_name,
                                min_units=MIN_UNITS)
        if why:
            extras[k] = f"{why} {extras[k]}".strip()
    if not higher_is_better:
        unit = f"{unit} (lower is better)".strip()
    v_l, lo_l, hi_l, d_l, se_l = verdicts.tolist(), low.tolist(), high.tolist(), d.tolist(), se.tolist()
    details = tuple(  # a withheld verdict reads nothing from its interval
        verdict_detail(v_l[k], lo_l[k], hi_l[k], margin=margin if basis_l[k] == "bootstrap" else 0.0,
                       higher_is_better=higher_is_better, model_a=ma[k], model_b=mb[k], scale=scale)
        for k in range(m))
    readings = tuple(
        reading(ma[k], mb[k], d_l[k], lo_l[k], hi_l[k], v_l[k], se=se_l[k], confidence_level=level_used,
                scale=scale, unit=unit, label=label, extra=extras[k], detail=details[k])
        for k in range(m))
    nan = np.full(m, np.nan)
    return PairwiseComparison(statistic, scope, ma, mb, ia, ib, d, se, ConfidenceInterval(low, high), p, p_adj,
                              verdicts, se_an, corr, nan, nan.copy(), reps, readings,
                              confidence_level, float(level_used), correction, method, margin,
                              bool(higher_is_better), assumed_correlation, float(scale), None, rep_corr, units,
                              tuple(basis), details)


#: replicate differences computed at once (B x pairs in a block): 2**24 float64 are 128 MB, so that all 499,500
#: pairs of 1,000 models at B = 1,000 (4 GB of differences) pass in blocks of 16,777 pairs
BLOCK_ELEMENTS = 1 << 24
#: ``keep_replicates='auto'`` keeps the (B, P) replicate differences up to this many values (256 MB)
KEEP_REPLICATES_MAX = 1 << 25


def _blocks(n_pairs: int, rows: int):
    """Slices of the pairs, each with at most :data:`BLOCK_ELEMENTS` values over ``rows`` rows."""
    size = max(1, BLOCK_ELEMENTS // max(int(rows), 1))
    return [slice(k, min(k + size, n_pairs)) for k in range(0, n_pairs, size)] or [slice(0, 0)]


def _pair_statistics(s, d, ia, ib, jk, strata, *, method, alternative, correction, confidence_level, keep,
                     family=None):
    """p-values, SEs, intervals and replicate correlations of the differences ``s[:, ia] - s[:, ib]``.

    The (B, P) differences are formed block by block (:func:`_blocks`), so memory does not grow with the number of
    pairs. Every statistic is per pair except the max-t critical value, whose maximum over the family is reduced
    across blocks, and the BH level, which needs every p-value: a second pass then gives the intervals.
    The numbers are those of one pass over the whole (B, P) array.
    """
    from ..resample import interval

    b, m = s.shape[0], d.size
    blocks = _blocks(m, b + (0 if jk is None else jk.shape[0]))
    p, se, rep_corr = np.empty(m), np.empty(m), np.full(m, np.nan)
    tmax = np.full(b, -np.inf) if correction == "max-t" else None
    kept = np.empty((b, m)) if keep else None
    # one row per model: a block of pairs is then two gathers of whole rows, and each pair's replicates lie
    # together in memory (a (B, pairs) view of the (pairs, B) block), which the reductions and sorts run along
    rows = np.ascontiguousarray(s.T)
    means = rows.mean(axis=1)  # each model's own: a pair's numbers never depend on the other models
    centred = rows - means[:, None]
    sumsq = np.einsum("mb,mb->m", centred, centred)
    del centred
    jk_rows = None if jk is None else np.ascontiguousarray(jk.T)

    def block(sl):
        xa, xb = rows[ia[sl]], rows[ib[sl]]
        jack = None if jk is None else (jk_rows[ia[sl]] - jk_rows[ib[sl]]).T
        return (xa - xb).T, jack, xa, xb

    # the corrected level is known before any p-value except for BH (its level counts the rejections): then the
    # intervals take a second pass over the blocks
    level_used = None if correction in ("bh", "max-t") else correction_level(confidence_level, max(m, family or 0),
                                                                             correction)
    low, high = np.empty(m), np.empty(m)

    def intervals(sl, reps, jack, level):
        kw = {"jackknife": jack, "jackknife_strata": strata} if jack is not None else {}
        ci = interval(reps, d[sl], method=method, confidence_level=level, alternative=alternative, **kw)
        low[sl], high[sl] = np.asarray(ci.low, dtype=float), np.asarray(ci.high, dtype=float)

    for sl in blocks:
        reps, jack, xa, xb = block(sl)
        p[sl] = bootstrap_p_value(reps, d[sl], method=method, alternative=alternative, jackknife=jack,
                                  jackknife_strata=strata)
        se[sl] = reps.std(axis=0, ddof=1) if b > 1 else np.nan
        if b > 1:
            rep_corr[sl] = _replicate_correlation(xa, xb, means, sumsq, ia[sl], ib[sl])
        del xa, xb
        if tmax is not None:
            np.maximum(tmax, max_deviation(reps, d[sl], se[sl], alternative=alternative), out=tmax)
        if level_used is not None:
            intervals(sl, reps, jack, level_used)
        if kept is not None:
            kept[:, sl] = reps
    if correction == "max-t":
        sim = max_t_from_deviations(tmax, d, se, confidence_level=confidence_level, alternative=alternative)
        return p, sim.p_value, se, sim.low, sim.high, confidence_level, rep_corr, kept
    p_adj = adjusted(p, correction, family)
    if correction == "bh":
        rejected = int(np.sum(p_adj <= 1 - confidence_level))
        level_used = correction_level(confidence_level, m, correction, n_rejected=rejected)
        for sl in blocks:
            intervals(sl, *block(sl)[:2], level_used)
    return p, p_adj, se, low, high, float(level_used), rep_corr, kept


def adjusted(p, correction: str, family: int | None = None) -> np.ndarray:
    """Adjusted p-values of ``p`` by ``correction``; with ``family`` larger than ``p`` (part of a family),
    Bonferroni's bound ``min(1, family p)``, which is also an upper bound of Holm's adjusted p-value."""
    p = np.asarray(p, dtype=np.float64)
    if correction not in ("bonferroni", "holm", "bh"):
        return p.copy()
    if family is not None and family > np.isfinite(p).sum():
        return np.where(np.isfinite(p), np.minimum(1.0, p * family), np.nan)
    return adjust_p_values(p, method=correction)


def _replicate_correlation(xa, xb, means, sumsq, ia, ib):
    """Pearson correlation over the replicates of models ``ia`` and ``ib`` (NaN where one is constant), from their
    replicates ``xa``, ``xb`` (one row per pair; centred in place), the models' means and sums of squares."""
    xa -= means[ia, None]
    xb -= means[ib, None]
    sxy = np.einsum("pb,pb->p", xa, xb)
    sxx, syy = sumsq[ia], sumsq[ib]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((sxx > 0) & (syy > 0), sxy / np.sqrt(sxx * syy), np.nan)


def interval_label(correction: str) -> str:
    """How readings name the interval after ``correction``."""
    if correction == "max-t":
        return "simultaneous CI"
    if correction in ("bonferroni", "holm", "bh"):
        return f"{correction.capitalize() if correction != 'bh' else 'BH'}-corrected CI"
    return "CI"


def _pair_values(values, ia, ib, m):
    if values is None:
        return np.full(m, np.nan)
    if callable(values):
        return np.asarray(values(ia, ib), dtype=np.float64)
    return np.asarray(values, dtype=np.float64)
