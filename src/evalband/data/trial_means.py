"""Repeated trials averaged per item when no analysis reads a single trial: a row per (task, model, item).

Analyses that resample items (compare, rank: the paired bootstrap, the analytic paired SEs, the rank distributions)
read each item's mean over its trials and the count behind it, never a trial's own score; ``summarize``'s trial
variance (``var_within`` / ``var_between`` / ``k_enough``) reads each item's count, sum and sum of squares
(:func:`evalband.estimation.trials.variance_from_sums`); pass@k, the pilot of ``plan`` and per-trial runs of
score profiles read every trial. A table with its trials averaged holds, per (task, model, item) (and
facet levels: they stay rows), the mean score over its trials (column ``score``), their count (``trials``), their
sum (``score_sum``) and sum of squares (``score_sumsq``): what :meth:`~evalband.data.table.ResultsTable.task_data`
(means and counts) and :func:`evalband.selection.facet_design.facet_design` (sums, sums of squares and counts per
cell, read by the crossed and small-sample wild bootstraps) make of the trial rows, so the paired analyses get the
very same arrays. A sharded read reduces its trials this way on the workers (:mod:`evalband.io.distributed_read`),
so that the client's memory follows the items, not the trials.

**Same numbers.** The table of trial rows sums each item's trials in the order of its rows; a sum merged from
shards in a tree adds them in another order, which for scores such as 0.1 can differ in the last bit. Trials are
therefore averaged only when every sum is exact whatever its order (:func:`sums_exact`): every score a multiple of
one power of two (its *quantum*: 1 for 0/1 or integer scores, 1/4 for quarters) and no sum of a cell's trials
beyond 2**53 quanta, so that every partial sum is a float64 without rounding. Otherwise the trials are kept.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .codes import codes_of

__all__ = ["score_quantum", "sums_exact", "average_trials", "count_dtype", "TRIALS_NEEDED"]

#: the one-line reason an analysis refuses a table whose trials were averaged
TRIALS_NEEDED = ("{what} needs each trial's score; this table holds each item's mean over its trials (read it with"
                 " trials='keep', or without --scheduler)")


def score_quantum(scores) -> tuple[int, float]:
    """``(exponent, largest |score|)``: every nonzero score is a multiple of ``2**exponent`` (the largest such
    power of two over the scores; 2**1100 when every score is 0), for :func:`sums_exact`.

    Examples
    --------
    >>> score_quantum([0.0, 1.0, 1.0])
    (0, 1.0)
    >>> score_quantum([0.25, 0.5, 3.0])
    (-2, 3.0)
    """
    x = np.abs(np.asarray(scores, dtype=np.float64))
    x = x[x != 0]
    if not x.size:
        return 1100, 0.0
    mant, exp = np.frexp(x)  # x = mant * 2**exp, mant in [0.5, 1): 53 significant bits
    bits = np.ldexp(mant, 53).astype(np.int64)
    low = bits & -bits  # the lowest set bit of the significand, a power of two
    lowest = np.frexp(low.astype(np.float64))[1] - 1
    return int((exp - 53 + lowest).min()), float(x.max())


def sums_exact(exponent: int, largest: float, max_trials: int) -> bool:
    """Whether every sum of up to ``max_trials`` scores, and of their squares, is exact in any order: scores that
    are multiples of ``2**exponent`` no larger than ``largest`` (:func:`score_quantum`) give partial sums of at
    most ``max_trials * largest``, each a multiple of the quantum, exact while below ``2**53`` quanta (and
    squares that are multiples of the squared quantum).

    Examples
    --------
    >>> sums_exact(0, 1.0, 100), sums_exact(*score_quantum([0.1, 0.2]), 2)
    (True, False)
    """
    if largest == 0:
        return True
    bits, k = np.log2(largest) - exponent, np.log2(max(int(max_trials), 1))
    return bool(bits + k < 52 and 2 * bits + k < 52)  # the sums, and the sums of squares


def count_dtype(n_trials: int):
    """The dtype of the ``trials`` column of a table of ``n_trials`` trial labels (a count is at most that)."""
    return np.int8 if n_trials <= 127 else np.int16 if n_trials <= 32767 else np.int32


def average_trials(table):
    """The table with the trials of each item (of each item and facet levels) as one row (mean score, ``trials``
    count, ``score_sum``, ``score_sumsq``), or the table itself when it has no trials or per-row measures, or
    when a sum could depend on its order (:func:`sums_exact`). Single-machine form of the reduction a sharded read
    makes on its workers; the paired analyses give the same numbers on both tables.

    Examples
    --------
    >>> import pandas as pd
    >>> import evalband as eb
    >>> t = eb.read(pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "task": "qa", "item": [1, 1, 2, 2] * 2,
    ...                           "trial": [1, 2] * 4, "score": [1, 0, 1, 1, 0, 0, 1, 0]}))
    >>> average_trials(t).data[["model", "item", "score", "trials"]].to_numpy().tolist()
    [['a', '1', 0.5, 2], ['a', '2', 1.0, 2], ['b', '1', 0.0, 2], ['b', '2', 0.5, 2]]
    """
    if table.level != "item" or not table.has_trials or table.measures or table.averaged_trials:
        return table
    d = table.data
    score = d["score"].to_numpy()
    n_trials = int(d["trial"].max()) + 1
    if not sums_exact(*score_quantum(score), n_trials):
        return table
    from .codes import combined_key

    columns = ("task", "model", "item", *table.facets)
    key = combined_key([codes_of(d[c]) for c in columns] + [d["trial"].to_numpy()],
                       [len(d[c].cat.categories) for c in columns] + [n_trials])
    if key is None:  # too many labels for one key: the trials stay rows
        return table
    if key.size > 1 and not bool(np.all(key[:-1] < key[1:])):  # not in the canonical order: sort the rows
        order = np.argsort(key, kind="stable")
        d, key, score = d.iloc[order], key[order], score[order]
    cell = key // n_trials
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    del key, cell
    counts = np.diff(np.r_[starts, score.size])
    total = np.add.reduceat(score, starts)
    frame = pd.DataFrame({c: d[c].array[starts] for c in d.columns if c not in ("trial", "score")},
                         index=pd.RangeIndex(len(starts)))
    frame["score"] = total / counts
    frame["trials"] = counts.astype(count_dtype(n_trials))
    frame["score_sum"] = total
    frame["score_sumsq"] = np.add.reduceat(score * score, starts)
    from .table import ResultsTable

    return ResultsTable(frame, "item", table.score_kind, table.source, table.notes, table.attribution, True,
                        table.paired_items, table.facets, n_trials)
