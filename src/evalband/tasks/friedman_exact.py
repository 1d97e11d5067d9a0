"""The permutation (exact) null distribution of the Friedman statistic, for few tasks.

Under the null hypothesis every task's ranking of the models is equally likely to be any arrangement of its
ranks, independently across tasks. The p-value is the share of the (k!)^N arrangements (k models, N tasks) whose
statistic is at least the observed one: enumerated exactly by convolving the distribution of the rank sums one
task at a time, or estimated by Monte Carlo when enumeration would be too large.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .._validate import ArgumentError, as_generator, check_choice, check_positive_int
from ..display.reprs import displayed
from .._words import words

__all__ = ["PermutationPValue", "friedman_permutation_p_value", "EXACT_MAX_WORK", "SMALL_N_TASKS"]

#: Enumerate when (distinct arrangements per task, summed over tasks) x (size of the rank-sum grid) is at most this.
EXACT_MAX_WORK = 5e7
#: Below this many tasks the chi-square and F approximations of the Friedman test are poor (Demsar 2006 asks for
#: N > 10 and k > 5; the exact tables of Friedman 1937 and Hollander & Wolfe run to N = 15).
SMALL_N_TASKS = 10


@displayed
@dataclass(frozen=True, repr=False)
class PermutationPValue:
    """A permutation p-value of the Friedman statistic.

    Attributes
    ----------
    p_value : float
        P(S >= S_observed) under within-task exchangeability, S = sum of squared rank sums.
    se : float
        Monte Carlo standard error (0 for an enumeration).
    method : {'enumeration', 'closed-form', 'monte-carlo'}
        'closed-form': identical rankings without ties, p = k! / (k!)^N.
    n_arrangements : int
        Distinct, equally likely arrangements enumerated, or Monte Carlo draws.
    """

    p_value: float
    se: float
    method: str
    n_arrangements: int


def _check_ranks(ranks) -> np.ndarray:
    """``ranks`` as a finite float (models, tasks) array with at least 2 models, or a ValueError."""
    r = np.asarray(ranks, dtype=np.float64)
    if r.ndim != 2 or r.shape[0] < 2 or r.shape[1] < 1:
        raise ArgumentError(f"`ranks` must be (models, tasks) with at least 2 models; got shape {r.shape}.")
    if not np.all(np.isfinite(r)):
        raise ArgumentError("`ranks` must be finite (complete cases).")
    return r


def _integer_ranks(ranks: np.ndarray) -> np.ndarray:
    """Ranks (midranks allowed) as non-negative integers per task, an affine map of the ranks within each task.

    The Friedman statistic is an increasing function of sum_j R_j^2 (R_j = rank sum of model j) and sum_j R_j is
    the same for every arrangement, so shifting each task's ranks by a constant and doubling them (midranks are
    multiples of 1/2) keeps the order of the statistic over arrangements.
    """
    return _scaled_integer_ranks(ranks)[0]


def _scaled_integer_ranks(ranks) -> tuple[np.ndarray, int]:
    """:func:`_integer_ranks` and its scale (1, or 2 when midranks were doubled): differences between integer
    rank sums are ``scale`` times the differences between rank sums."""
    r2 = np.rint(2.0 * np.asarray(ranks, dtype=np.float64)).astype(np.int64)
    scale = 1 if np.all(r2 % 2 == 0) else 2
    r = r2 // 2 if scale == 1 else r2
    return r - r.min(axis=0, keepdims=True), scale


def _statistic(r: np.ndarray) -> np.ndarray:
    """sum_j R_j^2 for rank arrays (..., k, N) (exact integers)."""
    sums = r.sum(axis=-1)
    return (sums * sums).sum(axis=-1)


def _arrangements(column: np.ndarray) -> np.ndarray:
    """Distinct orderings of one task's (integer) ranks, shape (n, k); each is equally likely under the null."""
    return np.array(sorted(set(itertools.permutations(column.tolist()))), dtype=np.int64)


