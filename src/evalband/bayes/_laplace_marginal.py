"""The logistic model's Gaussian approximation with the scales at the mode of their *marginal* posterior.

The joint mode of scales and effects is a poor centre when a level's effects are weakly identified: centred, its
density grows without bound as the scale and the effects shrink together; non-centred, the joint mode inflates
the scale. Integrating the effects out by a Laplace approximation (Rue, Martino & Chopin 2009; for variance
components, the EM algorithm of Dempster, Laird & Rubin 1977) gives, for a level with ``n`` effects of prior
HalfNormal(tau) on its scale ``s``, the stationarity condition

    -(n - 1) + A / s**2 - s**2 / tau**2 = 0,   A = |x*|**2 + tr(Sigma),

with ``x*`` the level's effects at the conditional mode given the scales and ``Sigma`` their conditional
covariance (under the item group constraints). It is solved by alternating the conditional mode (Newton's method
over the effects, scales fixed: a concave problem) and the closed-form update of every scale. The marginal
variance of each log scale comes from the derivative of that condition, by central differences.

The approximation is then: log scales independent normal at that mode with those variances; effects normal
given the scales, centred at the conditional mode and moving with the scales as the conditional mode does
(``-P_xx^-1 P_x,log s``); its precision is returned in the arrowhead form of :mod:`._laplace_fit`, so the
whitening map and the Laplace draws use it unchanged.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ._coords import centre, group_sizes, initial_point, layout
from ._laplace_fit import ModeNotFound, damped_step, density_fns, factorise, precision, x64
from .logistic_terms import LEVELS

__all__ = ["marginal_mode_and_precision"]


def _split(lay, blocks):
    """The blocks of the effects only (the log scales removed) and their dense cross block."""
    glob, coupling, diag = blocks
    L = lay.slices["log_sigma"].stop
    cross = None if coupling is None else coupling.dense(lay.item_cell)
    return glob, cross, diag, L


def conditional_mode(lay, theta, q, fns, *, max_iter=50, tol=1e-8):
    """The mode of the effects with the log scales fixed (damped Newton steps under the group constraints):
    (theta, q, Precision of the effects, joint blocks there, log density)."""
    value_grad = fns[0]
    has_items = lay.item_cell is not None
    L = lay.slices["log_sigma"].stop
    qv = q if has_items else np.zeros(0)
    val, grad = value_grad(theta, qv)
    val, damping = float(val), 0.0
    for _ in range(max_iter):
        blocks = precision(lay, theta, q if has_items else None, fns)
        glob, cross, diag, _ = _split(lay, blocks)
        g_t = np.asarray(grad[0], dtype=np.float64)[L:]
        g_q = centre(np.asarray(grad[1], dtype=np.float64), lay) if has_items else None

        def evaluate(step_t, step_q):
            nt = theta.copy()
            nt[L:] += step_t
            nq = q + step_q if has_items else q
            nval, ngrad = value_grad(nt, nq if has_items else qv)
            return (nt, nq), float(nval), ngrad

        prec, moved, damping = damped_step(
            lambda d: factorise(lay, glob[L:, L:], None, diag, d, cross=None if cross is None else cross[L:]),
            evaluate, g_t, g_q, lay, val, damping, tol=tol, slack=1e-12,
            not_positive="the conditional precision of the effects is not positive definite",
            no_better="no Newton step improves the conditional density of the effects")
        if moved is None:
            return theta, q, prec, blocks, val
        (nt, nq), nval, ngrad = moved
        theta, q, val, grad = nt, nq, nval, ngrad
    raise ModeNotFound(f"the conditional mode of the effects was not found in {max_iter} Newton steps")


def level_traces(lay, prec):
    """tr of the conditional covariance of every level's effects (in its own coordinates: free values of the
    global levels, constrained ambient item values), from the arrowhead factorisation and the kriging term."""
    L = lay.slices["log_sigma"].stop
    l_inv = linalg.solve_triangular(prec.chol_s, np.eye(prec.chol_s.shape[0]), lower=True)
    var_g = np.sum(l_inv ** 2, axis=0)  # diag of S^-1 = L^-T L^-1
    out = {}
    if prec.diag is not None:
        kg, kd = prec.krig
        var_g = var_g - np.sum(linalg.solve_triangular(prec.chol_a, kg.T, lower=True) ** 2, axis=0)
        spread = l_inv @ (prec.cross / prec.diag)  # L^-1 C D^-1: (n, K)
        var_d = 1.0 / prec.diag + np.sum(spread ** 2, axis=0)
        var_d = var_d - np.sum(linalg.solve_triangular(prec.chol_a, kd.T, lower=True) ** 2, axis=0)
        out["item"] = float(var_d.sum())
    for lv in lay.levels:
        if lv != "item":
            sl = lay.slices[lv]
            out[lv] = float(var_g[sl.start - L:sl.stop - L].sum())
    return out


def _dims(lay, lv):
    if lv == "item":
        return lay.n_items - int(np.count_nonzero(group_sizes(lay)))
    return lay.slices[lv].stop - lay.slices[lv].start


def _sum_squares(lay, theta, q, lv):
    return float(np.sum(q ** 2)) if lv == "item" else float(np.sum(theta[lay.slices[lv]] ** 2))


def _scores(lay, theta, q, traces):
    """Every level's A = E|effects|^2 (on the effects' own scale) and the marginal score of its log scale."""
    lam = theta[lay.slices["log_sigma"]]
    a, score = {}, {}
    for i, lv in enumerate(lay.levels):
        s2 = float(np.exp(2 * lam[i]))
        e2 = _sum_squares(lay, theta, q, lv) + traces[lv]
        a[lv] = e2 if lay.centred[lv] else s2 * e2
        tau = LEVELS[lv][1]
        score[lv] = -(_dims(lay, lv) - 1) + a[lv] / s2 - s2 / tau ** 2
    return a, score


def _rescale(lay, theta, q, new_lam):
    """Set the log scales, keeping every non-centred level's effects (so its free values scale inversely)."""
    theta, q = theta.copy(), None if q is None else q.copy()
    sl = lay.slices["log_sigma"]
    for i, lv in enumerate(lay.levels):
        if not lay.centred[lv]:
            ratio = np.exp(theta[sl][i] - new_lam[i])
            if lv == "item":
                q = q * ratio
            else:
                theta[lay.slices[lv]] *= ratio
    theta[sl] = new_lam
    return theta, q


