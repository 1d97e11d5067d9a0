"""rliable's aggregate metrics (Agarwal et al., 2021) on run-level scores.

rliable computes IQM and the optimality gap over **all runs of all tasks pooled**, the median and mean over tasks
of each task's **mean over runs**, and the probability of improvement from **per-task Mann-Whitney statistics over
runs**. These functions take scores shaped ``(..., n_tasks, n_runs)`` (our item axis last; rliable's own
convention is ``(n_runs, n_tasks)``), with NaN marking a missing run (tasks with fewer runs), so they can be used as
item-level statistics in :func:`evalband.resample.bootstrap_items` (which resamples runs within tasks, as rliable's
stratified bootstrap does) and on hand-made arrays.

The task-level versions registered in :mod:`evalband.aggregate` (``'iqm'``, ``'median'``, ``'optimality-gap'``,
``'probability-of-improvement'``) apply the same formulas to a (models x tasks) matrix of per-task scores, i.e. to
one number per task; that is what a user with only per-task results means, but it is not rliable's IQM over runs.

References
----------
Agarwal, R., Schwarzer, M., Castro, P. S., Courville, A. & Bellemare, M. G. (2021). Deep reinforcement learning at
the edge of the statistical precipice. NeurIPS 2021. https://github.com/google-research/rliable
"""

from __future__ import annotations

import numpy as np
from .._validate import ArgumentError

__all__ = ["iqm", "trimmed_mean", "median_of_means", "mean_of_means", "optimality_gap",
           "probability_of_improvement"]


def trimmed_mean(values, proportion: float = 0.25, *, axis=-1) -> np.ndarray:
    """Mean after cutting ``floor(proportion * n)`` values from each end, ignoring NaN (as ``scipy.stats.trim_mean``).

    ``n`` is the number of non-NaN values of each slice, so NaN-padded ragged data are handled.
    """
    a = np.moveaxis(np.asarray(values, dtype=np.float64), axis, -1)
    if not 0 <= proportion < 0.5:
        raise ArgumentError(f"`proportion` must lie in [0, 0.5); got {proportion!r}.")
    srt = np.sort(a, axis=-1)  # NaN last
    n = (~np.isnan(a)).sum(axis=-1)
    cut = np.floor(proportion * n).astype(np.int64)
    csum = np.concatenate([np.zeros(a.shape[:-1] + (1,)), np.cumsum(np.nan_to_num(srt), axis=-1)], axis=-1)
    hi = np.take_along_axis(csum, (n - cut)[..., None], axis=-1)[..., 0]
    lo = np.take_along_axis(csum, cut[..., None], axis=-1)[..., 0]
    keep = n - 2 * cut
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(keep > 0, (hi - lo) / keep, np.nan)


def iqm(scores) -> np.ndarray:
    """Interquartile mean of all runs of all tasks pooled: ``(..., T, n) -> (...)`` (rliable ``aggregate_iqm``)."""
    s = np.asarray(scores, dtype=np.float64)
    return trimmed_mean(s.reshape(*s.shape[:-2], -1), 0.25)


def mean_of_means(scores) -> np.ndarray:
    """Mean over tasks of each task's mean over runs (rliable ``aggregate_mean``)."""
    return np.nanmean(np.asarray(scores, dtype=np.float64), axis=-1).mean(axis=-1)


def median_of_means(scores) -> np.ndarray:
    """Median over tasks of each task's mean over runs (rliable ``aggregate_median``)."""
    return np.median(np.nanmean(np.asarray(scores, dtype=np.float64), axis=-1), axis=-1)


def optimality_gap(scores, gamma: float = 1.0) -> np.ndarray:
    """``gamma - mean(min(score, gamma))`` over all runs of all tasks (rliable ``aggregate_optimality_gap``).

    Lower is better: the average amount by which scores fall short of ``gamma``.
    """
    s = np.asarray(scores, dtype=np.float64)
    s = s.reshape(*s.shape[:-2], -1)
    return gamma - np.nanmean(np.minimum(s, gamma), axis=-1)


#: pairwise comparisons per evaluation block of :func:`probability_of_improvement` (bounds memory)
PAIRS_PER_BLOCK = 1 << 22


def probability_of_improvement(x, y) -> np.ndarray:
    """P(X > Y) (+ half the ties) per task from runs, averaged over tasks (rliable ``probability_of_improvement``).

    Parameters
    ----------
    x, y : array (..., T, n) and (..., T, m)
        Run scores of the two algorithms (NaN = missing run); leading axes broadcast.

    Returns
    -------
    array (...)
        ``mean_t U_t / (n_t m_t)`` where ``U_t`` is the Mann-Whitney statistic of ``x`` over ``y`` on task ``t``.

    Notes
    -----
    All ``n x m`` pairs of each task are compared, in blocks of leading elements so that at most
    :data:`PAIRS_PER_BLOCK` comparisons are held in memory at once.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    lead = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    x = np.broadcast_to(x, lead + x.shape[-1:]).reshape(-1, *lead[-1:], x.shape[-1])
    y = np.broadcast_to(y, lead + y.shape[-1:]).reshape(-1, *lead[-1:], y.shape[-1])
    per_row = x.shape[1] * x.shape[2] * y.shape[2]
    step = max(1, PAIRS_PER_BLOCK // max(1, per_row))
    out = np.empty(x.shape[0])
    for start in range(0, x.shape[0], step):
        xs = x[start:start + step, :, :, None]
        ys = y[start:start + step, :, None, :]
        valid = ~np.isnan(xs) & ~np.isnan(ys)
        wins = ((xs > ys) + 0.5 * (xs == ys)) * valid
        out[start:start + step] = (wins.sum(axis=(-2, -1)) / valid.sum(axis=(-2, -1))).mean(axis=-1)
    return out.reshape(lead[:-1])
