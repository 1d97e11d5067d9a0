"""Cluster-robust (CR1) standard error of a mean, with the intra-cluster correlation and the design effect."""

from __future__ import annotations

import warnings

import numpy as np

from .._validate import ArgumentError, check_confidence_level, check_positive_int
from .mean import _interval
from .result import Estimate
from .._words import words

__all__ = ["cluster_interval", "FEW_CLUSTERS", "VERY_FEW_CLUSTERS"]

#: Below this many clusters the CR1 t interval is flagged (Cameron & Miller 2015 discuss 20 to 50).
FEW_CLUSTERS = 30
#: Below this many clusters the interval is flagged as unreliable.
VERY_FEW_CLUSTERS = 10


#: scores handled at once by the cluster moments (rows of models in chunks of this many values)
CHUNK_VALUES = 1 << 23


def _cluster_moments(x2, codes, n_codes):
    """Mean, CR1 standard error, counts, clusters, design effect and ICC of each row of ``x2`` (rows, items)."""
    rows = x2.shape[0]
    valid = ~np.isnan(x2)
    y = np.where(valid, x2, 0.0)
    flat = (np.arange(rows)[:, None] * n_codes + codes[None, :]).ravel()
    size = rows * n_codes
    n_g = np.bincount(flat, weights=valid.ravel().astype(float), minlength=size).reshape(rows, n_codes)
    sum_g = np.bincount(flat, weights=y.ravel(), minlength=size).reshape(rows, n_codes)
    n = valid.sum(axis=1).astype(np.float64)
    g = (n_g > 0).sum(axis=1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n > 0, y.sum(axis=1) / n, np.nan)
        s_g = sum_g - n_g * mean[:, None]
        var = np.where(g > 1, g / (g - 1) * np.sum(s_g * s_g, axis=1) / (n * n), np.nan)
        se = np.sqrt(var)
        resid = np.where(valid, x2 - mean[:, None], 0.0)
        ss_total = np.sum(resid * resid, axis=1)
        var_iid = np.where(n > 1, ss_total / (n - 1) / n, np.nan)
        design_effect = np.where(var_iid > 0, var / var_iid, np.nan)
        mean_g = np.where(n_g > 0, sum_g / n_g, 0.0)
        ssb = np.sum(n_g * (mean_g - mean[:, None]) ** 2, axis=1)
        ssw = ss_total - ssb
        msb = ssb / (g - 1)
        msw = np.where(n > g, ssw / (n - g), np.nan)
        n0 = (n - np.sum(n_g * n_g, axis=1) / n) / (g - 1)
        icc = np.where((g > 1) & (n > g), (msb - msw) / (msb + (n0 - 1) * msw), np.nan)
    return mean, se, n, g, design_effect, icc


