"""The one rank function of evalband: ranks along an axis, with the tie rule stated.

Leaderboards, rank distributions and P(best) use competition ranks (``ties='min'``: tied models share the best of
their ranks, '1224'); tests over tasks and the mean-rank aggregate use mid-ranks (``ties='average'``: tied models
share the mean of their ranks, '1 2.5 2.5 4', as Friedman's test and Demsar 2006 define them). Values equal to 12
significant digits (relative to the largest magnitude along the axis) count as tied, so that equal aggregates
summed in a different order do not rank apart. NaN values get NaN ranks (``'average'``) and are ranked after every
number.
"""

from __future__ import annotations

import numpy as np

from ._validate import ArgumentError
from ._words import words

__all__ = ["ranks", "TIES"]

#: tie rules of :func:`ranks`
TIES = ("min", "average")


def ranks(values, *, axis: int = -1, higher_is_better: bool = True, ties: str = "min") -> np.ndarray:
    """Rank of each entry along ``axis``; 1 = best.

    Parameters
    ----------
    values : array_like
    axis : int
        The axis of the things ranked (models).
    higher_is_better : bool
    ties : {'min', 'average'}
        'min': competition ranks, tied entries share the best of their ranks (int array). 'average': mid-ranks
        (float array).

    Returns
    -------
    numpy.ndarray
        The shape of ``values``.

    Examples
    --------
    >>> ranks([0.7, 0.9, 0.7, 0.1])
    array([2, 1, 2, 4])
    >>> ranks([0.7, 0.9, 0.7, 0.1], ties="average")
    array([2.5, 1. , 2.5, 4. ])
    """
    if ties not in TIES:
        raise ArgumentError(words('`{arg:ties}` must be one of {value}; got {ties!r}.', value=', '.join(map(repr, TIES)), ties=ties))
    v = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(v)
    scale = np.max(np.abs(np.where(finite, v, 0.0)), axis=axis, keepdims=True)
    scale = np.where(scale > 0, scale, 1.0)
    key = np.round(v / scale, 12)
    key = -key if higher_is_better else key
    nan = np.isnan(v)
    if nan.any():
        key = np.where(nan, np.inf, key)
    out = _rankdata(key, ties, axis)
    if ties == "min":
        return out.astype(np.int64)
    return np.where(nan, np.nan, out) if nan.any() else out


def _rankdata(key: np.ndarray, ties: str, axis: int) -> np.ndarray:
    """``scipy.stats.rankdata(key, method=ties, axis=axis)`` for NaN-free ``key`` (the same integers and
    half-integers: 'min' int64, 'average' float64), without importing ``scipy.stats``: sort once along the axis,
    mark where a run of equal values starts and ends, and give each entry its run's first (or mean) rank."""
    a = np.moveaxis(key, axis, -1)
    n = a.shape[-1]
    order = np.argsort(a, axis=-1, kind="stable")
    s = np.take_along_axis(a, order, axis=-1)
    starts = np.ones(s.shape, dtype=bool)
    starts[..., 1:] = s[..., 1:] != s[..., :-1]
    pos = np.broadcast_to(np.arange(n), s.shape)
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=-1)
    if ties == "min":
        rank = first + 1
    else:
        ends = np.ones(s.shape, dtype=bool)
        ends[..., :-1] = starts[..., 1:]
        last = np.minimum.accumulate(np.where(ends, pos, n - 1)[..., ::-1], axis=-1)[..., ::-1]
        rank = (first + last + 2) / 2
    out = np.empty(s.shape, dtype=rank.dtype)
    np.put_along_axis(out, order, rank, axis=-1)
    return np.moveaxis(out, -1, axis)
