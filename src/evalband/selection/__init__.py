"""The selection layer: which models, which tasks and which weights count, and what was left out (and why).

Every analysis (``estimate``, ``passk``, ``bootstrap``, ``compare``, ``rank``, ``run_test``, ``beta_binomial``,
``weight_sensitivity``, ``plan_from_pilot``, ``release_gate``, the report) takes a :class:`Selection` or
anything :func:`select` accepts, and calls :func:`select` once. It is the only place below the command line that
reads input (:func:`evalband.read`), and the only home of the rules

* a task that some selected model has no result on (or, for paired analyses of item-level data, on which the
  selected models share no item) is left out of analyses over tasks, and named; a task the user named in
  ``tasks`` is never left out silently (it is an error);
* task weights: a mapping may name only some tasks (or groups), the others weigh 0 (said in a note); a task
  or group left out that the weights give a positive weight is an error (the user asked for it to count);
  weight 0 drops it; a group keeps its weight, shared among the tasks it keeps.

The flow is one-way: readers -> :class:`~evalband.data.table.ResultsTable` -> :class:`Selection` -> estimators.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from .._lists import and_names, lacks_text, names_text
from .._validate import ArgumentError, ArgumentTypeError, InputError, check_names
from .coverage import missing_tasks, pair_items
from .weights import (WEIGHT_ZERO_CODES, EQUAL_WORDS, GROUP_WORDS, parse_weights, resolve_weights, restrict_weights,
                      weights_and_notes)
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import concat, words

__all__ = ["select", "Selection", "LeftOut", "missing_tasks", "pair_items", "parse_weights", "resolve_weights",
           "restrict_weights", "weights_and_notes", "GROUP_WORDS", "EQUAL_WORDS"]


@displayed


@dataclass(frozen=True, repr=False)
class LeftOut:
    """What a selection left out, and why.

    Attributes
    ----------
    models : tuple of str
        Models of the data not selected (``models``).
    tasks : tuple of str
        Tasks of the data not selected (``tasks``).
    lacking : dict
        Task left out because a selected model has no result on it -> those models (an empty tuple: every model
        has results, but for paired analyses they share no item on it).
    independent : bool
        The models are resampled independently (summary counts, independent runs): a missing task still makes an
        aggregate over tasks compare different things, so it is left out all the same (said in the notes).
    """

    models: tuple = ()
    tasks: tuple = ()
    lacking: dict = field(default_factory=dict)
    independent: bool = False

    def cells_left_out(self, n_models: int) -> int:
        """Measured (model, task) cells on the tasks left out for lacking, of ``n_models`` selected models."""
        return int(sum(n_models - len(ms) for ms in self.lacking.values()))

    @property
    def counts(self) -> dict:
        """How many models and tasks were left out, by reason."""
        return {"models_not_selected": len(self.models), "tasks_not_selected": len(self.tasks),
                "tasks_lacking": len(self.lacking)}

    def lacking_notes(self, n_tasks: int, n_models: int | None = None) -> list[str]:
        """One note per set of models lacking tasks, and one saying what aggregates over tasks are over.

        ``n_tasks`` counts the tasks before any was left out for lacking (after ``tasks``); with ``n_models`` (the
        selected models) the last note also counts the measured (model, task) cells left out with those tasks and
        names the analysis that uses every cell (``missing='ability'``, the latent-ability model).
        """
        if not self.lacking:
            return []
        by_models: dict = {}
        for task, ms in self.lacking.items():
            by_models.setdefault(ms, []).append(task)
        out = []
        for ms, ts in by_models.items():
            which = f"task {names_text(ts)}" if len(ts) == 1 else f"{len(ts)} tasks ({names_text(ts)})"
            it = "it" if len(ts) == 1 else "them"
            if ms:
                out.append(f"{which} left out: {and_names(ms)} {'has' if len(ms) == 1 else 'have'} no results on"
                           f" {it}")
            else:
                out.append(f"{which} left out: the selected models share no item on {it}")
        kept = n_tasks - len(self.lacking)
        text = words("aggregates over tasks are over the {kept} task{s} every selected model has ({n_lacking} of"
                     " {n_tasks} left out; choose with `{arg:tasks}` or `{arg:models}`)", kept=kept,
                     s="s" if kept != 1 else "", n_lacking=len(self.lacking), n_tasks=n_tasks)
        if self.independent:
            text = concat(text, "; the models are resampled independently, but an aggregate over tasks still"
                                " needs every model on the same tasks")
        if n_models is not None:
            cells = self.cells_left_out(n_models)
            if cells:
                text = concat(text, words("; {cells:,} measured (model, task) cell{s} left out with them: rank and"
                                          " compare take `{arg:missing='common'}` (each pair on the tasks both"
                                          " have) or `{arg:missing='ability'}` (every cell, through a"
                                          " latent-ability model)", cells=cells, s="s" if cells != 1 else ""))
        out.append(text)
        return out


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class Selection:
    """The models, tasks and task weights an analysis uses, and what was left out.

    Build it with :func:`select`. Analyses take a Selection or anything :func:`select` accepts.

    Attributes
    ----------
    table : ResultsTable or None
        The data restricted to the selected models and the tasks kept (None when the selection was made on the
        labels of bootstrap replicates).
    models, tasks : tuple of str
        The models and tasks kept, in table order.
    task_groups : dict or None
        Task -> group of the tasks kept (None without groups).
    weights : numpy.ndarray or None, shape (n_tasks,)
        Normalized task weights over :attr:`tasks`; None when no weights were given (equal weights).
    left_out : LeftOut
        What was left out and why.
    notes : tuple of str
        The selection's own notes (tasks left out, weights assumed); the table's notes are in ``table.notes``.
    complete : bool
        Whether tasks that some selected model lacks were left out (analyses over tasks).
    source : ResultsTable or None
        The data as read, before any selection.
    """

    table: object
    models: tuple
    tasks: tuple
    task_groups: dict | None
    weights: np.ndarray | None
    left_out: LeftOut
    notes: tuple = ()
    complete: bool = False
    source: object = field(default=None, repr=False)
    _spec: dict = field(default_factory=dict, repr=False)

    @property
    def tasks_left_out(self) -> dict:
        """Task left out for lacking -> the selected models with no result on it."""
        return dict(self.left_out.lacking)

    @property
    def all_notes(self) -> tuple:
        """The table's notes followed by the selection's."""
        table_notes = tuple(self.table.notes) if self.table is not None else ()
        return table_notes + tuple(n for n in self.notes if n not in table_notes)

    def task_weights(self) -> np.ndarray:
        """The normalized task weights, equal when none were given."""
        if self.weights is not None:
            return self.weights
        return np.full(len(self.tasks), 1.0 / len(self.tasks))

    def complete_tasks(self, *, shared_items: bool = True, independent: bool = False) -> "Selection":
        """This selection restricted to the tasks every selected model has (at item level with
        ``shared_items``, also shares an item on); see :func:`select` with ``complete=True``."""
        if self.complete:
            return self
        return _run(self.source, **{**self._spec, "complete": True, "shared_items": shared_items,
                                    "independent": independent})

    def __repr__(self) -> str:
        gone = self.left_out
        parts = [f"{len(self.models)} model{'s' if len(self.models) != 1 else ''}",
                 f"{len(self.tasks)} task{'s' if len(self.tasks) != 1 else ''}"]
        if self.weights is not None:
            parts.append("weighted")
        out = [f"Selection({', '.join(parts)}; source {getattr(self.source, 'source', '?')!s})"]
        left = [f"{len(v)} {k}" for k, v in (("models not selected", gone.models), ("tasks not selected", gone.tasks),
                                             ("tasks lacking a model", gone.lacking)) if v]
        if left:
            out.append("  left out: " + ", ".join(left))
        for n in self.notes[:3]:
            out.append(f"  note: {n[:160]}{'...' if len(n) > 160 else ''}")
        if len(self.notes) > 3:
            out.append(f"  ... and {len(self.notes) - 3} more notes")
        return "\n".join(out)


def select(data, *, models=None, tasks=None, weights=None, group_weights=None, complete: bool = False,
           shared_items: bool = True, independent: bool = False, **read_options) -> Selection:
    """Choose the models, tasks and task weights of an analysis; say what was left out.

    Parameters
    ----------
    data : Selection, ResultsTable, DataFrame, path, list of paths or ``'example:NAME'``
        A Selection is returned as it is (narrowed by any other argument); anything else is read with
        :func:`evalband.read` (``read_options`` go to it).
    models, tasks : sequence of str or comma-separated str, optional
        The models and tasks to keep, in the order given (default: all).
    weights : mapping, sequence, str or None
        Task weights: a mapping task -> weight (tasks not named weigh 0, with a note), one number per task (of
        all tasks, or of the tasks in ``tasks``), or text as the command line writes it ('equal', 'groups',
        'DTD=2,SVHN=1', '1,2,1', '@FILE'; :func:`parse_weights`), which may also give group weights.
    group_weights : 'equal', mapping or None
        Each group's total weight, shared among its tasks ('equal': every group the same).
    complete : bool
        Leave out the tasks some selected model has no result on (analyses over tasks: aggregates, comparisons,
        rankings, Bayes), naming them in the notes. A task named in ``tasks`` that a model lacks is an error, and
        so is a selection with no task left.
    shared_items : bool
        With ``complete`` at item level: also leave out tasks on which the selected models share no item
        (paired analyses). False for analyses that count each model on its own items.
    independent : bool
        With ``complete``: the models will be resampled independently (only changes the wording of the notes).
    **read_options
        Options of :func:`evalband.read` (``source=``, ``shape=``, ``model_col=``, ...).

    Returns
    -------
    Selection

    Examples
    --------
    >>> import evalband as eb
    >>> sel = eb.select("example:vtab", group_weights="equal", complete=True)
    >>> sel.tasks[:2], round(float(sel.weights.sum()), 6)
    (('Caltech101', 'Camelyon'), 1.0)
    """
    spec = dict(models=models, tasks=tasks, weights=weights, group_weights=group_weights, complete=complete,
                shared_items=shared_items, independent=independent)
    if isinstance(data, Selection):
        if read_options:
            raise ArgumentTypeError(f"select() got reading options ({', '.join(read_options)}) for a Selection; they"
                            " apply when a file or DataFrame is read.")
        given = {k: v for k, v in spec.items() if v is not None and k in ("models", "tasks", "weights",
                                                                          "group_weights")}
        if not given and (not complete or data.complete):
            return data
        merged = {**data._spec, **given}
        if type(data.source).__name__ in ("BattleTable", "BattleCounts"):  # battles are narrowed by models alone
            return _battles(data.source, models=merged.get("models"), spec=merged)
        if complete:
            merged.update(complete=True, shared_items=shared_items, independent=independent)
        return _run(data.source, **merged)
    import os

    from ..io import read
    from ..data.table import ResultsTable

    if not isinstance(data, (ResultsTable, str, os.PathLike, list, tuple)) and type(data).__name__ not in (
            "DataFrame", "BattleTable", "BattleCounts", "RatingsTable", "CostTable"):
        raise ArgumentTypeError("`data` must be a ResultsTable (from evalband.read or evalband.load_example), a Selection,"
                        f" a DataFrame or a path; got {type(data).__name__}.")
    from ..data.battles import BattleTable
    from ..data.battle_counts import BattleCounts
    from ..data.costs import CostTable
    from ..data.ratings import RatingsTable

    if isinstance(data, (BattleTable, BattleCounts, RatingsTable, CostTable)) and not read_options:
        table = data
    elif isinstance(data, ResultsTable) and not read_options:
        return _run(data, **spec)
    else:
        table = read(data, **read_options)
    if isinstance(table, (BattleTable, BattleCounts)):
        return _battles(table, models=models, spec=spec)
    if isinstance(table, CostTable):  # per-model costs: models only
        if tasks is not None or weights is not None or group_weights is not None:
            raise ArgumentTypeError(words('a cost table has models, not tasks or weights: choose models with `{arg:models}`.'))
        chosen = table if models is None else table.select(models)
        gone = tuple(m for m in table.models if m not in chosen.models)
        return Selection(chosen, chosen.models, (), None, None, LeftOut(gone), (), False, table, dict(spec))
    if isinstance(table, RatingsTable):
        if models is not None or tasks is not None or weights is not None or group_weights is not None:
            raise ArgumentTypeError(words('ratings have raters and units, not models, tasks or weights: choose raters in the analysis (evalband.judges.agreement({arg:raters=...})).'))
        return Selection(table, (), (), None, None, LeftOut(), tuple(table.notes), False, table, {})
    return _run(table, **spec)


NOTE_TASK_WEIGHT = NoteKind('selection.weight-zero-named-tasks', 'info',
                             '{n_zero} task{value} {value2} weight 0: {value3}')


def _run(table, *, models, tasks, weights, group_weights, complete, shared_items, independent) -> Selection:
    """The selection of ``table`` (a ResultsTable) by the rules of :func:`select`."""
    spec = dict(models=models, tasks=tasks, weights=weights, group_weights=group_weights)
    source = table
    all_tasks = tuple(str(t) for t in table.tasks)
    all_groups = table.task_groups
    chosen_models = check_names(models, table.models, "models") if models is not None else None
    chosen_tasks = check_names(tasks, table.tasks, "tasks") if tasks is not None else None
    if models is not None and not chosen_models:
        raise ArgumentError(words('`{arg:models}` is empty; give model names (or leave the argument out).'))
    if tasks is not None and not chosen_tasks:
        raise ArgumentError(words('`{arg:tasks}` is empty; give task names (or leave the argument out).'))
    weights, group_weights = _weight_spec(weights, group_weights, all_tasks, table.groups if table.has_groups
                                          else ())
    if chosen_models is not None or chosen_tasks is not None:
        table = table.select(models=chosen_models, tasks=chosen_tasks)
    notes = []
    kept = [str(t) for t in table.tasks]
    if chosen_tasks is not None:
        weights, group_weights, more = restrict_weights(
            weights, group_weights, all_tasks, all_groups, kept, refuse=_refuse_not_chosen, where="in `tasks`",
            why=" (none among `tasks`)", per_kept_task=True)
        notes += more
    lacking = {}
    if complete:
        lacking = missing_tasks(table, shared_items=shared_items)
        if lacking:
            if chosen_tasks is not None:
                t = next(iter(lacking))
                raise InputError(words("task '{t}' (in `{arg:tasks}`): {value}; leave the task out of `{arg:tasks}`, or such models out with `{arg:models}`", t=t, value=_who(lacking[t])), source=table.source)
            rest = [t for t in kept if t not in lacking]
            if not rest:
                who = (lacks_text({m: [t for t, ms in lacking.items() if m in ms] for m in table.models})
                       or "the selected models share no item on any task")
                raise InputError(words('no task has results for every selected model ({who}); choose models with `{arg:models}`{value}', who=who, value=_sharing_pairs(table) if shared_items else ''), source=table.source)
            groups_now = table.task_groups
            table = table.select(tasks=rest)
            weights, group_weights, more = restrict_weights(
                weights, group_weights, kept, groups_now, rest, refuse=_refuse_lacking(lacking))
            left = LeftOut((), (), lacking, independent)
            notes[:0] = left.lacking_notes(len(kept), len(table.models))
            notes += more
            kept = rest
    vector = None
    if weights is not None or group_weights is not None:
        vector, weight_notes = weights_and_notes(len(kept), tasks=kept, weights=weights,
                                                 group_weights=group_weights, task_groups=table.task_groups)
        notes += list(weight_notes)
        zero = [t for t, w in zip(kept, vector) if w == 0]
        if zero and not any(getattr(n, "code", None) in WEIGHT_ZERO_CODES for n in weight_notes):
            notes.append(NOTE_TASK_WEIGHT(n_zero=len(zero), value='s' if len(zero) != 1 else '', value2='get' if len(zero) != 1 else 'gets', value3=names_text(zero)))
    not_models = tuple(m for m in source.models if m not in table.models) if chosen_models is not None else ()
    not_tasks = tuple(t for t in all_tasks if t not in (chosen_tasks or all_tasks))
    left_out = LeftOut(not_models, not_tasks, lacking, independent)
    return Selection(table, tuple(table.models), tuple(str(t) for t in table.tasks), table.task_groups, vector,
                     left_out, tuple(dict.fromkeys(notes)), bool(complete), source,
                     {**spec, "complete": complete, "shared_items": shared_items, "independent": independent})


def _sharing_pairs(table, limit: int = 6) -> str:
    """'; pairs sharing items: A vs B (20 items), ... (compare compares each pair on its shared items)' when some
    pair of models shares items on some task, else ''."""
    if table.level != "item" or len(table.models) < 3:
        return ""
    total = sum(pair_items(table).values())
    i, j = np.triu_indices(len(table.models), k=1)
    have = np.flatnonzero(total[i, j] > 0)
    if not have.size:
        return ""
    shown = [f"{table.models[i[k]]} vs {table.models[j[k]]} ({int(total[i[k], j[k]]):,} items)" for k in have[:limit]]
    more = f" and {have.size - limit:,} more" if have.size > limit else ""
    return (f"; pairs sharing items: {', '.join(shown)}{more} (compare, which needs no item common to all, compares"
            " each pair on the items both have)")


NOTE_BATTLE_MODEL_OUTSIDE_LEFT = NoteKind('selection.battle-model-outside-left', 'excluded',
                                           '{left:,} battle{value} with a model outside `{arg:models}` left out')


def _battles(table, *, models, spec) -> Selection:
    """The selection of pairwise battles: the battles between two of ``models`` (the others counted)."""
    if spec.get("tasks") is not None or spec.get("weights") is not None or spec.get("group_weights") is not None:
        raise ArgumentTypeError(words('battles have models, not tasks or weights: choose models with `{arg:models}`.'))
    source = table
    notes = []
    if models is not None:
        chosen = check_names(models, table.models, "models")
        if len(chosen) < 2:
            raise ArgumentError(words('`{arg:models}` must name at least two models; got {chosen!r}.', chosen=chosen))
        pos = np.array([table.models.index(m) for m in chosen])
        keep = np.isin(table.model_a, pos) & np.isin(table.model_b, pos)
        if not keep.any():
            raise InputError(words('no battle between two of the models in `{arg:models}` ({value})', value=and_names(chosen)),
                             source=table.source)
        left = table.battles(~keep)
        if left:
            notes.append(NOTE_BATTLE_MODEL_OUTSIDE_LEFT(left=left, value='s' if left != 1 else ''))
        table = table.subset(keep)
    not_models = tuple(m for m in source.models if m not in table.models)
    return Selection(table, tuple(table.models), (), None, None, LeftOut(not_models), tuple(notes), False, source,
                     dict(spec))


def _weight_spec(weights, group_weights, tasks, groups):
    """Weights as given -> (task weights, group weights) checked against every task and group of the data."""
    if isinstance(weights, str):
        if group_weights is not None:
            raise ArgumentError(words('give `{arg:weights}` as text or `{arg:group_weights}`, not both.'))
        return parse_weights(weights, tasks, groups)
    if isinstance(weights, Mapping):
        given = {str(k): v for k, v in weights.items()}
        unknown = [k for k in given if k not in tasks]
        if unknown:
            raise ArgumentError(words('`{arg:weights}` names unknown task(s) {unknown!r}.', unknown=unknown))
        weights = given
    if isinstance(group_weights, str) and group_weights.strip().lower() in GROUP_WORDS + EQUAL_WORDS[:1]:
        if not groups:
            raise ArgumentError(words('`{arg:group_weights}` needs task groups in the data (a group column).'))
        group_weights = "equal"
    return weights, group_weights


def _who(models) -> str:
    return (f"{and_names(models)} {'has' if len(models) == 1 else 'have'} no results on it" if models
            else "the selected models share no item on it")


def _refuse_not_chosen(kind, name):
    if kind == "group":
        return ArgumentError(words("`{arg:weights}` gives group '{name}' a positive weight, but none of its tasks is"
                                   " among `{arg:tasks}`; give it weight 0, or add some of its tasks to"
                                   " `{arg:tasks}`", name=name))
    if kind == "none":
        return ArgumentError(words("`{arg:weights}` names only tasks that are not among `{arg:tasks}`; no weighted task"
                                   " remains"))
    return ArgumentError(words("`{arg:weights}` gives task '{name}' a positive weight, but it is not among"
                               " `{arg:tasks}`; give it weight 0 (or leave it out of `{arg:weights}`), or add it to"
                               " `{arg:tasks}`", name=name))


def _refuse_lacking(lacking):
    def refuse(kind, name):
        if kind == "group":
            return InputError(words("`{arg:weights}` gives group '{name}' a positive weight, but none of its tasks"
                                    " has results for every selected model; give it weight 0, or leave such"
                                    " models out with `{arg:models}`", name=name))
        if kind == "none":
            return InputError(words("`{arg:weights}` names only tasks that were left out; no weighted task remains"))
        return InputError(words("`{arg:weights}` gives task '{name}' a positive weight, but {who}; give it weight 0"
                                " (or leave it out of `{arg:weights}`), or leave such models out with"
                                " `{arg:models}`", name=name, who=_who(lacking[name])))

    return refuse


def selection_of_labels(models, tasks, task_groups=None, *, select_models=None, select_tasks=None, weights=None,
                        group_weights=None) -> tuple[Selection, list, list]:
    """A selection made on labels alone (bootstrap replicates drawn earlier): ``(selection, model positions,
    task positions)``. Weights follow the rules of :func:`select`; nothing is read and no task is left out for
    lacking (replicates hold every model on every task)."""
    models, tasks = tuple(models), tuple(str(t) for t in tasks)
    m = check_names(select_models, models, "models")
    t = check_names(select_tasks, tasks, "tasks")
    groups = tuple(dict.fromkeys(task_groups.values())) if task_groups else ()
    w, gw = _weight_spec(weights, group_weights, tasks, groups)
    notes = []
    if select_tasks is not None:
        w, gw, more = restrict_weights(w, gw, tasks, task_groups, t, refuse=_refuse_not_chosen, where="in `tasks`",
                                       why=" (none among `tasks`)", per_kept_task=True)
        notes += more
    kept_groups = None if task_groups is None else {k: task_groups[k] for k in t}
    vector = None
    if w is not None or gw is not None:
        vector, more = weights_and_notes(len(t), tasks=list(t), weights=w, group_weights=gw,
                                         task_groups=kept_groups)
        notes += list(more)
    left = LeftOut(tuple(x for x in models if x not in m), tuple(x for x in tasks if x not in t), {})
    sel = Selection(None, tuple(m), tuple(t), kept_groups, vector, left, tuple(notes), True, None, {})
    return sel, [models.index(x) for x in m], [tasks.index(x) for x in t]


def with_notes(selection: Selection, notes) -> Selection:
    """The selection with more notes (each said once)."""
    return replace(selection, notes=tuple(dict.fromkeys((*selection.notes, *notes))))
