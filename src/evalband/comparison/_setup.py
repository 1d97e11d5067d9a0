"""Shared plumbing of comparisons and rankings: one replicate set, aggregates evaluated on it.

Everything here is private. ``prepare`` turns the user's data into a table (when there is one) and a
:class:`~evalband.resample.Replicates`; ``resolve_aggregates`` turns aggregate specifications into
:class:`AggregateValues` (observed values, bootstrap replicates and delete-one values of each model's aggregate),
so that per-model intervals, differences and ranks all come from the same replicates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._validate import InputError, as_generator, check_choice
from ..aggregate._weights import lacks_text, names_text

__all__ = ["prepare", "resolve_aggregates", "aggregate_notes", "AggregateValues", "LOWER_IS_BETTER", "pair_indices",
           "TasksLeftOut", "restrict_weights", "shared_tasks", "missing_tasks"]

#: aggregates where a smaller value is better
LOWER_IS_BETTER = frozenset({"mean-rank", "binned-rank", "optimality-gap", "rank"})
#: aggregates whose values are not on the accuracy scale (no "points", no x100 in readings)
_UNITLESS = frozenset({"mean-rank", "binned-rank", "rank", "win-rate", "probability-of-improvement"})

RESAMPLING = ("auto", "paired", "independent")


@dataclass(frozen=True)
class AggregateValues:
    """One aggregate evaluated on one replicate set.

    Attributes
    ----------
    name : str
    observed : numpy.ndarray, shape (M,)
    samples : numpy.ndarray, shape (B, M)
    jackknife : numpy.ndarray or None, shape (n_jack, M)
    higher_is_better : bool
    linear_weights : numpy.ndarray or None, shape (M, T)
        When the aggregate is affine in the per-task scores (a weighted mean), its weights; else None.
    scale : float
        Multiplier for display in readings (100 for accuracies, 1 for ranks).
    unit : str
        'points' for accuracy-like aggregates, '' otherwise.
    function : callable
        The aggregate, ``(..., M, T) -> (..., M)``.
    notes : tuple of str
        What its weights assumed (tasks not named in a mapping of weights get weight 0).
    """

    name: str
    observed: np.ndarray
    samples: np.ndarray
    jackknife: np.ndarray | None
    higher_is_better: bool
    linear_weights: np.ndarray | None
    scale: float
    unit: str
    function: object = None
    notes: tuple = ()


def pair_indices(order) -> tuple[np.ndarray, np.ndarray]:
    """All pairs (i, j), i before j in ``order`` (model indices listed best first)."""
    order = np.asarray(order)
    i, j = np.triu_indices(len(order), k=1)
    return order[i], order[j]


def prepare(data, *, replicates=None, models=None, tasks=None, resampling="auto", n_resamples=10_000,
            rng=None, cluster=None):
    """Return ``(table or None, Replicates, generator, TasksLeftOut)`` for ``data``.

    ``data`` may be a ResultsTable, anything ``evalband.read`` accepts, or a Replicates (then the table is None
    and item-level analytics are unavailable). A precomputed ``replicates`` can be passed with a table.

    Tasks that a selected model lacks (or on which, at item level, the selected models share no item) are left
    out, and the returned :class:`TasksLeftOut` says which and why; a task named in ``tasks`` that a model lacks
    is an error, and so is a selection with no task left.
    """
    from ..resample import Replicates, bootstrap

    resampling = check_choice(resampling, RESAMPLING, "resampling")
    gen = as_generator(rng)
    left_out = TasksLeftOut((), {})
    if isinstance(data, Replicates):
        table, reps = None, data
    else:
        from ..io import read

        table = read(data)
        if models is not None or tasks is not None:
            table = table.select(models=models, tasks=tasks)
        if len(table.models) < 2:  # before drawing any replicate; name the file and the model
            raise InputError(f"a comparison needs at least 2 models; found {len(table.models)}"
                             f" ({', '.join(table.models)})", source=table.source)
        independent = (table.level == "summary" or resampling == "independent"
                       or not getattr(table, "paired_items", True))
        table, left_out = shared_tasks(table, explicit=tasks is not None, independent=independent)
        if replicates is not None:
            reps = replicates
            if tuple(reps.models) != tuple(table.models) or tuple(reps.tasks) != tuple(table.tasks):
                raise ValueError("`replicates` were drawn for other models or tasks than `data` holds.")
        else:
            kwargs = dict(resampling=resampling, n_resamples=n_resamples, rng=gen)
            if cluster is not None:
                kwargs["cluster"] = cluster
            reps = bootstrap(table, **kwargs)
    if reps is not None and (models is not None or tasks is not None) and table is None:
        reps = _select_replicates(reps, models, tasks)
    if len(reps.models) < 2:
        raise ValueError(f"a comparison needs at least 2 models; got {len(reps.models)}.")
    return table, reps, gen, left_out


@dataclass(frozen=True)
class TasksLeftOut:
    """Tasks left out of a comparison or ranking because not every selected model can be compared on them.

    Attributes
    ----------
    tasks : tuple of str
        The tasks before any was left out, in table order.
    lacking : dict
        Task left out -> the models with no result on it (empty when every model has results but, at item
        level, they share no item).
    independent : bool
        Models are resampled independently (summary counts, runs of independent seeds): a missing task still
        makes an aggregate over tasks compare different things, so it is left out all the same.
    task_groups : dict or None
        Task -> group for :attr:`tasks` (None without groups).
    """

    tasks: tuple
    lacking: dict
    independent: bool = False
    task_groups: dict | None = None

    def __bool__(self) -> bool:
        return bool(self.lacking)

    def notes(self) -> list[str]:
        """One note per set of models lacking tasks, and one saying what the aggregates are over."""
        if not self.lacking:
            return []
        by_models = {}
        for task, ms in self.lacking.items():
            by_models.setdefault(ms, []).append(task)
        out = []
        for ms, ts in by_models.items():
            which = f"task {names_text(ts)}" if len(ts) == 1 else f"{len(ts)} tasks ({names_text(ts)})"
            it = "it" if len(ts) == 1 else "them"
            if ms:
                out.append(f"{which} left out: {_and(ms)} {'has' if len(ms) == 1 else 'have'} no results on {it}")
            else:
                out.append(f"{which} left out: the selected models share no item on {it}")
        kept = len(self.tasks) - len(self.lacking)
        text = (f"aggregates over tasks are over the {kept} task{'s' if kept != 1 else ''} every selected model"
                f" has ({len(self.lacking)} of {len(self.tasks)} left out; choose with `tasks` or `models`)")
        if self.independent:
            text += ("; the models are resampled independently, but an aggregate over tasks still needs every"
                     " model on the same tasks")
        out.append(text)
        return out

    def weights(self, weights, group_weights):
        """``(weights, group_weights, notes)`` for the tasks kept.

        Task weights (a mapping, or one per task in the order of :attr:`tasks`) that give a left-out task a
        positive weight are refused: the user asked for that task to count. Weights of 0 are dropped with the
        task. Group weights stay the groups' weights, shared among the tasks each group keeps (with a note); a
        group left without tasks is refused when a mapping gives it a positive weight, and left out (with a
        note) under 'equal'.
        """
        if not self.lacking:
            return weights, group_weights, []

        def refuse(kind, name):
            if kind == "group":
                return InputError(f"`weights` gives group '{name}' a positive weight, but none of its tasks has"
                                  " results for every selected model; give it weight 0, or leave such models out"
                                  " with `models`")
            if kind == "none":
                return InputError("`weights` names only tasks that were left out; no weighted task remains")
            who = (f"{_and(self.lacking[name])} {'has' if len(self.lacking[name]) == 1 else 'have'} no results on"
                   " it" if self.lacking[name] else "the selected models share no item on it")
            return InputError(f"`weights` gives task '{name}' a positive weight, but {who}; give it weight 0 (or"
                              " leave it out of `weights`), or leave such models out with `models`")

        return restrict_weights(weights, group_weights, self.tasks, self.task_groups,
                                [t for t in self.tasks if t not in self.lacking], refuse=refuse)


def restrict_weights(weights, group_weights, tasks, task_groups, kept, *, refuse, where="left", why="",
                     per_kept_task=False):
    """``(weights, group_weights, notes)`` when only the tasks ``kept`` of ``tasks`` count: one rule for tasks
    left out (by models lacking them, or by ``--tasks``).

    Task weights (a mapping, or one per task of ``tasks``; with ``per_kept_task`` also one per kept task) that
    give a left-out task a positive weight are refused: the user asked for that task to count. Weights of 0 are
    dropped with the task. Group weights stay the groups' weights, shared among the tasks each group keeps (with a
    note naming the tasks ``where`` they remain); a group left without tasks is refused when a mapping gives it a
    positive weight, and left out (with a note, ``why`` after "tasks") under 'equal'. ``refuse(kind, name)`` returns the exception to
    raise: kind 'task' or 'group' (a positive weight on one left out) or 'none' (no weighted task remains).
    """
    tasks = [str(t) for t in tasks]
    gone_tasks = set(tasks) - {str(t) for t in kept}
    kept = [t for t in tasks if t not in gone_tasks]
    notes = []
    if weights is not None:
        if isinstance(weights, Mapping):
            given = {str(k): v for k, v in weights.items()}
            pos = [t for t in tasks if t in gone_tasks and t in given and _positive(given[t])]
            weights = {k: v for k, v in given.items() if k not in gone_tasks}
        elif per_kept_task and len(weights) == len(kept):
            pos = []
        else:
            arr = np.asarray(weights, dtype=np.float64).ravel()
            if arr.shape != (len(tasks),):
                raise ValueError(f"`weights` must have one entry per task ({len(tasks)}, before any is left out)"
                                 f"{f' or per kept task ({len(kept)})' if per_kept_task else ''}; got"
                                 f" {arr.shape[0]}.")
            pos = [t for t, v in zip(tasks, arr) if t in gone_tasks and _positive(v)]
            weights = [float(v) for t, v in zip(tasks, arr) if t not in gone_tasks]
        if pos:
            raise refuse("task", pos[0])
        if isinstance(weights, Mapping) and not weights:
            raise refuse("none", None)
    if group_weights is not None and task_groups is not None:
        groups_of = {str(t): str(g) for t, g in task_groups.items()}
        groups = list(dict.fromkeys(groups_of[t] for t in tasks if t in groups_of))
        remaining = {g: [t for t in kept if groups_of.get(t) == g] for g in groups}
        total = {g: [t for t in tasks if groups_of.get(t) == g] for g in groups}
        gone = [g for g in groups if not remaining[g]]
        if isinstance(group_weights, Mapping):
            gw = {str(k): v for k, v in group_weights.items()}
            bad = [g for g in gone if g in gw and _positive(gw[g])]
            if bad:
                raise refuse("group", bad[0])
            group_weights = {g: v for g, v in gw.items() if g not in gone}
        elif gone:
            notes.append(f"group(s) {names_text(gone)} left out with all their tasks{why}; the other groups share"
                         " the weight equally")
        for g in groups:
            if remaining[g] and len(remaining[g]) < len(total[g]) and (
                    not isinstance(group_weights, Mapping) or _positive(group_weights.get(g, 0))):
                notes.append(f"group '{g}' keeps its weight, shared among the {len(remaining[g])} of its"
                             f" {len(total[g])} tasks {where}")
    return weights, group_weights, notes


def _positive(v) -> bool:
    try:
        return float(v) > 0
    except (TypeError, ValueError):
        return True  # not a number: let the weights check name it


def _and(names) -> str:
    names = [str(n) for n in names]
    if len(names) > 6:
        return ", ".join(names[:6]) + f" and {len(names) - 6} more models"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def missing_tasks(table, *, shared_items: bool = True) -> dict:
    """Task -> the models lacking it, for every task some model lacks; with ``shared_items`` (item level) also
    task -> () for each task on which no item has a result from every model."""
    d = table.data if table.level == "item" else table.data.loc[table.data["n"] > 0]
    n_m, n_t = len(table.models), len(table.tasks)
    m_code = d["model"].cat.codes.to_numpy().astype(np.int64)
    t_code = d["task"].cat.codes.to_numpy().astype(np.int64)
    have = np.zeros(n_m * n_t, dtype=bool)
    have[m_code * n_t + t_code] = True
    have = have.reshape(n_m, n_t)
    lacking = {str(t): tuple(table.models[i] for i in np.flatnonzero(~have[:, k]))
               for k, t in enumerate(table.tasks) if not have[:, k].all()}
    if shared_items and table.level == "item" and len(d):  # tasks no item of which every model has (int codes)
        i_code = d["item"].cat.codes.to_numpy().astype(np.int64)
        n_i = max(len(d["item"].cat.categories), 1)
        cell = np.sort((t_code * n_i + i_code) * n_m + m_code)
        cell = cell[np.r_[True, cell[1:] != cell[:-1]]]  # distinct (task, item, model), sorted
        ti = cell // n_m
        starts = np.flatnonzero(np.r_[True, ti[1:] != ti[:-1]])
        per_item = np.diff(np.r_[starts, ti.size])  # models per (task, item)
        shared = np.zeros(n_t, dtype=bool)
        shared[ti[starts][per_item == n_m] // n_i] = True
        for k, t in enumerate(table.tasks):
            if str(t) not in lacking and not shared[k]:
                lacking[str(t)] = ()
    return lacking


def shared_tasks(table, *, explicit: bool = False, independent: bool = False, shared_items: bool = True):
    """``(table, TasksLeftOut)``: the table restricted to the tasks every model has (and, at item level, shares
    an item on), and what was left out.

    ``explicit``: the tasks were chosen by the user, so a task some model lacks is an error, not left out.
    ``shared_items=False``: keep item-level tasks on which the models share no item (analyses that count each
    model on its own items, such as :func:`evalband.bayes.beta_binomial`).
    """
    lacking = missing_tasks(table, shared_items=shared_items)
    if not lacking:
        return table, TasksLeftOut(tuple(table.tasks), {}, independent)
    if explicit:
        t = next(iter(lacking))
        who = (f"{_and(lacking[t])} {'has' if len(lacking[t]) == 1 else 'have'} no results on it" if lacking[t]
               else "the selected models share no item on it")
        raise InputError(f"task '{t}' (in `tasks`): {who}; leave the task out of `tasks`, or such models out with"
                         " `models`", source=table.source)
    kept = [t for t in table.tasks if str(t) not in lacking]
    if not kept:
        who = (lacks_text({m: [t for t, ms in lacking.items() if m in ms] for m in table.models})
               or "the selected models share no item on any task")
        raise InputError(f"no task has results for every selected model ({who}); choose models with `models`",
                         source=table.source)
    return table.select(tasks=kept), TasksLeftOut(tuple(str(t) for t in table.tasks), lacking, independent,
                                                  table.task_groups)


def _select_replicates(reps, models, tasks):
    from dataclasses import replace

    from .._validate import check_names

    m = check_names(models, reps.models, "models")
    t = check_names(tasks, reps.tasks, "tasks")
    mi = [reps.models.index(x) for x in m]
    ti = [reps.tasks.index(x) for x in t]
    groups = None if reps.task_groups is None else {k: reps.task_groups[k] for k in t}
    return replace(reps, models=tuple(m), tasks=tuple(t), observed=reps.observed[np.ix_(mi, ti)],
                   replicates=reps.replicates[:, mi][:, :, ti], n_units=np.asarray(reps.n_units)[ti],
                   task_groups=groups)


def _name_of(spec) -> str:
    if isinstance(spec, str):
        return spec
    return getattr(spec, "name", None) or getattr(spec, "__name__", None) or "custom"


def aggregate_specs(aggregate) -> list:
    """``aggregate`` as a list of specifications ('mean', 'mean,mean-rank', a callable or a list)."""
    if aggregate is None:
        return ["mean"]
    if isinstance(aggregate, str):
        specs = [a.strip() for a in aggregate.split(",") if a.strip()]
        if not specs:
            raise ValueError("`aggregate` is empty.")
        return specs
    if callable(aggregate):
        return [aggregate]
    specs = list(aggregate)
    if not specs:
        raise ValueError("`aggregate` is empty.")
    return specs


def resolve_aggregates(reps, aggregate="mean", *, weights=None, group_weights=None, higher_is_better=None,
                       jackknife=True, **options) -> list[AggregateValues]:
    """Evaluate each aggregate on the observed per-task values and on every replicate.

    ``options`` go to ``evalband.aggregate.get_aggregate`` (floors, ceilings, chance, bin_width, gamma, baseline).
    """
    out = []
    jk = reps.jackknife() if jackknife else None
    observed = np.asarray(reps.observed, dtype=np.float64)
    # per-task values outside [0, 1] (returns, rewards): not accuracies, so no x100 and no "points"
    bounded = bool(np.all(np.isnan(observed) | ((observed >= 0) & (observed <= 1))))
    for spec in aggregate_specs(aggregate):
        fn = _get(spec, reps, weights=weights, group_weights=group_weights, **options)
        name = _name_of(spec)
        obs = np.asarray(fn(reps.observed), dtype=np.float64)
        samples = np.asarray(fn(reps.replicates), dtype=np.float64)
        if obs.shape != (len(reps.models),) or samples.shape != (reps.replicates.shape[0], len(reps.models)):
            raise ValueError(f"aggregate {name!r} must map (..., models, tasks) to (..., models); got {obs.shape}"
                             f" and {samples.shape}.")
        jack = None if jk is None else np.asarray(fn(jk), dtype=np.float64)
        hib = higher_is_better
        if hib is None:
            hib = getattr(fn, "higher_is_better", None)
        if hib is None:
            hib = name not in LOWER_IS_BETTER
        unitless = (name.split(":")[0] in _UNITLESS or not getattr(fn, "accuracy_scale", True) or not bounded)
        out.append(AggregateValues(name, obs, samples, jack, bool(hib), linear_weights(fn, reps.observed),
                                   1.0 if unitless else 100.0, "" if unitless else "points", fn,
                                   tuple(getattr(fn, "notes", ()))))
    return out


def aggregate_notes(aggs) -> list[str]:
    """The aggregates' notes (what their weights assumed), each once."""
    out = []
    for av in aggs:
        for n in av.notes:
            if n not in out:
                out.append(n)
    return out


