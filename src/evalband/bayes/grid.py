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
from .._validate import ArgumentError
from ..display.reprs import displayed

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
    s = np.exp(u)  # keeps u's shape: on a grid (M, G, 1), so the alpha + beta terms are computed per row
    a = s * special.expit(v)
    b = s * special.expit(-v)
    extra = (np.newaxis,) * (max(u.ndim, v.ndim) - 1)
    y = correct[(slice(None),) + extra + (slice(None),)]
    f = (n - correct)[(slice(None),) + extra + (slice(None),)]
    nn = n[(slice(None),) + extra + (slice(None),)]
    t = correct.shape[1]
    # terms in alpha + beta alone depend on u only: on a (u x v) grid they cost one row, not the whole grid
    ll = (special.gammaln(a[..., None] + y) + special.gammaln(b[..., None] + f)).sum(-1)
    ll = ll - special.gammaln(s[..., None] + nn).sum(-1) + t * special.gammaln(s)
    ll -= t * (special.gammaln(a) + special.gammaln(b))
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


def _modes(correct, n, prior, *, max_iter=60):
    """Each model's posterior mode in (u, v) and Laplace sds: damped Newton steps with finite differences, all
    models at once.

    Each step tries fractions 1, 1/2, ..., 1/32 and 0 of the Newton step (a gradient step where the Hessian is not
    negative definite) and keeps the best, so the log density never decreases. Starts from a method-of-moments
    guess. Only a starting point for the grid: a mode at a hard limit or on a flat ridge is handled there.
    """
    m = correct.shape[0]
    p = (correct + 0.5) / (n + 1.0)
    mean = p.mean(axis=1)
    var = np.maximum(p.var(axis=1), 1e-12)
    s0 = np.clip(mean * (1 - mean) / var - 1.0, 0.1, 1e6)
    lim_lo = np.array([U_LIMITS[0], V_LIMITS[0]])
    lim_hi = np.array([U_LIMITS[1], V_LIMITS[1]])
    x = np.clip(np.column_stack([np.log(s0), special.logit(mean)]), lim_lo + 1e-3, lim_hi - 1e-3)
    h = 1e-4
    stencil = np.array([[0, 0], [h, 0], [-h, 0], [0, h], [0, -h], [h, h], [-h, -h]])
    fractions = np.array([1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.0])
    for _ in range(max_iter):
        pts = x[:, None, :] + stencil[None]
        f = log_posterior(pts[..., 0], pts[..., 1], correct, n, prior)  # (M, 7)
        g = np.column_stack([(f[:, 1] - f[:, 2]) / (2 * h), (f[:, 3] - f[:, 4]) / (2 * h)])
        huu = (f[:, 1] - 2 * f[:, 0] + f[:, 2]) / h**2
        hvv = (f[:, 3] - 2 * f[:, 0] + f[:, 4]) / h**2
        huv = (f[:, 5] - f[:, 1] - f[:, 3] + 2 * f[:, 0] - f[:, 2] - f[:, 4] + f[:, 6]) / (2 * h**2)
        det = huu * hvv - huv**2
        concave = (huu < 0) & (det > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = -np.column_stack([hvv * g[:, 0] - huv * g[:, 1], huu * g[:, 1] - huv * g[:, 0]]) / det[:, None]
        step = np.where(concave[:, None] & np.isfinite(newton), newton, g / (1.0 + np.abs(g).max(axis=1,
                                                                                               keepdims=True)))
        norm = np.sqrt((step**2).sum(axis=1, keepdims=True))
        step = np.where(norm > 2.0, step * 2.0 / np.maximum(norm, 1e-300), step)
        step = np.nan_to_num(step)
        cand = np.clip(x[:, None, :] + fractions[None, :, None] * step[:, None, :], lim_lo, lim_hi)
        fc = log_posterior(cand[..., 0], cand[..., 1], correct, n, prior)
        best = np.argmax(np.where(np.isnan(fc), -np.inf, fc), axis=1)
        new = cand[np.arange(m), best]
        done = np.abs(new - x).max() < 1e-7
        x = new
        if done:
            break
    # Laplace standard deviations from the last Hessian (NaN where the log density is not concave there)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(np.column_stack([-hvv / det, -huu / det]))
    sd[~concave] = np.nan
    return x, sd


def _zoom(correct, n, prior, *, drop, coarse=32, max_iter=30):
    """Per model, a box holding the region within ``drop`` of the maximum log density.

    Starts around the mode and iterates: shrink to the cells above the threshold (padded), and expand a side by
    the box's width whenever the threshold region touches it (up to the hard limits).
    """
    m = correct.shape[0]
    limits_lo = np.array([U_LIMITS[0], V_LIMITS[0]])
    limits_hi = np.array([U_LIMITS[1], V_LIMITS[1]])
    mode, sd = _modes(correct, n, prior)
    # start from the Laplace box (8 sd, past the ~6.6 sd that `drop` = 22 reaches for a Gaussian), or a generic
    # box where the mode is not a concave maximum; the zoom below shrinks or grows it as the density says
    half = np.where(np.isfinite(sd), np.clip(8.0 * sd, 1e-6, [10.0, 10.0]), [3.0, 1.0])
    lo = np.maximum(mode - half, limits_lo)
    hi = np.minimum(mode + half, limits_hi)
    for _ in range(max_iter):
        uc, vc, lp = _evaluate(lo, hi, coarse, correct, n, prior)
        top = lp.max(axis=(1, 2))
        if not np.isfinite(top).all():
            bad = int(np.flatnonzero(~np.isfinite(top))[0])
            raise ArgumentError(f"the posterior of model number {bad} is not finite anywhere on the grid;"
                             " check the prior's log density")
        keep = lp >= (top - drop)[:, None, None]
        new_lo, new_hi = np.empty_like(lo), np.empty_like(hi)
        grew = np.zeros(m, dtype=bool)
        for axis, centres, mask in ((0, uc, keep.any(axis=2)), (1, vc, keep.any(axis=1))):
            width = hi[:, axis] - lo[:, axis]
            h = width / coarse
            first = mask.argmax(axis=1)
            last = coarse - 1 - mask[:, ::-1].argmax(axis=1)
            rows = np.arange(m)
            a = centres[rows, first] - 2.5 * h
            b = centres[rows, last] + 2.5 * h
            low_edge = (first == 0) & (lo[:, axis] > limits_lo[axis])
            high_edge = (last == coarse - 1) & (hi[:, axis] < limits_hi[axis])
            a = np.where(low_edge, lo[:, axis] - width, a)
            b = np.where(high_edge, hi[:, axis] + width, b)
            grew |= low_edge | high_edge
            new_lo[:, axis] = np.maximum(a, limits_lo[axis])
            new_hi[:, axis] = np.minimum(b, limits_hi[axis])
        moved = grew | (np.abs(new_lo - lo) + np.abs(new_hi - hi) > 0.05 * (new_hi - new_lo)).any(axis=1)
        lo, hi = new_lo, new_hi
        if not moved.any():
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


@displayed
@dataclass(frozen=True, repr=False)
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


def fit_grid(correct, n, prior: Prior, *, size: int = 96, drop: float = 22.0) -> GridPosterior:
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
