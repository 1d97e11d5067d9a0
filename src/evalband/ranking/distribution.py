"""Rank distributions over bootstrap replicates: ranks, mean rank, marginal rank intervals, probability of best."""

from __future__ import annotations

import numpy as np
from .._ranks import ranks as _ranks
from .._validate import check_confidence_level

__all__ = ["ranks", "rank_distribution", "marginal_rank_intervals", "probability_best"]


def ranks(values, *, higher_is_better: bool = True) -> np.ndarray:
    """Competition ranks ('1224') along the last axis: 1 + the number of models strictly better
    (:func:`evalband._ranks.ranks` with ``ties='min'``; values equal to 12 significant digits tie).

    Examples
    --------
    >>> from evalband.ranking import ranks
    >>> ranks([0.71, 0.84, 0.71, 0.65])
    array([2, 1, 2, 4])
    >>> ranks([[0.7, 0.8], [0.9, 0.6]])
    array([[2, 1],
           [1, 2]])
    """
    return _ranks(values, axis=-1, higher_is_better=higher_is_better, ties="min")


def rank_distribution(rank_samples, n_models: int | None = None) -> np.ndarray:
    """``P[m, r - 1]`` = share of replicates in which model m has rank r, from (B, M) ranks.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.ranking import rank_distribution, ranks
    >>> rng = np.random.default_rng(0)
    >>> samples = np.array([0.70, 0.68, 0.60]) + rng.normal(0, 0.02, size=(200, 3))
    >>> rank_distribution(ranks(samples))
    array([[0.765, 0.235, 0.   ],
           [0.235, 0.76 , 0.005],
           [0.   , 0.005, 0.995]])
    """
    r = np.asarray(rank_samples, dtype=np.int64)
    b, m = r.shape
    k = n_models or m
    flat = np.arange(m)[None, :] * k + (r - 1)
    return np.bincount(flat.ravel(), minlength=m * k).reshape(m, k) / b


def marginal_rank_intervals(rank_samples, *, confidence_level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed bootstrap percentile interval of each model's rank (integers).

    ``low`` is the smallest rank r with ``P*(rank <= r) >= alpha / 2`` and ``high`` the smallest with
    ``P*(rank <= r) >= 1 - alpha / 2`` (the inverted empirical CDF, so both ends are ranks that occur).

    Notes
    -----
    Each interval is for one model on its own, as Longjohn et al. (2025) report them; they do not hold jointly,
    and the bootstrap of a rank is inconsistent when models are (nearly) tied, where these intervals can be too
    narrow (Hall & Miller 2009). Use the simultaneous intervals for statements about several models at once.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.ranking import marginal_rank_intervals, ranks
    >>> rng = np.random.default_rng(0)
    >>> samples = np.array([0.70, 0.68, 0.60]) + rng.normal(0, 0.02, size=(200, 3))
    >>> low, high = marginal_rank_intervals(ranks(samples))
    >>> low, high
    (array([1, 1, 3]), array([2, 2, 3]))
    """
    level = check_confidence_level(confidence_level)
    r = np.asarray(rank_samples)
    alpha = 1.0 - level
    low = np.quantile(r, alpha / 2, axis=0, method="inverted_cdf")
    high = np.quantile(r, 1 - alpha / 2, axis=0, method="inverted_cdf")
    return low.astype(np.int64), high.astype(np.int64)


def probability_best(samples, *, higher_is_better: bool = True) -> np.ndarray:
    """Share of replicates in which each model has the best value; ties split the replicate evenly.

    Parameters
    ----------
    samples : array_like, shape (B, M)

    Returns
    -------
    numpy.ndarray, shape (M,)
        Sums to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.ranking import probability_best
    >>> rng = np.random.default_rng(0)
    >>> samples = np.array([0.70, 0.68, 0.60]) + rng.normal(0, 0.02, size=(200, 3))
    >>> probability_best(samples)
    array([0.765, 0.235, 0.   ])
    """
    s = np.asarray(samples, dtype=np.float64)
    best = s.max(axis=1, keepdims=True) if higher_is_better else s.min(axis=1, keepdims=True)
    is_best = s == best
    return (is_best / is_best.sum(axis=1, keepdims=True)).mean(axis=0)