def _work(r: np.ndarray) -> tuple[float, list]:
    """Enumeration cost (arrangements per task summed over tasks, times the rank-sum grid); ``inf`` when it does
    not fit in a float (many models: the grid alone is (N k)^(k-1)). Computed in logs, so it never overflows."""
    k, n = r.shape
    distinct = []
    for b in range(n):
        counts = np.unique(r[:, b], return_counts=True)[1]
        distinct.append(math.factorial(k) // math.prod(math.factorial(int(c)) for c in counts))
    log_work = math.log(sum(distinct)) + (k - 1) * math.log(int(r.max(axis=0).sum()) + 1)
    return (math.exp(log_work) if log_work < 700 else math.inf), distinct


def _null_distribution(r: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(statistic values, their probabilities, number of arrangements) of sum_j R_j^2 for integer ranks r (k, N)."""
    k, n = r.shape
    if k == 1:
        return np.array([int(r.sum()) ** 2]), np.array([1.0]), 1
    dist, axes, last, n_arr = _rank_sum_distribution(r)
    sum_sq = sum(a.astype(np.int64) ** 2 for a in axes)
    stat = np.broadcast_to(sum_sq + last * last, dist.shape)
    keep = (dist > 0) & (last >= 0)
    return stat[keep], dist[keep], n_arr


def _rank_sum_distribution(r: np.ndarray) -> tuple[np.ndarray, list, np.ndarray, int]:
    """The joint null distribution of the rank sums of integer ranks r (k, N), k >= 2: ``(dist, axes, last,
    n_arrangements)`` with ``dist`` the probabilities on the grid of the first k - 1 rank sums, ``axes`` their
    values (open grids) and ``last`` the k-th rank sum at each grid point (the total minus the others)."""
    k, n = r.shape
    total = int(r.sum())
    dist = np.ones((1,) * (k - 1))
    n_arr = 1
    for b in range(n):
        perms = _arrangements(r[:, b])
        n_arr *= len(perms)
        grow = int(r[:, b].max())
        new = np.zeros(tuple(s + grow for s in dist.shape))
        weight = dist / len(perms)
        for p in perms:  # a task's arrangements (at most k!), not replicates or items
            new[tuple(slice(int(p[i]), int(p[i]) + dist.shape[i]) for i in range(k - 1))] += weight
        dist = new
    axes = [a.astype(np.int64) for a in np.ogrid[tuple(slice(0, s) for s in dist.shape)]]
    last = total - sum(axes)
    return dist, axes, last, n_arr


def _enumerate(r: np.ndarray, observed: int) -> tuple[float, int]:
    stat, prob, n_arr = _null_distribution(r)
    return min(float(prob[stat >= observed].sum()), 1.0), n_arr


def _monte_carlo(r: np.ndarray, observed: int, n_resamples: int, gen) -> tuple[float, float]:
    k, n = r.shape
    chunk = max(1, min(n_resamples, 2_000_000 // max(k * n, 1)))
    hits, done = 0, 0
    while done < n_resamples:
        c = min(chunk, n_resamples - done)
        drawn = gen.permuted(np.broadcast_to(r, (c, k, n)).copy(), axis=1)  # each task shuffled on its own
        hits += int(np.count_nonzero(_statistic(drawn) >= observed))
        done += c
    p = (hits + 1.0) / (n_resamples + 1.0)
    return p, math.sqrt(p * (1.0 - p) / n_resamples)


def friedman_permutation_p_value(ranks, *, method: str = "auto", n_resamples: int = 9_999, rng=None,
                                max_work: float = EXACT_MAX_WORK) -> PermutationPValue:
    """Permutation p-value of the Friedman statistic from a (models x tasks) matrix of within-task ranks.

    Parameters
    ----------
    ranks : array_like, shape (k, N)
        Ranks of k models within each of N tasks (midranks for ties), as from ``rank_matrix``.
    method : {'auto', 'exact', 'monte-carlo'}
        'exact': enumerate every arrangement (ValueError when that exceeds ``max_work``); 'monte-carlo': draw
        ``n_resamples`` arrangements; 'auto': enumerate when feasible, else Monte Carlo.
    n_resamples : int, default 9999
        Monte Carlo draws.
    rng : None, int or numpy.random.Generator
        Monte Carlo only.
    max_work : float
        Enumeration budget (arrangements per task summed over tasks, times the size of the rank-sum grid).

    Returns
    -------
    PermutationPValue

    Notes
    -----
    The null distribution is conditional on the observed ties: each task's (mid)ranks are permuted among the
    models, every distinct arrangement equally likely, independently across tasks (Hollander, Wolfe & Chicken
    2014, section 7.1; the tables of Friedman 1937). Enumeration convolves the joint distribution of the first
    k - 1 rank sums task by task, so its cost grows as N^(k-1) rather than (k!)^N: 3 to 5 models over a handful of
    tasks are instant. The Monte Carlo p-value is (1 + hits) / (1 + n_resamples) (Phipson & Smyth 2010), valid
    for any number of draws; its standard error is sqrt(p (1 - p) / n_resamples).

    References
    ----------
    Friedman, M. (1937). The use of ranks to avoid the assumption of normality implicit in the analysis of
    variance. JASA 32, 675-701.
    Hollander, M., Wolfe, D. A. & Chicken, E. (2014). Nonparametric Statistical Methods, 3rd ed. Wiley.
    Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero. Stat. Appl. Genet. Mol. Biol. 9.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.tasks import friedman_permutation_p_value, rank_matrix
    >>> scores = np.array([[0.71, 0.64, 0.80, 0.55, 0.62, 0.77],
    ...                    [0.68, 0.60, 0.79, 0.50, 0.60, 0.71],
    ...                    [0.70, 0.65, 0.78, 0.51, 0.61, 0.70]])
    >>> res = friedman_permutation_p_value(rank_matrix(scores))
    >>> round(res.p_value, 4), res.method
    (0.0289, 'enumeration')
    """
    method = check_choice(method, ("auto", "exact", "monte-carlo"), "method")
    r = _check_ranks(ranks)
    r = _integer_ranks(r)
    observed = int(_statistic(r))
    work, distinct = _work(r)
    if method == "exact" and work > max_work:
        raise ArgumentError(words("exact enumeration is too large here ({value} models, {value2} tasks); use {arg:method='monte-carlo'}.", value=r.shape[0], value2=r.shape[1]))
    k, n = r.shape
    distinct_ranks = bool(np.all(np.sort(r, axis=0) == np.arange(k)[:, None]))
    if method != "monte-carlo" and distinct_ranks and np.all(r == r[:, :1]):
        # identical rankings without ties: by the rearrangement inequality only the k! arrangements that order
        # every task alike reach the maximum of sum_j R_j^2, so p = k! / (k!)^N exactly
        log_p = -(n - 1) * math.lgamma(k + 1)
        return PermutationPValue(math.exp(log_p), 0.0, "closed-form", math.factorial(k) ** n)
    if method != "monte-carlo" and work <= max_work:
        p, n_arr = _enumerate(r, observed)
        return PermutationPValue(p, 0.0, "enumeration", n_arr)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=99)
    p, se = _monte_carlo(r, observed, n_resamples, as_generator(rng))
    return PermutationPValue(p, se, "monte-carlo", n_resamples)
