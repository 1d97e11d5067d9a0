"""The fit of ``score(m, b) = sigmoid(alpha_b (C_m - D_b))`` on the observed cells of a sparse model x task matrix,
vectorized over bootstrap replicates.

The parameters are the abilities ``C`` (one per model), the difficulties ``D`` and the log-slopes
``beta = log alpha`` (one each per task; ``beta = 0`` for the Rasch model). The fit is a regularized maximum
likelihood (a MAP estimate under weak Gaussian priors) by Levenberg-Marquardt-damped Fisher scoring with analytic
derivatives. Each step eliminates the abilities (their block of the information is diagonal) and solves the dense
(2T x 2T) Schur complement, for R replicates at once (one batched solve), so a fit costs a few steps of
``O(R (N + M T^2))`` work.

Losses (the likelihood of a cell's score ``y`` given ``p = sigmoid(eta)``):

* ``'binomial'``: ``n`` items, ``n y`` right: ``-[n y log p + n (1 - y) log(1 - p)]``, exact when items are
  exchangeable within a cell;
* ``'fraction'``: the quasi-binomial (fractional logit) loss ``-[y log p + (1 - y) log(1 - p)] / phi`` of
  Papke & Wooldridge (1996), for scores without counts: its estimating equation is unbiased whenever the mean is
  right, whatever the distribution of the score in [0, 1]; its variance function ``phi p (1 - p)`` lets
  cells near 0 or 1 (where a benchmark's score varies little) weigh more than cells near one half. ``phi`` is the
  Pearson dispersion of a first fit, so the priors weigh against the data on the data's own scale;
* ``'least-squares'``: ``(p - y)^2 / (2 sigma^2)`` on the score, the loss of Epoch AI's ``fit.py``
  (scipy ``least_squares`` on ``sigmoid(...) - y``), with Gauss-Newton steps.

The priors (``C ~ N(0, sd_ability^2)``, ``D ~ N(0, sd_difficulty^2)``, ``beta ~ N(0, sd_log_slope^2)``) keep
the estimates finite where the likelihood has no maximum (a model right on everything, a benchmark every model
saturates) and fix the otherwise free location and scale softly; they are wide relative to abilities standardized
to unit variance, so well-measured parameters are set by the data. The reported scale is then imposed exactly by
:func:`standardize` or :func:`to_anchor` (the likelihood does not change under that affine map).

References
----------
Papke, L. E. & Wooldridge, J. M. (1996). Econometric methods for fractional response variables with an
application to 401(k) plan participation rates. J. Appl. Econometrics 11(6), 619-632.
Epoch AI (2025). A Rosetta Stone for AI benchmarks (benchmark stitching); epoch-research/benchmark-stitching.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.special import expit, log_expit

__all__ = ["LOSSES", "PRIOR_SD", "Design", "design", "fit", "predict_eta", "standardize", "to_anchor",
           "start_values", "dispersion", "n_parameters", "leverages", "information_draws"]

#: the likelihoods of a cell's score
LOSSES = ("binomial", "fraction", "least-squares")
#: the largest change of a parameter in one step
MAX_STEP = 2.0
#: default prior standard deviations (abilities standardized to unit variance)
PRIOR_SD = {"ability": 3.0, "difficulty": 5.0, "log_slope": 1.5}


@dataclass(frozen=True, eq=False)
class Design:
    """The fixed structure of a fit: which model and task each cell belongs to, and the sums over them."""

    n_models: int
    n_tasks: int
    model: np.ndarray
    task: np.ndarray
    by_model: sparse.csr_matrix
    by_task: sparse.csr_matrix
    slopes: bool

    @property
    def n_params(self) -> int:
        return self.n_models + self.n_tasks * (2 if self.slopes else 1)


def design(model, task, n_models: int, n_tasks: int, *, slopes: bool = True) -> Design:
    model = np.asarray(model, dtype=np.int64)
    task = np.asarray(task, dtype=np.int64)
    ones = np.ones(model.size)
    cols = np.arange(model.size)
    return Design(n_models, n_tasks, model, task,
                  sparse.csr_matrix((ones, (model, cols)), shape=(n_models, model.size)),
                  sparse.csr_matrix((ones, (task, cols)), shape=(n_tasks, model.size)), bool(slopes))


def n_parameters(d: Design) -> int:
    """Free parameters after identification (location and scale, or location alone for the Rasch model)."""
    return d.n_params - (2 if d.slopes else 1)


def predict_eta(d: Design, C, D, beta, model=None, task=None) -> np.ndarray:
    """The linear predictor ``alpha_b (C_m - D_b)`` of cells (the design's, or ``model``/``task`` codes)."""
    m = d.model if model is None else model
    t = d.task if task is None else task
    return np.exp(beta[..., t]) * (C[..., m] - D[..., t])


def _loss_value(eta, y, w, loss):
    """Per cell: the loss (the objective's terms)."""
    if loss == "least-squares":
        r = expit(eta) - y
        return 0.5 * w * r * r
    # -[y log p + (1 - y) log(1 - p)] = -log sigmoid(eta) + (1 - y) eta
    return w * ((1.0 - y) * eta - log_expit(eta))


def _loss_slopes(eta, y, w, loss):
    """Per cell: the loss's derivative in eta and the Fisher (Gauss-Newton) weight (a step needs no loss)."""
    p = expit(eta)
    v = p * (1.0 - p)
    if loss == "least-squares":
        r = p - y
        return w * r * v, w * v * v
    return w * (p - y), w * v


def _slope_eta(d, C, D, beta):
    """The cells' slopes ``alpha_b`` and linear predictors (as :func:`predict_eta`), for replicates as rows."""
    a = np.exp(beta[..., d.task])
    return a, a * (C[..., d.model] - D[..., d.task])


def _objective(d, C, D, beta, y, w, loss, prior, eta=None):
    """The penalized loss of each replicate; ``eta``: the cells' linear predictors when already formed."""
    with np.errstate(over="ignore", invalid="ignore"):  # a trial step may overflow: it is then refused
        eta = predict_eta(d, C, D, beta) if eta is None else eta
        f = _loss_value(eta, y, w, loss).sum(axis=-1)
    f = np.where(np.isfinite(f), f, np.inf)
    f += 0.5 * (C * C).sum(axis=-1) / prior["ability"] ** 2 + 0.5 * (D * D).sum(axis=-1) / prior["difficulty"] ** 2
    if d.slopes:
        f += 0.5 * (beta * beta).sum(axis=-1) / prior["log_slope"] ** 2
    return f


def _sum(mat, values):
    """Sums of ``values`` (R, N) over the rows of a (K x N) sparse matrix -> (R, K)."""
    return np.asarray((mat @ values.T).T)


def _step(d, C, D, beta, y, w, loss, prior, lam, a, eta):
    """The damped Fisher-scoring step of every replicate (R at once), through the Schur complement; ``a`` and
    ``eta`` are the cells' slopes and linear predictors at ``(C, D, beta)`` (:func:`_slope_eta`)."""
    r_, t_ = C.shape[0], d.n_tasks
    g, h = _loss_slopes(eta, y, w, loss)
    # h is the Fisher weight; the exact Hessian adds g times the second derivatives of eta = exp(beta) (C - D)
    # (d2 eta / dC dbeta = alpha, d2 eta / dD dbeta = -alpha, d2 eta / dbeta2 = eta), which makes the steps
    # Newton's (quadratic convergence where the cells fit loosely); the damping adds multiples of the Fisher
    # diagonal, so a damped step is always a descent direction
    ga, ha2 = g * a, h * a * a
    g_c = _sum(d.by_model, ga) + C / prior["ability"] ** 2
    g_d = -_sum(d.by_task, ga) + D / prior["difficulty"] ** 2
    h_c = _sum(d.by_model, ha2) + 1.0 / prior["ability"] ** 2
    k = 2 * t_ if d.slopes else t_
    s = np.zeros((r_, k, k))
    diag_t = np.arange(t_)
    s[:, diag_t, diag_t] = _sum(d.by_task, ha2) + 1.0 / prior["difficulty"] ** 2
    g_b = g_d
    big_g = np.zeros((r_, d.n_models, k))
    big_g[:, d.model, d.task] = -ha2
    if d.slopes:
        hae = h * a * eta
        ge = g * eta
        g_b = np.concatenate([g_d, _sum(d.by_task, ge) + beta / prior["log_slope"] ** 2], axis=1)
        fisher_bb = _sum(d.by_task, h * eta * eta) + 1.0 / prior["log_slope"] ** 2
        s[:, t_ + diag_t, t_ + diag_t] = fisher_bb + _sum(d.by_task, ge)
        cross = -_sum(d.by_task, hae + ga)
        s[:, diag_t, t_ + diag_t] = cross
        s[:, t_ + diag_t, diag_t] = cross
        big_g[:, d.model, t_ + d.task] = hae + ga
    lam_ = lam[:, None]
    h_cd = h_c * (1.0 + lam_)
    dk = np.arange(k)
    fisher_diag = s[:, dk, dk].copy()
    if d.slopes:
        fisher_diag[:, t_:] = fisher_bb
    s[:, dk, dk] += lam_ * fisher_diag
    scaled = big_g / h_cd[:, :, None]
    schur = s - np.matmul(scaled.transpose(0, 2, 1), big_g)
    rhs = -g_b + np.einsum("rmk,rm->rk", scaled, g_c)
    try:
        db = np.linalg.solve(schur, rhs[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:  # a singular system (never with priors; kept for safety): a gradient step
        db = -g_b / np.maximum(np.abs(np.diagonal(s, axis1=1, axis2=2)), 1e-12)
    dc = (-g_c - np.einsum("rmk,rk->rm", big_g, db)) / h_cd
    return dc, db[:, :t_], (db[:, t_:] if d.slopes else np.zeros_like(beta))


def fit(d: Design, y, w, *, loss: str, prior: dict, start, max_iter: int = 100, tol: float = 1e-7,
        damping: float = 1e-3, scale_tol: float | None = None):
    """Fit R replicates at once from ``start = (C, D, beta)`` (each (R, .) or (.)), on scores ``y`` and weights
    ``w`` ((R, N) or (N,)): n for the binomial, 1 / dispersion otherwise.

    Returns ``(C, D, beta, converged)``, with ``converged`` (R,) bool."""
    C, D, beta = (np.array(np.atleast_2d(v), dtype=float) for v in start)
    y = np.atleast_2d(np.asarray(y, dtype=float))
    r_ = max(C.shape[0], y.shape[0])
    C, D, beta = (np.broadcast_to(v, (r_, v.shape[1])).copy() for v in (C, D, beta))
    y = np.broadcast_to(y, (r_, y.shape[1]))
    w = np.broadcast_to(np.asarray(w, dtype=float), y.shape)
    if not d.slopes:
        beta[:] = 0.0
    lam = np.full(r_, float(damping))
    a_cur, eta_cur = _slope_eta(d, C, D, beta)  # kept for the next step: an accepted trial's, not formed again
    f = _objective(d, C, D, beta, y, w, loss, prior, eta=eta_cur)
    active = np.ones(r_, dtype=bool)
    # the standardized current state (scale_tol): each accepted step's standardized parameters are the next
    # step's starting point, kept rather than computed again
    std_c = std_d = None
    if scale_tol is not None:
        std_c, std_d, _ = standardize(C, D, beta, scale=d.slopes)
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        C_prev, D_prev, beta_prev = C[idx], D[idx], beta[idx]
        y_i, w_i = y[idx], w[idx]
        dc, dd, dbeta = _step(d, C_prev, D_prev, beta_prev, y_i, w_i, loss, prior, lam[idx], a_cur[idx],
                              eta_cur[idx])
        # a trust region: no parameter moves by more than MAX_STEP in one step (the first steps from a cold start)
        big = np.maximum(np.abs(dc).max(axis=1), np.maximum(np.abs(dd).max(axis=1), np.abs(dbeta).max(axis=1)))
        shrink = np.minimum(1.0, MAX_STEP / np.maximum(big, 1e-300))[:, None]
        dc, dd, dbeta = dc * shrink, dd * shrink, dbeta * shrink
        c_new, d_new, b_new = C_prev + dc, D_prev + dd, beta_prev + dbeta
        with np.errstate(over="ignore", invalid="ignore"):  # a trial step may overflow: it is then refused
            a_new, eta_new = _slope_eta(d, c_new, d_new, b_new)
        f_new = _objective(d, c_new, d_new, b_new, y_i, w_i, loss, prior, eta=eta_new)
        ok = np.isfinite(f_new) & (f_new <= f[idx] + 1e-12 * np.abs(f[idx]))
        acc = idx[ok]
        C[acc], D[acc], beta[acc] = c_new[ok], d_new[ok], b_new[ok]
        a_cur[acc], eta_cur[acc] = a_new[ok], eta_new[ok]
        size = np.maximum(np.abs(dc).max(axis=1), np.maximum(np.abs(dd).max(axis=1), np.abs(dbeta).max(axis=1)))
        gain = f[idx] - f_new
        # converged: a step (taken or not) too small to matter, or an accepted step that no longer lowers the
        # objective by more than rounding
        small = (size < tol * (1.0 + np.abs(c_new).max(axis=1))) | (ok & (gain <= 1e-11 * (1.0 + np.abs(f[idx]))))
        if scale_tol is not None:  # converged on the standardized scale: the moves left are along the scale
            after = standardize(c_new, d_new, b_new, scale=d.slopes)  # (location and spread) that only the priors
            moved = np.maximum(np.abs(after[0] - std_c[idx]).max(axis=1),  # pin down, which refits discard
                               np.abs(after[1] - std_d[idx]).max(axis=1))
            small |= ok & (moved < scale_tol)
            std_c[acc], std_d[acc] = after[0][ok], after[1][ok]
        stalled = ~ok & (lam[idx] > 1e10)
        f[acc] = f_new[ok]
        lam[idx] = np.where(ok, np.maximum(lam[idx] / 3.0, 1e-9), lam[idx] * 4.0)
        active[idx[small | stalled]] = False
    return C, D, beta, ~active


def start_values(d: Design, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A cold start: an additive fit ``logit(y) ~ C_m - D_b`` (alternating means), standardized."""
    z = np.log(np.clip(y, 0.02, 0.98) / (1 - np.clip(y, 0.02, 0.98)))
    nm = np.maximum(np.bincount(d.model, minlength=d.n_models), 1)
    nt = np.maximum(np.bincount(d.task, minlength=d.n_tasks), 1)
    C, D = np.zeros(d.n_models), np.zeros(d.n_tasks)
    for _ in range(30):
        C = np.bincount(d.model, weights=z + D[d.task], minlength=d.n_models) / nm
        D = np.bincount(d.task, weights=C[d.model] - z, minlength=d.n_tasks) / nt
    beta = np.zeros(d.n_tasks)
    C, D, beta = standardize(C, D, beta)
    if not d.slopes:
        beta[:] = 0.0
    return C, D, beta


def standardize(C, D, beta, *, scale: bool = True):
    """The same fit on the scale where the abilities have mean 0 and (with ``scale``) variance 1 (ddof 0)."""
    loc = C.mean(axis=-1, keepdims=True)
    s = C.std(axis=-1, keepdims=True) if scale else np.ones_like(loc)
    s = np.where(s > 0, s, 1.0)
    return (C - loc) / s, (D - loc) / s, beta + np.log(s)


def to_anchor(C, D, beta, anchor: int, difficulty: float = 0.0, slope: float = 1.0):
    """The same fit on the scale where task ``anchor`` has the given difficulty and slope (Epoch AI's
    identification): ``C' = k (C - D_a) + difficulty`` with ``k = alpha_a / slope``."""
    k = np.exp(beta[..., anchor:anchor + 1]) / slope
    da = D[..., anchor:anchor + 1]
    return k * (C - da) + difficulty, k * (D - da) + difficulty, beta - np.log(k)


def dispersion(d: Design, y, eta, loss: str, n=None) -> float:
    """Pearson dispersion of a fit: the ratio of the cells' spread around the fit to the spread the loss assumes
    (binomial with ``n``: 1 when the counts vary binomially; 'fraction': ``phi``; 'least-squares':
    ``sigma^2``), with the free parameters' degrees of freedom; NaN when no degree of freedom is left."""
    p = expit(eta)
    r = y - p
    if loss == "least-squares":
        terms = r * r
    else:
        v = p * (1 - p) / (1.0 if n is None else n)
        terms = r * r / np.maximum(v, 1e-12)
    df = y.size - n_parameters(d)
    return float(terms.sum() / df) if df > 0 else float("nan")


def _information(d: Design, C, D, beta, y, w, loss: str, prior: dict):
    """The Jacobian of the cells' linear predictors ``J`` (sparse, N x params), their Fisher weights ``h`` and the
    Fisher information with the priors ``J' diag(h) J + prior precision`` (dense)."""
    a = np.exp(beta[d.task])
    eta = a * (C[d.model] - D[d.task])
    h = _loss_slopes(eta, y, w, loss)[1]
    m, t = d.n_models, d.n_tasks
    cols = [d.model, m + d.task]
    vals = [a, -a]
    if d.slopes:
        cols.append(m + t + d.task)
        vals.append(eta)
    rows = np.tile(np.arange(d.model.size), len(cols))
    J = sparse.csr_matrix((np.concatenate(vals), (rows, np.concatenate(cols))), shape=(d.model.size, d.n_params))
    info = (J.T @ sparse.diags(h) @ J).toarray()
    diag = np.r_[np.full(m, 1 / prior["ability"] ** 2), np.full(t, 1 / prior["difficulty"] ** 2),
                 np.full(t if d.slopes else 0, 1 / prior["log_slope"] ** 2)]
    info[np.diag_indices_from(info)] += diag
    return J, h, info


def leverages(d: Design, C, D, beta, y, w, loss: str, prior: dict) -> np.ndarray:
    """The leverage ``h_c = w_c J_c H^-1 J_c'`` of each cell (the diagonal of the hat matrix of the linearized
    fit; ``J_c`` the derivatives of the cell's linear predictor, ``H`` the Fisher information with the priors).

    A cell of a model measured on few tasks has a large leverage: the fit bends towards it, so its residual
    understates its noise; the residual bootstrap divides residuals by ``sqrt(1 - h)`` (Davison & Hinkley 1997,
    section 6.2)."""
    J, h, info = _information(d, C, D, beta, y, w, loss, prior)
    cov = np.linalg.inv(info)
    return np.clip(h * np.asarray(J.multiply(J @ cov).sum(axis=1)).ravel(), 0.0, 0.99)


def information_draws(d: Design, params, y, w, *, loss: str, prior: dict, n_draws: int, entropy):
    """Draws of ``(C, D, beta)`` from the normal approximation at the fit ``params`` (standardized), with the
    inverse Fisher information as covariance, each draw standardized as a bootstrap refit is: ``(C, D, beta)``
    shaped (n_draws, .). One stream keyed by the purpose (the parameters are in canonical order)."""
    from .._random import block_generator, name_key

    C, D, beta = params
    _, _, info = _information(d, C, D, beta, y, w, loss, prior)
    free = slice(None) if d.slopes else slice(0, d.n_models + d.n_tasks)
    info = info[free, free]
    vals, vecs = np.linalg.eigh(info)
    root = vecs / np.sqrt(np.maximum(vals, 1e-12))  # cov = root root'
    gen = block_generator(entropy, (name_key("information draws"),))
    z = gen.standard_normal((n_draws, info.shape[0])) @ root.T
    m, t = d.n_models, d.n_tasks
    Cs, Ds = C + z[:, :m], D + z[:, m:m + t]
    Bs = beta + z[:, m + t:] if d.slopes else np.zeros((n_draws, t))
    return standardize(Cs, Ds, Bs, scale=d.slopes)
