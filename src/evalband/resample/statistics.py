"""Per-task statistics the engine can resample: item means, and any statistic of summed per-item columns.

A :class:`Statistic` is computed from **sufficient columns**: each item (or cluster) contributes a small vector of
numbers, the engine sums those vectors with the bootstrap counts as weights (one matrix product per task and
block), and ``finish`` turns the sums into the statistic. The item mean is ``sum(score) / n``; F1 is
``2 tp / (2 tp + fp + fn)`` from per-item true-positive, false-positive and false-negative indicators; macro-F1
averages per-class F1 from per-class indicators; Matthews correlation, precision, recall, corpus BLEU (clipped
n-gram matches and totals, hypothesis and reference lengths) all fit this form.

Writing your own::

    from evalband.resample import Statistic

    def matthews_columns(cols):          # cols: name -> (models, items) arrays
        p, y = cols["prediction"].astype(bool), cols["label"].astype(bool)
        return np.stack([p & y, p & ~y, ~p & y, ~p & ~y], axis=-1).astype(float)

    def matthews_finish(sums, total):    # sums (..., models, 4), total (..., 1)
        tp, fp, fn, tn = np.moveaxis(sums, -1, 0)
        den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        return np.divide(tp * tn - fp * fn, den, out=np.zeros_like(den), where=den > 0)

    mcc = Statistic("matthews", ("prediction", "label"), matthews_columns, matthews_finish)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from .._validate import ArgumentError, ArgumentTypeError, check_choice
from ..display.reprs import displayed

__all__ = ["Statistic", "STATISTICS", "get_statistic"]


@displayed
@dataclass(frozen=True, repr=False)
class Statistic:
    """A per-task statistic computed from sums of per-item sufficient columns.

    Parameters
    ----------
    name : str
        Shown in results and reports.
    requires : tuple of str
        The item columns it reads (``'score'`` for a :class:`~evalband.data.table.ResultsTable`; any names for
        :class:`~evalband.resample.ItemColumns`).
    columns : callable
        ``columns(cols) -> (n_models, n_items, k)`` float array, where ``cols`` maps each required name to a
        ``(n_models, n_items)`` array of one task (a label column may be ``(n_items,)``). Must be additive:
        the statistic of a set of items depends on the items only through the sum of their rows.
    finish : callable
        ``finish(sums, total) -> (..., n_models)`` from ``sums`` shaped ``(..., n_models, k)`` and ``total``
        (the number of items summed) shaped ``(..., 1)``. Must broadcast over leading axes.

    Notes
    -----
    The bootstrap of such a statistic is exact (each replicate equals the statistic recomputed on the resampled
    items), because the statistic depends on the items only through these sums. Statistics that are not
    functions of sums (a median of item scores, an IQM over runs) use :func:`evalband.resample.bootstrap_items`.
    """

    name: str
    requires: tuple[str, ...]
    columns: Callable
    finish: Callable

    def __post_init__(self):
        if not callable(self.columns) or not callable(self.finish):
            raise ArgumentTypeError("`columns` and `finish` of a Statistic must be callables.")
        object.__setattr__(self, "requires", tuple(self.requires))


def _mean_columns(cols: Mapping[str, np.ndarray]) -> np.ndarray:
    return np.asarray(cols["score"], dtype=np.float64)[..., None]


def _mean_finish(sums: np.ndarray, total: np.ndarray) -> np.ndarray:
    return sums[..., 0] / total


def _binary(values, name: str) -> np.ndarray:
    a = np.asarray(values)
    if a.dtype == bool:
        return a
    if not np.isin(a, (0, 1)).all():
        raise ArgumentError(f"column '{name}' must hold 0/1 or booleans for F1; use 'macro-f1' for class labels.")
    return a.astype(bool)


def _f1_columns(cols: Mapping[str, np.ndarray]) -> np.ndarray:
    p = _binary(cols["prediction"], "prediction")
    y = np.broadcast_to(_binary(cols["label"], "label"), p.shape)
    return np.stack([p & y, p & ~y, ~p & y], axis=-1).astype(np.float64)


def _f1_from(tp, fp, fn):
    den = 2.0 * tp + fp + fn
    return np.divide(2.0 * tp, den, out=np.zeros(np.shape(den)), where=den > 0)


def _f1_finish(sums: np.ndarray, total: np.ndarray) -> np.ndarray:
    return _f1_from(sums[..., 0], sums[..., 1], sums[..., 2])


def _macro_f1_columns(cols: Mapping[str, np.ndarray]) -> np.ndarray:
    p = np.asarray(cols["prediction"])
    y = np.broadcast_to(np.asarray(cols["label"]), p.shape)
    classes = np.unique(np.concatenate([p.ravel(), y.ravel()]))
    pc = p[..., None] == classes
    yc = y[..., None] == classes
    out = np.stack([pc & yc, pc & ~yc, ~pc & yc], axis=-1)  # (M, n, K, 3)
    return out.reshape(*p.shape, -1).astype(np.float64)


def _macro_f1_finish(sums: np.ndarray, total: np.ndarray) -> np.ndarray:
    s = sums.reshape(*sums.shape[:-1], -1, 3)
    tp, fp, fn = s[..., 0], s[..., 1], s[..., 2]
    present = (tp + fp + fn) > 0
    f1 = _f1_from(tp, fp, fn)
    n_present = present.sum(axis=-1)
    return np.divide((f1 * present).sum(axis=-1), n_present, out=np.full(n_present.shape, np.nan),
                     where=n_present > 0)


#: built-in statistics by name
STATISTICS: dict[str, Statistic] = {
    "mean": Statistic("mean", ("score",), _mean_columns, _mean_finish),
    "f1": Statistic("f1", ("prediction", "label"), _f1_columns, _f1_finish),
    "macro-f1": Statistic("macro-f1", ("prediction", "label"), _macro_f1_columns, _macro_f1_finish),
}


def get_statistic(statistic) -> Statistic:
    """A :class:`Statistic` from a name ('mean', 'f1', 'macro-f1') or a Statistic (returned unchanged).

    Notes
    -----
    'f1' is the binary F1 of the positive class (1/True) with F1 = 0 when a replicate has no positive prediction
    and no positive label (scikit-learn's ``zero_division=0``). 'macro-f1' averages per-class F1 over the classes
    present (as label or prediction) in the replicate, as ``sklearn.metrics.f1_score(average='macro')`` does on
    the resampled items.

    Examples
    --------
    >>> from evalband.resample import get_statistic
    >>> f1 = get_statistic("f1")
    >>> f1.name, f1.requires
    ('f1', ('prediction', 'label'))
    >>> get_statistic(f1) is f1
    True
    """
    if isinstance(statistic, Statistic):
        return statistic
    if callable(statistic):
        raise ArgumentTypeError("`statistic` must be a name or a Statistic (sufficient columns + finish); for a function"
                        " of the resampled item scores themselves use bootstrap_items(..., statistic=fn).")
    return STATISTICS[check_choice(statistic, STATISTICS, "statistic")]
