"""Agreement coefficients as sums over units: per-unit columns and a finish function for each.

Each builder returns a :class:`Coefficient`: ``columns`` (n_units, k), the per-unit sufficient quantities, and
``finish``, a function of column sums ``(..., k) -> (...)`` that gives the coefficient. The observed value is
``finish(columns.sum(0))``; a bootstrap replicate's value is ``finish(w @ columns)`` for unit draw counts ``w``, so
every replicate of every coefficient comes from one matrix product (``evalband.resample.units``).

Notation: ``n_uc`` is the number of raters giving value c to unit u, ``m_u = sum_c n_uc``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ..display.reprs import displayed

__all__ = ["Coefficient", "alpha", "fleiss", "percent_agreement", "gwet_ac1", "cohen", "kappa_weights",
           "distance_matrix"]


@displayed
@dataclass(frozen=True, repr=False)
class Coefficient:
    """Per-unit columns (n_units, k) and the finish ``(..., k) -> (...)`` of one coefficient."""

    name: str
    columns: np.ndarray
    finish: object
    n_units: int
    rater_a: str = ""
    rater_b: str = ""

    def observed(self) -> float:
        with np.errstate(invalid="ignore", divide="ignore"):
            return float(self.finish(self.columns.sum(axis=0)))


def distance_matrix(level: str, values, n_categories: int) -> np.ndarray | None:
    """Krippendorff's squared difference ``delta^2(c, k)`` for nominal, interval and ratio data (None for
    ordinal, whose distance depends on the value counts)."""
    if level == "nominal":
        return 1.0 - np.eye(n_categories)
    if level == "ordinal":
        return None
    v = np.asarray(values, dtype=np.float64)
    diff = v[:, None] - v[None, :]
    if level == "interval":
        return diff ** 2
    total = v[:, None] + v[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total != 0, (diff / np.where(total != 0, total, 1.0)) ** 2, 0.0)


def _ordinal_distance(nv: np.ndarray) -> np.ndarray:
    """Ordinal ``delta^2(c, k) = (sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2`` for value counts (..., V)."""
    cum = np.cumsum(nv, axis=-1)
    between = cum[..., None, :] - cum[..., :, None] + nv[..., :, None]  # [c, k] = sum_{g=c..k} n_g for c <= k
    d = (between - (nv[..., :, None] + nv[..., None, :]) / 2.0) ** 2
    upper = np.triu(np.ones(nv.shape[-1], dtype=bool))
    d = np.where(upper, d, 0.0)
    return d + np.swapaxes(d, -1, -2)


def alpha(counts: np.ndarray, level: str, values=None) -> Coefficient:
    """Krippendorff's alpha from unit value counts (n_units, V), any level, missing ratings allowed.

    ``alpha = 1 - (n - 1) sum_ck o_ck delta_ck / sum_ck n_c n_k delta_ck`` with the coincidences
    ``o_ck = sum_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1)`` over pairable units (m_u >= 2) and
    ``n_c = sum_k o_ck`` (Krippendorff 2011).
    """
    counts = np.asarray(counts, dtype=np.float64)
    n_u, v = counts.shape
    m = counts.sum(axis=1)
    pairable = m >= 2
    c = np.where(pairable[:, None], counts, 0.0)
    denom = np.where(pairable, m - 1.0, 1.0)
    delta = distance_matrix(level, values, v)
    if delta is None:  # ordinal: the replicate's coincidences are needed, not one disagreement number
        o = (c[:, :, None] * c[:, None, :] - c[:, :, None] * np.eye(v)[None]) / denom[:, None, None]
        cols = o.reshape(n_u, v * v)

        def finish(s):
            o_s = s.reshape(*s.shape[:-1], v, v)
            nv = o_s.sum(axis=-1)
            d = _ordinal_distance(nv)
            n = nv.sum(axis=-1)
            with np.errstate(invalid="ignore", divide="ignore"):
                return 1.0 - (n - 1.0) * (o_s * d).sum(axis=(-1, -2)) / np.einsum("...c,...ck,...k->...", nv, d, nv)
    else:
        disagree = np.einsum("uc,ck,uk->u", c, delta, c) / denom
        cols = np.column_stack([disagree, c])

        def finish(s):
            nv = s[..., 1:]
            n = nv.sum(axis=-1)
            with np.errstate(invalid="ignore", divide="ignore"):
                return 1.0 - (n - 1.0) * s[..., 0] / np.einsum("...c,ck,...k->...", nv, delta, nv)
    return Coefficient("krippendorff_alpha", cols, finish, int(pairable.sum()))


def _pair_share(counts: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per unit: share of ordered pairs of its ratings that agree, ``sum_c n_uc (n_uc - 1) / (m_u (m_u - 1))``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m >= 2, (counts * (counts - 1)).sum(axis=1) / (m * (m - 1)), 0.0)


def fleiss(counts: np.ndarray, n_raters: int) -> Coefficient:
    """Fleiss' kappa on the units rated exactly ``n_raters`` times (a complete design; others get zero rows).

    ``kappa = (P - P_e) / (1 - P_e)``, ``P`` the mean per-unit pairwise agreement, ``P_e = sum_c p_c^2`` with
    ``p_c`` the share of ratings in category c (Fleiss 1971; statsmodels' ``fleiss_kappa(method='fleiss')``).
    """
    counts = np.asarray(counts, dtype=np.float64)
    m = counts.sum(axis=1)
    full = m == n_raters
    share = _pair_share(counts, m)
    cols = np.column_stack([np.where(full, share, 0.0), full.astype(float), np.where(full[:, None], counts, 0.0)])

    def finish(s):
        n = s[..., 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            p_bar = s[..., 0] / n
            p = s[..., 2:] / (n * n_raters)[..., None]
            p_e = (p * p).sum(axis=-1)
            return (p_bar - p_e) / (1.0 - p_e)
    return Coefficient("fleiss_kappa", cols, finish, int(full.sum()))


def percent_agreement(counts: np.ndarray) -> Coefficient:
    """Mean over pairable units of the share of agreeing pairs of ratings (exact equality of values)."""
    counts = np.asarray(counts, dtype=np.float64)
    m = counts.sum(axis=1)
    cols = np.column_stack([_pair_share(counts, m), (m >= 2).astype(float)])

    def finish(s):
        with np.errstate(invalid="ignore", divide="ignore"):
            return s[..., 0] / s[..., 1]
    return Coefficient("percent_agreement", cols, finish, int((m >= 2).sum()))


def gwet_ac1(counts: np.ndarray) -> Coefficient:
    """Gwet's AC1 for several raters with missing ratings (Gwet 2008, 2014).

    ``AC1 = (p_a - p_e) / (1 - p_e)`` with ``p_a`` the mean pairwise agreement over units rated at least twice,
    ``p_e = sum_c pi_c (1 - pi_c) / (q - 1)``, ``pi_c`` the mean over units of each unit's share of ratings in
    category c and ``q`` the number of categories.
    """
    counts = np.asarray(counts, dtype=np.float64)
    m = counts.sum(axis=1)
    q = counts.shape[1]
    pairable = m >= 2
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = np.where(m[:, None] > 0, counts / m[:, None], 0.0)
    cols = np.column_stack([_pair_share(counts, m), pairable.astype(float), shares, (m > 0).astype(float)])

    def finish(s):
        with np.errstate(invalid="ignore", divide="ignore"):
            p_a = s[..., 0] / s[..., 1]
            pi = s[..., 2:2 + q] / s[..., -1:]
            p_e = (pi * (1.0 - pi)).sum(axis=-1) / (q - 1) if q > 1 else np.full(p_a.shape, np.nan)
            return (p_a - p_e) / (1.0 - p_e)
    return Coefficient("gwet_ac1", cols, finish, int(pairable.sum()))


def kappa_weights(n_categories: int, weights: str | None, values=None) -> np.ndarray:
    """Disagreement weights of Cohen's kappa: 0/1 (None), ``|i - j|`` ('linear') or ``(i - j)^2`` ('quadratic')
    on the categories' positions (as scikit-learn's ``cohen_kappa_score`` and statsmodels' ``cohen_kappa``), or
    on their values when ``values`` is given (interval data)."""
    pos = np.arange(n_categories, dtype=np.float64) if values is None else np.asarray(values, dtype=np.float64)
    diff = np.abs(pos[:, None] - pos[None, :])
    if weights is None:
        return (diff > 0).astype(np.float64)
    if weights == "linear":
        return diff
    return diff ** 2


def cohen(matrix: np.ndarray, a: int, b: int, weights: np.ndarray, *, name: str = "cohen_kappa",
          rater_a: str = "", rater_b: str = "") -> Coefficient:
    """Cohen's (weighted) kappa of raters ``a`` and ``b`` on the units both rated.

    ``kappa = 1 - sum_ij w_ij p_ij / sum_ij w_ij p_i. p_.j`` with disagreement weights ``w`` (Cohen 1960, 1968);
    with 0/1 weights this is ``(p_o - p_e) / (1 - p_e)``.
    """
    va, vb = matrix[a], matrix[b]
    both = (va >= 0) & (vb >= 0)
    v = weights.shape[0]
    n_u = va.size
    oa = np.zeros((n_u, v))
    ob = np.zeros((n_u, v))
    oa[np.flatnonzero(both), va[both]] = 1.0
    ob[np.flatnonzero(both), vb[both]] = 1.0
    dis = np.where(both, weights[np.maximum(va, 0), np.maximum(vb, 0)], 0.0)
    cols = np.column_stack([dis, both.astype(float), oa, ob])

    def finish(s):
        n = s[..., 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            pa = s[..., 2:2 + v] / n[..., None]
            pb = s[..., 2 + v:] / n[..., None]
            expected = np.einsum("...i,ij,...j->...", pa, weights, pb)
            return 1.0 - (s[..., 0] / n) / expected
    return Coefficient(name, cols, finish, int(both.sum()), rater_a, rater_b)
