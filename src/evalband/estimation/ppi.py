"""Prediction-powered inference for a mean: many judge scores, few human labels, a human-scale interval.

The array core :func:`ppi_mean` works on a judge score for every item and a human label on some (NaN
elsewhere), vectorized over leading axes (models). The estimate of the human-scale mean is

    theta = lambda * mean_unlabelled(f) + mean_labelled(y - lambda * f)

(the judge's mean on the unlabelled items, corrected by the judge's mean error on the labelled ones). lambda = 1
is classic PPI (Angelopoulos et al. 2023), lambda = 0 the labelled-only mean, and PPI++ tunes lambda to minimise
the variance (Angelopoulos, Duchi & Zrnic 2023). Every item's influence on theta is kept, so that paired
differences between models scored on the same items, and clustered items, get their variance from the same
influence terms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from .._validate import ArgumentError, check_alternative, check_choice, check_confidence_level
from .confidence import ConfidenceInterval
from ..selection.judgements import FEW_LABELS
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["PPIMean", "ppi_mean", "PPI_METHODS", "LAMBDA_SMALL", "DORNER_GAIN", "FEW_LABELS", "ppi_notes",
           "z_interval", "t_interval", "t_p_value", "labelled_df"]

#: 'ppi++' (power-tuned lambda), 'classic' (lambda = 1), 'labelled' (lambda = 0: the human labels alone)
PPI_METHODS = ("ppi++", "classic", "labelled")
#: below this tuned lambda, a note says the judge adds little
LAMBDA_SMALL = 0.1
#: from this effective-sample-size gain on, a note recalls the factor-2 limit of Dorner et al. (2024)
DORNER_GAIN = 1.8


@displayed


@dataclass(frozen=True, repr=False)
class PPIMean:
    """Prediction-powered estimates of a mean, elementwise over leading axes (models).

    Attributes
    ----------
    estimate, se : numpy.ndarray
        The PPI (or PPI++) estimate of the human-scale mean and its small-sample standard error: each part of
        the variance over its degrees of freedom (the labelled residuals' over ``n - 1``, the unlabelled judge
        scores' over ``N - 1``; with clusters the CR1 variance as it is).
    se_asymptotic : numpy.ndarray
        The standard error of ``ppi_py.ppi_mean_ci`` (variances over n, ddof 0), which ``ess`` uses.
    ci : ConfidenceInterval
        t interval ``estimate -/+ t_df se`` at ``confidence_level``.
    df : numpy.ndarray
        Labelled items minus one (labelled clusters minus one with clusters).
    factor : numpy.ndarray, shape (..., n_items)
        Each item's multiplier of its squared influence in ``se`` (1 with clusters).
    lam : numpy.ndarray
        The lambda used (tuned for PPI++, clipped to [0, 1]; 1 for classic; 0 for labelled).
    n_labelled, n_unlabelled : numpy.ndarray of int
    labelled_estimate, labelled_se : numpy.ndarray
        The human labels alone (the classical mean and its standard error ``s / sqrt(n)``; lambda = 0).
    labelled_ci : ConfidenceInterval
    judge_mean, judge_se : numpy.ndarray
        The judge's mean over all items, taken at face value (what a judge-only evaluation reports; it targets
        the judge's scale, not the human's).
    ess : numpy.ndarray
        Effective sample size: ``n_labelled * labelled_se**2 / se**2`` (labelled items that would give the same
        precision without the judge).
    gain : numpy.ndarray
        ``ess / n_labelled``.
    n_clusters : int or None
    method : str
    confidence_level : float
    alternative : str
    influence : numpy.ndarray, shape (..., n_items)
        Each item's influence on the estimate (its contribution to ``estimate - truth``); sums of squares over
        items (clusters) give the variance, and differences between models give paired variances.
    """

    estimate: np.ndarray
    se: np.ndarray
    ci: ConfidenceInterval
    lam: np.ndarray
    n_labelled: np.ndarray
    n_unlabelled: np.ndarray
    labelled_estimate: np.ndarray
    labelled_se: np.ndarray
    labelled_ci: ConfidenceInterval
    judge_mean: np.ndarray
    judge_se: np.ndarray
    ess: np.ndarray
    gain: np.ndarray
    method: str
    confidence_level: float
    alternative: str = "two-sided"
    n_clusters: int | None = None
    influence: np.ndarray | None = field(default=None, repr=False)
    df: np.ndarray | None = None
    se_asymptotic: np.ndarray | None = None
    factor: np.ndarray | None = field(default=None, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per cell (C order): estimate, se, ci_low, ci_high, lambda, n_labelled, n_unlabelled, ess, ..."""
        cols = {"estimate": self.estimate, "se": self.se, "ci_low": self.ci.low, "ci_high": self.ci.high,
                "lambda": self.lam, "n_labelled": self.n_labelled, "n_unlabelled": self.n_unlabelled,
                "ess": self.ess, "gain": self.gain, "labelled_estimate": self.labelled_estimate,
                "labelled_se": self.labelled_se, "labelled_ci_low": self.labelled_ci.low,
                "labelled_ci_high": self.labelled_ci.high, "judge_mean": self.judge_mean,
                "judge_se": self.judge_se}
        frame = pd.DataFrame({k: np.ravel(np.asarray(v, dtype=float)) for k, v in cols.items()})
        frame["n_labelled"] = frame["n_labelled"].astype(np.int64)
        frame["n_unlabelled"] = frame["n_unlabelled"].astype(np.int64)
        frame["method"] = self.method
        frame["confidence_level"] = self.confidence_level
        return frame


