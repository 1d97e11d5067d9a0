"""REML variance components of an unbalanced crossed / nested design: profiled criterion, analytic gradient.

The array core behind :func:`evalband.facets.variance_components` for unbalanced designs (missing cells, unequal
trials). It works on cell means: trials within a cell contribute their within-cell sum of squares, which is
independent of everything else, so the restricted likelihood of the observations is that of the cell means
(residual variance ``sigma2_e / n_c``) plus a chi-square term for the within-cell part.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from .._blas import single_threaded_blas
from .._distributions import chi2_isf, norm_cdf
from .._validate import ArgumentError, check_choice
from ..display.reprs import displayed
from ._mixed import MixedSystem

__all__ = ["RemlFit", "reml_components"]


@displayed
@dataclass(frozen=True, repr=False)
class RemlFit:
    """A REML fit of one design.

    Attributes
    ----------
    variance : numpy.ndarray, shape (n_terms + has_top + n_sources,)
        Estimates (>= 0) of the random terms' variances, then the cell term's (when separate from the residual),
        then each residual source's per-trial variance.
    cov : numpy.ndarray, shape (n, n)
        Asymptotic covariance of ``variance``: twice the inverse Hessian of -2 log restricted likelihood, over the
        estimates away from 0; rows of estimates at 0 hold only their variance (from the one-sided curvature).
    boundary : numpy.ndarray of bool
        Estimates at 0.
    mean : float
        Generalized least squares estimate of the intercept.
    neg2_loglik : float
        -2 log restricted likelihood (up to a constant).
    converged : bool
    n_evaluations : int
    """

    variance: np.ndarray
    cov: np.ndarray
    boundary: np.ndarray
    mean: float
    neg2_loglik: float
    converged: bool
    n_evaluations: int
    _criterion: object = field(default=None, repr=False, compare=False)  # (the criterion, the data's scale)

    def profiler(self):
        """The profile likelihood of this fit (:class:`~evalband.facets.profile.Profiler`): intervals of
        components and of their shares; None for data that do not vary."""
        if self._criterion is None:
            return None
        from .profile import Profiler

        model, scale = self._criterion
        return Profiler(model, self.variance / scale ** 2, scale=scale)

    def satterthwaite_df(self, weights) -> float:
        """Degrees of freedom ``2 v^2 / Var(v)`` of ``v = weights @ variance``."""
        w = np.asarray(weights, dtype=np.float64)
        v = float(w @ self.variance)
        var = float(w @ self.cov @ w)
        return 2 * v * v / var if var > 0 else np.inf

    def pivots(self, gen: np.random.Generator, n_draws: int) -> np.ndarray:
        """Approximate pivotal draws of the components, (n_draws, n).

        Each estimate away from 0 is ``v * nu / W`` with ``W ~ chi2(nu)`` on its Satterthwaite degrees of freedom
        ``nu = 2 v^2 / Var(v)``, the draws correlated through a Gaussian copula with the REML correlation; an
        estimate at 0 draws ``max(0, N(0, Var))``.
        """
        v = self.variance
        sd = np.sqrt(np.maximum(np.diag(self.cov), 0.0))
        inner = ~self.boundary & (sd > 0)
        n = len(v)
        corr = np.eye(n)
        if inner.any():
            c = self.cov[np.ix_(inner, inner)]
            d = np.sqrt(np.diag(c))
            corr[np.ix_(inner, inner)] = c / np.outer(d, d)
        w, u = np.linalg.eigh(corr)
        z = gen.standard_normal((n_draws, n)) @ (u * np.sqrt(np.maximum(w, 0.0))).T
        out = np.zeros((n_draws, n))
        with np.errstate(divide="ignore", invalid="ignore"):
            nu = np.where(inner, 2 * v * v / np.where(sd > 0, sd * sd, 1.0), np.inf)
        for k in range(n):  # a handful of components
            if inner[k]:
                q = chi2_isf(norm_cdf(z[:, k]), min(nu[k], 1e6))
                out[:, k] = v[k] * nu[k] / np.maximum(q, 1e-300)
            else:
                out[:, k] = np.maximum(0.0, z[:, k] * sd[k])
        return out


def reml_components(y, term_codes, *, inv_n, within_ss, within_df, top: bool = True, weights=None,
                    max_evaluations: int = 4000, layout: str = "auto") -> RemlFit:
    """REML estimates of the variance components of one (possibly unbalanced) design, from its cell means.

    Parameters
    ----------
    y : array_like, shape (C,)
        Cell means.
    term_codes : sequence of array_like of int, each (C,)
        For each random term except the cell term, the term's level in each cell.
    inv_n : array_like, shape (S, C)
        ``1 / n`` for each residual source in each cell (one source for a model; two for a difference of two
        models, whose cell means carry both models' trial noise).
    within_ss, within_df : array_like, shape (S,)
        Within-cell sum of squares and degrees of freedom of each source.
    top : bool
        Whether the cell term has a variance of its own (needs within-cell degrees of freedom); otherwise it is
        the residual.
    max_evaluations : int
        Limit on likelihood evaluations of the optimizer.
    layout : {'auto', 'block', 'sparse'}
        How the mixed-model equations are factored (:class:`~evalband.facets._mixed.MixedSystem`): 'block' groups
        the random levels by the term that keeps the rest small (per-item blocks and a dense global part), with
        an analytic gradient; 'sparse' is a sparse LU of the whole system with finite-difference gradients (for
        designs without a small global part); 'auto' chooses by operation count. The estimates do not depend on it.

    Returns
    -------
    RemlFit

    Notes
    -----
    The model is ``ybar_c = mu + sum_T u_T[level_T(c)] + a_c + e_c`` with independent ``u_T ~ N(0, s2_T)``, a cell
    effect ``a_c ~ N(0, s2_cell)`` and ``e_c ~ N(0, sum_s s2_s / n_sc)``. With ``D`` the diagonal cell variance,
    ``Z`` the sparse indicators and ``L = diag(s_T)``, -2 log restricted likelihood is
    ``log|D| + log|A| + y'D^-1 y - r'A^-1 r`` (plus ``df_s log s2_s + SS_s / s2_s`` for the within-cell part) with
    ``A = [[L Z'D^-1 Z L + I, L Z'D^-1 1], [., 1'D^-1 1]]`` and ``r = [L Z'D^-1 y, 1'D^-1 y]``, the mixed-model
    equations of Henderson (1963) in the relative-factor form of lme4 (Bates et al. 2015).

    The first source's variance is profiled out (its estimate given the others is closed-form), and the other
    variances, relative to it, are optimized by L-BFGS-B with bounds at 0 (estimates on the boundary are exactly
    0), from lme4's start (every relative variance 1). The gradient is analytic: ``tr(P V_j) - y'P V_j P y`` for
    each variance, with the traces from the selected inverse of ``A``. ``A`` is factored in block-arrow form:
    grouped by the term with the most nested structure (usually the item), the levels of item, item x prompt,
    item x seed, ... form small blocks factored at once, coupled only through the levels of the other terms
    (prompt, seed, prompt x seed) and the intercept, handled through their dense Schur complement; this is the
    elimination order a sparse Cholesky would find, without its overhead. The covariance of the estimates is
    twice the inverse Hessian of the criterion in the variances (observed information), by central differences
    of the analytic gradient; a Newton step with it confirms the optimum (``converged``: its decrement below
    1e-8 and the criterion rising away from every estimate at 0).

    References
    ----------
    Patterson, H. D. & Thompson, R. (1971). Recovery of inter-block information when block sizes are unequal.
    Biometrika 58(3), 545-554.
    Henderson, C. R. (1963). Selection index and expected genetic advance. NAS-NRC 982.
    Bates, D., Maechler, M., Bolker, B. & Walker, S. (2015). Fitting linear mixed-effects models using lme4.
    Journal of Statistical Software 67(1).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.facets import reml_components
    >>> rng = np.random.default_rng(0)
    >>> item, prompt = np.repeat(np.arange(30), 4), np.tile(np.arange(4), 30)
    >>> y = rng.normal(size=30)[item] + 0.5 * rng.normal(size=4)[prompt] + 0.3 * rng.normal(size=120)
    >>> fit = reml_components(y, [item, prompt], inv_n=np.ones((1, 120)), within_ss=[0.0], within_df=[0],
    ...                       top=False)
    >>> fit.variance.shape
    (3,)
    """
    y = np.asarray(y, dtype=np.float64)
    c = y.size
    inv_n = np.atleast_2d(np.asarray(inv_n, dtype=np.float64))
    w_ss = np.atleast_1d(np.asarray(within_ss, dtype=np.float64))
    w_df = np.atleast_1d(np.asarray(within_df, dtype=np.float64))
    if inv_n.shape[1] != c or len(w_ss) != inv_n.shape[0] or len(w_df) != inv_n.shape[0]:
        raise ArgumentError(f"`inv_n` must be (S, {c}) with one `within_ss` and `within_df` per source; got"
                         f" {inv_n.shape}, {w_ss.shape}, {w_df.shape}.")
    if top and w_df.sum() <= 0:
        raise ArgumentError("`top=True` needs within-cell degrees of freedom (repeated trials).")
    layout = check_choice(layout, ("auto", "block", "sparse"), "layout")
    n_r = len(term_codes) + bool(top)
    if np.ptp(y) == 0 and not (w_ss > 0).any():  # no variation at all: every component 0 (the likelihood is unbounded)
        boundary = np.r_[np.ones(n_r, dtype=bool), np.zeros(len(w_ss), dtype=bool)]
        return RemlFit(np.zeros(boundary.size), np.zeros((boundary.size,) * 2), boundary, float(y[0]) if c else 0.0,
                       float("-inf"), True, 0)
    # scale to unit variance for the optimizer
    loc = float(y.mean())
    scale = float(y.std()) or 1.0
    if w_df.sum() > 0 and (w_ss.sum() > 0):
        scale = max(scale, float(np.sqrt(w_ss.sum() / w_df.sum() * inv_n.mean())))
    ys = (y - loc) / scale
    # small dense products: BLAS threads only add their start-up and spinning (scoped to this fit)
    with single_threaded_blas():
        system = MixedSystem(ys, term_codes, layout=layout)
        model = _Restricted(system, inv_n, w_ss / scale ** 2, w_df, top)
        phi, _, stopped = model.fit(max_evaluations)
        variance_s = model.variances(phi)
        boundary = np.zeros(variance_s.size, dtype=bool)
        boundary[:model.n_t + top] = variance_s[:model.n_t + top] < 1e-10
        variance_s, hess, refined = _refine(model, variance_s, boundary)
        cov = _observed_information(model, variance_s, boundary, hess)
    variance = variance_s * scale ** 2
    cov = cov * scale ** 4
    mean = loc + scale * model.intercept(model._split(variance_s)[0])
    return RemlFit(variance, cov, boundary, float(mean), float(model.full(variance_s)), bool(stopped and refined),
                   model.count, (model, scale))


class _Restricted:
    """-2 log restricted likelihood of a design, with the first source's variance profiled out.

    Parameters ``phi``: the terms' variances, then the cell term's (``top``), then the other sources', each
    relative to the first source's variance ``sigma2``. The cell means have variance
    ``sigma2 (Z diag(phi_T) Z' + D)`` with ``D = phi_top + inv_n[0] + sum_s phi_s inv_n[s]``.
    """

    def __init__(self, system: MixedSystem, inv_n, ss, df, top: bool):
        self.system, self.inv_n, self.ss, self.df, self.top = system, inv_n, ss, df, bool(top)
        self.n_t, self.n_s = system.n_terms, inv_n.shape[0]
        self.n_free = self.n_t + self.top + self.n_s - 1
        self.dof = system.n_cells - 1 + float(df.sum())  # residual degrees of freedom of the profiled sigma2
        self.has = df > 0
        self.y2 = system.y * system.y
        self.count = 0

    def _solve(self, phi, derivatives: bool = False):
        """(relative source variances (S,), relative cell variances D (C,), the system's output) or None."""
        src = np.r_[1.0, phi[self.n_t + self.top:]]
        dvec = src @ self.inv_n
        if self.top:
            dvec = dvec + phi[self.n_t]
        if not (dvec > 0).all():
            return None
        self.count += 1
        lam, w = np.sqrt(phi[:self.n_t]), 1.0 / dvec
        if derivatives:
            out = self.system.derivatives(lam, w)
            if out is not None:
                return src, dvec, out
        out = self.system.solve(lam, w)
        return None if out is None else (src, dvec, dict(zip(("logdet", "quad", "beta"), out)))

    def _residual(self, src, dvec, out) -> float:
        """Penalized weighted residual sum of squares plus the within-cell part (relative units)."""
        pwrss = max(float(self.y2 @ (1.0 / dvec)) - out["quad"], 0.0)
        return pwrss, float((self.ss[self.has] / src[self.has]).sum())

    def _profiled(self, src, dvec, out):
        """(criterion, sigma2) at the profiled sigma2."""
        pwrss, within = self._residual(src, dvec, out)
        sigma2 = max((pwrss + within) / self.dof, 1e-300) if self.dof > 0 else 1.0
        val = (self.dof * np.log(sigma2) + float(np.log(dvec).sum()) + out["logdet"]
               + float((self.df[self.has] * np.log(src[self.has])).sum()))
        return val, sigma2

    def profiled(self, phi) -> float:
        parts = self._solve(phi)
        return np.inf if parts is None else self._profiled(*parts)[0]

    def profiled_with_gradient(self, phi):
        """:meth:`profiled` and its gradient (envelope theorem: ``sigma2`` is at its optimum), or a None
        gradient when the layout has no analytic one."""
        parts = self._solve(phi, derivatives=True)
        if parts is None:
            return np.inf, np.zeros_like(phi)
        val, sigma2 = self._profiled(*parts)
        if "py" not in parts[2]:
            return val, None
        g = self._gradient(*parts, sigma2)
        k = self.n_t + self.top
        return val, np.r_[g[:k], g[k + 1:]] * sigma2

    def variances(self, phi) -> np.ndarray:
        """Absolute variances (terms, cell term when ``top``, sources) at the profiled ``sigma2``."""
        src, dvec, out = self._solve(phi)
        pwrss, within = self._residual(src, dvec, out)
        sigma2 = (pwrss + within) / self.dof if self.dof > 0 else 1.0
        return np.r_[phi[:self.n_t + self.top], src] * sigma2

    def intercept(self, phi) -> float:
        return self._solve(phi)[2]["beta"]

    def _split(self, v):
        """Relative parameters and sigma2 of absolute variances ``v`` (negative ones at 0), or None."""
        v = np.maximum(np.asarray(v, dtype=np.float64), 0.0)
        k = self.n_t + self.top
        sigma2 = v[k]
        return (None, 0.0) if sigma2 <= 0 else (np.r_[v[:k], v[k + 1:]] / sigma2, sigma2)

    def full(self, v) -> float:
        """-2 log restricted likelihood (up to a constant) at absolute variances ``v`` (negative ones at 0)."""
        phi, sigma2 = self._split(v)
        parts = None if phi is None else self._solve(phi)
        return 1e300 if parts is None else self._full_value(*parts, sigma2)

    def _full_value(self, src, dvec, out, sigma2) -> float:
        pwrss, _ = self._residual(src, dvec, out)
        val = ((self.system.n_cells - 1) * np.log(sigma2) + float(np.log(dvec).sum()) + out["logdet"]
               + pwrss / sigma2)
        for k in np.flatnonzero(self.has):
            vk = src[k] * sigma2
            val += float(self.df[k] * np.log(vk) + self.ss[k] / vk)
        return val

    def full_gradient(self, v):
        """Gradient of :meth:`full` in the absolute variances, or None (no analytic form for the layout)."""
        return self.full_with_gradient(v)[1]

    def full_with_gradient(self, v):
        """:meth:`full` and its gradient from one factorization (gradient None: no analytic form for the layout,
        or ``v`` outside the domain, where the value is 1e300)."""
        phi, sigma2 = self._split(v)
        parts = None if phi is None else self._solve(phi, derivatives=True)
        if parts is None:
            return 1e300, None
        return self._full_value(*parts, sigma2), (self._gradient(*parts, sigma2) if "py" in parts[2] else None)

    def _gradient(self, src, dvec, der, sigma2):
        """d(-2 log L_R)/dv_j = tr(P V_j) - y'P V_j P y (+ the within-cell part of a source), with ``V_j`` the
        derivative of the cell means' covariance in ``v_j``: Z_T Z_T' (term), I (cell term), diag(1/n_s)."""
        py, pd = der["py"], der["p_diag"]
        s4 = sigma2 * sigma2
        grad = [der["trace"] / sigma2 - der["ztpy2"] / s4]
        if self.top:
            grad.append([pd.sum() / sigma2 - float(py @ py) / s4])
        vs = src * sigma2
        within = np.zeros(self.n_s)
        within[self.has] = self.df[self.has] / vs[self.has] - self.ss[self.has] / vs[self.has] ** 2
        grad.append(self.inv_n @ pd / sigma2 - self.inv_n @ (py * py) / s4 + within)
        return np.concatenate(grad)

    def start(self) -> np.ndarray:
        """Every term's variance equal to the first source's (lme4's start; 0 for a term with one level, which the
        intercept absorbs), the other sources from their within-cell mean squares."""
        per = np.where(self.df > 0, self.ss / np.maximum(self.df, 1), 0.0)
        src = per[1:] / per[0] if per[0] > 0 and (per[1:] > 0).all() else np.ones(self.n_s - 1)
        return np.r_[np.where(self.system.sizes > 1, 1.0, 0.0), np.ones(int(self.top)), src]

    def fit(self, max_evaluations: int):
        """Minimize the profiled criterion by L-BFGS-B with bounds at 0 (analytic gradient when the layout has one;
        else central differences, restarted from the end point until that no longer improves it), then try each
        variance near 0 at 0. Returns the relative parameters, the criterion and whether the finite-difference
        optimizer stopped normally (always True with the analytic gradient: the Newton check decides)."""
        n_r = self.n_t + self.top
        if self.n_free == 0:
            return np.zeros(0), self.profiled(np.zeros(0)), True
        bounds = [(0.0, None)] * n_r + [(1e-10, None)] * (self.n_s - 1)
        opts = {"maxfun": max_evaluations, "ftol": 1e-12, "gtol": 1e-10}
        phi0 = self.start()
        analytic = self.profiled_with_gradient(phi0)[1] is not None
        fun, jac = (self.profiled_with_gradient, True) if analytic else (self.profiled, "3-point")
        res = optimize.minimize(fun, phi0, method="L-BFGS-B", jac=jac, bounds=bounds, options=opts)
        stopped = True  # with the analytic gradient, the Newton check of _refine decides
        for _ in range(0 if analytic else 3):
            again = optimize.minimize(fun, res.x, method="L-BFGS-B", jac=jac, bounds=bounds, options=opts)
            improved = again.fun < res.fun - 1e-10 * max(1.0, abs(res.fun))
            if again.fun <= res.fun:
                res = again
            stopped = bool(res.success or not improved)
            if not improved:
                break
        phi, best = res.x.copy(), float(res.fun)
        for k in range(n_r):
            if 0 < phi[k] < 1e-6:
                trial = phi.copy()
                trial[k] = 0.0
                val = self.profiled(trial)
                if val <= best + 1e-9:
                    phi, best = trial, val
        return phi, best, stopped


def _hessian(model: _Restricted, v: np.ndarray, inner: np.ndarray):
    """Hessian of the full criterion over ``inner`` by central differences (steps ``1e-4 |v|``) of the analytic
    gradient, else of the criterion."""
    n_p = v.size
    h = np.maximum(1e-4 * np.abs(v), 1e-7)
    hess = np.zeros((n_p, n_p))
    idx = np.flatnonzero(inner)
    if model.full_gradient(v) is not None:
        for j in idx:
            e = np.zeros(n_p)
            e[j] = h[j]
            hess[:, j] = (model.full_gradient(v + e) - model.full_gradient(v - e)) / (2 * h[j])
        return (hess + hess.T) / 2
    for i in idx:
        for j in idx[idx >= i]:
            ei = np.zeros(n_p)
            ej = np.zeros(n_p)
            ei[i], ej[j] = h[i], h[j]
            f = [model.full(v + si * ei + sj * ej) for si, sj in ((1, 1), (1, -1), (-1, 1), (-1, -1))]
            hess[i, j] = hess[j, i] = (f[0] - f[1] - f[2] + f[3]) / (4 * h[i] * h[j])
    return hess


def _refine(model: _Restricted, v: np.ndarray, boundary: np.ndarray, max_steps: int = 3):
    """Newton steps on the full criterion over the estimates away from 0 while the Newton decrement exceeds 1e-12
    (log-likelihood units; a flat direction needs it that small for its estimate to hold 1e-4 relative) and the
    step improves the criterion. Returns the variances, the Hessian there and whether the decrement is below 1e-8
    with every estimate at 0 having a criterion that rises away from 0 (analytic gradient only; else the Hessian
    alone)."""
    inner = ~boundary
    for step in range(max_steps + 1):
        hess = _hessian(model, v, inner)
        grad = model.full_gradient(v)
        if grad is None:
            return v, hess, True
        sub, g = hess[np.ix_(inner, inner)], grad[inner]
        try:
            chol = np.linalg.cholesky(sub)
        except np.linalg.LinAlgError:
            return v, hess, False
        delta = -np.linalg.solve(chol.T, np.linalg.solve(chol, g))
        decrement = float(-g @ delta)
        kkt = bool((grad[boundary] >= -1e-6 * max(1.0, float(np.abs(grad).max()))).all())
        if decrement < 1e-12 or step == max_steps:
            return v, hess, decrement < 1e-8 and kkt
        trial = v.copy()
        trial[inner] += delta
        if (trial[inner] <= 0).any() or model.full(trial) > model.full(v):
            return v, hess, decrement < 1e-8 and kkt
        v = trial
    return v, hess, False


def _observed_information(model: _Restricted, v: np.ndarray, boundary: np.ndarray, hess: np.ndarray) -> np.ndarray:
    """Twice the inverse Hessian over the estimates away from 0; an estimate at 0 gets its variance from the
    one-sided curvature of the criterion."""
    objective = model.full
    n_p = v.size
    inner = np.flatnonzero(~boundary)
    cov = np.zeros((n_p, n_p))
    if inner.size:
        sub = hess[np.ix_(inner, inner)]
        try:
            cov[np.ix_(inner, inner)] = 2 * np.linalg.inv(sub)
        except np.linalg.LinAlgError:
            cov[np.ix_(inner, inner)] = 2 * np.linalg.pinv(sub)
    hb = 1e-4
    for k in np.flatnonzero(boundary):  # one-sided curvature at 0
        e = np.zeros(n_p)
        e[k] = hb
        curv = (objective(v + 2 * e) - 2 * objective(v + e) + objective(v)) / hb ** 2
        slope = (objective(v + e) - objective(v)) / hb
        cov[k, k] = 2 / curv if curv > 0 else (2 * hb / slope if slope > 0 else 1.0)
    return cov
