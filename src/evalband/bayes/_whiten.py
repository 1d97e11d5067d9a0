"""The linear map that whitens the logistic model's posterior: standard normal ``z`` to the model's coordinates
(:mod:`evalband.bayes._coords`) through its Gaussian approximation at the mode.

With ``P`` the arrowhead precision at the mode (:mod:`evalband.bayes._laplace_fit`), ``S = L L^T`` its Schur
complement and ``D`` its item diagonal, the map is

1. global part ``x_g = L^-T z_g``; items ``x_d = D^-1/2 z_d - D^-1 C^T x_g`` (``C`` the cross block): a draw of
   N(0, P^-1) from the arrowhead Cholesky factor;
2. conditioning by kriging on the group constraints: ``x - P^-1 A^T (A P^-1 A^T)^-1 A x``, a draw restricted to
   the zero-sum subspace (Rue & Held 2005, sec. 2.3.3);
3. the constraint values ``A x`` it removed, standardised (``L_A^-1 A x``) and scaled by the prior sd of each
   group mean, become the group means of the ambient item values.

Step 2 and 3 together are invertible, so the map is a fixed invertible linear map with a constant Jacobian: a
sampler run over ``z`` targets the model's exact posterior, in coordinates where it is close to N(0, I). The
cross block is applied in factored form (:class:`~evalband.bayes._laplace_fit.ItemCoupling`), which costs about
as much as one pass over the scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ._coords import Layout, group_sizes, group_sum, to_items
from ._laplace_fit import Precision

__all__ = ["Whitening", "whitening"]


@dataclass(frozen=True, eq=False)
class Whitening:
    """The map z -> (theta, q): ``theta0`` and ``q0`` the mode, ``arrays`` its pieces (float32 by default)."""

    lay: Layout
    theta0: np.ndarray
    q0: np.ndarray | None
    arrays: dict

    @property
    def dim(self) -> int:
        return self.lay.n_global + self.lay.n_items

    def _cross_t(self, x_g, xp):
        """C^T x_g (..., K) for global vectors x_g (..., n_global), in factored form."""
        a = self.arrays
        jx = x_g @ a["jac_t"]  # (..., M * G)
        jx = jx.reshape(*x_g.shape[:-1], self.lay.n_models, self.lay.n_cells)
        per_score = jx[..., :, self.lay.item_cell] * a["w"]  # (..., M, K)
        return a["kappa"] * per_score.sum(-2) + x_g[..., a["row_index"], None] * a["row"]

    def __call__(self, z, xp=None):
        """(theta, q) from z (..., dim); JAX by default, NumPy with ``xp=numpy``."""
        d_theta, d_q = self.delta(z, xp)
        return self.theta0 + d_theta, (None if d_q is None else self.q0 + d_q)

    def delta(self, z, xp=None):
        """The map's linear part: (theta - theta0, q - q0) from z (..., dim)."""
        if xp is None:
            import jax.numpy as xp
        a, lay = self.arrays, self.lay
        ng = lay.n_global
        x_g = z[..., :ng] @ a["l_inv"]  # rows: (L^-T z)^T = z^T L^-1
        if lay.item_cell is None:
            return x_g, None
        x_d = z[..., ng:] * a["isd"] - self._cross_t(x_g, xp) * a["idiag"]
        r = group_sum(x_d, lay)  # A x: every group's sum
        w = r @ a["a_inv"]
        y_g = w @ a["kg_t"]  # global part of P^-1 A^T w
        # item part of P^-1 A^T w: D^-1 (A^T w - C^T y_g)
        y_d = (to_items(w, lay) - self._cross_t(y_g, xp)) * a["idiag"]
        xi = r @ a["la_inv_t"]
        return x_g - y_g, x_d - y_d + to_items(xi * a["mean_sd"], lay)


