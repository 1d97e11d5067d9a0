"""Abilities of the 2PL / Rasch model with the items integrated out (marginal maximum likelihood, items random).

An evaluation has few models and many items, and the items are the sample: they are drawn from a population of
possible questions, while the models are the fixed objects of interest. Each item's discrimination and intercept
are then incidental parameters, estimated from only as many responses as there are models, and the joint
estimate of the abilities (items as fixed parameters) is inconsistent however many items there are (Neyman &
Scott 1948; the Rasch model on two persons doubles the log-odds, Andersen 1973): on 20 models x 1,000 items the
joint fit's standardized abilities miss the truth by 0.7 (root-mean-square) where their standard errors say 0.04.
The roles of the usual marginal fit (Bock & Aitkin 1981) are swapped here: the items' ``(a_i, d_i)`` are drawn
from a bivariate normal population ``N(mu, Sigma)`` (Rasch: ``d_i ~ N(mu, sigma^2)``, ``a_i = 1``), integrated
out by Gauss-Hermite quadrature on nodes that follow the population, and the abilities and the population are
estimated by EM:

* E step: each item's posterior over the nodes, from its responses (an (I x Q) matrix from two products of the
  responses with the nodes' (M x Q) linear predictors);
* M step: each ability by Newton steps on the expected counts (M x Q), the population from the posterior moments;
  the scale is then standardized (mean 0, variance 1 over the models; Rasch: centred), the population moved with
  it (the likelihood does not change).

R fits are solved at once (replicates with their own item weights, the item bootstrap), their nodes stacked
into one product. The ability's information is the outer product of the items' score contributions (each item's
posterior mean score), and its sandwich with the contributions centred within tasks is the linearized item
bootstrap (:mod:`.irt_fit` gives the items' own parameters given these abilities).

References
----------
Varadhan, R. & Roland, C. (2008). Simple and globally convergent methods for accelerating the convergence of any
EM algorithm. Scand. J. Statist. 35, 335-353.
Bock, R. D. & Aitkin, M. (1981). Marginal maximum likelihood estimation of item parameters: application of an EM
algorithm. Psychometrika 46, 443-459.
Neyman, J. & Scott, E. L. (1948). Consistent estimates based on partially consistent observations. Econometrica
16, 1-32.
Andersen, E. B. (1973). Conditional inference and models for measuring. Copenhagen: Mentalhygiejnisk Forlag.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_expit, logsumexp

__all__ = ["MarginalFit", "fit_marginal", "marginal_em", "NODES"]

#: Gauss-Hermite nodes per dimension of the items' population
NODES = 11
#: the abilities' prior standard deviation (standardized scale): keeps a model right or wrong on every item finite
ABILITY_SD = 3.0


@dataclass(frozen=True, eq=False)
class MarginalFit:
    """Abilities (standardized; Rasch: centred logits) with their covariance, and the items' population."""

    theta: np.ndarray
    cov_theta: np.ndarray
    mu: np.ndarray
    sigma: np.ndarray
    converged: bool
    iterations: int


def _gh(rasch: bool):
    z, w = np.polynomial.hermite_e.hermegauss(NODES if not rasch else 2 * NODES + 1)
    w = w / w.sum()
    if rasch:
        return z[:, None], w
    zz = np.stack(np.meshgrid(z, z, indexing="ij"), -1).reshape(-1, 2)
    ww = np.outer(w, w).ravel()
    keep = ww > 1e-12 * ww.max()  # nodes of negligible weight cost time and add nothing
    return zz[keep], ww[keep]


def _nodes(mu, sigma, z, rasch):
    """(R, Q) discriminations and intercepts of the nodes of each replicate's population."""
    if rasch:
        d = mu[:, 0:1] + np.sqrt(sigma[:, 0, 0])[:, None] * z[None, :, 0]
        return np.ones_like(d), d
    chol = np.linalg.cholesky(sigma)
    x = mu[:, None, :] + np.einsum("rij,qj->rqi", chol, z)
    return x[..., 0], x[..., 1]


def _posterior(theta, a, d, yo, o, logw, w_items):
    """Each item's log-likelihood at the nodes and its posterior (R, I, Q); the weighted marginal log-likelihood
    (R,)."""
    r_, m = theta.shape
    eta = theta[:, :, None] * a[:, None, :] + d[:, None, :]  # (R, M, Q)
    q = eta.shape[2]
    flat = eta.transpose(1, 0, 2).reshape(m, r_ * q)
    soft = -log_expit(-flat)  # log(1 + exp(eta))
    ll = (yo.T @ flat - o.T @ soft).reshape(-1, r_, q).transpose(1, 0, 2) + logw  # (R, I, Q)
    norm = logsumexp(ll, axis=2, keepdims=True)
    post = np.exp(ll - norm)
    return eta, post, np.einsum("ri,ri->r", norm[..., 0], w_items)


