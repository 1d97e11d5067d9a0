"""Which tasks every selected model can be compared on: the coverage rule of the selection layer."""

from __future__ import annotations

import numpy as np

__all__ = ["missing_tasks"]


def missing_tasks(table, *, shared_items: bool = True) -> dict:
    """Task -> the models lacking it, for every task some model lacks; with ``shared_items`` (item level) also
    task -> () for each task on which no item has a result from every model."""
    d = table.data if table.level == "item" else table.data.loc[table.data["n"] > 0]
    n_m, n_t = len(table.models), len(table.tasks)
    m_code = d["model"].cat.codes.to_numpy().astype(np.int64)
    t_code = d["task"].cat.codes.to_numpy().astype(np.int64)
    have = np.zeros(n_m * n_t, dtype=bool)
    have[m_code * n_t + t_code] = True
    have = have.reshape(n_m, n_t)
    lacking = {str(t): tuple(table.models[i] for i in np.flatnonzero(~have[:, k]))
               for k, t in enumerate(table.tasks) if not have[:, k].all()}
    if shared_items and table.level == "item" and len(d):  # tasks no item of which every model has (int codes)
        i_code = d["item"].cat.codes.to_numpy().astype(np.int64)
        n_i = max(len(d["item"].cat.categories), 1)
        cell = np.sort((t_code * n_i + i_code) * n_m + m_code)
        cell = cell[np.r_[True, cell[1:] != cell[:-1]]]  # distinct (task, item, model), sorted
        ti = cell // n_m
        starts = np.flatnonzero(np.r_[True, ti[1:] != ti[:-1]])
        per_item = np.diff(np.r_[starts, ti.size])  # models per (task, item)
        shared = np.zeros(n_t, dtype=bool)
        shared[ti[starts][per_item == n_m] // n_i] = True
        for k, t in enumerate(table.tasks):
            if str(t) not in lacking and not shared[k]:
                lacking[str(t)] = ()
    return lacking
