"""The logistic model's posterior mode and the precision (negative Hessian) there, in the coordinates of
:mod:`evalband.bayes._coords`, where it is an arrowhead: a dense global block, a diagonal item block, and the
block between them.

The Hessian is built from its structure, not by automatic differentiation through every score: with ``W`` and
``r`` the logistic weights ``n p (1 - p)`` and residuals ``y - n p`` of every (model, item) score,

* the global block is the Hessian of a *cell surrogate* (every cell's summed residual and weight, and the
  prior), which equals the model's Hessian at the expansion point and costs as little as the model without items;
* the block between global coordinate ``j`` and item ``k`` is ``kappa * sum_m W_mk J_(m, cell k), j`` (``J`` the
  Jacobian of the cell logits), plus, for the item scale, its own row;
* the item block is diagonal: ``kappa**2 sum_m W_mk`` plus the prior's precision.

The constraints (items sum to zero in their group) are imposed by conditioning by kriging (Rue & Held 2005, sec.
2.3.3): the constrained solution of ``P x = b`` is ``x - P^-1 A^T (A P^-1 A^T)^-1 A x`` with ``x = P^-1 b``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg, special

from ._coords import centre, group_sizes, item_logits, log_density, log_prior, initial_point, split_effects, cell_logits

__all__ = ["Precision", "ItemCoupling", "precision", "factorise", "find_mode", "mode_and_precision", "ModeNotFound",
           "density_fns", "x64"]


#: A centred level whose scale falls below this while the mode is searched has no interior mode (its density grows
#: without bound as the scale and the effects go to zero together): the search stops and names it.
SIGMA_FLOOR = 1e-4


class ModeNotFound(np.linalg.LinAlgError):
    """No posterior mode with a positive definite precision was found; ``levels`` names the centred levels whose
    scale collapsed (switching them to non-centred removes the singularity)."""

    def __init__(self, message, levels=()):
        super().__init__(message)
        self.levels = tuple(levels)


@dataclass(frozen=True, eq=False)
class ItemCoupling:
    """The block between the global coordinates and the items in factored form: ``cross[j, k] = kappa *
    sum_m w[m, k] * jac[m, cell_k, j] + row[k] * (j == row_index)``."""

    jac: np.ndarray  # (M, G, n_global)
    w: np.ndarray  # (M, K)
    kappa: float
    row: np.ndarray  # (K,)
    row_index: int

    def dense(self, item_cell):
        """The (n_global, K) block."""
        ng = self.jac.shape[2]
        out = np.zeros((ng, item_cell.shape[0]))
        for g in np.unique(item_cell):
            sel = np.flatnonzero(item_cell == g)
            out[:, sel] = self.kappa * (self.jac[:, g, :].T @ self.w[:, sel])
        out[self.row_index] += self.row
        return out


@dataclass(frozen=True, eq=False)
class Precision:
    """The negative Hessian as an arrowhead: ``glob`` (n_global, n_global), ``cross`` (n_global, K), ``diag`` (K,),
    with the Cholesky factor of the Schur complement ``glob - cross diag^-1 cross^T`` and the kriging pieces for
    the item group constraints (``krig`` = P^-1 A^T, global and item parts; ``chol_a`` of A P^-1 A^T)."""

    glob: np.ndarray
    cross: np.ndarray | None
    diag: np.ndarray | None
    chol_s: np.ndarray
    krig: tuple | None
    chol_a: np.ndarray | None
    coupling: ItemCoupling | None = None

    def solve(self, b_g, b_d=None):
        """P^-1 b by the arrowhead factorisation (vectors or columns)."""
        if self.diag is None:
            return linalg.cho_solve((self.chol_s, True), b_g), None
        dd = self.diag if b_d.ndim == 1 else self.diag[:, None]
        x_g = linalg.cho_solve((self.chol_s, True), b_g - self.cross @ (b_d / dd))
        return x_g, (b_d - self.cross.T @ x_g) / dd

    def constrained_solve(self, b_g, b_d, item_cell, n_cells):
        """The solution of P x = b on the subspace where every item group sums to zero (kriging)."""
        x_g, x_d = self.solve(b_g, b_d)
        if x_d is None:
            return x_g, None
        r = np.bincount(item_cell, weights=x_d, minlength=n_cells)
        w = linalg.cho_solve((self.chol_a, True), r)
        kg, kd = self.krig
        return x_g - kg @ w, x_d - kd @ w

    def logdet(self) -> float:
        """log det of the precision restricted to the constraints' subspace (up to the constant det(A A^T))."""
        out = 2 * float(np.log(np.diag(self.chol_s)).sum())
        if self.diag is not None:
            out += float(np.log(self.diag).sum()) + 2 * float(np.log(np.diag(self.chol_a)).sum())
        return out