def _pack(theta, mu, sigma, rasch):
    """Parameters as one vector per replicate (the covariance by its Cholesky factor, log diagonal)."""
    if rasch:
        return np.concatenate([theta, mu, 0.5 * np.log(sigma[:, 0, :1])], axis=1)
    chol = np.linalg.cholesky(sigma)
    return np.concatenate([theta, mu, np.log(chol[:, 0, :1]), chol[:, 1, :1], np.log(chol[:, 1, 1:])], axis=1)


def _unpack(phi, m, rasch):
    theta = phi[:, :m]
    if rasch:
        return theta, phi[:, m:m + 1], np.exp(2 * phi[:, m + 1:m + 2])[:, :, None]
    mu = phi[:, m:m + 2]
    l11, l21, l22 = np.exp(phi[:, m + 2]), phi[:, m + 3], np.exp(phi[:, m + 4])
    sigma = np.empty((phi.shape[0], 2, 2))
    sigma[:, 0, 0], sigma[:, 0, 1] = l11 * l11, l11 * l21
    sigma[:, 1, 0], sigma[:, 1, 1] = l11 * l21, l21 * l21 + l22 * l22
    return theta, mu, sigma


def _em_step(theta, mu, sigma, yo, o, wi, z, logw, rasch):
    """One EM step of every replicate; returns the new parameters and the objective (marginal log-likelihood
    with the abilities' prior) at the old ones."""
    m, n_i = yo.shape
    k = theta.shape[0]
    a, d = _nodes(mu, sigma, z, rasch)
    eta, post, ll = _posterior(theta, a, d, yo, o, logw, wi)
    obj = ll - 0.5 * (theta * theta).sum(1) / ABILITY_SD ** 2
    wp = post * wi[:, :, None]  # (R, I, Q)
    flat = wp.transpose(1, 0, 2).reshape(n_i, -1)
    rc = (yo @ flat).reshape(m, k, -1).transpose(1, 0, 2)  # expected right (R, M, Q)
    nc = (o @ flat).reshape(m, k, -1).transpose(1, 0, 2)  # expected answered
    new = theta.copy()
    for _ in range(3):  # Newton steps on each ability (a one-dimensional logistic fit on the nodes)
        e = new[:, :, None] * a[:, None, :] + d[:, None, :]
        p = np.exp(log_expit(e))
        g = np.einsum("rmq,rq->rm", rc - nc * p, a) - new / ABILITY_SD ** 2
        h = np.einsum("rmq,rq->rm", nc * p * (1 - p), a * a) + 1.0 / ABILITY_SD ** 2
        new = new + np.clip(g / h, -1.0, 1.0)
    tot = wi.sum(1)[:, None]
    xa = d[..., None] if rasch else np.stack([a, d], -1)
    wq = wp.sum(1)  # (R, Q): the nodes' total posterior weight
    mu_new = np.einsum("rq,rqj->rj", wq, xa) / tot
    xc = xa - mu_new[:, None, :]
    sg_new = np.einsum("rq,rqj,rqk->rjk", wq, xc, xc) / tot[:, :, None] + 1e-8 * np.eye(xa.shape[-1])
    # the standardized scale: theta' = (theta - c) / s, (a, d)' = (s a, d + c a)
    c = new.mean(1)
    s = np.ones_like(c) if rasch else new.std(1)
    s = np.where(s > 0, s, 1.0)
    new = (new - c[:, None]) / s[:, None]
    if rasch:
        mu_new = mu_new + c[:, None]
    else:
        tmat = np.zeros((k, 2, 2))
        tmat[:, 0, 0], tmat[:, 1, 0], tmat[:, 1, 1] = s, c, 1.0
        mu_new = np.einsum("rij,rj->ri", tmat, mu_new)
        sg_new = np.einsum("rij,rjk,rlk->ril", tmat, sg_new, tmat)
    return new, mu_new, sg_new, obj