def whitening(lay, theta0, q0, prec: Precision, dtype=np.float32) -> Whitening:
    """The :class:`Whitening` of the Gaussian approximation N(mode, P^-1) at (theta0, q0)."""
    ng = lay.n_global
    arrays = {"l_inv": linalg.solve_triangular(prec.chol_s, np.eye(ng), lower=True)}  # L^-1
    if lay.item_cell is not None:
        G = lay.n_cells
        used = group_sizes(lay) > 0
        a_inv = linalg.cho_solve((prec.chol_a, True), np.eye(G)) * np.outer(used, used)
        la_inv = linalg.solve_triangular(prec.chol_a, np.eye(G), lower=True) * used[:, None]
        i_item = lay.levels.index("item")
        s_item = float(np.exp(theta0[lay.slices["log_sigma"]][i_item]))
        scale = s_item if lay.centred["item"] else 1.0
        mean_sd = np.where(used, scale / np.sqrt(np.maximum(group_sizes(lay), 1.0)), 0.0)
        cp = prec.coupling
        arrays.update(jac_t=cp.jac.reshape(-1, ng).T.copy(), w=cp.w, kappa=np.asarray(cp.kappa), row=cp.row,
                      idiag=1.0 / prec.diag, isd=1.0 / np.sqrt(prec.diag), a_inv=a_inv,
                      kg_t=prec.krig[0].T.copy(), la_inv_t=la_inv.T.copy(), mean_sd=mean_sd)
    out = {k: np.asarray(v, dtype=dtype) for k, v in arrays.items()}
    if lay.item_cell is not None:
        out["row_index"] = int(prec.coupling.row_index)
    return Whitening(lay, np.asarray(theta0, dtype=dtype), None if q0 is None else np.asarray(q0, dtype=dtype), out)


@dataclass(frozen=True, eq=False)
class BlockWhitening(Whitening):
    """The cheaper map that leaves out the coupling between the global coordinates and the items: the global part
    from the Cholesky factor of its covariance under the constrained Gaussian approximation, the items from their
    conditional precision ``D`` projected on the group constraints (``D``-weighted), their group means from their
    prior. Still a fixed invertible linear map; the coupling it leaves out is left to the sampler."""

    def delta(self, z, xp=None):
        a, lay = self.arrays, self.lay
        ng = lay.n_global
        d_theta = z[..., :ng] @ a["chol_t"]
        if lay.item_cell is None:
            return d_theta, None
        x_d = z[..., ng:] * a["isd"]
        r = group_sum(x_d, lay)
        w = r * a["inv_m"]  # (A D^-1 A^T)^-1 is diagonal: each group's sum of 1/D
        xi = r * a["inv_sqrt_m"]
        return d_theta, x_d - to_items(w, lay) * a["idiag"] + to_items(xi * a["mean_sd"], lay)


def block_whitening(lay, theta0, q0, prec: Precision, dtype=np.float32) -> BlockWhitening:
    """The :class:`BlockWhitening` of the Gaussian approximation at (theta0, q0)."""
    ng = lay.n_global
    s_inv = linalg.cho_solve((prec.chol_s, True), np.eye(ng))
    arrays = {}
    if lay.item_cell is not None:
        kg = prec.krig[0]
        m_a = prec.chol_a @ prec.chol_a.T
        used = group_sizes(lay) > 0
        m_inv = linalg.inv(m_a) * np.outer(used, used)
        s_inv = s_inv - kg @ m_inv @ kg.T
        m_d = np.bincount(lay.item_cell, weights=1.0 / prec.diag, minlength=lay.n_cells)
        i_item = lay.levels.index("item")
        s_item = float(np.exp(theta0[lay.slices["log_sigma"]][i_item]))
        scale = s_item if lay.centred["item"] else 1.0
        arrays.update(isd=1.0 / np.sqrt(prec.diag), idiag=1.0 / prec.diag,
                      inv_m=np.where(used, 1.0 / np.maximum(m_d, 1e-300), 0.0),
                      inv_sqrt_m=np.where(used, 1.0 / np.sqrt(np.maximum(m_d, 1e-300)), 0.0),
                      mean_sd=np.where(used, scale / np.sqrt(np.maximum(group_sizes(lay), 1.0)), 0.0))
    arrays["chol_t"] = linalg.cholesky(0.5 * (s_inv + s_inv.T), lower=True).T.copy()
    out = {k: np.asarray(v, dtype=dtype) for k, v in arrays.items()}
    return BlockWhitening(lay, np.asarray(theta0, dtype=dtype), None if q0 is None else np.asarray(q0, dtype=dtype),
                          out)
