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
standardized: abilities of mean 0 and variance 1 over the models.

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

__all__ = ["IrtFit", "fit_irt", "PRIORS"]

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
    var_a, var_b : (I,)
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
    converged: bool
    iterations: int


def _terms(theta, a, d, y, obs):
    eta = theta[:, None] * a[None, :] + d[None, :]
    p = expit(eta)
    r = np.where(obs, p - y, 0.0)
    v = np.where(obs, p * (1.0 - p), 0.0)
    return eta, r, v


def _objective(theta, a, d, y, obs, rasch, pr):
    eta = theta[:, None] * a[None, :] + d[None, :]
    f = np.where(obs, (1.0 - y) * eta - log_expit(eta), 0.0).sum()
    f += 0.5 * (theta @ theta) / pr["ability"] ** 2 + 0.5 * (d @ d) / pr["intercept"] ** 2
    if not rasch:
        f += 0.5 * np.sum((a - pr["discrimination_mean"]) ** 2) / pr["discrimination"] ** 2
    return f


def _blocks(theta, a, d, y, obs, rasch, pr):
    """Gradients, the abilities' diagonal, the items' 2 x 2 blocks and the cross terms (exact Hessian)."""
    _, r, v = _terms(theta, a, d, y, obs)
    g_t = r @ a + theta / pr["ability"] ** 2
    h_t = v @ (a * a) + 1.0 / pr["ability"] ** 2
    g_d = r.sum(axis=0) + d / pr["intercept"] ** 2
    h_dd = v.sum(axis=0) + 1.0 / pr["intercept"] ** 2
    x_d = v * a[None, :]  # d2 / dtheta_m dd_i
    if rasch:
        return g_t, h_t, None, g_d, None, None, h_dd, None, x_d, r
    g_a = r.T @ theta + (a - pr["discrimination_mean"]) / pr["discrimination"] ** 2
    h_aa = v.T @ (theta * theta) + 1.0 / pr["discrimination"] ** 2
    h_ad = v.T @ theta
    x_a = v * a[None, :] * theta[:, None] + r  # d2 / dtheta_m da_i (the residual term: eta is bilinear)
    return g_t, h_t, g_a, g_d, h_aa, h_ad, h_dd, x_a, x_d, r


def _solve(theta, a, d, y, obs, rasch, pr, lam):
    """One damped Newton step and the pieces of the information at the current point."""
    g_t, h_t, g_a, g_d, h_aa, h_ad, h_dd, x_a, x_d, r = _blocks(theta, a, d, y, obs, rasch, pr)
    h_t = h_t * (1 + lam)
    h_dd = h_dd * (1 + lam)
    if rasch:
        inv_dd = 1.0 / h_dd
        u_d = x_d * inv_dd[None, :]
        schur = np.diag(h_t) - u_d @ x_d.T
        rhs = -g_t + u_d @ g_d
        dt = np.linalg.solve(schur, rhs)
        dd = inv_dd * (-g_d - x_d.T @ dt)
        return dt, np.zeros_like(a), dd, schur, (None, u_d), (None, None, inv_dd), g_t
    h_aa = h_aa * (1 + lam)
    det = h_aa * h_dd - h_ad * h_ad
    det = np.where(det > 1e-300, det, 1e-300)
    i_aa, i_ad, i_dd = h_dd / det, -h_ad / det, h_aa / det
    u_a = x_a * i_aa[None, :] + x_d * i_ad[None, :]  # X_i B_i^-1, column a
    u_d = x_a * i_ad[None, :] + x_d * i_dd[None, :]
    schur = np.diag(h_t) - u_a @ x_a.T - u_d @ x_d.T
    rhs = -g_t + u_a @ g_a + u_d @ g_d
    dt = np.linalg.solve(schur, rhs)
    ra, rd = -g_a - x_a.T @ dt, -g_d - x_d.T @ dt
    return dt, i_aa * ra + i_ad * rd, i_ad * ra + i_dd * rd, schur, (u_a, u_d), (i_aa, i_ad, i_dd), g_t


def fit_irt(y, obs, item_task, n_tasks: int, *, rasch: bool = False, prior=None, max_iter: int = 200,
            tol: float = 1e-7) -> IrtFit:
    """Fit the 2PL (or Rasch) model to responses ``y`` (M, I) in [0, 1] observed where ``obs``."""
    pr = dict(PRIORS, **(prior or {}))
    y = np.where(obs, y, 0.0)
    n_obs_m = np.maximum(obs.sum(axis=1), 1)
    prop = np.clip(y.sum(axis=1) / n_obs_m, 0.02, 0.98)
    theta = np.log(prop / (1 - prop))
    theta = (theta - theta.mean()) / (theta.std() if theta.std() > 0 else 1.0)
    pi = np.clip(y.sum(axis=0) / np.maximum(obs.sum(axis=0), 1), 0.02, 0.98)
    d = np.log(pi / (1 - pi))
    a = np.ones(y.shape[1])
    lam = 1e-3
    f = _objective(theta, a, d, y, obs, rasch, pr)
    converged, it = False, 0
    for it in range(1, max_iter + 1):
        dt, da, dd, *_ = _solve(theta, a, d, y, obs, rasch, pr, lam)
        big = max(np.abs(dt).max(), np.abs(da).max(), np.abs(dd).max())
        s = min(1.0, 2.0 / big) if big > 0 else 1.0
        t_new, a_new, d_new = theta + s * dt, a + s * da, d + s * dd
        with np.errstate(over="ignore", invalid="ignore"):
            f_new = _objective(t_new, a_new, d_new, y, obs, rasch, pr)
        if np.isfinite(f_new) and f_new <= f + 1e-12 * abs(f):
            gain = f - f_new
            theta, a, d, f = t_new, a_new, d_new, f_new
            lam = max(lam / 3, 1e-9)
            if big * s < tol * (1 + np.abs(theta).max()) or gain <= 1e-11 * (1 + abs(f)):
                converged = True
                break
        else:
            lam *= 4
            if lam > 1e10:
                break
    # the information at the optimum (no damping)
    _, _, _, schur, (u_a, u_d), (i_aa, i_ad, i_dd), _ = _solve(theta, a, d, y, obs, rasch, pr, 0.0)
    cov_t = np.linalg.inv(schur)
    _, r, _ = _terms(theta, a, d, y, obs)
    # per-item profile score contributions for the abilities: s_i = r_i a_i - U_i g_i(item, without prior)
    contrib = r * a[None, :] - u_d * r.sum(axis=0)[None, :]
    if not rasch:
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
    # the standardized scale: theta' = (theta - mu) / s, a' = a s, d' unchanged, b' = (b - mu) / s
    mu, sd = theta.mean(), (1.0 if rasch else theta.std())  # Rasch: the logit scale, centred only
    sd = sd if sd > 0 else 1.0
    z = (theta - mu) / sd
    m = theta.size
    G = (np.eye(m) - 1.0 / m) / sd - np.outer(z, z) / (m * sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = -d / a
        var_b = (var_d + b * b * var_a + 2 * b * cov_ad) / (a * a)
    return IrtFit(z, a * sd, (b - mu) / sd, d, G @ sandwich @ G.T, G @ cov_t @ G.T, var_a * sd * sd,
                  var_b / (sd * sd), converged, it)