def z_interval(estimate, se, confidence_level: float, alternative: str = "two-sided") -> ConfidenceInterval:
    """Normal interval ``estimate -/+ z se`` (one-sided: an infinite end), as statsmodels' ``_zconfint_generic``."""
    est = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    alpha = 1.0 - confidence_level
    if alternative == "two-sided":
        z = ndtri(1.0 - alpha / 2.0)
        return ConfidenceInterval(est - z * se, est + z * se)
    z = ndtri(1.0 - alpha)
    if alternative == "less":
        return ConfidenceInterval(np.full(est.shape, -np.inf), est + z * se)
    return ConfidenceInterval(est - z * se, np.full(est.shape, np.inf))


def t_interval(estimate, se, df, confidence_level: float, alternative: str = "two-sided") -> ConfidenceInterval:
    """t interval ``estimate -/+ t_df se`` (one-sided: an infinite end); NaN where ``df`` is not positive."""
    from scipy import stats

    est = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    df = np.broadcast_to(np.asarray(df, dtype=np.float64), est.shape)
    ok = np.isfinite(df) & (df > 0)
    alpha = 1.0 - confidence_level
    q = stats.t.ppf(1.0 - (alpha / 2.0 if alternative == "two-sided" else alpha), np.where(ok, df, 1.0))
    q = np.where(ok, q, np.nan)
    if alternative == "two-sided":
        return ConfidenceInterval(est - q * se, est + q * se)
    if alternative == "less":
        return ConfidenceInterval(np.full(est.shape, -np.inf), est + q * se)
    return ConfidenceInterval(est - q * se, np.full(est.shape, np.inf))


def t_p_value(estimate, se, df, alternative: str = "two-sided", null: float = 0.0) -> np.ndarray:
    """t-test p-value of ``estimate = null`` on ``df`` degrees of freedom (the p-value of :func:`t_interval`)."""
    from scipy import stats

    with np.errstate(invalid="ignore", divide="ignore"):
        t = (np.asarray(estimate, dtype=np.float64) - null) / np.asarray(se, dtype=np.float64)
    df = np.asarray(df, dtype=np.float64)
    ok = np.isfinite(df) & (df > 0)
    dfs = np.where(ok, df, 1.0)
    if alternative == "two-sided":
        p = 2.0 * stats.t.sf(np.abs(t), dfs)
    else:
        p = stats.t.sf(t, dfs) if alternative == "greater" else stats.t.cdf(t, dfs)
    return np.where(ok, p, np.nan)


def labelled_df(human, clusters=None) -> np.ndarray:
    """Degrees of freedom of a PPI interval: labelled items minus one, or labelled clusters minus one
    (``human`` (..., n_items), NaN where unlabelled; ``clusters`` (n_items,) codes)."""
    lab = np.isfinite(np.asarray(human, dtype=np.float64))
    if clusters is None:
        return lab.sum(axis=-1) - 1.0
    _, codes = np.unique(np.asarray(clusters), return_inverse=True)
    codes = codes.reshape(-1)
    onehot = np.zeros((codes.size, int(codes.max()) + 1))
    onehot[np.arange(codes.size), codes] = 1.0
    return ((lab.astype(np.float64) @ onehot) > 0).sum(axis=-1) - 1.0


