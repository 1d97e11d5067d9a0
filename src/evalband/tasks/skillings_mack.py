"""Skillings-Mack test: the Friedman test when some models have no result on some tasks.

Instead of dropping every task with a missing cell (complete cases), each task ranks the models it has (ties get
midranks), a missing model gets the task's middle rank (k_t + 1) / 2, and each task's centred ranks are weighted
by sqrt(12 / (k_t + 1)). The statistic A' Sigma^- A, with Sigma built from how often each pair of models meets
on a task, is approximately chi-square with k - 1 degrees of freedom; with no missing cell it equals Friedman's
chi-square without tie correction (Skillings & Mack 1981).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["skillings_mack_statistic"]


def skillings_mack_statistic(scores: np.ndarray, *, higher_is_better: bool = True):
    """Skillings-Mack statistic of a (models x tasks) matrix with NaN for missing cells.

    Tasks with fewer than two scores carry no information and are left out.

    Returns
    -------
    statistic, df, p_value : float
    mean_ranks : numpy.ndarray, shape (n_models,)
        Each model's mean rank over the tasks where it has a score, each task's ranks rescaled to 1..k.
    n_used : int
        Tasks used (with at least two scores).

    References
    ----------
    Skillings, J. H. & Mack, G. A. (1981). On the use of a Friedman-type statistic in balanced and unbalanced
    block designs. Technometrics 23, 171-177.
    Chatfield, M. & Mander, A. (2009). The Skillings-Mack test (Friedman test when there are missing data).
    Stata Journal 9, 299-305.
    """
    x = np.asarray(scores, dtype=float)
    have = ~np.isnan(x)
    k_t = have.sum(axis=0)
    use = k_t >= 2
    x, have, k_t = x[:, use], have[:, use], k_t[use]
    k = x.shape[0]
    if x.shape[1] == 0:
        return np.nan, float(k - 1), np.nan, np.full(k, np.nan), 0
    signed = -x if higher_is_better else x
    ranks = stats.rankdata(np.where(have, signed, np.inf), axis=0, method="average")  # NaN cells ranked last
    ranks = np.where(have, ranks, (k_t + 1) / 2.0)  # missing: the task's middle rank
    a = np.sum(np.sqrt(12.0 / (k_t + 1)) * (ranks - (k_t + 1) / 2.0), axis=1)
    h = have.astype(float)
    lam = h @ h.T  # tasks on which both models have a score
    sigma = -lam
    np.fill_diagonal(sigma, 0.0)
    np.fill_diagonal(sigma, -sigma.sum(axis=1))
    stat = float(a @ np.linalg.pinv(sigma) @ a)
    df = float(np.linalg.matrix_rank(sigma))
    p = float(stats.chi2.sf(stat, df)) if df > 0 else np.nan
    rescaled = np.where(have, 1.0 + (ranks - 1.0) * (k - 1.0) / (k_t - 1.0), 0.0)
    n_have = have.sum(axis=1)
    mean_ranks = np.full(k, np.nan)
    mean_ranks[n_have > 0] = rescaled.sum(axis=1)[n_have > 0] / n_have[n_have > 0]
    return stat, df, p, mean_ranks, int(use.sum())
