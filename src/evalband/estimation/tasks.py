"""Per-(model, task) estimates of a whole results table: :func:`estimate`."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pandas as pd

from .._validate import ArgumentError, ArgumentTypeError, InputError, check_confidence_level
from .confidence import ConfidenceInterval
from ._cells import cell_counts, concat_tasks, task_arrays
from .cluster import cluster_interval
from .mean import mean_interval
from .proportion import PROPORTION_METHODS, _ALIASES, proportion_interval
from .result import Estimate, TaskEstimates
from .trials import (NEGATIVE_NOTE, NO_K_NOTE, NOTE_CELL_S_MEASURED_VARIANCE, NOTE_CELL_S_UNBIASED_METHOD,
                     trial_interval)
from ..display.notes import NoteKind
from .._words import words

__all__ = ["estimate", "weighted_mean", "METHODS"]

#: Every method :func:`estimate` accepts (plus 'auto' and 'exact' for 'clopper-pearson').
METHODS = PROPORTION_METHODS + ("t", "normal", "cluster")


def _applicable(table, clustered: bool) -> tuple[str, ...]:
    """Methods that apply to this table."""
    if table.level == "summary":
        return PROPORTION_METHODS
    out = ()
    if table.binary_items:
        out += PROPORTION_METHODS
    out += ("t", "normal")
    if clustered:
        out += ("cluster",)
    return out


def _rows_per_item(table) -> str:
    """Why a proportion of items does not apply to 0/1 scores: the item has several rows (trials, facets)."""
    parts = []
    if table.has_trials:
        parts.append("repeated trials")
    if table.facets:
        parts.append(f"facet{'s' if len(table.facets) > 1 else ''} {', '.join(table.facets)}")
    return (f"each item has several rows ({' and '.join(parts)}), so its score is the mean of its rows, not a 0/1"
            " outcome, and a proportion interval of items does not apply")


NOTE_CLUSTERS_IGNORED_METHOD_ITEMS = NoteKind(
    'estimation.clusters-ignored-method-items', 'excluded',
    "clusters ignored by method '{key}': items are treated as independent, so the standard errors may be too small")


def _resolve(table, method, cluster, extra=()) -> tuple[str, bool, list[str]]:
    notes = []
    if cluster not in (None, True, False):
        raise ArgumentTypeError(words("`{arg:cluster}` must be None (use the table's clusters when it has them), True or False; got {cluster!r}.", cluster=cluster))
    if cluster is True and not (table.level == "item" and table.has_clusters):
        raise InputError("cluster-robust errors need a cluster column (item level; --cluster COL)",
                         source=table.source)
    has_clusters = table.level == "item" and table.has_clusters and cluster is not False
    if not isinstance(method, str):
        raise ArgumentTypeError(words('`{arg:method}` must be a string; got {method!r}.', method=method))
    key = method.strip().lower().replace("_", "-")
    key = _ALIASES.get(key, key)
    valid = ("auto", "crossed") + METHODS
    if key not in valid:
        raise ArgumentError(words('`{arg:method}` must be one of {value}; got {method!r}.', value=', '.join(map(repr, valid)), method=method))
    if key == "crossed":  # (with a random facet, estimate() took the crossed path before reaching here)
        raise ArgumentError(words("`{arg:method='crossed'}` generalizes over facet levels, but the table has no facet crossed with items; use method 'auto'."))
    if key == "auto":
        if has_clusters:
            key = "cluster"
        elif table.level == "summary" or (table.binary_items):
            key = "wilson"
        else:
            key = "t"
    applicable = tuple(extra) + _applicable(table, has_clusters)
    if key not in applicable:
        why = ("the table holds per-task summaries" if table.level == "summary"
               else "there is no cluster column (or cluster=False)" if key == "cluster"
               else _rows_per_item(table) if key in PROPORTION_METHODS and table.is_binary
               and (table.has_trials or table.facets)
               else f"scores are {table.score_kind}" + (" with repeated trials" if table.has_trials else "")
               if table.level == "item" else "")
        raise InputError(f"method '{key}' does not apply: {why}; applicable: {', '.join(applicable)}",
                         source=table.source)
    if cluster is True and key != "cluster":
        raise ArgumentError(words("`{arg:cluster=True}` asks for cluster-robust errors but `{arg:method}` is {method!r}; use {arg:method='cluster'} or 'auto'.", method=method))
    if has_clusters and key != "cluster":
        notes.append(NOTE_CLUSTERS_IGNORED_METHOD_ITEMS(key=key))
    return key, has_clusters, notes


NOTE_FACETS_NOT_GENERALIZED_OVER = NoteKind(
    'estimation.facets-not-generalized-over', 'caveat',
    "facets {value} not generalized over by method '{method}': the intervals condition on the levels used "
    "(method 'auto' or 'crossed' treats them as random)")


NOTE_FEW_CLUSTERS_TASKS = NoteKind(
    "estimation.few-clusters-tasks", "caveat", "few clusters: {n_few} of {n_tasks} task(s) have fewer than 30 (as"
    " few as {worst}); cluster-robust intervals are unreliable there{badly}")


def estimate(data, *, method: str = "auto", confidence_level=0.95, cluster: bool | None = None,
             tolerance: float = 0.1, models=None, tasks=None, weights=None, group_weights=None,
             fixed=None, ppi: str = "ppi++") -> TaskEstimates:
    """Estimate each model's score on each task, with standard errors and confidence intervals.

    Parameters
    ----------
    data : Selection, ResultsTable, DataFrame or path
        Anything :func:`evalband.select` accepts (as in ``compare``, ``rank`` and ``bootstrap``).
    method : str
        'auto' (default): cluster-robust 'cluster' when the table has clusters, 'wilson' for summary data and
        for 0/1 item scores with one trial, otherwise 't'. Proportion methods ('wilson', 'clopper-pearson' or
        'exact', 'jeffreys', 'agresti-coull', 'wald'; :func:`proportion_interval`) need summary counts or 0/1
        scores with one trial per item; 't' and 'normal' (:func:`mean_interval`) and 'cluster'
        (:func:`cluster_interval`) need item-level data and work for bounded and unbounded scores. With repeated
        trials, item scores are averaged over their trials first (:func:`trial_interval`). An inapplicable method
        is an error listing the applicable ones.
    confidence_level : float or str
        In (0, 1), e.g. 0.95 or '95%'; 'overlap' is 83.4% (for overlap displays only; see
        :func:`proportion_interval` for its caveat).
    cluster : bool or None
        None: use the table's cluster column when it has one; True: require it; False: ignore it.
    tolerance : float
        With trials, the tolerance of ``k_enough`` (:meth:`TrialVariance.k_enough`).
    models, tasks, weights, group_weights : optional
        The selection (:func:`evalband.select`). With weights, ``weighted`` holds each model's weighted mean over
        tasks (:func:`weighted_mean`).
    fixed : str, sequence of str, True or None
        Facets (prompt, judge, run, ...) to condition on. By default facet columns crossed with items are random:
        'auto' is then 'crossed' (:func:`evalband.facets.crossed_estimates`), whose standard errors add the
        variance of the facet levels to that of the items (or clusters), on Satterthwaite t references, so the
        intervals generalize to new prompts; ``fixed`` (or ``True`` for every facet) conditions on the levels
        used (the intervals above, over the item means).
    ppi : {'ppi++', 'classic', 'labelled', 'none'}
        Item-level results with human labels (the measure ``human``): the estimate targets the human-scale mean
        by prediction-powered inference and the result is a :class:`evalband.judges.PPIEstimates`
        (:func:`evalband.judges.ppi_estimate`: PPI++ by default, equal to ``ppi_py.ppi_mean_ci``; 'classic'
        lambda = 1; 'labelled' the labels alone, with the labelled-only interval beside every estimate). 'none'
        estimates the judge's scores at face value. Ignored without labels.

    Returns
    -------
    TaskEstimates
        Arrays (n_models, n_tasks) and each model's ``pooled`` estimate: at item level the micro average over
        all of the model's items in all tasks (each item weighs the same; not the mean of the task means) with
        the same method, clusters taken per task; at summary level the pooled proportion
        ``sum(correct) / sum(n)`` with the chosen proportion interval.

    Notes
    -----
    Each model is estimated on its own items: models need not share items here (paired comparisons use the common
    items; the table's notes count what they leave out). A model without any result for a task gets NaN in that
    cell and a note. The standard errors describe sampling of items from a population of similar items; the
    pooled standard error treats all items as one sample (ignoring that tasks are fixed strata it is somewhat
    conservative).

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640.
    Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial proportion. Statistical
    Science 16(2), 101-133.

    Examples
    --------
    >>> import evalband as eb
    >>> table = eb.load_example("vtab")
    >>> est = eb.estimate(table, models=["Exemplar"], tasks=["Caltech101"])
    >>> row = est.to_frame().iloc[0]
    >>> print(row["model"], row["task"], round(row["estimate"], 3), round(row["ci_low"], 3), round(row["ci_high"], 3), row["method"])
    Exemplar Caltech101 0.696 0.684 0.707 wilson
    """
    from ..selection import select

    sel = select(data, models=models, tasks=tasks, weights=weights, group_weights=group_weights)
    table = sel.table
    level = check_confidence_level(confidence_level)
    from ..selection.judgements import uses_ppi

    if uses_ppi(table, ppi):  # the one rule for human labels (evalband.resample.ppi)
        from .ppi_table import estimate_human_scale

        return estimate_human_scale(sel, ppi=ppi, method=method, confidence_level=level, cluster=cluster)
    facet_notes = []
    random = ()
    if table.level == "item" and (table.facets or fixed is not None):
        from ..selection.facet_design import check_fixed, random_facets

        fixed = check_fixed(table, fixed)
        wanted = str(method).strip().lower()
        random = random_facets(sel, fixed) if table.facets else ()
        if wanted in ("auto", "crossed") and random:
            return _weighted(_crossed(sel, fixed, level, cluster), sel)
        if wanted == "crossed":
            raise ArgumentError("`method='crossed'` generalizes over facet levels, but no facet is random here"
                                + (f" (fixed: {', '.join(fixed)})" if fixed else " (the table has no facet crossed"
                                   " with items)") + "; use method 'auto'.")
        if random:
            facet_notes.append(NOTE_FACETS_NOT_GENERALIZED_OVER(value=', '.join(random), method=method))
    key, clustered, notes = _resolve(table, method, cluster,
                                     extra=("crossed",) if table.level == "item" and table.facets and random
                                     else ())
    notes = notes + facet_notes
    notes = list(sel.all_notes) + notes
    models, tasks = tuple(table.models), tuple(table.tasks)
    if table.level == "summary":
        return _weighted(_summary(table, key, level, notes), sel)
    counted = cell_counts(table) if key in PROPORTION_METHODS else None
    with warnings.catch_warnings():  # one summary warning below instead of one per task
        warnings.simplefilter("ignore", UserWarning)
        if counted is not None:  # 0/1 scores, one row per item: the counts are all a proportion interval needs
            n_cells, sums = counted
            cells = [_proportion_cells(sums[:, t], n_cells[:, t], key, level) for t in range(len(tasks))]
            pooled = _proportion_cells(sums.sum(axis=1), n_cells.sum(axis=1), key, level)
        else:  # one task's arrays at a time; the pooled estimate keeps only what it reads of each
            cells, parts = [], []
            for a in task_arrays(table):
                cells.append(_one(a, key, level, clustered, table.has_trials, tolerance))
                parts.append(a if table.has_trials else replace(a, trials=None, trial_scores=None, score_sums=None,
                                                                score_sumsqs=None))
                del a
            pooled = _one(concat_tasks(parts), key, level, clustered, table.has_trials, tolerance)
            del parts
    own = (NOTE_CELL_S_UNBIASED_METHOD.code, NOTE_CELL_S_MEASURED_VARIANCE.code)  # per-cell trial notes, merged
    few = [c for c in cells if any(getattr(n, "code", None) not in own for n in c.notes)]  # below into one each
    if few:
        worst = min(int(np.nanmin(c.extras["n_clusters"])) for c in few)
        message = NOTE_FEW_CLUSTERS_TASKS(n_few=len(few), n_tasks=len(cells), worst=worst,
                                          badly=" and can be badly off" if worst < 10 else "")
        notes.append(message)
        warnings.warn(message, UserWarning, stacklevel=2)
    pooled_notes = [n for n in pooled.notes if getattr(n, "code", None) not in own]
    notes += pooled_notes
    if pooled_notes:
        warnings.warn(pooled_notes[0], UserWarning, stacklevel=2)
    stack = lambda f: np.stack([np.asarray(f(c), dtype=np.float64) for c in cells], axis=1)
    est, se = stack(lambda c: c.estimate), stack(lambda c: c.se)
    ci = ConfidenceInterval(stack(lambda c: c.ci.low), stack(lambda c: c.ci.high))
    n = stack(lambda c: c.n).astype(np.int64)
    extras = {}
    if cells[0].df is not None:
        extras["df"] = stack(lambda c: c.df)
    for name in cells[0].extras:
        extras[name] = stack(lambda c, name=name: c.extras[name])
    if table.has_trials:
        notes += _trial_notes(extras, pooled.extras)
    if table.score_kind != "unbounded":
        ci, pooled, extras, clipped = _clip_to_range(ci, pooled, extras)
        notes += clipped
    se, ci, pooled, edge = _edges(est, se, ci, n, pooled, key, level, table.score_kind != "unbounded")
    notes += edge
    notes += _empty_cells(models, tasks, n)
    return _weighted(TaskEstimates(models, tasks, est, se, ci, n, key, level, extras, pooled, tuple(notes)), sel)


def _edges(est, se, ci, n, pooled, key, level, bounded):
    """No zero-width interval or standard error of 0 (:mod:`evalband.estimation.edges`), per cell and pooled."""
    from .edges import edge_intervals, edge_notes

    lo, hi, sd, a, g = edge_intervals(est, se, ci.low, ci.high, n, bounded=bounded, confidence_level=level)
    plo, phi, psd, pa, pg = edge_intervals(pooled.estimate, pooled.se, pooled.ci.low, pooled.ci.high, pooled.n,
                                           bounded=bounded, confidence_level=level)
    pooled = replace(pooled, se=psd, ci=ConfidenceInterval(plo, phi))
    notes = edge_notes(int(a.sum() + pa.sum()), int(g.sum() + pg.sum()), method=key)
    return sd, ConfidenceInterval(lo, hi), pooled, notes


def _weighted(result: TaskEstimates, sel) -> TaskEstimates:
    """The result with each model's weighted mean over tasks when the selection has task weights."""
    if sel.weights is None:
        return result
    w = weighted_mean(result.estimate, result.se, sel.weights, n=result.n, confidence_level=result.confidence_level)
    return replace(result, weighted=w, notes=result.notes + w.notes)


def weighted_mean(estimate, se, weights, *, n=None, confidence_level=0.95) -> Estimate:
    """Each model's weighted mean over tasks, with a normal interval from the per-task standard errors.

    Parameters
    ----------
    estimate, se : array_like, shape (M, T)
        Per-task estimates and their standard errors.
    weights : array_like, shape (T,)
        Task weights (normalized here to sum to one).
    n : array_like, shape (M, T), optional
        Units behind each cell (summed into the result's ``n``).
    confidence_level : float

    Returns
    -------
    Estimate
        Shape (M,): ``sum_t w_t x_t`` and ``sqrt(sum_t w_t**2 se_t**2)``, the interval ``estimate +/- z se``.

    Notes
    -----
    Tasks are separate test sets, so their estimates are independent and the variances add. A model lacking a
    task with positive weight gets NaN. The normal interval suits weighted means of many items; with few items
    per task prefer the bootstrap (``evalband.rank``), which also keeps the pairing between models.

    Examples
    --------
    >>> r = weighted_mean([[0.5, 0.7]], [[0.03, 0.04]], [1, 1])
    >>> float(r.estimate[0]), round(float(r.se[0]), 4)
    (0.6, 0.025)
    """
    from .._distributions import norm_ppf

    x = np.asarray(estimate, dtype=np.float64)
    s = np.asarray(se, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    level = check_confidence_level(confidence_level)
    use = w > 0
    est = np.where(np.isnan(x[:, use]).any(axis=1), np.nan, np.nansum(x * w, axis=1))
    sd = np.sqrt(np.nansum((w * s) ** 2, axis=1))
    sd = np.where(np.isnan(est), np.nan, sd)
    z = norm_ppf(0.5 + level / 2)
    count = np.zeros(x.shape[0], dtype=np.int64) if n is None else np.asarray(n)[:, use].sum(axis=1)
    note = ("'(weighted)' rows: each model's weighted mean over tasks with the weights given, standard error"
            " sqrt(sum w**2 se**2) (tasks are independent test sets), normal interval")
    return Estimate(est, sd, ConfidenceInterval(est - z * sd, est + z * sd), count, "weighted normal", level,
                    notes=(note,))


NOTE_METHOD_CROSSED_ITEMS_LEVELS = NoteKind(
    'estimation.method-crossed-items-levels', 'info',
    "method crossed: items{value} and levels of {value2} are both samples; '(pooled)' rows: every item of the "
    "model in every task, the same levels shared across tasks; share_facets is the part of the squared SE from "
    "the facet levels")


def _crossed(sel, fixed, level, cluster) -> TaskEstimates:
    """Facets random: per-(model, task) means with standard errors over items and facet levels."""
    from .crossed import FEW_LEVELS_NOTE, crossed_estimates

    table = sel.table
    r = crossed_estimates(sel, fixed=fixed, cluster=cluster, confidence_level=level)
    for note in r.notes:  # a random facet with few levels: said in words, where the interval is shown
        if getattr(note, "code", None) == FEW_LEVELS_NOTE.code:
            warnings.warn(note, UserWarning, stacklevel=3)
    extras = {"df": r.df, "n_units": r.n_units, "share_facets": r.share_facets}
    pooled = Estimate(r.pooled_estimate, r.pooled_se, r.pooled_ci, r.n_items.sum(axis=1), "crossed", level,
                      df=r.pooled_df)
    notes = list(sel.all_notes) + [n for n in r.notes if n not in sel.all_notes]
    notes.append(NOTE_METHOD_CROSSED_ITEMS_LEVELS(value=' (clusters)' if r.unit == 'cluster' else '', value2=', '.join(r.facets)))
    ci, pooled, extras, clipped = (_clip_to_range(r.ci, pooled, extras) if table.score_kind != "unbounded"
                                   else (r.ci, pooled, extras, []))
    notes += clipped
    se, ci, pooled, edge = _edges(r.estimate, r.se, ci, r.n_items, pooled, "crossed", level,
                                  table.score_kind != "unbounded")
    notes += edge
    return TaskEstimates(r.models, r.tasks, r.estimate, se, ci, r.n_items, "crossed", level, extras, pooled,
                         tuple(dict.fromkeys(notes)))


#: the trial notes of the rows of a table (the per-cell ones are estimation.trials')
NOTE_NEGATIVE_ROWS = NoteKind("estimation.negative-between-variance-rows", "caveat", NEGATIVE_NOTE + " in {negative}"
                              " row(s) (the unbiased method-of-moments estimate can be negative when items barely"
                              " differ relative to the output noise): var_between is shown as 0, the unbiased value is"
                              " in var_between_raw")
NOTE_NO_K_ROWS = NoteKind("estimation.no-k-enough-rows", "caveat", NO_K_NOTE + " in {no_k} row(s): there the measured"
                          " variance is all output noise, so no number of trials is enough by the tolerance rule; each"
                          " more trial helps about as much as another item")


def _trial_notes(extras: dict, pooled: dict) -> list[str]:
    """One note each for negative between-item variances (shown as 0) and undefined ``k_enough``, over the
    model-task cells and the pooled rows."""
    raw = np.concatenate([np.ravel(extras["var_between_raw"]), np.ravel(pooled["var_between_raw"])])
    within = np.concatenate([np.ravel(extras["var_within"]), np.ravel(pooled["var_within"])])
    out = []
    negative = int(np.sum(raw < 0))
    if negative:
        out.append(NOTE_NEGATIVE_ROWS(negative=negative))
    no_k = int(np.sum((raw <= 0) & (within > 0)))
    if no_k:
        out.append(NOTE_NO_K_ROWS(no_k=no_k))
    return out


NOTE_CLIPPED_TO_RANGE = NoteKind(
    "estimation.clipped-to-range", "caveat", "{out} interval(s) reached past the score range [0, 1] and are shown"
    " clipped to it (the {method} interval is symmetric around the mean; the unclipped ends are in ci_low_raw and"
    " ci_high_raw); near 0 or 1 such intervals are unreliable")


def _clip_to_range(ci, pooled, extras):
    """Scores in [0, 1]: t, normal and cluster intervals are symmetric and can reach past 0 or 1; show them
    clipped to the score range, keep the unclipped ends as ``ci_low_raw`` / ``ci_high_raw``, and say so."""
    low, high = np.asarray(ci.low, dtype=np.float64), np.asarray(ci.high, dtype=np.float64)
    p_low, p_high = np.asarray(pooled.ci.low, dtype=np.float64), np.asarray(pooled.ci.high, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = int(np.sum((low < 0) | (high > 1)) + np.sum((p_low < 0) | (p_high > 1)))
    if not out:
        return ci, pooled, extras, []
    extras = {**extras, "ci_low_raw": low, "ci_high_raw": high}
    ci = ConfidenceInterval(np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0))
    pooled = replace(pooled, ci=ConfidenceInterval(np.clip(p_low, 0.0, 1.0), np.clip(p_high, 0.0, 1.0)),
                     extras={**pooled.extras, "ci_low_raw": p_low, "ci_high_raw": p_high})
    note = NOTE_CLIPPED_TO_RANGE(out=out, method=pooled.method)
    return ci, pooled, extras, [note]


def _one(arr, key: str, level: float, clustered: bool, has_trials: bool, tolerance: float) -> Estimate:
    if key in PROPORTION_METHODS:
        scores = arr.scores
        n = np.sum(~np.isnan(scores), axis=1)
        correct = np.nansum(scores, axis=1)
        return _proportion_cells(correct, n, key, level)
    if has_trials:
        sums = None if arr.score_sums is None else (arr.trials, arr.score_sums, arr.score_sumsqs)
        return trial_interval(None if sums else arr.trial_scores, method=key, confidence_level=level,
                              clusters=arr.clusters if key == "cluster" else None, tolerance=tolerance, sums=sums)
    if key == "cluster":
        return cluster_interval(arr.scores, arr.clusters, confidence_level=level)
    return mean_interval(arr.scores, method=key, confidence_level=level)


def _proportion_cells(correct, n, key: str, level: float) -> Estimate:
    """Proportion intervals where n > 0, NaN elsewhere."""
    correct = np.asarray(correct, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    ok = n > 0
    res = proportion_interval(np.where(ok, correct, 0.0), np.where(ok, n, 1.0), method=key, confidence_level=level)
    nan = lambda x: np.where(ok, x, np.nan)
    return Estimate(nan(res.estimate), nan(res.se), ConfidenceInterval(nan(res.ci.low), nan(res.ci.high)),
                    n.astype(np.int64), key, level)


def _summary(table, key: str, level: float, notes: list) -> TaskEstimates:
    models, tasks = tuple(table.models), tuple(table.tasks)
    d = table.data
    idx = pd.MultiIndex.from_product([models, tasks], names=["model", "task"])
    g = d.assign(model=d["model"].astype(str), task=d["task"].astype(str)).set_index(["model", "task"])
    g = g[["correct", "n"]].reindex(idx)
    shape = (len(models), len(tasks))
    correct = g["correct"].to_numpy(np.float64).reshape(shape)
    n = np.nan_to_num(g["n"].to_numpy(np.float64), nan=0.0).reshape(shape)
    cells = _proportion_cells(np.nan_to_num(correct), n, key, level)
    pooled = _proportion_cells(np.nansum(correct, axis=1), n.sum(axis=1), key, level)
    se, ci, pooled, edge = _edges(cells.estimate, cells.se, cells.ci, cells.n, pooled, key, level, True)
    notes = notes + edge + _empty_cells(models, tasks, n)
    return TaskEstimates(models, tasks, cells.estimate, se, ci, cells.n, key, level, {}, pooled, tuple(notes))


NOTE_EMPTY_CELLS = NoteKind("estimation.empty-cells", "excluded",
                            "{n_empty} model-task cell(s) have no result and are left empty (NaN): {shown}")


def _empty_cells(models, tasks, n) -> list[str]:
    empty = np.argwhere(np.asarray(n) == 0)
    if not len(empty):
        return []
    shown = ", ".join(f"{models[i]} on {tasks[j]}" for i, j in empty[:5]) + (" ..." if len(empty) > 5 else "")
    return [NOTE_EMPTY_CELLS(n_empty=len(empty), shown=shown)]
