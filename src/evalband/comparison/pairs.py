"""The one enumeration of model pairs: ordered best first, and the position of a pair among all pairs."""

from __future__ import annotations

import numpy as np

__all__ = ["pair_indices", "pair_position", "control_pairs"]


def pair_indices(order) -> tuple[np.ndarray, np.ndarray]:
    """All pairs ``(i, j)`` of models, ``i`` before ``j`` in ``order``.

    ``order`` lists model indices (best first, for pairs oriented best first) or is an int ``m`` for the pairs
    ``i < j`` of ``range(m)``.

    Examples
    --------
    >>> pair_indices(3)
    (array([0, 0, 1]), array([1, 2, 2]))
    """
    order = np.arange(order) if np.ndim(order) == 0 else np.asarray(order)
    i, j = np.triu_indices(len(order), k=1)
    return order[i], order[j]


def pair_position(ia, ib, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Position of each pair ``(ia, ib)`` in the ``i < j`` enumeration of ``m`` models, and whether it is
    flipped (``ia > ib``)."""
    ia, ib = np.asarray(ia), np.asarray(ib)
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    return lo * m - lo * (lo + 1) // 2 + (hi - lo - 1), ia > ib


def control_pairs(m: int, control: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(control, j)`` for every other model ``j``."""
    others = np.array([j for j in range(m) if j != control], dtype=np.int64)
    return np.full(others.size, control, dtype=np.int64), others