# --------------------------------------------------------------------------------------------- the Hessian
def density_fns(lay):
    """The log density's value-and-gradient (called with NumPy arrays: ``(value, (gradient of theta, of q))``) and
    what :func:`precision` needs: NumPy (:class:`~evalband.bayes._cell_density.CellDensity`: no JAX import, no
    compilation) without item effects, jitted JAX (:func:`_jax_fns`, inside ``x64(lay)``) with them."""
    if lay.item_cell is not None:
        return _jax_fns(lay)
    from ._cell_density import CellDensity

    cells = CellDensity(lay)

    def value_grad(theta, q=None):
        val, grad = cells.value_and_grad(np.asarray(theta, dtype=np.float64))
        return float(val), (grad, np.zeros(0))

    return value_grad, cells, None


def x64(lay):
    """The context the mode search runs in: JAX in float64 with item effects, nothing without them."""
    if lay.item_cell is None:
        from contextlib import nullcontext

        return nullcontext()
    import jax

    return jax.enable_x64(True)


def _jax_fns(lay):
    """Jitted value-and-gradient of the log density, Hessian of the cell surrogate, Jacobian of the cell logits."""
    import jax
    import jax.numpy as jnp

    has_items = lay.item_cell is not None
    non_centred_items = has_items and not lay.centred["item"]
    i_item = lay.levels.index("item") if has_items else None

    def f(t, q):
        return log_density(lay, t, q if has_items else None, group_means=False)

    def surrogate(t, q, st):
        c = cell_logits(split_effects(lay, t), lay)
        dc = c - st["c0"]
        val = log_prior(lay, t, q if has_items else None, group_means=False)
        val = val + jnp.sum(st["r"] * c - 0.5 * st["w"] * dc ** 2)
        if non_centred_items:
            ds = jnp.exp(t[lay.slices["log_sigma"]][i_item]) - st["s0"]
            val = val + st["rq"] * ds - jnp.sum(st["wq"] * dc) * ds - 0.5 * st["wqq"] * ds ** 2
        return val

    cells = lambda t: cell_logits(split_effects(lay, t), lay)
    return (jax.jit(jax.value_and_grad(f, argnums=(0, 1))), jax.jit(jax.hessian(surrogate)),
            jax.jit(jax.jacfwd(cells)))


def precision(lay, theta, q, fns):
    """The blocks (global, :class:`ItemCoupling` or None, item diagonal or None) of the negative Hessian of
    :func:`~evalband.bayes._coords.log_density` (``group_means=False``) at (theta, q)."""
    _, hess, jac = fns
    theta = np.asarray(theta, dtype=np.float64)
    if lay.item_cell is None and hasattr(hess, "precision"):  # NumPy (density_fns): no JAX
        glob = hess.precision(theta)
        return 0.5 * (glob + glob.T), None, None
    import jax.numpy as jnp

    tj = jnp.asarray(theta)
    if lay.item_cell is None:  # values at one point in NumPy (eager JAX would compile every operation)
        eta = item_logits(lay, theta, None, xp=np)
        p = special.expit(eta)
        st = {"c0": eta, "r": lay.y - lay.n * p, "w": lay.n * p * (1 - p)}
        glob = -np.asarray(hess(tj, jnp.zeros(0), {k: jnp.asarray(v) for k, v in st.items()}), dtype=np.float64)
        return 0.5 * (glob + glob.T), None, None
    G = lay.n_cells
    ic = lay.item_cell
    eta = item_logits(lay, theta, np.asarray(q, dtype=np.float64), group_means=False, xp=np)
    p = special.expit(eta)
    w, r = lay.n * p * (1 - p), lay.y - lay.n * p
    to_cells = lambda a: np.stack([np.bincount(ic, weights=row, minlength=G) for row in a])
    i_item = lay.levels.index("item")
    s = float(np.exp(theta[lay.slices["log_sigma"]][i_item]))
    centred = lay.centred["item"]
    c0 = cell_logits(split_effects(lay, theta, xp=np), lay, xp=np)
    st = {"c0": c0, "r": to_cells(r), "w": to_cells(w), "s0": s, "rq": float((r * q).sum()),
          "wq": to_cells(w * q), "wqq": float((w * q * q).sum())}
    glob = -np.asarray(hess(tj, jnp.asarray(q), {k: jnp.asarray(v) for k, v in st.items()}), dtype=np.float64)
    kappa = 1.0 if centred else s
    w_item, r_item = w.sum(0), r.sum(0)
    row = -2.0 * q / s ** 2 if centred else s * s * q * w_item - s * r_item
    coupling = ItemCoupling(np.asarray(jac(tj), dtype=np.float64), w, kappa, row,
                            lay.slices["log_sigma"].start + i_item)
    diag = kappa ** 2 * w_item + (1.0 / s ** 2 if centred else 1.0)
    return 0.5 * (glob + glob.T), coupling, diag


