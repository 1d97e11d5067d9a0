"""Coordinates of the logistic model in which its Gaussian (Laplace) approximation is cheap, and its log density.

The *global* vector holds, in this order, ``log sigma`` of every level, the intercept and the free (zero-sum)
coordinates of the model, task, model x task and cluster effects, each level centred (free values of scale
sigma) or non-centred (unit free values times sigma) as :func:`evalband.bayes.logistic_model.logistic` chose.
Items are not held in free coordinates (whose Hessian is dense within each cluster) but in *ambient* ones, one
value ``q_k`` per item: the item effects are ``d = kappa * (q - mean of q in its group)`` with ``kappa = 1``
(centred) or sigma (non-centred). A ZeroSumNormal over a group is an isotropic normal restricted to the zero-sum
subspace, so with ``q`` isotropic normal the effects have exactly the model's prior, and the group means of ``q``
are independent of the data (normal with variance ``sigma**2 / n``, or ``1 / n``). In these coordinates the
likelihood's Hessian is an *arrowhead*: a dense global block, a diagonal item block and the block between them.

A *cell* is a (model, cluster) pair, or a (model, task) pair without clusters: every score in a cell has the same
linear predictor but for its item's effect.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .logistic_terms import LEVELS, ragged_zero_sum, ragged_zero_sum_index

__all__ = ["Layout", "layout", "split_effects", "cell_logits", "log_prior", "log_density", "initial_point",
           "group_mean", "group_sum", "to_items", "centre", "group_sizes", "item_logits", "effect_deltas",
           "log_likelihood_change", "INTERCEPT_SCALE"]

#: The intercept's prior: Normal(0, INTERCEPT_SCALE) on the logit scale.
INTERCEPT_SCALE = 2.5


def _zero_sum_basis(n):
    """(n, n - 1) orthonormal basis of the zero-sum vectors (NumPyro's ``ZeroSumTransform`` applied to e_j)."""
    if n < 2:
        return np.zeros((n, 0))
    index = ragged_zero_sum_index(np.zeros(n, dtype=np.int64), 1)
    return np.column_stack([ragged_zero_sum(np.eye(n - 1)[j], index, xp=np) for j in range(n - 1)])


@dataclass(frozen=True, eq=False)
class Layout:
    """Where each piece of the model sits in the global vector, and the data of the likelihood.

    ``cell_task`` (G,) is the task of each cell column (a cluster, or the task itself without clusters);
    ``item_cell`` (K,) the cell column of each item (None without item effects); ``y``, ``n`` the successes and
    trials, shaped (M, G) without item effects and (M, K) with them.
    """

    levels: tuple
    centred: dict
    n_models: int
    n_tasks: int
    cell_task: np.ndarray
    item_cell: np.ndarray | None
    cluster_index: dict | None
    y: np.ndarray
    n: np.ndarray
    slices: dict
    n_global: int
    basis_model: np.ndarray
    basis_task: np.ndarray
    onehot: np.ndarray | None  # (K, G): item k in cell column g (group sums and broadcasts as matrix products)
    cluster_map: np.ndarray | None  # (F, G): the (linear, orthonormal) per-task zero-sum map of the clusters

    @property
    def n_items(self) -> int:
        return 0 if self.item_cell is None else int(self.item_cell.shape[0])

    @property
    def n_cells(self) -> int:
        return int(self.cell_task.shape[0])


def layout(obs, n_models, n_tasks, centred) -> Layout:
    """The :class:`Layout` of the arrays ``obs`` from :func:`evalband.bayes.logistic_model._logistic_data`."""
    M, T = int(n_models), int(n_tasks)
    levels = tuple(centred)
    cluster_index = obs["cluster_index"]
    if cluster_index is not None:
        cell_task = np.zeros(cluster_index["n_units"], dtype=np.int64)
        cell_task[cluster_index["free"]] = cluster_index["free_group"]
        cell_task[cluster_index["last"]] = cluster_index["last_group"]
    else:
        cell_task = np.arange(T, dtype=np.int64)
    G = cell_task.shape[0]
    if obs["item_index"] is not None:
        item_cell = np.asarray(obs["cluster_idx"] if cluster_index is not None else obs["item_task"], dtype=np.int64)
        y, n = np.asarray(obs["successes"], float), np.asarray(obs["trials"], float)
    else:
        item_cell = None
        y, n = np.zeros((M, G)), np.zeros((M, G))
        col = obs["cluster_idx"] if cluster_index is not None else obs["task_idx"]
        np.add.at(y, (obs["model_idx"], col), obs["successes"])
        np.add.at(n, (obs["model_idx"], col), obs["trials"])
    sizes = {"log_sigma": len(levels), "intercept": 1, "model": max(M - 1, 0), "task": max(T - 1, 0),
             "model_task": max(M - 1, 0) * max(T - 1, 0),
             "cluster": 0 if cluster_index is None else int(cluster_index["free"].shape[0])}
    slices, start = {}, 0
    for name, k in sizes.items():
        slices[name] = slice(start, start + k)
        start += k
    onehot = None
    if item_cell is not None:
        onehot = np.zeros((item_cell.shape[0], G))
        onehot[np.arange(item_cell.shape[0]), item_cell] = 1.0
    cluster_map = None
    if cluster_index is not None:
        n_free = cluster_index["free"].shape[0]
        cluster_map = np.stack([ragged_zero_sum(row, cluster_index, xp=np) for row in np.eye(n_free)]).reshape(
            n_free, G)
    return Layout(levels, dict(centred), M, T, cell_task, item_cell, cluster_index, y, n, slices, start,
                  _zero_sum_basis(M), _zero_sum_basis(T), onehot, cluster_map)


def split_effects(lay, theta, q=None, xp=None):
    """The intercept, every level's sum-to-zero effects and the scales from global vectors ``theta`` (..., n_global)
    and ambient item values ``q`` (..., K), whose group means are removed here; JAX by default, NumPy with
    ``xp=numpy``."""
    if xp is None:
        import jax.numpy as xp
    batch = theta.shape[:-1]
    lam = theta[..., lay.slices["log_sigma"]]
    s = {lv: xp.exp(lam[..., i]) for i, lv in enumerate(lay.levels)}
    kap = {lv: (xp.ones(batch) if lay.centred[lv] else s[lv]) for lv in lay.levels}
    M, T = lay.n_models, lay.n_tasks
    out = {"intercept": theta[..., lay.slices["intercept"]][..., 0], "sigma": s}
    out["model"] = (theta[..., lay.slices["model"]] @ lay.basis_model.T) * kap["model"][..., None]
    out["task"] = (theta[..., lay.slices["task"]] @ lay.basis_task.T) * kap["task"][..., None]
    u = theta[..., lay.slices["model_task"]].reshape(*batch, max(M - 1, 0), max(T - 1, 0))
    out["model_task"] = (lay.basis_model @ u @ lay.basis_task.T) * kap["model_task"][..., None, None]
    if lay.cluster_index is not None:
        out["cluster"] = (theta[..., lay.slices["cluster"]] @ lay.cluster_map) * kap["cluster"][..., None]
    if q is not None and lay.item_cell is not None:
        out["item"] = (q - to_items(group_mean(q, lay), lay)) * kap["item"][..., None]
    return out


def group_sizes(lay):
    return np.bincount(lay.item_cell, minlength=lay.n_cells).astype(np.float64)


def group_sum(x, lay):
    """(..., G) sums of item values (..., K) over each cell's items (a matrix product: faster than a scatter on
    CPU, and batched for free)."""
    return x @ lay.onehot


def to_items(x, lay):
    """(..., K) the value of each item's cell, from (..., G)."""
    return x @ lay.onehot.T


def group_mean(q, lay, xp=None):
    """(..., G) mean of the item values over each cell's items (0 for cells without items)."""
    return group_sum(q, lay) / np.maximum(group_sizes(lay), 1.0)


def cell_logits(eff, lay, xp=None):
    """(..., M, G) linear predictor of every (model, cell) before item effects."""
    if xp is None:
        import jax.numpy as xp
    tc = eff["task"][..., None, :] + eff["model_task"]
    eta = eff["intercept"][..., None, None] + eff["model"][..., :, None] + tc[..., lay.cell_task]
    if "cluster" in eff:
        eta = eta + eff["cluster"][..., None, :]
    return eta


def log_prior(lay, theta, q=None, *, group_means=True, xp=None):
    """Log prior density (up to a constant) of global vectors (..., n_global) and ambient item values (..., K),
    with the Jacobian of ``log sigma``; ``group_means`` as in :func:`log_density`; JAX by default, NumPy with
    ``xp=numpy`` (values at a fixed point: no JAX dispatch, hence no compilation, for a single evaluation)."""
    if xp is None:
        import jax.numpy as xp
    jnp = xp

    lam = theta[..., lay.slices["log_sigma"]]
    s = jnp.exp(lam)
    scale = np.array([LEVELS[lv][1] for lv in lay.levels])
    lp = -0.5 * (theta[..., lay.slices["intercept"].start] / INTERCEPT_SCALE) ** 2
    lp = lp + jnp.sum(-0.5 * (s / scale) ** 2 + lam, axis=-1)  # half-normal prior, log |d sigma / d log sigma|
    for lv in ("model", "task", "model_task", "cluster"):
        if lv in lay.centred:
            i = lay.levels.index(lv)
            sq = jnp.sum(theta[..., lay.slices[lv]] ** 2, axis=-1)
            n_dims = lay.slices[lv].stop - lay.slices[lv].start
            lp = lp + (-n_dims * lam[..., i] - 0.5 * sq / s[..., i] ** 2 if lay.centred[lv] else -0.5 * sq)
    if lay.item_cell is not None:
        i = lay.levels.index("item")
        n_dims = lay.n_items if group_means else lay.n_items - int(np.count_nonzero(group_sizes(lay)))
        sq = jnp.sum(q ** 2, axis=-1)
        lp = lp + (-n_dims * lam[..., i] - 0.5 * sq / s[..., i] ** 2 if lay.centred["item"] else -0.5 * sq)
    return lp


def item_logits(lay, theta, q, *, group_means=True, xp=None):
    """(..., M, K) linear predictor of every (model, item), or (..., M, G) per cell without item effects; JAX by
    default, NumPy with ``xp=numpy``."""
    if xp is None:
        import jax.numpy as xp
    jnp = xp

    eta = cell_logits(split_effects(lay, theta, xp=xp), lay, xp=xp)
    if lay.item_cell is None:
        return eta
    d = q - to_items(group_mean(q, lay), lay) if group_means else q
    if lay.centred["item"]:
        return eta[..., :, lay.item_cell] + d[..., None, :]
    kappa = jnp.exp(theta[..., lay.slices["log_sigma"].start + lay.levels.index("item")])
    return eta[..., :, lay.item_cell] + kappa[..., None, None] * d[..., None, :]


def log_density(lay, theta, q=None, *, group_means=True):
    """Log posterior density (up to a constant) at global vectors ``theta`` (..., n_global) and ambient item
    values ``q`` (..., K): batched natively (on CPU several times faster than ``jax.vmap``).

    With ``group_means=True`` (the sampler's target) the group means of ``q`` are free values with their prior;
    with ``group_means=False`` (the function the Laplace approximation expands) the items enter as ``q`` itself,
    which the constraints then make sum to zero in each group: restricted to them, it is the model's density.
    """
    import jax.numpy as jnp

    eta = item_logits(lay, theta, q, group_means=group_means)
    softplus = jnp.maximum(eta, 0.0) + jnp.log1p(jnp.exp(-jnp.abs(eta)))  # 5x faster than jax.nn.softplus on CPU
    loglik = jnp.sum(lay.y * eta - lay.n * softplus, axis=(-2, -1))
    return log_prior(lay, theta, q, group_means=group_means) + loglik


def effect_deltas(lay, theta0, d_theta, q0=None, d_q=None):
    """Every effect's change eff(theta0 + d_theta) - eff(theta0) (and the items' with ``q0 + d_q``), batched over
    the deltas, computed from the deltas themselves: for a non-centred level ``kappa u`` changes by
    ``kappa0 (expm1(d log sigma) (u0 + d u) + d u)``, which keeps its digits in float32 where the difference of
    two effects would not."""
    import jax.numpy as jnp

    M, T = lay.n_models, lay.n_tasks
    lam0 = theta0[lay.slices["log_sigma"]]
    d_lam = d_theta[..., lay.slices["log_sigma"]]

    def scaled(lv, u0, du):  # change of kappa * u
        if lay.centred[lv]:
            return du
        i = lay.levels.index(lv)
        k0 = jnp.exp(lam0[i])
        rel = jnp.expm1(d_lam[..., i])[..., None]
        return k0 * (rel * (u0 + du) + du)

    batch = d_theta.shape[:-1]
    out = {"intercept": d_theta[..., lay.slices["intercept"].start]}
    for lv, basis in (("model", lay.basis_model), ("task", lay.basis_task)):
        out[lv] = scaled(lv, theta0[lay.slices[lv]], d_theta[..., lay.slices[lv]]) @ basis.T
    u = scaled("model_task", theta0[lay.slices["model_task"]], d_theta[..., lay.slices["model_task"]])
    out["model_task"] = lay.basis_model @ u.reshape(*batch, max(M - 1, 0), max(T - 1, 0)) @ lay.basis_task.T
    if lay.cluster_index is not None:
        out["cluster"] = scaled("cluster", theta0[lay.slices["cluster"]], d_theta[..., lay.slices["cluster"]]) @ \
            lay.cluster_map
    if d_q is not None and lay.item_cell is not None:
        qc0 = q0 - to_items(group_mean(q0, lay), lay)
        dqc = d_q - to_items(group_mean(d_q, lay), lay)
        out["item"] = scaled("item", qc0, dqc)
    return out


def log_likelihood_change(lay, p0, theta0, d_theta, q0=None, d_q=None):
    """log p(y | theta0 + d_theta, q0 + d_q) - log p(y | theta0, q0), batched over the deltas, without the
    cancellation of two large sums: with ``delta`` the change of every linear predictor and ``p0`` the fitted
    probabilities at (theta0, q0), each score's term is ``y delta - n (softplus(eta0 + delta) - softplus(eta0))``
    and the softplus change is ``log1p(p0 expm1(delta))`` (or, for delta > 0, ``delta + log1p((1 - p0)
    expm1(-delta))``). ``p0`` is a pair (p0, 1 - p0) shaped like the scores."""
    import jax.numpy as jnp

    eff = effect_deltas(lay, theta0, d_theta, q0, d_q)
    delta = cell_logits(eff, lay)
    if lay.item_cell is not None:
        delta = delta[..., :, lay.item_cell] + eff["item"][..., None, :]
    e = jnp.expm1(-jnp.abs(delta))
    change = jnp.where(delta > 0, delta + jnp.log1p(p0[1] * e), jnp.log1p(p0[0] * e))
    return jnp.sum(lay.y * delta - lay.n * change, axis=(-2, -1))


def initial_point(lay):
    """A starting point for :func:`find_mode`: every level's effects from the observed logits (each level's mean
    removed within its parent), every scale from their spread (clipped to [0.05, 5])."""
    logit = lambda y, n: np.log((y + 0.5) / (n - y + 0.5))
    T = lay.n_tasks
    if lay.item_cell is None:
        y_cell, n_cell = lay.y, lay.n
    else:
        onehot = np.zeros((lay.n_items, lay.n_cells))
        onehot[np.arange(lay.n_items), lay.item_cell] = 1.0
        y_cell, n_cell = lay.y @ onehot, lay.n @ onehot
    task_onehot = np.zeros((lay.n_cells, T))
    task_onehot[np.arange(lay.n_cells), lay.cell_task] = 1.0
    l_mt = logit(y_cell @ task_onehot, n_cell @ task_onehot)
    mu = l_mt.mean()
    a, b = l_mt.mean(1) - mu, l_mt.mean(0) - mu
    c = l_mt - mu - a[:, None] - b[None, :]
    eff = {"model": a, "task": b, "model_task": c}
    if lay.cluster_index is not None:
        l_g = logit(y_cell.sum(0), n_cell.sum(0)) - logit((y_cell @ task_onehot).sum(0), (n_cell @ task_onehot).sum(0))[
            lay.cell_task]
        eff["cluster"] = l_g - (np.bincount(lay.cell_task, l_g, T) / np.bincount(lay.cell_task, minlength=T))[
            lay.cell_task]
    if lay.item_cell is not None:
        l_k = logit(lay.y.sum(0), lay.n.sum(0))
        eff["item"] = centre(l_k, lay)
    theta = np.zeros(lay.n_global)
    theta[lay.slices["intercept"]] = mu
    for i, lv in enumerate(lay.levels):
        x = np.asarray(eff[lv], dtype=np.float64).ravel()
        s = float(np.clip(np.sqrt(np.mean(x ** 2)) if x.size else 0.5, 0.05, 5.0))
        theta[lay.slices["log_sigma"]][i] = np.log(s)
        kap = 1.0 if lay.centred[lv] else s
        if lv == "model":
            theta[lay.slices[lv]] = lay.basis_model.T @ a / kap
        elif lv == "task":
            theta[lay.slices[lv]] = lay.basis_task.T @ b / kap
        elif lv == "model_task":
            theta[lay.slices[lv]] = (lay.basis_model.T @ c @ lay.basis_task).ravel() / kap
        elif lv == "cluster":
            theta[lay.slices[lv]] = lay.cluster_map @ eff["cluster"] / kap  # orthonormal: its inverse is J^T
    q = None if lay.item_cell is None else eff["item"] / (1.0 if lay.centred["item"] else float(np.exp(
        theta[lay.slices["log_sigma"]][lay.levels.index("item")])))
    return theta, q


def centre(q, lay):
    """q less its group means (the constraint's subspace)."""
    return q - to_items(group_mean(q, lay), lay)


