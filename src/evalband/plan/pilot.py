"""Plan from pilot data: estimate the variance components of a two-model comparison from a results table.

From item-level results of two models (pooled over the table's tasks, paired on common items) this estimates
the per-item variances and correlation, the variance of the per-item difference, the output (trial-to-trial)
noise when items have repeated trials, and the clustering of the differences (one-way ANOVA intra-cluster
correlation, cluster sizes and their coefficient of variation). :func:`plan_from_pilot` feeds them to
:func:`~evalband.plan.planner.plan_comparison`. Summary-level tables (counts only) give the two accuracies; a
paired plan then needs a correlation from the user.

The variance decomposition of trials and the cluster statistics (CR1 standard error, ANOVA ICC, design
effect) come from :mod:`evalband.estimation`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import asdict, dataclass

import numpy as np

from .._validate import ArgumentError, InputError, check_names
from ..estimation.cluster import cluster_interval
from ..estimation.trials import trial_variance
from .planner import ComparisonPlan, plan_comparison
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["PilotEstimates", "estimate_pilot", "plan_from_pilot"]


@displayed


@dataclass(frozen=True, repr=False)
class PilotEstimates:
    """Variance components of ``model_a - model_b`` estimated from pilot data (fractions; unrounded).

    Attributes
    ----------
    model_a, model_b : str
    level : {'item', 'summary'}
    n : int
        Items compared (common items over all tasks; at summary level, the total test size).
    mean_a, mean_b, difference, se_difference : float
        Mean scores, their difference and its standard error (cluster-robust when clustered; unpaired at summary
        level).
    var_a, var_b, correlation : float
        Per-item variances of the trial-averaged scores and their correlation (nan at summary level).
    variance_difference : float
        Per-item variance of the difference on one trial (output noise of one trial included).
    trials : int
        Trials per item in the pilot (median).
    output_variance_a, output_variance_b : float
        Mean within-item variance of one trial (0 without repeated trials).
    n_clusters : int
    icc, cluster_size, cluster_cv : float
        Intra-cluster correlation of the trial-averaged differences (ANOVA estimator, negative values set to 0),
        mean cluster size and coefficient of variation of cluster sizes (nan without clusters).
    design_effect_observed : float
        Cluster-robust variance of the mean difference over its independent-items variance.
    notes : tuple of str
    """

    model_a: str
    model_b: str
    level: str
    n: int
    mean_a: float
    mean_b: float
    difference: float
    se_difference: float
    var_a: float
    var_b: float
    correlation: float
    variance_difference: float
    trials: int
    output_variance_a: float
    output_variance_b: float
    n_clusters: int
    icc: float
    cluster_size: float
    cluster_cv: float
    design_effect_observed: float
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return asdict(self)


def _pick_models(table, models):
    if models is None:
        table.require_models(2, "planning a comparison")
        chosen = list(table.models[:2])
        extra = len(table.models) > 2
    else:
        chosen = check_names(models, table.models, "models")
        if len(chosen) != 2:
            raise ArgumentError(words('`{arg:models}` must name exactly two models (A,B); got {chosen!r}.', chosen=chosen))
        extra = False
    return chosen, extra


def _cluster_stats(d: np.ndarray, codes: np.ndarray):
    """CR1 standard error, ANOVA ICC and design effect of the mean difference (from evalband.estimation)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = cluster_interval(d, codes)
    notes = [str(w.message) for w in caught]
    size = np.bincount(codes)
    size = size[size > 0].astype(float)
    return (float(est.se), float(est.extras["icc"]), float(est.extras["design_effect"]), size, notes)


NOTE_TABLE_HAS_MODELS_PLANNING = NoteKind(
    'plan.table-has-models-planning', 'info',
    'the table has {n_models} models; planning compares the first two ({value} vs {value2}); choose with '
    '--models A,B{py: ({arg:models=})}')
NOTE_ITEMS_THAT_NOT_BOTH = NoteKind('plan.items-that-not-both', 'excluded',
                                     '{left:,} items that not both models have were left out')
NOTE_ONE_MODEL_S_SCORES = NoteKind('plan.one-model-s-scores', 'caveat',
                                    "one model's scores do not vary; the correlation is set to 0")
NOTE_WEIGHTS_PLANNED_DIFFERENCE_WEIGHTED = NoteKind(
    'plan.weights-planned-difference-weighted', 'info',
    "weights: the planned difference is the weighted mean over tasks of the per-task mean differences; its "
    "variance sum_t w_t**2 s_t**2 / n_t is expressed per item (times the items compared), so planned sizes scale "
    "every task's items in proportion")
NOTE_ONE_TRIAL_PER_ITEM = NoteKind(
    'plan.one-trial-per-item', 'caveat',
    'one trial per item: output noise cannot be told apart from item variance; score a sample of items two or '
    'more times to plan the number of trials')
