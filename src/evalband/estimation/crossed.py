"""Analytic intervals that generalize over facets: the variance the crossed wild bootstrap draws from, in closed form.

:func:`crossed_estimates` gives each model's per-task mean (and its mean over all of its items) with the standard
error of a design whose items (or clusters) and facet levels are both samples: the CR2 variance of each family of
units (items; the levels of each random facet) added up, on a t reference whose degrees of freedom combine the
families' Bell-McCaffrey degrees of freedom weighted by their shares of the variance (never more than
Satterthwaite's combination; see :func:`crossed_variance`). It is what ``summarize`` shows when a table has facet columns, and
the closed form of :func:`~evalband.facets.crossed_bootstrap` (whose replicates have this variance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._distributions import chi2_isf, t_isf
from .._validate import ArgumentError, check_confidence_level
from ..display.reprs import displayed
from .confidence import ConfidenceInterval

from ..selection.facet_design import facet_design, facet_table
from ..selection.task_design import ITEM, TaskDesign
from .small_clusters import bell_mccaffrey_df, cr2_factors
from ..display.notes import NoteKind
from .._words import words

__all__ = ["CrossedEstimates", "crossed_estimates", "crossed_variance", "crossed_pieces", "facet_family", "unit_family",
           "FEW_LEVELS", "few_levels_notes"]


def crossed_variance(pieces, weights) -> tuple[np.ndarray, np.ndarray, dict]:
    """Variance and degrees of freedom of ``sum_t w_t theta_t`` under the crossed design, per model.

    Parameters
    ----------
    pieces : sequence
        Per task, the observed means, units and facet families of :func:`crossed_pieces`.
    weights : array_like, shape (T,)
        Weight of each task's mean (one 1 for a per-task interval; items' shares for the mean over items).

    Returns
    -------
    (variance (M,), df (M,), parts)
        ``parts`` maps each family ('units' and each facet) to its variance (M,): the CR2 variance of the
        family's influences, ``sum_u (a_u sum_t w_t infl_tu)^2``, ``a_u = (1 - share_u)^(-1/2)``. ``df`` is
        ``1 / sum_k (s_k / df_k)`` with ``s_k`` each family's share of the variance and ``df_k`` its
        Bell-McCaffrey degrees of freedom (at most its levels - 1).

    Notes
    -----
    Satterthwaite's ``1 / sum_k (s_k^2 / df_k)`` is exact for known shares; with estimated ones it is largest
    exactly when a facet's variance happens to be underestimated, which with few levels is often (a chi-square
    on 2 degrees of freedom is below half its mean 39% of the time), and the interval then under-covers (0.92
    with 3 prompts). Weighting each family's degrees of freedom by its share instead of the square of its share
    gives at most Satterthwaite's degrees of freedom and at least the fewest of the families'; with 3, 5 and 10
    prompts it keeps the level (``tests/facets/test_crossed_coverage.py``).

    Examples
    --------
    One model, 30 items under 3 prompts: the prompts carry much of the variance, and their 3 levels leave the t
    reference few degrees of freedom. The standard error is the one :func:`crossed_estimates` shows.

    >>> import numpy as np, pandas as pd
    >>> from evalband.estimation.crossed import crossed_pieces
    >>> from evalband.facets import crossed_estimates, crossed_variance, facet_design
    >>> rng = np.random.default_rng(0)
    >>> item, prompt = np.repeat(np.arange(30), 3), np.tile(np.arange(3), 30)
    >>> p = 1 / (1 + np.exp(-(rng.normal(size=30)[item] + rng.normal(size=3)[prompt])))
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": item, "prompt": prompt,
    ...                    "score": (rng.random(90) < p).astype(int)})
    >>> pieces = [crossed_pieces(d, fixed=(), use_clusters=False) for d in facet_design(df).designs]
    >>> var, dof, parts = crossed_variance(pieces, [1.0])
    >>> np.sqrt(var).round(4), dof.round(1)
    (array([0.0701]), array([3.8]))
    >>> {family: v.round(5) for family, v in parts.items()}
    {'units': array([0.00293]), 'prompt': array([0.00198])}
    >>> bool(np.allclose(np.sqrt(var), crossed_estimates(df).se[:, 0]))
    True
    """
    w = np.asarray(weights, dtype=np.float64)
    use = np.flatnonzero(w != 0)
    n_m = pieces[use[0]][0].shape[0]
    v_unit = np.zeros(n_m)
    shares_all, strata, sizes = [], [], []
    for k, t in enumerate(use):
        _, unit_codes, _, infl_u, shares_u, _ = pieces[t]
        v_unit += w[t] ** 2 * ((infl_u * cr2_factors(shares_u)) ** 2).sum(axis=1)
        shares_all.append(shares_u)
        strata.append(np.full(shares_u.size, k))
        sizes.append(float(unit_codes.size))  # items of the task
    if len(use) == 1:
        df_unit = bell_mccaffrey_df(shares_all[0])
    else:  # the CR2 blocks of the tasks scale as w_t^2 / n_t
        df_unit = bell_mccaffrey_df(np.concatenate(shares_all), np.concatenate(strata), w[use] / w[use].sum(),
                                    np.array(sizes))
    parts = {"units": v_unit}
    dfs = {"units": df_unit}
    fam_infl, fam_shares = {}, {}
    for t in use:
        for f, lv, infl, shares, _ in pieces[t][5]:
            fam = facet_family(f, lv)
            labels = np.array(sorted(map(str, lv)))
            cols = np.searchsorted(labels, lv.astype(str))
            acc = fam_infl.setdefault(fam, (f, np.zeros((n_m, labels.size))))[1]
            acc[:, cols] += w[t] * infl * cr2_factors(shares)
            fam_shares.setdefault(fam, np.zeros(labels.size))[cols] += abs(w[t]) * shares
    for fam, (f, acc) in fam_infl.items():
        key = f if f not in parts else fam
        parts[key] = (acc ** 2).sum(axis=1)
        sh = fam_shares[fam]
        dfs[key] = bell_mccaffrey_df(sh / sh.sum())
    var = sum(parts.values())
    with np.errstate(invalid="ignore", divide="ignore"):
        # each family's share over its degrees of freedom: 1 / df = sum_k s_k / df_k (s_k = V_k / V), never more
        # than Satterthwaite's sum_k s_k^2 / df_k, so a family whose share is underestimated by chance (3 prompts:
        # its variance rests on 2 degrees of freedom) cannot lend the interval the items' degrees of freedom
        # and each facet's variance enters those shares at its median-unbiased value V_k df_k / chi2_0.5(df_k)
        # (a chi-square on 2 degrees of freedom has its median at 0.69 of its mean): with 3 dominant prompts the
        # interval covered 0.928-0.936 on the estimated shares, 0.94-0.95 on these (tests/facets)
        lift = {k: (np.ones(()) if k == "units" else _median_lift(dfs[k])) for k in parts}
        denom = sum(np.where(np.isfinite(dfs[k]) & (dfs[k] > 0), lift[k] * parts[k] / dfs[k], 0.0) for k in parts)
        lifted = sum(lift[k] * parts[k] for k in parts)
        df = np.where(denom > 0, lifted / np.where(denom > 0, denom, 1.0), np.inf)
    return var, df, parts


def _median_lift(df) -> np.ndarray:
    """``df / chi2_0.5(df)``: the factor taking a variance on ``df`` degrees of freedom to its median-unbiased
    value (1 for infinite or missing degrees of freedom)."""
    df = np.asarray(df, dtype=np.float64)
    ok = np.isfinite(df) & (df > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, df / chi2_isf(0.5, np.where(ok, df, 1.0)), 1.0)


@displayed


@dataclass(frozen=True, repr=False)
class CrossedEstimates:
    """Per-(model, task) means with standard errors that generalize over items and facet levels.

    Attributes
    ----------
    models, tasks : tuple of str
    facets : tuple of str
        The facets generalized over (random and crossed with items); facets nested in items stay with their item.
    fixed : tuple of str
    unit : str
        The resampled unit ('item' or 'cluster').
    estimate, se, df : numpy.ndarray, shape (M, T)
        Each model's task mean (mean over its items of each item's mean row), its standard error and the
        Degrees of freedom of the t reference (the families' weighted by their shares, :func:`crossed_variance`).
    ci : ConfidenceInterval
        ``estimate -/+ t_df se``, (M, T).
    n_items, n_units : numpy.ndarray of int, shape (M, T)
    share_facets : numpy.ndarray, shape (M, T)
        Share of the squared standard error that comes from the facet levels (the rest: items or clusters).
    pooled_estimate, pooled_se, pooled_df : numpy.ndarray, shape (M,)
        The mean over all of a model's items in every task (each item weighs the same), its standard error and
        degrees of freedom (levels with the same labels in several tasks are one sample of levels).
    pooled_ci : ConfidenceInterval
    confidence_level : float
    notes : tuple of str
    """

    models: tuple
    tasks: tuple
    facets: tuple
    fixed: tuple
    unit: str
    estimate: np.ndarray
    se: np.ndarray
    df: np.ndarray
    ci: ConfidenceInterval
    n_items: np.ndarray
    n_units: np.ndarray
    share_facets: np.ndarray
    pooled_estimate: np.ndarray
    pooled_se: np.ndarray
    pooled_df: np.ndarray
    pooled_ci: ConfidenceInterval
    confidence_level: float
    notes: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        """One row per model and task: estimate, se, df, ci_low, ci_high, n_items, n_units, share_facets."""
        m, t = len(self.models), len(self.tasks)
        return pd.DataFrame({"model": np.repeat(self.models, t), "task": np.tile(self.tasks, m),
                             "estimate": self.estimate.ravel(), "se": self.se.ravel(), "df": self.df.ravel(),
                             "ci_low": self.ci.low.ravel(), "ci_high": self.ci.high.ravel(),
                             "n_items": self.n_items.ravel(), "n_units": self.n_units.ravel(),
                             "share_facets": self.share_facets.ravel()})

    def __repr__(self) -> str:
        head = (f"CrossedEstimates: {len(self.models)} model(s) x {len(self.tasks)} task(s); {self.unit}s and"
                f" {', '.join(self.facets) or 'no facet'} random")
        rows = [f"  {m} / {t}: {self.estimate[i, j]:.4g} (se {self.se[i, j]:.2g}, df {self.df[i, j]:.3g})"
                for i, m in enumerate(self.models[:4]) for j, t in enumerate(self.tasks[:2])]
        return "\n".join([head, *rows])


NOTE_CROSSED_SE = NoteKind(
    "estimation.crossed-standard-errors", "info", "facet{s} {facets} random: standard errors add the CR2 variance of"
    " the {unit}s and of the levels of {facets} (crossed), on a t reference whose degrees of freedom weigh each"
    " family's by its share of the variance (never more than Satterthwaite's), so intervals generalize to new"
    " levels{fixed}")


def crossed_estimates(data, *, fixed=(), nested=(), cluster=None, confidence_level=0.95, models=None,
                      tasks=None) -> CrossedEstimates:
    """Each model's per-task mean with a standard error that generalizes to new items and new facet levels.

    Parameters
    ----------
    data : Selection, ResultsTable, path or DataFrame
        Item-level results with facet columns (``table.facets``).
    fixed : str or sequence of str
        Facets to condition on (their levels are kept as they are).
    nested : str or sequence of str
        Facets whose levels are numbered within each item (see :func:`facet_design`).
    cluster : bool or None
        None: the units are clusters when the table has them; False: items.
    confidence_level : float or str
    models, tasks : sequence of str, optional

    Returns
    -------
    CrossedEstimates

    Notes
    -----
    The variance of a mean over a crossed sample of items and prompts has a part from the items and a part from
    the prompts; with 5 prompts the second rests on 5 numbers. Each family's part is the CR2 (bias-reduced)
    variance of its units' influences on the mean (an item's deviation from the mean; a prompt's deviation of
    its cells from their items' means), the parts are added (the interaction is counted in both, which makes
    the interval a little conservative, as in Cameron, Gelbach & Miller's two-way clustering without the
    intersection term), and the t reference combines the families' Bell-McCaffrey degrees of freedom weighted by
    their shares of the variance, ``1 / df = sum_k s_k / df_k``: never more than Satterthwaite's
    ``sum_k s_k^2 / df_k`` combination, which lends a facet whose variance is underestimated by chance the
    items' degrees of freedom (with 3 prompts, 8.5 degrees of freedom where the prompts' part rests on 2, and
    0.92 coverage), and never fewer than the fewest of the families'. Coverage with 100 items and 3, 5, 10
    prompts: ``tests/facets/test_crossed_coverage.py``. A random facet with fewer than 5 levels gets a note in
    words. This is the variance the crossed wild
    bootstrap (:func:`crossed_bootstrap`) draws from. Each model is estimated on its own items, as in
    :func:`evalband.estimation.estimate`.

    References
    ----------
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2011). Robust inference with multiway clustering. JBES 29(2).
    Bell, R. M. & McCaffrey, D. F. (2002). Survey Methodology 28(2), 169-181.
    Owen, A. B. (2007). The pigeonhole bootstrap. Annals of Applied Statistics 1(2), 386-411.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.facets import crossed_estimates
    >>> rng = np.random.default_rng(0)
    >>> item, prompt = np.repeat(np.arange(40), 5), np.tile(np.arange(5), 40)
    >>> p = 1 / (1 + np.exp(-(rng.normal(size=40)[item] + rng.normal(size=5)[prompt])))
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": item, "prompt": prompt,
    ...                    "score": (rng.random(200) < p).astype(int)})
    >>> r = crossed_estimates(df)
    >>> r.facets, bool(r.se[0, 0] > crossed_estimates(df, fixed="prompt").se[0, 0])
    (('prompt',), True)
    """
    level = check_confidence_level(confidence_level)
    if cluster not in (None, False, True):
        raise ArgumentError(words('`{arg:cluster}` must be None, True or False; got {cluster!r}.', cluster=cluster))
    fixed = (fixed,) if isinstance(fixed, str) else tuple(fixed or ())
    table = facet_table(data)
    design = facet_design(table, nested=nested, models=models, tasks=tasks)
    bad = [f for f in fixed if f not in design.facets]
    if bad:
        raise ArgumentError(words('`{arg:fixed}`: {value} is not a facet of the table ({value2}).', value=', '.join(map(repr, bad)), value2=', '.join(map(repr, design.facets)) or 'none'))
    if cluster is True and not any(d.clusters is not None for d in design.designs):
        raise ArgumentError(words('`{arg:cluster=True}`, but the data have no cluster column.'))
    # each model on its own items (as estimate() does) unless every model has every item
    if any(any(d.left_out.values()) for d in design.designs) and len(design.models) > 1:
        designs = [facet_design(table, nested=nested, models=[m], tasks=design.tasks) for m in design.models]
    else:
        designs = [design]
    use_clusters = cluster is not False
    q = lambda df: np.where(np.isfinite(df) & (df > 0), t_isf((1 - level) / 2, np.where(df > 0, df, 1)),
                            np.nan)
    rows, few = [], []
    facets, units = set(), set()
    for dz in designs:
        pieces = [crossed_pieces(d, fixed, use_clusters) for d in dz.designs]
        few += few_levels_notes(pieces)
        n_t = len(pieces)
        est = np.stack([p[0] for p in pieces], axis=1)
        var, df, share = np.empty_like(est), np.empty_like(est), np.empty_like(est)
        for t in range(n_t):
            e = np.zeros(n_t)
            e[t] = 1.0
            v, d_, parts = crossed_variance(pieces, e)
            var[:, t], df[:, t] = v, d_
            with np.errstate(invalid="ignore", divide="ignore"):
                share[:, t] = np.where(v > 0, 1 - parts["units"] / v, 0.0)
        n_items = np.array([d.n_items for d in dz.designs], dtype=np.int64)
        n_units = np.array([p[3].shape[1] for p in pieces], dtype=np.int64)
        w = n_items / n_items.sum()
        pv, pdf, _ = crossed_variance(pieces, w)
        rows.append((est, var, df, share, n_items, n_units, est @ w, pv, pdf))
        facets |= {f for p in pieces for f, *_ in p[5]}
        units |= {p[2] for p in pieces}
    cat = lambda k: np.concatenate([r[k] if r[k].ndim == 2 else np.broadcast_to(r[k], (r[0].shape[0],) + r[k].shape)
                                    for r in rows], axis=0)
    est, var, df, share = cat(0), cat(1), cat(2), cat(3)
    n_items, n_units = cat(4), cat(5)
    p_est, p_var, p_df = (np.concatenate([np.atleast_1d(r[k]) for r in rows]) for k in (6, 7, 8))
    se, p_se = np.sqrt(var), np.sqrt(p_var)
    ci = ConfidenceInterval(est - q(df) * se, est + q(df) * se)
    p_ci = ConfidenceInterval(p_est - q(p_df) * p_se, p_est + q(p_df) * p_se)
    notes = list(design.notes)
    unit = units.pop() if len(units) == 1 else "unit"
    if facets:
        notes.append(NOTE_CROSSED_SE(s="s" if len(facets) > 1 else "", facets=", ".join(sorted(facets)), unit=unit,
                                     fixed=f"; fixed: {', '.join(fixed)}" if fixed else ""))
    notes += few
    return CrossedEstimates(tuple(design.models), tuple(design.tasks), tuple(sorted(facets)), fixed, unit, est, se,
                            df, ci, n_items, n_units, share, p_est, p_se, p_df, p_ci, level,
                            tuple(dict.fromkeys(notes)))


#: a random facet with fewer levels than this gets a warning in words: its part of the interval rests on
#: levels - 1 degrees of freedom
FEW_LEVELS = 5


def unit_family(d: TaskDesign, use_clusters: bool):
    """Unit of each item: the facet items are nested in, else the cluster, else the item itself."""
    nest = sorted(d.parents[0])
    if nest:
        f = min(nest, key=lambda a: len(d.levels[a]))
        first = np.zeros(d.n_items, dtype=np.int64)
        first[d.codes[:, 0]] = d.codes[:, f]
        codes = np.unique(first, return_inverse=True)[1].reshape(-1)
        return codes, d.factors[f], f
    if use_clusters and d.clusters is not None:
        return d.clusters, "cluster", None
    return np.arange(d.n_items), ITEM, None


def crossed_pieces(d: TaskDesign, fixed, use_clusters: bool):
    """Observed means, the unit family and the facet families of one task."""
    item_means = d.item_means()                          # (M, I)
    theta = item_means.mean(axis=1)
    n_i = d.n_items
    unit_codes, unit_name, unit_factor = unit_family(d, use_clusters)
    n_u = int(unit_codes.max()) + 1
    dev = (item_means - theta[:, None]) / n_i
    infl_u = np.stack([np.bincount(unit_codes, weights=row, minlength=n_u) for row in dev])
    shares_u = np.bincount(unit_codes, minlength=n_u) / n_i
    item = d.codes[:, 0]
    cnt = np.stack([np.bincount(item, weights=row, minlength=n_i) for row in d.n])   # (M, I)
    v = d.n / cnt[:, item]                                # each cell's weight within its item, (M, C)
    resid = np.nan_to_num(d.cell_means() - item_means[:, item])
    facets = []
    for a in range(1, len(d.factors)):
        f = d.factors[a]
        if f in fixed or 0 in d.parents[a] or a == unit_factor:
            continue
        lev = d.codes[:, a]
        n_l = len(d.levels[a])
        infl = np.stack([np.bincount(lev, weights=row, minlength=n_l) for row in v * resid]) / n_i
        shares = np.bincount(lev, weights=v.mean(axis=0), minlength=n_l) / n_i
        facets.append((f, d.levels[a], infl, shares, lev))
    return theta, unit_codes, unit_name, infl_u, shares_u, facets


def _plural(name: str) -> str:
    return name if name.endswith("s") else name + "s"


#: a random facet with few levels in some task (said as a warning where the interval is shown)
FEW_LEVELS_NOTE = NoteKind("estimation.few-facet-levels", "caveat",
                           "{k} {levels}: the interval for new {levels} rests on {df} degree{s} of freedom (fewer"
                           " than {few} levels of a random facet), so it is wide and only approximate; more {levels}"
                           " firm it up, and `{arg:fixed}` conditions on these {k} instead")


def few_levels_notes(pieces) -> list[str]:
    """Warnings in words for random facets with fewer than :data:`FEW_LEVELS` levels in some task: ``'3 prompts:
    the interval for new prompts rests on 2 degrees of freedom ...'`` (``pieces`` of :func:`crossed_pieces`)."""
    fewest = {}
    for p in pieces:
        for f, lv, *_ in p[5]:
            fewest[f] = min(fewest.get(f, len(lv)), len(lv))
    out = []
    for f, k in fewest.items():
        if k < FEW_LEVELS:
            out.append(FEW_LEVELS_NOTE(k=k, levels=_plural(f), df=k - 1, s="s" if k != 2 else "",
                                       few=FEW_LEVELS))
    return out


def facet_family(facet: str, levels) -> str:
    """The family of a facet's levels in one task: the facet's name and its sorted level labels."""
    return "\x00".join([facet, *sorted(map(str, levels))])
