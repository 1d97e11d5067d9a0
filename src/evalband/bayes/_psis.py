"""Pareto smoothed importance sampling (PSIS) in NumPy: ArviZ's ``psislw`` for one vector of log weights, without
importing ArviZ (whose import, with xarray and its numba-compiled functions, takes seconds that the Laplace fit
does not otherwise spend).

The largest ``M = ceil(min(S / 5, 3 sqrt(S / r_eff)))`` weights are replaced by the expected order statistics of a
generalized Pareto distribution fitted to them (the empirical Bayes estimate of Zhang & Stephens 2009, with the
weakly informative prior on k of Vehtari et al. 2024), then truncated at the largest raw weight; ``k``, the
fitted shape, says how reliable the importance sampling is (below 0.7: reliable).

References
----------
Vehtari, A., Simpson, D., Gelman, A., Yao, Y. & Gabry, J. (2024). Pareto smoothed importance sampling. JMLR
25(72), 1-58.
Zhang, J. & Stephens, M. A. (2009). A new and efficient estimation method for the generalized Pareto
distribution. Technometrics 51(3), 316-325.
"""

from __future__ import annotations

import numpy as np

__all__ = ["psislw"]


def _gpd_fit(x):
    """(k, sigma) of the generalized Pareto distribution fitted to the sorted positive values ``x``."""
    prior_bs, prior_k = 3, 10
    n = x.shape[0]
    m = 30 + int(n ** 0.5)
    b = 1 - np.sqrt(m / (np.arange(1, m + 1, dtype=float) - 0.5))
    b /= prior_bs * x[int(n / 4 + 0.5) - 1]
    b += 1 / x[-1]
    k = np.log1p(-b[:, None] * x).mean(axis=1)
    len_scale = n * (np.log(-(b / k)) - k - 1)
    weights = 1 / np.exp(len_scale - len_scale[:, None]).sum(axis=1)
    keep = weights >= 10 * np.finfo(float).eps
    weights, b = weights[keep], b[keep]
    weights /= weights.sum()
    b_post = np.sum(b * weights)
    k_post = np.log1p(-b_post * x).mean()
    sigma = -k_post / b_post
    return (n * k_post + prior_k * 0.5) / (n + prior_k), sigma


def _gpd_quantiles(p, k, sigma):
    """Quantiles of the generalized Pareto distribution at probabilities 0 < p < 1."""
    if sigma <= 0:
        return np.full_like(p, np.nan)
    if abs(k) < np.finfo(float).eps:
        return -sigma * np.log1p(-p)
    return sigma * np.expm1(-k * np.log1p(-p)) / k


def psislw(log_weights, reff=1.0):
    """Smoothed, normalised log weights and the Pareto shape ``k`` (``inf`` when the tail has at most 4 draws):
    ``arviz.psislw(log_weights, reff)`` for a 1-D array.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.bayes._psis import psislw
    >>> lw, k = psislw(np.random.default_rng(0).standard_normal(1000))
    >>> bool(k < 0.7), round(float(np.exp(lw).sum()), 6)
    (True, 1.0)
    """
    x = np.array(log_weights, dtype=np.float64)
    n = x.shape[0]
    cutoff_ind = -int(np.ceil(min(n / 5.0, 3 * (n / reff) ** 0.5))) - 1
    x -= x.max()
    order = np.argsort(x)
    cutoff = max(x[order[cutoff_ind]], np.log(np.finfo(float).tiny))
    exp_cutoff = np.exp(cutoff)
    (tail,) = np.nonzero(x > cutoff)
    k = np.inf
    if tail.shape[0] > 4:
        tail_order = np.argsort(x[tail])
        k, sigma = _gpd_fit((np.exp(x[tail]) - exp_cutoff)[tail_order])
        if np.isfinite(k):
            probs = np.arange(0.5, tail.shape[0]) / tail.shape[0]
            x[tail[tail_order]] = np.log(_gpd_quantiles(probs, k, sigma) + exp_cutoff)
            x[x > 0] = 0
    top = x.max()
    x -= top + np.log(np.exp(x - top).sum())
    return x, float(k)
