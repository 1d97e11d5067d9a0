"""Few clusters, honest level: CR2 standard errors with Bell-McCaffrey degrees of freedom for linear aggregates.

A percentile cluster bootstrap (or CR1 with normal quantiles) under-covers when there are few clusters: the
variance is estimated from G cluster totals and is itself noisy. The corrections here are for *linear*
aggregates, which is what compare and rank report most often: weighted means over tasks of item means whose
items come in clusters, for every model and every paired difference at once.

* :func:`cluster_robust` — CR2 (bias-reduced linearization, Bell & McCaffrey 2002) or CR1 standard errors with
  Bell-McCaffrey or G - 1 degrees of freedom and t intervals, vectorized over contrasts of models;
* :func:`cr2_factors`, :func:`bell_mccaffrey_df` — the two ingredients, for units with given weight shares; the
  crossed replicates (:func:`evalband.facets.crossed_bootstrap`) use them to rescale each family of resampled
  units and to draw a t scale mixture, so that percentile intervals of replicates keep their level too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._distributions import t_cdf, t_isf, t_sf
from .._validate import ArgumentError, check_alternative, check_choice, check_confidence_level
from .confidence import ConfidenceInterval
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = [
    "SMALL_SAMPLE_METHODS",
    "ClusterRobust",
    "bell_mccaffrey_df",
    "cluster_robust",
    "cr2_factors",
    "pair_contrasts",
]

SMALL_SAMPLE_METHODS = ("cr2", "cr1")


def cr2_factors(shares) -> np.ndarray:
    """CR2 rescaling ``(1 - w_g)^(-1/2)`` of each unit's deviation, from its share ``w_g`` of its stratum's weight.

    For a stratum mean the leverage of a cluster holding ``n_g`` of the stratum's ``n`` items is ``n_g / n``;
    CR2 divides its residuals by ``sqrt(1 - n_g / n)``, which makes the variance estimator unbiased under
    independent homoscedastic errors (Bell & McCaffrey 2002). Equal shares ``1/G`` give ``sqrt(G / (G - 1))``.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.facets import cr2_factors
    >>> np.round(cr2_factors([0.25, 0.25, 0.5]), 3)
    array([1.155, 1.155, 1.414])
    """
    w = np.asarray(shares, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.where(w < 1, 1.0 / np.sqrt(np.maximum(1.0 - w, 1e-300)), np.inf)


def bell_mccaffrey_df(shares, strata=None, weights=None, sizes=None) -> float:
    """Bell-McCaffrey degrees of freedom of a CR2 variance of a weighted mean of stratum means.

    Parameters
    ----------
    shares : array_like, shape (G,)
        Each cluster's share of its stratum (``n_g / n_t``).
    strata : array_like of int, shape (G,), optional
        Stratum (task) of each cluster; default one stratum.
    weights : array_like, shape (T,), optional
        Weight of each stratum mean in the aggregate (default equal).
    sizes : array_like, shape (T,), optional
        Items in each stratum (default equal); with several strata the blocks of ``G'G`` scale as
        ``w_t^2 / n_t``.

    Returns
    -------
    float
        ``(sum lambda)^2 / sum lambda^2`` over the eigenvalues of ``G'G`` (Imbens & Kolesar 2016, working model
        of independent errors); ``G - 1`` for one stratum of equal clusters.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.facets import bell_mccaffrey_df
    >>> round(float(bell_mccaffrey_df(np.full(6, 1 / 6))), 3)
    5.0
    >>> round(float(bell_mccaffrey_df([0.5, 0.3, 0.1, 0.1])), 3)
    1.935
    """
    w = np.asarray(shares, dtype=np.float64)
    strata = np.zeros(w.size, dtype=np.int64) if strata is None else np.asarray(strata, dtype=np.int64)
    n_t = int(strata.max()) + 1 if w.size else 0
    tw = np.full(n_t, 1.0 / max(n_t, 1)) if weights is None else np.asarray(weights, dtype=np.float64)
    nt = np.ones(n_t) if sizes is None else np.asarray(sizes, dtype=np.float64)
    a = cr2_factors(w)
    trace, frob = 0.0, 0.0
    for t in range(n_t):  # block B_t = c diag(a) (diag(w) - w w') diag(a), c = w_t^2 / n_t; traces in O(G_t)
        sel = strata == t
        if not sel.any():
            continue
        ws, a2 = w[sel], a[sel] ** 2
        c = tw[t] ** 2 / nt[t]
        trace += c * float((a2 * ws).sum() - (a2 * ws * ws).sum())
        frob += c * c * float((a2 * a2 * (ws * ws - 2 * ws ** 3)).sum() + (a2 * ws * ws).sum() ** 2)
    return trace * trace / frob if frob > 0 else np.nan


def pair_contrasts(n_models: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Contrast rows ``e_a - e_b`` for every pair ``a < b``: ``(L (P, M), ia, ib)``.

    Examples
    --------
    >>> from evalband.facets import pair_contrasts
    >>> lmat, ia, ib = pair_contrasts(3)
    >>> lmat
    array([[ 1., -1.,  0.],
           [ 1.,  0., -1.],
           [ 0.,  1., -1.]])
    >>> ia, ib
    (array([0, 0, 1]), array([1, 2, 2]))
    """
    ia, ib = np.triu_indices(n_models, k=1)
    lmat = np.zeros((ia.size, n_models))
    lmat[np.arange(ia.size), ia] = 1.0
    lmat[np.arange(ia.size), ib] = -1.0
    return lmat, ia, ib


