"""Item-level data with several columns per item (prediction, label, tp/fp/fn, ...), for non-mean statistics.

A :class:`~evalband.data.table.ResultsTable` holds one score per item; statistics such as F1 need more per item. An
:class:`ItemColumns` holds, for each task, named ``(n_models, n_items)`` arrays on the items every model has,
plus optional cluster codes, and feeds :func:`evalband.resample.bootstrap` exactly as a table does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validate import ArgumentError, InputError
from ..display.reprs import displayed

__all__ = ["ItemColumns"]


@displayed
@dataclass(frozen=True, repr=False)
class ItemColumns:
    """Per-task item columns, paired across models.

    Attributes
    ----------
    models, tasks : tuple of str
    data : dict
        ``task -> {column name -> array (n_models, n_items)}``; a column that does not depend on the model (a
        label) may be ``(n_items,)``.
    clusters : dict or None
        ``task -> (n_items,)`` cluster labels or codes; None without clusters.
    task_groups : dict or None
        ``task -> group``.
    notes : tuple of str
        What was left out while building it (items not shared by every model).
    source : str
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    data: dict
    clusters: dict | None = None
    task_groups: dict | None = None
    notes: tuple[str, ...] = ()
    source: str = "<ItemColumns>"
    level: str = field(default="item", init=False)
    paired_items: bool = field(default=True, init=False)
    has_trials: bool = field(default=False, init=False)

    def __post_init__(self):
        object.__setattr__(self, "models", tuple(map(str, self.models)))
        object.__setattr__(self, "tasks", tuple(map(str, self.tasks)))
        missing = [t for t in self.tasks if t not in self.data]
        if missing:
            raise ArgumentError(f"`data` has no entry for task(s) {missing!r}.")
        m = len(self.models)
        for t in self.tasks:
            cols = self.data[t]
            if not cols:
                raise ArgumentError(f"`data[{t!r}]` holds no column.")
            n = None
            for name, arr in cols.items():
                a = np.asarray(arr)
                if a.ndim == 2 and a.shape[0] != m:
                    raise ArgumentError(f"`data[{t!r}][{name!r}]` has {a.shape[0]} rows; expected one per model ({m}).")
                if a.ndim not in (1, 2):
                    raise ArgumentError(f"`data[{t!r}][{name!r}]` must be (n_models, n_items) or (n_items,).")
                if n is not None and a.shape[-1] != n:
                    raise ArgumentError(f"columns of task {t!r} differ in length ({n} and {a.shape[-1]}).")
                n = a.shape[-1]
            if n == 0:
                raise InputError(f"task '{t}' has no item shared by every model", source=self.source)
            if self.clusters is not None and len(np.asarray(self.clusters[t])) != n:
                raise ArgumentError(f"`clusters[{t!r}]` must have one entry per item ({n}).")

    @property
    def has_clusters(self) -> bool:
        return self.clusters is not None

    def task_columns(self, task: str) -> dict:
        return self.data[task]

    def n_items(self, task: str) -> int:
        return next(iter(np.asarray(a).shape[-1] for a in self.data[task].values()))

    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, columns, model: str = "model", task: str = "task",
                   item: str = "item", cluster: str | None = None, group: str | None = None,
                   source: str = "<DataFrame>") -> "ItemColumns":
        """Build from a long frame with one row per model, task and item.

        Parameters
        ----------
        columns : sequence of str
            The value columns to keep (e.g. ``["prediction", "label"]``).
        model, task, item, cluster, group : str
            Names of the label columns.

        Notes
        -----
        Items that some model lacks are left out of every model in that task (pairing needs common items); the
        number left out per model is recorded in ``notes``.
        """
        columns = [columns] if isinstance(columns, str) else list(columns)
        need = [model, task, item, *columns] + [c for c in (cluster, group) if c]
        absent = [c for c in need if c not in df.columns]
        if absent:
            raise InputError(f"missing column(s) {', '.join(map(repr, absent))}", source=source)
        d = df[need].copy()
        for c in (model, task, item):
            d[c] = d[c].astype(str)
        dup = d.duplicated([model, task, item])
        if dup.any():
            r = d.loc[dup].iloc[0]
            raise InputError(f"duplicate row for model '{r[model]}', task '{r[task]}', item '{r[item]}'",
                             source=source, row=d.index[dup.to_numpy()][0])
        models = tuple(pd.unique(d[model]))
        tasks = tuple(pd.unique(d[task]))
        data, clusters, groups, lost = {}, ({} if cluster else None), ({} if group else None), {}
        for t in tasks:
            sub = d.loc[d[task] == t]
            wide = sub.pivot(index=item, columns=model, values=columns)
            counts = sub.groupby(model).size().reindex(list(models)).fillna(0).astype(int)
            keep_items = sub.groupby(item).size()
            keep_items = keep_items[keep_items == len(models)].index
            if len(keep_items) == 0:
                raise InputError(f"task '{t}': the models share no item", source=source)
            wide = wide.loc[keep_items]
            for m in models:
                lost[m] = lost.get(m, 0) + int(counts[m] - len(keep_items))
            data[t] = {c: wide[c][list(models)].to_numpy().T for c in columns}
            first = sub.drop_duplicates(item).set_index(item)
            if cluster:
                clusters[t] = first.loc[keep_items, cluster].astype(str).to_numpy()
            if group:
                groups[t] = str(first[group].iloc[0])
        notes = ()
        if any(lost.values()):
            notes = ("items not shared by every model are left out ("
                     + ", ".join(f"{m}: {v:,}" for m, v in lost.items() if v) + ")",)
        return cls(models, tasks, data, clusters, groups, notes, source)
