"""The one reshaper from a results table to arrays: one task's (models x items) score matrix.

Works on the table's integer codes of the task's rows (views when the rows are in the canonical order), never on
a copy of the rows, so that each of the analyses that read every task of a table of 1e8 rows (the bootstrap, the
paired variances, the cluster degrees of freedom) pays for a few passes over one task's codes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .codes import row_positions, sorted_codes
from .._validate import InputError, check_names

__all__ = ["task_data"]


def task_data(table, task: str, *, models=None, items: str = "common"):
    """See :meth:`evalband.data.table.ResultsTable.task_data`."""
    from .table import TaskData

    models = check_names(models, table.models, "models")
    if task not in table._task_rows:
        raise InputError(f"no task '{task}'", source=table.source)
    names = ["model", "item"] + (["cluster"] if table.has_clusters else [])
    codes = dict(zip(names, table.task_codes(task, *names)))
    score = table.data["score"].to_numpy()[table._task_rows[task]]
    if models == list(table.models):
        m_code = codes["model"].astype(np.int64)
    else:  # model codes of the table -> positions in `models` (-1: not selected)
        position = {m: k for k, m in enumerate(table.models)}
        lookup = np.full(len(table.models), -1, dtype=np.int64)
        lookup[[position[m] for m in models]] = np.arange(len(models))
        m_code = lookup[codes["model"]]
        if (m_code < 0).any():
            keep = np.flatnonzero(m_code >= 0)
            m_code, score = m_code[keep], score[keep]
            codes = {k: v[keep] for k, v in codes.items()}
    if m_code.size == 0:
        raise InputError(f"task '{task}' has no rows for the selected models", source=table.source)
    categories = table.data["item"].cat.categories
    i_code, item_uniques = sorted_codes(codes["item"], len(categories))
    item_labels = np.asarray(categories[item_uniques].astype(str))  # canonical item order
    n_m, n_i = len(models), len(item_labels)
    flat = m_code * n_i + i_code
    averaged = bool(table.averaged_trials)  # rows of averaged trials: their count and (exact) sums
    if averaged:
        rows = table._task_rows[task]
        per_row, score, sumsq = (table.data[c].to_numpy()[rows] for c in ("trials", "score_sum", "score_sumsq"))
        if m_code.size != per_row.size:  # models left out of the selection
            per_row, score, sumsq = per_row[keep], score[keep], sumsq[keep]
        count = np.bincount(flat, weights=per_row, minlength=n_m * n_i).astype(np.int64).reshape(n_m, n_i)
    else:
        count = np.bincount(flat, minlength=n_m * n_i).reshape(n_m, n_i)
    total = np.bincount(flat, weights=score, minlength=n_m * n_i).reshape(n_m, n_i)
    have = count > 0
    if items == "all":
        common = np.ones(n_i, dtype=bool)
        left_out = {m: 0 for m in models}
    else:
        common = have.all(axis=0)
        if not common.any():
            raise InputError(f"task '{task}': the selected models share no item", source=table.source)
        left_out = dict(zip(models, (have.sum(axis=1) - int(common.sum())).tolist()))
    # the column selection also gives the arrays the (Fortran) layout the estimators' sums have always run over
    c_have, c_total, trials = have[:, common], total[:, common], count[:, common]
    with np.errstate(invalid="ignore", divide="ignore"):
        if c_have.all():  # complete: a count of at least 1 everywhere
            scores = c_total / trials
        else:
            scores = np.where(c_have, c_total / np.maximum(trials, 1), np.nan)
    trial_scores = sums = sumsqs = None
    if averaged and items == "all":  # the trial variance reads each item's sums (exact: the same in any order)
        sums = c_total
        sumsqs = np.bincount(flat, weights=sumsq, minlength=n_m * n_i).reshape(n_m, n_i)[:, common]
    if (table.has_trials or items == "all") and not averaged:
        kmax = int(trials.max())
        position = row_positions(flat, count)
        full = np.full((n_m, n_i, kmax), np.nan)
        keep = common[i_code]
        full[(m_code[keep], i_code[keep], position[keep])] = score[keep]
        trial_scores = full[:, common, :]
    clusters, cluster_labels = None, ()
    if table.has_clusters:
        lab = codes["cluster"]
        first = np.full(n_i, -1, dtype=np.int64)  # a row of each item: clusters are constant within an item
        if items == "common":  # the rows of any one model hold every common item
            rows = np.flatnonzero(m_code == m_code[0])
            first[i_code[rows]] = rows
        else:
            first[i_code] = np.arange(i_code.size)
        cluster_codes, uniq = pd.factorize(lab[first[common]], sort=True)  # clusters in the canonical order
        labels = table.data["cluster"].cat.categories
        clusters, cluster_labels = cluster_codes.astype(np.int64), tuple(str(labels[c]) for c in uniq)
    return TaskData(task, tuple(models), item_labels[common], scores, trials, trial_scores, clusters,
                    cluster_labels, left_out, sums, sumsqs)
