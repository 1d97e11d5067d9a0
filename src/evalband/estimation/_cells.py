"""The per-task arrays the estimator cores take: every item some model has, NaN where a model has none (the
table's one reshaper, :meth:`evalband.data.table.ResultsTable.task_data` with ``items='all'``); no statistics here."""

from __future__ import annotations

import numpy as np

from ..data.table import TaskData

__all__ = ["task_arrays", "concat_tasks", "cell_counts"]


def task_arrays(table):
    """Every task of an item-level table on the union of the models' items, in the table's task order (one at a
    time: an iterator, so that a caller holds one task's arrays, not every task's)."""
    return (table.task_data(task, items="all") for task in table.tasks)


def concat_tasks(arrays: list[TaskData]) -> TaskData:
    """All tasks side by side on the item axis (clusters made unique per task), for pooled estimates. Tasks
    without ``trials`` and ``trial_scores`` or ``score_sums`` (left out where the pooled estimate does not read
    them) give none."""
    trials = trial_scores = None
    if all(a.trial_scores is not None for a in arrays):
        kmax = max(a.trial_scores.shape[-1] for a in arrays)
        trial_scores = np.concatenate([np.pad(a.trial_scores, ((0, 0), (0, 0), (0, kmax - a.trial_scores.shape[-1])),
                                              constant_values=np.nan) for a in arrays], axis=1)
    if all(a.trials is not None for a in arrays):
        trials = np.concatenate([a.trials for a in arrays], axis=1)
    clusters = None
    if all(a.clusters is not None for a in arrays):
        offsets = np.cumsum([0] + [int(a.clusters.max()) + 1 for a in arrays[:-1]])
        clusters = np.concatenate([a.clusters + off for a, off in zip(arrays, offsets)])
    sums = sumsqs = None
    if all(a.score_sums is not None for a in arrays):  # averaged trials: their exact sums, in C order as the
        # sums of the concatenated trial_scores above (the estimators' sums over items then run in the same order)
        sums, sumsqs, trials = (np.ascontiguousarray(np.concatenate([getattr(a, c) for a in arrays], axis=1))
                                for c in ("score_sums", "score_sumsqs", "trials"))
    items = np.concatenate([a.items for a in arrays])
    return TaskData("(pooled)", arrays[0].models, items, np.concatenate([a.scores for a in arrays], axis=1),
                    trials, trial_scores, clusters, score_sums=sums, score_sumsqs=sumsqs)


def cell_counts(table) -> tuple[np.ndarray, np.ndarray] | None:
    """Each (model, task) cell's item count and score sum, ``(n, total)`` shaped (models, tasks), counted on the
    codes (no per-task arrays); None unless every row is one item of 0/1 score (no trials, no facets, no missing
    score). The sums of 0/1 scores are integers, so they equal the per-task arrays' ``nansum`` exactly."""
    if table.level != "item" or table.has_trials or table.facets or not table.is_binary:
        return None
    d = table.data
    score = d["score"].to_numpy()
    if score.dtype.kind == "f" and bool(np.isnan(score).any()):
        return None
    from ..data.codes import combined_key

    cells, keep = [], None
    for col, names in (("model", table.models), ("task", table.tasks)):
        cats = list(d[col].cat.categories)
        pos = np.full(len(cats), len(names), dtype=np.int32)  # (categories not selected: one past the end)
        pos[[cats.index(x) for x in names]] = np.arange(len(names))
        codes = pos[d[col].cat.codes.to_numpy()]
        if len(cats) > len(names):  # rows of models or tasks left out of the selection
            keep = (codes < len(names)) if keep is None else keep & (codes < len(names))
        cells.append(codes)
    n_m, n_t = len(table.models), len(table.tasks)
    key = combined_key(cells, [n_m + 1, n_t + 1], compact=True)
    del cells
    if keep is not None:
        key, score = key[keep], score[keep]
    size = (n_m + 1) * (n_t + 1)
    n = np.bincount(key, minlength=size).reshape(n_m + 1, n_t + 1)[:n_m, :n_t]
    total = np.bincount(key, weights=score, minlength=size).reshape(n_m + 1, n_t + 1)[:n_m, :n_t]
    return n, total
