"""The few distribution functions evalband's estimators need, from ``scipy.special`` alone.

``import scipy.stats`` costs about half a second of CPU (every distribution, every test, docstrings parsed at
import), more than a typed-numbers command such as ``evalband plan`` needs in all (issue 27). The quantiles and
tail probabilities used on every command's path are the special functions that ``scipy.stats`` itself calls,
wrapped as its generic ``rv_continuous`` methods wrap them: arguments outside the domain give NaN, the ends of
the unit interval give the ends of the support, and ``x * scale + loc`` with the default scale 1 and location 0
(which turns a quantile of -0.0 into 0.0). The values are those of ``scipy.stats`` bit for bit;
``tests/test_distributions.py`` checks that on grids holding every edge.

Functions take array-likes and broadcast; a 0-d result is returned as a NumPy scalar, as SciPy does.
``scipy.special`` itself is imported by the first call (a command that computes no interval does not load it).
"""

from __future__ import annotations

import numpy as np

__all__ = ["norm_cdf", "norm_sf", "norm_ppf", "norm_isf", "t_cdf", "t_sf", "t_ppf", "t_isf",
           "beta_ppf", "beta_isf", "chi2_ppf", "chi2_isf"]

_INF = np.inf


def _valid(args) -> np.ndarray | bool:
    """``rv_continuous._argcheck``'s default: every shape parameter positive."""
    cond = True
    for arg in args:
        cond = np.logical_and(cond, np.asarray(arg) > 0)
    return cond


def _quantile(fn, q, args, support, *, upper_tail: bool):
    """``rv_continuous.ppf`` (``upper_tail=False``) or ``.isf`` (True) around the private ``fn(q, *args)``."""
    q = np.asarray(q)
    args = tuple(np.asarray(a) for a in args)
    low, high = support
    cond0 = _valid(args)
    cond = cond0 & (0 < q) & (q < 1)
    at_low, at_high = (cond0 & (q == 1), cond0 & (q == 0)) if upper_tail else (cond0 & (q == 0), cond0 & (q == 1))
    out = np.full(np.shape(cond), np.nan)
    out[at_low] = low * 1 + 0
    out[at_high] = high * 1 + 0
    if np.any(cond):
        shape = out.shape
        good = [np.broadcast_to(a, shape)[cond] if np.ndim(a) else a for a in (q, *args)]
        out[cond] = fn(*good) * 1 + 0
    return out[()] if out.ndim == 0 else out


def _probability(fn, x, args, support, *, upper_tail: bool):
    """``rv_continuous.cdf`` (``upper_tail=False``) or ``.sf`` (True) around the private ``fn(x, *args)``."""
    x = np.asarray(x)
    args = tuple(np.asarray(a) for a in args)
    low, high = support
    x = np.asarray((x - 0) / 1, dtype=np.promote_types(x.dtype, np.float64))
    cond0 = _valid(args)
    with np.errstate(invalid="ignore"):
        cond1 = (low < x) & (x < high)
    cond = cond0 & cond1
    out = np.zeros(np.shape(cond), x.dtype)
    out[np.broadcast_to((1 - cond0) + np.isnan(x), out.shape).astype(bool)] = np.nan
    edge = cond0 & (x <= low) if upper_tail else (x >= high) & cond0
    out[np.broadcast_to(edge, out.shape)] = 1.0
    if np.any(cond):
        shape = out.shape
        good = [np.broadcast_to(a, shape)[cond] if np.ndim(a) else a for a in (x, *args)]
        out[cond] = fn(*good)
    return out[()] if out.ndim == 0 else out


_REAL = (-_INF, _INF)


def norm_cdf(x):
    """``scipy.stats.norm.cdf(x)``."""
    from scipy import special

    return _probability(lambda x: special.ndtr(x), x, (), _REAL, upper_tail=False)


def norm_sf(x):
    """``scipy.stats.norm.sf(x)``."""
    from scipy import special

    return _probability(lambda x: special.ndtr(-x), x, (), _REAL, upper_tail=True)


def norm_ppf(q):
    """``scipy.stats.norm.ppf(q)``."""
    from scipy import special

    return _quantile(lambda q: special.ndtri(q), q, (), _REAL, upper_tail=False)


def norm_isf(q):
    """``scipy.stats.norm.isf(q)``."""
    from scipy import special

    return _quantile(lambda q: -special.ndtri(q), q, (), _REAL, upper_tail=True)


def t_cdf(x, df):
    """``scipy.stats.t.cdf(x, df)``."""
    from scipy import special

    return _probability(lambda x, df: special.stdtr(df, x), x, (df,), _REAL, upper_tail=False)


def t_sf(x, df):
    """``scipy.stats.t.sf(x, df)``."""
    from scipy import special

    return _probability(lambda x, df: special.stdtr(df, -x), x, (df,), _REAL, upper_tail=True)


def t_ppf(q, df):
    """``scipy.stats.t.ppf(q, df)``."""
    from scipy import special

    return _quantile(lambda q, df: special.stdtrit(df, q), q, (df,), _REAL, upper_tail=False)


def t_isf(q, df):
    """``scipy.stats.t.isf(q, df)``."""
    from scipy import special

    return _quantile(lambda q, df: -special.stdtrit(df, q), q, (df,), _REAL, upper_tail=True)


def beta_ppf(q, a, b):
    """``scipy.stats.beta.ppf(q, a, b)``."""
    from scipy.special import _ufuncs

    return _quantile(lambda q, a, b: _ufuncs._beta_ppf(q, a, b), q, (a, b), (0.0, 1.0), upper_tail=False)


def beta_isf(q, a, b):
    """``scipy.stats.beta.isf(q, a, b)``."""
    from scipy import special

    return _quantile(lambda q, a, b: special.betainccinv(a, b, q), q, (a, b), (0.0, 1.0), upper_tail=True)


def chi2_ppf(q, df):
    """``scipy.stats.chi2.ppf(q, df)``."""
    from scipy import special

    return _quantile(lambda q, df: 2 * special.gammaincinv(df / 2, q), q, (df,), (0.0, _INF), upper_tail=False)


def chi2_isf(q, df):
    """``scipy.stats.chi2.isf(q, df)``."""
    from scipy import special

    return _quantile(lambda q, df: special.chdtri(df, q), q, (df,), (0.0, _INF), upper_tail=True)
