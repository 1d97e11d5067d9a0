"""Bootstrap confidence intervals from replicate values: percentile, basic and BCa.

Works on the replicates of any statistic, shaped ``(B, ...)``, with the observed value shaped ``(...)``, so one
call gives the intervals of every model, task, aggregate or pairwise difference at once.
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import ArgumentError, check_alternative, check_choice, check_confidence_level
from ..estimation.confidence import ConfidenceInterval
from .._words import words

__all__ = ["interval", "INTERVAL_METHODS", "bca_acceleration", "bias_correction", "central_se"]

INTERVAL_METHODS = ("percentile", "basic", "bca")


def _quantile(sorted_samples: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per-element quantile of samples sorted along axis 0, linear interpolation (NumPy's default method).

    ``q`` broadcasts against ``sorted_samples.shape[1:]``; NaN where ``q`` is NaN.
    """
    b = sorted_samples.shape[0]
    q = np.broadcast_to(np.asarray(q, dtype=np.float64), sorted_samples.shape[1:])
    pos = np.clip(q, 0.0, 1.0) * (b - 1)
    bad = np.isnan(pos)
    pos = np.where(bad, 0.0, pos)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, b - 1)
    frac = pos - lo
    a = np.take_along_axis(sorted_samples, lo[None], axis=0)[0]
    c = np.take_along_axis(sorted_samples, hi[None], axis=0)[0]
    with np.errstate(invalid="ignore"):
        out = a + frac * (c - a)
        out = np.where(frac == 0, a, out)  # exact order statistics, no inf - inf
    return np.where(bad, np.nan, out)


