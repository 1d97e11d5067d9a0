"""The fits of variance components of one entity (a model, or a pair's difference) in one task.

ANOVA (balanced designs: every entity of a task at once, :func:`_anova_fits`) or REML (:func:`_reml_fit`) on a
:class:`~evalband.selection.task_design.TaskDesign`; each fit carries the multipliers of its components in the
variance of the reported mean and of one item's score, the pivotal draws behind its intervals, and
:func:`_summaries` reads from it the variance of the mean, its shares, degrees of freedom and G coefficients under
a choice of fixed facets. :func:`evalband.facets.variance_components` puts them together.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..selection.task_design import ITEM, TaskDesign, term_name, unique_rows
from .anova import anova_components
from .profile import profile_intervals
from .reml import reml_components


@dataclass(frozen=True)


class _Fit:
    """The components of one entity (a model, or a pair's difference) in one task."""

    names: tuple            # component names (terms, then 'trial' when repeated trials separate it)
    factors: tuple          # factor names of each component (() for 'trial')
    levels: np.ndarray      # levels of each component's term (trials: observations)
    raw: np.ndarray         # unbiased (ANOVA) or REML estimates
    draws: np.ndarray       # (B, n) pivotal draws
    mean_mult: np.ndarray   # multiplier of each component in the variance of the reported mean
    item_mult: np.ndarray   # multiplier in the variance of one item's score (G coefficients)
    dfs: object             # callable weights -> Satterthwaite df
    estimate: float
    method: str
    converged: bool = True  # REML: the optimizer stopped normally and a Newton step confirmed the optimum
    profile: tuple = None   # REML: (Profiler, the fit's variances each component sums, their multipliers, limit)

    def intervals(self, fixed, level: float):
        """Intervals of the components and of their shares under ``fixed``, and the count of upper bounds the
        data do not give: REML's from the profile likelihood, ANOVA's from the pivotal draws."""
        rand = _random_mask(self, fixed)
        if self.profile is not None:
            profiler, groups, mult, limit = self.profile
            member = np.zeros(mult.size, dtype=bool)
            for j, g in enumerate(groups):
                member[g] = rand[j]
            ci, share, unbounded = profile_intervals(profiler, groups, mult * member, confidence_level=level,
                                                     limit=limit)
            return ci.T, share.T, unbounded
        q = [(1 - level) / 2, (1 + level) / 2]
        dshare = _summaries(self, fixed, level)[2]
        return np.quantile(np.maximum(self.draws, 0.0), q, axis=0), np.quantile(dshare, q, axis=0), 0


def _multipliers(d: TaskDesign, cells: np.ndarray, weights: np.ndarray, inv_n: np.ndarray, terms):
    """Multipliers of each term (and residual source) in the variance of ``sum_c weights_c ybar_c`` and, per item,
    of the item's own mean (averaged over items)."""
    item = d.codes[cells, 0]
    n_items = int(item.max()) + 1
    w_item = np.bincount(item, weights=weights, minlength=n_items)
    v = np.where(w_item[item] > 0, weights / np.where(w_item[item] > 0, w_item[item], 1), 0.0)  # weights within item
    present = np.unique(item).size
    mean_m, item_m = [], []
    for t in terms:
        lev = d.term_levels(t)[cells]
        mean_m.append(float((np.bincount(lev, weights=weights) ** 2).sum()))
        key = unique_rows(np.column_stack([item, lev]))[1]
        item_m.append(float((np.bincount(key, weights=v) ** 2).sum() / present))
    for s in range(inv_n.shape[0]):
        mean_m.append(float((weights ** 2 * inv_n[s]).sum()))
        item_m.append(float((v ** 2 * inv_n[s]).sum() / present))
    return np.array(mean_m), np.array(item_m)


def _entity_cells(d: TaskDesign, models: tuple):
    """Cells, weights of the reported statistic, cell values, 1/n per source and within-cell parts of an entity."""
    ks = list(models)
    ok = np.all(d.n[ks] > 0, axis=0)
    cells = np.flatnonzero(ok)
    item = d.codes[cells, 0]
    n_items = np.unique(item).size
    mean = d.cell_means()[:, cells]
    ws = []
    for k in ks:
        nk = d.n[k, cells].astype(np.float64)
        tot = np.bincount(item, weights=nk)[item]
        ws.append(nk / tot / n_items)
    weights = np.mean(ws, axis=0)
    y = mean[ks[0]] if len(ks) == 1 else mean[ks[0]] - mean[ks[1]]
    inv_n = np.stack([1.0 / d.n[k, cells] for k in ks])
    n_sel = d.n[ks][:, cells]
    s_sel = d.sums[ks][:, cells]
    q_sel = d.sumsq[ks][:, cells]
    w_ss = np.maximum(q_sel - s_sel ** 2 / n_sel, 0.0).sum(axis=1)
    w_df = (n_sel - 1).sum(axis=1).astype(np.float64)
    return cells, weights, y, inv_n, w_ss, w_df


def _names(d: TaskDesign, has_trials: bool):
    names = [term_name(d.factors, t, d.parents) for t in d.terms]
    top = d.terms[-1]
    crossed = [k for k in top if not d.parents[k] & set(top)]
    if not has_trials and len(crossed) > 1:  # an interaction holding the residual ('item x prompt, residual')
        names[-1] = f"{names[-1]}, residual"
    factors = [tuple(d.factors[a] for a in t) for t in d.terms]
    levels = [int(np.unique(d.term_levels(t)).size) for t in d.terms]
    if has_trials:
        names.append("trial")
        factors.append(())
        levels.append(int(d.n.sum()))
    return tuple(names), tuple(factors), np.array(levels)


def _compact(codes: np.ndarray) -> np.ndarray:
    return np.unique(codes, return_inverse=True)[1].reshape(-1)


def _reml_fit(d: TaskDesign, ks: tuple, gen, n_draws: int) -> _Fit:
    cells, weights, y, inv_n, w_ss, w_df = _entity_cells(d, ks)
    has_trials = bool((w_df > 0).all())
    if not has_trials:  # the cell term holds the residual (one source: the cell means' own noise)
        inv_n, w_ss, w_df = inv_n.mean(axis=0, keepdims=True), np.zeros(1), np.zeros(1)
    z_terms = d.terms[:-1]
    codes = [_compact(d.term_levels(t)[cells]) for t in z_terms]
    fit = reml_components(y, codes, inv_n=inv_n, within_ss=w_ss, within_df=w_df, top=has_trials)
    mean_m, item_m = _multipliers(d, cells, weights, inv_n, d.terms if has_trials else z_terms)
    n_src = inv_n.shape[0]
    raw, draws = fit.variance, fit.pivots(gen, n_draws)
    profiler = fit.profiler()
    n_raw = raw.size
    groups = [[i] for i in range(n_raw - n_src)] + [list(range(n_raw - n_src, n_raw))]
    if n_src == 1:
        groups[-1:] = [[n_raw - 1]]
    lo, hi = d.score_range
    limit = (hi - lo) ** 2 / (4 if len(ks) == 1 else 1)
    profile = None if profiler is None else (profiler, groups, mean_m.copy(), limit)
    if n_src > 1:  # a pair's two trial sources are reported as one 'trial' component (their sum)
        src = raw[-n_src:]
        split = src / src.sum() if src.sum() > 0 else np.full(n_src, 1.0 / n_src)
        raw = np.concatenate([raw[:-n_src], [src.sum()]])
        draws = np.concatenate([draws[:, :-n_src], draws[:, -n_src:].sum(axis=1, keepdims=True)], axis=1)
        mean_m = np.concatenate([mean_m[:-n_src], [split @ mean_m[-n_src:]]])
        item_m = np.concatenate([item_m[:-n_src], [split @ item_m[-n_src:]]])

        def dfs(wts, _fit=fit, _n=n_src):
            wts = np.asarray(wts, dtype=np.float64)
            return _fit.satterthwaite_df(np.concatenate([wts[:-1], np.full(_n, wts[-1])]))
    else:
        dfs = fit.satterthwaite_df
    names, factors, levels = _names(d, has_trials)
    return _Fit(names, factors, levels, raw, draws, mean_m, item_m, dfs, float((weights * y).sum()), "reml",
                fit.converged, profile)


def _anova_fits(d: TaskDesign, entities: list, gen_for, n_draws: int) -> list:
    """ANOVA fits of every entity of a balanced task: models at once, then pairs at once."""
    shape, pos = d.layout
    r = int(d.n.flat[0])
    idx = tuple(pos[:, a] for a in range(pos.shape[1]))
    dense = np.empty((d.n_models,) + shape)
    dense[(slice(None),) + idx] = d.cell_means()
    ss_w, df_w = d.within()
    has_trials = r > 1
    cells = np.arange(d.n_cells)
    # every cell weighs the same in a balanced design; the multipliers do not depend on the entity
    mean_m, item_m = _multipliers(d, cells, np.full(d.n_cells, 1.0 / d.n_cells), np.full((1, d.n_cells), 1.0 / r),
                                  d.terms)
    if not has_trials:  # the cell term holds the residual; its multiplier is that of the cell term
        mean_m, item_m = mean_m[:-1], item_m[:-1]
    names, factors, levels = _names(d, has_trials)
    fits = {}
    for size in (1, 2):
        group = [ks for ks in entities if len(ks) == size]
        if not group:
            continue
        ys = np.stack([dense[ks[0]] if size == 1 else dense[ks[0]] - dense[ks[1]] for ks in group])
        wss = np.stack([ss_w[list(ks)] for ks in group])
        wdf = np.stack([df_w[list(ks)].astype(np.float64) for ks in group])
        table = anova_components(ys, trials=r, parents=d.parents, within_ss=wss if has_trials else None,
                                 within_df=wdf if has_trials else None)
        for e, ks in enumerate(group):
            sub = _Slice(table, e)
            fits[ks] = _Fit(names, factors, levels, table.estimate[e], sub.pivots(gen_for(ks), n_draws), mean_m,
                            item_m, sub.satterthwaite_df, float(ys[e].mean()), "anova")
    return [fits[ks] for ks in entities]


class _Slice:
    """One entity of a vectorized ANOVA table (pivots and degrees of freedom for it alone)."""

    def __init__(self, table, e):
        from .anova import AnovaTable

        self.table = AnovaTable(table.terms, table.ss[e], table.ms[e], table.df,
                                None if table.within_ms is None else table.within_ms[e],
                                None if table.within_df is None else table.within_df[e], table.ems,
                                table.estimate[e], table.trials)

    def pivots(self, gen, n):
        return self.table.pivots(gen, n)

    def satterthwaite_df(self, w):
        return float(self.table.satterthwaite_df(w))


def _random_mask(fit: _Fit, fixed) -> np.ndarray:
    """True for components that vary with a new sample (not made only of fixed facets)."""
    return np.array([not (f and set(f) <= set(fixed)) for f in fit.factors])


def _summaries(fit: _Fit, fixed, level: float):
    """Variance of the mean, its shares and G coefficients under a choice of fixed facets (estimate and draws)."""
    rand = _random_mask(fit, fixed)
    est = np.maximum(fit.raw, 0.0)
    dr = np.maximum(fit.draws, 0.0)
    contrib = est * fit.mean_mult * rand
    dcontrib = dr * fit.mean_mult * rand
    v = contrib.sum()
    dv = dcontrib.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = contrib / v if v > 0 else np.zeros_like(contrib)
        dshare = dcontrib / np.where(dv > 0, dv, 1.0)[:, None]
    # G coefficients: items as objects of measurement (the last component holds the residual)
    n = len(fit.names)
    if fit.factors[0] == (ITEM,) and n > 1:
        resid = np.arange(n) == n - 1
        has_item = np.array([ITEM in f for f in fit.factors]) | resid
        universe = np.array([ITEM in f and set(f) - {ITEM} <= set(fixed) for f in fit.factors]) & ~resid
        rel = has_item & ~universe
        absolute = rel | (~has_item & rand)
        tau = (est * fit.item_mult * universe).sum()
        delta = (est * fit.item_mult * rel).sum()
        big = (est * fit.item_mult * absolute).sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            g_rel, g_abs = tau / (tau + delta), tau / (tau + big)
    else:
        g_rel = g_abs = np.nan
    weights = fit.mean_mult * rand
    df = fit.dfs(weights) if v > 0 else np.nan
    return contrib, share, dshare, v, df, g_rel, g_abs
