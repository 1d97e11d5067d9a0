"""Item-level statistic path: bootstrap a statistic of the resampled item (run) scores of all tasks at once.

Some aggregates are not functions of per-task summaries: rliable's IQM and optimality gap pool all runs of all
tasks, and its probability of improvement compares run distributions per task. Here each replicate materializes
the resampled scores, shaped ``(models, tasks, items)`` with NaN padding where tasks (or models) have fewer items,
and the statistic maps ``(C, M, T, n) -> (C, ...)``. Items (runs) are resampled within each task, independently per
model (the default: runs of different algorithms are unrelated) or paired.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validate import (ArgumentError, ArgumentTypeError, InputError, as_generator, check_choice, check_positive_int)
from .replicates import ReplicateSet
from ._kernels import block_generator, draw_indices, name_key
from .._progress import track
from .._random import run_entropy
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["bootstrap_items", "ItemReplicates", "item_array"]

#: replicate scores per block (tasks x items per model), bounding memory
ITEM_BLOCK_ELEMENTS = 1 << 20


@displayed


@dataclass(frozen=True, repr=False)
class ItemReplicates(ReplicateSet):
    """Bootstrap replicates of a statistic of the resampled item scores.

    Attributes
    ----------
    models, tasks : tuple of str
    observed : numpy.ndarray, shape (...)
        The statistic on the data (usually (M,)).
    replicates : numpy.ndarray, shape (B, ...)
    resampling : {'independent', 'paired'}
    n_resamples : int
    n_units : numpy.ndarray, shape (M, T)
        Items (runs) of each model on each task.
    seed : int or None
    notes : tuple of str
    statistic : str
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    observed: np.ndarray
    replicates: np.ndarray
    resampling: str
    n_resamples: int
    n_units: np.ndarray
    seed: int | None = None
    notes: tuple[str, ...] = ()
    statistic: str = ""
    _scores: np.ndarray | None = field(default=None, repr=False, compare=False)
    _fn: object = field(default=None, repr=False, compare=False)
    unit: str = "item"
    task_groups: dict | None = None

    def to_frame(self) -> pd.DataFrame:
        """model, estimate, se (when the statistic gives one value per model)."""
        if self.observed.shape != (len(self.models),):
            raise ArgumentError("to_frame() needs a statistic with one value per model.")
        return pd.DataFrame({"model": self.models, "estimate": self.observed, "se": self.se})

    def _jack_rows(self) -> np.ndarray:
        """(n_jack, 2) task and item position of each deletable item (present for at least one model)."""
        return np.argwhere(~np.isnan(self._scores).all(axis=0))

    def jackknife(self, *, rows_per_call: int = 256) -> np.ndarray:
        """Delete-one-item values (n_jack, ...): row ``j`` removes item ``i`` of task ``t`` (from every model).

        Rows are ordered by task (see :meth:`jackknife_strata`); the statistic is evaluated on blocks of
        ``rows_per_call`` deletions at a time.
        """
        d = self._scores
        rows = self._jack_rows()
        out = []
        for start in range(0, len(rows), rows_per_call):
            chunk = rows[start:start + rows_per_call]
            arr = np.broadcast_to(d, (len(chunk),) + d.shape).copy()
            arr[np.arange(len(chunk)), :, chunk[:, 0], chunk[:, 1]] = np.nan
            out.append(np.asarray(self._fn(arr)))
        return np.concatenate(out, axis=0)

    def jackknife_strata(self) -> np.ndarray:
        """Task index of each row of :meth:`jackknife`."""
        return self._jack_rows()[:, 0]


NOTE_REPEATED_TRIALS_AVERAGED_WITHIN = NoteKind('resample.repeated-trials-averaged-within', 'info',
                                                 'repeated trials averaged within each item')