NOTE_OUTPUT_NOISE_EXPLAINS_ALL = NoteKind(
    'plan.output-noise-explains-all', 'info',
    "output noise explains all of the difference's variance; the item part is set to 0")
NOTE_TWO_MODELS_HAVE_DIFFERENT = NoteKind(
    'plan.two-models-have-different', 'info',
    'the two models have different test sizes ({value}, {value2}); the smaller is used')
NOTE_NO_ITEM_HAS_TWO = NoteKind('plan.no-item-has-two', 'caveat',
                                 'no item has two or more trials: output noise cannot be separated')
NOTE_TOO_FEW_CLUSTERS_ESTIMATE = NoteKind('plan.too-few-clusters-estimate', 'excluded',
                                           'too few clusters to estimate an ICC; clustering ignored')
NOTE_TASK_HAS_NO_ITEM = NoteKind('plan.task-has-no-item', 'excluded',
                                  "task '{task}' has no item shared by both models and is left out")
NOTE_ESTIMATED_ICC_DIFFERENCES_NEGATIVE = NoteKind(
    'plan.estimated-icc-differences-negative', 'info',
    'the estimated ICC of the differences is negative ({icc_raw:.3g}); planned with 0')


NOTE_PILOT_CORRELATION = NoteKind("plan.summary-correlation-assumed", "caveat",
                                  "summary counts cannot show the per-item correlation: {assumed}")


