"""Per-item measure matrices (cost, latency) aligned with the paired score matrix of each task.

A results table keeps one measure value per row (NaN = not measured). Analyses over items need one value per
(model, item), on the items every model has, in the order of :meth:`ResultsTable.task_data`. An item with
several rows (trials, facet levels) gets the mean over its measured rows, as its score is the mean over its rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentTypeError, InputError
from ..display.reprs import displayed
from .._words import words
from ..display.notes import NoteKind

__all__ = ["TaskMeasure", "task_measures", "check_measure", "results_selection"]


@displayed
@dataclass(frozen=True, repr=False)
class TaskMeasure:
    """One task's measure, paired across models on the items every model has.

    Attributes
    ----------
    task : str
    scores : numpy.ndarray, shape (M, K)
        The task's paired score matrix (``ResultsTable.task_data(task).scores``).
    values : numpy.ndarray, shape (M, K)
        Mean measured value of each model on each item (0 where not measured; see ``present``).
    present : numpy.ndarray of bool, shape (M, K)
        Whether the model has at least one measured row on the item.
    missing_rows : numpy.ndarray of int, shape (M,)
        Rows of the common items without a value, per model.
    clusters : numpy.ndarray of int or None, shape (K,)
    """

    task: str
    scores: np.ndarray
    values: np.ndarray
    present: np.ndarray
    missing_rows: np.ndarray
    clusters: np.ndarray | None


def results_selection(data, *, models=None, tasks=None, weights=None, group_weights=None):
    """The selection (:func:`evalband.select`, called once) of item-level results that an analysis of costs
    pairs across models: tasks some selected model lacks, or on which the models share no item, are left out and
    named in the notes, as for comparisons (:func:`evalband.resample.replicates_for`)."""
    from ..selection import select
    from ..data.table import ResultsTable

    sel = select(data, models=models, tasks=tasks, weights=weights, group_weights=group_weights)
    if not isinstance(sel.table, ResultsTable):
        raise ArgumentTypeError(f"costs and latencies per item need a results table; got {type(sel.table).__name__}"
                                " (battles: evalband.costs.frontier reads their quality as arena ratings).")
    return sel.complete_tasks(shared_items=sel.table.level == "item" and sel.table.paired_items)


def check_measure(table, measure: str, name: str) -> str:
    """``measure`` if the table carries that measure column, else an error naming what it has."""
    if not isinstance(measure, str):
        raise ArgumentTypeError(words("`{arg:{name}}` must name a measure column ('cost', 'latency') or be a per-model summary; got {name2}.", name=name, name2=type(measure).__name__))
    if table.level != "item":
        raise InputError(f"`{name}={measure!r}` needs item-level data with a '{measure}' column; this table holds"
                         " per-task summaries (give per-model costs with cost_from_summary)", source=table.source)
    if measure not in table.measures:
        have = ", ".join(map(repr, table.measures)) or "none"
        raise InputError(words("no '{measure}' column to read `{arg:{name}}` from (measures present: {have}); map a column with read(..., {measure}_col='your_column')", measure=measure, name=name, have=have), source=table.source)
    return measure


def task_measures(table, measure: str, *, models=None, use_clusters: bool = True) -> list[TaskMeasure]:
    """One :class:`TaskMeasure` per task of ``table`` (in table order), for the selected ``models``."""
    models = list(table.models if models is None else models)
    data = table.data
    # category code -> position among the selected models (-1: not selected), without string conversions per row
    model_lookup = np.full(len(data["model"].cat.categories), -1, dtype=np.int64)
    model_lookup[pd.Index(data["model"].cat.categories.astype(str)).get_indexer(models)] = np.arange(len(models))
    item_labels = pd.Index(data["item"].cat.categories.astype(str))
    task_codes = data["task"].cat.codes.to_numpy()
    task_names = list(data["task"].cat.categories.astype(str))
    out = []
    for task in table.tasks:
        try:
            td = table.task_data(task, models=models)
        except InputError as exc:
            if "share no item" in str(exc) or "no rows" in str(exc):
                raise InputError(words("task '{task}': not every selected model has results on a common item, so quality and cost cannot be paired there; choose tasks with `{arg:tasks=}` or models with `{arg:models=}`", task=task), source=table.source) from None
            raise
        sub = data.iloc[np.flatnonzero(task_codes == task_names.index(str(task)))]
        m_code = model_lookup[sub["model"].cat.codes.to_numpy()]
        item_lookup = pd.Index(td.items).get_indexer(item_labels)  # category code -> position in td.items
        i_code = item_lookup[sub["item"].cat.codes.to_numpy()]
        keep = (m_code >= 0) & (i_code >= 0)
        value = sub[measure].to_numpy(dtype=np.float64)[keep]
        flat = m_code[keep] * td.n_items + i_code[keep]
        measured = ~np.isnan(value)
        size = len(models) * td.n_items
        count = np.bincount(flat[measured], minlength=size).reshape(len(models), td.n_items)
        total = np.bincount(flat[measured], weights=value[measured], minlength=size).reshape(count.shape)
        missing_rows = np.bincount(m_code[keep][~measured], minlength=len(models))
        present = count > 0
        values = np.divide(total, count, out=np.zeros(count.shape), where=present)
        clusters = td.clusters if use_clusters else None
        out.append(TaskMeasure(str(task), td.scores, values, present, missing_rows.astype(np.int64), clusters))
    return out


NOTE_ITEMS_UNMEASURED = NoteKind("costs.items-unmeasured", "excluded", "{measure}: items without any measured value"
                                 " are left out of that model's {measure} ({parts})")


def missing_note(measure: str, models, missing_items, n_items, missing_rows) -> list[str]:
    """Notes counting, per model, the items (and blank rows) without a measured value."""
    if not (np.any(missing_items) or np.any(missing_rows)):
        return []
    parts = []
    for m, k, n, r in zip(models, missing_items, n_items, missing_rows):
        if k or r:
            rows = f"{int(r):,} blank row{'s' if r != 1 else ''}"
            parts.append(f"{m}: {int(k):,} of {int(n):,} items" + (f", {rows}" if r else ""))
    return [NOTE_ITEMS_UNMEASURED(measure=measure, parts="; ".join(parts))]
