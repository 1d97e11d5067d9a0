"""Exact McNemar test for two models scored right/wrong on the same items."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import ArgumentError
from ..display.reprs import displayed
from .._words import words

__all__ = ["McNemarResult", "mcnemar_exact"]


@displayed
@dataclass(frozen=True, repr=False)
class McNemarResult:
    """Exact McNemar test.

    Attributes
    ----------
    only_a : numpy.ndarray
        Items that model A got right and model B wrong (discordant pairs favouring A).
    only_b : numpy.ndarray
        Items that B got right and A wrong.
    p_value : numpy.ndarray
        Exact p-value: the binomial test of ``only_a`` successes in ``only_a + only_b`` trials at 1/2.
    """

    only_a: np.ndarray
    only_b: np.ndarray
    p_value: np.ndarray


def mcnemar_exact(a, b, *, alternative: str = "two-sided", axis: int = -1) -> McNemarResult:
    """Exact McNemar test of equal accuracy for paired binary scores.

    Parameters
    ----------
    a, b : array_like of 0/1
        Right/wrong of two models on the same items along ``axis``; other axes broadcast (many pairs at once).
    alternative : {'two-sided', 'less', 'greater'}
        'greater': A is more accurate than B.

    Returns
    -------
    McNemarResult

    Notes
    -----
    Only discordant items carry information; under H0 (equal accuracy) each discordant item favours A with
    probability 1/2, so ``only_a ~ Binomial(only_a + only_b, 1/2)``. The two-sided p-value is
    ``min(1, 2 * P(X <= min(only_a, only_b)))``, as ``statsmodels.stats.contingency_tables.mcnemar(exact=True)`` and
    ``scipy.stats.binomtest`` compute it; it is 1 when no item is discordant. The test is exact for any number of
    items and needs no continuity correction.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated proportions or
    percentages. Psychometrika 12, 153-157.

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> a = np.array([1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1])
    >>> b = np.array([1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0])
    >>> res = eb.mcnemar_exact(a, b)
    >>> round(float(res.p_value), 4)
    0.125
    """
    from scipy import stats

    from .._validate import check_alternative

    alternative = check_alternative(alternative)
    a = np.moveaxis(np.asarray(a), axis, -1)
    b = np.moveaxis(np.asarray(b), axis, -1)
    for name, x in (("a", a), ("b", b)):
        if not np.isin(x, (0, 1)).all():
            raise ArgumentError(words("`{arg:{name}}` must hold 0/1 scores for McNemar's test.", name=name))
    a = a.astype(bool)
    b = b.astype(bool)
    only_a = (a & ~b).sum(-1)
    only_b = (~a & b).sum(-1)
    k = only_a + only_b
    if alternative == "two-sided":
        p = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(only_a, only_b), k, 0.5))
    elif alternative == "greater":
        p = stats.binom.sf(only_a - 1, k, 0.5)
    else:
        p = stats.binom.cdf(only_a, k, 0.5)
    p = np.where(k == 0, 1.0, p)
    return McNemarResult(only_a, only_b, p)
