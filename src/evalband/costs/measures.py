"""Mean cost per item with an interval, per model, and paired cost differences and ratios between models.

Costs come from a results table whose measure column ('cost', or 'latency' used as a cost) holds one value per
row, or from a per-model summary (mean cost with its SE, or SD and n). Intervals are bootstrap BCa by default
(costs are skewed), from the same item draws as quality (:func:`~evalband.costs.joint.joint_bootstrap`); a t
interval is available on request. Differences and ratios between models (paired by item) are in
:mod:`evalband.costs.differences`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import ArgumentError, ArgumentTypeError, InputError, check_choice, check_confidence_level
from ..resample import interval
from ..resample.floors import withhold_degenerate
from ..estimation.confidence import ConfidenceInterval
from ..display.reprs import titled_repr
from ._items import check_measure, missing_note, results_selection, task_measures
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["COST_METHODS", "CostEstimates", "cost_from_summary", "costs_from_replicates", "mean_cost"]

#: interval methods for a mean cost from item-level data
COST_METHODS = ("bca", "percentile", "basic", "t")
_BOOTSTRAP = ("bca", "percentile", "basic")


@displayed


@dataclass(frozen=True, repr=False)
class CostEstimates:
    """Mean cost per item of each model, with its interval.

    Attributes
    ----------
    measure : str
        The measure column ('cost', or 'latency' used as a cost), or 'cost' for a summary.
    models : tuple of str
    estimate, se : numpy.ndarray, shape (M,)
        Mean per measured item (pooled over tasks, each item once) and its standard error (bootstrap SD, or
        analytic for 't' and summaries).
    ci : ConfidenceInterval
    n_items : numpy.ndarray, shape (M,)
        Items with a measured value (the summary's n; NaN when a summary gives none).
    missing_items : numpy.ndarray of int, shape (M,)
    method : {'bca', 'percentile', 'basic', 't', 'normal', 'known'}
        'normal' and 'known' come from summaries with an SE only, or with neither SE nor SD (the cost is then
        taken as exact).
    confidence_level : float
    paired : bool
        Whether the models' costs are paired by item (item-level data), so differences keep their correlation.
    notes : tuple of str
    samples : numpy.ndarray or None, shape (B, M)
        Bootstrap replicates (bootstrap methods), from the same item draws as quality.
    jackknife, jackknife_strata : numpy.ndarray or None
        Delete-one values (n_jack, M) and their task, for BCa.
    cov : numpy.ndarray or None, shape (M, M)
        Analytic covariance of the means ('t': linearized and paired by item; summaries: diagonal).
    df : numpy.ndarray or None, shape (M,)
        Degrees of freedom of the analytic intervals (inf for 'normal' and 'known').
    """

    measure: str
    models: tuple
    estimate: np.ndarray
    se: np.ndarray
    ci: ConfidenceInterval
    n_items: np.ndarray
    missing_items: np.ndarray
    method: str
    confidence_level: float
    paired: bool
    notes: tuple = ()
    samples: np.ndarray | None = None
    jackknife: np.ndarray | None = None
    jackknife_strata: np.ndarray | None = None
    cov: np.ndarray | None = None
    df: np.ndarray | None = None

    @property
    def bootstrap(self) -> bool:
        return self.method in _BOOTSTRAP

    def index(self, model: str) -> int:
        if model not in self.models:
            raise ArgumentError(words('`{arg:models}`: unknown {model!r}; the costs have {value}.', model=model, value=', '.join(map(repr, self.models))))
        return self.models.index(model)

    def to_frame(self) -> pd.DataFrame:
        """One row per model: cost, cost_se, cost_ci_low, cost_ci_high, n_items, missing_items, method."""
        return pd.DataFrame({
            "model": list(self.models), "cost": self.estimate, "cost_se": self.se,
            "cost_ci_low": np.asarray(self.ci.low, dtype=float), "cost_ci_high": np.asarray(self.ci.high, dtype=float),
            "n_items": self.n_items, "missing_items": self.missing_items, "method": self.method,
            "confidence_level": self.confidence_level,
        })

    def __repr__(self) -> str:
        return titled_repr(f"CostEstimates: mean {self.measure} per item of {len(self.models)} models,"
                          f" {self.method} {self.confidence_level:.4g} intervals"
                          f"{', paired by item' if self.paired else ''}", frame=self.to_frame(),
                           columns=["model", "cost", "cost_ci_low", "cost_ci_high", "n_items"])


# ---------------------------------------------------------------------------------------------- building
NOTE_SOME_REPLICATES_DREW_NO = NoteKind(
    'costs.some-replicates-drew-no', 'info',
    '{measure}: some replicates drew no measured item for a model; their intervals are undefined (NaN)')


def costs_from_replicates(joint, *, method: str = "bca", confidence_level=0.95) -> CostEstimates:
    """:class:`CostEstimates` from a :class:`~evalband.costs.joint.JointReplicates` (bootstrap methods).

    'bca' uses the engine's stratified delete-one jackknife of the pooled mean (delete-one-cluster with clusters)
    for the acceleration, as :func:`scipy.stats.bootstrap` does for several samples.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.costs import joint_from_arrays
    >>> costs = {"t": np.array([[1.0, 2.0, 4.0, 8.0] * 5, [0.5, 1.0, 2.0, 4.0] * 5])}
    >>> joint = joint_from_arrays(["A", "B"], {"t": np.ones((2, 20))}, costs, n_resamples=500, rng=0)
    >>> costs_from_replicates(joint, method="percentile").estimate
    array([3.75 , 1.875])
    """
    method = check_choice(method, _BOOTSTRAP, "method")
    level = check_confidence_level(confidence_level)
    obs, s = joint.cost_observed, joint.cost_samples
    jack = strata = None
    if method == "bca":
        _, jack, strata = joint.jackknife()
        if jack is None:
            raise ArgumentError(words("`{arg:method='bca'}` needs the engine's jackknife, which these replicates lack; use {arg:method='percentile'}."))
    ci = interval(s, obs, method=method, confidence_level=level, jackknife=jack, jackknife_strata=strata)
    items = joint.observed_items.sum(-1)
    notes = list(joint.notes)
    if np.isnan(s).any():
        notes.append(NOTE_SOME_REPLICATES_DREW_NO(measure=joint.measure))
    w = withhold_degenerate(ci.low, ci.high, _nan_sd(s), joint.models, what=f"the mean {joint.measure} per item")
    notes += w.notes
    return CostEstimates(joint.measure, tuple(joint.models), obs, w.se, w.ci, items.astype(np.float64),
                         joint.missing_items, method, level, True, tuple(notes), s, jack, strata)


def _nan_sd(s):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nanstd(s, axis=0, ddof=1) if s.shape[0] > 1 else np.full(s.shape[1], np.nan)


def _linearized(table, measure, use_clusters):
    """Means (M,), their covariance (M, M) paired by item, df, items measured and missing, per-model notes.

    Each model's mean over its measured items is a ratio estimator; its influence on item i of its task is
    ``p_i (c_i - mean) / N`` (``p_i`` = measured, N = items measured). Unit (item or cluster) sums of the
    influences, centred within each task, give the stratified covariance
    ``sum_t K_t / (K_t - 1) sum_u (U_u - mean_t U)(U_u - mean_t U)^T``; with one task and every item measured
    this is ``s^2 / n``, the t interval's standard error, and for a difference the paired t test's.
    """
    per_task = task_measures(table, measure, use_clusters=use_clusters)
    m = len(table.models)
    total = sum((tm.values * tm.present).sum(axis=1) for tm in per_task)
    items = sum(tm.present.sum(axis=1) for tm in per_task)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / items
    cov = np.zeros((m, m))
    units = 0
    for tm in per_task:
        infl = tm.present * (tm.values - mean[:, None]) / np.where(items > 0, items, 1)[:, None]
        if tm.clusters is not None:
            g = int(tm.clusters.max()) + 1
            u = np.zeros((m, g))
            np.add.at(u.T, tm.clusters, infl.T)
        else:
            u = infl
        k = u.shape[1]
        if k < 2:
            raise InputError(f"task '{tm.task}' has a single {'cluster' if tm.clusters is not None else 'item'}:"
                             " a t interval needs at least two", source=table.source)
        uc = u - u.mean(axis=1, keepdims=True)
        cov += k / (k - 1) * (uc @ uc.T)
        units += k
    df = float(units - len(per_task))
    missing = np.sum([(~tm.present).sum(axis=1) for tm in per_task], axis=0).astype(np.int64)
    n_all = np.full(m, sum(tm.present.shape[1] for tm in per_task))
    rows = np.sum([tm.missing_rows for tm in per_task], axis=0)
    return mean, cov, df, items.astype(np.float64), missing, missing_note(measure, table.models, missing, n_all, rows)


def mean_cost(data, *, cost: str = "cost", method: str = "bca", confidence_level=0.95, n_resamples: int = 2000,
              models=None, tasks=None, cluster=None, replicates=None, rng=None) -> CostEstimates:
    """Mean cost per item of each model, with a confidence interval.

    Parameters
    ----------
    data : Selection, ResultsTable, path or DataFrame
        Anything :func:`evalband.select` accepts: item-level results with a measure column (blank = not
        measured, counted in ``notes``).
    cost : str
        The measure column: 'cost' (dollars, tokens, ...) or 'latency'.
    method : {'bca', 'percentile', 'basic', 't'}
        'bca' (default): bias-corrected and accelerated bootstrap, suited to skewed costs. 't': mean +- t SE with
        the linearized stratified (and cluster-robust, with clusters) standard error, no resampling.
    confidence_level : float or str
    n_resamples : int
        Bootstrap replicates (bootstrap methods).
    models, tasks : sequence of str, optional
    cluster : bool or None
        Resample (or, for 't', sum influences over) whole clusters when the data have them.
    replicates : JointReplicates, optional
        Replicates already drawn (by :func:`~evalband.costs.joint.joint_bootstrap`), so that costs come from the
        same draws as quality.
    rng : None, int, Generator, ...
        Turned into one Generator.

    Returns
    -------
    CostEstimates

    Notes
    -----
    The mean pools every measured item of every task, each item once (an item with several rows, such as trials,
    contributes the mean over its rows). Items are resampled within tasks, whole clusters when present. The t
    interval assumes the mean is near normal; with skewed costs and few items it is too short on the right,
    which BCa corrects (Efron 1987; with one task and every item measured 't' is ``scipy.stats.t.interval``
    with ``n - 1`` degrees of freedom and ``scale = sem``).

    References
    ----------
    Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.
    Cochran, W. G. (1977). Sampling Techniques, 3rd ed., section 6.4 (ratio estimators). Wiley.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(model=m, task="t", item=i, score=1.0, cost=(1 + k) * (1 + i % 4))
    ...         for k, m in enumerate(["A", "B"]) for i in range(20)]
    >>> est = mean_cost(pd.DataFrame(rows), method="t")
    >>> est.estimate
    array([2.5, 5. ])
    >>> est.to_frame()[["model", "cost", "n_items"]]
      model  cost  n_items
    0     A   2.5     20.0
    1     B   5.0     20.0
    """
    from .joint import joint_bootstrap

    method = check_choice(method, COST_METHODS, "method")
    level = check_confidence_level(confidence_level)
    if method in _BOOTSTRAP:
        if replicates is None:
            replicates = joint_bootstrap(data, cost=cost, n_resamples=n_resamples, rng=rng, models=models,
                                         tasks=tasks, cluster=cluster)
        return costs_from_replicates(replicates, method=method, confidence_level=level)
    sel = results_selection(data, models=models, tasks=tasks)
    table = sel.table
    check_measure(table, cost, "cost")
    use_clusters = table.has_clusters and cluster is not False
    mean, cov, df, items, missing, notes = _linearized(table, cost, use_clusters)
    se = np.sqrt(np.diag(cov))
    half = stats.t.ppf(0.5 + level / 2, df) * se
    notes = list(sel.all_notes) + notes + [f"{cost}: t intervals with {df:g} degrees of freedom"
                                         + (" (clusters as units)" if use_clusters else "")]
    return CostEstimates(cost, tuple(table.models), mean, se, ConfidenceInterval(mean - half, mean + half), items,
                         missing, "t", level, True, tuple(notes), cov=cov, df=np.full(len(mean), df))


NOTE_COSTS_FROM_PER_MODEL = NoteKind(
    'costs.costs-from-per-model', 'caveat',
    "costs from a per-model summary: not paired by item, so differences are Welch's (independent)")
NOTE_COSTS_PER_RESPONSE_SUMMARIZED = NoteKind(
    'costs.costs-per-response-summarized', 'info',
    'costs per response summarized per model (mean, SD and n of its responses; each (model, item) once)')
NOTE_COSTS_GIVEN_WITHOUT_SE = NoteKind('costs.costs-given-without-se', 'info',
                                        'costs given without SE or SD are taken as exact (no sampling uncertainty)')


def cost_from_summary(frame, *, model: str = "model", cost: str = "cost", se: str = "se", sd: str = "sd",
                      n: str = "n", confidence_level=0.95, models=None) -> CostEstimates:
    """Per-model mean costs from a summary: one row per model with the mean cost and its SE, or SD and n.

    Parameters
    ----------
    frame : CostTable, Selection, pandas.DataFrame or path
        A cost table (``evalband.read(path, source='costs')``) or anything :func:`evalband.select` reads with
        ``source='costs'``: columns ``model`` and ``cost`` (mean per item), and any of ``se``, ``sd``, ``n``. A
        table of per-response costs (``model, item, cost``) is summarized per model (mean, SD and n of its
        responses).
    model, cost, se, sd, n : str
        Column names (when ``frame`` is read here).
    confidence_level : float or str
    models : sequence of str, optional

    Returns
    -------
    CostEstimates
        ``method`` 't' (df = n - 1) when n is given, 'normal' with an SE alone, 'known' when neither an SE nor an
        SD is given (the cost is then taken as exact, e.g. a price list; said in ``notes``). Models are not
        paired: differences are Welch's.

    Examples
    --------
    >>> import pandas as pd
    >>> est = cost_from_summary(pd.DataFrame({"model": ["A", "B"], "cost": [0.02, 0.01], "sd": [0.01, 0.004],
    ...                                       "n": [100, 100]}))
    >>> est.se
    array([0.001 , 0.0004])
    """
    from ..selection import select
    from ..data.costs import CostTable

    level = check_confidence_level(confidence_level)
    options = {}
    if not isinstance(frame, CostTable) and type(frame).__name__ != "Selection":
        options = dict(source="costs", model_col=model, cost_col=cost, se_col=se, sd_col=sd, n_col=n)
    sel = select(frame, models=models, **options)
    table = sel.table
    if not isinstance(table, CostTable):
        raise ArgumentTypeError(words("per-model costs must be a cost table ({arg:source='costs'}); got {name}.", name=type(table).__name__))
    notes = list(table.notes)
    if table.shape == "responses":
        if "cost" not in table.measures:
            raise InputError("the cost file holds no cost column (only latency)", source=table.source)
        u, m, v, _, _ = table.cells("cost")
        k = len(table.models)
        n_v = np.bincount(m, minlength=k).astype(np.float64)
        if np.any(n_v < 2):
            lacking = [table.models[i] for i in np.flatnonzero(n_v < 2)]
            raise InputError(f"model {lacking[0]!r} has fewer than two responses with a cost: no standard error",
                             source=table.source)
        mean_v = np.bincount(m, weights=v, minlength=k) / n_v
        sd_v = np.sqrt(np.bincount(m, weights=(v - mean_v[m]) ** 2, minlength=k) / (n_v - 1))
        se_v = sd_v / np.sqrt(n_v)
        notes.append(NOTE_COSTS_PER_RESPONSE_SUMMARIZED())
    else:
        mean_v, n_v = table.cost, table.n
        se_v = table.se if table.se is not None else (None if table.sd is None else table.sd / np.sqrt(table.n))
    m = len(mean_v)
    if se_v is None:
        se_v, method, df = np.zeros(m), "known", np.full(m, np.inf)
        notes.append(NOTE_COSTS_GIVEN_WITHOUT_SE())
    elif n_v is not None:
        method, df = "t", np.maximum(n_v - 1, 1)
    else:
        method, df = "normal", np.full(m, np.inf)
    half = stats.t.ppf(0.5 + level / 2, df) * se_v
    notes.append(NOTE_COSTS_FROM_PER_MODEL())
    return CostEstimates("cost", tuple(table.models), mean_v, se_v, ConfidenceInterval(mean_v - half, mean_v + half),
                         n_v if n_v is not None else np.full(m, np.nan), np.zeros(m, dtype=np.int64), method, level,
                         False, tuple(dict.fromkeys(notes)), cov=np.diag(se_v ** 2), df=df)
