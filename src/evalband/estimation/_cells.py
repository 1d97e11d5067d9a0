"""Reshape a results table into the per-task arrays the estimator cores take (no statistics here)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["TaskArrays", "task_arrays", "take_data"]


def take_data(data, table, where: str):
    """The table to analyse: ``data`` (or the deprecated keyword ``table=``) through :func:`evalband.read`, the
    helper ``compare``, ``rank`` and ``bootstrap`` use (a ResultsTable as is; a DataFrame, path or
    ``'example:NAME'`` read)."""
    if table is not None:
        if data is not None:
            raise TypeError(f"{where}() got both `data` and `table` (its deprecated old name); pass `data` only.")
        warnings.warn(f"{where}(table=...) is deprecated: the first argument is now `data` (as in compare, rank"
                      f" and bootstrap); pass it positionally or as data=...", DeprecationWarning, stacklevel=3)
        data = table
    elif data is None:
        raise TypeError(f"{where}() missing 1 required argument: `data` (a ResultsTable, a DataFrame or a path).")
    from ..io import read

    return read(data)


@dataclass(frozen=True)
class TaskArrays:
    """One task's scores for every model on the union of the models' items (NaN where a model lacks one).

    ``trial_scores`` is (n_models, n_items, max_trials), NaN-padded; ``scores`` the trial means (n_models,
    n_items); ``clusters`` the item cluster codes or None.
    """

    task: str
    items: np.ndarray
    trial_scores: np.ndarray
    clusters: np.ndarray | None

    @property
    def trials(self) -> np.ndarray:
        return np.sum(~np.isnan(self.trial_scores), axis=-1)

    @property
    def scores(self) -> np.ndarray:
        k = self.trials
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(k > 0, np.nansum(self.trial_scores, axis=-1) / k, np.nan)


def task_arrays(table) -> list[TaskArrays]:
    """The :class:`TaskArrays` of every task of an item-level table, in the table's task order."""
    data = table.data
    n_models = len(table.models)
    m = _codes(data["model"], table.models)
    t = _codes(data["task"], table.tasks)
    item = data["item"] if isinstance(data["item"].dtype, pd.CategoricalDtype) else data["item"].astype("category")
    i = item.cat.codes.to_numpy(np.int64)
    score = data["score"].to_numpy(np.float64)
    labels = np.asarray(item.cat.categories.astype(str))
    # (task, item) pairs -> an item index local to its task
    ti, ti_inv = np.unique(t * (i.max() + 1) + i, return_inverse=True)
    ti_task = ti // (i.max() + 1)
    block_start = np.searchsorted(ti_task, np.arange(len(table.tasks)))
    local = ti_inv - block_start[t]
    # the trial slot of each row: its rank among the rows of the same (model, task, item)
    key = ti_inv * n_models + m
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    first = np.r_[0, np.flatnonzero(np.diff(sorted_key)) + 1]
    run_start = np.repeat(first, np.diff(np.r_[first, len(key)]))
    position = np.empty(len(key), dtype=np.int64)
    position[order] = np.arange(len(key)) - run_start
    cluster = None
    if "cluster" in data.columns:
        cluster = pd.factorize(data["cluster"])[0].astype(np.int64)
    out = []
    rows_by_task = np.argsort(t, kind="stable")
    bounds = np.searchsorted(t[rows_by_task], np.arange(len(table.tasks) + 1))
    for k, task in enumerate(table.tasks):
        rows = rows_by_task[bounds[k]:bounds[k + 1]]
        if rows.size == 0:
            continue
        n_items = int(local[rows].max()) + 1
        kmax = int(position[rows].max()) + 1
        full = np.full((n_models, n_items, kmax), np.nan)
        full[m[rows], local[rows], position[rows]] = score[rows]
        items = labels[(ti[block_start[k]:block_start[k] + n_items]) % (i.max() + 1)]
        clusters = None
        if cluster is not None:
            item_cluster = np.empty(n_items, dtype=np.int64)
            item_cluster[local[rows]] = cluster[rows]
            clusters = np.unique(item_cluster, return_inverse=True)[1].astype(np.int64)
        out.append(TaskArrays(str(task), items, full, clusters))
    return out


def _codes(column, labels) -> np.ndarray:
    """Codes of ``column`` against ``labels`` (the table's model or task order)."""
    if isinstance(column.dtype, pd.CategoricalDtype) and list(column.cat.categories) == list(labels):
        return column.cat.codes.to_numpy(np.int64)
    return pd.Categorical(column.astype(str), categories=list(labels)).codes.astype(np.int64)


def concat_tasks(arrays: list[TaskArrays]) -> TaskArrays:
    """All tasks side by side on the item axis (clusters made unique per task), for pooled estimates."""
    kmax = max(a.trial_scores.shape[-1] for a in arrays)
    padded = [np.pad(a.trial_scores, ((0, 0), (0, 0), (0, kmax - a.trial_scores.shape[-1])),
                     constant_values=np.nan) for a in arrays]
    clusters = None
    if all(a.clusters is not None for a in arrays):
        offsets = np.cumsum([0] + [int(a.clusters.max()) + 1 for a in arrays[:-1]])
        clusters = np.concatenate([a.clusters + off for a, off in zip(arrays, offsets)])
    items = np.concatenate([a.items for a in arrays])
    return TaskArrays("(pooled)", items, np.concatenate(padded, axis=1), clusters)