def factorise(lay, glob, coupling, diag, damping=0.0, cross=None) -> Precision:
    """The :class:`Precision` of the blocks plus ``damping`` times the identity: arrowhead Cholesky and the
    kriging pieces (``cross``, dense, may be given instead of being expanded from ``coupling``; the global block
    may be any subset of the global coordinates). Raises ``numpy.linalg.LinAlgError`` when it is not positive
    definite."""
    ng = glob.shape[0]
    glob = glob + damping * np.eye(ng)
    if coupling is None and cross is None:
        return Precision(glob, None, None, _cholesky(glob, "global block"), None, None)
    if cross is None:
        cross = coupling.dense(lay.item_cell)
    diag = diag + damping
    if not np.all(diag > 0):
        raise np.linalg.LinAlgError("the item block of the precision is not positive")
    schur = glob - (cross / diag) @ cross.T
    chol_s = _cholesky(0.5 * (schur + schur.T), "Schur complement")
    p = Precision(glob, cross, diag, chol_s, None, None)
    K, G = lay.n_items, lay.n_cells
    onehot = np.zeros((K, G))
    onehot[np.arange(K), lay.item_cell] = 1.0
    kg, kd = p.solve(np.zeros((ng, G)), onehot)  # P^-1 A^T
    used = group_sizes(lay) > 0
    m_a = (onehot.T @ kd)[np.ix_(used, used)]
    chol_a = np.eye(G)  # cells without items carry no constraint
    chol_a[np.ix_(used, used)] = _cholesky(0.5 * (m_a + m_a.T), "constraint block")
    return Precision(glob, cross, diag, chol_s, (kg, kd), chol_a, coupling)


def _cholesky(a, what):
    try:
        return linalg.cholesky(a, lower=True)
    except linalg.LinAlgError as exc:
        raise np.linalg.LinAlgError(f"the {what} of the precision is not positive definite") from exc


# --------------------------------------------------------------------------------------------- the mode
def damped_step(factor, evaluate, g_t, g_q, lay, val, damping, *, tol, slack, not_positive, no_better):
    """One Levenberg-Marquardt step of the constrained Newton searches (the joint mode here, the conditional mode
    of the effects in :mod:`._laplace_marginal`).

    ``factor(damping)`` is the :class:`Precision` plus ``damping`` times the identity; ``evaluate(step_t, step_q)``
    returns (the new point, its log density, its gradient). The damping grows tenfold while the precision is not
    positive definite or the step loses more than ``slack`` (relative) of the log density, and shrinks tenfold
    after a step that does not. Returns ``(precision, None, damping)`` at convergence (undamped Newton decrement
    below ``2 tol``), else ``(precision, (point, log density, gradient), damping)``; raises
    :class:`ModeNotFound` (``not_positive``, ``no_better``) when the damping passes 1e8.
    """
    while True:
        try:
            prec = factor(damping)
        except np.linalg.LinAlgError:
            damping = max(10 * damping, 1e-3)
            if damping > 1e8:
                raise ModeNotFound(not_positive) from None
            continue
        step_t, step_q = prec.constrained_solve(g_t, g_q, lay.item_cell, lay.n_cells)
        decrement = float(g_t @ step_t + (0.0 if g_q is None else g_q @ step_q))
        if damping == 0.0 and decrement < 2 * tol:
            return prec, None, damping
        point, nval, ngrad = evaluate(step_t, step_q)
        if np.isfinite(nval) and nval >= val - slack * abs(val):
            return prec, (point, nval, ngrad), (0.0 if damping <= 1e-3 else damping / 10)
        damping = max(10 * damping, 1e-3)
        if damping > 1e8:
            raise ModeNotFound(no_better)


