"""Latency quantiles (median, p95) per model with bootstrap intervals, paired by item between models.

A quantile is not a function of summed item columns, so it does not go through the engine's sums: each replicate
draws the items of every task as :func:`evalband.resample.bootstrap_items` (paired) draws them, the same items for
every model, and takes each model's quantiles over the drawn items of all tasks, from the sorted items and the
cumulative draw counts (no sort per replicate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import (ArgumentError, InputError, as_generator, check_choice, check_confidence_level,
                         check_positive_int)
from ..resample import interval
from ..estimation.confidence import ConfidenceInterval
from ..display.reprs import titled_repr
from ._items import check_measure, missing_note, results_selection, task_measures
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["LatencyEstimates", "latency_quantiles", "nan_quantiles", "quantile_name"]


def quantile_name(q: float) -> str:
    """'median' for 0.5, 'p95' for 0.95, 'p99.9' for 0.999."""
    return "median" if q == 0.5 else f"p{100 * q:.4g}"


def nan_quantiles(x, quantiles) -> np.ndarray:
    """Quantiles over the last axis ignoring NaN, vectorized: ``(..., n) -> (..., Q)``; NaN where all are NaN.

    Linear interpolation between order statistics (``numpy.quantile``'s default), without the per-row Python
    loop of ``numpy.nanquantile``.
    """
    x = np.asarray(x, dtype=np.float64)
    q = np.asarray(quantiles, dtype=np.float64)
    s = np.sort(x, axis=-1)  # NaN sort last
    k = (~np.isnan(x)).sum(axis=-1)[..., None]
    pos = q * np.maximum(k - 1, 0)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(k - 1, 0))
    frac = pos - lo
    a = np.take_along_axis(s, lo, axis=-1)
    b = np.take_along_axis(s, hi, axis=-1)
    with np.errstate(invalid="ignore"):
        out = np.where(frac >= 0.5, b - (b - a) * (1 - frac), a + (b - a) * frac)  # numpy's _lerp
        out = np.where(frac == 0, a, out)
    return np.where(k > 0, out, np.nan)


@displayed


@dataclass(frozen=True, repr=False)
class LatencyEstimates:
    """Latency quantiles of each model with intervals.

    Attributes
    ----------
    measure : str
    models : tuple of str
    quantiles : tuple of float
        E.g. (0.5, 0.95): the median and the 95th percentile.
    estimate : numpy.ndarray, shape (M, Q)
    ci : ConfidenceInterval
        Ends shaped (M, Q).
    n_items : numpy.ndarray, shape (M,)
        Items behind each model's quantiles (the items every model has a latency on, for pairing).
    missing_items : numpy.ndarray of int, shape (M,)
        Items without a latency of that model.
    method : {'percentile', 'basic'}
    confidence_level : float
    samples : numpy.ndarray, shape (B, M, Q)
        Bootstrap replicates, paired across models by item.
    notes : tuple of str
    """

    measure: str
    models: tuple
    quantiles: tuple
    estimate: np.ndarray
    ci: ConfidenceInterval
    n_items: np.ndarray
    missing_items: np.ndarray
    method: str
    confidence_level: float
    samples: np.ndarray
    notes: tuple = ()

    @property
    def se(self) -> np.ndarray:
        """Bootstrap standard deviation of each quantile, (M, Q) (replicates that drew no latency left out)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.nanstd(self.samples, axis=0, ddof=1)

    def column(self, q: float) -> int:
        if q not in self.quantiles:
            raise ArgumentError(f"`quantile` {q!r} was not estimated; have {self.quantiles}.")
        return self.quantiles.index(q)

    def to_frame(self) -> pd.DataFrame:
        """One row per model: ``latency_median``, ``latency_median_ci_low``, ``..._ci_high``, ``latency_p95``, ..."""
        out = {"model": list(self.models)}
        for k, q in enumerate(self.quantiles):
            name = f"{self.measure}_{quantile_name(q)}"
            out[name] = self.estimate[:, k]
            out[f"{name}_ci_low"] = np.asarray(self.ci.low)[:, k]
            out[f"{name}_ci_high"] = np.asarray(self.ci.high)[:, k]
        out["n_items"] = self.n_items
        return pd.DataFrame(out)

    def difference(self, a: str, b: str, q: float = 0.5, *, confidence_level=None):
        """``(difference, se, low, high)`` of quantile ``q`` of model ``a`` minus that of ``b``, paired by item."""
        ia, ib, k = self.models.index(a), self.models.index(b), self.column(q)
        level = self.confidence_level if confidence_level is None else check_confidence_level(confidence_level)
        d = self.estimate[ia, k] - self.estimate[ib, k]
        s = self.samples[:, ia, k] - self.samples[:, ib, k]
        ci = interval(s, d, method=self.method, confidence_level=level)
        return float(d), float(s.std(ddof=1)), float(ci.low), float(ci.high)

    def __repr__(self) -> str:
        frame = self.to_frame()
        return titled_repr(f"LatencyEstimates: {', '.join(quantile_name(q) for q in self.quantiles)} of"
                          f" {self.measure} for {len(self.models)} models, {self.method}"
                          f" {self.confidence_level:.4g} intervals, paired by item", frame=frame,
                           columns=list(frame.columns)[:4])


@dataclass(frozen=True)


class _Draws:
    observed: np.ndarray
    replicates: np.ndarray


def _paired_quantiles(per_task, names, tasks, qs, n_resamples, gen, latency, source):
    """``(replicates (B, M, Q), observed (M, Q), common items)``: each model's quantiles over the items every model
    has a value on, the items resampled within tasks, the same items for every model.

    The draws are those of :func:`evalband.resample.bootstrap_items` (paired): per task and block of replicates,
    the counts of ``draw_indices(block_generator(entropy, (crc32(task), block)), K_t, ...)`` over the task's common
    items, with its block size; the quantiles of the drawn sample come from the sorted cells and the cumulative
    counts (:func:`evalband.costs._units.cell_quantiles`), with no sort per replicate.
    """
    from .._random import block_generator, name_key, run_entropy
    from ..resample import draw_counts
    from ..resample.items import ITEM_BLOCK_ELEMENTS
    from ._units import Cells, cell_quantiles

    m = len(names)
    unit, model, value, sizes = [], [], [], []
    offset = 0
    for tm in per_task:
        keep = tm.present.all(axis=0)
        k = int(keep.sum())
        unit.append(offset + np.tile(np.arange(k), m))
        model.append(np.repeat(np.arange(m), k))
        value.append(tm.values[:, keep].ravel())
        sizes.append(k)
        offset += k
    if offset == 0:
        raise ArgumentError(f"no item has a {latency} for every selected model; latency quantiles are paired by item.")
    empty = [t for t, k in zip(tasks, sizes) if k == 0]
    if empty:
        raise InputError(words("task '{value}': no item has a {latency} for every selected model (quantiles are paired by item); leave the task out with `{arg:tasks}`", value=empty[0], latency=latency), source=source)
    cells = Cells(np.concatenate(unit), np.concatenate(model), np.concatenate(value), offset, m)
    observed = cell_quantiles(cells, np.ones((1, offset)), qs)[0]
    n_max = max(tm.values.shape[1] for tm in per_task)
    block = int(max(1, min(1000, ITEM_BLOCK_ELEMENTS // (len(per_task) * n_max))))
    entropy = run_entropy(gen)
    keys = [name_key(t) for t in tasks]
    out = np.empty((n_resamples, m, len(qs)))
    for b in range(-(-n_resamples // block)):
        c = min(block, n_resamples - b * block)
        counts = np.concatenate([draw_counts(block_generator(entropy, (key, b)), k, c, np.int32)
                                 for key, k in zip(keys, sizes)], axis=1)
        out[b * block:b * block + c] = cell_quantiles(cells, counts, qs)
    return out, observed, offset


NOTE_ITEM_S_LACK_SOME = NoteKind(
    'costs.item-s-lack-some', 'excluded',
    "{latency}: {unpaired:,} item(s) lack a {latency} for some model and are left out of every model's quantiles "
    "(pairing needs common items); {common:,} items remain")
NOTE_ITEMS_RESAMPLED_ONE_ONE = NoteKind(
    'costs.items-resampled-one-one', 'caveat',
    '{latency}: items resampled one by one (clusters are not kept whole for quantiles)')


def latency_quantiles(data, *, latency: str = "latency", quantiles=(0.5, 0.95), method: str = "percentile",
                      confidence_level=0.95, n_resamples: int = 2000, models=None, tasks=None,
                      rng=None) -> LatencyEstimates:
    """Median and 95th percentile (or any quantiles) of each model's latency, with paired bootstrap intervals.

    Parameters
    ----------
    data : Selection, ResultsTable, path or DataFrame
        Anything :func:`evalband.select` accepts: item-level results with a ``latency`` measure column (seconds,
        milliseconds, ...; blank = not measured).
    latency : str
        The measure column.
    quantiles : sequence of float
        In (0, 1); default the median and p95.
    method : {'percentile', 'basic'}
    confidence_level : float or str
    n_resamples : int
    models, tasks : sequence of str, optional
    rng : None, int, Generator, ...

    Returns
    -------
    LatencyEstimates

    Notes
    -----
    Each item's latency is the mean over its rows (trials, facet levels); quantiles pool the items of every task.
    Items are resampled within tasks, the same items for every model (paired), on the items where every model
    has a latency (the others are counted in ``notes``). The percentile bootstrap of a sample quantile is
    consistent but coarse with few items (its distribution lives on the order statistics); BCa is not offered
    because the jackknife of a quantile is inconsistent (Efron & Tibshirani 1993, section 11.6). Clusters are
    not resampled whole here.

    References
    ----------
    Efron, B. & Tibshirani, R. (1993). An Introduction to the Bootstrap, sections 11.6 and 13.3. Chapman & Hall.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(model=m, task="t", item=i, score=1.0, latency=(1 + k) * (1 + i))
    ...         for k, m in enumerate(["A", "B"]) for i in range(21)]
    >>> lat = latency_quantiles(pd.DataFrame(rows), n_resamples=200, rng=0)
    >>> lat.estimate
    array([[11., 20.],
           [22., 40.]])
    """
    method = check_choice(method, ("percentile", "basic"), "method")
    level = check_confidence_level(confidence_level)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    qs = tuple(float(q) for q in np.atleast_1d(np.asarray(quantiles, dtype=np.float64)))
    if not qs or any(not 0 < q < 1 for q in qs) or len(set(qs)) != len(qs):
        raise ArgumentError(f"`quantiles` must be distinct numbers in (0, 1); got {quantiles!r}.")
    gen = as_generator(rng)
    sel = results_selection(data, models=models, tasks=tasks)
    table = sel.table
    check_measure(table, latency, "latency")
    per_task = task_measures(table, latency, use_clusters=False)
    names = tuple(table.models)
    samples, observed, common = _paired_quantiles(per_task, names, [str(t) for t in table.tasks], qs, n_resamples,
                                                  gen, latency, table.source)
    reps = _Draws(observed, samples)
    ci = interval(reps.replicates, reps.observed, method=method, confidence_level=level)
    n_all = np.full(len(names), sum(tm.values.shape[1] for tm in per_task))
    missing = np.sum([(~tm.present).sum(axis=1) for tm in per_task], axis=0).astype(np.int64)
    rows = np.sum([tm.missing_rows for tm in per_task], axis=0)
    notes = list(sel.notes) + missing_note(latency, names, missing, n_all, rows)
    unpaired = int(n_all[0] - common)
    if unpaired:
        notes.append(NOTE_ITEM_S_LACK_SOME(latency=latency, unpaired=unpaired, common=common))
    if table.has_clusters:
        notes.append(NOTE_ITEMS_RESAMPLED_ONE_ONE(latency=latency))
    return LatencyEstimates(latency, names, qs, reps.observed, ConfidenceInterval(ci.low, ci.high),
                            np.full(len(names), float(common)), missing, method, level, reps.replicates, tuple(notes))