def _get(spec, reps, *, weights=None, group_weights=None, **options):
    """``evalband.aggregate.get_aggregate`` with the replicates supplying tasks, models and groups."""
    from ..aggregate import get_aggregate

    kwargs = dict(options)
    if weights is not None:
        kwargs["weights"] = weights
    if group_weights is not None:
        kwargs["group_weights"] = group_weights
    kwargs.setdefault("replicates", reps)
    if isinstance(spec, str) and ":" in spec:  # 'binned-rank:0.01', 'optimality-gap:0.9', ...
        spec, value = (x.strip() for x in spec.split(":", 1))
        if spec not in _PARAMETER:
            raise ValueError(f"aggregate {spec!r} takes no ':' parameter; those that do: "
                             + ", ".join(f"{k}:<{v}>" for k, v in _PARAMETER.items()) + ".")
        key = _PARAMETER[spec]
        if key == "baseline":
            kwargs[key] = value
        else:
            try:
                kwargs[key] = float(value)
            except ValueError:
                raise ValueError(f"aggregate '{spec}:{value}': {value!r} is not a number.") from None
    if spec == "minmax" and "floors" not in kwargs and "ceilings" not in kwargs:
        kwargs.setdefault("fit", True)  # min and max over all models and replicates (Longjohn et al. 2025)
    return get_aggregate(spec, **kwargs)


