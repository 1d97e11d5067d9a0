"""Bootstrap p-values that invert the bootstrap interval methods (percentile, basic, BCa)."""

from __future__ import annotations

import numpy as np

from .._validate import ArgumentError, check_alternative, check_choice

__all__ = ["bootstrap_p_value", "p_floor", "INTERVAL_METHODS"]

INTERVAL_METHODS = ("percentile", "basic", "bca")


def p_floor(n_resamples: int, alternative: str = "two-sided") -> float:
    """The smallest p-value ``n_resamples`` bootstrap replicates can give: ``1 / (B + 1)`` one-sided, twice that
    two-sided. Tables show a p-value at the floor as below it (``'<0.0002'``), never as zero.

    Examples
    --------
    >>> p_floor(9999), p_floor(9999, "greater")
    (0.0002, 0.0001)
    """
    alternative = check_alternative(alternative)
    return (1.0 if alternative != "two-sided" else 2.0) / (int(n_resamples) + 1)


def _tail_le(samples: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Fraction of replicates below ``value`` (ties count one half), per column."""
    below = (samples < value).sum(0)
    ties = (samples == value).sum(0)
    return below + 0.5 * ties


def bootstrap_p_value(samples, observed, *, null: float = 0.0, method: str = "percentile",
                     alternative: str = "two-sided", jackknife=None, jackknife_strata=None) -> np.ndarray:
    """p-value for H0: statistic = ``null``, the smallest alpha at which the bootstrap interval excludes ``null``.

    Parameters
    ----------
    samples : array_like, shape (B, ...)
        Bootstrap replicates of the statistic (e.g. a difference between two models).
    observed : array_like, shape (...)
        The statistic on the data.
    method : {'percentile', 'basic', 'bca'}
        The interval method to invert, so that ``p < alpha`` exactly when that method's ``1 - alpha`` interval
        excludes ``null`` (up to quantile interpolation).
    alternative : {'two-sided', 'less', 'greater'}
        'greater': H1 statistic > null (inverts the one-sided lower bound).
    jackknife : array_like, shape (n_jack, ...), optional
        Delete-one values for the BCa acceleration; without them BCa reduces to bias-corrected (BC).
    jackknife_strata : array_like of int, shape (n_jack,), optional
        Task of each jackknife row, for the stratified acceleration (as ``evalband.resample.interval``).

    Returns
    -------
    numpy.ndarray
        p-values in ``[1 / (B + 1), 1]`` (the bootstrap never shows a probability below its resolution); NaN
        where the observed value or any replicate is not finite (no p-value beside a missing difference).

    Notes
    -----
    Percentile: ``p_greater = P*(D* <= null)``. Basic (reflected) interval: ``p_greater = P*(D* >= 2 d - null)``.
    BCa: ``P*(D* <= null)`` is mapped back through the BCa quantile adjustment with bias correction ``z0`` and
    acceleration ``a`` (Efron & Tibshirani 1993, ch. 14 and 15). Two-sided p-values are twice the smaller
    one-sided one. Ties with the null value count one half, which matters for discrete statistics.

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall, ch. 15-16.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.comparison import bootstrap_p_value
    >>> rng = np.random.default_rng(0)
    >>> samples = 0.03 + rng.normal(0, 0.015, size=200)
    >>> round(float(bootstrap_p_value(samples, 0.03)), 3)
    0.06
    >>> round(float(bootstrap_p_value(samples, 0.03, alternative="greater")), 3)
    0.03
    """
    method = check_choice(method, INTERVAL_METHODS, "method")
    alternative = check_alternative(alternative)
    s = np.asarray(samples, dtype=np.float64)
    d = np.asarray(observed, dtype=np.float64)
    if s.shape[1:] != d.shape:
        raise ArgumentError(f"`samples` must be (B, *observed.shape); got {s.shape} and {d.shape}.")
    b = s.shape[0]
    null_arr = np.broadcast_to(np.asarray(null, dtype=np.float64), d.shape)
    if method == "percentile":
        le = _tail_le(s, null_arr)
        p_greater = (le + 1.0) / (b + 1.0)
        p_less = (b - le + 1.0) / (b + 1.0)
    elif method == "basic":
        le = _tail_le(s, 2 * d - null_arr)
        p_greater = (b - le + 1.0) / (b + 1.0)
        p_less = (le + 1.0) / (b + 1.0)
    else:
        from scipy import special  # BCa only: the percentile and basic p-values need no scipy

        from ..resample.intervals import bca_acceleration, bias_correction

        z0 = bias_correction(s, d)
        z0 = np.clip(z0, special.ndtri(0.5 / b), special.ndtri(1 - 0.5 / b))
        a = np.zeros_like(d) if jackknife is None else bca_acceleration(jackknife, jackknife_strata)
        p0 = np.clip(_tail_le(s, null_arr) / b, 0.5 / b, 1 - 0.5 / b)
        w = special.ndtri(p0) - z0
        with np.errstate(divide="ignore", invalid="ignore"):
            u_ = w / (1.0 + a * w)
        z_alpha = u_ - z0
        p_greater = special.ndtr(z_alpha)
        p_less = 1.0 - p_greater
        floor = p_floor(b, "greater")
        p_greater = np.clip(p_greater, floor, 1.0)
        p_less = np.clip(p_less, floor, 1.0)
    if alternative == "greater":
        p = p_greater
    elif alternative == "less":
        p = p_less
    else:
        p = 2.0 * np.minimum(p_greater, p_less)
    # no p-value beside a missing statistic: a NaN (or infinite) observed value or replicate leaves it NaN
    missing = ~np.isfinite(d) | ~np.isfinite(s).all(axis=0)
    return np.where(missing, np.nan, np.minimum(1.0, p))
