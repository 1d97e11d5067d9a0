"""Deterministic posterior of each model's (alpha, beta) on an adaptive 2-D grid, and independent draws from it.

With ``theta_ij ~ Beta(alpha_i, beta_i)`` integrated out, model ``i``'s counts give the Beta-Binomial marginal
likelihood

    L_i(alpha, beta) = prod_j B(alpha + y_ij, beta + n_ij - y_ij) / B(alpha, beta)

(binomial coefficients dropped), so the posterior of (alpha_i, beta_i) is two-dimensional and is computed here
without MCMC, for all models at once. The grid lives on ``u = log(alpha + beta)`` (concentration) and
``v = logit(alpha / (alpha + beta))`` (mean), where the posterior is close to Gaussian; the Jacobian of
(u, v) -> (alpha, beta) is ``s**2 m (1 - m)`` with ``s = alpha + beta``, ``m = alpha / s``.

The extent adapts to each model: starting from wide hard limits (s in [1e-4, 1e10], |logit m| <= 25) a coarse
grid is zoomed, repeatedly, onto the cells whose log density lies within ``drop`` of the maximum, padded by two
cells. The final grid uses ``size`` cells per axis; the same quantities are also computed on a grid half as fine
and the largest change (posterior means of u, v and every theta_ij, in posterior standard deviations) is
reported as ``refinement_shift``: the answer does not depend on the grid when it is small.

Draws pick a cell with its posterior probability (midpoint rule) and jitter uniformly within the cell.

References
----------
Gelman, A. et al. (2013). Bayesian Data Analysis, 3rd ed., section 5.3 (the rat-tumour Beta-Binomial hierarchy,
computed on a grid of (log(alpha/beta), log(alpha + beta))).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from .priors import Prior

__all__ = ["GridPosterior", "fit_grid", "log_posterior", "U_LIMITS", "V_LIMITS"]

#: hard limits of the grid: log(alpha + beta) and logit(alpha / (alpha + beta))
U_LIMITS = (np.log(1e-4), np.log(1e10))
V_LIMITS = (-25.0, 25.0)
_CHUNK_ELEMENTS = 4_000_000  # models are evaluated in chunks so that (models x grid x tasks) stays small


def log_posterior(u, v, correct, n, prior: Prior) -> np.ndarray:
    """Unnormalised log posterior density of (u, v) = (log(alpha+beta), logit(alpha/(alpha+beta))).

    Parameters
    ----------
    u, v : numpy.ndarray
        Broadcastable to (M, ...) grid coordinates with the model axis first.
    correct, n : numpy.ndarray, shape (M, T)

    Returns
    -------
    numpy.ndarray
        Broadcast shape of ``u`` and ``v``; NaN from a user prior becomes -inf.
    """
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    s = np.exp(u)
    a = s * special.expit(v)
    b = s * special.expit(-v)
    extra = (np.newaxis,) * (max(u.ndim, v.ndim) - 1)
    y = correct[(slice(None),) + extra + (slice(None),)]
    f = (n - correct)[(slice(None),) + extra + (slice(None),)]
    nn = n[(slice(None),) + extra + (slice(None),)]
    a4, b4, s4 = a[..., None], b[..., None], s[..., None]
    t = correct.shape[1]
    ll = (special.gammaln(a4 + y) + special.gammaln(b4 + f) - special.gammaln(s4 + nn)).sum(-1)
    ll -= t * (special.gammaln(a) + special.gammaln(b) - special.gammaln(s))
    lp = ll + prior.logpdf(a, b) + 2.0 * u + special.log_expit(v) + special.log_expit(-v)
    return np.where(np.isnan(lp), -np.inf, lp)


def _evaluate(lo, hi, size, correct, n, prior):
    """Log density at cell centres of a size x size grid per model; returns (u centres, v centres, lp)."""
    m = correct.shape[0]
    steps = (np.arange(size) + 0.5) / size
    uc = lo[:, :1] + (hi[:, :1] - lo[:, :1]) * steps  # (M, size)
    vc = lo[:, 1:] + (hi[:, 1:] - lo[:, 1:]) * steps
    lp = np.empty((m, size, size))
    chunk = max(1, _CHUNK_ELEMENTS // (size * size * max(1, correct.shape[1])))
    for start in range(0, m, chunk):  # chunks of models bound the memory; the work inside is vectorized
        sl = slice(start, start + chunk)
        lp[sl] = log_posterior(uc[sl, :, None], vc[sl, None, :], correct[sl], n[sl], prior)
    return uc, vc, lp


def _zoom(correct, n, prior, *, drop, coarse=48, max_iter=15):
    m = correct.shape[0]
    limits_lo = np.array([U_LIMITS[0], V_LIMITS[0]])
    limits_hi = np.array([U_LIMITS[1], V_LIMITS[1]])
    lo = np.tile(limits_lo, (m, 1))
    hi = np.tile(limits_hi, (m, 1))
    for _ in range(max_iter):
        uc, vc, lp = _evaluate(lo, hi, coarse, correct, n, prior)
        top = lp.max(axis=(1, 2))
        if not np.isfinite(top).all():
            bad = int(np.flatnonzero(~np.isfinite(top))[0])
            raise ValueError(f"the posterior of model number {bad} is not finite anywhere on the grid;"
                             " check the prior's log density")
        keep = lp >= (top - drop)[:, None, None]
        new_lo, new_hi = np.empty_like(lo), np.empty_like(hi)
        for axis, centres, mask in ((0, uc, keep.any(axis=2)), (1, vc, keep.any(axis=1))):
            h = (hi[:, axis] - lo[:, axis]) / coarse
            first = mask.argmax(axis=1)
            last = coarse - 1 - mask[:, ::-1].argmax(axis=1)
            rows = np.arange(m)
            new_lo[:, axis] = np.maximum(centres[rows, first] - 2.5 * h, limits_lo[axis])
            new_hi[:, axis] = np.minimum(centres[rows, last] + 2.5 * h, limits_hi[axis])
        width = new_hi - new_lo
        moved = (np.abs(new_lo - lo) + np.abs(new_hi - hi) > 0.02 * width).any()
        lo, hi = new_lo, new_hi
        if not moved:
            break
    return lo, hi


def _moments(uc, vc, lp, correct, n):
    """Posterior probabilities per cell and the summaries compared across grid sizes."""
    w = np.exp(lp - lp.max(axis=(1, 2), keepdims=True))
    w /= w.sum(axis=(1, 2), keepdims=True)
    eu = (w.sum(axis=2) * uc).sum(axis=1)
    ev = (w.sum(axis=1) * vc).sum(axis=1)
    sdu = np.sqrt(np.maximum((w.sum(axis=2) * uc**2).sum(axis=1) - eu**2, 0))
    sdv = np.sqrt(np.maximum((w.sum(axis=1) * vc**2).sum(axis=1) - ev**2, 0))
    m, g, t = correct.shape[0], uc.shape[1], correct.shape[1]
    eth, e2th = np.empty((m, t)), np.empty((m, t))
    chunk = max(1, _CHUNK_ELEMENTS // (g * g * max(1, t)))
    for start in range(0, m, chunk):  # chunks of models bound the memory of the (M, G, G, T) terms
        sl = slice(start, start + chunk)
        s = np.exp(uc[sl])[:, :, None, None]
        tot = s + n[sl, None, None, :]
        mean_c = (s * special.expit(vc[sl])[:, None, :, None] + correct[sl, None, None, :]) / tot
        wt = w[sl, :, :, None]
        eth[sl] = (wt * mean_c).sum(axis=(1, 2))  # E[theta | alpha, beta] averaged over the grid
        e2th[sl] = (wt * mean_c * (mean_c + (1 - mean_c) / (tot + 1))).sum(axis=(1, 2))
    sdth = np.sqrt(np.maximum(e2th - eth**2, 0))
    return w, np.column_stack([eu, ev]), np.column_stack([sdu, sdv]), eth, sdth


@dataclass(frozen=True)
class GridPosterior:
    """The gridded posterior of every model's (alpha, beta).

    Attributes
    ----------
    u_range, v_range : numpy.ndarray, shape (M, 2)
        Extent of each model's final grid in log(alpha+beta) and logit(alpha/(alpha+beta)).
    size : int
        Cells per axis of the final grid (a grid of ``size // 2`` is the refinement check).
    refinement_shift : numpy.ndarray, shape (M,)
        Largest change of a posterior mean (u, v, and each theta_ij) between the two grids, in posterior sds.
    edge_drop : numpy.ndarray, shape (M,)
        Maximum log density on the grid's boundary cells below the overall maximum (large is good).
    at_limit : numpy.ndarray of bool, shape (M,)
        Whether the grid reached a hard limit with non-negligible density there.
    theta_mean, theta_sd : numpy.ndarray, shape (M, T)
        Posterior means and sds of theta computed by quadrature (no Monte Carlo error).
    """

    u_centres: np.ndarray
    v_centres: np.ndarray
    probs: np.ndarray
    u_range: np.ndarray
    v_range: np.ndarray
    size: int
    refinement_shift: np.ndarray
    edge_drop: np.ndarray
    at_limit: np.ndarray
    theta_mean: np.ndarray
    theta_sd: np.ndarray
    uv_mean: np.ndarray
    uv_sd: np.ndarray

    def sample(self, n_draws: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Independent draws of (alpha, beta), each shaped (n_draws, M)."""
        m, g = self.probs.shape[0], self.size
        cum = np.cumsum(self.probs.reshape(m, -1), axis=1)
        cum /= cum[:, -1:]
        cum[:, -1] = 1.0
        offsets = np.arange(m)[:, None]
        flat = (cum + offsets).ravel()  # one searchsorted over all models at once
        pick = rng.random((m, n_draws))
        idx = np.searchsorted(flat, (pick + offsets).ravel(), side="right").reshape(m, n_draws) - offsets * g * g
        idx = np.minimum(idx, g * g - 1)
        iu, iv = np.divmod(idx, g)
        hu = (self.u_range[:, 1] - self.u_range[:, 0]) / g
        hv = (self.v_range[:, 1] - self.v_range[:, 0]) / g
        u = np.take_along_axis(self.u_centres, iu, axis=1) + (rng.random((m, n_draws)) - 0.5) * hu[:, None]
        v = np.take_along_axis(self.v_centres, iv, axis=1) + (rng.random((m, n_draws)) - 0.5) * hv[:, None]
        s = np.exp(u)
        return (s * special.expit(v)).T, (s * special.expit(-v)).T


def fit_grid(correct, n, prior: Prior, *, size: int = 160, drop: float = 22.0) -> GridPosterior:
    """Grid posterior of (alpha_i, beta_i) for every model from counts shaped (M, T).

    Parameters
    ----------
    size : int
        Cells per axis of the final grid (even; the check grid has ``size // 2``).
    drop : float
        The grid covers the region where the log density is within ``drop`` of its maximum (mass outside it is
        below about ``exp(-drop)`` per cell).
    """
    correct = np.asarray(correct, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    lo, hi = _zoom(correct, n, prior, drop=drop)
    uc, vc, lp = _evaluate(lo, hi, size, correct, n, prior)
    w, uv_mean, uv_sd, eth, sdth = _moments(uc, vc, lp, correct, n)
    uc2, vc2, lp2 = _evaluate(lo, hi, size // 2, correct, n, prior)
    _, uv_mean2, _, eth2, _ = _moments(uc2, vc2, lp2, correct, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        shift_uv = np.abs(uv_mean - uv_mean2) / uv_sd
        shift_th = np.abs(eth - eth2) / sdth
    shift = np.nan_to_num(np.maximum(shift_uv.max(axis=1), shift_th.max(axis=1)), nan=0.0, posinf=np.inf)
    top = lp.max(axis=(1, 2))
    edge = np.maximum.reduce([lp[:, 0, :].max(axis=1), lp[:, -1, :].max(axis=1),
                              lp[:, :, 0].max(axis=1), lp[:, :, -1].max(axis=1)])
    edge_drop = top - edge
    touches = ((np.isclose(lo[:, 0], U_LIMITS[0]) | np.isclose(hi[:, 0], U_LIMITS[1])
                | np.isclose(lo[:, 1], V_LIMITS[0]) | np.isclose(hi[:, 1], V_LIMITS[1])))
    at_limit = touches & (edge_drop < drop - 2.0)
    return GridPosterior(uc, vc, w, np.column_stack([lo[:, 0], hi[:, 0]]), np.column_stack([lo[:, 1], hi[:, 1]]),
                         size, shift, edge_drop, at_limit, eth, sdth, uv_mean, uv_sd)
