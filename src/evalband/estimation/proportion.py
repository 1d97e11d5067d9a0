"""Confidence intervals for a binomial proportion: Wilson, Clopper-Pearson, Jeffreys, Agresti-Coull, Wald.

The core works elementwise on arrays of counts, so one call handles every model and task at once.
"""

from __future__ import annotations

import numpy as np

from .._distributions import beta_isf, beta_ppf, norm_ppf
from .._validate import ArgumentError, check_choice, check_confidence_level
from .confidence import ConfidenceInterval
from .result import Estimate

__all__ = ["proportion_interval", "PROPORTION_METHODS", "wilson_bounds"]

#: Interval methods for a proportion; 'exact' is accepted as another name for 'clopper-pearson'.
PROPORTION_METHODS = ("wilson", "clopper-pearson", "jeffreys", "agresti-coull", "wald")
_ALIASES = {"exact": "clopper-pearson", "beta": "clopper-pearson", "normal-approx": "wald"}


def wilson_bounds(p, n, z) -> np.ndarray:
    """The Wilson score bound ``(p + z^2/2n + z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``, elementwise.

    ``z`` is signed: a negative ``z`` gives the lower end of the interval at level ``2 Phi(|z|) - 1``, a
    positive one the upper end, so that ``wilson_bounds(p, n, ndtri(u))`` is the ``u`` quantile of the Wilson
    confidence distribution (the bound is monotone in ``z``; infinite ``z`` gives 0 or 1). ``p`` need not be a
    ratio of integers (the mean of an item's trials, say); ``n`` is the number of independent units.

    Examples
    --------
    >>> import numpy as np
    >>> np.round(wilson_bounds(0.0, 10, np.array([-1.96, 1.96])), 4)
    array([0.    , 0.2775])
    """
    p = np.asarray(p, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    z = np.asarray(z, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z2 = z * z
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = z / (1 + z2 / n) * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
        out = centre + half
    out = np.where(np.isposinf(z), 1.0, np.where(np.isneginf(z), 0.0, out))
    return np.clip(out, 0.0, 1.0)


def resolve_proportion_method(method: str) -> str:
    """Canonical name of a proportion method (the error lists the valid ones)."""
    if isinstance(method, str) and method.strip().lower().replace("_", "-") in _ALIASES:
        return _ALIASES[method.strip().lower().replace("_", "-")]
    return check_choice(method, PROPORTION_METHODS, "method")


def proportion_interval(correct, n, *, method: str = "wilson", confidence_level=0.95) -> Estimate:
    """Estimate a proportion ``correct / n`` with a two-sided confidence interval, elementwise.

    Parameters
    ----------
    correct, n : array_like of int
        Successes and trials; broadcast together. ``n`` must be positive, ``0 <= correct <= n``.
    method : {'wilson', 'clopper-pearson', 'jeffreys', 'agresti-coull', 'wald'}
        'exact' is another name for 'clopper-pearson'.
    confidence_level : float or str
        In (0, 1); ``'95%'`` or ``'overlap'`` (83.4%, see Notes) are accepted.

    Returns
    -------
    Estimate
        ``estimate = correct / n``, ``se = sqrt(p (1 - p) / n)`` (the plug-in binomial standard error, 0 at
        p = 0 or 1 even though the interval is not degenerate), the interval and ``n``.

    Notes
    -----
    Brown, Cai & DasGupta (2001) compare these intervals. **Wald** (p +/- z SE) under-covers badly when n is small
    or p is near 0 or 1 (it collapses to a point at p = 0 or 1) and is offered only for comparison.
    **Wilson** (score interval, the default) has coverage close to nominal on average over p even for small n.
    **Agresti-Coull** adds z^2/2 successes and failures and is a little conservative. **Jeffreys** (Beta(1/2,
    1/2) posterior quantiles, with the end set to 0 or 1 at p = 0 or 1) behaves like Wilson. **Clopper-Pearson**
    inverts two exact binomial tests and never under-covers, at the price of width. Wald, Wilson and
    Agresti-Coull ends are clipped to [0, 1], as statsmodels does.

    The 'overlap' level (83.4%) is for displays only: two independent intervals of about equal width that do not
    overlap at that level correspond roughly to a two-sided test at 5% (Goldstein & Healy 1995). It is not a test
    of a difference, it does not hold for very unequal standard errors or paired data; compare models with the
    paired methods of ``evalband.comparison``.

    References
    ----------
    Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial proportion. Statistical
    Science 16(2), 101-133.
    Goldstein, H. & Healy, M. J. R. (1995). The graphical presentation of a collection of means. JRSS A 158.

    Examples
    --------
    >>> import evalband as eb
    >>> est = eb.proportion_interval(30, 40, method="wilson", confidence_level=0.95)
    >>> est.to_frame()[["estimate", "se", "ci_low", "ci_high"]].round(4)
       estimate      se  ci_low  ci_high
    0      0.75  0.0685  0.5981   0.8581
    """
    level = check_confidence_level(confidence_level)
    method = resolve_proportion_method(method)
    correct, n = _check_counts(correct, n)
    p = correct / n
    se = np.sqrt(p * (1.0 - p) / n)
    alpha = 1.0 - level
    z = norm_ppf(1.0 - alpha / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "wald":
            low, high = p - z * se, p + z * se
        elif method == "wilson":
            low, high = wilson_bounds(p, n, -z), wilson_bounds(p, n, z)
        elif method == "agresti-coull":
            n_c = n + z * z
            p_c = (correct + z * z / 2) / n_c
            half = z * np.sqrt(p_c * (1 - p_c) / n_c)
            low, high = p_c - half, p_c + half
        elif method == "clopper-pearson":
            low = np.where(correct > 0, beta_ppf(alpha / 2, correct, n - correct + 1), 0.0)
            high = np.where(correct < n, beta_isf(alpha / 2, correct + 1, n - correct), 1.0)
        else:  # jeffreys
            low = np.where(correct > 0, beta_ppf(alpha / 2, correct + 0.5, n - correct + 0.5), 0.0)
            high = np.where(correct < n, beta_isf(alpha / 2, correct + 0.5, n - correct + 0.5), 1.0)
    low = np.clip(low, 0.0, 1.0)
    high = np.clip(high, 0.0, 1.0)
    return Estimate(p, se, ConfidenceInterval(low, high), n.astype(np.int64), method, level)


def _check_counts(correct, n) -> tuple[np.ndarray, np.ndarray]:
    correct = np.asarray(correct, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    try:
        correct, n = np.broadcast_arrays(correct, n)
    except ValueError:
        raise ArgumentError(f"`correct` and `n` must broadcast together; got shapes {np.shape(correct)} and"
                         f" {np.shape(n)}.") from None
    if np.isnan(correct).any() or np.isnan(n).any():
        raise ArgumentError("`correct` and `n` must not contain NaN.")
    if (n <= 0).any() or (n != np.floor(n)).any():
        raise ArgumentError(f"`n` must hold positive integers; got {n[(n <= 0) | (n != np.floor(n))].ravel()[0]!r}.")
    if ((correct < 0) | (correct > n) | (correct != np.floor(correct))).any():
        bad = ((correct < 0) | (correct > n) | (correct != np.floor(correct)))
        raise ArgumentError(f"`correct` must hold integers between 0 and `n`; got {correct[bad].ravel()[0]!r}.")
    return correct.astype(np.float64), n.astype(np.float64)
