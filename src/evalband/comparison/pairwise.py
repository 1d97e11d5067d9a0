"""All pairwise differences of one per-model statistic from its joint bootstrap replicates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import check_alternative, check_choice, check_confidence_level
from ..results import ConfidenceInterval
from .pairs import pair_indices
from .multiplicity import CORRECTIONS, adjust_p_values, correction_level, max_t_intervals
from .p_values import INTERVAL_METHODS, bootstrap_p_value
from .verdict import MIN_UNITS, check_margin, reading, verdict, verdict_detail, withhold, withheld_text
from ..display.reprs import displayed

__all__ = ["PairwiseComparison", "pairwise_differences"]


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
        Bootstrap replicates of the differences (kept for aggregates).
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
    'degenerate interval'); see :func:`evalband.comparison.verdict.withhold`."""
    verdict_detail: tuple | None = None
    """What is and is not decided about each pair, in words (the end of its reading): the verdict with the better
    model named, and with a margin what the interval settles when the verdict is 'not yet decided', e.g. 'not
    yet decided: A better, but not decidedly by more than the 1-point margin' (see
    :func:`evalband.comparison.verdict.verdict_detail`). ``verdict`` keeps its four values."""

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


def pairwise_differences(observed, samples, names, *, statistic: str = "statistic", level: str = "aggregate",
                         jackknife=None, jackknife_strata=None, higher_is_better: bool = True, method: str = "percentile",
                         confidence_level: float = 0.95, alternative: str = "two-sided",
                         correction: str = "none", margin: float = 0.0, se_analytic=None, correlation=None,
                         scale: float = 100.0, unit: str = "points", keep_replicates: bool = True,
                         assumed_correlation: float | None = None, extra_readings=None,
                         order=None, n_units=None, unit_name: str = "items") -> PairwiseComparison:
    """All pairwise differences of a per-model statistic from its joint bootstrap replicates.

    Parameters
    ----------
    observed : array_like, shape (M,)
        The statistic for each model on the data.
    samples : array_like, shape (B, M)
        Its replicates, drawn jointly for all models (one replicate set).
    names : sequence of str
        Model names.
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

    Returns
    -------
    PairwiseComparison
    """
    from ..resample import interval

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
    reps = s[:, ia] - s[:, ib]
    jack = None
    if jackknife is not None and method == "bca":
        jk = np.asarray(jackknife, dtype=np.float64)
        jack = jk[:, ia] - jk[:, ib]
    m = d.size
    strata = jackknife_strata if jack is not None else None
    p = bootstrap_p_value(reps, d, method=method, alternative=alternative, jackknife=jack, jackknife_strata=strata)
    se = reps.std(axis=0, ddof=1) if reps.shape[0] > 1 else np.full(m, np.nan)
    if correction == "max-t":
        sim = max_t_intervals(reps, d, confidence_level=confidence_level, alternative=alternative)
        low, high, p_adj, level_used = sim.low, sim.high, sim.p_value, confidence_level
    else:
        if correction in ("bonferroni", "holm", "bh"):
            p_adj = adjust_p_values(p, method=correction)
        else:
            p_adj = p.copy()
        rejected = int(np.sum(p_adj <= 1 - confidence_level)) if correction == "bh" else None
        level_used = correction_level(confidence_level, m, correction, n_rejected=rejected)
        kw = {"jackknife": jack, "jackknife_strata": strata} if jack is not None else {}
        ci = interval(reps, d, method=method, confidence_level=level_used, alternative=alternative, **kw)
        low, high = np.asarray(ci.low, dtype=float), np.asarray(ci.high, dtype=float)
    verdicts = verdict(low, high, margin=margin, higher_is_better=higher_is_better)
    units = None if n_units is None else np.broadcast_to(np.asarray(n_units, dtype=np.float64), (m,)).copy()
    verdicts, basis = withhold(verdicts, low, high, se, units)
    if (basis != "bootstrap").any():  # a withheld verdict has no trustworthy bootstrap p-value either
        p, p_adj = np.where(basis != "bootstrap", np.nan, p), np.where(basis != "bootstrap", np.nan, p_adj)
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
    for k in range(m):
        why = withheld_text(basis[k], None if units is None else units[k], unit=unit_name, min_units=MIN_UNITS)
        if why:
            extras[k] = f"{why} {extras[k]}".strip()
    if not higher_is_better:
        unit = f"{unit} (lower is better)".strip()
    details = tuple(  # a withheld verdict reads nothing from its interval
        verdict_detail(verdicts[k], low[k], high[k], margin=margin if basis[k] == "bootstrap" else 0.0,
                       higher_is_better=higher_is_better, model_a=ma[k], model_b=mb[k], scale=scale)
        for k in range(m))
    readings = tuple(
        reading(ma[k], mb[k], d[k], low[k], high[k], verdicts[k], se=se[k], confidence_level=level_used,
                scale=scale, unit=unit, label=label, extra=extras[k], detail=details[k])
        for k in range(m))
    nan = np.full(m, np.nan)
    rep_corr = _replicate_correlation(s[:, ia], s[:, ib]) if s.shape[0] > 1 else nan.copy()
    return PairwiseComparison(statistic, level, ma, mb, ia, ib, d, se, ConfidenceInterval(low, high), p, p_adj,
                              verdicts, se_an, corr, nan, nan.copy(), reps if keep_replicates else None, readings,
                              confidence_level, float(level_used), correction, method, margin,
                              bool(higher_is_better), assumed_correlation, float(scale), None, rep_corr, units,
                              tuple(basis), details)


def _replicate_correlation(x, y):
    """Pearson correlation of the columns of x and y (B, P) over the replicates (NaN where one is constant)."""
    xc, yc = x - x.mean(0), y - y.mean(0)
    sxx, syy = (xc * xc).sum(0), (yc * yc).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((sxx > 0) & (syy > 0), (xc * yc).sum(0) / np.sqrt(sxx * syy), np.nan)


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