def marginal_em(y, obs, *, weights=None, start=None, rasch=False, max_iter: int = 300, tol: float = 1e-6):
    """EM, accelerated by SQUAREM (Varadhan & Roland 2008), for R replicates at once; ``weights`` (R, I) the
    items' multiplicities, ``start = (theta, mu, sigma)``. Returns ``(theta, mu, sigma, converged, iterations)``
    on the standardized scale (``iterations``: EM steps of the slowest replicate)."""
    yo = np.where(obs, y, 0.0)
    o = obs.astype(float)
    m, n_i = y.shape
    w_items = np.ones((1, n_i)) if weights is None else np.atleast_2d(np.asarray(weights, dtype=float))
    r_ = w_items.shape[0]
    z, gw = _gh(rasch)
    logw = np.log(gw)
    if start is None:
        prop = np.clip(yo.sum(1) / np.maximum(o.sum(1), 1), 0.02, 0.98)
        theta0 = np.log(prop / (1 - prop))
        theta0 = (theta0 - theta0.mean()) / (1.0 if rasch else max(theta0.std(), 1e-3))
        pi = np.clip(yo.sum(0) / np.maximum(o.sum(0), 1), 0.02, 0.98)
        dd = np.log(pi / (1 - pi))
        mu0 = np.array([dd.mean()]) if rasch else np.array([1.0, dd.mean()])
        sig0 = np.array([[max(dd.var(), 0.5)]]) if rasch else np.diag([0.25, max(dd.var(), 0.5)])
        start = (theta0, mu0, sig0)
    theta, mu, sigma = (np.array(v, dtype=float) for v in start)
    theta = np.broadcast_to(theta, (r_, m)).copy()
    mu = np.broadcast_to(mu, (r_,) + mu.shape[-1:]).copy()
    sigma = np.broadcast_to(sigma, (r_,) + sigma.shape[-2:]).copy()
    phi = _pack(theta, mu, sigma, rasch)
    active = np.ones(r_, dtype=bool)
    converged = np.zeros(r_, dtype=bool)
    steps = 0

    def em(ph, idx):
        t, mu_, sg = _unpack(ph, m, rasch)
        t2, mu2, sg2, obj = _em_step(t, mu_, sg, yo, o, w_items[idx] if r_ > 1 else w_items, z, logw, rasch)
        return _pack(t2, mu2, sg2, rasch), obj

    while steps < max_iter and active.any():
        idx = np.flatnonzero(active)
        p0 = phi[idx]
        p1, f0 = em(p0, idx)
        p2, _ = em(p1, idx)
        steps += 2
        r = p1 - p0
        v = p2 - 2 * p1 + p0
        alpha = -np.sqrt((r * r).sum(1)) / np.maximum(np.sqrt((v * v).sum(1)), 1e-300)
        alpha = np.minimum(alpha, -1.0)[:, None]
        p3 = p0 - 2 * alpha * r + alpha * alpha * v
        with np.errstate(over="ignore", invalid="ignore"):
            p4, f3 = em(np.where(np.isfinite(p3), p3, p2), idx)
        steps += 1
        bad = ~(np.isfinite(f3) & (f3 >= f0 - 1e-9 * np.abs(f0))) | ~np.isfinite(p4).all(1)
        if bad.any():  # the extrapolation lowered the objective: the plain EM steps instead
            p4[bad] = em(p2[bad], idx[bad])[0]
        change = np.abs(p4[:, :m] - p0[:, :m]).max(1)
        phi[idx] = p4
        done = change < tol
        converged[idx[done]] = True
        active[idx[done]] = False
    theta, mu, sigma = _unpack(phi, m, rasch)
    return theta, mu, sigma, converged, steps


def fit_marginal(y, obs, item_task, n_tasks: int, *, rasch: bool = False) -> MarginalFit:
    """The full-data fit with the abilities' sandwich covariance (items within tasks)."""
    theta, mu, sigma, conv, it = marginal_em(y, obs, rasch=rasch)
    cov = information(y, obs, theta[0], mu[0], sigma[0], item_task, n_tasks, rasch=rasch)
    return MarginalFit(theta[0], cov, mu[0], sigma[0], bool(conv[0]), it)


def item_scores(y, obs, theta, mu, sigma, *, rasch=False):
    """(M, I) score contributions of the items to the abilities: each item's posterior mean of
    ``a (y_mi - p_mi)`` over its nodes."""
    yo = np.where(obs, y, 0.0)
    o = obs.astype(float)
    z, gw = _gh(rasch)
    a, d = _nodes(mu[None], sigma[None], z, rasch)
    _, post, _ = _posterior(theta[None], a, d, yo, o, np.log(gw), np.ones((1, y.shape[1])))
    post, a, d = post[0], a[0], d[0]
    p = np.exp(log_expit(theta[:, None] * a[None, :] + d[None, :]))  # (M, Q)
    ea = post @ a  # (I,)
    return o * (yo * ea[None, :] - (p * a[None, :]) @ post.T)


def information(y, obs, theta, mu, sigma, item_task, n_tasks, *, rasch=False):
    """The abilities' covariance on the standardized scale: ``G S^-1 J S^-1 G'`` with ``S`` the outer products of
    the items' score contributions (and the prior), ``J`` the same centred within tasks, ``G`` the Jacobian of
    the standardization."""
    sc = item_scores(y, obs, theta, mu, sigma, rasch=rasch)
    m = theta.size
    bread = sc @ sc.T + np.eye(m) / ABILITY_SD ** 2
    meat = np.zeros((m, m))
    bounds = np.searchsorted(item_task, np.arange(n_tasks + 1))
    for t in range(n_tasks):  # centred within tasks: items resampled within tasks
        c = sc[:, bounds[t]:bounds[t + 1]]
        k = c.shape[1]
        if k < 2:
            continue
        c = c - c.mean(axis=1, keepdims=True)
        meat += (c @ c.T) * (k / (k - 1))
    inv = np.linalg.inv(bread)
    G = np.eye(m) - 1.0 / m
    if not rasch:
        G = G - np.outer(theta, theta) / m
    return G @ inv @ meat @ inv @ G.T
