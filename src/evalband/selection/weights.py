"""Task weights: per task, per group (e.g. equal weight per group), normalized to sum to one; the one rule for
weights when tasks are left out.

One rule for every command and API call: a mapping of weights (per task or per group) may name only some of the
tasks (groups); those not named get weight 0, and a note lists them. Naming an unknown task or group is an error
that lists only the unknown names. :func:`parse_weights` reads the same rule from text (``'DTD=1'``,
``'natural=2,structured=1'``, ``'groups'``, ``'1,2,1'``), so the command line behaves like the library.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._lists import names_text, split_names
from .._validate import ArgumentError, ArgumentTypeError
from ..display.notes import NoteKind
from .._words import words

__all__ = ["resolve_weights", "weights_and_notes", "parse_weights", "restrict_weights", "GROUP_WORDS", "EQUAL_WORDS"]


def _count(names, word: str) -> str:
    return f"{len(names)} {word}{'s' if len(names) != 1 else ''}"


def resolve_weights(n_tasks: int | None, *, tasks=None, weights=None, group_weights=None,
                    task_groups=None) -> np.ndarray | None:
    """Normalized task weights (T,), or None for equal weights when ``n_tasks`` is unknown.

    Parameters
    ----------
    n_tasks : int or None
        Number of tasks (the last axis of the score matrix); inferred from ``tasks`` when None.
    tasks : sequence of str, optional
        Task names in column order; needed when weights or groups are given by name.
    weights : array (T,) or mapping task -> weight, optional
        Relative task weights (non-negative, not all zero). A mapping may name only some tasks: the others get
        weight 0 (:func:`weights_and_notes` returns the note saying so).
    group_weights : 'equal' or mapping group -> weight, optional
        Each group's total weight, shared equally among its tasks (or in proportion to ``weights`` within the
        group when both are given). 'equal' gives every group the same weight. A mapping may name only some
        groups: the others get weight 0.
    task_groups : mapping task -> group
        Needed with ``group_weights``.

    Examples
    --------
    >>> from evalband.selection import resolve_weights
    >>> tasks = ["math", "code", "chat"]
    >>> resolve_weights(3, tasks=tasks, weights={"math": 2, "code": 1, "chat": 1})
    array([0.5 , 0.25, 0.25])
    >>> resolve_weights(3, tasks=tasks, group_weights="equal",
    ...                 task_groups={"math": "reasoning", "code": "reasoning", "chat": "dialogue"})
    array([0.25, 0.25, 0.5 ])
    """
    return weights_and_notes(n_tasks, tasks=tasks, weights=weights, group_weights=group_weights,
                             task_groups=task_groups)[0]


NOTE_NOT_NAMED_WEIGHT = NoteKind('selection.weight-zero-unnamed-tasks', 'caveat',
                                  '{value} not named in `{arg:weights}` {value2} weight 0: {value3}')
NOTE_NOT_NAMED_WEIGHT_SO = NoteKind(
    'selection.weight-zero-unnamed-groups', 'caveat',
    '{value} not named in `{arg:group_weights}` {value2} weight 0 (and so do {value3} tasks): {value4}')

#: the codes of the notes that say which tasks weigh 0
WEIGHT_ZERO_CODES = (NOTE_NOT_NAMED_WEIGHT.code, NOTE_NOT_NAMED_WEIGHT_SO.code)


def weights_and_notes(n_tasks: int | None, *, tasks=None, weights=None, group_weights=None,
                      task_groups=None) -> tuple[np.ndarray | None, tuple[str, ...]]:
    """:func:`resolve_weights` and the notes on what it assumed (tasks or groups not named get weight 0).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.selection import weights_and_notes
    >>> w, notes = weights_and_notes(3, tasks=["math", "code", "chat"], weights={"math": 2, "code": 1})
    >>> np.round(w, 3)
    array([0.667, 0.333, 0.   ])
    >>> print(notes[0])
    1 task not named in `weights` gets weight 0: 'chat'
    """
    notes = []
    if tasks is not None:
        tasks = [str(t) for t in tasks]
        if n_tasks is not None and len(tasks) != n_tasks:
            raise ArgumentError(words('`{arg:tasks}` names {n_tasks} tasks; the scores have {n_tasks2}.', n_tasks=len(tasks), n_tasks2=n_tasks))
        n_tasks = len(tasks)
    if weights is None and group_weights is None:
        return (None if n_tasks is None else np.full(n_tasks, 1.0 / n_tasks)), ()
    if n_tasks is None:
        if weights is not None and not isinstance(weights, Mapping):
            n_tasks = len(np.atleast_1d(weights))
        else:
            raise ArgumentError(words('weights given by name need `{arg:tasks}` (the task names in column order).'))
    if weights is None:
        w = np.ones(n_tasks)
    elif isinstance(weights, Mapping):
        if tasks is None:
            raise ArgumentError(words('`{arg:weights}` given as a mapping needs `{arg:tasks}` (the task names in column order).'))
        given = {str(k): v for k, v in weights.items()}
        unknown = [k for k in given if k not in tasks]
        if unknown:
            raise ArgumentError(words('`{arg:weights}` names unknown task(s) {unknown!r}.', unknown=unknown))
        try:
            w = np.array([float(given.get(t, 0.0)) for t in tasks])
        except (TypeError, ValueError):
            raise ArgumentError(words('`{arg:weights}` must map task names to numbers; got {weights!r}.', weights=weights)) from None
        missing = [t for t in tasks if t not in given]
        if np.all(np.isfinite(w)) and (w >= 0).all() and w.sum() <= 0:
            raise ArgumentError(words("`{arg:weights}` give every task weight 0 (the named tasks {which}); give at"
                                      " least one task a positive weight.",
                                      which=f"are 0 and the {len(missing)} not named weigh 0" if missing
                                      else "are all 0"))
        if missing:
            notes.append(NOTE_NOT_NAMED_WEIGHT(value=_count(missing, 'task'), value2='gets' if len(missing) == 1 else 'get', value3=names_text(missing)))
    else:
        w = np.asarray(weights, dtype=np.float64).ravel()
        if w.shape != (n_tasks,):
            raise ArgumentError(words('`{arg:weights}` must have one entry per task ({n_tasks}); got {value}.', n_tasks=n_tasks, value=w.shape[0]))
    if not np.all(np.isfinite(w)) or (w < 0).any() or w.sum() <= 0:
        raise ArgumentError(words('`{arg:weights}` must be finite, non-negative and not all zero; got {value!r}.', value=w.tolist()))
    if group_weights is not None:
        if task_groups is None or tasks is None:
            raise ArgumentError(words('`{arg:group_weights}` needs `task_groups` (task -> group) and `{arg:tasks}`.'))
        groups = [str(task_groups.get(t)) if t in task_groups else None for t in tasks]
        if None in groups:
            raise ArgumentError(f"`task_groups` has no group for task(s) {[t for t, g in zip(tasks, groups) if g is None]!r}.")
        names = list(dict.fromkeys(groups))
        if isinstance(group_weights, str):
            if group_weights.strip().lower() != "equal":
                raise ArgumentError(words("`{arg:group_weights}` must be 'equal' or a mapping group -> weight; got {group_weights!r}.", group_weights=group_weights))
            gw = {g: 1.0 for g in names}
        elif isinstance(group_weights, Mapping):
            try:
                gw = {str(k): float(v) for k, v in group_weights.items()}
            except (TypeError, ValueError):
                raise ArgumentError(words('`{arg:group_weights}` must map group names to numbers; got {group_weights!r}.', group_weights=group_weights)) from None
            unknown = [g for g in gw if g not in names]
            if unknown:
                raise ArgumentError(words('`{arg:group_weights}` names unknown group(s) {unknown!r}; groups are {names!r}.', unknown=unknown, names=names))
            missing = [g for g in names if g not in gw]
            if missing:
                notes.append(NOTE_NOT_NAMED_WEIGHT_SO(value=_count(missing, 'group'), value2='gets' if len(missing) == 1 else 'get', value3='its' if len(missing) == 1 else 'their', value4=names_text(missing)))
                gw.update({g: 0.0 for g in missing})
        else:
            raise ArgumentTypeError(words("`{arg:group_weights}` must be 'equal' or a mapping group -> weight."))
        if not all(np.isfinite(v) and v >= 0 for v in gw.values()):
            raise ArgumentError(words('`{arg:group_weights}` must be finite and non-negative; got {gw!r}.', gw=gw))
        g_arr = np.array(groups)
        out = np.zeros(n_tasks)
        for g in names:
            mask = g_arr == g
            within = w[mask]
            if within.sum() > 0:
                out[mask] = gw[g] * within / within.sum()
        w = out
        if w.sum() <= 0:
            raise ArgumentError(words('`{arg:group_weights}` give every task zero weight.'))
    return w / w.sum(), tuple(notes)


#: ``--weights`` words for equal weight per group, and for equal weight per task (the default)
GROUP_WORDS = ("groups", "group", "equal-groups")
EQUAL_WORDS = ("equal", "tasks")


def parse_weights(text, tasks, groups=()) -> tuple:
    """Weights written as text (the command line's ``--weights``) -> ``(weights, group_weights)``.

    Parameters
    ----------
    text : str or None
        ``None``, ``''``, ``'equal'`` or ``'tasks'``: equal task weights. ``'groups'``: equal weight per group.
        ``'name=w,...'``: weights of tasks, or of groups (all names tasks, or all groups); tasks or groups not
        named get weight 0. ``'w1,w2,...'``: one weight per task, in task order. A name holding commas is
        quoted as in CSV (``'"mmlu:subject=law,method=mc"=2'``; names may hold ``=``: the last one splits), and
        ``'@FILE'`` reads one entry per line (:func:`evalband._lists.split_names`).
    tasks : sequence of str
        The data's task names.
    groups : sequence of str
        The data's group names (empty without groups).

    Returns
    -------
    weights : list, dict or None
    group_weights : 'equal', dict or None
        Ready for :func:`resolve_weights` (and every aggregate taking ``weights``/``group_weights``).

    Examples
    --------
    >>> from evalband.selection import parse_weights
    >>> tasks = ["math", "code", "chat"]
    >>> parse_weights("math=2,code=1", tasks)
    ({'math': 2.0, 'code': 1.0}, None)
    >>> parse_weights("2,1,1", tasks)
    ([2.0, 1.0, 1.0], None)
    >>> parse_weights("groups", tasks, groups=["reasoning", "dialogue"])
    (None, 'equal')
    """
    tasks = [str(t) for t in tasks]
    groups = [str(g) for g in (groups or ())]
    if text is None:
        return None, None
    text = str(text).strip()
    key = text.lower()
    if key in ("",) + EQUAL_WORDS:
        return None, None
    if key in GROUP_WORDS:
        if not groups:
            raise ArgumentError(words("`{arg:weights}` 'groups' needs task groups in the data (a group column)."))
        return None, "equal"
    parts = split_names(text, name="weights")  # "quoted,names"=w and @FILE (one name=w per line)
    if not parts:
        raise ArgumentError(words('`{arg:weights}` is empty; got {text!r}.', text=text))
    if all("=" not in p for p in parts):
        try:
            return [float(p) for p in parts], None
        except ValueError:
            raise ArgumentError(words("`{arg:weights}` must be 'equal', 'groups', numbers in task order or {arg:name=weight} pairs; got {text!r}.", text=text)) from None
    pairs = {}
    for p in parts:
        if "=" not in p:
            raise ArgumentError(words("`{arg:weights}`: {p!r} has no '=' ({arg:name=weight} pairs mixed with bare numbers in {text!r}).", p=p, text=text))
        name, value = (x.strip() for x in p.rsplit("=", 1))
        if not name:
            raise ArgumentError(words("`{arg:weights}`: no name before '=' in {p!r}; write {arg:name=weight.}", p=p))
        if name in pairs:
            raise ArgumentError(words('`{arg:weights}` names {name!r} twice.', name=name))
        try:
            pairs[name] = float(value)
        except ValueError:
            raise ArgumentError(words('`{arg:weights}`: {value!r} is not a number (in {p!r}).', value=value, p=p)) from None
    if groups and set(pairs) <= set(groups) and not set(pairs) & set(tasks):
        return None, pairs
    unknown = sorted(set(pairs) - set(tasks) - set(groups))
    if unknown:
        raise ArgumentError(words("`{arg:weights}` names unknown task(s) or group(s) {unknown!r}{groups}.",
                                  unknown=unknown, groups=f"; groups are {sorted(groups)!r}" if groups else ""))
    if set(pairs) - set(tasks):
        raise ArgumentError(words('`{arg:weights}` mixes group names {value!r} with task names; give all groups or all tasks.', value=sorted(set(pairs) - set(tasks))))
    return pairs, None


NOTE_GROUP_S_LEFT_OUT = NoteKind(
    'selection.group-s-left-out', 'excluded',
    'group(s) {value} left out with all their tasks{why}; the other groups share the weight equally')
NOTE_GROUP_KEEPS_ITS_WEIGHT = NoteKind(
    'selection.group-keeps-its-weight', 'info',
    "group '{g}' keeps its weight, shared among the {value} of its {value2} tasks {where}")
NOTE_GROUP_KEEPS_ITS_WEIGHT_CHOSEN = NoteKind(
    'selection.group-keeps-its-weight-chosen', 'info',
    "group '{g}' keeps its weight, shared among the {value} of its {value2} tasks in `{arg:tasks}`")
NOTE_GROUP_S_LEFT_OUT_CHOSEN = NoteKind(
    'selection.group-s-left-out-chosen', 'excluded',
    'group(s) {value} left out with all their tasks (none among `{arg:tasks}`); the other groups share the weight'
    ' equally')
_CHOSEN_WHERE, _CHOSEN_WHY = "in `tasks`", " (none among `tasks`)"


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

    Examples
    --------
    >>> from evalband.selection import restrict_weights
    >>> refuse = lambda kind, name: ValueError(f"{kind} {name!r} has a positive weight but is left out")
    >>> restrict_weights({"math": 2, "code": 1, "chat": 0}, None, ["math", "code", "chat"], None,
    ...                  ["math", "code"], refuse=refuse)
    ({'math': 2, 'code': 1}, None, [])
    >>> restrict_weights({"math": 2, "code": 1, "chat": 1}, None, ["math", "code", "chat"], None,
    ...                  ["math", "code"], refuse=refuse)
    Traceback (most recent call last):
    ...
    ValueError: task 'chat' has a positive weight but is left out
    >>> groups = {"algebra": "math", "geometry": "math", "python": "code"}
    >>> _, group_weights, notes = restrict_weights(None, "equal", list(groups), groups, ["algebra", "python"],
    ...                                            refuse=refuse)
    >>> group_weights, [str(n) for n in notes]
    ('equal', ["group 'math' keeps its weight, shared among the 1 of its 2 tasks left"])
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
                raise ArgumentError(words('`{arg:weights}` must have one entry per task ({n_tasks}, before any is left out){value}; got {value2}.', n_tasks=len(tasks), value=f' or per kept task ({len(kept)})' if per_kept_task else '', value2=arr.shape[0]))
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
            notes.append(NOTE_GROUP_S_LEFT_OUT_CHOSEN(value=names_text(gone)) if why == _CHOSEN_WHY
                         else NOTE_GROUP_S_LEFT_OUT(value=names_text(gone), why=why))
        for g in groups:
            if remaining[g] and len(remaining[g]) < len(total[g]) and (
                    not isinstance(group_weights, Mapping) or _positive(group_weights.get(g, 0))):
                kind, more = ((NOTE_GROUP_KEEPS_ITS_WEIGHT_CHOSEN, {}) if where == _CHOSEN_WHERE
                              else (NOTE_GROUP_KEEPS_ITS_WEIGHT, {"where": where}))
                notes.append(kind(g=g, value=len(remaining[g]), value2=len(total[g]), **more))
    return weights, group_weights, notes


def _positive(v) -> bool:
    try:
        return float(v) > 0
    except (TypeError, ValueError):
        return True  # not a number: let the weights check name it
