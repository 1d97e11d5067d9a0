"""Which tasks every selected model can be compared on: the coverage rule of the selection layer."""

from __future__ import annotations

import numpy as np

__all__ = ["missing_tasks", "pair_items"]


def missing_tasks(table, *, shared_items: bool = True) -> dict:
    """Task -> the models lacking it, for every task some model lacks; with ``shared_items`` (item level) also
    task -> () for each task on which no item has a result from every model.

    Item level: one task at a time on the table's integer codes (:meth:`ResultsTable.task_codes`), so memory
    holds one task's codes, not copies of every row.

    Examples
    --------
    >>> import pandas as pd
    >>> import evalband as eb
    >>> from evalband.selection import missing_tasks
    >>> df = pd.DataFrame({"model": ["A", "A", "B", "B", "A", "B", "A"],
    ...                    "task": ["t1", "t1", "t1", "t1", "t2", "t2", "t3"],
    ...                    "item": ["x", "y", "x", "y", "u", "v", "w"],
    ...                    "score": [1, 0, 1, 1, 1, 0, 1]})
    >>> table = eb.read(df)
    >>> missing_tasks(table)
    {'t3': ('B',), 't2': ()}
    """
    if table.level != "item":
        d = table.data.loc[table.data["n"] > 0]
        have = np.zeros((len(table.models), len(table.tasks)), dtype=bool)
        have[d["model"].cat.codes.to_numpy(), d["task"].cat.codes.to_numpy()] = True
        return {str(t): tuple(table.models[i] for i in np.flatnonzero(~have[:, k]))
                for k, t in enumerate(table.tasks) if not have[:, k].all()}
    n_m, n_i = len(table.models), max(len(table.data["item"].cat.categories), 1)
    lacking, no_shared = {}, []
    for t in table.tasks:
        m_code, i_code = table.task_codes(t, "model", "item")
        present = np.zeros(n_m, dtype=bool)
        present[m_code] = True
        if not present.all():
            lacking[str(t)] = tuple(table.models[i] for i in np.flatnonzero(~present))
        elif shared_items and not _shares_an_item(m_code, i_code, n_m, n_i):
            no_shared.append(str(t))
    lacking.update({t: () for t in no_shared})
    return lacking


def _shares_an_item(m_code, i_code, n_m: int, n_i: int) -> bool:
    """Whether some item of one task has a row from every one of the ``n_m`` models."""
    cell = m_code.astype(np.int64) * n_i + i_code
    if cell.size > 1 and not bool(np.all(cell[1:] >= cell[:-1])):  # not in the canonical order
        cell = np.sort(cell)
    first = np.r_[True, cell[1:] != cell[:-1]] if cell.size else np.zeros(0, dtype=bool)
    models_per_item = np.bincount(cell[first] % n_i, minlength=n_i)  # distinct models per item
    return bool((models_per_item == n_m).any())


def pair_items(table) -> dict:
    """Task -> (models x models) counts of the items each pair of models both have (item level; the diagonal:
    each model's items), on the table's integer codes, one task at a time (a sparse product: the models' item
    sets are never formed as a dense matrix). Summary level: 1 where both models have the task (n > 0).

    Examples
    --------
    >>> import pandas as pd
    >>> import evalband as eb
    >>> from evalband.selection import pair_items
    >>> df = pd.DataFrame({"model": ["A", "A", "A", "B", "B"], "task": "t1",
    ...                    "item": ["x", "y", "z", "x", "y"], "score": [1, 0, 1, 1, 1]})
    >>> pair_items(eb.read(df))
    {'t1': array([[3, 2],
           [2, 2]])}
    """
    from scipy import sparse

    if table.level != "item":
        d = table.data.loc[table.data["n"] > 0]
        have = np.zeros((len(table.models), len(table.tasks)), dtype=np.int64)
        have[d["model"].cat.codes.to_numpy(), d["task"].cat.codes.to_numpy()] = 1
        return {str(t): np.outer(have[:, k], have[:, k]) for k, t in enumerate(table.tasks)}

    n_m, n_i = len(table.models), max(len(table.data["item"].cat.categories), 1)
    out = {}
    for t in table.tasks:
        m_code, i_code = table.task_codes(t, "model", "item")
        have = sparse.csr_matrix((np.ones(m_code.size, dtype=np.int64), (m_code.astype(np.int64),
                                                                         i_code.astype(np.int64))),
                                 shape=(n_m, n_i))
        have.sum_duplicates()
        have.data[:] = 1  # several rows of one item (trials, facet levels) count once
        out[str(t)] = np.asarray((have @ have.T).todense(), dtype=np.int64)
    return out
