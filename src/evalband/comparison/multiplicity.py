"""Multiple-comparison control: adjusted p-values and simultaneous bootstrap intervals (max-t).

Four corrections are offered for a family of pairwise comparisons:

* ``'bonferroni'`` and ``'holm'`` control the family-wise error rate (FWER) under any dependence;
* ``'bh'`` (Benjamini-Hochberg) controls the false discovery rate under independence or positive dependence;
* ``'max-t'`` controls the FWER using the joint bootstrap distribution of the comparisons: the critical value is a
  quantile of the largest studentized deviation over the family (single-step max-T of Westfall & Young), which
  adapts to the correlation between comparisons and is never wider than Bonferroni asymptotically.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import ArgumentError, check_alternative, check_choice, check_confidence_level
from ..display.reprs import displayed

__all__ = ["CORRECTIONS", "adjust_p_values", "correction_level", "max_t_intervals", "SimultaneousIntervals"]

#: valid values of ``correction``
CORRECTIONS = ("none", "bonferroni", "holm", "bh", "max-t")


def adjust_p_values(p_values, *, method: str = "holm") -> np.ndarray:
    """Adjusted p-values for a family of tests (NaN entries are left out of the family and stay NaN).

    Parameters
    ----------
    p_values : array_like
        Unadjusted p-values; the family is the whole array (any shape).
    method : {'none', 'bonferroni', 'holm', 'bh'}
        'bh' is Benjamini-Hochberg (statsmodels' ``'fdr_bh'``).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape, capped at 1.

    Notes
    -----
    Bonferroni and Holm (step-down) control the family-wise error rate whatever the dependence between tests;
    Benjamini-Hochberg (step-up) controls the false discovery rate when the tests are independent or positively
    regression dependent, which pairwise comparisons sharing a model usually are.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J. Statist. 6, 65-70.
    Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. JRSS B 57, 289-300.

    Examples
    --------
    >>> import evalband as eb
    >>> eb.adjust_p_values([0.01, 0.02, 0.04], method="holm")
    array([0.03, 0.04, 0.04])
    """
    method = check_choice(method, ("none", "bonferroni", "holm", "bh"), "method")
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    flat = p.ravel()
    ok = np.isfinite(flat)
    if np.any((flat[ok] < 0) | (flat[ok] > 1)):
        raise ArgumentError("`p_values` must lie in [0, 1].")
    q = flat[ok]
    m = q.size
    if m == 0:
        return out
    if method == "none":
        adj = q.copy()
    elif method == "bonferroni":
        adj = np.minimum(1.0, q * m)
    else:
        order = np.argsort(q, kind="stable")
        s = q[order]
        k = np.arange(1, m + 1)
        if method == "holm":
            stepped = np.maximum.accumulate((m - k + 1) * s)
        else:  # bh: step-up, a running minimum from the largest p-value down
            stepped = np.minimum.accumulate((m / k * s)[::-1])[::-1]
        adj = np.empty(m)
        adj[order] = np.minimum(1.0, stepped)
    res = out.ravel()
    res[ok] = adj
    return res.reshape(p.shape)


def correction_level(confidence_level: float, m: int, correction: str, *, n_rejected: int | None = None) -> float:
    """The per-comparison confidence level of interval-based corrections.

    'bonferroni' and 'holm' give ``1 - alpha / m`` (Holm has no simple compatible intervals; the Bonferroni
    intervals are valid simultaneous intervals, Strassburger & Bretz 2008); 'bh' gives the false-coverage-rate
    adjusted level ``1 - R alpha / m`` of Benjamini & Yekutieli (2005) with R the number of BH rejections
    (``1 - alpha / m`` when nothing is rejected); 'none' and 'max-t' return ``confidence_level`` unchanged.
    """
    alpha = 1.0 - confidence_level
    m = max(int(m), 1)
    if correction in ("bonferroni", "holm"):
        return 1.0 - alpha / m
    if correction == "bh":
        r = max(int(n_rejected or 0), 1)
        return 1.0 - r * alpha / m
    return confidence_level


@displayed
@dataclass(frozen=True, repr=False)
class SimultaneousIntervals:
    """Simultaneous intervals for a family of statistics from the bootstrap max-t distribution.

    Attributes
    ----------
    low, high : numpy.ndarray, shape (P,)
    critical_value : float
        The ``confidence_level`` quantile of the maximum studentized deviation.
    se : numpy.ndarray, shape (P,)
        Bootstrap standard deviation of each statistic.
    p_value : numpy.ndarray, shape (P,)
        Single-step max-T adjusted p-values for H0: statistic = 0.
    max_t : numpy.ndarray, shape (B,)
        The bootstrap distribution of the maximum studentized deviation.
    """

    low: np.ndarray
    high: np.ndarray
    critical_value: float
    se: np.ndarray
    p_value: np.ndarray
    max_t: np.ndarray


def max_t_intervals(samples, observed, *, confidence_level: float = 0.95,
                    alternative: str = "two-sided") -> SimultaneousIntervals:
    """Simultaneous intervals and adjusted p-values from the bootstrap distribution of the maximum |t|.

    Parameters
    ----------
    samples : array_like, shape (B, P)
        Bootstrap replicates of P statistics, drawn jointly (the same replicate for all P).
    observed : array_like, shape (P,)
        The statistics on the data.
    confidence_level : float
        Simultaneous coverage of the family.
    alternative : {'two-sided', 'less', 'greater'}
        'greater' gives lower bounds (H1: statistic > 0), 'less' upper bounds.

    Returns
    -------
    SimultaneousIntervals

    Notes
    -----
    With ``se_p`` the bootstrap standard deviation of statistic p, the max statistic of replicate b is
    ``T_b = max_p |D_bp - d_p| / se_p`` (signed for one-sided families) and the critical value ``c`` its
    ``confidence_level`` quantile; the intervals are ``d_p -/+ c se_p``. They hold jointly with probability about
    ``confidence_level`` when the statistics are asymptotically jointly normal (smooth aggregates of many items);
    they adapt to correlation between comparisons, unlike Bonferroni. Statistics with zero bootstrap variance
    (identical models) get a zero-width interval and are left out of the maximum.

    References
    ----------
    Westfall, P. H. & Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley. (single-step max-T)
    Romano, J. P. & Wolf, M. (2005). Exact and approximate stepdown methods for multiple hypothesis testing.
    JASA 100, 94-108.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.comparison import max_t_intervals
    >>> rng = np.random.default_rng(0)
    >>> observed = np.array([0.05, 0.02, -0.03])
    >>> samples = observed + rng.normal(0, 0.01, size=(200, 3))
    >>> res = max_t_intervals(samples, observed)
    >>> round(float(res.critical_value), 2)
    2.34
    >>> np.round(res.low, 3), np.round(res.high, 3)
    (array([ 0.026, -0.003, -0.053]), array([ 0.074,  0.043, -0.007]))
    >>> np.round(res.p_value, 3)
    array([0.005, 0.109, 0.02 ])
    """
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    d = np.asarray(samples, dtype=np.float64)
    obs = np.asarray(observed, dtype=np.float64)
    if d.ndim != 2 or obs.shape != d.shape[1:]:
        raise ArgumentError(f"`samples` must be (B, P) and `observed` (P,); got {d.shape} and {obs.shape}.")
    se = d.std(axis=0, ddof=1)
    tmax = max_deviation(d, obs, se, alternative=alternative)
    return max_t_from_deviations(tmax, obs, se, confidence_level=confidence_level, alternative=alternative)


def max_deviation(samples: np.ndarray, observed: np.ndarray, se: np.ndarray, *, alternative: str) -> np.ndarray:
    """The largest studentized deviation of each replicate over the columns of ``samples`` (B, P): ``(B,)``.

    Columns with no bootstrap spread are left out (``-inf`` when none is left). A family too large to hold at once
    is reduced block by block with ``np.maximum``: the maximum does not depend on how the columns are split.
    """
    live = se > 0
    safe = np.where(live, se, 1.0)
    dev = (samples - observed) / safe
    if alternative == "two-sided":
        dev = np.abs(dev)
    elif alternative == "less":
        dev = -dev
    dev = np.where(live, dev, -np.inf)
    return dev.max(axis=1) if dev.shape[1] else np.full(samples.shape[0], -np.inf)


def max_t_from_deviations(tmax, observed, se, *, confidence_level: float = 0.95,
                          alternative: str = "two-sided") -> SimultaneousIntervals:
    """Simultaneous intervals and single-step adjusted p-values from the maximum deviations ``tmax`` (B,) of
    :func:`max_deviation` over the family, its observed statistics and their bootstrap standard deviations."""
    obs = np.asarray(observed, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    tmax = np.asarray(tmax, dtype=np.float64)
    live = se > 0
    if not live.any():
        tmax = np.zeros(tmax.shape[0])
    t_obs = obs / np.where(live, se, 1.0)
    stat_obs = np.abs(t_obs) if alternative == "two-sided" else t_obs if alternative == "greater" else -t_obs
    c = float(np.quantile(tmax, confidence_level))
    low = obs - c * se
    high = obs + c * se
    if alternative == "greater":
        high = np.full_like(obs, np.inf)
    elif alternative == "less":
        low = np.full_like(obs, -np.inf)
    # adjusted p-values: how often the max deviation reaches each observed statistic (counted on the sorted maxima,
    # so that a family of any size needs no (B, P) array; NaN maxima reach nothing, as a comparison with NaN)
    valid = np.sort(tmax[~np.isnan(tmax)])
    counts = valid.size - np.searchsorted(valid, stat_obs, side="left")
    counts = np.where(np.isnan(stat_obs), 0, counts)
    p = np.minimum(1.0, (counts + 1.0) / (tmax.shape[0] + 1.0))
    p = np.where(live, p, np.where(obs == 0, 1.0, 0.0))
    return SimultaneousIntervals(low, high, c, se, p, tmax)
