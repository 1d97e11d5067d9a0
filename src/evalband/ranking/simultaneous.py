"""Simultaneous rank intervals and tiers from simultaneous pairwise difference intervals.

If intervals for all pairwise differences ``theta_j - theta_k`` hold jointly with probability ``1 - alpha``, then
with the same probability every model k has at least ``L_k`` models truly better (those whose interval for
``theta_j - theta_k`` lies above 0) and at least ``W_k`` truly worse, so the true rank of every model lies in
``[1 + L_k, M - W_k]`` at once (Klein, Wright & Wieczorek 2020). Here the pairwise intervals are the bootstrap
max-t intervals of :func:`evalband.comparison.max_t_intervals` (the bootstrap construction of Mogstad, Romano, Shaikh &
Wilhelm 2024), or Bonferroni-corrected percentile intervals.
"""

from __future__ import annotations

import numpy as np

__all__ = ["better_matrix", "simultaneous_rank_intervals", "tiers"]


def better_matrix(low, high, ia, ib, n_models: int, *, higher_is_better: bool = True,
                  margin: float = 0.0) -> np.ndarray:
    """``S[j, k]`` True when model j is significantly better than model k (by more than ``margin``).

    Parameters
    ----------
    low, high : array_like, shape (P,)
        Interval for ``theta[ia] - theta[ib]`` of each pair.
    ia, ib : array_like of int, shape (P,)

    Examples
    --------
    >>> from evalband.ranking import better_matrix
    >>> low, high = [-0.01, 0.03, 0.01], [0.05, 0.09, 0.06]
    >>> better_matrix(low, high, [0, 0, 1], [1, 2, 2], 3)
    array([[False, False,  True],
           [False, False,  True],
           [False, False, False]])
    """
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    if not higher_is_better:
        low, high = -high, -low
    s = np.zeros((n_models, n_models), dtype=bool)
    s[ia, ib] = low > margin
    s[ib, ia] = high < -margin
    return s


def simultaneous_rank_intervals(better) -> tuple[np.ndarray, np.ndarray]:
    """Rank intervals ``[1 + #significantly better, M - #significantly worse]`` from a better-matrix.

    Returns
    -------
    low, high : numpy.ndarray of int, shape (M,)

    References
    ----------
    Klein, M., Wright, T. & Wieczorek, J. (2020). A joint confidence region for an overall ranking of populations.
    JRSS C 69(3), 589-606.
    Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks with applications to
    mobility across neighbourhoods and academic achievement across countries. Rev. Econ. Stud. 91(1), 476-518.

    Examples
    --------
    >>> from evalband.ranking import better_matrix, simultaneous_rank_intervals
    >>> better = better_matrix([-0.01, 0.03, 0.01], [0.05, 0.09, 0.06], [0, 0, 1], [1, 2, 2], 3)
    >>> low, high = simultaneous_rank_intervals(better)
    >>> low, high
    (array([1, 1, 3]), array([2, 2, 3]))
    """
    s = np.asarray(better, dtype=bool)
    m = s.shape[0]
    n_better = s.sum(axis=0)  # column k: models better than k
    n_worse = s.sum(axis=1)
    return (1 + n_better).astype(np.int64), (m - n_worse).astype(np.int64)


def tiers(estimates, better, *, higher_is_better: bool = True) -> np.ndarray:
    """Tiers of mutually indistinguishable models (1 = top tier).

    Models are taken in order of their estimate; a new tier starts when the next model is significantly worse than
    any member of the current tier. Within a tier no pair is significantly different, and every model of a tier is
    significantly worse than at least one model of the tier above it.

    Returns
    -------
    numpy.ndarray of int, shape (M,)

    Notes
    -----
    Indistinguishability is not transitive (A ~ B and B ~ C while A > C), so tiers are one readable partition
    among several; the simultaneous rank intervals are the complete statement.

    Examples
    --------
    >>> from evalband.ranking import better_matrix, tiers
    >>> better = better_matrix([-0.01, 0.03, 0.01], [0.05, 0.09, 0.06], [0, 0, 1], [1, 2, 2], 3)
    >>> tiers([0.80, 0.78, 0.74], better)
    array([1, 1, 2])
    """
    est = np.asarray(estimates, dtype=np.float64)
    s = np.asarray(better, dtype=bool)
    order = np.argsort(-est if higher_is_better else est, kind="stable")
    tier = np.zeros(est.size, dtype=np.int64)
    current: list[int] = []
    level = 1
    for k in order:  # a loop over models, not replicates
        if current and (s[current, k].any() or s[k, current].any()):
            level += 1
            current = []
        current.append(int(k))
        tier[k] = level
    return tier