@displayed


@dataclass(frozen=True, repr=False)
class ClusterRobust:
    """Cluster-robust estimates of linear contrasts of a weighted mean over tasks.

    Attributes
    ----------
    estimate, se : numpy.ndarray, shape (C,)
    df : float
        Degrees of freedom of the t reference (Bell-McCaffrey for CR2, G - 1 for CR1).
    ci : ConfidenceInterval
    p_value : numpy.ndarray, shape (C,)
        t test of ``contrast = 0``.
    n_clusters : int
    method : str
    confidence_level : float
    labels : tuple of str
    notes : tuple of str
    """

    estimate: np.ndarray
    se: np.ndarray
    df: float
    ci: ConfidenceInterval
    p_value: np.ndarray
    n_clusters: int
    method: str
    confidence_level: float
    labels: tuple = ()
    notes: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        """One row per contrast: label, estimate, se, df, ci_low, ci_high, p_value, n_clusters, method."""
        return pd.DataFrame({"contrast": list(self.labels) or np.arange(self.estimate.size),
                             "estimate": self.estimate, "se": self.se, "df": self.df, "ci_low": self.ci.low,
                             "ci_high": self.ci.high, "p_value": self.p_value, "n_clusters": self.n_clusters,
                             "method": self.method, "confidence_level": self.confidence_level})

    def __repr__(self) -> str:
        head = (f"ClusterRobust ({self.method}, {self.n_clusters} clusters, df {self.df:.3g}): "
                f"{self.estimate.size} contrast(s)")
        rows = [f"  {lab}: {e:.4g} (se {s:.2g}), {self.confidence_level:.0%} CI ({lo:.4g}, {hi:.4g})"
                for lab, e, s, lo, hi in zip(self.labels or range(self.estimate.size), self.estimate, self.se,
                                             np.ravel(self.ci.low), np.ravel(self.ci.high))][:8]
        return "\n".join([head, *rows] + (["  ..."] if self.estimate.size > 8 else []))

    def _repr_html_(self) -> str:
        return self.to_frame().head(20).to_html(index=False)


NOTE_ONLY_CLUSTERS_EVEN_CORRECTED = NoteKind(
    'estimation.only-clusters-even-corrected', 'caveat',
    'only {n_g} clusters: even corrected intervals rest on very little information')
NOTE_TASK_SINGLE_CLUSTER_HAS = NoteKind(
    'estimation.task-single-cluster-has', 'info',
    'a task with a single cluster has no within-task variation to estimate: CR2 is undefined')


