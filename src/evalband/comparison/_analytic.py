"""The analytic paired standard errors and item correlations that comparisons report beside the bootstrap
(Miller 2024): per task and pair from the item scores, and for aggregates that are weighted means."""

from __future__ import annotations

import numpy as np

from .paired import pair_moments, paired_difference
from .pairs import pair_position

__all__ = ["task_variances", "pooled_item_correlation", "analytic", "PAIR_ROWS"]


#: pairs x items above which the per-task variances come from the models' covariance matrices
#: (:func:`evalband.comparison.paired.pair_moments`) rather than one row of differences per pair
PAIR_ROWS = 1 << 22


def task_variances(table, reps, paired):
    """Per task and unordered pair (i < j): variances of the two means and of their difference (item data)."""
    if table is None or table.level != "item":
        return None
    m = len(reps.models)
    i, j = np.triu_indices(m, k=1)
    out = []
    for task in reps.tasks:
        td = table.task_data(task, models=list(reps.models))
        clusters = td.clusters if reps.unit == "cluster" else None
        if td.n_items < 2:
            out.append(None)
            continue
        if i.size * td.n_items > PAIR_ROWS:  # many pairs: from the covariance matrices (no row per pair)
            pd_ = pair_moments(td.scores, i, j, clusters=clusters)
        else:
            pd_ = paired_difference(td.scores[i], td.scores[j], clusters=clusters)
        var_d = pd_.se ** 2 if paired else pd_.se_a ** 2 + pd_.se_b ** 2
        out.append(dict(va=pd_.se_a ** 2, vb=pd_.se_b ** 2, vd=var_d, corr=pd_.correlation, scores=td.scores,
                        clusters=clusters, index=(i, j), ss_a=(td.n_items - 1) * pd_.var_a,
                        ss_b=(td.n_items - 1) * pd_.var_b, sp=(td.n_items - 1) * pd_.cov))
    return out


def pooled_item_correlation(per_task_var, m):
    """``f(ia, ib)``: correlation of the two models' per-item scores, pooled within tasks (item-level data).

    ``sum_t (n_t - 1) cov_t / sqrt(sum_t (n_t - 1) var_a,t * sum_t (n_t - 1) var_b,t)``: the Pearson correlation of
    the scores after subtracting each task's mean, so that differences in task difficulty do not count as
    agreement between the models. Tasks with fewer than 2 items are left out.
    """
    parts = [v for v in per_task_var if v is not None]
    if not parts:
        return None
    ss_a = np.sum([v["ss_a"] for v in parts], axis=0)
    ss_b = np.sum([v["ss_b"] for v in parts], axis=0)
    sp = np.sum([v["sp"] for v in parts], axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.where((ss_a > 0) & (ss_b > 0), sp / np.sqrt(ss_a * ss_b), np.nan)

    def corr_fn(ia, ib):
        pos, _ = pair_position(ia, ib, m)
        return corr[pos]

    return corr_fn


def analytic(weights, reps, per_task_var, assumed):
    """Functions (ia, ib) -> analytic SE and correlation of an aggregate difference (None when not linear)."""
    if weights is None:
        return None, None
    m = len(reps.models)
    if per_task_var is not None:
        if any(v is None for v in per_task_var):
            return None, None

        def parts(ia, ib):
            pos, flip = pair_position(ia, ib, m)
            va = np.stack([np.where(flip, v["vb"][pos], v["va"][pos]) for v in per_task_var], axis=-1)
            vb = np.stack([np.where(flip, v["va"][pos], v["vb"][pos]) for v in per_task_var], axis=-1)
            vd = np.stack([v["vd"][pos] for v in per_task_var], axis=-1)
            cov = (va + vb - vd) / 2
            return va, vb, cov
    elif assumed is not None:
        p = np.asarray(reps.observed, dtype=np.float64)
        n = np.asarray(reps.n_units, dtype=np.float64)
        var = p * (1 - p) / n

        def parts(ia, ib):
            va, vb = var[ia], var[ib]
            return va, vb, assumed * np.sqrt(va * vb)
    else:
        return None, None

    def agg_vars(ia, ib):
        va, vb, cov = parts(ia, ib)
        wa, wb = weights[ia], weights[ib]
        var_a = (wa ** 2 * va).sum(-1)
        var_b = (wb ** 2 * vb).sum(-1)
        c = (wa * wb * cov).sum(-1)
        return var_a, var_b, c

    def se_fn(ia, ib):
        var_a, var_b, c = agg_vars(ia, ib)
        se = np.sqrt(np.maximum(var_a + var_b - 2 * c, 0.0))
        return np.where(se > 0, se, np.nan)  # 0 says only that the items agree: no standard error is shown

    def corr_fn(ia, ib):
        var_a, var_b, c = agg_vars(ia, ib)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where((var_a > 0) & (var_b > 0), c / np.sqrt(var_a * var_b), np.nan)

    return se_fn, corr_fn
