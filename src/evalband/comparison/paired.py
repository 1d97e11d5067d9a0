"""Paired analytic standard error of a difference in means, with the between-model correlation.

When two models answer the same items, the variance of the difference of their means is
``(var_a + var_b - 2 cov_ab) / n`` (Miller 2024; seed 001): positive correlation between the models' per-item
scores makes the difference far less noisy than either mean. With clusters (passages, documents, sub-sources),
the per-item differences are summed within clusters first (the cluster-robust, CR1 sandwich variance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .._validate import ArgumentError
from ..display.reprs import displayed
from .._words import words

__all__ = ["PairedDifference", "pair_moments", "paired_difference"]


@displayed
@dataclass(frozen=True, repr=False)
class PairedDifference:
    """Difference of two means on paired items and its analytic standard error.

    Attributes
    ----------
    difference : numpy.ndarray
        ``mean(a) - mean(b)``.
    se : numpy.ndarray
        Standard error of the difference: ``sqrt((var_a + var_b - 2 cov) / n)`` (sample variances, ddof 1), or
        the cluster-robust version with clusters.
    se_unpaired : numpy.ndarray
        ``sqrt(var_a / n + var_b / n)``: what the difference's standard error would be if the models were scored
        on independent samples (the correlation ignored), for comparison.
    correlation : numpy.ndarray
        Pearson correlation of the per-item scores (NaN when a model's scores are constant).
    var_a, var_b, cov : numpy.ndarray
        Per-item sample variances and covariance (ddof 1).
    se_a, se_b : numpy.ndarray
        Standard errors of each model's mean (cluster-robust with clusters), so that the covariance of the two
        means is ``(se_a**2 + se_b**2 - se**2) / 2``.
    n : int
        Number of paired items.
    n_clusters : int or None
    """

    difference: np.ndarray
    se: np.ndarray
    se_unpaired: np.ndarray
    correlation: np.ndarray
    var_a: np.ndarray
    var_b: np.ndarray
    cov: np.ndarray
    n: int
    se_a: np.ndarray
    se_b: np.ndarray
    n_clusters: int | None = None


def _cluster_codes(clusters, n: int) -> tuple[np.ndarray, int]:
    """Cluster labels of ``n`` items as codes 0..G-1 and G (at least 2: a cluster-robust SE needs two)."""
    codes = np.asarray(clusters)
    if codes.shape != (n,):
        raise ArgumentError(words('`{arg:clusters}` must have one code per item ({n}); got shape {shape}.', n=n, shape=codes.shape))
    _, codes = np.unique(codes, return_inverse=True)
    g = int(codes.max()) + 1
    if g < 2:
        raise ArgumentError("a cluster-robust standard error needs at least 2 clusters; got 1.")
    return codes, g


def paired_difference(a, b, *, clusters=None, axis: int = -1) -> PairedDifference:
    """Paired difference of means with its analytic standard error and the between-model correlation.

    Parameters
    ----------
    a, b : array_like
        Per-item scores of two models on the same items, paired along ``axis``; other axes broadcast (e.g.
        ``a`` of shape (P, n) for P pairs).
    clusters : array_like of int, shape (n,), optional
        Cluster code of each item; the standard error is then cluster-robust.
    axis : int
        The item axis.

    Returns
    -------
    PairedDifference

    Notes
    -----
    Without clusters, ``se = sd(a - b) / sqrt(n)``, equal to ``sqrt(var_a + var_b - 2 cov) / sqrt(n)``; this is the
    standard error of the paired t test (``scipy.stats.ttest_rel``). With G clusters,
    ``se^2 = G / (G - 1) * sum_g (sum_{i in g} (d_i - mean(d)))^2 / n^2``, the CR1 variance that statsmodels'
    ``OLS(d, 1).fit(cov_type='cluster')`` gives. It is valid when the items (or clusters) are a random sample from a
    larger population and n (or G) is large enough for the central limit theorem (say 30 or more).

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations.
    arXiv:2411.00640.

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> a = np.array([1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1])
    >>> b = np.array([1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0])
    >>> d = eb.paired_difference(a, b)
    >>> round(float(d.difference), 4), round(float(d.se), 4)
    (0.3333, 0.1421)
    """
    a = np.moveaxis(np.asarray(a, dtype=np.float64), axis, -1)
    b = np.moveaxis(np.asarray(b, dtype=np.float64), axis, -1)
    if a.shape[-1] != b.shape[-1]:
        raise ArgumentError(f"`a` and `b` must have the same number of items along `axis`; got {a.shape[-1]}"
                         f" and {b.shape[-1]}.")
    n = a.shape[-1]
    if n < 2:
        raise ArgumentError(f"a paired standard error needs at least 2 items; got {n}.")
    a, b = np.broadcast_arrays(a, b)
    d = a - b
    ca = a - a.mean(-1, keepdims=True)
    cb = b - b.mean(-1, keepdims=True)
    var_a = (ca * ca).sum(-1) / (n - 1)
    var_b = (cb * cb).sum(-1) / (n - 1)
    cov = (ca * cb).sum(-1) / (n - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.where((var_a > 0) & (var_b > 0), cov / np.sqrt(var_a * var_b), np.nan)
    n_clusters = None
    if clusters is None:
        var_d = np.maximum(var_a + var_b - 2 * cov, 0.0)
        se = np.sqrt(var_d / n)
        se_a, se_b = np.sqrt(var_a / n), np.sqrt(var_b / n)
    else:
        codes, g = _cluster_codes(clusters, n)
        n_clusters = g
        onehot = np.zeros((n, g))
        onehot[np.arange(n), codes] = 1.0

        def cr1(x):
            sums = (x - x.mean(-1, keepdims=True)) @ onehot  # per-cluster sums of deviations
            return np.sqrt(g / (g - 1) * (sums ** 2).sum(-1) / n ** 2)

        se, se_a, se_b = cr1(d), cr1(a), cr1(b)
    se_unpaired = np.sqrt((var_a + var_b) / n)
    return PairedDifference(d.mean(-1), se, se_unpaired, corr, var_a, var_b, cov, n, se_a, se_b, n_clusters)


def pair_moments(scores, ia, ib, *, clusters=None) -> PairedDifference:
    """:func:`paired_difference` of ``scores[ia]`` and ``scores[ib]`` for many pairs at once, from the models'
    covariance matrix (and, with clusters, the matrix of their cluster sums) instead of one row of per-item
    differences per pair.

    Parameters
    ----------
    scores : array_like, shape (m, n)
        Per-item scores of m models on the same n items.
    ia, ib : array_like of int, shape (P,)
        The pairs' models.
    clusters : array_like of int, shape (n,), optional
        Cluster code of each item (cluster-robust CR1 standard errors).

    Returns
    -------
    PairedDifference
        One value per pair in each field.

    Notes
    -----
    ``var(a - b) = var_a + var_b - 2 cov`` and, with clusters, the squared cluster sums of the deviations of
    ``a - b`` are ``h_aa + h_bb - 2 h_ab`` with ``H = R R^T`` for R the (m, G) cluster sums of each model's
    deviations: the same quantities as :func:`paired_difference`, in another order of summation (equal to
    rounding), in O(m^2 n) work and O(m^2 + m n) memory instead of O(P n) memory, so that hundreds of models
    (tens of thousands of pairs) fit.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([[1, 0, 1, 1], [1, 0, 0, 1], [0, 0, 1, 1.]])
    >>> pm = pair_moments(s, np.array([0, 0]), np.array([1, 2]))
    >>> bool(np.allclose(pm.se, paired_difference(s[[0, 0]], s[[1, 2]]).se))
    True
    """
    x = np.asarray(scores, dtype=np.float64)
    ia, ib = np.asarray(ia, dtype=np.intp), np.asarray(ib, dtype=np.intp)
    if x.ndim != 2:
        raise ArgumentError(f"`scores` must be (models, items); got shape {x.shape}.")
    n = x.shape[1]
    if n < 2:
        raise ArgumentError(f"a paired standard error needs at least 2 items; got {n}.")
    mean = x.mean(-1)
    c = x - mean[:, None]
    gram = (c @ c.T) / (n - 1)
    var = np.diag(gram)
    var_a, var_b, cov = var[ia], var[ib], gram[ia, ib]
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.where((var_a > 0) & (var_b > 0), cov / np.sqrt(var_a * var_b), np.nan)
    n_clusters = None
    if clusters is None:
        se = np.sqrt(np.maximum(var_a + var_b - 2 * cov, 0.0) / n)
        se_a, se_b = np.sqrt(var_a / n), np.sqrt(var_b / n)
    else:
        codes, g = _cluster_codes(clusters, n)
        n_clusters = g
        order = np.argsort(codes, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(codes[order]) != 0])
        sums = np.add.reduceat(c[:, order], starts, axis=1)  # (m, G) cluster sums of deviations
        h = sums @ sums.T
        f = g / (g - 1) / n ** 2
        hd = np.diag(h)
        se = np.sqrt(f * np.maximum(hd[ia] + hd[ib] - 2 * h[ia, ib], 0.0))
        se_a, se_b = np.sqrt(f * hd[ia]), np.sqrt(f * hd[ib])
    se_unpaired = np.sqrt((var_a + var_b) / n)
    return PairedDifference(mean[ia] - mean[ib], se, se_unpaired, corr, var_a, var_b, cov, n, se_a, se_b,
                            n_clusters)