def central_se(samples, *, block: int = 1 << 22) -> np.ndarray:
    """Half the width of the central 68.27% percentile interval of replicates (B, ...): the standard error of a
    normal distribution with the same central spread.

    For normal replicates it equals their standard deviation; for heavy-tailed replicates (the t scale mixtures of
    the small-sample wild bootstrap, whose standard deviation is infinite on 2 degrees of freedom) it is stable
    from seed to seed where the standard deviation is not.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(100_000, 1))
    >>> round(float(central_se(x)[0]), 2)
    1.0
    """
    s = np.asarray(samples, dtype=np.float64)
    hi_q = 0.5 * (1.0 + math.erf(1.0 / math.sqrt(2.0)))  # Phi(1), without scipy.special on the percentile path
    lo_q = 1.0 - hi_q
    flat = s.reshape(s.shape[0], -1)
    out = np.empty(flat.shape[1])
    step = max(1, block // max(1, s.shape[0]))
    for k in range(0, flat.shape[1], step):
        lo, hi = np.quantile(flat[:, k:k + step], [lo_q, hi_q], axis=0)
        out[k:k + step] = (hi - lo) / 2
    return out.reshape(s.shape[1:])


def bias_correction(samples: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """BCa bias correction ``z0 = Phi^-1(share of replicates below the observed value, ties counted half)``."""
    from scipy.special import ndtri  # BCa only: scipy.special is not imported by the percentile path

    below = (samples < observed).sum(axis=0)
    at_or_below = (samples <= observed).sum(axis=0)
    with np.errstate(divide="ignore"):
        return ndtri((below + at_or_below) / (2.0 * samples.shape[0]))


def bca_acceleration(jackknife: np.ndarray, strata=None) -> np.ndarray:
    """BCa acceleration from delete-one (or delete-group) jackknife values ``(n_jack, ...)``.

    Parameters
    ----------
    jackknife : array (n_jack, ...)
    strata : array of int (n_jack,), optional
        The stratum (task) of each row for stratified data; the acceleration is then the multi-sample one that
        SciPy's ``bootstrap`` uses: ``a = sum_j sum_i L_ji^3 / (6 (sum_j sum_i L_ji^2)^(3/2))`` with
        ``L_ji = (n_j - 1)(mean_j - theta_ji) / n_j``.

    Returns
    -------
    array (...)
        0 where the jackknife values do not vary (the statistic is then locally constant).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.resample import bca_acceleration
    >>> scores = np.array([1, 1, 0, 1, 1, 1, 0, 1, 1, 1.0])
    >>> jackknife = np.array([np.delete(scores, i).mean() for i in range(scores.size)])
    >>> round(float(bca_acceleration(jackknife)), 4)
    -0.0791
    """
    jack = np.asarray(jackknife, dtype=np.float64)
    if strata is None:
        strata = np.zeros(jack.shape[0], dtype=np.int64)
    strata = np.asarray(strata)
    if strata.shape != (jack.shape[0],):
        raise ArgumentError(f"`jackknife_strata` must have one entry per jackknife row ({jack.shape[0]}).")
    codes, inverse, sizes = np.unique(strata, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    if inverse.size and np.all(inverse[1:] >= inverse[:-1]):  # rows grouped by stratum (the engine's order)
        sums = np.add.reduceat(jack, np.r_[0, np.cumsum(sizes)[:-1]], axis=0)
    else:
        sums = np.zeros((len(codes),) + jack.shape[1:])
        np.add.at(sums, inverse, jack)
    means = sums / sizes.reshape(-1, *([1] * (jack.ndim - 1)))
    n = sizes[inverse].reshape(-1, *([1] * (jack.ndim - 1))).astype(np.float64)
    infl = (n - 1.0) * (means[inverse] - jack) / n
    sq = infl * infl  # not infl ** 3: NumPy's pow() of negative floats is ~6x slower than two products
    num = (sq * infl).sum(axis=0)
    den = sq.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = num / (6.0 * den ** 1.5)
    return np.where(den > 0, a, 0.0)


def interval(samples, observed, *, method: str = "percentile", confidence_level=0.95,
             alternative: str = "two-sided", jackknife=None, jackknife_strata=None) -> ConfidenceInterval:
    """Bootstrap confidence interval of any statistic from its replicate values.

    Parameters
    ----------
    samples : array_like, shape (B, ...)
        The statistic on each bootstrap replicate (e.g. ``agg(reps.replicates)``).
    observed : array_like, shape (...)
        The statistic on the data (e.g. ``agg(reps.observed)``).
    method : {'percentile', 'basic', 'bca'}
        'percentile' takes quantiles of the replicates; 'basic' reflects them about the observed value
        (``2 * observed - quantile``); 'bca' corrects the percentile interval for bias and skewness.
    confidence_level : float or str
        e.g. 0.95, '95%', or 'overlap' (0.834).
    alternative : {'two-sided', 'less', 'greater'}
        'less' gives ``(-inf, high]``, 'greater' gives ``[low, inf)``.
    jackknife : array_like, shape (n_jack, ...), optional
        Delete-one values of the statistic, needed by 'bca' (``agg(reps.jackknife())``).
    jackknife_strata : array of int, shape (n_jack,), optional
        Stratum (task) of each jackknife row (``reps.jackknife_strata()``), for the stratified acceleration.

    Returns
    -------
    ConfidenceInterval
        ``low`` and ``high`` shaped like ``observed``; NaN where a replicate value is NaN.

    Notes
    -----
    Quantiles use linear interpolation between order statistics, as ``numpy.quantile`` and
    ``scipy.stats.bootstrap`` do. Percentile intervals are transformation-respecting but inherit the bias of a
    skewed statistic; basic intervals have the opposite skew; BCa (Efron 1987) is second-order accurate. For BCa
    the bias correction counts replicates equal to the observed value as half below (SciPy's convention), which
    matters for discrete statistics such as ranks; the acceleration comes from jackknife values (closed form for
    item means, delete-one-cluster for clusters; see :meth:`Replicates.jackknife`). With fewer than about 1,000
    replicates the tails of a 95% interval are poorly estimated, more so for BCa.

    References
    ----------
    Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.
    Efron, B. & Tibshirani, R. (1993). An Introduction to the Bootstrap, chapters 13-14. Chapman & Hall.
    Davison, A. C. & Hinkley, D. V. (1997). Bootstrap Methods and their Application, section 5.2. CUP.

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> samples = 0.7 + rng.normal(0, 0.01, size=(2000, 1))
    >>> ci = eb.interval(samples, np.array([0.7]), method="percentile", confidence_level=0.95)
    >>> print(np.round(ci.low, 2), np.round(ci.high, 2))
    [0.68] [0.72]
    """
    method = check_choice(method, INTERVAL_METHODS, "method")
    level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    samples = np.asarray(samples, dtype=np.float64)
    observed = np.asarray(observed, dtype=np.float64)
    if samples.ndim < 1 or samples.shape[0] < 2:
        raise ArgumentError(f"`samples` must have at least 2 replicates along axis 0; got shape {samples.shape}.")
    if samples.shape[1:] != observed.shape:
        raise ArgumentError(f"`samples` has shape {samples.shape}; `observed` must have shape {samples.shape[1:]},"
                         f" got {observed.shape}.")
    alpha = 1.0 - level
    tail = alpha / 2 if alternative == "two-sided" else alpha
    q_lo = np.full(observed.shape, tail)
    q_hi = np.full(observed.shape, 1.0 - tail)
    if method == "bca":
        if jackknife is None:
            raise ArgumentError(words("`{arg:method='bca'}` needs `jackknife` (delete-one values, e.g. agg(reps.jackknife()))."))
        jack = np.asarray(jackknife, dtype=np.float64)
        if jack.shape[1:] != observed.shape:
            raise ArgumentError(f"`jackknife` must have shape (n_jack, {', '.join(map(str, observed.shape))}); got"
                             f" {jack.shape}.")
        from scipy.special import ndtr, ndtri

        z0 = bias_correction(samples, observed)
        a = bca_acceleration(jack, jackknife_strata)
        with np.errstate(invalid="ignore", divide="ignore"):
            z_lo, z_hi = ndtri(q_lo), ndtri(q_hi)
            q_lo = ndtr(z0 + (z0 + z_lo) / (1 - a * (z0 + z_lo)))
            q_hi = ndtr(z0 + (z0 + z_hi) / (1 - a * (z0 + z_hi)))
    srt = np.sort(samples, axis=0)  # NaN sorts last; flagged below
    has_nan = np.isnan(samples).any(axis=0)
    lo = np.where(has_nan, np.nan, _quantile(srt, q_lo))
    hi = np.where(has_nan, np.nan, _quantile(srt, q_hi))
    if method == "basic":
        lo, hi = 2 * observed - hi, 2 * observed - lo
    if alternative == "less":
        lo = np.full(observed.shape, -np.inf)
    elif alternative == "greater":
        hi = np.full(observed.shape, np.inf)
    if observed.ndim == 0:
        return ConfidenceInterval(float(lo), float(hi))
    return ConfidenceInterval(lo, hi)