def estimate_pilot(table, *, models=None, correlation: float | None = None, weights=None) -> PilotEstimates:
    """Estimate the variance components of a two-model comparison from a :class:`~evalband.data.table.ResultsTable`.

    Parameters
    ----------
    table : ResultsTable
        Item level (paired on the items both models have, pooled over tasks) or summary level.
    models : sequence of two str, optional
        Models A and B (default: the first two, with a note when there are more).
    correlation : float, optional
        Summary level only: the per-item correlation to assume (counts cannot show it).
    weights : array_like, shape (n_tasks,), optional
        Normalized task weights (a :class:`~evalband.selection.Selection`'s ``weights``): the planned quantity is
        then the weighted mean over tasks of the per-task mean differences (item level).

    Notes
    -----
    With ``k`` trials per item, the variance of an item's mean difference is ``s2_item + (s2_A + s2_B) / k``
    (Miller 2024); ``s2_A``, ``s2_B`` are estimated by the mean within-item sample variance over items with at
    least two trials (:func:`evalband.estimation.trials.trial_variance`), and the one-trial variance of the
    difference is ``s2_item + s2_A + s2_B``. The ICC is the ANOVA estimator with ``n0 = (n - sum m_g^2 / n) /
    (G - 1)`` (Donner 1986) of :func:`evalband.estimation.cluster.cluster_interval`; clusters are taken within
    tasks.

    References
    ----------
    Donner, A. (1986). A review of inference procedures for the intraclass correlation coefficient in the
    one-way random effects model. International Statistical Review 54, 67-82.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import evalband as eb
    >>> from evalband.plan import estimate_pilot
    >>> rng = np.random.default_rng(0)
    >>> easy = rng.random(200) < 0.6
    >>> a = (easy | (rng.random(200) < 0.3)).astype(float)
    >>> b = (easy & (rng.random(200) < 0.9)).astype(float)
    >>> df = pd.DataFrame({"model": ["A"] * 200 + ["B"] * 200, "task": "qa",
    ...                    "item": np.tile(np.arange(200), 2), "score": np.r_[a, b]})
    >>> pilot = estimate_pilot(eb.read(df))
    >>> pilot.n, round(pilot.difference, 3), round(pilot.se_difference, 3)
    (200, 0.155, 0.026)
    >>> round(pilot.correlation, 3), round(pilot.variance_difference, 3)
    (0.722, 0.132)
    """
    chosen, extra = _pick_models(table, models)
    notes = []
    if extra:
        notes.append(NOTE_TABLE_HAS_MODELS_PLANNING(n_models=len(table.models), value=chosen[0], value2=chosen[1]))
    if table.level == "summary":
        counts = table.counts(models=chosen)
        correct, n = counts.correct.sum(axis=1), counts.n.sum(axis=1)
        pa, pb = correct / n
        nn = int(n.min())
        if n[0] != n[1]:
            notes.append(NOTE_TWO_MODELS_HAVE_DIFFERENT(value=int(n[0]), value2=int(n[1])))
        va, vb = pa * (1 - pa), pb * (1 - pb)
        rho = 0.0 if correlation is None else float(correlation)
        vd = va + vb - 2 * rho * math.sqrt(va * vb)
        notes.append(NOTE_PILOT_CORRELATION(
            assumed="assumed 0 (unpaired)" if correlation is None else f"assumed {rho:g} as given"))
        return PilotEstimates(chosen[0], chosen[1], "summary", nn, float(pa), float(pb), float(pa - pb),
                              float(math.sqrt(va / n[0] + vb / n[1])), float(va), float(vb),
                              math.nan if correlation is None else rho, float(vd), 1, 0.0, 0.0, 0, math.nan,
                              math.nan, math.nan, math.nan, tuple(notes + list(table.notes)))
    if correlation is not None:
        raise ArgumentError("`correlation` is estimated from item-level data; give it only for summary tables.")

    table.require_trial_rows("the pilot's output variance")
    a_parts, b_parts, k_parts, out_parts, cl_parts, w_parts = [], [], [], [], [], []
    offset = 0
    left = 0
    for j, task in enumerate(table.tasks):
        if weights is not None and weights[j] == 0:
            continue
        try:
            td = table.task_data(task, models=chosen)
        except InputError:
            notes.append(NOTE_TASK_HAS_NO_ITEM(task=task))
            continue
        left += sum(td.left_out.values())
        w_parts.append((1.0 if weights is None else float(weights[j]), td.n_items))
        a_parts.append(td.scores[0])
        b_parts.append(td.scores[1])
        k_parts.append(td.trials)
        if td.trial_scores is not None:
            out_parts.append(td.trial_scores)
        if td.clusters is not None:
            cl_parts.append(td.clusters + offset)
            offset += td.n_clusters
    if not a_parts:
        raise InputError("the two models share no item", source=table.source)
    a, b = np.concatenate(a_parts), np.concatenate(b_parts)
    k = np.concatenate(k_parts, axis=1).astype(float)  # (2, n)
    n = a.size
    if n < 3:
        raise InputError(f"only {n} common items: too few to estimate a variance", source=table.source)
    if left:
        notes.append(NOTE_ITEMS_THAT_NOT_BOTH(left=left))
    d = a - b
    va, vb = float(a.var(ddof=1)), float(b.var(ddof=1))
    rho = float(np.corrcoef(a, b)[0, 1]) if va > 0 and vb > 0 else 0.0
    if not (va > 0 and vb > 0):
        notes.append(NOTE_ONE_MODEL_S_SCORES())
    vd_obs = float(d.var(ddof=1))
    if weights is not None:
        vd_obs, d_w = _weighted_variance(d, w_parts)
        notes.append(NOTE_WEIGHTS_PLANNED_DIFFERENCE_WEIGHTED())

    # output (trial-to-trial) noise from repeated trials (evalband.estimation.trial_variance, per model)
    oa = ob = 0.0
    k_med = int(np.median(k))
    if out_parts:
        tv = trial_variance(np.concatenate(out_parts, axis=1))  # (2, n, kmax) -> per model
        if np.all(np.isnan(tv.var_within)):
            notes.append(NOTE_NO_ITEM_HAS_TWO())
        else:
            oa, ob = (float(max(v, 0.0)) if np.isfinite(v) else 0.0 for v in tv.var_within)
    else:
        notes.append(NOTE_ONE_TRIAL_PER_ITEM())
    noise_now = float(np.mean(oa / k[0] + ob / k[1]))
    item_part = vd_obs - noise_now
    if item_part < 0:
        notes.append(NOTE_OUTPUT_NOISE_EXPLAINS_ALL())
        item_part = 0.0
    vd1 = item_part + oa + ob

    # clustering of the differences (evalband.estimation.cluster_interval: CR1, ANOVA ICC, design effect)
    icc = m_bar = cv = deff_obs = math.nan
    G = 0
    se = math.sqrt(vd_obs / n)
    if cl_parts:
        codes = np.concatenate(cl_parts)
        se_cr, icc_raw, deff_obs, size, cl_notes = _cluster_stats(d, codes)
        notes.extend(cl_notes)
        G = int(size.size)
        m_bar = float(size.mean())
        cv = float(size.std() / m_bar)
        se = se_cr if G >= 2 else se
        if not math.isfinite(icc_raw):
            notes.append(NOTE_TOO_FEW_CLUSTERS_ESTIMATE())
        elif icc_raw < 0:
            notes.append(NOTE_ESTIMATED_ICC_DIFFERENCES_NEGATIVE(icc_raw=icc_raw))
            icc = 0.0
        else:
            icc = icc_raw
    mean_d = float(d.mean()) if weights is None else d_w
    if weights is not None and not cl_parts:
        se = math.sqrt(vd_obs / n)
    return PilotEstimates(chosen[0], chosen[1], "item", int(n), float(a.mean()), float(b.mean()), mean_d,
                          float(se), va, vb, rho, float(vd1), k_med, oa, ob, G, float(icc), m_bar, cv,
                          float(deff_obs), tuple(notes))


