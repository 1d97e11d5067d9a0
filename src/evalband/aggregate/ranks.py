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

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.aggregate import task_ranks
    >>> scores = np.array([[0.81, 0.60, 0.70], [0.75, 0.60, 0.72], [0.70, 0.55, 0.90]])
    >>> task_ranks(scores)
    array([[1. , 1.5, 3. ],
           [2. , 1.5, 2. ],
           [3. , 3. , 1. ]])
    """
    return ranks(scores, axis=-2, higher_is_better=True, ties="average")


def binned_task_ranks(scores, bin_width: float) -> np.ndarray:
    """Ranks after putting scores into bins ``[k w, (k + 1) w)``: models in the same bin tie.

    The bins are fixed (``floor(score / w)``, with a 1e-9 guard against floating-point error at bin edges), so ties
    are transitive; two scores closer than ``w`` tie only when they share a bin.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.aggregate import binned_task_ranks
    >>> scores = np.array([[0.812, 0.60], [0.815, 0.64], [0.70, 0.65]])
    >>> binned_task_ranks(scores, 0.01)
    array([[1.5, 3. ],
           [1.5, 2. ],
           [3. , 1. ]])
    """
    if not np.isfinite(bin_width) or bin_width <= 0:
        raise ArgumentError(f"`bin_width` must be a positive number; got {bin_width!r}.")
    s = np.asarray(scores, dtype=np.float64)
    return task_ranks(np.floor(s / bin_width + 1e-9))


def task_win_rates(scores) -> np.ndarray:
    """HELM win rate per task: the share of the other models this model beats, ties counting half.

    ``(M - rank) / (M - 1)`` with average ranks; (..., M, T) -> (..., M, T).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.aggregate import task_win_rates
    >>> scores = np.array([[0.81, 0.60, 0.70], [0.75, 0.60, 0.72], [0.70, 0.55, 0.90]])
    >>> task_win_rates(scores)
    array([[1.  , 0.75, 0.  ],
           [0.5 , 0.75, 0.5 ],
           [0.  , 0.  , 1.  ]])
    """
    s = np.asarray(scores, dtype=np.float64)
    m = s.shape[-2]
    if m < 2:
        raise ArgumentError("win rates need at least 2 models.")
    return (m - task_ranks(s)) / (m - 1)
