"""The logistic model without item effects in NumPy: log density, gradient and Hessian in the global coordinates
of :mod:`evalband.bayes._coords`, batched over points, with no JAX (no import, no compilation).

Without item effects every observation of a *cell* (a model and a cluster, or a model and a task) has the same
linear predictor ``eta = mu + a_m + b_t + c_mt + e_g``, so the likelihood is one binomial term per cell. In the
*effect space* (``mu``, ``a`` per model, ``b`` per task, ``c`` per model x task, ``e`` per cluster) each cell's
logit is the sum of five effects: the gradient is the cells' residuals ``r = y - n p`` summed over the cells of
each effect, and the likelihood's Hessian is ``-A^T diag(W) A`` with ``A`` the cells' 0/1 incidence (five ones per
row) and ``W = n p (1 - p)``, accumulated pair by pair. The global coordinates are the levels' zero-sum free values
(times their scale for a non-centred level), a block-diagonal linear map of the effects: the model x task block is
the Kronecker product of the models' and the tasks' zero-sum bases, applied as two small matrix products. A
non-centred level's log scale moves its effects along themselves, which adds its row of the Hessian.

The JAX form of the same density (:func:`evalband.bayes._coords.log_density`) serves the model with item effects
and is the oracle of the tests (autodiff gradient and Hessian, ``tests/bayes/test_cell_density.py``).
"""

from __future__ import annotations

import numpy as np

from ._coords import INTERCEPT_SCALE
from .logistic_terms import LEVELS

__all__ = ["CellDensity"]