def item_array(table, *, paired: bool) -> tuple[tuple, tuple, np.ndarray, list]:
    """(models, tasks, scores (M, T, n_max) NaN-padded, notes) from an item-level table (trials averaged)."""
    if table.level != "item":
        raise InputError("the item-level statistic path needs item-level data", source=table.source)
    models, tasks = table.models, table.tasks
    notes = []
    if paired:
        mats = [table.task_data(t).scores for t in tasks]
        n_max = max(m.shape[1] for m in mats)
        out = np.full((len(models), len(tasks), n_max), np.nan)
        for k, mat in enumerate(mats):
            out[:, k, :mat.shape[1]] = mat
        return models, tasks, out, notes
    g = table.data.groupby(["model", "task", "item"], observed=True, sort=False)["score"].mean().reset_index()
    m_code = pd.Categorical(g["model"], categories=models).codes
    t_code = pd.Categorical(g["task"], categories=tasks).codes
    pos = g.groupby(["model", "task"], observed=True, sort=False).cumcount().to_numpy()
    out = np.full((len(models), len(tasks), int(pos.max()) + 1), np.nan)
    out[m_code, t_code, pos] = g["score"].to_numpy()
    if table.has_trials:
        notes.append(NOTE_REPEATED_TRIALS_AVERAGED_WITHIN())
    return models, tasks, out, notes


def _from_mapping(data: Mapping, tasks):
    models = tuple(map(str, data))
    mats = [np.asarray(v, dtype=np.float64) for v in data.values()]
    if any(m.ndim != 2 for m in mats):
        raise ArgumentError("each entry of `data` must be a (n_runs, n_tasks) array, rliable's convention.")
    n_tasks = {m.shape[1] for m in mats}
    if len(n_tasks) != 1:
        raise ArgumentError("every model in `data` must have the same number of tasks.")
    n_t = n_tasks.pop()
    tasks = tuple(map(str, tasks)) if tasks is not None else tuple(f"task{k}" for k in range(n_t))
    if len(tasks) != n_t:
        raise ArgumentError(words('`{arg:tasks}` names {n_tasks} tasks; the arrays have {n_t}.', n_tasks=len(tasks), n_t=n_t))
    n_max = max(m.shape[0] for m in mats)
    out = np.full((len(models), n_t, n_max), np.nan)
    for k, m in enumerate(mats):
        out[k, :, :m.shape[0]] = m.T
    return models, tasks, out


@dataclass(frozen=True)


class _ItemSpec:
    scores: np.ndarray
    counts: np.ndarray
    task_keys: tuple
    model_keys: tuple
    entropy: tuple
    paired: bool
    block: int
    n_resamples: int
    fn: object


def _item_block(spec: _ItemSpec, b: int):
    c = min(spec.block, spec.n_resamples - b * spec.block)
    m, t, n = spec.scores.shape
    rep = np.full((c, m, t, n), np.nan)
    for k in range(t):
        if spec.paired:
            nk = int(spec.counts[0, k])
            idx = draw_indices(block_generator(spec.entropy, (spec.task_keys[k], b)), nk, (c,))
            rep[:, :, k, :nk] = np.moveaxis(spec.scores[:, k, :][:, idx], 0, 1)
        else:
            for j in range(m):
                nk = int(spec.counts[j, k])
                idx = draw_indices(block_generator(spec.entropy, (spec.task_keys[k], b, spec.model_keys[j])), nk, (c,))
                rep[:, j, k, :nk] = spec.scores[j, k, idx]
    return b, np.asarray(spec.fn(rep))


def _run_item_job(job):
    spec, b = job
    return _item_block(spec, b)


def _named(name):
    from ..aggregate import rliable

    table = {"iqm": rliable.iqm, "median": rliable.median_of_means, "mean": rliable.mean_of_means,
             "optimality-gap": rliable.optimality_gap}
    key = check_choice(name, table, "statistic")
    return key, table[key]


NOTE_RESAMPLING_ITEMS_RUNS_WITHIN = NoteKind('resample.resampling-items-runs-within', 'info',
                                              '{resampling} resampling of items (runs) within each task')
NOTE_PAIRED_RUNS_MISSING_SOME = NoteKind('resample.paired-runs-missing-some', 'excluded',
                                          'paired: runs missing for some model are left out of every model')


