"""The two-parameter logistic (2PL) and Rasch models on item-level responses, with their observed information.

``P(model m right on item i) = sigmoid(a_i theta_m + d_i)``: ability ``theta_m``, discrimination ``a_i``,
intercept ``d_i`` (difficulty ``b_i = -d_i / a_i``, so that the logit is ``a_i (theta_m - b_i)``); the Rasch model
has every ``a_i = 1``. The slope-intercept form keeps an item whose discrimination is near 0 (it carries no
information) or negative (likely a wrong answer key) well defined.

The fit is joint maximum a posteriori (the models' abilities are parameters, as in Epoch's stitching, under weak
priors ``theta ~ N(0, 3^2)``, ``a ~ N(1, 2.5^2)``, ``d ~ N(0, 5^2)``), by Newton steps that eliminate each item's
2 x 2 block and solve the (M x M) Schur complement for the abilities: ``O(M^2 I)`` per step. Evaluations have few
models and many items, the regime where joint estimation is sound (each ability rests on thousands of items;
the Neyman-Scott bias of joint estimation shrinks with the items per model; Haberman 1977). The scale is then
standardized: abilities of mean 0 and variance 1 over the models. :func:`newton` solves R fits at once (arrays
(R, M, I)), each with its own item weights: the bootstrap refits of :mod:`.item_abilities` (items resampled
within tasks, each refit started from the full-data fit) are the same steps as the full fit.

Uncertainty from the observed information at the optimum:

* items: each item's (a, d) covariance is its block of the inverse information (the 2 x 2 block plus the
  abilities' uncertainty carried through the Schur complement), turned into intervals for ``a`` and, by the
  delta method, for ``b``;
* abilities: the sandwich ``S^-1 J S^-1``, with ``S`` the profile information of the abilities and ``J`` the
  outer products of the items' profile score contributions, centred within tasks: the linearization of the
  bootstrap that resamples items within tasks, paired across models (robust to items that are not locally
  independent or not 2PL).

References
----------
Birnbaum, A. (1968). Some latent trait models. In Lord & Novick, Statistical Theories of Mental Test Scores.
Haberman, S. J. (1977). Maximum likelihood estimates in exponential response models. Ann. Statist. 5, 815-841.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, log_expit

__all__ = ["IrtFit", "fit_irt", "newton", "cold_start", "standardize", "PRIORS"]

#: prior standard deviations (and the discrimination's prior mean)
PRIORS = {"ability": 3.0, "discrimination_mean": 1.0, "discrimination": 2.5, "intercept": 5.0}


@dataclass(frozen=True, eq=False)
class IrtFit:
    """A fitted 2PL / Rasch model on the standardized scale.

    Attributes
    ----------
    theta : (M,)
    a, b, d : (I,)
        Discrimination, difficulty (``-d / a``) and intercept.
    cov_theta : (M, M)
        Sandwich covariance of the abilities (items within tasks).
    cov_theta_model : (M, M)
        Model-based (inverse information) covariance of the abilities.
    cov_theta_raw : (M, M)
        The sandwich before standardization, in the units of the standardized scale: the noise of the abilities
        on the fit's own scale, which standardizing each refit (or draw) then shrinks towards the mean.
    var_a, var_b, var_d, cov_ad : (I,)
        Variances of the discrimination, difficulty and intercept, and the covariance of discrimination and
        intercept (each item's block of the inverse information).
    converged : bool
    iterations : int
    """

    theta: np.ndarray
    a: np.ndarray
    b: np.ndarray
    d: np.ndarray
    cov_theta: np.ndarray
    cov_theta_model: np.ndarray
    var_a: np.ndarray
    var_b: np.ndarray
    var_d: np.ndarray
    cov_ad: np.ndarray
    converged: bool
    iterations: int
    cov_theta_raw: np.ndarray | None = None


def _eta(theta, a, d):
    """(R, M, I) linear predictors of R replicates."""
    return theta[:, :, None] * a[:, None, :] + d[:, None, :]


def _objective(theta, a, d, y, obs, w, rasch, pr):
    """(R,) penalized negative log-likelihoods; item ``i`` counted ``w[r, i]`` times."""
    eta = _eta(theta, a, d)
    f = np.einsum("rmi,ri->r", np.where(obs, (1.0 - y) * eta - log_expit(eta), 0.0), w)
    f += 0.5 * (theta * theta).sum(-1) / pr["ability"] ** 2 + 0.5 * (d * d).sum(-1) / pr["intercept"] ** 2
    if not rasch:
        f += 0.5 * ((a - pr["discrimination_mean"]) ** 2).sum(-1) / pr["discrimination"] ** 2
    return f


def _blocks(theta, a, d, y, obs, w, rasch, pr):
    """Gradients, the abilities' diagonal, the items' 2 x 2 blocks and the cross terms (exact Hessian), each with a
    leading replicate axis; ``r`` and ``v`` are the weighted residuals and Fisher weights (R, M, I)."""
    p = expit(_eta(theta, a, d))
    r = np.where(obs, p - y, 0.0) * w[:, None, :]
    v = np.where(obs, p * (1.0 - p), 0.0) * w[:, None, :]
    g_t = np.einsum("rmi,ri->rm", r, a) + theta / pr["ability"] ** 2
    h_t = np.einsum("rmi,ri->rm", v, a * a) + 1.0 / pr["ability"] ** 2
    g_d = r.sum(axis=1) + d / pr["intercept"] ** 2
    h_dd = v.sum(axis=1) + 1.0 / pr["intercept"] ** 2
    x_d = v * a[:, None, :]  # d2 / dtheta_m dd_i
    if rasch:
        return g_t, h_t, None, g_d, None, None, h_dd, None, x_d, r
    g_a = np.einsum("rmi,rm->ri", r, theta) + (a - pr["discrimination_mean"]) / pr["discrimination"] ** 2
    h_aa = np.einsum("rmi,rm->ri", v, theta * theta) + 1.0 / pr["discrimination"] ** 2
    h_ad = np.einsum("rmi,rm->ri", v, theta)
    x_a = x_d * theta[:, :, None] + r  # d2 / dtheta_m da_i (the residual term: eta is bilinear)
    return g_t, h_t, g_a, g_d, h_aa, h_ad, h_dd, x_a, x_d, r


def _solve(theta, a, d, y, obs, w, rasch, pr, lam):
    """One damped Newton step of every replicate (the items' blocks eliminated, the (M x M) Schur complement of
    the abilities solved), and the pieces of the information at the current point."""
    g_t, h_t, g_a, g_d, h_aa, h_ad, h_dd, x_a, x_d, r = _blocks(theta, a, d, y, obs, w, rasch, pr)
    lam = lam[:, None]
    h_t = h_t * (1 + lam)
    h_dd = h_dd * (1 + lam)
    diag = np.arange(theta.shape[1])
    if rasch:
        inv_dd = 1.0 / h_dd
        u_d = x_d * inv_dd[:, None, :]
        schur = -np.matmul(u_d, x_d.transpose(0, 2, 1))
        schur[:, diag, diag] += h_t
        rhs = -g_t + np.einsum("rmi,ri->rm", u_d, g_d)
        dt = np.linalg.solve(schur, rhs[:, :, None])[:, :, 0]
        dd = inv_dd * (-g_d - np.einsum("rmi,rm->ri", x_d, dt))
        return dt, np.zeros_like(a), dd, schur, (None, u_d), (None, None, inv_dd)
    h_aa = h_aa * (1 + lam)
    det = h_aa * h_dd - h_ad * h_ad
    det = np.where(det > 1e-300, det, 1e-300)
    i_aa, i_ad, i_dd = h_dd / det, -h_ad / det, h_aa / det
    u_a = x_a * i_aa[:, None, :] + x_d * i_ad[:, None, :]  # X_i B_i^-1, column a
    u_d = x_a * i_ad[:, None, :] + x_d * i_dd[:, None, :]
    schur = -np.matmul(u_a, x_a.transpose(0, 2, 1)) - np.matmul(u_d, x_d.transpose(0, 2, 1))
    schur[:, diag, diag] += h_t
    rhs = -g_t + np.einsum("rmi,ri->rm", u_a, g_a) + np.einsum("rmi,ri->rm", u_d, g_d)
    dt = np.linalg.solve(schur, rhs[:, :, None])[:, :, 0]
    ra = -g_a - np.einsum("rmi,rm->ri", x_a, dt)
    rd = -g_d - np.einsum("rmi,rm->ri", x_d, dt)
    return dt, i_aa * ra + i_ad * rd, i_ad * ra + i_dd * rd, schur, (u_a, u_d), (i_aa, i_ad, i_dd)


def newton(y, obs, start, *, weights=None, rasch: bool = False, prior=None, max_iter: int = 200,
           tol: float = 1e-7):
    """Joint MAP fit of R replicates at once by damped Newton steps.

    ``y``, ``obs`` (M, I) are shared; ``start = (theta, a, d)`` with shapes (R, M), (R, I), (R, I) (or without
    the replicate axis); ``weights`` (R, I) counts item ``i`` of replicate ``r`` that many times (a bootstrap's
    multiplicities; None: once). Returns ``(theta, a, d, converged, iterations)`` on the scale of the fit (not
    standardized), ``converged`` (R,) bool."""
    pr = dict(PRIORS, **(prior or {}))
    theta, a, d = (np.array(np.atleast_2d(v), dtype=float) for v in start)
    r_ = max(theta.shape[0], 1 if weights is None else np.atleast_2d(weights).shape[0])
    theta, a, d = (np.broadcast_to(v, (r_, v.shape[1])).copy() for v in (theta, a, d))
    w = np.ones((r_, y.shape[1])) if weights is None else np.broadcast_to(
        np.atleast_2d(np.asarray(weights, dtype=float)), (r_, y.shape[1]))
    y = np.where(obs, y, 0.0)
    if rasch:
        a[:] = 1.0
    lam = np.full(r_, 1e-3)
    f = _objective(theta, a, d, y, obs, w, rasch, pr)
    active = np.ones(r_, dtype=bool)
    converged = np.zeros(r_, dtype=bool)
    it = 0
    while it < max_iter and active.any():
        it += 1
        idx = np.flatnonzero(active)
        dt, da, dd, *_ = _solve(theta[idx], a[idx], d[idx], y, obs, w[idx], rasch, pr, lam[idx])
        big = np.maximum(np.abs(dt).max(1), np.maximum(np.abs(da).max(1), np.abs(dd).max(1)))
        s = np.minimum(1.0, 2.0 / np.maximum(big, 1e-300))  # no parameter moves by more than 2 in one step
        t_new, a_new, d_new = theta[idx] + s[:, None] * dt, a[idx] + s[:, None] * da, d[idx] + s[:, None] * dd
        with np.errstate(over="ignore", invalid="ignore"):
            f_new = _objective(t_new, a_new, d_new, y, obs, w[idx], rasch, pr)
        ok = np.isfinite(f_new) & (f_new <= f[idx] + 1e-12 * np.abs(f[idx]))
        acc = idx[ok]
        gain = f[idx] - f_new
        theta[acc], a[acc], d[acc], f[acc] = t_new[ok], a_new[ok], d_new[ok], f_new[ok]
        # converged: an accepted step too small to matter, or one that no longer lowers the objective by more
        # than rounding; stalled: no step accepted even with a huge damping
        small = ok & ((big * s < tol * (1 + np.abs(t_new).max(1))) | (gain <= 1e-11 * (1 + np.abs(f_new))))
        stalled = ~ok & (lam[idx] > 1e10)
        lam[idx] = np.where(ok, np.maximum(lam[idx] / 3, 1e-9), lam[idx] * 4)
        converged[idx[small]] = True
        active[idx[small | stalled]] = False
    return theta, a, d, converged, it


def cold_start(y, obs):
    """Start values: abilities from the logits of the models' mean scores, intercepts from the items' means."""
    y = np.where(obs, y, 0.0)
    n_obs_m = np.maximum(obs.sum(axis=1), 1)
    prop = np.clip(y.sum(axis=1) / n_obs_m, 0.02, 0.98)
    theta = np.log(prop / (1 - prop))
    theta = (theta - theta.mean()) / (theta.std() if theta.std() > 0 else 1.0)
    pi = np.clip(y.sum(axis=0) / np.maximum(obs.sum(axis=0), 1), 0.02, 0.98)
    return theta, np.ones(y.shape[1]), np.log(pi / (1 - pi))


def standardize(theta, a, d, *, rasch: bool = False):
    """The same fit on the scale where the abilities have mean 0 and (2PL) variance 1 over the models
    (``theta' = (theta - mu) / s``, ``a' = a s``, ``d' = d + a mu``; the Rasch model is only centred)."""
    mu = theta.mean(axis=-1, keepdims=True)
    s = np.ones_like(mu) if rasch else theta.std(axis=-1, keepdims=True)
    s = np.where(s > 0, s, 1.0)
    return (theta - mu) / s, a * s, d + a * mu


def fit_irt(y, obs, item_task, n_tasks: int, *, rasch: bool = False, prior=None, max_iter: int = 200,
            tol: float = 1e-7) -> IrtFit:
    """Fit the 2PL (or Rasch) model to responses ``y`` (M, I) in [0, 1] observed where ``obs``, with the observed
    information of the fit (see the module notes), on the standardized scale."""
    pr = dict(PRIORS, **(prior or {}))
    y = np.where(obs, y, 0.0)
    theta, a, d, conv, it = newton(y, obs, cold_start(y, obs), rasch=rasch, prior=pr, max_iter=max_iter, tol=tol)
    theta, a, d = theta[0], a[0], d[0]
    # the information at the optimum (no damping)
    one = np.ones((1, y.shape[1]))
    _, _, _, schur, (u_a, u_d), (i_aa, i_ad, i_dd) = _solve(theta[None], a[None], d[None], y, obs, one, rasch, pr,
                                                           np.zeros(1))
    schur, u_d, i_dd = schur[0], u_d[0], i_dd[0]
    cov_t = np.linalg.inv(schur)
    p = expit(theta[:, None] * a[None, :] + d[None, :])
    r = np.where(obs, p - y, 0.0)
    # per-item profile score contributions for the abilities: s_i = r_i a_i - U_i g_i(item, without prior)
    contrib = r * a[None, :] - u_d * r.sum(axis=0)[None, :]
    if not rasch:
        u_a, i_aa, i_ad = u_a[0], i_aa[0], i_ad[0]
        contrib -= u_a * (r.T @ theta)[None, :]
    J = np.zeros((theta.size, theta.size))
    bounds = np.searchsorted(item_task, np.arange(n_tasks + 1))
    for t in range(n_tasks):  # centred within tasks: items resampled within tasks
        c = contrib[:, bounds[t]:bounds[t + 1]]
        k = c.shape[1]
        if k < 2:
            continue
        c = c - c.mean(axis=1, keepdims=True)
        J += (c @ c.T) * (k / (k - 1))
    sandwich = cov_t @ J @ cov_t
    # items: the inverse information's 2 x 2 blocks (abilities' uncertainty carried through the Schur complement)
    cu_d = cov_t @ u_d
    var_d = i_dd + np.einsum("mi,mi->i", u_d, cu_d)
    if rasch:
        var_a, cov_ad = np.zeros_like(a), np.zeros_like(a)
    else:
        cu_a = cov_t @ u_a
        var_a = i_aa + np.einsum("mi,mi->i", u_a, cu_a)
        cov_ad = i_ad + np.einsum("mi,mi->i", u_a, cu_d)
    # the standardized scale: theta' = (theta - mu) / s, a' = a s, d' = d + a mu, b' = (b - mu) / s
    mu, sd = theta.mean(), (1.0 if rasch else theta.std())  # Rasch: the logit scale, centred only
    sd = sd if sd > 0 else 1.0
    z = (theta - mu) / sd
    m = theta.size
    G = (np.eye(m) - 1.0 / m) / sd - (0.0 if rasch else np.outer(z, z) / (m * sd))
    with np.errstate(divide="ignore", invalid="ignore"):
        b = -d / a
        var_b = (var_d + b * b * var_a + 2 * b * cov_ad) / (a * a)
    # (a', d') = (s a, d + mu a): its covariance from that of (a, d) (the abilities' location taken as known)
    var_d2 = var_d + mu * mu * var_a + 2 * mu * cov_ad
    cov_ad2 = sd * (cov_ad + mu * var_a)
    return IrtFit(z, a * sd, (b - mu) / sd, d + a * mu, G @ sandwich @ G.T, G @ cov_t @ G.T, var_a * sd * sd,
                  var_b / (sd * sd), var_d2, cov_ad2, bool(conv[0]), it, sandwich / (sd * sd))
