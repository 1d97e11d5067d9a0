"""Exact maximum likelihood for Bradley-Terry and its tie models, by Newton's method vectorized over replicates.

Models (``d = theta_i - theta_j``, log-strengths ``theta``, sigma the logistic function):

* ``'bt'`` (ties 'half' or 'drop'): ``P(i beats j) = sigma(d)``; a battle with outcome ``y`` contributes
  ``y log sigma(d) + (1 - y) log sigma(-d)``, so a tie is half a win for each side (evalica, FastChat) and a
  fractional preference a fractional win.
* ``'rao-kupper'`` (Rao & Kupper 1967): ``P(i beats j) = sigma(d - eta)``, ``P(tie) = 1 - sigma(d - eta) -
  sigma(-d - eta)``, with ``eta = log(theta_RK) > 0`` fitted.
* ``'davidson'`` (Davidson 1970): ``P(i beats j) : P(tie) : P(j beats i) = e^(d/2) : nu : e^(-d/2)``, with
  ``nu`` fitted (evalica's Newman scores are this model with ``nu = 2 v``).

Every model depends on the battles only through sums per model pair, so one call fits a whole block of bootstrap
replicates (sums shaped (c, P)) at once: per iteration one batched linear solve of the (M [+1])-dimensional Newton
system, with step halving whenever the penalized log-likelihood would decrease. Identifiability: the ratings are
centred (sum zero), and a ridge ``ridge / 2 * sum(theta^2)`` (default 1e-6, a Gaussian prior with standard
deviation 1,000 logits) keeps them finite when a model has only wins or only losses, or is absent from a
replicate; it moves ratings whose maximum-likelihood estimate exists by about ``ridge / information``, far below
1e-6 logits for any real leaderboard.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.special import expit
from ..display.reprs import displayed
from .._validate import ArgumentError
from .._words import words

__all__ = ["TIES", "RIDGE", "NewtonFit", "fit_pairs", "incidence", "mle_exists", "pair_derivatives",
           "information_matrix", "one_step_jackknife", "newton_maximize", "laplacian", "log_sigmoid", "spd_solve"]

#: tie handling: 'half' (a tie is half a win), 'drop' (ties left out), and the two tie models
TIES = ("half", "drop", "rao-kupper", "davidson")
#: default ridge (penalty ridge/2 * sum theta^2 on the log-strengths)
RIDGE = 1e-6
#: largest step per iteration (logits); later steps are exact Newton steps
MAX_STEP = 4.0


@displayed
@dataclass(frozen=True, eq=False, repr=False)
class NewtonFit:
    """Fitted log-strengths of a block of replicates.

    Attributes
    ----------
    theta : numpy.ndarray, shape (c, M)
        Log-strengths, centred to mean 0 in every replicate.
    tie : numpy.ndarray or None, shape (c,)
        The tie parameter: Rao-Kupper's ``theta_RK = e^eta`` (>= 1) or Davidson's ``nu`` (None for 'bt').
    converged : numpy.ndarray of bool, shape (c,)
    iterations : int
    model : str
    """

    theta: np.ndarray
    tie: np.ndarray | None
    converged: np.ndarray
    iterations: int
    model: str

    @property
    def extra(self) -> np.ndarray | None:
        """The tie parameter on the scale it is fitted on (eta, log nu)."""
        if self.tie is None:
            return None
        return np.log(self.tie)


def incidence(pair_i, pair_j, n_models: int) -> sparse.csr_matrix:
    """``(P, M)`` matrix with +1 at ``pair_i`` and -1 at ``pair_j`` (``d = D @ theta``)."""
    p = len(pair_i)
    rows = np.repeat(np.arange(p), 2)
    cols = np.column_stack([pair_i, pair_j]).ravel()
    vals = np.tile([1.0, -1.0], p)
    return sparse.csr_matrix((vals, (rows, cols)), shape=(p, n_models))


def log_sigmoid(x) -> np.ndarray:
    """``log(sigma(x))``, stable for any ``x`` (faster than ``scipy.special.log_expit`` on large arrays)."""
    x = np.asarray(x, dtype=np.float64)
    return np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x)))


def _bt_terms(d):
    """``log sigma(d)``, ``log sigma(-d)`` and ``sigma(d)`` from one exponential."""
    e = np.exp(-np.abs(d))
    lp = np.minimum(d, 0.0) - np.log1p(e)
    p = np.where(d >= 0, 1.0, e) / (1.0 + e)
    return lp, lp - d, p


def pair_derivatives(model: str, d, e, data):
    """Per pair: log-likelihood and its derivatives in ``d`` and in the tie parameter ``e``.

    Returns ``(ll, fd, fdd, fe, fde, fee)``, each shaped like ``d`` ((c, P)); the ``fe`` terms are None for
    'bt'. ``data`` holds the sums: 'n', 's' for 'bt'; 'w', 't', 'l' for the tie models. The first derivatives
    are linear in the sums (used by the one-step jackknife).
    """
    if model == "bt":
        n, s = data["n"], data["s"]
        lp, lm, p = _bt_terms(d)
        ll = s * lp + (n - s) * lm
        return ll, s - n * p, -n * p * (1.0 - p), None, None, None
    w, t, lo = data["w"], data["t"], data["l"]
    if model == "rao-kupper":
        eta = e[:, None]
        a, b = expit(d - eta), expit(-d - eta)
        a1, b1 = a * (1.0 - a), b * (1.0 - b)
        with np.errstate(divide="ignore", invalid="ignore"):
            logq = log_sigmoid(eta - d) + log_sigmoid(d + eta) + np.log(-np.expm1(-2.0 * eta))
            em = np.expm1(2.0 * eta)
            ll = w * log_sigmoid(d - eta) + lo * log_sigmoid(-d - eta) + np.where(t > 0, t * logq, 0.0)
            fe = -w * (1.0 - a) - lo * (1.0 - b) + t * (a + b + 2.0 / em)
            fee = -(w + t) * a1 - (lo + t) * b1 - t * 4.0 * (em + 1.0) / em ** 2
        fd = w * (1.0 - a) - lo * (1.0 - b) + t * (b - a)
        fdd = -(w + t) * a1 - (lo + t) * b1
        fde = (w + t) * a1 - (lo + t) * b1
        return ll, fd, fdd, fe, fde, fee
    if model == "davidson":
        kappa = np.broadcast_to(e[:, None], d.shape)
        half = d / 2.0
        logz = np.logaddexp(np.logaddexp(half, -half), kappa)
        pa, pb, pt = np.exp(half - logz), np.exp(-half - logz), np.exp(kappa - logz)
        n = w + t + lo
        ll = w * half - lo * half + t * kappa - n * logz
        fd = (w - lo) / 2.0 - n * (pa - pb) / 2.0
        fdd = -n * ((pa + pb) / 4.0 - (pa - pb) ** 2 / 4.0)
        fe = t - n * pt
        fde = n * pt * (pa - pb) / 2.0
        fee = -n * pt * (1.0 - pt)
        return ll, fd, fdd, fe, fde, fee
    raise ArgumentError(words("`{arg:model}` must be 'bt', 'rao-kupper' or 'davidson'; got {model!r}.", model=model))


def laplacian(h, pi, pj, D, q: int, ridge: float) -> np.ndarray:
    """``(c, q, q)`` matrix whose leading (M, M) block is the weighted graph Laplacian of the pairs (weights ``h``
    (c, P)) plus ``ridge`` on the diagonal and ``1/M`` everywhere (which fixes the mean without changing a
    centred solution); the rest is zero, for the caller to fill."""
    c = h.shape[0]
    m = D.shape[1]
    a = np.zeros((c, q, q))
    flat = a.reshape(c, q * q)
    flat[:, pi * q + pj] = -h
    flat[:, pj * q + pi] = -h
    deg = np.asarray((abs(D).T @ h.T).T)
    idx = np.arange(m)
    flat[:, idx * q + idx] = deg + ridge
    a[:, :m, :m] += 1.0 / m
    return a


def _system(model, theta, e, data, pi, pj, D, ridge):
    """Objective (c,), gradient (c, q) and negative Hessian (+ J/M on the rating block) (c, q, q)."""
    c, m = theta.shape
    d = theta[:, pi] - theta[:, pj]
    ll, fd, fdd, fe, fde, fee = pair_derivatives(model, d, e, data)
    obj = ll.sum(axis=1) - 0.5 * ridge * (theta ** 2).sum(axis=1)
    g_theta = np.asarray((D.T @ fd.T).T) - ridge * theta
    q = m if fe is None else m + 1
    a = laplacian(-fdd, pi, pj, D, q, ridge)
    if fe is None:
        return obj, g_theta, a
    cross = -np.asarray((D.T @ fde.T).T)
    a[:, :m, m] = cross
    a[:, m, :m] = cross
    a[:, m, m] = -fee.sum(axis=1)
    return obj, np.concatenate([g_theta, fe.sum(axis=1)[:, None]], axis=1), a


def _objective(model, theta, e, data, pi, pj, ridge):
    d = theta[:, pi] - theta[:, pj]
    if model == "bt":
        lp = np.minimum(d, 0.0) - np.log1p(np.exp(-np.abs(d)))
        ll = (data["n"] * lp - (data["n"] - data["s"]) * d).sum(axis=1) - 0.5 * ridge * (theta ** 2).sum(axis=1)
        return np.where(np.isnan(ll), -np.inf, ll)
    if model == "rao-kupper":
        bad = ~(e > 0)
        e = np.where(bad, 1.0, e)
    ll = pair_derivatives(model, d, e, data)[0].sum(axis=1) - 0.5 * ridge * (theta ** 2).sum(axis=1)
    if model == "rao-kupper":
        ll = np.where(bad, -np.inf, ll)
    return np.where(np.isnan(ll), -np.inf, ll)


def _initial_tie(model, data) -> np.ndarray:
    t = data["t"].sum(axis=1)
    n = t + data["w"].sum(axis=1) + data["l"].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.clip(np.where(n > 0, t / n, 0.3), 1e-3, 0.9)
    if model == "rao-kupper":
        return 2.0 * np.arctanh(tau)  # P(tie | d = 0) = tanh(eta / 2)
    return np.log(2.0 * tau / (1.0 - tau))  # P(tie | d = 0) = nu / (2 + nu)


def fit_pairs(data: dict, pair_i, pair_j, n_models: int, *, model: str = "bt", ridge: float = RIDGE,
              theta0=None, tie0=None, tol: float = 1e-10, max_iter: int = 200) -> NewtonFit:
    """Maximum-likelihood log-strengths from pair sums, for one data set or a block of replicates.

    Parameters
    ----------
    data : dict of array_like, each (P,) or (c, P)
        'n' (weight of battles) and 's' (weight x outcome of ``pair_i``) for ``model='bt'``; 'w', 't', 'l'
        (wins of ``pair_i``, ties, wins of ``pair_j``) for the tie models.
    pair_i, pair_j : array_like of int, shape (P,)
        The pairs, ``pair_i < pair_j``.
    n_models : int
    model : {'bt', 'rao-kupper', 'davidson'}
    ridge : float
        Penalty ``ridge / 2 * sum(theta^2)``; 0 gives the plain maximum-likelihood estimate (which must then
        exist: a strongly connected comparison graph).
    theta0, tie0 : array_like, optional
        Starting values (e.g. the fit to the data, for its bootstrap replicates); ``tie0`` on the natural scale.
    tol : float
        Convergence when the largest Newton step is below ``tol`` (logits).
    max_iter : int

    Returns
    -------
    NewtonFit

    Notes
    -----
    The log-likelihood of each model is concave in the log-strengths (and in Rao-Kupper's ``eta``, Davidson's
    ``log nu``); Newton's method with step halving converges from any start, quadratically near the optimum.
    The tie parameter of Rao-Kupper is not identified when the battles have no ties.

    References
    ----------
    Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block designs I. Biometrika 39, 324-345.
    Rao, P. V. & Kupper, L. L. (1967). Ties in paired-comparison experiments: a generalization of the
    Bradley-Terry model. JASA 62, 194-204.
    Davidson, R. R. (1970). On extending the Bradley-Terry model to accommodate ties in paired comparison
    experiments. JASA 65, 317-328.
    Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry models. Ann. Statist. 32, 384-406.

    Examples
    --------
    Two models, A won 3 of 4 battles: the log-odds ln 3, split around the mean.

    >>> fit = fit_pairs({"n": [4.0], "s": [3.0]}, [0], [1], 2, ridge=0.0)
    >>> fit.theta.round(6)
    array([[ 0.549306, -0.549306]])
    """
    if model not in ("bt", "rao-kupper", "davidson"):
        raise ArgumentError(words("`{arg:model}` must be 'bt', 'rao-kupper' or 'davidson'; got {model!r}.", model=model))
    pi = np.asarray(pair_i, dtype=np.int64)
    pj = np.asarray(pair_j, dtype=np.int64)
    m = int(n_models)
    data = {k: np.atleast_2d(np.asarray(v, dtype=np.float64)) for k, v in data.items()}
    c = next(iter(data.values())).shape[0]
    data = {k: np.broadcast_to(v, (c, pi.size)) for k, v in data.items()}
    D = incidence(pi, pj, m)
    theta = np.zeros((c, m)) if theta0 is None else np.array(np.broadcast_to(theta0, (c, m)), dtype=np.float64)
    theta -= theta.mean(axis=1, keepdims=True)
    e = None
    if model != "bt":
        if tie0 is None:
            e = _initial_tie(model, data)
        else:
            e = np.log(np.broadcast_to(np.asarray(tie0, dtype=np.float64), (c,))).copy()
        if model == "rao-kupper":
            e = np.maximum(e, 1e-3)
    x0 = theta if e is None else np.column_stack([theta, e])

    def system(x, rows):
        return _system(model, x[:, :m], None if e is None else x[:, m], {k: v[rows] for k, v in data.items()},
                       pi, pj, D, ridge)

    def objective(x, rows):
        return _objective(model, x[:, :m], None if e is None else x[:, m], {k: v[rows] for k, v in data.items()},
                          pi, pj, ridge)

    x, converged, it = newton_maximize(x0, system, objective, m, tol=tol, max_iter=max_iter)
    theta = x[:, :m]
    e = None if e is None else x[:, m]
    tie = None if e is None else np.exp(e)
    return NewtonFit(theta, tie, converged, it, model)


def spd_solve(a, b) -> np.ndarray:
    """Solve ``a x = b`` for a batch of symmetric positive definite matrices ``a`` (c, q, q), ``b`` (c, q).

    A batched Cholesky factorization and triangular substitutions vectorized over the batch: unlike a batched
    ``numpy.linalg.solve`` this stays fast when a multi-threaded BLAS competes for few cores. Falls back to
    ``numpy.linalg.solve`` if a matrix is not numerically positive definite.
    """
    try:
        low = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        return np.linalg.solve(a, b[..., None])[..., 0]
    q = a.shape[-1]
    y = np.empty_like(b)
    for i in range(q):
        y[:, i] = (b[:, i] - np.einsum("cj,cj->c", low[:, i, :i], y[:, :i])) / low[:, i, i]
    x = np.empty_like(b)
    for i in range(q - 1, -1, -1):
        x[:, i] = (y[:, i] - np.einsum("cj,cj->c", low[:, i + 1:, i], x[:, i + 1:])) / low[:, i, i]
    return x


def newton_maximize(x0, system, objective, n_centred: int, *, tol: float = 1e-10, max_iter: int = 200,
                    max_step: float = MAX_STEP):
    """Maximize a concave objective for every row of ``x0`` (c, q) at once by Newton's method with step halving.

    Parameters
    ----------
    x0 : numpy.ndarray, shape (c, q)
    system : callable ``(x (r, q), rows) -> (objective (r,), gradient (r, q), negative Hessian (r, q, q))``
        ``rows`` are the positions (in ``x0``) of the rows passed, for the caller to pick their data.
    objective : callable ``(x, rows) -> (r,)``
        -inf outside the domain.
    n_centred : int
        The first ``n_centred`` parameters (ratings) are re-centred to mean 0 after each step.

    Returns
    -------
    x : numpy.ndarray (c, q)
    converged : numpy.ndarray of bool (c,)
    iterations : int
    """
    x = np.array(x0, dtype=np.float64)
    c = x.shape[0]
    converged = np.zeros(c, dtype=bool)
    it = 0
    while it < max_iter and not converged.all():
        it += 1
        act = np.flatnonzero(~converged)
        xa = x[act]
        obj, grad, a = system(xa, act)
        step = spd_solve(a, grad)
        big = np.abs(step).max(axis=1)
        s = np.minimum(1.0, max_step / np.maximum(big, 1e-300))
        pending = np.ones(act.size, dtype=bool)
        new = xa.copy()
        for _ in range(40):  # step halving where the objective would drop
            idx = np.flatnonzero(pending)
            cand = xa[idx] + s[idx, None] * step[idx]
            val = objective(cand, act[idx])
            ok = val >= obj[idx] - 1e-12 * np.maximum(1.0, np.abs(obj[idx]))
            new[idx[ok]] = cand[ok]
            pending[idx[ok]] = False
            if not pending.any():
                break
            s[pending] *= 0.5
        # a step that cannot be taken even when halved 40 times is below rounding: the point is converged
        new[:, :n_centred] -= new[:, :n_centred].mean(axis=1, keepdims=True)
        x[act] = new
        converged[act] = (big * s < tol) | pending | (big < tol)
    return x, converged, it


def information_matrix(fit: NewtonFit, data: dict, pair_i, pair_j, *, ridge: float = RIDGE) -> np.ndarray:
    """Observed information (negative Hessian of the penalized log-likelihood, + J/M on the ratings) at the fit
    of one data set: ``(q, q)`` with ``q = M`` (+1 with a tie parameter)."""
    pi = np.asarray(pair_i, dtype=np.int64)
    pj = np.asarray(pair_j, dtype=np.int64)
    th = fit.theta[:1]
    data = {k: np.atleast_2d(np.asarray(v, dtype=np.float64)) for k, v in data.items()}
    e = None if fit.tie is None else np.log(fit.tie[:1])
    return _system(fit.model, th, e, data, pi, pj, incidence(pi, pj, th.shape[1]), ridge)[2][0]


def one_step_jackknife(fit: NewtonFit, unit_sums: dict, pair_i, pair_j, info: np.ndarray) -> np.ndarray:
    """Delete-one-unit jackknife values of the parameters by one Newton step from the full fit.

    ``theta_(-k) ~ theta_hat - I^-1 g_k``, with ``g_k`` the score contribution of unit k (linear in its sums)
    and ``I`` the observed information: the linear (infinitesimal) jackknife, exact to first order.

    Parameters
    ----------
    unit_sums : dict of (K, P) sparse matrices
        :meth:`PairSums.unit_sums`.

    Returns
    -------
    numpy.ndarray, shape (K, q)
        Jackknife values of (theta, [tie parameter on its fitted scale]).
    """
    pi = np.asarray(pair_i, dtype=np.int64)
    pj = np.asarray(pair_j, dtype=np.int64)
    m = fit.theta.shape[1]
    th = fit.theta[:1]
    d = th[:, pi] - th[:, pj]
    e = None if fit.tie is None else np.log(fit.tie[:1])
    D = incidence(pi, pj, m)
    names = list(unit_sums)
    k_units = unit_sums[names[0]].shape[0]
    g_theta = np.zeros((k_units, m))
    g_e = np.zeros(k_units)
    for name in names:  # the score is linear in the sums: coefficient of each statistic, per pair
        unit = {k: np.zeros((1, pi.size)) for k in names}
        unit[name] = np.ones((1, pi.size))
        _, fd, _, fe, _, _ = pair_derivatives(fit.model, d, e, unit)
        mat = unit_sums[name]
        g_theta += np.asarray((mat.multiply(fd[0][None, :]).tocsr() @ D).todense())
        if fe is not None:
            g_e += np.asarray(mat @ fe[0]).ravel()
    g = g_theta if fit.tie is None else np.column_stack([g_theta, g_e])
    step = np.linalg.solve(info, g.T).T
    base = th[0] if fit.tie is None else np.append(th[0], e[0])
    return base[None, :] - step


def mle_exists(data: dict, pair_i, pair_j, n_models: int) -> tuple[bool, list[int], list[int], int]:
    """Whether the maximum-likelihood ratings are finite: the directed graph "i won (or tied) against j" must be
    strongly connected (Ford 1957; Hunter 2004).

    Returns
    -------
    exists : bool
    only_wins, only_losses : list of int
        Models that never lost (never won) anything, not even half a battle.
    n_components : int
        Strongly connected components of the graph.

    Examples
    --------
    >>> from evalband.preferences import mle_exists
    >>> mle_exists({"n": [4.0, 3.0], "s": [3.0, 1.0]}, [0, 1], [1, 2], 3)
    (True, [], [], 1)
    >>> mle_exists({"n": [4.0, 3.0], "s": [4.0, 1.0]}, [0, 1], [1, 2], 3)
    (False, [0], [], 2)
    """
    from scipy.sparse.csgraph import connected_components

    pi = np.asarray(pair_i, dtype=np.int64)
    pj = np.asarray(pair_j, dtype=np.int64)
    if "n" in data:
        win_i = np.asarray(data["s"], dtype=float).ravel()
        win_j = np.asarray(data["n"], dtype=float).ravel() - win_i
    else:
        win_i = np.asarray(data["w"], dtype=float).ravel() + np.asarray(data["t"], dtype=float).ravel()
        win_j = np.asarray(data["l"], dtype=float).ravel() + np.asarray(data["t"], dtype=float).ravel()
    m = int(n_models)
    rows = np.concatenate([pi[win_i > 0], pj[win_j > 0]])
    cols = np.concatenate([pj[win_i > 0], pi[win_j > 0]])
    graph = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(m, m))
    n_comp, _ = connected_components(graph, directed=True, connection="strong")
    lost = np.bincount(pi, weights=win_j, minlength=m) + np.bincount(pj, weights=win_i, minlength=m)
    won = np.bincount(pi, weights=win_i, minlength=m) + np.bincount(pj, weights=win_j, minlength=m)
    only_wins = [int(k) for k in np.flatnonzero((lost <= 0) & (won > 0))]
    only_losses = [int(k) for k in np.flatnonzero((won <= 0) & (lost > 0))]
    return n_comp == 1, only_wins, only_losses, int(n_comp)