def bootstrap_items(data, statistic, *, resampling: str = "independent", n_resamples: int = 10_000, rng=None,
                    tasks=None, progress=None, executor=None) -> ItemReplicates:
    """Bootstrap a statistic of all resampled item (run) scores, stratified by task.

    Parameters
    ----------
    data : ResultsTable, path, or mapping model -> array (n_runs, n_tasks)
        Item-level scores; with a mapping (rliable's convention), ``tasks`` names the columns.
    statistic : callable or {'iqm', 'median', 'mean', 'optimality-gap'}
        ``statistic(scores)`` with ``scores`` shaped (C, M, T, n) (NaN where a model has fewer items on a task;
        the statistic must ignore NaN, as the functions of :mod:`evalband.aggregate.rliable` do), returning
        (C, ...). Names are rliable's aggregates: IQM over pooled runs, median and mean over tasks of run means,
        optimality gap (gamma = 1).
    resampling : {'independent', 'paired'}
        'independent' (default): each model's items drawn on its own within each task, rliable's stratified
        bootstrap (runs of different algorithms are unrelated). 'paired': the same item indices for every model
        (items shared by all models only).
    n_resamples, rng, progress, executor
        As in :func:`bootstrap`.

    Returns
    -------
    ItemReplicates

    Notes
    -----
    Each replicate materializes (M, T, n) scores, so this path suits run-level data (a handful to a few hundred
    runs per task); per-task statistics of large item sets belong in :func:`bootstrap`. Random streams follow
    :func:`bootstrap`: one per task and block (and model when independent), so results do not depend on the
    executor.

    References
    ----------
    Agarwal, R. et al. (2021). Deep reinforcement learning at the edge of the statistical precipice. NeurIPS.

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> table = eb.load_example("mmlu-pro")
    >>> reps = eb.bootstrap_items(table, lambda scores: scores.mean(axis=-1), n_resamples=50, rng=0, tasks=table.tasks[:1], progress=False)
    >>> type(reps).__name__
    'ItemReplicates'
    """
    seed = int(rng) if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) else None
    gen = as_generator(rng)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    resampling = check_choice(resampling, ("independent", "paired"), "resampling")
    if isinstance(statistic, str):
        stat_name, fn = _named(statistic)
    elif callable(statistic):
        stat_name, fn = getattr(statistic, "__name__", "statistic"), statistic
    else:
        raise ArgumentTypeError("`statistic` must be a callable or one of 'iqm', 'median', 'mean', 'optimality-gap'.")
    notes = []
    if isinstance(data, Mapping):
        models, task_names, scores = _from_mapping(data, tasks)
        if resampling == "paired":
            keep = ~np.isnan(scores).any(axis=0)
            if not keep.all():
                notes.append(NOTE_PAIRED_RUNS_MISSING_SOME())
                scores = np.where(keep[None], scores, np.nan)
    else:
        from ..selection import select

        table = select(data, tasks=tasks).table
        models, task_names, scores, notes = item_array(table, paired=resampling == "paired")
        notes = list(table.notes) + notes
    if resampling == "paired":
        # pack each task's common items to the front
        order = np.argsort(np.isnan(scores).any(axis=0), axis=-1, kind="stable")
        scores = np.take_along_axis(scores, order[None], axis=-1)
    else:
        order = np.argsort(np.isnan(scores), axis=-1, kind="stable")
        scores = np.take_along_axis(scores, order, axis=-1)
    counts = (~np.isnan(scores)).sum(axis=-1)
    if resampling == "paired":
        counts = np.broadcast_to(counts.min(axis=0), counts.shape).copy()
    if (counts == 0).any():
        m, t = np.argwhere(counts == 0)[0]
        raise InputError(f"model '{models[m]}' has no item on task '{task_names[t]}'")
    entropy = run_entropy(gen)
    m, t, n = scores.shape
    block = int(max(1, min(1000, ITEM_BLOCK_ELEMENTS // (t * n))))
    spec = _ItemSpec(scores, counts, tuple(name_key(x) for x in task_names), tuple(name_key(x) for x in models),
                     entropy, resampling == "paired", block, n_resamples, fn)
    observed = np.asarray(fn(scores[None]))[0]
    out = np.empty((n_resamples,) + observed.shape)
    n_blocks = math.ceil(n_resamples / block)
    jobs = [(spec, b) for b in range(n_blocks)]
    mapper = map if executor is None else executor.map
    for b, vals in track(iter(mapper(_run_item_job, jobs)), n_blocks, progress=progress):
        out[b * block:b * block + vals.shape[0]] = vals
    notes.append(NOTE_RESAMPLING_ITEMS_RUNS_WITHIN(resampling=resampling))
    return ItemReplicates(models, task_names, observed, out, resampling, n_resamples, counts, seed, tuple(notes),
                          stat_name, scores, fn)
