"""Quality and cost from the same bootstrap item draws: one run of the engine, paired across models and measures.

The bootstrap engine (:func:`evalband.resample.bootstrap`) resamples per-item sufficient columns and turns their
weighted sums into one statistic per model and task. Here each model enters three times, as three rows of an
:class:`~evalband.resample.ItemColumns`: its score (finished as the item mean, exactly as the engine's 'mean'),
its cost summed over the items where it was measured, and the number of such items. One engine run therefore
draws every replicate's items once for all models and both measures: the quality replicates are those of
``evalband.resample.bootstrap(table, rng=seed)`` (same seed, same numbers), and the cost replicates come from the
same items, so any judgement involving both (a cost per point, a model that is better *and* cheaper) is paired.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pandas as pd

from .._validate import ArgumentError, InputError, as_generator, check_positive_int
from ..resample import ItemColumns, Replicates, Statistic, bootstrap
from ..resample.replicates import TaskUnits
from ..resample.statistics import STATISTICS
from ..display.reprs import titled_repr
from ._items import TaskMeasure, check_measure, missing_note, results_selection, task_measures
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["JointReplicates", "joint_bootstrap", "joint_from_arrays"]

#: separates a model's name from the role of its row in the joint columns (never shown)
_SEP = "\x1f"


def _value_columns(cols):
    return np.asarray(cols["value"], dtype=np.float64)[..., None]


@dataclass(frozen=True)


class _JointFinish:
    """Rows ``[0, M)``: item means (the engine's 'mean'); rows ``[M, 3M)``: plain sums (cost, measured items).

    A class rather than a closure so that the engine's work units stay picklable (process and Dask executors).
    """

    n_models: int

    def __call__(self, sums, total):
        out = np.array(sums[..., 0], dtype=np.float64, copy=True)
        with np.errstate(invalid="ignore", divide="ignore"):  # a jackknife row that deletes a task's only item
            out[..., :self.n_models] /= total
        return out


@displayed


@dataclass(frozen=True, repr=False)
class JointReplicates:
    """Bootstrap replicates of quality (per task) and of mean cost per item, from the same item draws.

    Attributes
    ----------
    quality : Replicates
        Per-task mean score, (B, M, T), identical to ``evalband.resample.bootstrap(table, rng=seed)`` for the
        same seed; feed it to any aggregate (``evalband.aggregate.get_aggregate``).
    measure : str
        The measure column resampled with it ('cost', or 'latency' used as a cost).
    cost_sum, cost_items : numpy.ndarray, shape (B, M, T)
        Per replicate, model and task: the summed measure over the drawn items where it was measured, and the
        number of those items.
    observed_sum, observed_items : numpy.ndarray, shape (M, T)
        The same on the data.
    missing_items, missing_rows : numpy.ndarray of int, shape (M,)
        Items (of the paired items) without any measured row, and rows without a value, per model.
    notes : tuple of str

    Notes
    -----
    The mean cost per item pools every measured item of every task (each item counts once): on replicate b it is
    ``cost_sum[b].sum(-1) / cost_items[b].sum(-1)``. Items are resampled within tasks (stratified) and clusters
    whole, exactly as for quality.
    """

    quality: Replicates
    measure: str
    cost_sum: np.ndarray
    cost_items: np.ndarray
    observed_sum: np.ndarray
    observed_items: np.ndarray
    missing_items: np.ndarray
    missing_rows: np.ndarray
    notes: tuple = ()
    _joint: Replicates | None = field(default=None, repr=False, compare=False)

    @property
    def models(self) -> tuple:
        return self.quality.models

    @property
    def tasks(self) -> tuple:
        return self.quality.tasks

    @property
    def n_resamples(self) -> int:
        return self.quality.n_resamples

    @property
    def cost_observed(self) -> np.ndarray:
        """Mean cost per measured item of each model, (M,)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.observed_sum.sum(-1) / self.observed_items.sum(-1)

    @cached_property
    def cost_samples(self) -> np.ndarray:
        """Mean cost per measured item on every replicate, (B, M) (NaN where a replicate drew none)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.cost_sum.sum(-1) / self.cost_items.sum(-1)

    def jackknife(self):
        """``(quality (n_jack, M, T), cost (n_jack, M), strata (n_jack,))`` delete-one (or delete-group) values,
        for BCa; ``(None, None, None)`` when the engine has none."""
        jk = self._joint.jackknife() if self._joint is not None else None
        if jk is None:
            return None, None, None
        m = len(self.models)
        with np.errstate(invalid="ignore", divide="ignore"):
            cost = jk[:, m:2 * m].sum(-1) / jk[:, 2 * m:].sum(-1)
        return jk[:, :m], cost, self._joint.jackknife_strata()

    def to_frame(self) -> pd.DataFrame:
        """One row per model: mean cost per item on the data, its bootstrap SD, items measured and missing."""
        return pd.DataFrame({
            "model": list(self.models), "cost": self.cost_observed, "cost_se": _sd(self.cost_samples),
            "items": self.observed_items.sum(-1).astype(np.int64), "missing_items": self.missing_items,
            "missing_rows": self.missing_rows,
        })

    def __repr__(self) -> str:
        b, m, t = self.quality.replicates.shape
        return titled_repr(f"JointReplicates: quality and {self.measure} from the same draws, {b:,} replicates,"
                          f" {m} models x {t} tasks ({self.quality.resampling}, by {self.quality.unit})",
                           frame=self.to_frame(), columns=["model", "cost", "cost_se", "items"])


def _sd(samples):
    ok = ~np.isnan(samples)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nansum(samples, axis=0) / ok.sum(0)
        return np.sqrt(np.nansum((samples - mean) ** 2, axis=0) / (ok.sum(0) - 1))


NOTE_REPEATED_TRIALS_STAY_THEIR = NoteKind(
    'costs.repeated-trials-stay-their', 'info',
    'repeated trials{value} stay with their item: items are resampled with their mean score and mean {cost} over '
    'their rows')


def joint_bootstrap(data, *, cost: str = "cost", n_resamples: int = 2000, rng=None, models=None, tasks=None,
                    cluster=None, progress=None, executor=None) -> JointReplicates:
    """Bootstrap per-task quality and mean cost per item together, paired across models and measures.

    Parameters
    ----------
    data : Selection, ResultsTable, path or DataFrame
        Item-level results with a measure column (``cost``; blank = not measured); anything
        :func:`evalband.select` accepts. Tasks some model lacks, or on which the models share no item, are left
        out and named in ``notes``.
    cost : str
        The measure column resampled with the scores: 'cost' or 'latency'.
    n_resamples : int
        Bootstrap replicates B.
    rng : None, int, SeedSequence, BitGenerator or Generator
        Turned into one Generator; the same seed gives the same quality replicates as
        ``evalband.resample.bootstrap(data, rng=seed)``.
    models, tasks : sequence of str or comma-separated str, optional
    cluster : bool or None
        As for :func:`evalband.resample.bootstrap`: whole clusters are resampled when the data have them.
    progress, executor
        As for :func:`evalband.resample.bootstrap`.

    Returns
    -------
    JointReplicates

    Notes
    -----
    Pairing by item between models (and between quality and cost) keeps their correlation: an expensive item is
    expensive for every model, so differences and ratios of mean costs are much more precise than the per-model
    intervals suggest, and a model that scores well on the costly items is credited on both axes at once. Items
    that not every model has are left out (pairing needs common items), as for quality. Costs are typically
    skewed (a few long agent runs dominate the total): the BCa interval corrects the percentile interval for
    that skewness (Efron 1987).

    References
    ----------
    Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.
    Davison, A. C. & Hinkley, D. V. (1997). Bootstrap Methods and their Application, section 3.8. CUP.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rows = [dict(model=m, task="t", item=i, score=float((i + k) % 3 > 0), cost=0.01 * (1 + k) * (1 + i % 5))
    ...         for k, m in enumerate(["A", "B"]) for i in range(40)]
    >>> reps = joint_bootstrap(pd.DataFrame(rows), n_resamples=200, rng=1)
    >>> reps.cost_samples.shape
    (200, 2)
    >>> np.round(reps.cost_observed, 3)
    array([0.03, 0.06])
    """
    seed = int(rng) if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) else None
    gen = as_generator(rng)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    sel = results_selection(data, models=models, tasks=tasks)
    table = sel.table
    check_measure(table, cost, "cost")
    if not getattr(table, "paired_items", True):
        raise InputError("quality and cost are paired by item, but the items here are not the same across models"
                         " (runs of independent seeds)", source=table.source)
    if cluster is True and not table.has_clusters:
        raise InputError(words('{arg:cluster=True}, but the data have no cluster column'), source=table.source)
    use_clusters = table.has_clusters and cluster is not False
    per_task = task_measures(table, cost, use_clusters=use_clusters)
    notes = list(sel.all_notes)
    if table.has_trials or table.facets:
        notes.append(NOTE_REPEATED_TRIALS_STAY_THEIR(value=' and facet levels' if table.facets else '', cost=cost))
    return _joint(tuple(table.models), per_task, measure=cost, task_groups=table.task_groups, notes=notes,
                  source=table.source, seed=seed, gen=gen, n_resamples=n_resamples, cluster=cluster,
                  progress=progress, executor=executor)


def joint_from_arrays(models, scores, costs, *, clusters=None, task_groups=None, measure: str = "cost",
                      n_resamples: int = 2000, rng=None, cluster=None, progress=None, executor=None,
                      source: str = "<arrays>") -> JointReplicates:
    """The array-level core of :func:`joint_bootstrap`: per-task score and cost matrices, paired by item.

    Parameters
    ----------
    models : sequence of str
    scores, costs : mapping task -> array (M, K_t)
        Each model's score and cost on each item of the task (the same items for every model); a NaN cost is an
        item the model's cost was not measured on.
    clusters : mapping task -> array (K_t,), optional
        Cluster labels or codes of the items.
    task_groups : mapping task -> group, optional
    measure : str
        What the costs are ('cost', 'latency', ...), for labels.
    n_resamples, rng, cluster, progress, executor
        As for :func:`joint_bootstrap`.

    Returns
    -------
    JointReplicates

    Examples
    --------
    >>> import numpy as np
    >>> scores = {"t": np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]])}
    >>> costs = {"t": np.array([[2.0, 1.0, 4.0, np.nan], [1.0, 0.5, 2.0, 3.0]])}
    >>> reps = joint_from_arrays(["A", "B"], scores, costs, n_resamples=100, rng=0)
    >>> reps.cost_observed, reps.missing_items
    (array([2.33333333, 1.625     ]), array([1, 0]))
    """
    seed = int(rng) if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) else None
    gen = as_generator(rng)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    names = tuple(map(str, models))
    if set(scores) != set(costs):
        raise ArgumentError("`scores` and `costs` must name the same tasks.")
    per_task = []
    for task in scores:
        x = np.asarray(scores[task], dtype=np.float64)
        c = np.asarray(costs[task], dtype=np.float64)
        if x.ndim != 2 or x.shape[0] != len(names) or c.shape != x.shape:
            raise ArgumentError(f"task {task!r}: `scores` and `costs` must both be ({len(names)}, n_items); got"
                             f" {x.shape} and {c.shape}.")
        if np.any(c < 0) or np.any(np.isinf(c)):
            raise ArgumentError(f"task {task!r}: costs must be finite numbers >= 0 (NaN = not measured).")
        present = ~np.isnan(c)
        codes = None
        if clusters is not None and cluster is not False:
            codes = pd.factorize(np.asarray(clusters[task]))[0].astype(np.int64)
        per_task.append(TaskMeasure(str(task), x, np.where(present, c, 0.0), present,
                                    (~present).sum(axis=1).astype(np.int64), codes))
    return _joint(names, per_task, measure=measure, task_groups=task_groups, notes=[], source=source, seed=seed,
                  gen=gen, n_resamples=n_resamples, cluster=cluster, progress=progress, executor=executor)


def _cells(per_task):
    """The items behind each (model, task) mean score when the scores lie in [0, 1] (for the floor of intervals,
    :mod:`evalband.resample.floors`), else None."""
    from ..resample.floors import CellCounts

    scores = [tm.scores[~np.isnan(tm.scores)] for tm in per_task]
    if not all(np.all((x >= 0) & (x <= 1)) for x in scores):
        return None
    n = np.stack([(~np.isnan(tm.scores)).sum(axis=1) for tm in per_task], axis=1).astype(np.float64)
    return CellCounts(n, binary=all(np.all((x == 0) | (x == 1)) for x in scores))


def _joint(names, per_task, *, measure, task_groups, notes, source, seed, gen, n_resamples, cluster, progress,
           executor) -> JointReplicates:
    m = len(names)
    n_items = np.full(m, sum(tm.present.shape[1] for tm in per_task))
    missing_items = np.sum([(~tm.present).sum(axis=1) for tm in per_task], axis=0).astype(np.int64)
    missing_rows = np.sum([tm.missing_rows for tm in per_task], axis=0).astype(np.int64)
    none = [names[k] for k in range(m) if missing_items[k] == n_items[k]]
    if none:
        raise InputError(words('model {value!r} has no {measure} on any item of the analysis; leave it out with `{arg:models=}`', value=none[0], measure=measure), source=source, column=measure)
    virtual = names + tuple(f"{n}{_SEP}{measure}" for n in names) + tuple(f"{n}{_SEP}items" for n in names)
    columns = {tm.task: {"value": np.vstack([tm.scores, tm.values * tm.present, tm.present.astype(np.float64)])}
               for tm in per_task}
    with_clusters = all(tm.clusters is not None for tm in per_task)
    clusters = {tm.task: tm.clusters for tm in per_task} if with_clusters else None
    items = ItemColumns(virtual, tuple(tm.task for tm in per_task), columns, clusters, task_groups, tuple(notes),
                        source)
    statistic = Statistic(f"mean+{measure}", ("value",), _value_columns, _JointFinish(m))
    joint = bootstrap(items, statistic=statistic, n_resamples=n_resamples, rng=gen, cluster=cluster,
                      progress=progress, executor=executor)
    joint = replace(joint, seed=seed)
    notes = list(joint.notes) + missing_note(measure, names, missing_items, n_items, missing_rows)
    units = None
    if joint._units is not None:
        mean_finish = STATISTICS["mean"].finish
        units = tuple(TaskUnits(u.task, u.X[:m], u.sizes, mean_finish) for u in joint._units)
    quality = Replicates(names, joint.tasks, joint.observed[:m], joint.replicates[:, :m], joint.resampling,
                         joint.unit, joint.n_resamples, joint.n_units, joint.task_groups, seed, tuple(notes), "mean",
                         units, joint._entropy, _cells(per_task))
    return JointReplicates(quality, measure, joint.replicates[:, m:2 * m], joint.replicates[:, 2 * m:],
                           joint.observed[m:2 * m], joint.observed[2 * m:], missing_items, missing_rows,
                           tuple(notes), joint)
