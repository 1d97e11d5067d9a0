"""The penalized least squares system of a random-effects model, solved many times for different variances.

The linear algebra behind :func:`evalband.facets.reml_components`: for the model ``y = 1 mu + Z b + e`` with
``b_T ~ N(0, lambda_T^2 sigma^2)`` for each random term ``T`` and ``e ~ N(0, sigma^2 / w)``, it returns
``log|A|``, ``r' A^-1 r`` and the intercept of the mixed-model equations

    A = [[Lambda Z'WZ Lambda + I, Lambda Z'W 1], [1'WZ Lambda, 1'W1]],   r = [Lambda Z'W y, 1'W y]

(Henderson 1963, in the relative-factor form of lme4, Bates et al. 2015). The pattern of ``A`` is fixed by the
design, its values are linear in the cell weights ``w``: a sparse matrix built once maps ``w`` to them.

Crossed designs of evaluations have a natural order for the factorization: group the random levels by one term
(usually the item), so that every level of a term nested in it (item, item x prompt, item x seed) belongs to one
group, and keep the levels of the other terms (prompt, seed, prompt x seed) and the intercept apart as *global*.
``A`` is then block-arrow shaped: small dense blocks per group, coupled only through the global levels. The blocks
are factored at once (batched dense Cholesky), the global levels through their dense Schur complement: what a
sparse Cholesky with a fill-reducing order would do, without the sparse overhead. The grouping term is chosen by
an operation count; when no grouping keeps the global part small, a sparse LU of the whole system is used.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import splu

__all__ = ["MixedSystem"]

_MAX_GLOBAL = 2000            # global levels beyond which the dense Schur complement is not used
_MAX_COST = 5e9                # operations per factorization beyond which the sparse LU is used
_MAX_BLOCK_ENTRIES = 40_000_000  # entries of the batched blocks (local x local and local x global)


def _compact(codes: np.ndarray) -> tuple[np.ndarray, int]:
    uniq, inv = np.unique(codes, return_inverse=True)
    return inv.reshape(-1).astype(np.int64), int(uniq.size)


class MixedSystem:
    """The mixed-model equations of one design (cells, random terms), factored for any variances and weights.

    Parameters
    ----------
    y : numpy.ndarray, shape (C,)
        Responses (cell means).
    term_codes : sequence of numpy.ndarray of int, each (C,)
        Level of each random term in each cell.
    layout : {'auto', 'block', 'sparse'}
        'block': block-arrow factorization grouped by the cheapest term; 'sparse': sparse LU of the whole system
        (the fallback for designs without a small global part); 'auto' chooses.
    """

    def __init__(self, y: np.ndarray, term_codes, *, layout: str = "auto"):
        self.y = np.asarray(y, dtype=np.float64)
        c = self.y.size
        self.n_cells = c
        codes, sizes = [], []
        for t in term_codes:
            k, n = _compact(np.asarray(t, dtype=np.int64))
            codes.append(k)
            sizes.append(n)
        self.codes, self.sizes = codes, np.array(sizes, dtype=np.int64)
        self.n_terms = len(codes)
        self._last = None
        plan = self._choose(layout)
        self.layout = "sparse" if plan is None else "block"
        if plan is None:
            self._build_sparse()
        else:
            self._build_block(*plan)

    # ------------------------------------------------------------------ layout
    def _local_terms(self, key: int) -> list:
        """Terms whose every level lies in one level of term ``key`` (nested in it, or the term itself)."""
        g = self.codes[key]
        out = []
        for t, (k, n) in enumerate(zip(self.codes, self.sizes)):
            pairs = np.unique(k * (self.sizes[key]) + g)
            if pairs.size == n:
                out.append(t)
        return out

    def _choose(self, layout: str):
        if layout not in ("auto", "block", "sparse"):
            raise ValueError(f"`layout` must be 'auto', 'block' or 'sparse'; got {layout!r}.")
        if layout == "sparse":
            return None
        c = self.n_cells
        best, best_cost = None, np.inf
        candidates = [(None, [])] + [(key, self._local_terms(key)) for key in range(self.n_terms)]
        for key, local in candidates:
            g = int(sum(self.sizes[t] for t in range(self.n_terms) if t not in local)) + 1
            if key is None:
                n_groups, b = 0, 0
            else:
                n_groups = int(self.sizes[key])
                per = np.zeros(n_groups, dtype=np.int64)
                for t in local:
                    per += np.bincount(self._group_of_level(t, key), minlength=n_groups)
                b = int(per.max())
            n_loc, n_glob = len(local), self.n_terms - len(local) + 1
            entries = n_groups * b * (b + g) + g * g
            if g > _MAX_GLOBAL or entries > _MAX_BLOCK_ENTRIES:
                continue
            cost = n_groups * (b ** 3 / 3 + b * b * g + b * g * g) + g ** 3 / 3 + c * (n_loc + n_glob) ** 2
            if cost < best_cost:
                best, best_cost = (key, local), cost
        if best_cost > _MAX_COST and layout == "auto":
            best = None
        if best is None and layout == "block":
            raise ValueError("no block layout keeps the global part small enough; use layout='sparse'.")
        return best

    def _group_of_level(self, t: int, key: int) -> np.ndarray:
        out = np.zeros(self.sizes[t], dtype=np.int64)
        out[self.codes[t]] = self.codes[key]
        return out

    def _build_block(self, key, local):
        c = self.n_cells
        glob = [t for t in range(self.n_terms) if t not in local]
        # global columns: the global terms' levels, then the intercept
        g_off = np.r_[0, np.cumsum([self.sizes[t] for t in glob])].astype(np.int64)
        g = int(g_off[-1]) + 1
        gcols = np.column_stack([self.codes[t] + g_off[i] for i, t in enumerate(glob)] + [np.full(c, g - 1)])
        self.g = g
        self.glob_term = np.r_[np.repeat(np.arange(len(glob)), np.diff(g_off)), -1]
        self.glob = glob
        self.ident_g = np.r_[np.ones(g - 1), 0.0]
        if key is None:
            n_groups, b = 0, 0
            slots = np.zeros((c, 0), dtype=np.int64)
            grp = np.zeros(c, dtype=np.int64)
            slot_term = np.zeros((0, 0), dtype=np.int64)
        else:
            n_groups = int(self.sizes[key])
            grp = self.codes[key]
            fill = np.zeros(n_groups, dtype=np.int64)
            slot_of = []
            for t in local:
                lg = self._group_of_level(t, key)
                order = np.lexsort((np.arange(lg.size), lg))
                first = np.searchsorted(lg[order], np.arange(n_groups))
                rank = np.empty(lg.size, dtype=np.int64)
                rank[order] = np.arange(lg.size) - first[lg[order]]
                slot_of.append(fill[lg] + rank)
                fill += np.bincount(lg, minlength=n_groups)
            b = int(fill.max())
            slots = np.column_stack([s[self.codes[t]] for s, t in zip(slot_of, local)])
            slot_term = np.full((n_groups, b), -1, dtype=np.int64)
            for i, (s, t) in enumerate(zip(slot_of, local)):
                slot_term[self._group_of_level(t, key), s] = i
        self.n_groups, self.b, self.local = n_groups, b, local
        self.slot_term = slot_term
        cell = np.arange(c)
        # rows of the stacked Gram entries: local x local, local x global, global x global
        base = grp * (b * b)
        r_ll = (base[:, None, None] + slots[:, :, None] * b + slots[:, None, :]).reshape(c, -1)
        off = n_groups * b * b
        r_lg = (off + grp[:, None, None] * (b * g) + slots[:, :, None] * g + gcols[:, None, :]).reshape(c, -1)
        off2 = off + n_groups * b * g
        r_gg = (off2 + gcols[:, :, None] * g + gcols[:, None, :]).reshape(c, -1)
        rows = np.concatenate([r_ll, r_lg, r_gg], axis=1)
        n_out = off2 + g * g
        self._gram = sparse.csr_matrix((np.ones(rows.size), (rows.ravel(), np.repeat(cell, rows.shape[1]))),
                                       shape=(n_out, c))
        rr = np.concatenate([grp[:, None] * b + slots, n_groups * b + gcols], axis=1)
        self._rhs = sparse.csr_matrix((np.ones(rr.size), (rr.ravel(), np.repeat(cell, rr.shape[1]))),
                                      shape=(n_groups * b + g, c))
        self._split = (n_groups * b * b, off2)
        self._gram_t, self._rhs_t = self._gram.T.tocsr(), self._rhs.T.tocsr()

    def _build_sparse(self):
        c = self.n_cells
        off = np.r_[0, np.cumsum(self.sizes)].astype(np.int64)
        q = int(off[-1]) + 1
        cols = np.column_stack([k + off[i] for i, k in enumerate(self.codes)] + [np.full(c, q - 1)])
        k = cols.shape[1]
        pr = np.repeat(cols, k, axis=1).ravel()
        pc = np.tile(cols, (1, k)).ravel()
        key = pr * q + pc
        uniq, inv = np.unique(key, return_inverse=True)
        self._sp_row, self._sp_col = uniq // q, uniq % q
        self._gram = sparse.csr_matrix((np.ones(key.size), (inv.reshape(-1), np.repeat(np.arange(c), k * k))),
                                       shape=(uniq.size, c))
        self._rhs = sparse.csr_matrix((np.ones(cols.size), (cols.ravel(), np.repeat(np.arange(c), k))), shape=(q, c))
        self.q = q
        self.col_term = np.r_[np.repeat(np.arange(self.n_terms), self.sizes), -1]
        self.ident = np.r_[np.ones(q - 1), 0.0]

    # ------------------------------------------------------------------ solve
    def _weighted(self, w):
        """The Gram entries and right-hand side for cell weights ``w`` (kept while the weights repeat, as they do
        when the residual is the only variance on the cells)."""
        if self._last is None or not np.array_equal(w, self._last[0]):
            self._last = (w.copy(), self._gram @ w, self._rhs @ (w * self.y))
        return self._last[1], self._last[2]

    def solve(self, lam: np.ndarray, w: np.ndarray):
        """``(log|A|, r'A^-1 r, intercept)`` for relative standard deviations ``lam`` (n_terms,) and cell weights
        ``w`` (C,), or None when ``A`` is not numerically positive definite."""
        lam = np.asarray(lam, dtype=np.float64)
        if self.layout == "sparse":
            return self._solve_sparse(lam, *self._weighted(w))
        f = self._factor(lam, w, derivatives=False)
        return None if f is None else (f["logdet"], f["quad"], f["beta"])

    def _factor(self, lam, w, *, derivatives: bool):
        """Block-arrow factorization; with ``derivatives`` also what the gradient needs."""
        gw, rw = self._weighted(w)
        n_groups, b, g = self.n_groups, self.b, self.g
        lam_g = np.r_[lam[self.glob], 1.0][self.glob_term]
        s1, s2 = self._split
        g_gg = gw[s2:].reshape(g, g)
        a_gg = g_gg * np.outer(lam_g, lam_g)
        a_gg[np.diag_indices(g)] += self.ident_g
        r_g = rw[n_groups * b:] * lam_g
        out = {"logdet": 0.0, "quad": 0.0, "lam_g": lam_g}
        if n_groups:
            lam_l = np.where(self.slot_term >= 0, lam[self.local][np.maximum(self.slot_term, 0)], 0.0)
            g_ll = gw[:s1].reshape(n_groups, b, b)
            g_lg = gw[s1:s2].reshape(n_groups, b, g)
            a_ll = g_ll * (lam_l[:, :, None] * lam_l[:, None, :])
            a_ll[:, np.arange(b), np.arange(b)] += 1.0
            b_lg = g_lg * lam_l[:, :, None]          # Lambda_l G_lg: A_lg without the global scaling
            a_lg = b_lg * lam_g
            r_l = rw[:n_groups * b].reshape(n_groups, b) * lam_l
            try:
                chol = np.linalg.cholesky(a_ll)
            except np.linalg.LinAlgError:
                return None
            out["logdet"] = 2.0 * float(np.log(np.diagonal(chol, axis1=1, axis2=2)).sum())
            a_ll_inv = np.linalg.inv(a_ll)  # blocks >= I: well conditioned; batched inverse beats batched solve
            parts = [b_lg, r_l[:, :, None]]
            if derivatives:
                h_ll = g_ll * lam_l[:, :, None]       # Lambda_l G_ll: local columns of X'W Z
                parts.append(h_ll)
            x = a_ll_inv @ np.concatenate(parts, axis=2)
            y_b, u = x[:, :, :g], x[:, :, g]
            f = y_b * lam_g                           # A_ll^-1 A_lg
            a_gg -= a_lg.reshape(-1, g).T @ f.reshape(-1, g)
            r_g = r_g - f.reshape(-1, g).T @ r_l.ravel()
            out["quad"] = float(r_l.ravel() @ u.ravel())
            out.update(lam_l=lam_l, f=f, u=u, y_b=y_b, b_lg=b_lg, a_lg=a_lg, g_ll=g_ll, g_lg=g_lg)
            if derivatives:
                out.update(a_ll_inv=a_ll_inv, y_h=x[:, :, g + 1:], h_ll=h_ll)
        try:
            chol = np.linalg.cholesky(a_gg)
        except np.linalg.LinAlgError:
            return None
        z = np.linalg.solve(chol, r_g)
        x_g = np.linalg.solve(chol.T, z)
        out["logdet"] += 2.0 * float(np.log(np.diagonal(chol)).sum())
        out["quad"] += float(z @ z)
        out.update(beta=float(x_g[-1]), x_g=x_g, chol_s=chol, g_gg=g_gg)
        return out

    def derivatives(self, lam: np.ndarray, w: np.ndarray):
        """What the gradient of the restricted likelihood needs, or None (sparse layout, or not positive definite).

        With ``P = V^-1 - V^-1 1 (1'V^-1 1)^-1 1'V^-1`` and ``V = Z diag(lam^2) Z' + diag(1 / w)``: ``logdet``,
        ``quad``, ``beta`` as :meth:`solve`; ``py`` = P y (C,); ``p_diag`` = diag(P) (C,); ``trace`` =
        tr(Z_T' P Z_T) per term; ``ztpy2`` = ||Z_T' P y||^2 per term. The traces come from the selected inverse
        of ``A`` on its block-arrow pattern (local blocks, local x global, global x global); the global terms' from
        a block solve with their columns of ``X' W Z`` (no division by ``lam``, so they hold at ``lam = 0``).
        """
        if self.layout == "sparse":
            return None
        lam = np.asarray(lam, dtype=np.float64)
        fac = self._factor(lam, w, derivatives=True)
        if fac is None:
            return None
        n_groups, b, g = self.n_groups, self.b, self.g
        lam_g, x_g, chol_s = fac["lam_g"], fac["x_g"], fac["chol_s"]
        s_inv = np.linalg.solve(chol_s.T, np.linalg.solve(chol_s, np.eye(g)))
        trace = np.full(self.n_terms, float(w.sum()))
        # P y = W (y - fitted), fitted = Z Lambda u + beta
        xs = [x_g * lam_g]
        if n_groups:
            lam_l, f = fac["lam_l"], fac["f"]
            x_l = fac["u"] - f @ x_g
            xs.insert(0, (x_l * lam_l).ravel())
            fs = (f.reshape(-1, g) @ s_inv).reshape(f.shape)        # F S^-1, (n_groups, b, g)
            sel_ll = (fac["a_ll_inv"] + fs @ np.swapaxes(f, 1, 2)) * (lam_l[:, :, None] * lam_l[:, None, :])
            sel_lg = -fs * lam_l[:, :, None] * lam_g
            # local terms: diag of H' A_ll^-1 H + E' S^-1 E with H = Lambda_l G_ll, E = F'H - Lambda_g G_lg'
            h_ll = fac["h_ll"]
            e = np.swapaxes(f, 1, 2) @ h_ll - np.swapaxes(fac["g_lg"], 1, 2) * lam_g[:, None]  # (n_groups, g, b)
            se = (s_inv @ np.swapaxes(e, 0, 1).reshape(g, -1)).reshape(g, n_groups, b).swapaxes(0, 1)
            d_loc = (h_ll * fac["y_h"]).sum(axis=1) + (e * se).sum(axis=1)             # (n_groups, b)
            ok = self.slot_term >= 0
            trace[self.local] -= np.bincount(self.slot_term[ok], weights=d_loc[ok], minlength=len(self.local))
            # global terms: solve A X = [Lambda_l G_lg; Lambda_g G_gg] for every global column at once
            rhs_g = fac["g_gg"] * lam_g[:, None]
            xg_all = s_inv @ (rhs_g - fac["a_lg"].reshape(-1, g).T @ fac["y_b"].reshape(-1, g))
            xl_all = fac["y_b"] - (f.reshape(-1, g) @ xg_all).reshape(f.shape)
            d_glob = (fac["b_lg"] * xl_all).sum(axis=(0, 1)) + (rhs_g * xg_all).sum(axis=0)
        else:
            sel_ll = sel_lg = np.zeros(0)
            rhs_g = fac["g_gg"] * lam_g[:, None]
            d_glob = (rhs_g * (s_inv @ rhs_g)).sum(axis=0)
        sel_gg = s_inv * np.outer(lam_g, lam_g)
        if self.glob:
            trace[self.glob] -= np.bincount(self.glob_term[:-1], weights=d_glob[:-1], minlength=len(self.glob))
        sel = np.concatenate([sel_ll.ravel(), 2.0 * sel_lg.ravel(), sel_gg.ravel()])
        q = self._gram_t @ sel                                      # x_c' A^-1 x_c per cell
        fitted = self._rhs_t @ np.concatenate(xs)
        py = w * (self.y - fitted)
        ztpy2 = np.array([float((np.bincount(k, weights=py, minlength=n) ** 2).sum())
                          for k, n in zip(self.codes, self.sizes)])
        return {"logdet": fac["logdet"], "quad": fac["quad"], "beta": fac["beta"], "py": py,
                "p_diag": w - w * w * q, "trace": trace, "ztpy2": ztpy2}

    def _solve_sparse(self, lam, gw, rw):
        lam_c = np.r_[lam, 1.0][self.col_term]
        vals = gw * lam_c[self._sp_row] * lam_c[self._sp_col]
        a = sparse.csc_matrix((vals, (self._sp_row, self._sp_col)), shape=(self.q, self.q)) + sparse.diags(self.ident)
        try:
            lu = splu(a.tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0)
        except RuntimeError:
            return None
        diag = lu.U.diagonal()
        if (diag <= 0).any():
            return None
        r = rw * lam_c
        sol = lu.solve(r)
        return float(np.log(diag).sum()), float(r @ sol), float(sol[-1])
