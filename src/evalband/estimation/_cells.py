"""The per-task arrays the estimator cores take: every item some model has, NaN where a model has none (the
table's one reshaper, :meth:`evalband.table.ResultsTable.task_data` with ``items='all'``); no statistics here."""

from __future__ import annotations

import numpy as np

from ..table import TaskData

__all__ = ["task_arrays", "concat_tasks"]


def task_arrays(table) -> list[TaskData]:
    """Every task of an item-level table on the union of the models' items, in the table's task order."""
    return [table.task_data(task, items="all") for task in table.tasks]


def concat_tasks(arrays: list[TaskData]) -> TaskData:
    """All tasks side by side on the item axis (clusters made unique per task), for pooled estimates."""
    kmax = max(a.trial_scores.shape[-1] for a in arrays)
    padded = [np.pad(a.trial_scores, ((0, 0), (0, 0), (0, kmax - a.trial_scores.shape[-1])),
                     constant_values=np.nan) for a in arrays]
    clusters = None
    if all(a.clusters is not None for a in arrays):
        offsets = np.cumsum([0] + [int(a.clusters.max()) + 1 for a in arrays[:-1]])
        clusters = np.concatenate([a.clusters + off for a, off in zip(arrays, offsets)])
    items = np.concatenate([a.items for a in arrays])
    return TaskData("(pooled)", arrays[0].models, items, np.concatenate([a.scores for a in arrays], axis=1),
                    np.concatenate([a.trials for a in arrays], axis=1), np.concatenate(padded, axis=1), clusters)
