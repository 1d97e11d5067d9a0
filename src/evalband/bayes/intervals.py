"""Summaries of posterior draws: equal-tailed and highest-density intervals, ranks, pairwise differences.

Every function works along axis 0 (the draws) and is vectorized over the remaining axes (models, tasks, pairs).
"""

from __future__ import annotations

import numpy as np

__all__ = ["equal_tailed", "hdi", "ranks", "rank_probabilities", "pair_indices", "verdict"]


def equal_tailed(draws, confidence_level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed credible interval: the (1-c)/2 and (1+c)/2 quantiles of the draws along axis 0."""
    draws = np.asarray(draws, dtype=np.float64)
    q = np.quantile(draws, [(1 - confidence_level) / 2, (1 + confidence_level) / 2], axis=0)
    return q[0], q[1]


def hdi(draws, confidence_level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Highest-density interval: the shortest interval holding ``ceil(c * D)`` of the D draws along axis 0.

    Notes
    -----
    Valid for unimodal posteriors (for multimodal ones the highest-density *region* may be a union of
    intervals). Same definition as ``arviz.hdi`` for a single mode.
    """
    x = np.sort(np.asarray(draws, dtype=np.float64), axis=0)
    d = x.shape[0]
    k = int(np.ceil(confidence_level * d))
    k = min(max(k, 1), d)
    if k == d:
        return x[0], x[-1]
    widths = x[k - 1:] - x[: d - k + 1]
    start = np.argmin(widths, axis=0)
    low = np.take_along_axis(x, start[None], axis=0)[0]
    high = np.take_along_axis(x, (start + k - 1)[None], axis=0)[0]
    return low, high


def ranks(scores) -> np.ndarray:
    """Rank of each model in each draw, 1 = best (highest score); ``scores`` shaped (D, M)."""
    order = np.argsort(-np.asarray(scores), axis=1, kind="stable")
    out = np.empty_like(order)
    np.put_along_axis(out, order, np.arange(1, order.shape[1] + 1)[None, :].repeat(order.shape[0], 0), axis=1)
    return out


def rank_probabilities(rank_draws) -> np.ndarray:
    """P(rank = r) for each model (rows) and rank r = 1..M (columns) from (D, M) rank draws."""
    d, m = rank_draws.shape
    counts = np.zeros((m, m))
    np.add.at(counts, (np.broadcast_to(np.arange(m), (d, m)).ravel(), rank_draws.ravel() - 1), 1.0)
    return counts / d


def pair_indices(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (a, b) of every unordered pair a < b of m models."""
    a, b = np.triu_indices(m, k=1)
    return a, b


def verdict(low, high, name_a, name_b) -> np.ndarray:
    """'A > B' when the interval of A - B lies above 0, 'A < B' when below, else 'undecided'."""
    low, high = np.asarray(low), np.asarray(high)
    out = np.full(low.shape, "undecided", dtype=object)
    out[low > 0] = [f"{a} > {b}" for a, b in zip(np.asarray(name_a)[low > 0], np.asarray(name_b)[low > 0])]
    out[high < 0] = [f"{a} < {b}" for a, b in zip(np.asarray(name_a)[high < 0], np.asarray(name_b)[high < 0])]
    return out