def _weighted_variance(d, parts) -> tuple[float, float]:
    """Per-item variance and mean of the weighted mean over tasks of per-task mean differences: ``n * sum_t
    w_t**2 s_t**2 / n_t`` (``n`` the items compared), and ``sum_t w_t dbar_t``; ``parts`` holds (w_t, n_t) in the
    order of ``d``."""
    w = np.array([p[0] for p in parts], dtype=np.float64)
    w = w / w.sum()
    sizes = np.array([p[1] for p in parts], dtype=np.int64)
    bounds = np.r_[0, np.cumsum(sizes)]
    var = np.array([d[bounds[t]:bounds[t + 1]].var(ddof=1) if sizes[t] > 1 else 0.0 for t in range(len(sizes))])
    means = np.array([d[bounds[t]:bounds[t + 1]].mean() for t in range(len(sizes))])
    return float(d.size * np.sum(w ** 2 * var / sizes)), float(np.sum(w * means))


def plan_from_pilot(data, *, effect: float, models=None, tasks=None, weights=None, group_weights=None,
                    correlation: float | None = None, trials: int | None = None, **options) -> ComparisonPlan:
    """Plan a comparison from pilot data: items (and trials) needed for ``effect``, and the MDE at the pilot's n.

    Parameters
    ----------
    data : Selection, ResultsTable, DataFrame or path
        Pilot results (anything :func:`evalband.select` accepts).
    effect : float
        Difference to detect (fraction).
    models : two model names, optional
    tasks, weights, group_weights : optional
        The selection (:func:`evalband.select`); with weights the plan is for the weighted mean over tasks.
    correlation : float, optional
        Summary-level tables only (see :func:`estimate_pilot`).
    trials : int, optional
        Trials per item to plan for; default the pilot's.
    **options
        Passed to :func:`~evalband.plan.planner.plan_comparison` (``power``, ``alpha``, ``alternative``,
        ``method``, ``n_comparisons``, ``multiplicity``, ``cost_ratio``, ``confidence_level``).

    Returns
    -------
    ComparisonPlan
        ``inputs`` holds every estimate (``sources`` marks them 'estimated'), ``n`` is the pilot's item count.

    Examples
    --------
    >>> import evalband as eb
    >>> plan = eb.plan_from_pilot(eb.load_example("mmlu-pro"), effect=0.03,
    ...                           models=["gemini-1.5-flash-002", "gemini-1.5-pro-002"])
    >>> plan.n_required > 0
    True
    """
    from ..selection import select

    sel = select(data, tasks=tasks, weights=weights, group_weights=group_weights)
    table = sel.table
    est = estimate_pilot(table, models=models, correlation=correlation, weights=sel.weights)
    if sel.notes:
        est = dataclasses.replace(est, notes=tuple(est.notes) + tuple(sel.notes))
    for bad in ("baseline", "variance_difference", "cluster_size", "icc", "output_variance", "n", "paired"):
        if bad in options:
            raise ArgumentError(f"`{bad}` is estimated from the pilot data; do not give it with a results file.")
    kw = dict(options)
    sources = {"variance_difference": "estimated", "n": "estimated"}
    if est.level == "summary":
        paired = correlation is not None
        kw.update(baseline=min(max(est.mean_b, 1e-9), 1 - 1e-9), paired=paired, score_kind="binary",
                  correlation=correlation)
        sources.update(baseline="estimated", correlation="given" if paired else "not used")
    else:
        kw.update(variance_difference=est.variance_difference, paired=True,
                  score_kind="binary" if table.score_kind == "binary" else "continuous")
        if est.output_variance_a + est.output_variance_b > 0:
            kw["output_variance"] = (est.output_variance_a + est.output_variance_b) / 2
            sources["output_variance"] = "estimated"
        if est.n_clusters >= 2 and math.isfinite(est.icc):
            # the ICC was measured on k-trial means; convert the within-cluster covariance to one trial
            v_now = est.variance_difference - (1 - 1 / max(est.trials, 1)) * (est.output_variance_a
                                                                              + est.output_variance_b)
            icc1 = est.icc * v_now / est.variance_difference if est.variance_difference > 0 else 0.0
            kw.update(cluster_size=est.cluster_size, icc=icc1, cluster_cv=est.cluster_cv)
            sources.update(cluster_size="estimated", icc="estimated", cluster_cv="estimated")
    k_plan = est.trials if trials is None else trials
    plan = plan_comparison(effect=effect, n=est.n, trials=k_plan, sources=sources,
                           notes=est.notes, **kw)
    inputs = dict(plan.inputs)
    inputs["pilot"] = {k: v for k, v in est.to_dict().items() if k != "notes"}
    return dataclasses.replace(plan, inputs=inputs)
