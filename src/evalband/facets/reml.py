"""REML variance components of an unbalanced crossed / nested design, by direct optimization with sparse algebra.

The array core behind :func:`evalband.facets.variance_components` for unbalanced designs (missing cells, unequal
trials). It works on cell means: trials within a cell contribute their within-cell sum of squares, which is
independent of everything else, so the restricted likelihood of the observations is that of the cell means
(residual variance ``sigma2_e / n_c``) plus a chi-square term for the within-cell part.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, sparse
from scipy.sparse.linalg import splu
from scipy.special import ndtr
from scipy.stats import chi2
from .._validate import ArgumentError
from ..display.reprs import displayed

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
                q = chi2.isf(ndtr(z[:, k]), min(nu[k], 1e6))
                out[:, k] = v[k] * nu[k] / np.maximum(q, 1e-300)
            else:
                out[:, k] = np.maximum(0.0, z[:, k] * sd[k])
        return out


def _indicators(codes: np.ndarray) -> sparse.csc_matrix:
    n_levels = int(codes.max()) + 1 if codes.size else 0
    return sparse.csc_matrix((np.ones(codes.size), (np.arange(codes.size), codes)), shape=(codes.size, n_levels))


def reml_components(y, term_codes, *, inv_n, within_ss, within_df, top: bool = True, weights=None,
                    max_evaluations: int = 4000) -> RemlFit:
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
        Limit on likelihood evaluations.

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
    equations of Henderson (1963) in the relative-factor form of lme4 (Bates et al. 2015); ``A`` is factored
    by sparse LU. Standard deviations are optimized by L-BFGS-B with bounds at 0, so estimates on the boundary
    are exactly 0. The covariance of the estimates is twice the inverse Hessian of the objective in the variances
    (observed information), by central differences.

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
    zs = [_indicators(np.asarray(t, dtype=np.int64)) for t in term_codes]
    sizes = np.array([z.shape[1] for z in zs], dtype=np.int64)
    z = sparse.hstack(zs, format="csc") if zs else sparse.csc_matrix((c, 0))
    q = z.shape[1]
    n_t, n_s = len(zs), inv_n.shape[0]
    # scale to unit variance for the optimizer
    loc = float(y.mean())
    scale = float(y.std()) or 1.0
    if w_df.sum() > 0 and (w_ss.sum() > 0):
        scale = max(scale, float(np.sqrt(w_ss.sum() / w_df.sum() * inv_n.mean())))
    ys = (y - loc) / scale
    ss_s = w_ss / scale ** 2
    count = [0]
    # block elimination: the term with the most levels has a diagonal block (each cell has one level of it)
    big = int(np.argmax(sizes)) if n_t else -1
    starts = np.r_[0, np.cumsum(sizes)]
    z1 = z[:, starts[big]:starts[big + 1]].tocsc() if n_t else None
    rest_cols = np.r_[0:starts[big], starts[big + 1]:q] if n_t else np.arange(0)
    z2 = sparse.hstack([z[:, rest_cols], sparse.csc_matrix(np.ones((c, 1)))], format="csc")
    rest_terms = np.repeat(np.delete(np.arange(n_t), big), np.delete(sizes, big)) if n_t else np.arange(0)
    ident2 = np.r_[np.ones(rest_terms.size), 0.0]  # no identity for the intercept
    q2 = z2.shape[1]

    def parts(theta):
        st = theta[:n_t]
        s_top = theta[n_t] if top else 0.0
        s_src = theta[n_t + top:]
        dvec = s_top ** 2 + (s_src[:, None] ** 2 * inv_n).sum(axis=0)
        return st, dvec, s_src

    dense = q2 <= 400 and c * q2 <= 20_000_000
    if dense:  # few columns besides the largest term: plain arrays beat sparse overhead
        l1 = None  # level of the largest term in each cell
        if n_t:
            l1 = np.empty(c, dtype=np.int64)
            coo = z1.tocoo()
            l1[coo.row] = coo.col
        n_l1 = z1.shape[1] if n_t else 0
        z2d = np.asarray(z2.todense())

    def solve_dense(st, w):
        lam2 = np.r_[st[rest_terms], 1.0] if n_t else np.ones(1)
        z2l = z2d * lam2
        z2w = z2l.T * w
        s_mat = z2w @ z2l + np.diag(ident2)
        rhs = z2w @ ys
        logdet, quad1 = 0.0, 0.0
        if n_t:
            lam1 = st[big]
            d1 = lam1 ** 2 * np.bincount(l1, weights=w, minlength=n_l1) + 1.0
            a12 = np.zeros((n_l1, q2))
            np.add.at(a12, l1, (lam1 * w)[:, None] * z2l)
            r1 = lam1 * np.bincount(l1, weights=w * ys, minlength=n_l1)
            s_mat = s_mat - (a12.T / d1) @ a12
            rhs = rhs - a12.T @ (r1 / d1)
            logdet = float(np.log(d1).sum())
            quad1 = float(r1 @ (r1 / d1))
        try:
            chol = np.linalg.cholesky(s_mat)
        except np.linalg.LinAlgError:
            return None
        b2 = np.linalg.solve(chol.T, np.linalg.solve(chol, rhs))
        return logdet + 2.0 * float(np.log(np.diag(chol)).sum()), quad1 + float(rhs @ b2), w, b2[-1]

    def solve(theta):
        """log|A| and the solution b = A^-1 r of the mixed-model equations (intercept last), or None."""
        st, dvec, _ = parts(theta)
        if (dvec <= 0).any():
            return None
        w = 1.0 / dvec
        if dense:
            return solve_dense(st, w)
        lam2 = np.r_[st[rest_terms], 1.0] if n_t else np.ones(1)
        z2l = z2 @ sparse.diags(lam2)
        z2w = z2l.T.multiply(w[None, :]).tocsr()
        a22 = z2w @ z2l
        r2 = z2w @ ys
        a22 = a22.toarray() if q2 <= 3000 else a22
        if n_t:
            lam1 = st[big]
            d1 = lam1 ** 2 * np.asarray(z1.T @ w).ravel() + 1.0
            a12 = (z1.T.multiply((lam1 * w)[None, :]).tocsr() @ z2l)  # (L1, q2)
            r1 = lam1 * np.asarray(z1.T @ (w * ys)).ravel()
            scaled = sparse.diags(1.0 / d1) @ a12
            s_mat = a22 - (a12.T @ scaled)
            rhs = r2 - scaled.T @ r1
            logdet = float(np.log(d1).sum())
        else:
            s_mat, rhs, logdet = a22, r2, 0.0
        if sparse.issparse(s_mat):
            s_mat = (s_mat + sparse.diags(ident2)).tocsc()
            try:
                lu = splu(s_mat, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0)
            except RuntimeError:
                return None
            diag = lu.U.diagonal()
            if (diag <= 0).any():
                return None
            logdet += float(np.log(diag).sum())
            b2 = lu.solve(np.asarray(rhs).ravel())
        else:
            s_mat = np.asarray(s_mat) + np.diag(ident2)
            try:
                chol = np.linalg.cholesky(s_mat)
            except np.linalg.LinAlgError:
                return None
            logdet += 2.0 * float(np.log(np.diag(chol)).sum())
            b2 = np.linalg.solve(chol.T, np.linalg.solve(chol, np.asarray(rhs).ravel()))
        quad = float(np.asarray(rhs).ravel() @ b2)
        if n_t:
            quad += float(r1 @ (r1 / d1))
        return logdet, quad, w, b2[-1]

    def objective(theta):
        count[0] += 1
        _, dvec, s_src = parts(theta)
        out = solve(theta)
        if out is None:
            return 1e300
        logdet, quad, w, _ = out
        val = float(np.log(dvec).sum()) + logdet + float(w @ (ys * ys)) - quad
        for k in range(n_s):
            if w_df[k] > 0:
                v = s_src[k] ** 2
                val += float(w_df[k] * np.log(v) + ss_s[k] / v)
        return val

    # start: residual from the within-cell part, the rest of the spread shared by the terms
    resid0 = np.sqrt(np.where(w_df > 0, ss_s / np.maximum(w_df, 1), 0.5))
    rest = max(1.0 - float((resid0 ** 2 * inv_n.mean(axis=1)).sum()), 0.1)
    theta0 = np.concatenate([np.full(n_t + top, np.sqrt(rest / (n_t + top))), np.maximum(resid0, 0.1)])
    bounds = [(0.0, None)] * (n_t + top) + [(1e-6, None)] * n_s
    res = optimize.minimize(objective, theta0, method="L-BFGS-B", jac="3-point", bounds=bounds,
                            options={"maxfun": max_evaluations, "ftol": 1e-14, "gtol": 1e-10})
    improved = True
    for _ in range(5):  # restart from the end point until it stops improving (finite-difference gradients)
        again = optimize.minimize(objective, res.x, method="L-BFGS-B", jac="3-point", bounds=bounds,
                                  options={"maxfun": max_evaluations, "ftol": 1e-14, "gtol": 1e-10})
        improved = again.fun < res.fun - 1e-10 * max(1.0, abs(res.fun))
        if again.fun <= res.fun:
            res = again
        if not improved:
            break
    theta = res.x
    # polish from each boundary: a component stuck near 0 is set to 0 if that does not worsen the fit
    for k in range(n_t + top):
        if 0 < theta[k] < 1e-3:
            trial = theta.copy()
            trial[k] = 0.0
            if objective(trial) <= res.fun + 1e-9:
                theta = trial
    best = objective(theta)
    variance_s = theta ** 2
    boundary = np.zeros(len(theta), dtype=bool)
    boundary[:n_t + top] = variance_s[:n_t + top] < 1e-10

    def g(v):
        return objective(np.sqrt(np.maximum(v, 0.0)))

    n_p = len(theta)
    h = np.maximum(1e-4 * np.abs(variance_s), 1e-7)
    hess = np.zeros((n_p, n_p))
    inner = np.flatnonzero(~boundary)
    for i in inner:
        for j in inner:
            if j < i:
                continue
            ei = np.zeros(n_p)
            ej = np.zeros(n_p)
            ei[i], ej[j] = h[i], h[j]
            f = [g(variance_s + si * ei + sj * ej) for si, sj in ((1, 1), (1, -1), (-1, 1), (-1, -1))]
            hess[i, j] = hess[j, i] = (f[0] - f[1] - f[2] + f[3]) / (4 * h[i] * h[j])
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
        curv = (g(variance_s + 2 * e) - 2 * g(variance_s + e) + g(variance_s)) / hb ** 2
        slope = (g(variance_s + e) - g(variance_s)) / hb
        cov[k, k] = 2 / curv if curv > 0 else (2 * hb / slope if slope > 0 else 1.0)
    # intercept (GLS), on the original scale
    variance = variance_s * scale ** 2
    cov = cov * scale ** 4
    mean = loc + scale * solve(theta)[3]
    # converged: the optimizer says so, or restarting from its end point no longer improves the fit
    return RemlFit(variance, cov, boundary, float(mean), float(best), bool(res.success or not improved), count[0])
