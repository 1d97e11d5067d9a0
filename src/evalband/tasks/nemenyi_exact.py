"""The permutation (exact) null distribution of the largest difference between mean ranks, for few tasks.

The Nemenyi test calls two models different when their mean ranks differ by more than a critical difference
(CD). Its p-values and CD come from the studentized range with infinite degrees of freedom, the limit of the
largest difference between mean ranks as the number of tasks grows; with a handful of tasks that limit is poor.
Under the same null hypothesis as the Friedman test (every task's ranking equally likely to be any arrangement of
its ranks, independently across tasks) the distribution of the largest difference between rank sums is exact
and is enumerated with the Friedman test's own convolution of the rank sums
(:mod:`evalband.tasks.friedman_exact`), or estimated by Monte Carlo when enumeration would be too large.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validate import ArgumentError, as_generator, check_choice, check_positive_int
from .friedman_exact import EXACT_MAX_WORK, _check_ranks, _rank_sum_distribution, _scaled_integer_ranks, _work
from ..display.reprs import displayed
from .._words import words

__all__ = ["RangePermutationTest", "max_rank_difference_test"]

#: p-values within this relative distance of alpha count as reaching it (sums of float probabilities)
_TOLERANCE = 1e-9


@displayed
@dataclass(frozen=True, repr=False)
class RangePermutationTest:
    """Pairwise p-values from the permutation distribution of the largest difference between mean ranks.

    Attributes
    ----------
    p_values : numpy.ndarray, shape (k, k)
        P(largest difference between mean ranks >= the pair's observed difference) under within-task
        exchangeability (1 on the diagonal): single-step, so the family-wise error over all pairs is controlled.
    p_value_se : numpy.ndarray, shape (k, k)
        Monte Carlo standard errors (0 for an enumeration).
    critical_difference : float
        The smallest attainable difference between mean ranks whose p-value is at most alpha: a pair differs
        significantly when its difference reaches it. Infinite when no attainable difference is significant (too
        few tasks for any verdict at this level).
    method : {'enumeration', 'monte-carlo'}
    n_arrangements : int
        Equally likely within-task arrangements enumerated, or Monte Carlo draws.
    """

    p_values: np.ndarray
    p_value_se: np.ndarray
    critical_difference: float
    method: str
    n_arrangements: int


def _range_distribution(r: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(attainable ranges of the rank sums, ascending; their probabilities; arrangements) for integer ranks r."""
    dist, axes, last, n_arr = _rank_sum_distribution(r)
    hi = np.broadcast_to(last, dist.shape).copy()
    lo = hi.copy()
    for a in axes:
        np.maximum(hi, a, out=hi)
        np.minimum(lo, a, out=lo)
    keep = (dist > 0) & (last >= 0)
    values, inverse = np.unique((hi - lo)[keep], return_inverse=True)
    return values, np.bincount(inverse, weights=dist[keep], minlength=values.size), n_arr


def _monte_carlo_ranges(r: np.ndarray, n_resamples: int, gen) -> np.ndarray:
    """Ranges of the rank sums in ``n_resamples`` random within-task arrangements, sorted."""
    k, n = r.shape
    chunk = max(1, min(n_resamples, 2_000_000 // max(k * n, 1)))
    out, done = [], 0
    while done < n_resamples:
        c = min(chunk, n_resamples - done)
        sums = gen.permuted(np.broadcast_to(r, (c, k, n)).copy(), axis=1).sum(axis=2)  # each task on its own
        out.append(sums.max(axis=1) - sums.min(axis=1))
        done += c
    return np.sort(np.concatenate(out))


def max_rank_difference_test(ranks, *, alpha: float = 0.05, method: str = "auto", n_resamples: int = 9_999,
                             rng=None, max_work: float = EXACT_MAX_WORK) -> RangePermutationTest:
    """Exact (or Monte Carlo) Nemenyi-type all-pairs test from a (models x tasks) matrix of within-task ranks.

    Parameters
    ----------
    ranks : array_like, shape (k, N)
        Ranks of k models within each of N tasks (midranks for ties), as from ``rank_matrix``.
    alpha : float, default 0.05
        Family-wise level of the critical difference.
    method : {'auto', 'exact', 'monte-carlo'}
        'exact': enumerate every arrangement (ValueError when that exceeds ``max_work``); 'monte-carlo': draw
        ``n_resamples`` arrangements; 'auto': enumerate when feasible, else Monte Carlo.
    n_resamples : int, default 9999
    rng : None, int or numpy.random.Generator
        Monte Carlo only.
    max_work : float
        Enumeration budget, as in :func:`~evalband.tasks.friedman_exact.friedman_permutation_p_value`.

    Returns
    -------
    RangePermutationTest

    Notes
    -----
    The statistic is the Nemenyi test's, max_ij |R_i - R_j| over the rank sums (equivalently the mean ranks);
    the Nemenyi test refers it to the studentized range with infinite degrees of freedom, its large-N limit
    (Nemenyi 1963; Demsar 2006), while here it is referred to its permutation distribution conditional on the
    observed ties (Hollander, Wolfe & Chicken 2014, section 7.3, where exact critical values of this range are
    tabulated for small k and N). Each pair's p-value is the probability that the largest difference over all
    pairs reaches the pair's difference, a single-step max-statistic test, so the family-wise error over all
    pairs is at most alpha. The distribution is discrete: the CD is an attainable difference and the test is
    conservative. The Monte Carlo p-value is (1 + hits) / (1 + n_resamples) (Phipson & Smyth 2010).

    References
    ----------
    Nemenyi, P. B. (1963). Distribution-free multiple comparisons. PhD thesis, Princeton University.
    Demsar, J. (2006). Statistical comparisons of classifiers over multiple data sets. JMLR 7, 1-30.
    Hollander, M., Wolfe, D. A. & Chicken, E. (2014). Nonparametric Statistical Methods, 3rd ed. Wiley.
    Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero. Stat. Appl. Genet. Mol. Biol. 9.
    """
    method = check_choice(method, ("auto", "exact", "monte-carlo"), "method")
    r = _check_ranks(ranks)
    if not 0 < alpha < 1:
        raise ArgumentError(f"`alpha` must lie in (0, 1); got {alpha!r}.")
    r, scale = _scaled_integer_ranks(r)
    k, n = r.shape
    sums = r.sum(axis=1)
    observed = np.abs(sums[:, None] - sums[None, :])  # (k, k) integer differences of rank sums
    work, _ = _work(r)
    if method == "exact" and work > max_work:
        raise ArgumentError(words("exact enumeration is too large here ({k} models, {n} tasks); use {arg:method='monte-carlo'}.", k=k, n=n))
    if method != "monte-carlo" and work <= max_work:
        values, probs, n_arr = _range_distribution(r)
        sf = np.cumsum(probs[::-1])[::-1]  # P(range >= values[i])
        p_values = np.minimum(sf[np.searchsorted(values, observed, side="left")], 1.0)
        se = np.zeros((k, k))
        kind = "enumeration"
    else:
        n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=99)
        drawn = _monte_carlo_ranges(r, n_resamples, as_generator(rng))
        values = np.unique(np.concatenate([drawn, observed.ravel()]))
        hits = drawn.size - np.searchsorted(drawn, values, side="left")
        sf = (hits + 1.0) / (n_resamples + 1.0)
        p_values = sf[np.searchsorted(values, observed, side="left")]
        se = np.sqrt(p_values * (1.0 - p_values) / n_resamples)
        n_arr, kind = n_resamples, "monte-carlo"
    np.fill_diagonal(p_values, 1.0)
    np.fill_diagonal(se, 0.0)
    reach = np.flatnonzero((sf <= alpha * (1 + _TOLERANCE)) & (values > 0))
    cd = float(values[reach[0]]) / (scale * n) if reach.size else math.inf
    return RangePermutationTest(p_values, se, cd, kind, int(n_arr))
