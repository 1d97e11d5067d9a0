"""Summaries of posterior draws: equal-tailed and highest-density intervals, ranks, pairwise differences.

Every function works along axis 0 (the draws) and is vectorized over the remaining axes (models, tasks, pairs).
"""

from __future__ import annotations

import numpy as np

from .._ranks import ranks as _ranks

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


def ranks(scores, *, higher_is_better: bool = True) -> np.ndarray:
    """Rank of each model in each draw, 1 = best; ``scores`` shaped (D, M); ties share the best of their ranks
    (:func:`evalband._ranks.ranks` with ``ties='min'``, the rule of every leaderboard in evalband)."""
    return _ranks(scores, axis=1, higher_is_better=higher_is_better, ties="min")


def rank_probabilities(rank_draws) -> np.ndarray:
    """P(rank = r) for each model (rows) and rank r = 1..M (columns) from (D, M) rank draws
    (:func:`evalband.ranking.rank_distribution`, the one rank distribution)."""
    from ..ranking.distribution import rank_distribution

    return rank_distribution(rank_draws)


def pair_indices(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (a, b) of every unordered pair a < b of m models (:func:`evalband.comparison.pair_indices`)."""
    from ..comparison.pairs import pair_indices as pairs

    return pairs(m)


def verdict(low, high, *, higher_is_better: bool = True) -> np.ndarray:
    """The verdict words of every comparison ('A better', 'B better', 'not yet decided'): A better when the
    credible (or confidence) interval of A - B lies beyond 0 in the better direction
    (:func:`evalband.comparison.verdict` with no margin)."""
    from ..comparison.verdict import verdict as _verdict

    return _verdict(low, high, higher_is_better=higher_is_better)