def z_p_value(estimate, se, alternative: str = "two-sided", null: float = 0.0) -> np.ndarray:
    """Normal-test p-value of ``estimate = null``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (np.asarray(estimate, dtype=np.float64) - null) / np.asarray(se, dtype=np.float64)
    if alternative == "two-sided":
        return 2.0 * ndtr(-np.abs(z))
    return ndtr(-z) if alternative == "greater" else ndtr(z)


def _masked_mean(x, mask, n):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mask, x, 0.0).sum(axis=-1) / n


def cluster_variance(influence: np.ndarray, onehot: np.ndarray | None) -> np.ndarray:
    """Variance from influence terms (..., n_items): their sum of squares, or with clusters (one-hot
    (n_items, G)) the CR1 sum of squared cluster sums, ``G / (G - 1) sum_g (sum_{i in g} IF_i)^2``."""
    if onehot is None:
        return (influence * influence).sum(axis=-1)
    g = onehot.shape[1]
    sums = influence @ onehot
    return g / (g - 1.0) * (sums * sums).sum(axis=-1)


def ppi_mean(judge, human, *, method: str = "ppi++", confidence_level=0.95, alternative: str = "two-sided",
             clusters=None, lam=None) -> PPIMean:
    """Prediction-powered estimate of the human-scale mean from judge scores and a few human labels.

    Parameters
    ----------
    judge : array_like, shape (..., n_items)
        The judge's score on every item; NaN where a row (model) has no such item (it is then left out of that
        row, which lets models scored on different items share one array and one item axis).
    human : array_like, shape (..., n_items)
        The human label where there is one, NaN elsewhere. Items with a label are the labelled set (n), the
        others the unlabelled set (N).
    method : {'ppi++', 'classic', 'labelled'}
        'ppi++' tunes lambda (clipped to [0, 1]) to minimise the variance; 'classic' takes lambda = 1;
        'labelled' lambda = 0 (the human labels alone).
    confidence_level : float or str
    alternative : {'two-sided', 'less', 'greater'}
    clusters : array_like of int, shape (n_items,), optional
        Cluster of each item (shared by every row); the variance then sums influence terms within clusters
        (cluster-robust, CR1) and PPI++ tunes lambda on the cluster sums.
    lam : float, optional
        A fixed lambda (overrides ``method``'s).

    Returns
    -------
    PPIMean

    Notes
    -----
    Without clusters the estimate and standard error are those of ``ppi_py.ppi_mean_ci`` (``lam=None`` for
    PPI++, ``lam=1`` for classic): lambda = ``cov_n(y, f) / ((1 + n/N) var_{n+N}(f))``, the plug-in of
    Angelopoulos, Duchi & Zrnic (2023, eq. for the mean) with the judge's variance pooled over all items, and
    ``se^2 = lambda^2 var_N(f) / N + var_n(y - lambda f) / n`` with variances over n (ddof 0): that is
    ``se_asymptotic``. The interval is a small-sample one (issue 22): ``estimate -/+ t_df se`` with the variances
    over their degrees of freedom (``var(y - lambda f)`` over ``n - 1``, ``var(f)`` over ``N - 1``) and Student's
    t on the labelled degrees of freedom ``df = n - 1``, where ppi_py takes the normal quantile and
    ``se_asymptotic``; with lambda = 0 it is the classical t interval of the labels alone. At 20 labels the
    PPI++ normal interval covers 0.89-0.92, this one 0.91-0.94 (0/1 labels stay below 0.93 there, as the t
    interval of the labels alone does: a note says so below 30 labels); both 0.94-0.95 from 100 labels on
    (``tests/judges/test_ppi_coverage.py``). It is valid when the labelled items are a uniform random sample of
    all items (labels missing completely at random) and n and N are large enough for the central limit
    theorem; it needs no assumption on the judge, whose quality only sets the width. With clusters, the influence of item i is ``(r_i - mean(r)) / n`` if
    labelled (``r = y - lambda f``) and ``lambda (f_i - mean_N(f)) / N`` if not; the variance is the CR1 sum of
    squared cluster sums, and lambda minimises it.

    PPI++ never does worse than the labelled-only mean asymptotically; its gain is bounded by how well the
    judge predicts the labels. Dorner et al. (2024) show that when the judge is not more accurate than the
    evaluated model, no such debiasing can gain more than a factor of about 2 in effective sample size.

    References
    ----------
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I. & Zrnic, T. (2023). Prediction-powered
    inference. Science 382(6671), 669-674.
    Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered inference.
    arXiv:2311.01453.
    Dorner, F. E., Nastl, V. Y. & Hardt, M. (2024). Limits to scalable evaluation at the frontier: LLM as judge
    won't beat twice the data. arXiv:2410.13341.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.judges import ppi_mean
    >>> rng = np.random.default_rng(0)
    >>> f = rng.uniform(size=1000)                        # judge scores of 1,000 items
    >>> y = np.where(np.arange(1000) < 100, (rng.uniform(size=1000) < f).astype(float), np.nan)
    >>> res = ppi_mean(f, y)                              # 100 human labels
    >>> int(res.n_labelled), int(res.n_unlabelled)
    (100, 900)
    """
    method = check_choice(method, PPI_METHODS, "method")
    level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    f = np.asarray(judge, dtype=np.float64)
    y = np.asarray(human, dtype=np.float64)
    if f.shape != y.shape:
        raise ArgumentError(f"`judge` and `human` must have the same shape; got {f.shape} and {y.shape}.")
    if f.ndim == 0 or f.shape[-1] == 0:
        raise ArgumentError(f"`judge` needs at least one item along the last axis; got shape {f.shape}.")
    if np.isinf(f).any() or np.isinf(y).any():
        raise ArgumentError("`judge` and `human` must be finite (NaN: no score, no label).")
    present = np.isfinite(f)
    if (np.isfinite(y) & ~present).any():
        raise ArgumentError("`human` has a label where `judge` has no score (NaN); every item needs the judge's score.")
    if not present.any(axis=-1).all():
        raise ArgumentError("`judge` has a row without any score.")
    onehot = None
    n_clusters = None
    if clusters is not None:
        codes = np.asarray(clusters)
        if codes.shape != (f.shape[-1],):
            raise ArgumentError(words('`{arg:clusters}` must have one code per item ({value}); got shape {shape}.', value=f.shape[-1], shape=codes.shape))
        _, codes = np.unique(codes, return_inverse=True)
        n_clusters = int(codes.max()) + 1
        if n_clusters < 2:
            raise ArgumentError("a cluster-robust PPI variance needs at least 2 clusters; got 1.")
        onehot = np.zeros((f.shape[-1], n_clusters))
        onehot[np.arange(f.shape[-1]), codes] = 1.0
    lab = np.isfinite(y)
    unl = present & ~lab
    f = np.where(present, f, 0.0)
    n = lab.sum(axis=-1).astype(np.float64)
    big_n = unl.sum(axis=-1).astype(np.float64)
    y0 = np.where(lab, y, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ybar = _masked_mean(y0, lab, n)
        f_lab = _masked_mean(f, lab, n)
        f_unl = _masked_mean(f, unl, big_n)
        dy = np.where(lab, y0 - ybar[..., None], 0.0)
        df_lab = np.where(lab, f - f_lab[..., None], 0.0)
        df_unl = np.where(unl, f - f_unl[..., None], 0.0)
        if lam is not None:
            lam_v = np.full(n.shape, float(lam))
        elif method == "classic":
            lam_v = np.ones(n.shape)
        elif method == "labelled":
            lam_v = np.zeros(n.shape)
        elif onehot is None:
            cov = (dy * df_lab).sum(axis=-1) / n
            k_all = n + big_n
            f_all = f.sum(axis=-1) / k_all
            var_all = (np.where(present, f - f_all[..., None], 0.0) ** 2).sum(axis=-1) / (k_all - 1)
            lam_v = cov / ((1.0 + n / big_n) * var_all)
        else:
            yg = (dy / n[..., None]) @ onehot
            dg = (df_lab / n[..., None]) @ onehot - (df_unl / big_n[..., None]) @ onehot
            lam_v = (yg * dg).sum(axis=-1) / (dg * dg).sum(axis=-1)
        if lam is None and method == "ppi++":
            lam_v = np.clip(np.nan_to_num(lam_v, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
        lam_v = np.where(big_n > 0, lam_v, 0.0)  # nothing unlabelled: the labels alone
        rbar = ybar - lam_v * f_lab
        dr = np.where(lab, y0 - lam_v[..., None] * f - rbar[..., None], 0.0)
        influence = dr / n[..., None] + np.where(unl, lam_v[..., None] * df_unl, 0.0) / np.where(
            big_n > 0, big_n, 1.0)[..., None]
        estimate = np.where(big_n > 0, lam_v * f_unl, 0.0) + rbar
        se_asym = np.sqrt(cluster_variance(influence, onehot))
        lab_asym = np.sqrt(cluster_variance(dy / n[..., None], onehot))
        # the small-sample variance: each part over its degrees of freedom (variances over n - 1 and N - 1, as
        # for the labels alone; with clusters the CR1 factor G / (G - 1) is already there)
        if onehot is None:
            factor = np.where(lab, (n / np.maximum(n - 1.0, 1.0))[..., None],
                              (big_n / np.maximum(big_n - 1.0, 1.0))[..., None])
        else:
            factor = np.ones(f.shape)
        se = np.sqrt(cluster_variance(influence * np.sqrt(factor), onehot))
        lab_se = lab_asym * (np.sqrt(n / np.maximum(n - 1.0, 1.0)) if onehot is None else 1.0)
        k = n + big_n
        judge_mean = f.sum(axis=-1) / k
        dev = np.where(present, f - judge_mean[..., None], 0.0) / k[..., None]
        judge_se = np.sqrt(cluster_variance(dev, onehot) * (1.0 if onehot is not None else k / np.maximum(k - 1, 1)))
        few = n < 2
        estimate = np.where(few, np.nan, estimate)
        se, se_asym = np.where(few, np.nan, se), np.where(few, np.nan, se_asym)
        ess = n * lab_asym ** 2 / se_asym ** 2
    df = labelled_df(y, clusters)
    ci = t_interval(estimate, se, df, level, alternative)
    lab_ci = t_interval(np.where(few, np.nan, ybar), np.where(few, np.nan, lab_se), df, level, alternative)
    return PPIMean(estimate, se, ci, lam_v, n.astype(np.int64), big_n.astype(np.int64),
                   np.where(few, np.nan, ybar), np.where(few, np.nan, lab_se), lab_ci, judge_mean, judge_se, ess,
                   ess / n, "lambda given" if lam is not None else method, level, alternative, n_clusters,
                   influence, df, se_asym, factor)


def _listed(items, limit: int = 6) -> str:
    items = list(items)
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


NOTE_FEWER_THAN_HUMAN_LABELS = NoteKind('estimation.fewer-than-human-labels', 'caveat',
                                         'fewer than 2 human labels{where}: no estimate for {value}')
NOTE_FEWER_THAN_HUMAN_LABELS_2 = NoteKind(
    'estimation.fewer-than-human-labels-2', 'caveat',
    'fewer than {few_labels} human labels{where} for {value}: the interval is a t interval on the labelled items '
    'minus one, and rests on so few labels that it is approximate (it assumes the residuals y - lambda f are not '
    'far from normal); label more items to firm it up')
NOTE_EFFECTIVE_SAMPLE_SIZE_GAIN = NoteKind(
    'estimation.effective-sample-size-gain', 'caveat',
    'effective-sample-size gain{where} near or above 2 for {value}: Dorner et al. (2024, arXiv:2410.13341) show '
    'that a judge no more accurate than the evaluated model cannot gain more than about 2x; a larger gain needs '
    'a judge better than the model (check the labels are a random sample)')
NOTE_LAMBDA_NEAR_JUDGE_S = NoteKind(
    'estimation.lambda-near-judge-s', 'caveat',
    "lambda near 0{where} for {value}: the judge's scores add little to the human labels there (they barely "
    "predict them); the estimate is close to the labelled-only mean")


def ppi_notes(names, res: PPIMean, *, where: str = "") -> list[str]:
    """Notes on what PPI bought: lambda near 0 (the judge adds little), a gain near Dorner et al.'s limit, too
    few labels. ``names`` label the cells of ``res`` (flattened in C order)."""
    notes = []
    where = f" ({where})" if where else ""
    lam = np.ravel(res.lam)
    gain = np.ravel(res.gain)
    n = np.ravel(res.n_labelled)
    names = list(names)
    few = [m for m, k in zip(names, n) if k < 2]
    if few:
        notes.append(NOTE_FEWER_THAN_HUMAN_LABELS(where=where, value=_listed(few)))
    small = [f"{m} ({k})" for m, k in zip(names, n) if 2 <= k < FEW_LABELS]
    if small:
        notes.append(NOTE_FEWER_THAN_HUMAN_LABELS_2(few_labels=FEW_LABELS, where=where, value=_listed(small)))
    if res.method == "ppi++":
        small = [f"{m} ({v:.2f})" for m, v, k in zip(names, lam, n) if k >= 2 and v < LAMBDA_SMALL]
        if small:
            notes.append(NOTE_LAMBDA_NEAR_JUDGE_S(where=where, value=_listed(small)))
    near = [f"{m} (x{g:.2f})" for m, g, k in zip(names, gain, n) if k >= 2 and np.isfinite(g) and g >= DORNER_GAIN]
    if near:
        notes.append(NOTE_EFFECTIVE_SAMPLE_SIZE_GAIN(where=where, value=_listed(near)))
    return notes
