"""Rank-based aggregates across tasks: mean rank, binned rank, HELM's mean win rate."""

from __future__ import annotations

import numpy as np
from .._ranks import ranks
from .._validate import ArgumentError

__all__ = ["task_ranks", "binned_task_ranks", "task_win_rates"]


def task_ranks(scores) -> np.ndarray:
    """Rank of each model within each task, 1 = best (highest score), ties sharing the average rank.

    ``scores`` (..., M, T) -> ranks (..., M, T) (:func:`evalband._ranks.ranks` with ``ties='average'`` along the
    models axis). NaN scores get NaN ranks.
    """
    return ranks(scores, axis=-2, higher_is_better=True, ties="average")


def binned_task_ranks(scores, bin_width: float) -> np.ndarray:
    """Ranks after putting scores into bins ``[k w, (k + 1) w)``: models in the same bin tie.

    The bins are fixed (``floor(score / w)``, with a 1e-9 guard against floating-point error at bin edges), so ties
    are transitive; two scores closer than ``w`` tie only when they share a bin.
    """
    if not np.isfinite(bin_width) or bin_width <= 0:
        raise ArgumentError(f"`bin_width` must be a positive number; got {bin_width!r}.")
    s = np.asarray(scores, dtype=np.float64)
    return task_ranks(np.floor(s / bin_width + 1e-9))


def task_win_rates(scores) -> np.ndarray:
    """HELM win rate per task: the share of the other models this model beats, ties counting half.

    ``(M - rank) / (M - 1)`` with average ranks; (..., M, T) -> (..., M, T).
    """
    s = np.asarray(scores, dtype=np.float64)
    m = s.shape[-2]
    if m < 2:
        raise ArgumentError("win rates need at least 2 models.")
    return (m - task_ranks(s)) / (m - 1)
