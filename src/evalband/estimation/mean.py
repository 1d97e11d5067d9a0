"""The mean of item scores with its CLT standard error and a normal or t interval."""

from __future__ import annotations

import numpy as np

from .._distributions import t_isf
from .._validate import check_choice, check_confidence_level
from .confidence import ConfidenceInterval
from .result import Estimate

__all__ = ["mean_interval", "MEAN_METHODS"]

MEAN_METHODS = ("t", "normal")


def mean_interval(scores, *, axis: int = -1, method: str = "t", confidence_level=0.95) -> Estimate:
    """Mean of independent item scores, its standard error ``sd / sqrt(n)`` and a two-sided interval.

    Parameters
    ----------
    scores : array_like
        Item scores along ``axis``; NaN marks a missing item (a model without a result for it) and is left out
        of that row only. Any real numbers are allowed (rewards, BLEU, ...).
    axis : int
        The item axis; the other axes (models, tasks) are estimated at once.
    method : {'t', 'normal'}
        't': Student t quantile with n - 1 degrees of freedom (default); 'normal': standard normal quantile.
    confidence_level : float or str
        In (0, 1), or '95%', or 'overlap' (83.4%, for displays only; see :func:`proportion_interval`).

    Returns
    -------
    Estimate
        ``n`` is the number of non-missing items; cells with n < 2 have NaN standard error and interval.

    Notes
    -----
    The standard error uses the sample standard deviation (ddof = 1). The interval relies on the central limit
    theorem: items must be independent (use :func:`cluster_interval` for passages or documents) and n not too
    small for the skewness of the scores; for 0/1 scores prefer :func:`proportion_interval` (Wilson), which does
    not collapse at 0 or 1. For 0/1 scores the ddof = 1 variance makes the SE larger than the binomial plug-in
    ``sqrt(p (1 - p) / n)`` by the factor ``sqrt(n / (n - 1))``.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations.
    arXiv:2411.00640.

    Examples
    --------
    >>> import evalband as eb
    >>> est = eb.mean_interval([0.2, 0.4, 0.3, 0.5, 0.35, 0.45])
    >>> est.to_frame()[["estimate", "se", "ci_low", "ci_high"]].round(4)
       estimate      se  ci_low  ci_high
    0    0.3667  0.0441  0.2533     0.48
    """
    level = check_confidence_level(confidence_level)
    method = check_choice(method, MEAN_METHODS, "method")
    x = np.moveaxis(np.asarray(scores, dtype=np.float64), axis, -1)
    n = np.sum(~np.isnan(x), axis=-1)
    total = np.nansum(x, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n > 0, total / n, np.nan)
        resid = np.where(np.isnan(x), 0.0, x - mean[..., None])
        var = np.where(n > 1, np.sum(resid * resid, axis=-1) / (n - 1), np.nan)
        se = np.sqrt(var / n)
    return _interval(mean, se, n, np.where(n > 1, n - 1, np.nan) if method == "t" else None, method, level)


def _interval(estimate, se, n, df, method: str, level: float, *, extras=None, notes=()) -> Estimate:
    """Symmetric interval estimate +/- q * se, with a t quantile when ``df`` is given, else normal."""
    alpha = 1.0 - level
    if df is None:
        from scipy import special  # lazy: the bootstrap commands need no scipy.special

        q = special.ndtri(1.0 - alpha / 2.0)
    else:
        with np.errstate(invalid="ignore"):
            q = t_isf(alpha / 2.0, np.asarray(df, dtype=np.float64))
    low, high = estimate - q * se, estimate + q * se
    return Estimate(np.asarray(estimate, dtype=np.float64), np.asarray(se, dtype=np.float64),
                    ConfidenceInterval(low, high), np.asarray(n), method, level,
                    None if df is None else np.asarray(df, dtype=np.float64), dict(extras or {}), tuple(notes))