def find_mode(lay, theta0=None, q0=None, *, max_iter=100, tol=1e-6):
    """The posterior mode of :func:`~evalband.bayes._coords.log_density` (``group_means=False``) under the group
    constraints, by damped Newton steps (Levenberg-Marquardt: the precision plus a multiple of the identity
    when it is not positive definite or the step does not improve), in float64.

    Returns (theta, q, :class:`Precision` at the mode, Newton steps taken, log density at the mode). Raises
    :class:`ModeNotFound` when no mode with a positive definite precision is found (a centred level whose density
    has no interior mode, for instance)."""
    if theta0 is None:
        theta0, q0 = initial_point(lay)
    has_items = lay.item_cell is not None
    with x64(lay):
        fns = density_fns(lay)
        value_grad = fns[0]
        theta = np.asarray(theta0, dtype=np.float64)
        q = centre(np.asarray(q0, dtype=np.float64), lay) if has_items else np.zeros(0)
        val, grad = value_grad(theta, q)
        val, damping = float(val), 0.0
        for it in range(1, max_iter + 1):
            blocks = precision(lay, theta, q if has_items else None, fns)
            g_t = np.asarray(grad[0], dtype=np.float64)
            g_q = centre(np.asarray(grad[1], dtype=np.float64), lay) if has_items else None

            def evaluate(step_t, step_q):
                nt, nq = theta + step_t, (q + step_q if has_items else q)
                nval, ngrad = value_grad(nt, nq)
                return (nt, nq), float(nval), ngrad

            prec, moved, damping = damped_step(
                lambda d: factorise(lay, *blocks, d), evaluate, g_t, g_q, lay, val, damping, tol=tol, slack=1e-10,
                not_positive="the precision is not positive definite near the mode",
                no_better="no Newton step improves the log density: the mode was not found")
            if moved is None:
                return theta, (q if has_items else None), prec, it, val
            (nt, nq), nval, ngrad = moved
            theta, q, val, grad = nt, nq, nval, ngrad
            collapsed = _collapsed(lay, theta)
            if collapsed:
                raise ModeNotFound(f"the scale of {', '.join(collapsed)} collapsed towards 0: the centred density"
                                   " has no interior mode", collapsed)
        raise ModeNotFound(f"the mode was not found in {max_iter} Newton steps", _collapsed(lay, theta, 1e-2))


def _collapsed(lay, theta, floor=SIGMA_FLOOR):
    lam = theta[lay.slices["log_sigma"]]
    return tuple(lv for i, lv in enumerate(lay.levels) if lay.centred[lv] and lam[i] < np.log(floor))


def mode_and_precision(obs, n_models, n_tasks, centred):
    """:func:`find_mode` on the :func:`~evalband.bayes._coords.layout` of ``obs``, switching to non-centred every
    centred level whose scale collapses (and searching again) until a mode is found.

    Returns (layout, theta, q, Precision, Newton steps in all, log density, levels switched). Raises
    :class:`ModeNotFound` when even that fails."""
    from ._coords import layout

    centred, switched, steps = dict(centred), [], 0
    while True:
        lay = layout(obs, n_models, n_tasks, centred)
        try:
            theta, q, prec, it, val = find_mode(lay)
            return lay, theta, q, prec, steps + it, val, tuple(switched)
        except ModeNotFound as exc:
            todo = [lv for lv in exc.levels if centred.get(lv)]
            if not todo:
                raise
            centred.update(dict.fromkeys(todo, False))
            switched += todo
