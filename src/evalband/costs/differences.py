"""Paired differences and ratios of mean cost per item between models.

Bootstrap costs (from the joint item draws) give intervals of the replicate differences and ratios and p-values
inverting them; analytic costs give t intervals with the paired (item-level data) or Welch (summaries) standard
error, and the delta method on the log ratio.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import ArgumentError, check_alternative, check_choice, check_confidence_level
from ..comparison import adjust_p_values, bootstrap_p_value
from ..resample import interval
from ..estimation.confidence import ConfidenceInterval
from ..display.reprs import titled_repr
from .measures import CostEstimates, _nan_sd, mean_cost
from ..display.reprs import displayed

__all__ = ["pair_difference", "pair_p_value", "pair_ratio", "CostComparison", "cost_differences"]


def _t_pair(costs, ia, ib, values, var, alternative, level):
    """Analytic interval and p-value of ``values`` (a difference or log ratio) with variance ``var``."""
    if costs.paired:
        df = np.full(values.shape, float(costs.df[0]))
    else:  # Welch-Satterthwaite from each model's variance and df
        va, vb = np.diag(costs.cov)[ia], np.diag(costs.cov)[ib]
        with np.errstate(invalid="ignore", divide="ignore"):
            df = (va + vb) ** 2 / (va ** 2 / costs.df[ia] + vb ** 2 / costs.df[ib])
        df = np.where(np.isfinite(df), df, np.inf)
    se = np.sqrt(np.maximum(var, 0.0))
    tail = (1 - level) / 2 if alternative == "two-sided" else 1 - level
    crit = stats.t.ppf(1 - tail, df)
    low = values - crit * se if alternative != "less" else np.full(values.shape, -np.inf)
    high = values + crit * se if alternative != "greater" else np.full(values.shape, np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        tstat = values / se
    p_greater = np.where(se > 0, stats.t.sf(tstat, df), np.where(values > 0, 0.0, 1.0))
    p_less = np.where(se > 0, stats.t.cdf(tstat, df), np.where(values < 0, 0.0, 1.0))
    p = {"greater": p_greater, "less": p_less}.get(alternative)
    if p is None:
        p = np.minimum(1.0, 2 * np.minimum(p_greater, p_less))
        p = np.where((se == 0) & (values == 0), 1.0, p)
    return se, low, high, p


def pair_p_value(costs: CostEstimates, ia, ib, *, alternative="two-sided") -> np.ndarray:
    """p-values of equal mean costs against ``alternative`` for ``cost[a] - cost[b]`` ('less': a is cheaper),
    without the intervals (the frontier needs only these)."""
    ia, ib = np.atleast_1d(ia), np.atleast_1d(ib)
    alternative = check_alternative(alternative)
    d = costs.estimate[ia] - costs.estimate[ib]
    if costs.bootstrap:
        s = costs.samples[:, ia] - costs.samples[:, ib]
        kw = {}
        if costs.method == "bca":
            kw = dict(jackknife=costs.jackknife[:, ia] - costs.jackknife[:, ib],
                      jackknife_strata=costs.jackknife_strata)
        return bootstrap_p_value(s, d, method=costs.method, alternative=alternative, **kw)
    c = costs.cov
    return _t_pair(costs, ia, ib, d, c[ia, ia] + c[ib, ib] - 2 * c[ia, ib], alternative, costs.confidence_level)[3]


def pair_difference(costs: CostEstimates, ia, ib, *, confidence_level=None, alternative="two-sided"):
    """``(difference, se, low, high, p)`` of ``cost[a] - cost[b]`` for index arrays ``ia``, ``ib``.

    Bootstrap costs: the interval of the paired replicate differences (the same method as the costs, BCa with
    the jackknife) and the p-value inverting it (:func:`evalband.comparison.bootstrap_p_value`). Analytic costs:
    t with the paired (or, for summaries, Welch's) standard error.
    """
    ia, ib = np.atleast_1d(ia), np.atleast_1d(ib)
    level = costs.confidence_level if confidence_level is None else check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    d = costs.estimate[ia] - costs.estimate[ib]
    if costs.bootstrap:
        s = costs.samples[:, ia] - costs.samples[:, ib]
        jk = None if costs.jackknife is None else costs.jackknife[:, ia] - costs.jackknife[:, ib]
        kw = dict(jackknife=jk, jackknife_strata=costs.jackknife_strata) if costs.method == "bca" else {}
        ci = interval(s, d, method=costs.method, confidence_level=level, alternative=alternative, **kw)
        p = bootstrap_p_value(s, d, method=costs.method, alternative=alternative, **kw)
        return d, _nan_sd(s), np.asarray(ci.low, float), np.asarray(ci.high, float), p
    c = costs.cov
    se, low, high, p = _t_pair(costs, ia, ib, d, c[ia, ia] + c[ib, ib] - 2 * c[ia, ib], alternative, level)
    return d, se, low, high, p


def pair_ratio(costs: CostEstimates, ia, ib, *, confidence_level=None):
    """``(ratio, low, high)`` of ``cost[b] / cost[a]`` (how much b costs relative to a); NaN where a costs 0.

    Bootstrap costs: the interval of the replicate ratios (BCa with the jackknife of the ratio). Analytic costs:
    the delta method on the log ratio, back-transformed (so the interval stays positive).
    """
    ia, ib = np.atleast_1d(ia), np.atleast_1d(ib)
    level = costs.confidence_level if confidence_level is None else check_confidence_level(confidence_level)
    ea, eb = costs.estimate[ia], costs.estimate[ib]
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(ea > 0, eb / np.where(ea > 0, ea, 1.0), np.nan)
        if costs.bootstrap:
            s = costs.samples[:, ib] / costs.samples[:, ia]
            jk = None if costs.jackknife is None else costs.jackknife[:, ib] / costs.jackknife[:, ia]
            ok = np.isfinite(s).all(axis=0) & np.isfinite(r)  # a replicate without cost for a: no interval
            if jk is not None:
                ok &= np.isfinite(jk).all(axis=0)
            kw = {}
            if costs.method == "bca":
                kw = dict(jackknife=np.where(ok, jk, 1.0), jackknife_strata=costs.jackknife_strata)
            ci = interval(np.where(ok, s, 1.0), np.where(ok, r, 1.0), method=costs.method, confidence_level=level,
                          **kw)
            nan = np.where(ok, 1.0, np.nan)
            return r, np.asarray(ci.low, float) * nan, np.asarray(ci.high, float) * nan
        c = costs.cov
        log_r = np.log(eb) - np.log(ea)
        var = c[ib, ib] / eb ** 2 + c[ia, ia] / ea ** 2 - 2 * c[ia, ib] / (ea * eb)
        _, low, high, _ = _t_pair(costs, ia, ib, log_r, var, "two-sided", level)
        return r, np.exp(low), np.exp(high)


@displayed
@dataclass(frozen=True, repr=False)
class CostComparison:
    """Every pair of models: the paired difference of mean costs ``A - B`` and the ratio ``B / A``.

    Attributes
    ----------
    measure : str
    model_a, model_b : tuple of str
    difference, se, p_value, p_adjusted : numpy.ndarray, shape (P,)
    ci : ConfidenceInterval
        Of the difference, at ``interval_level`` (Bonferroni-corrected when a correction is asked).
    ratio : numpy.ndarray
        ``cost[B] / cost[A]``.
    ratio_ci : ConfidenceInterval
    method, correction : str
    confidence_level, interval_level : float
    notes : tuple of str
    """

    measure: str
    model_a: tuple
    model_b: tuple
    difference: np.ndarray
    se: np.ndarray
    ci: ConfidenceInterval
    p_value: np.ndarray
    p_adjusted: np.ndarray
    ratio: np.ndarray
    ratio_ci: ConfidenceInterval
    method: str
    correction: str
    confidence_level: float
    interval_level: float
    notes: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({
            "model_a": list(self.model_a), "model_b": list(self.model_b), "difference": self.difference,
            "se": self.se, "ci_low": self.ci.low, "ci_high": self.ci.high, "p_value": self.p_value,
            "p_adjusted": self.p_adjusted, "ratio": self.ratio, "ratio_ci_low": self.ratio_ci.low,
            "ratio_ci_high": self.ratio_ci.high, "method": self.method, "interval_level": self.interval_level,
        })

    def __repr__(self) -> str:
        return titled_repr(f"CostComparison: {len(self.model_a)} pairs of mean {self.measure} per item (A - B,"
                          f" ratio B / A), {self.method}, correction {self.correction}", frame=self.to_frame(),
                           columns=["model_a", "model_b", "difference", "ci_low", "ci_high", "p_adjusted", "ratio"])


def cost_differences(data, *, cost: str = "cost", method: str = "t", confidence_level=0.95,
                     alternative: str = "two-sided", correction: str = "none", n_resamples: int = 2000,
                     models=None, tasks=None, cluster=None, replicates=None, rng=None) -> CostComparison:
    """Paired differences (and ratios) of mean cost per item for every pair of models.

    Parameters
    ----------
    data : ResultsTable, path, DataFrame, or CostEstimates
        Item-level results with a measure column, or costs already estimated (then ``method`` and the
        resampling options are those of the estimates).
    cost : str
    method : {'t', 'bca', 'percentile', 'basic'}
        't' (default): the paired t test and interval on the items (with one task and every item measured,
        exactly ``scipy.stats.ttest_rel``); bootstrap methods use the joint item draws.
    confidence_level : float or str
    alternative : {'two-sided', 'less', 'greater'}
        For the difference ``A - B``.
    correction : {'none', 'bonferroni', 'holm', 'bh'}
        Multiplicity control over the pairs: p-values adjusted by :func:`evalband.comparison.adjust_p_values`,
        intervals at the Bonferroni level ``1 - alpha / P`` when a correction is asked.
    n_resamples, models, tasks, cluster, replicates, rng
        As for :func:`mean_cost`.

    Returns
    -------
    CostComparison

    Notes
    -----
    Pairing by item removes the item-to-item variation that both models share (a long task is long for every
    model), which is usually most of it. Each model's mean is over its own measured items; when every item is
    measured, the difference of means is the mean of the paired differences.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(model=m, task="t", item=i, score=1.0, cost=(1 + i % 4) * (1 + k) + 0.1 * (i % 3))
    ...         for k, m in enumerate(["A", "B"]) for i in range(20)]
    >>> cmp = cost_differences(pd.DataFrame(rows))
    >>> round(float(cmp.difference[0]), 3), round(float(cmp.ratio[0]), 3)
    (-2.5, 1.963)
    """
    correction = check_choice(correction, ("none", "bonferroni", "holm", "bh"), "correction")
    alternative = check_alternative(alternative)
    level = check_confidence_level(confidence_level)
    costs = data if isinstance(data, CostEstimates) else mean_cost(
        data, cost=cost, method=method, confidence_level=level, n_resamples=n_resamples, models=models,
        tasks=tasks, cluster=cluster, replicates=replicates, rng=rng)
    m = len(costs.models)
    if m < 2:
        raise ArgumentError(f"cost differences need at least 2 models; got {m}.")
    ia, ib = np.triu_indices(m, k=1)
    p_count = ia.size
    used = 1 - (1 - level) / p_count if correction != "none" else level
    d, se, low, high, p = pair_difference(costs, ia, ib, confidence_level=used, alternative=alternative)
    p_adj = adjust_p_values(p, method=correction) if correction != "none" else p.copy()
    r, r_low, r_high = pair_ratio(costs, ia, ib, confidence_level=used)
    names = costs.models
    return CostComparison(costs.measure, tuple(names[i] for i in ia), tuple(names[j] for j in ib), d, se,
                          ConfidenceInterval(low, high), p, p_adj, r, ConfidenceInterval(r_low, r_high),
                          costs.method, correction, level, float(used), costs.notes)