class CellDensity:
    """Log density (up to a constant), gradient and precision of a :class:`~evalband.bayes._coords.Layout`
    without item effects; points are global vectors ``theta`` (..., n_global)."""

    def __init__(self, lay):
        if lay.item_cell is not None:
            raise ValueError("CellDensity is the model without item effects")
        self.lay = lay
        M, T, G = lay.n_models, lay.n_tasks, lay.n_cells
        self.has_clusters = lay.cluster_index is not None
        self.task_onehot = np.zeros((G, T))
        self.task_onehot[np.arange(G), lay.cell_task] = 1.0
        # effect space: mu | a (M) | b (T) | c (M x T) | e (G, with clusters)
        self.offsets = {"intercept": 0, "model": 1, "task": 1 + M, "model_task": 1 + M + T,
                        "cluster": 1 + M + T + M * T}
        self.n_effects = 1 + M + T + M * T + (G if self.has_clusters else 0)
        m, g = np.meshgrid(np.arange(M), np.arange(G), indexing="ij")
        t = lay.cell_task[g]
        cols = [np.zeros_like(m), 1 + m, 1 + M + t, 1 + M + T + m * T + t]
        if self.has_clusters:
            cols.append(1 + M + T + M * T + g)
        inc = np.stack([c.ravel() for c in cols], axis=1)  # (M * G, 4 or 5): the effects of each cell
        self._pairs = (inc[:, :, None] * self.n_effects + inc[:, None, :]).ravel()
        self._n_per = inc.shape[1] ** 2
        self.n_levels = len(lay.levels)
        self.free = {lv: lay.slices[lv] for lv in ("intercept", "model", "task", "model_task", "cluster")
                     if lay.slices[lv].stop > lay.slices[lv].start}
        self._prior_scale2 = np.array([LEVELS[lv][1] for lv in lay.levels]) ** 2
        self._centred = np.array([lay.centred[lv] for lv in lay.levels])
        self._dims = np.array([lay.slices[lv].stop - lay.slices[lv].start for lv in lay.levels], dtype=float)

    # ------------------------------------------------------------------------------------------ pieces
    def _kappa(self, lam):
        """(N, levels): each level's factor on its free values (1 centred, its scale non-centred)."""
        return np.where(self._centred, 1.0, np.exp(lam))

    def _effects(self, theta, kappa):
        """The levels' effects of points (N, n_global): intercept (N,), model (N, M), task (N, T), model x task
        (N, M, T), cluster (N, G)."""
        lay = self.lay
        N = theta.shape[0]
        M, T = lay.n_models, lay.n_tasks
        k = {lv: kappa[:, i, None] for i, lv in enumerate(lay.levels)}
        out = {"intercept": theta[:, lay.slices["intercept"].start],
               "model": (theta[:, lay.slices["model"]] @ lay.basis_model.T) * k["model"],
               "task": (theta[:, lay.slices["task"]] @ lay.basis_task.T) * k["task"]}
        u = theta[:, lay.slices["model_task"]].reshape(N, max(M - 1, 0), max(T - 1, 0))
        out["model_task"] = (lay.basis_model @ (u @ lay.basis_task.T)) * k["model_task"][:, :, None]
        if self.has_clusters:
            out["cluster"] = (theta[:, lay.slices["cluster"]] @ lay.cluster_map) * k["cluster"]
        return out

    def _logits(self, eff):
        """(N, M, G) cell logits from the effects."""
        tc = eff["task"][:, None, :] + eff["model_task"]
        eta = (eff["intercept"][:, None, None] + eff["model"][:, :, None]) + tc[:, :, self.lay.cell_task]
        if self.has_clusters:
            eta += eff["cluster"][:, None, :]
        return eta

    def _aggregate(self, x):
        """A^T x: the effect-space sums of cell values x (N, M, G), per level."""
        x_mt = x @ self.task_onehot
        out = {"intercept": x_mt.sum(axis=(1, 2)), "model": x_mt.sum(2), "task": x_mt.sum(1), "model_task": x_mt}
        if self.has_clusters:
            out["cluster"] = x.sum(1)
        return out

    def _to_free(self, parts, kappa):
        """(N, n_global) with the effects' free coordinates filled from effect-space values per level (N, ...):
        each block mapped by the transpose of its zero-sum basis and scaled by kappa (log scales left 0)."""
        lay = self.lay
        N = kappa.shape[0]
        out = np.zeros((N, lay.n_global))
        k = {lv: kappa[:, i, None] for i, lv in enumerate(lay.levels)}
        out[:, lay.slices["intercept"].start] = parts["intercept"]
        out[:, lay.slices["model"]] = (parts["model"] @ lay.basis_model) * k["model"]
        out[:, lay.slices["task"]] = (parts["task"] @ lay.basis_task) * k["task"]
        c = lay.basis_model.T @ (parts["model_task"] @ lay.basis_task)  # (N, M - 1, T - 1)
        out[:, lay.slices["model_task"]] = c.reshape(N, -1) * k["model_task"]
        if self.has_clusters:
            out[:, lay.slices["cluster"]] = (parts["cluster"] @ lay.cluster_map.T) * k["cluster"]
        return out

    @staticmethod
    def _dot_level(g_eff, eff, lv):
        g, e = g_eff[lv], eff[lv]
        return np.sum((g * e).reshape(g.shape[0], -1), axis=1)

    def _evaluate(self, theta, grad):
        """(log density (N,), gradient (N, n_global) or None) at points (N, n_global)."""
        lay = self.lay
        ls = lay.slices["log_sigma"]
        lam = theta[:, ls]
        kappa = self._kappa(lam)
        eff = self._effects(theta, kappa)
        eta = self._logits(eff)
        e = np.exp(-np.abs(eta))
        one_e = 1.0 + e
        lik = np.sum((lay.y * eta - lay.n * (np.maximum(eta, 0.0) + np.log1p(e))).reshape(eta.shape[0], -1), axis=1)
        s2 = np.exp(2 * lam)
        i0 = lay.slices["intercept"].start
        sq = np.stack([np.sum(theta[:, lay.slices[lv]] ** 2, axis=1) for lv in lay.levels], axis=1)
        prior = (-0.5 * (theta[:, i0] / INTERCEPT_SCALE) ** 2 + np.sum(-0.5 * s2 / self._prior_scale2 + lam, axis=1)
                 + np.sum(np.where(self._centred, -self._dims * lam - 0.5 * sq / s2, -0.5 * sq), axis=1))
        if not grad:
            return prior + lik, None
        p = np.where(eta >= 0, 1.0, e) / one_e
        g_eff = self._aggregate(lay.y - lay.n * p)
        out = self._to_free(g_eff, kappa)
        g_lam = 1.0 - s2 / self._prior_scale2 + np.where(self._centred, -self._dims + sq / s2, 0.0)
        for i, lv in enumerate(lay.levels):
            sl = lay.slices[lv]
            if lay.centred[lv]:
                out[:, sl] -= theta[:, sl] / s2[:, i, None]
            else:  # d eta / d log s = the level's own effects
                g_lam[:, i] += self._dot_level(g_eff, eff, lv)
                out[:, sl] -= theta[:, sl]
        out[:, i0] -= theta[:, i0] / INTERCEPT_SCALE ** 2
        out[:, ls] = g_lam
        return prior + lik, out

    # ------------------------------------------------------------------------------------------ the density
    def value(self, theta):
        """Log density (up to a constant) at global vectors ``theta`` (..., n_global)."""
        theta = np.asarray(theta, dtype=np.float64)
        val, _ = self._evaluate(theta.reshape(-1, theta.shape[-1]), False)
        return val.reshape(theta.shape[:-1])

    def value_and_grad(self, theta):
        """Log density and its gradient at global vectors ``theta`` (..., n_global)."""
        theta = np.asarray(theta, dtype=np.float64)
        val, grad = self._evaluate(theta.reshape(-1, theta.shape[-1]), True)
        return val.reshape(theta.shape[:-1]), grad.reshape(theta.shape)

    def _matrix_to_free(self, h, kappa):
        """Rows (n, n_effects) with their effect coordinates mapped to the global ones (n, n_global - levels)."""
        off = self.offsets
        M, T = self.lay.n_models, self.lay.n_tasks
        parts = {"intercept": h[:, 0], "model": h[:, off["model"]:off["task"]],
                 "task": h[:, off["task"]:off["model_task"]],
                 "model_task": h[:, off["model_task"]:off["model_task"] + M * T].reshape(-1, M, T)}
        if self.has_clusters:
            parts["cluster"] = h[:, off["cluster"]:]
        return self._to_free(parts, np.broadcast_to(kappa, (h.shape[0], kappa.shape[-1])))[:, self.n_levels:]

    def precision(self, theta):
        """The negative Hessian of the log density at one global vector ``theta`` (n_global,)."""
        lay = self.lay
        theta = np.asarray(theta, dtype=np.float64)[None, :]
        ls, L = lay.slices["log_sigma"], self.n_levels
        lam = theta[:, ls]
        kappa = self._kappa(lam)
        eff = self._effects(theta, kappa)
        eta = self._logits(eff)
        e = np.exp(-np.abs(eta))
        p = np.where(eta >= 0, 1.0, e) / (1.0 + e)
        w = (lay.n * e / (1.0 + e) ** 2).ravel()
        E = self.n_effects
        h_eff = np.bincount(self._pairs, weights=np.repeat(w, self._n_per), minlength=E * E).reshape(E, E)
        half = self._matrix_to_free(h_eff, kappa)  # (E, F)
        prec = np.zeros((lay.n_global, lay.n_global))
        prec[L:, L:] = self._matrix_to_free(np.ascontiguousarray(half.T), kappa)
        # a non-centred level's log scale: d eta / d log s is the level's effects v, d2 eta / d log s2 = v and
        # d2 eta / d log s d u = kappa * basis, so its rows are (H v) mapped, less the residuals' terms
        g_eff = self._aggregate(lay.y - lay.n * p)
        g_free = self._to_free(g_eff, kappa)[0]
        dirs = {}
        for i, lv in enumerate(lay.levels):
            if not lay.centred[lv]:
                v = np.zeros(E)
                o = self.offsets[lv]
                v[o:o + eff[lv][0].size] = eff[lv][0].ravel()
                dirs[i] = (lv, v, h_eff @ v)
        for i, (lv, v, hv) in dirs.items():
            row = self._matrix_to_free(hv[None, :], kappa)[0]
            sl = lay.slices[lv]
            row[sl.start - L:sl.stop - L] -= g_free[sl]
            prec[ls.start + i, L:] = row
            prec[L:, ls.start + i] = row
            for j, (_, v2, _) in dirs.items():
                prec[ls.start + i, ls.start + j] = v @ dirs[j][2] if j != i else v @ hv
            prec[ls.start + i, ls.start + i] -= self._dot_level(g_eff, eff, lv)[0]
        return prec + self._prior_precision(theta[0])

    def _prior_precision(self, theta):
        lay = self.lay
        n = lay.n_global
        out = np.zeros((n, n))
        ls = lay.slices["log_sigma"]
        s2 = np.exp(2 * theta[ls])
        i0 = lay.slices["intercept"].start
        out[i0, i0] = 1.0 / INTERCEPT_SCALE ** 2
        for i, lv in enumerate(lay.levels):
            k = ls.start + i
            out[k, k] += 2 * s2[i] / LEVELS[lv][1] ** 2
            sl = lay.slices[lv]
            idx = np.arange(sl.start, sl.stop)
            if lay.centred[lv]:
                u = theta[sl]
                out[k, k] += 2 * float(u @ u) / s2[i]
                out[k, sl] -= 2 * u / s2[i]
                out[sl, k] -= 2 * u / s2[i]
                out[idx, idx] += 1.0 / s2[i]
            else:
                out[idx, idx] += 1.0
        return out
