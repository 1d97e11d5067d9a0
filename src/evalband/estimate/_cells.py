"""Reshape a results table into the per-task arrays the estimator cores take (no statistics here)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["TaskArrays", "task_arrays"]


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
    models = list(table.models)
    out = {}
    for task, sub in data.groupby("task", observed=True, sort=False):
        m_code = pd.Categorical(sub["model"].astype(str), categories=models).codes.astype(np.int64)
        i_code, items = pd.factorize(sub["item"].astype(str))
        position = sub.groupby(["model", "item"], observed=True, sort=False).cumcount().to_numpy()
        kmax = int(position.max()) + 1
        full = np.full((len(models), len(items), kmax), np.nan)
        full[m_code, i_code, position] = sub["score"].to_numpy(dtype=np.float64)
        clusters = None
        if "cluster" in sub.columns:
            first = np.empty(len(items), dtype=np.int64)
            first[i_code[::-1]] = np.arange(len(sub))[::-1]
            clusters = pd.factorize(sub["cluster"].astype(str).to_numpy()[first])[0].astype(np.int64)
        out[str(task)] = TaskArrays(str(task), np.asarray(items), full, clusters)
    return [out[t] for t in table.tasks if t in out]


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
