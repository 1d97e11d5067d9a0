"""Task weights for aggregates: per task, per group (e.g. equal weight per group), normalized to sum to one."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["resolve_weights"]


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
        Relative task weights (non-negative, not all zero).
    group_weights : 'equal' or mapping group -> weight, optional
        Each group's total weight, shared equally among its tasks (or in proportion to ``weights`` within the
        group when both are given). 'equal' gives every group the same weight.
    task_groups : mapping task -> group
        Needed with ``group_weights``.
    """
    if tasks is not None:
        tasks = [str(t) for t in tasks]
        if n_tasks is not None and len(tasks) != n_tasks:
            raise ValueError(f"`tasks` names {len(tasks)} tasks; the scores have {n_tasks}.")
        n_tasks = len(tasks)
    if weights is None and group_weights is None:
        return None if n_tasks is None else np.full(n_tasks, 1.0 / n_tasks)
    if n_tasks is None:
        if weights is not None and not isinstance(weights, Mapping):
            n_tasks = len(np.atleast_1d(weights))
        else:
            raise ValueError("weights given by name need `tasks` (the task names in column order).")
    if weights is None:
        w = np.ones(n_tasks)
    elif isinstance(weights, Mapping):
        if tasks is None:
            raise ValueError("`weights` given as a mapping needs `tasks` (the task names in column order).")
        unknown = [k for k in weights if str(k) not in tasks]
        if unknown:
            raise ValueError(f"`weights` names unknown task(s) {unknown!r}; tasks: {tasks!r}.")
        missing = [t for t in tasks if t not in {str(k) for k in weights}]
        if missing:
            raise ValueError(f"`weights` lacks task(s) {missing!r}; give every task a weight (0 to drop one).")
        w = np.array([float({str(k): v for k, v in weights.items()}[t]) for t in tasks])
    else:
        w = np.asarray(weights, dtype=np.float64).ravel()
        if w.shape != (n_tasks,):
            raise ValueError(f"`weights` must have one entry per task ({n_tasks}); got {w.shape[0]}.")
    if not np.all(np.isfinite(w)) or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"`weights` must be finite, non-negative and not all zero; got {w.tolist()!r}.")
    if group_weights is not None:
        if task_groups is None or tasks is None:
            raise ValueError("`group_weights` needs `task_groups` (task -> group) and `tasks`.")
        groups = [str(task_groups.get(t)) if t in task_groups else None for t in tasks]
        if None in groups:
            raise ValueError(f"`task_groups` has no group for task(s) {[t for t, g in zip(tasks, groups) if g is None]!r}.")
        names = list(dict.fromkeys(groups))
        if isinstance(group_weights, str):
            if group_weights.strip().lower() != "equal":
                raise ValueError(f"`group_weights` must be 'equal' or a mapping group -> weight; got {group_weights!r}.")
            gw = {g: 1.0 for g in names}
        elif isinstance(group_weights, Mapping):
            gw = {str(k): float(v) for k, v in group_weights.items()}
            unknown = [g for g in gw if g not in names]
            missing = [g for g in names if g not in gw]
            if unknown or missing:
                raise ValueError(f"`group_weights` must name each group once: groups are {names!r}"
                                 + (f"; unknown {unknown!r}" if unknown else "") + (f"; missing {missing!r}" if missing else ""))
        else:
            raise TypeError("`group_weights` must be 'equal' or a mapping group -> weight.")
        if not all(np.isfinite(v) and v >= 0 for v in gw.values()):
            raise ValueError(f"`group_weights` must be finite and non-negative; got {gw!r}.")
        g_arr = np.array(groups)
        out = np.zeros(n_tasks)
        for g in names:
            mask = g_arr == g
            within = w[mask]
            if within.sum() > 0:
                out[mask] = gw[g] * within / within.sum()
        w = out
        if w.sum() <= 0:
            raise ValueError("`group_weights` give every task zero weight.")
    return w / w.sum()
