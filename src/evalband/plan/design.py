"""The variance of a planned comparison: paired differences, clusters of items and repeated trials.

Everything here is arithmetic on variance components, so that :mod:`evalband.plan.power` can turn one variance
into power, sample size or a minimum detectable effect:

* the variance of one item's difference ``a_i - b_i`` from the two score variances and their correlation
  (for binary scores, from the two proportions);
* the design effect of clustered items, ``1 + (m - 1) rho`` for clusters of equal size ``m`` and
  ``1 + ((cv^2 + 1) m_bar - 1) rho`` for sizes with mean ``m_bar`` and coefficient of variation ``cv``
  (Eldridge, Ashby & Kerry 2006, eq. 4), and the effective sample size ``n / deff``;
* repeated trials: with ``k`` trials per item the item's variance is ``item_variance + output_variance / k``
  (Miller 2024, section on resampling), the reduction each ``k`` brings and a recommended ``k``.

References
----------
Eldridge, S. M., Ashby, D. and Kerry, S. (2006). Sample size for cluster randomized trials: effect of
coefficient of variation of cluster size and analysis method. International Journal of Epidemiology 35(5),
1292-1300.
Kish, L. (1965). Survey Sampling. Wiley (the design effect ``1 + (m - 1) rho``).
Cochran, W. G. (1977). Sampling Techniques, 3rd ed., section 10.6 (optimum number of second-stage units).
Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations.
arXiv:2411.00640.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._validate import ArgumentError, ArgumentTypeError, check_positive_int, check_probability
from .._words import words

__all__ = [
    "variance_of_difference", "binary_variance_of_difference", "design_effect", "effective_sample_size",
    "trial_variance", "variance_reduction", "recommend_trials",
]


def _nonneg(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(words('`{arg:{name}}` must be a number; got {value!r}.', name=name, value=value))
    value = float(value)
    if not (value >= 0 and math.isfinite(value)):
        raise ArgumentError(words('`{arg:{name}}` must be a finite number >= 0; got {value!r}.', name=name, value=value))
    return value


def _correlation(value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(f"`correlation` must be a number in [-1, 1]; got {value!r}.")
    if not -1.0 <= float(value) <= 1.0:
        raise ArgumentError(f"`correlation` must lie in [-1, 1]; got {value!r}.")
    return float(value)


def variance_of_difference(var_a: float, var_b: float, *, correlation: float = 0.0) -> float:
    """``Var(a - b) = var_a + var_b - 2 rho sd_a sd_b`` for one item scored by two models.

    ``correlation=0`` gives the unpaired (independent) case ``var_a + var_b``.

    Examples
    --------
    >>> from evalband.plan import variance_of_difference
    >>> variance_of_difference(0.2, 0.2)
    0.4
    >>> round(variance_of_difference(0.2, 0.2, correlation=0.6), 3)
    0.16
    """
    var_a, var_b = _nonneg(var_a, "var_a"), _nonneg(var_b, "var_b")
    rho = _correlation(correlation)
    return max(var_a + var_b - 2.0 * rho * math.sqrt(var_a * var_b), 0.0)


def binary_variance_of_difference(p_a: float, p_b: float, *, correlation: float = 0.0) -> float:
    """Variance of the difference of two correlated Bernoulli scores on one item.

    ``p_a (1 - p_a) + p_b (1 - p_b) - 2 rho sqrt(p_a (1 - p_a) p_b (1 - p_b))``; ``rho`` is the per-item (phi)
    correlation of the two models' 0/1 scores.

    Raises
    ------
    ValueError
        When no joint distribution of two 0/1 scores has these margins and this correlation (the implied
        probability that both are correct, ``p_a p_b + rho sd_a sd_b``, must lie in
        ``[max(0, p_a + p_b - 1), min(p_a, p_b)]``).

    Examples
    --------
    >>> from evalband.plan import binary_variance_of_difference
    >>> round(binary_variance_of_difference(0.7, 0.6), 3)
    0.45
    >>> round(binary_variance_of_difference(0.7, 0.6, correlation=0.5), 3)
    0.226
    """
    p_a = check_probability(p_a, "p_a", open_interval=False)
    p_b = check_probability(p_b, "p_b", open_interval=False)
    rho = _correlation(correlation)
    sa, sb = math.sqrt(p_a * (1 - p_a)), math.sqrt(p_b * (1 - p_b))
    both = p_a * p_b + rho * sa * sb
    low, high = max(0.0, p_a + p_b - 1.0), min(p_a, p_b)
    if not (low - 1e-12 <= both <= high + 1e-12):
        if sa * sb > 0:
            lo_rho, hi_rho = (low - p_a * p_b) / (sa * sb), (high - p_a * p_b) / (sa * sb)
            span = f"; for proportions {p_a:g} and {p_b:g} it must lie in [{lo_rho:.3f}, {hi_rho:.3f}]"
        else:
            span = ""
        raise ArgumentError(f"`correlation` {rho!r} is impossible for two 0/1 scores{span}.")
    return max(sa * sa + sb * sb - 2.0 * rho * sa * sb, 0.0)


def design_effect(cluster_size, icc, *, cv: float = 0.0):
    """Variance inflation of a mean over clustered items: ``1 + ((cv^2 + 1) m_bar - 1) rho``.

    Parameters
    ----------
    cluster_size : float or array_like
        Mean number of items per cluster (``m_bar``; ``m`` when all clusters have the same size).
    icc : float or array_like
        Intra-cluster correlation ``rho`` of the item scores (of the per-item differences for a paired
        comparison).
    cv : float
        Coefficient of variation (sd / mean) of the cluster sizes; 0 for equal sizes, which gives Kish's
        ``1 + (m - 1) rho``.

    Notes
    -----
    Eldridge, Ashby & Kerry (2006, eq. 4) derive the unequal-size formula for a cluster-level analysis with
    clusters weighted by size (the item-level mean); it is exact for that estimator under a common ``rho``.

    References
    ----------
    Eldridge, Ashby & Kerry (2006), Int. J. Epidemiol. 35, 1292-1300.

    Examples
    --------
    >>> import evalband as eb
    >>> eb.design_effect(cluster_size=10, icc=0.1)
    1.9
    """
    m = np.asarray(cluster_size, dtype=float)
    rho = np.asarray(icc, dtype=float)
    cv = _nonneg(cv, "cv")
    if np.any(m < 1) or not np.all(np.isfinite(m)):
        raise ArgumentError(f"`cluster_size` must be >= 1; got {cluster_size!r}.")
    if np.any(rho < -1) or np.any(rho > 1) or not np.all(np.isfinite(rho)):
        raise ArgumentError(f"`icc` must lie in [-1, 1]; got {icc!r}.")
    out = 1.0 + ((cv * cv + 1.0) * m - 1.0) * rho
    if np.any(out <= 0):
        raise ArgumentError(f"`icc` {icc!r} with cluster size {cluster_size!r} gives a design effect <= 0.")
    return float(out) if out.ndim == 0 else out


def effective_sample_size(n, cluster_size, icc, *, cv: float = 0.0):
    """``n / design_effect(cluster_size, icc, cv=cv)``: the independent items the clustered ``n`` is worth.

    Examples
    --------
    >>> from evalband.plan import effective_sample_size
    >>> round(effective_sample_size(1000, 10, 0.1), 1)
    526.3
    """
    return np.asarray(n, dtype=float) / design_effect(cluster_size, icc, cv=cv) if np.ndim(n) else \
        float(n) / design_effect(cluster_size, icc, cv=cv)


def trial_variance(item_variance: float, output_variance: float, trials):
    """Variance of one item's trial-averaged score: ``item_variance + output_variance / k``.

    ``item_variance`` is the variance of the items' true (infinitely resampled) scores, ``output_variance`` the
    mean within-item variance of a single trial (for a paired difference: the sum of both models').

    Examples
    --------
    >>> from evalband.plan import trial_variance
    >>> trial_variance(0.05, 0.10, [1, 2, 4])
    array([0.15 , 0.1  , 0.075])
    """
    item_variance = _nonneg(item_variance, "item_variance")
    output_variance = _nonneg(output_variance, "output_variance")
    k = np.asarray(trials, dtype=float)
    if np.any(k < 1):
        raise ArgumentError(f"`trials` must be >= 1; got {trials!r}.")
    out = item_variance + output_variance / k
    return float(out) if out.ndim == 0 else out


def variance_reduction(item_variance: float, output_variance: float, trials):
    """Fraction of the single-trial variance removed by ``k`` trials per item: ``1 - V_k / V_1``.

    It approaches ``output_variance / (item_variance + output_variance)`` as ``k`` grows; with output variance
    twice the item variance, 2 trials remove a third, 4 a half, and no ``k`` more than two thirds (Miller 2024).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.plan import variance_reduction
    >>> np.round(variance_reduction(0.05, 0.10, [2, 4, 100]), 3)
    array([0.333, 0.5  , 0.66 ])
    """
    v1 = trial_variance(item_variance, output_variance, 1)
    if v1 == 0:
        raise ArgumentError("`item_variance` and `output_variance` are both 0: there is no variance to reduce.")
    out = 1.0 - np.asarray(trial_variance(item_variance, output_variance, trials)) / v1
    return float(out) if out.ndim == 0 else out


def recommend_trials(item_variance: float, output_variance: float, *, cost_ratio: float | None = None,
                     tolerance: float = 0.1, max_trials: int = 100) -> int:
    """A number of trials per item.

    Parameters
    ----------
    item_variance, output_variance : float
        As in :func:`trial_variance`.
    cost_ratio : float, optional
        Cost of adding one item (writing, checking, setting up its environment) relative to one more trial of
        an existing item. When given, ``k`` minimises the cost of reaching a given precision:
        ``k_opt = sqrt(cost_ratio * output_variance / item_variance)`` (Cochran 1977, section 10.6), the better of the
        two integers around it.
    tolerance : float
        Without a cost ratio (the item set is fixed): the smallest ``k`` whose variance is within ``tolerance``
        of the limit ``item_variance`` that infinitely many trials would reach (Miller's advice: make
        ``output_variance / k`` small relative to the item variance).
    max_trials : int
        Cap on the answer (also returned when the item variance is 0).

    Notes
    -----
    If items cost nothing beyond their trials, one trial per item is always most efficient (a budget of ``B``
    trials gives variance ``(k item_variance + output_variance) / B``, increasing in ``k``); extra trials pay
    only when items are scarce or expensive.

    Examples
    --------
    >>> import evalband as eb
    >>> eb.recommend_trials(item_variance=0.04, output_variance=0.08, cost_ratio=5)
    3
    """
    item_variance = _nonneg(item_variance, "item_variance")
    output_variance = _nonneg(output_variance, "output_variance")
    max_trials = check_positive_int(max_trials, "max_trials")
    if output_variance == 0:
        return 1
    if item_variance == 0:
        return max_trials
    if cost_ratio is not None:
        c = _nonneg(cost_ratio, "cost_ratio")
        k_star = math.sqrt(c * output_variance / item_variance)
        candidates = {max(1, math.floor(k_star)), max(1, math.ceil(k_star))}
        # cost to reach a fixed precision is proportional to (c + k) (item_variance + output_variance / k)
        best = min(candidates, key=lambda k: ((c + k) * (item_variance + output_variance / k), k))
        return int(min(best, max_trials))
    tolerance = _nonneg(tolerance, "tolerance")
    if tolerance == 0:
        return max_trials
    return int(min(max(1, math.ceil(output_variance / (tolerance * item_variance) - 1e-12)), max_trials))
