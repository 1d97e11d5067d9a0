"""The benchmark as a population of items: the reference models' scores on every item (task, item), and a new
model's scores placed on those items."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentTypeError, InputError

__all__ = ["Population", "population_of", "scores_on"]


@dataclass(frozen=True, eq=False)
class Population:
    """Every item of the benchmark: ``keys`` (task, item), ``scores`` (models x items, NaN where a reference
    model has no result), the task code of each item and the source's notes."""

    tasks: tuple
    items: tuple
    task_codes: np.ndarray
    models: tuple
    scores: np.ndarray
    bounded: bool
    source: str
    notes: tuple

    @property
    def n_items(self) -> int:
        return len(self.items)

    def index(self) -> pd.MultiIndex:
        return pd.MultiIndex.from_arrays([np.asarray(self.tasks, dtype=object)[self.task_codes],
                                          np.asarray(self.items, dtype=object)], names=["task", "item"])

    def reference_mean(self) -> np.ndarray:
        """Each item's mean score over the reference models that answered it."""
        with np.errstate(invalid="ignore"):
            return np.nanmean(self.scores, axis=0)


def _item_table(data, what: str, **read_options):
    from ..data.table import ResultsTable
    from ..selection import Selection, select

    sel = data if isinstance(data, Selection) else select(data, **read_options)
    table = sel.table
    if not isinstance(table, ResultsTable) or table.level != "item":
        raise ArgumentTypeError(f"{what} must be item-level results (model, task, item, score); got"
                                f" {getattr(table, 'level', type(table).__name__)}-level data from"
                                f" {getattr(table, 'source', '?')}.")
    d = table.data
    keep = d["model"].isin(sel.models) & d["task"].isin(sel.tasks)
    d = d.loc[keep, ["model", "task", "item", "score"]]
    # trials of one item are averaged: the item is the unit sampled
    cell = d.groupby(["task", "item", "model"], observed=True, sort=False)["score"].mean()
    # the pairing note of select() is not for this analysis: every item of the reference is kept
    notes = tuple(n for n in sel.all_notes if not str(n).startswith("coverage: items not shared"))
    return cell, table, notes


def population_of(reference, **read_options) -> Population:
    """The population of items of ``reference`` (anything :func:`evalband.select` reads, at item level)."""
    cell, table, notes = _item_table(reference, "REFERENCE", **read_options)
    wide = cell.unstack("model")
    wide = wide.loc[:, [m for m in wide.columns if wide[m].notna().any()]]
    tasks_all = tuple(str(t) for t in table.tasks)
    task_of = wide.index.get_level_values("task").astype(str)
    order = np.lexsort((np.arange(len(wide)), pd.Categorical(task_of, categories=tasks_all).codes))
    wide = wide.iloc[order]
    task_of = wide.index.get_level_values("task").astype(str)
    tasks = tuple(t for t in tasks_all if t in set(task_of))
    task_codes = pd.Categorical(task_of, categories=tasks).codes.astype(np.int64)
    items = tuple(str(i) for i in wide.index.get_level_values("item"))
    scores = wide.to_numpy(dtype=np.float64).T
    finite = scores[np.isfinite(scores)]
    bounded = bool(finite.size == 0 or (finite.min() >= 0 and finite.max() <= 1))
    return Population(tasks, items, task_codes, tuple(str(m) for m in wide.columns), scores, bounded,
                      str(table.source), notes)


def scores_on(pop: Population, new, **read_options) -> tuple[dict, tuple]:
    """Each model of ``new``: ``(positions in the population, scores)`` of the items it was evaluated on.

    An item of ``new`` that is not an item of the reference is an error naming it (the population is the
    reference's items; an item outside it was not drawn from it).
    """
    cell, table, notes = _item_table(new, "NEW", **read_options)
    pos = pd.Series(np.arange(pop.n_items), index=pop.index())
    out = {}
    for model, part in cell.groupby(level="model", observed=True, sort=False):
        keys = part.index.droplevel("model")
        keys = pd.MultiIndex.from_arrays([keys.get_level_values(0).astype(str),
                                          keys.get_level_values(1).astype(str)], names=["task", "item"])
        where = pos.reindex(keys)
        if where.isna().any():
            bad = keys[np.flatnonzero(where.isna().to_numpy())]
            raise InputError(f"{table.source}: model {model!r} has {len(bad)} item(s) that are not items of the"
                             f" reference benchmark, e.g. task {bad[0][0]!r}, item {bad[0][1]!r}; the estimate"
                             " is of the reference's items, so every evaluated item must be one of them.")
        out[str(model)] = (where.to_numpy(dtype=np.int64), part.to_numpy(dtype=np.float64))
    return out, notes