def marginal_mode_and_precision(obs, n_models, n_tasks, centred, *, max_iter=200, tol=1e-4, step=0.05):
    """The scales at their marginal mode, the effects at their conditional mode there, and the precision of the
    Gaussian approximation described in the module docstring.

    Returns (layout, theta, q, Precision, EM iterations, log density there, ()) as
    :func:`evalband.bayes._laplace_fit.mode_and_precision` does."""
    lay = layout(obs, n_models, n_tasks, centred)
    theta, q = initial_point(lay)
    has_items = lay.item_cell is not None
    if has_items:
        q = centre(q, lay)
    sl = lay.slices["log_sigma"]
    with x64(lay):  # NumPy without item effects: no JAX import, no compilation
        fns = density_fns(lay)
        prev = None  # (log scales, scores) of the previous iteration, for the secant steps
        slope = np.full(len(lay.levels), np.nan)
        for it in range(1, max_iter + 1):
            theta, q, prec, blocks, val = conditional_mode(lay, theta, q, fns)
            a, score = _scores(lay, theta, q, level_traces(lay, prec))
            lam = theta[sl].copy()
            sc = np.array([score[lv] for lv in lay.levels])
            new = np.empty(len(lay.levels))
            for i, lv in enumerate(lay.levels):
                n1, tau2 = _dims(lay, lv) - 1, LEVELS[lv][1] ** 2
                v = 0.5 * (-n1 * tau2 + np.sqrt(n1 * n1 * tau2 * tau2 + 4 * a[lv] * tau2))
                new[i] = 0.5 * np.log(max(v, 1e-12))  # the EM step
                if prev is not None and abs(lam[i] - prev[0][i]) > 1e-10:
                    slope[i] = (sc[i] - prev[1][i]) / (lam[i] - prev[0][i])
                    if np.isfinite(slope[i]) and slope[i] < 0:  # a secant (quasi-Newton) step on the score
                        new[i] = lam[i] + float(np.clip(-sc[i] / slope[i], -1.0, 1.0))
            prev = (lam, sc)
            change = np.abs(new - lam).max()
            theta, q = _rescale(lay, theta, q, new)
            if change < tol:
                break
        theta, q, prec, blocks, val = conditional_mode(lay, theta, q, fns)
        curv = _curvatures(lay, theta, q, fns, step)
        glob, cross, diag, L = _split(lay, blocks)
        # the joint precision whose log-scale marginal is N(mode, 1 / curv) and whose effects move with the scales
        # as their conditional mode does: lambda block = diag(curv) + P_l,x P_xx^-1 P_x,l
        cols_g, cols_d = glob[L:, :L], (None if cross is None else cross[:L].T)
        coupled = np.empty((L, L))
        for j in range(L):
            y_g, y_d = prec.constrained_solve(cols_g[:, j], None if cols_d is None else cols_d[:, j], lay.item_cell,
                                              lay.n_cells)
            coupled[:, j] = cols_g.T @ y_g + (0.0 if cols_d is None else cols_d.T @ y_d)
        glob = glob.copy()
        glob[:L, :L] = np.diag(curv) + 0.5 * (coupled + coupled.T)
        full = factorise(lay, glob, blocks[1], diag, cross=cross)
    return lay, theta, (q if has_items else None), full, it, val, ()


def _curvatures(lay, theta, q, fns, step):
    """-d score / d log s of every level, by central differences (the conditional mode re-found at each side),
    floored at the prior's own curvature (2 s**2 / tau**2)."""
    sl = lay.slices["log_sigma"]
    lam = theta[sl].copy()
    out = np.empty(len(lay.levels))
    for i, lv in enumerate(lay.levels):
        side = []
        for h in (step, -step):
            new = lam.copy()
            new[i] += h
            t, qq = _rescale(lay, theta, q, new)
            t, qq, prec, _, _ = conditional_mode(lay, t, qq, fns)
            side.append(_scores(lay, t, qq, level_traces(lay, prec))[1][lv])
        prior = 2 * np.exp(2 * lam[i]) / LEVELS[lv][1] ** 2
        out[i] = max(-(side[0] - side[1]) / (2 * step), prior)
    return out