def cluster_interval(scores, clusters, *, axis: int = -1, confidence_level=0.95,
                     min_clusters: int = FEW_CLUSTERS) -> Estimate:
    """Mean of item scores with a cluster-robust (CR1) standard error and a t interval on G - 1 df.

    Parameters
    ----------
    scores : array_like
        Item scores along ``axis`` (NaN = missing item, left out of that row only).
    clusters : array_like of int, shape (n_items,)
        Cluster code of each item (passage, document, sub-source), shared by every row.
    axis : int
        The item axis.
    confidence_level : float or str
    min_clusters : int
        Rows with fewer clusters than this get a ``UserWarning`` and a note (default 30).

    Returns
    -------
    Estimate
        ``n`` counts items; ``df = G - 1``; ``extras`` holds ``n_clusters`` (G), ``icc`` (ANOVA estimator of the
        intra-cluster correlation) and ``design_effect`` (CR1 variance over the independent-items variance
        ``s^2 / n``; 1 when every cluster holds one item).

    Notes
    -----
    The estimate is the plain item mean (each item weighs the same). The variance is the intercept-only OLS
    cluster-robust sandwich with the CR1 small-sample factor ``G/(G-1) * (N-1)/(N-K)`` (K = 1), i.e.
    ``G/(G-1) * sum_g S_g^2 / N^2`` with ``S_g`` the sum of the residuals ``y_i - mean`` in cluster g. This is
    what statsmodels' ``OLS(y, ones).fit(cov_type='cluster')`` reports. It assumes independent clusters and
    is trustworthy only with many of them: with fewer than about 30 clusters (or very unequal sizes) the t
    interval on G - 1 df tends to under-cover, and below 10 it can be badly off; a warning says so.

    The ANOVA estimator of the intra-cluster correlation is ``(MSB - MSW) / (MSB + (n0 - 1) MSW)`` with
    ``n0 = (N - sum n_g^2 / N) / (G - 1)``; it can be negative. For equal cluster sizes m the design effect is
    about ``1 + (m - 1) * icc`` (Kish 1965).

    References
    ----------
    Cameron, A. C. & Miller, D. L. (2015). A practitioner's guide to cluster-robust inference. Journal of Human
    Resources 50(2), 317-372.
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640.
    Donner, A. (1986). A review of inference procedures for the intraclass correlation coefficient in the
    one-way random effects model. International Statistical Review 54(1), 67-82.

    Examples
    --------
    >>> import evalband as eb
    >>> est = eb.cluster_interval([1, 0, 1, 1, 0, 1, 1, 0], clusters=[1, 1, 2, 2, 3, 3, 4, 4], min_clusters=2)
    >>> est.to_frame()[["estimate", "se", "ci_low", "ci_high"]].round(4)
       estimate     se  ci_low  ci_high
    0     0.625  0.125  0.2272   1.0228
    """
    level = check_confidence_level(confidence_level)
    min_clusters = check_positive_int(min_clusters, "min_clusters")
    x = np.moveaxis(np.asarray(scores, dtype=np.float64), axis, -1)
    lead = x.shape[:-1]
    n_items = x.shape[-1]
    codes = np.asarray(clusters)
    if codes.shape != (n_items,):
        raise ArgumentError(words('`{arg:clusters}` must have one code per item ({n_items}); got shape {shape}.', n_items=n_items, shape=codes.shape))
    if not np.issubdtype(codes.dtype, np.integer):
        codes = np.unique(codes, return_inverse=True)[1]
    if n_items and codes.min() < 0:
        raise ArgumentError(words('`{arg:clusters}` codes must be non-negative integers.'))
    codes = codes.astype(np.int64)
    n_codes = int(codes.max()) + 1 if n_items else 0
    x2 = x.reshape(-1, n_items)
    rows = x2.shape[0]
    # each row (model) on its own: rows in chunks bound the temporaries (a pooled estimate over 1e8 items would
    # need several (rows x items) arrays at once) and give the numbers of one pass
    step = max(2, CHUNK_VALUES // max(n_items, 1))
    starts = list(range(0, rows, step))
    if len(starts) > 1 and rows - starts[-1] == 1:  # no chunk of one row: NumPy sums a lone strided row pairwise
        starts.pop()                                # where it sums the rows of a Fortran array in sequence
    bounds = starts + [rows]
    parts = [_cluster_moments(x2[a:b], codes, n_codes) for a, b in zip(bounds[:-1], bounds[1:])] or \
        [_cluster_moments(x2, codes, n_codes)]
    mean, se, n, g, design_effect, icc = (np.concatenate(v) for v in zip(*parts))
    df = np.where(g > 1, g - 1, np.nan)
    notes = []
    few = (g < min_clusters) & (n > 0)
    if few.any():
        worst = int(np.nanmin(g[few]))
        strength = ("the interval can be badly off" if worst < VERY_FEW_CLUSTERS
                    else "the interval may under-cover")
        message = (f"only {worst} cluster{'s' if worst != 1 else ''} in {int(few.sum())} of {rows} estimate(s)"
                   f" (fewer than {min_clusters}): the cluster-robust standard error is unreliable with few"
                   f" clusters and {strength}")
        notes.append(message)
        warnings.warn(message, UserWarning, stacklevel=2)
    extras = {"n_clusters": g.reshape(lead), "icc": icc.reshape(lead), "design_effect": design_effect.reshape(lead)}
    return _interval(mean.reshape(lead), se.reshape(lead), n.reshape(lead).astype(np.int64), df.reshape(lead),
                     "cluster", level, extras=extras, notes=notes)