#: aggregates with one parameter that a ':' suffix sets (the CLI's way to pass it)
_PARAMETER = {"binned-rank": "bin_width", "optimality-gap": "gamma", "probability-of-improvement": "baseline",
              "chance-normalized": "chance"}


def linear_weights(fn, observed) -> np.ndarray | None:
    """Weights W (M, T) when ``fn`` is affine in the scores (``fn(x) = c + sum_t W[:, t] x[:, t]``), else None.

    Found by probing: unit steps from a central point give W; two random points then check affinity.
    """
    m, t = np.shape(observed)
    base = np.full((m, t), 0.5)
    step = 0.1
    probe = base[None] + step * np.eye(t)[:, None, :]  # (T, M, T): task k raised for every model
    gen = np.random.default_rng(0)  # a fixed probe, not a random draw of the analysis
    check = gen.uniform(0.2, 0.8, size=(2, m, t))
    try:
        with np.errstate(all="ignore"):
            f0 = np.asarray(fn(base), dtype=np.float64)
            fp = np.asarray(fn(probe), dtype=np.float64)
            fc = np.asarray(fn(check), dtype=np.float64)
    except Exception:  # noqa: BLE001 - any failure means "not affine"
        return None
    if f0.shape != (m,) or fp.shape != (t, m) or fc.shape != (2, m):
        return None
    w = ((fp - f0) / step).T  # (M, T)
    pred = f0 + np.einsum("kmt,mt->km", check - base, w)
    if not np.all(np.isfinite(pred)) or not np.allclose(pred, fc, rtol=1e-9, atol=1e-12):
        return None
    return w
