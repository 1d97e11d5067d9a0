"""Array cores of the frontier: the Pareto set on point estimates, and domination decided with confidence.

Everything works on (M,) point values and (M, M) matrices of p-values, entry ``[j, k]`` being about "j dominates
k"; no labels, no tables.
"""

from __future__ import annotations

import numpy as np

from ..comparison import adjust_p_values

__all__ = ["pareto_front", "point_dominance", "ordered_pairs", "decide_dominance"]


def point_dominance(goodness, cost) -> np.ndarray:
    """``[j, k]``: j dominates k on the point values (at least as good and at most as costly, better in one).

    ``goodness`` is oriented so that larger is better. NaN values dominate nothing and are dominated by nothing.
    """
    g = np.asarray(goodness, dtype=np.float64)
    c = np.asarray(cost, dtype=np.float64)
    ge = g[:, None] >= g[None, :]
    le = c[:, None] <= c[None, :]
    strict = (g[:, None] > g[None, :]) | (c[:, None] < c[None, :])
    dom = ge & le & strict
    np.fill_diagonal(dom, False)
    return dom


def pareto_front(goodness, cost) -> np.ndarray:
    """Whether each model is on the Pareto frontier of (goodness up, cost down): no other model dominates it.

    Models with identical points are all on the frontier when no third model dominates them.

    Examples
    --------
    >>> pareto_front([0.9, 0.8, 0.7, 0.6], [3.0, 1.0, 2.0, 1.0])
    array([ True,  True, False, False])
    """
    return ~point_dominance(goodness, cost).any(axis=0)


def ordered_pairs(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair (j, k), j != k: index arrays of length ``m (m - 1)``."""
    j, k = np.nonzero(~np.eye(m, dtype=bool))
    return j, k


def decide_dominance(p_quality, p_cost, *, confidence_level: float, correction: str = "holm"):
    """Domination with confidence from one-sided p-values, with multiplicity control over the ordered pairs.

    Parameters
    ----------
    p_quality : array (M, M)
        ``[j, k]``: p-value of H0 "j is worse than k by the margin or more" against "j is at least as good
        within the margin".
    p_cost : array (M, M)
        ``[j, k]``: p-value of H0 "j costs at least as much as k" against "j is cheaper".
    confidence_level : float
    correction : {'holm', 'bonferroni', 'bh', 'none'}
        Over the family of all ``M (M - 1)`` ordered pairs (diagonal and NaN entries are left out).

    Returns
    -------
    p_value : numpy.ndarray (M, M)
        The intersection-union p-value ``max(p_quality, p_cost)`` (NaN on the diagonal).
    p_adjusted : numpy.ndarray (M, M)
    decided : numpy.ndarray of bool (M, M)
        ``[j, k]``: j dominates k with confidence, ``p_adjusted <= 1 - confidence_level``.

    Notes
    -----
    "j dominates k" is the intersection of two alternatives, so its null is the union of two nulls; the
    intersection-union test rejects it when both component tests reject at level alpha, i.e. when
    ``max(p_quality, p_cost) <= alpha``, with no split of alpha between the two (Berger 1982). Holm's step-down
    over the ordered pairs then keeps the chance of any false domination claim below alpha whatever the
    dependence between pairs.

    References
    ----------
    Berger, R. L. (1982). Multiparameter hypothesis testing and acceptance sampling. Technometrics 24, 295-300.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J. Statist. 6, 65-70.
    """
    pq = np.asarray(p_quality, dtype=np.float64)
    pc = np.asarray(p_cost, dtype=np.float64)
    m = pq.shape[0]
    p = np.fmax(pq, pc)
    p = np.where(np.isnan(pq) | np.isnan(pc), np.nan, p)
    p[np.eye(m, dtype=bool)] = np.nan
    adj = adjust_p_values(p, method=correction) if correction != "none" else p.copy()
    decided = np.nan_to_num(adj, nan=1.0) <= 1.0 - confidence_level
    return p, adj, decided
