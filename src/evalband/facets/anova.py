"""Variance components of a balanced crossed / nested random-effects design: expected mean squares.

The array core behind :func:`evalband.facets.variance_components` for balanced designs, vectorized over any
leading axes (models, pairs). Intervals come from generalized pivotal quantities of the mean squares.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from .._validate import ArgumentError
from ..display.reprs import displayed

__all__ = ["AnovaTable", "anova_components", "closure"]


def closure(subset, parents) -> tuple:
    """The smallest set of factors holding ``subset`` and, for each member, the factors it is nested in."""
    out = set(subset)
    grow = True
    while grow:
        extra = set().union(*(parents[a] for a in out)) - out if out else set()
        grow = bool(extra)
        out |= extra
    return tuple(sorted(out))


@displayed
@dataclass(frozen=True, repr=False)
class AnovaTable:
    """The ANOVA table of a balanced random-effects design, with the expected-mean-squares solution.

    Attributes
    ----------
    terms : tuple of tuple of int
        Random terms (sets of factors closed under nesting), smallest first; the last is the cell term.
    ss, ms : numpy.ndarray, shape (..., n_terms)
        Sums of squares and mean squares on the scale of one trial.
    df : numpy.ndarray, shape (n_terms,)
    within_ms : numpy.ndarray, shape (..., n_sources) or None
        Within-cell mean square of each residual source (one per model; two for a difference), None without
        repeated trials (the cell term then holds the residual).
    within_df : numpy.ndarray, shape (..., n_sources) or None
    ems : numpy.ndarray, shape (n_terms, n_terms)
        ``E[MS_T] = sum_U ems[T, U] sigma2_U + sigma2_e`` (the last only with trials).
    estimate : numpy.ndarray, shape (..., n_terms + has_trials)
        Unbiased estimates of the components (can be negative), the residual (trial) component last.
    trials : int
    """

    terms: tuple
    ss: np.ndarray
    ms: np.ndarray
    df: np.ndarray
    within_ms: np.ndarray | None
    within_df: np.ndarray | None
    ems: np.ndarray
    estimate: np.ndarray
    trials: int

    @property
    def has_trials(self) -> bool:
        return self.within_ms is not None

    def coefficients(self) -> np.ndarray:
        """Matrix ``A`` with ``estimate = A @ [ms, ms_e]`` (last column: the residual mean square)."""
        k = len(self.terms)
        if not self.has_trials:
            return np.linalg.inv(self.ems)
        full = np.zeros((k + 1, k + 1))
        full[:k, :k] = self.ems
        full[:k, k] = 1.0
        full[k, k] = 1.0
        return np.linalg.inv(full)

    def pivots(self, gen: np.random.Generator, n_draws: int) -> np.ndarray:
        """Generalized pivotal quantities of the components, (n_draws, ..., n_terms + has_trials).

        Each mean square ``ms`` on ``df`` degrees of freedom is replaced by ``ms * df / W`` with an independent
        ``W ~ chi2(df)``; the expected-mean-squares solution of the replaced table is one draw (Weerahandi 1993).
        """
        lead = self.ms.shape[:-1]
        w = gen.chisquare(np.broadcast_to(self.df, (n_draws, *lead, len(self.df))))
        ms = self.ms[None] * self.df / w
        a = self.coefficients()
        if self.has_trials:
            wd = np.broadcast_to(self.within_df, (n_draws,) + self.within_df.shape)
            we = gen.chisquare(np.where(wd > 0, wd, 1.0))
            e = np.where(wd > 0, self.within_ms[None] * wd / we, 0.0).sum(axis=-1)
            ms = np.concatenate([ms, e[..., None]], axis=-1)
        return ms @ a.T

    def satterthwaite_df(self, weights) -> np.ndarray:
        """Satterthwaite degrees of freedom of ``weights @ estimate`` (a linear combination of mean squares)."""
        a = np.asarray(weights, dtype=np.float64) @ self.coefficients()  # (..., n_ms)
        k = len(self.terms)
        parts = (a[..., :k] * self.ms) ** 2 / self.df
        total = (a[..., :k] * self.ms).sum(axis=-1)
        if self.has_trials:
            ae = a[..., k:k + 1] * self.within_ms
            total = total + ae.sum(axis=-1)
            with np.errstate(divide="ignore", invalid="ignore"):
                parts_e = np.where(self.within_df > 0, ae ** 2 / np.maximum(self.within_df, 1), 0.0)
            parts = np.concatenate([parts, parts_e], axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return total ** 2 / parts.sum(axis=-1)


def anova_components(y, *, trials: int = 1, parents=None, within_ss=None, within_df=None) -> AnovaTable:
    """Expected-mean-squares (ANOVA) estimates of the variance components of a balanced design.

    Parameters
    ----------
    y : array_like, shape (..., k_0, ..., k_{K-1})
        Cell means (each the mean of ``trials`` trials) of a balanced design with K factors; leading axes
        (models, pairs) are analysed at once. A factor nested in others indexes its levels within each
        combination of theirs (``k_a`` levels per combination).
    trials : int
        Trials per cell.
    parents : sequence of set of int, optional
        For each factor, the factors it is nested in (default: every factor crossed with every other).
    within_ss, within_df : array_like, shape (..., n_sources), optional
        Within-cell sums of squares and degrees of freedom of each residual source (one source for one model;
        the two models of a difference are two sources). Without them the cell term holds the residual.

    Returns
    -------
    AnovaTable

    Notes
    -----
    For a random-effects model with every factor random, ``E[MS_T] = sigma2_e + r sum_{U >= T} (prod_{k not in
    U} k_k) sigma2_U`` over the terms U containing T's factors (Cornfield & Tukey 1956); solving the triangular
    system gives unbiased estimates, which can be negative. Sums of squares of a nested term add those of the
    crossed terms it absorbs (e.g. SS of 'worker within item' = SS_worker + SS_item x worker).

    References
    ----------
    Cornfield, J. & Tukey, J. W. (1956). Average values of mean squares in factorials. Ann. Math. Stat. 27.
    Searle, S. R., Casella, G. & McCulloch, C. E. (1992). Variance Components, chapter 4. Wiley.
    Brennan, R. L. (2001). Generalizability Theory. Springer.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.facets import anova_components
    >>> y = np.array([[1., 0.], [1., 1.], [0., 0.]])      # 3 items x 2 prompts
    >>> anova_components(y).estimate.round(4) + 0.0        # item, prompt, residual (item x prompt)
    array([0.1667, 0.    , 0.1667])
    """
    y = np.asarray(y, dtype=np.float64)
    trials = int(trials)
    if trials < 1:
        raise ArgumentError(f"`trials` must be an integer >= 1; got {trials!r}.")
    k = y.ndim if parents is None else len(parents)
    if parents is None:
        parents = [frozenset()] * k
    parents = [frozenset(p) for p in parents]
    if y.ndim < k:
        raise ArgumentError(f"`y` must have at least {k} axes (one per factor); got shape {y.shape}.")
    lead = y.ndim - k
    shape = y.shape[lead:]
    if min(shape) < 1:
        raise ArgumentError(f"`y` has an empty factor axis: shape {y.shape}.")
    axes = list(range(lead, y.ndim))
    subsets = [s for size in range(1, k + 1) for s in itertools.combinations(range(k), size)]
    means = {(): y.mean(axis=tuple(axes), keepdims=True)}
    for s in subsets:
        means[s] = y.mean(axis=tuple(axes[a] for a in range(k) if a not in s), keepdims=True)
    terms = tuple(t for t in subsets if all(parents[a] <= set(t) for a in t))
    ss = {t: 0.0 for t in terms}
    df = {t: 0 for t in terms}
    for s in subsets:
        eff = sum((-1) ** (len(s) - len(v)) * means[v]
                  for size in range(len(s) + 1) for v in itertools.combinations(s, size))
        rep = trials * int(np.prod([shape[a] for a in range(k) if a not in s]))
        t = closure(s, parents)
        ss[t] = ss[t] + rep * (eff ** 2).sum(axis=tuple(axes))
        df[t] += int(np.prod([shape[a] - 1 for a in s]))
    ss_arr = np.stack([np.broadcast_to(ss[t], y.shape[:lead]) for t in terms], axis=-1)
    df_arr = np.array([df[t] for t in terms], dtype=np.float64)
    if (df_arr <= 0).any():
        bad = [t for t in terms if df[t] <= 0]
        raise ArgumentError(f"term(s) {bad} have no degrees of freedom: every factor needs at least 2 levels.")
    ms = ss_arr / df_arr
    ems = np.zeros((len(terms), len(terms)))
    for i, t in enumerate(terms):
        for j, u in enumerate(terms):
            if set(t) <= set(u):
                ems[i, j] = trials * int(np.prod([shape[a] for a in range(k) if a not in u]))
    w_ms = w_df = None
    if within_ss is not None:
        w_ss = np.asarray(within_ss, dtype=np.float64)
        w_df = np.asarray(within_df, dtype=np.float64)
        if w_ss.shape != w_df.shape:
            raise ArgumentError("`within_ss` and `within_df` must have the same shape.")
        if (w_df.sum(axis=-1) > 0).all():
            with np.errstate(invalid="ignore", divide="ignore"):
                w_ms = np.where(w_df > 0, w_ss / np.maximum(w_df, 1), 0.0)
        else:
            w_df = None
    table = AnovaTable(terms, ss_arr, ms, df_arr, w_ms, w_df, ems, np.empty(0), trials)
    full = np.concatenate([ms, w_ms.sum(axis=-1, keepdims=True)], axis=-1) if w_ms is not None else ms
    est = full @ table.coefficients().T
    object.__setattr__(table, "estimate", est)
    return table