def cluster_robust(scores, clusters, *, strata=None, weights=None, contrasts=None, labels=None,
                   method: str = "cr2", confidence_level=0.95, alternative: str = "two-sided") -> ClusterRobust:
    """CR2 (or CR1) standard errors and t intervals of linear contrasts of a weighted mean of task means.

    Parameters
    ----------
    scores : array_like, shape (M, N)
        Each model's score on each of N items (items of all tasks side by side; trials averaged first).
    clusters : array_like, shape (N,)
        Cluster of each item; clusters are taken within strata (the same label in two tasks is two clusters).
    strata : array_like, shape (N,), optional
        Task of each item (default one task).
    weights : array_like, shape (T,), optional
        Task weights of the aggregate ``sum_t w_t mean_t`` (default equal weights summing to 1).
    contrasts : array_like, shape (C, M), optional
        Linear combinations of the models' aggregates (default: each model, the identity); use
        :func:`pair_contrasts` for every pairwise difference.
    labels : sequence of str, optional
        Names of the contrasts, for the frame.
    method : {'cr2', 'cr1'}
        'cr2': bias-reduced linearization with Bell-McCaffrey degrees of freedom; 'cr1': the usual
        ``G/(G-1) (N-1)/(N-K)`` factor with G - 1 degrees of freedom.
    confidence_level : float or str
    alternative : {'two-sided', 'less', 'greater'}

    Returns
    -------
    ClusterRobust

    Notes
    -----
    The aggregate is ``sum_i c_i y_i`` with ``c_i = w_t / n_t`` for an item of task t, the estimate of a regression
    on task indicators. CR2 divides each cluster's residuals by ``sqrt(1 - n_g / n_t)`` (the leverage of the
    cluster); Bell & McCaffrey's degrees of freedom come from the design alone, so all models and pairs share
    them. With equal clusters in one task CR2 equals CR1 and the degrees of freedom are G - 1 (Imbens & Kolesar
    2016 show this t interval holds its level with as few as 5 to 10 clusters, where normal quantiles and the
    percentile cluster bootstrap do not). Very unequal clusters lower the degrees of freedom, widening the
    interval as they should.

    References
    ----------
    Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear regression with multi-stage
    samples. Survey Methodology 28(2), 169-181.
    Imbens, G. W. & Kolesar, M. (2016). Robust standard errors in small samples: some practical advice. Review of
    Economics and Statistics 98(4), 701-712.
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008). Bootstrap-based improvements for inference with
    clustered errors. Review of Economics and Statistics 90(3), 414-427.
    Pustejovsky, J. E. & Tipton, E. (2018). Small-sample methods for cluster-robust variance estimation and
    hypothesis testing in fixed effects models. JBES 36(4), 672-683.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.facets import cluster_robust, pair_contrasts
    >>> rng = np.random.default_rng(0)
    >>> g = np.repeat(np.arange(10), 20)
    >>> y = (rng.random((2, 200)) < 0.5 + 0.2 * rng.normal(size=10)[g]).astype(float)
    >>> L, ia, ib = pair_contrasts(2)
    >>> r = cluster_robust(y, g, contrasts=L)
    >>> round(r.df, 6)
    9.0
    """
    level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    method = check_choice(method, SMALL_SAMPLE_METHODS, "method")
    y = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    n = y.shape[1]
    if np.isnan(y).any():
        raise ArgumentError("`scores` has NaN: give every model's score on the same items (average trials first).")
    cl = np.asarray(clusters)
    if cl.shape != (n,):
        raise ArgumentError(words('`{arg:clusters}` must have one entry per item ({n}); got shape {shape}.', n=n, shape=cl.shape))
    st = np.zeros(n, dtype=np.int64) if strata is None else np.asarray(strata)
    if st.shape != (n,):
        raise ArgumentError(f"`strata` must have one entry per item ({n}); got shape {st.shape}.")
    st = np.unique(st, return_inverse=True)[1].reshape(-1)
    n_t = int(st.max()) + 1
    tw = np.full(n_t, 1.0 / n_t) if weights is None else np.asarray(weights, dtype=np.float64)
    if tw.shape != (n_t,):
        raise ArgumentError(words('`{arg:weights}` must have one weight per task ({n_t}); got shape {shape}.', n_t=n_t, shape=tw.shape))
    g = np.unique(np.column_stack([st, np.unique(cl.astype(str), return_inverse=True)[1].reshape(-1)]), axis=0,
                  return_inverse=True)[1].reshape(-1)
    n_g = int(g.max()) + 1
    lmat = np.eye(y.shape[0]) if contrasts is None else np.atleast_2d(np.asarray(contrasts, dtype=np.float64))
    if lmat.shape[1] != y.shape[0]:
        raise ArgumentError(f"`contrasts` must have one column per model ({y.shape[0]}); got shape {lmat.shape}.")
    size_t = np.bincount(st, minlength=n_t).astype(np.float64)
    c = tw[st] / size_t[st]
    task_means = np.stack([np.bincount(st, weights=row, minlength=n_t) for row in y]) / size_t  # (M, T)
    resid = y - task_means[:, st]
    cl_sum = np.stack([np.bincount(g, weights=c * row, minlength=n_g) for row in resid])  # (M, G)
    g_task = np.zeros(n_g, dtype=np.int64)
    g_task[g] = st
    g_share = np.bincount(g, minlength=n_g) / size_t[g_task]
    notes = []
    if method == "cr2":
        factor = cr2_factors(g_share) ** 2
        df = bell_mccaffrey_df(g_share, g_task, tw, size_t)
        if not np.isfinite(factor).all():
            notes.append(NOTE_TASK_SINGLE_CLUSTER_HAS())
    else:
        factor = np.full(n_g, n_g / (n_g - 1) * (n - 1) / (n - n_t)) if n_g > 1 else np.full(n_g, np.inf)
        df = float(n_g - 1)
    s = lmat @ cl_sum  # (C, G)
    var = (s * s * factor).sum(axis=1)
    se = np.sqrt(var)
    est = lmat @ (task_means @ tw)
    tail = (1 - level) / 2 if alternative == "two-sided" else 1 - level
    q = t_isf(tail, df) if np.isfinite(df) and df > 0 else np.nan
    lo, hi = est - q * se, est + q * se
    if alternative == "less":
        lo = np.full_like(est, -np.inf)
    elif alternative == "greater":
        hi = np.full_like(est, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        tstat = est / se
    if alternative == "two-sided":
        p = 2 * t_sf(np.abs(tstat), df)
    elif alternative == "greater":
        p = t_sf(tstat, df)
    else:
        p = t_cdf(tstat, df)
    if n_g < 5:
        notes.append(NOTE_ONLY_CLUSTERS_EVEN_CORRECTED(n_g=n_g))
    labels = tuple(labels) if labels is not None else ()
    return ClusterRobust(est, se, float(df), ConfidenceInterval(lo, hi), p, n_g, method, level, labels, tuple(notes))
