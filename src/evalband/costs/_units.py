"""Array cores for measures on resampled units (questions, prompts, battles): the mean and the quantiles of each
model's cells under bootstrap counts of the units.

A *cell* is one (unit, model) pair with a value: the model's cost (or latency) on that unit, e.g. its response to
one prompt. A replicate weighs every unit by how often it was drawn (counts ``(c, U)``), so a cell counts as often
as its unit. Everything is vectorized over replicates and models: the mean is a matrix product, the quantiles come
from one sort of the cells (by model, then value) and one ``searchsorted`` on the cumulative counts.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Cells", "cell_means", "cell_quantiles", "cell_jackknife"]


class Cells:
    """Cells sorted by model then value, with per-unit sums for the mean.

    Parameters
    ----------
    unit, model : array of int, shape (n,)
        The unit (in ``[0, n_units)``) and model (in ``[0, n_models)``) of each cell; each pair at most once.
    value : array of float, shape (n,)
    n_units, n_models : int
    """

    def __init__(self, unit, model, value, n_units: int, n_models: int):
        unit = np.asarray(unit, dtype=np.int64)
        model = np.asarray(model, dtype=np.int64)
        value = np.asarray(value, dtype=np.float64)
        order = np.lexsort((value, model))
        self.unit, self.model, self.value = unit[order], model[order], value[order]
        self.n_units, self.n_models = int(n_units), int(n_models)
        self.starts = np.searchsorted(self.model, np.arange(self.n_models), side="left")
        self.ends = np.searchsorted(self.model, np.arange(self.n_models), side="right")
        self.sums = np.zeros((self.n_units, self.n_models))
        np.add.at(self.sums, (self.unit, self.model), self.value)
        self.present = np.zeros((self.n_units, self.n_models))
        np.add.at(self.present, (self.unit, self.model), 1.0)

    @property
    def counts_per_model(self) -> np.ndarray:
        return (self.ends - self.starts).astype(np.float64)


def cell_means(cells: Cells, counts) -> np.ndarray:
    """Each model's mean over its cells, every cell weighted by its unit's count: ``(c, U) -> (c, M)`` (NaN where
    a replicate drew none of the model's units)."""
    w = np.asarray(counts, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w @ cells.sums) / (w @ cells.present)


def cell_jackknife(cells: Cells) -> np.ndarray:
    """Delete-one-unit means, ``(U, M)``: each model's mean without the unit (for BCa's acceleration)."""
    total, n = cells.sums.sum(axis=0), cells.present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (total[None, :] - cells.sums) / (n[None, :] - cells.present)


#: cells x replicates handled at once (bounds memory and keeps the running counts in int32)
CHUNK_ELEMENTS = 4_000_000


def cell_quantiles(cells: Cells, counts, quantiles) -> np.ndarray:
    """Each model's quantiles of its cells expanded by the unit counts (the sample a replicate draws), with
    :func:`numpy.quantile`'s linear interpolation: ``(c, U) -> (c, M, Q)``; NaN where a model has no drawn cell.

    Examples
    --------
    >>> cells = Cells([0, 1, 2, 0, 1], [0, 0, 0, 1, 1], [3.0, 1.0, 2.0, 10.0, 20.0], 3, 2)
    >>> cell_quantiles(cells, [[1, 1, 1], [0, 2, 1]], [0.5])[..., 0]
    array([[ 2., 15.],
           [ 1., 20.]])
    """
    w = np.asarray(counts)
    q = np.asarray(quantiles, dtype=np.float64)
    c, n = w.shape[0], cells.value.size
    if n == 0:
        return np.full((c, cells.n_models, q.size), np.nan)
    if not np.issubdtype(w.dtype, np.integer):
        as_int = w.astype(np.int64)
        if not np.array_equal(as_int, w):
            raise ValueError("bootstrap counts must be whole numbers")
        w = as_int
    rows = max(1, CHUNK_ELEMENTS // n)
    top = int(w.max()) if w.size else 0
    dtype = np.int32 if rows * n * max(top, 1) < 2**31 else np.int64
    w = w.astype(dtype, copy=False)
    out = np.empty((c, cells.n_models, q.size))
    for r in range(0, c, rows):
        out[r:r + rows] = _quantiles(cells, w[r:r + rows], q, dtype)
    return out


def _quantiles(cells, w, q, dtype):
    c, n = w.shape[0], cells.value.size
    # how often each cell is drawn, rows laid end to end: the running count over the whole chunk keeps increasing
    # (counts are >= 0), so one searchsorted finds the k-th drawn value of any model in any row
    running = np.cumsum(np.take(w, cells.unit, axis=1), axis=None, dtype=dtype)
    row = (np.arange(c, dtype=np.int64) * n)[:, None]
    first, last = row + cells.starts[None, :], row + cells.ends[None, :]
    base = np.where(first > 0, running[np.maximum(first - 1, 0)], 0)  # (c, M): drawn cells before the model's
    total = np.where(last > 0, running[np.maximum(last - 1, 0)], 0) - base  # (c, M): the model's sample size
    pos = q[None, None, :] * np.maximum(total - 1, 0)[..., None]  # (c, M, Q), 0-based in the expanded sample
    lo = np.floor(pos)
    hi = np.minimum(lo + 1, np.maximum(total - 1, 0)[..., None])
    frac = pos - lo

    def value_at(k):  # the expanded sample's k-th value: the cell whose running count first exceeds base + k
        target = (base[..., None] + k.astype(np.int64)).astype(running.dtype)  # no copy of `running` to int64
        idx = np.searchsorted(running, target, side="right") - row[..., None]
        return cells.value[np.clip(idx, 0, max(n - 1, 0))]

    a, b = value_at(lo), value_at(hi)
    with np.errstate(invalid="ignore"):
        out = np.where(frac >= 0.5, b - (b - a) * (1 - frac), a + (b - a) * frac)  # numpy's _lerp
        out = np.where(frac == 0, a, out)
    return np.where(total[..., None] > 0, out, np.nan)
