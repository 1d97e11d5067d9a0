"""Bootstrap intervals at the edges: the proportion interval under a per-model or per-task bootstrap interval.

A percentile bootstrap of a proportion from few items is too narrow, and at 0 or 1 (every item right, or every
item wrong) every replicate is the same: the interval has zero width and the standard error is 0, which says only
that the items agree, not that the score is known. :func:`widen_tasks` (per model and task) and
:func:`widen_aggregate` (each model's aggregate over tasks) put the interval ``summarize`` gives, Wilson's, under
such intervals:

* **Proportions** (0/1 scores; also their means over trials, with the items as the units): where a cell has fewer
  than :data:`MIN_ITEMS` items, or fewer than :data:`MIN_COUNT` right or wrong, or a zero-width interval, the
  interval is widened to contain Wilson's (the union of the two), and its standard error is at least the one
  Wilson's interval implies, ``(high - low) / (2 z)``. An aggregate over tasks takes, for each such task, draws
  of the Wilson confidence distribution (whose percentile interval is Wilson's) in place of the task's
  replicates, and is widened to the percentile interval of those draws.
* **Scores in [0, 1] that are not 0/1** at 0 or 1 with a zero-width interval: Wilson's interval on the items is a
  valid bound (a score in [0, 1] has mean at most the share of items above 0), and is used the same way.
* **Anything else** with a zero-width interval (or a standard error of 0) has no interval: it is withheld (NaN)
  and a note says why.

The rule is one function per shape, called wherever a per-model or per-task bootstrap interval is shown (the
report, ``rank``, ``frontier``, the summary of one model); a note names the cells it changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._distributions import norm_ppf
from .._random import block_generator, name_key
from .._validate import check_confidence_level
from ..estimation.edges import degenerate
from ..estimation.confidence import ConfidenceInterval
from ..display.notes import NoteKind

__all__ = ["FLOOR_METHOD", "CellCounts", "Widened", "MIN_ITEMS", "MIN_COUNT", "widen_tasks", "widen_aggregate", "withhold_degenerate",
           "wilson_draws",
           "degenerate", "OWN_SCALE_AGGREGATES"]

#: a bootstrap interval of a proportion from fewer items than this is widened to contain Wilson's
MIN_ITEMS = 30
#: ... and so is one with fewer right (or fewer wrong) answers than this
MIN_COUNT = 5
#: aggregates that are each model's own function of its task scores, on their scale (proportions stay proportions)
OWN_SCALE_AGGREGATES = ("mean", "geometric", "harmonic", "minmax", "chance-normalized", "median", "iqm",
                        "optimality-gap")
#: the sentence of a report's methods that states the floor (where the scores are 0/1)
FLOOR_METHOD = (f"A bootstrap interval of a proportion from a task with fewer than {MIN_ITEMS} items, fewer than"
                f" {MIN_COUNT} right or wrong, or every item alike is widened to contain the Wilson interval (Brown,"
                " Cai & DasGupta 2001), which summarize gives; an aggregate over tasks then takes draws of the Wilson"
                " confidence distribution for such tasks.")
#: the entropy of the Wilson draws (fixed: the floor depends on the data, not on the seed)
_ENTROPY = (0x57494C53, 0x4F4E)


@dataclass(frozen=True)


class CellCounts:
    """The units behind each per-task statistic of a replicate set whose statistic is a mean of scores in [0, 1].

    Attributes
    ----------
    n : numpy.ndarray, shape (M, T)
        Items behind each (model, task) mean (0 where a model has none).
    binary : bool
        True for 0/1 scores (the mean is a proportion of items, or of an item's trials); False for other scores
        in [0, 1] (only a mean at 0 or 1 gets a floor).
    """

    n: np.ndarray
    binary: bool = True

    def take(self, models, tasks) -> "CellCounts":
        return CellCounts(np.asarray(self.n)[np.ix_(list(models), list(tasks))], self.binary)


@dataclass(frozen=True)


class Widened:
    """Intervals and standard errors after the floor (shaped as given), what changed, and the note that says so."""

    ci: ConfidenceInterval
    se: np.ndarray
    widened: np.ndarray
    withheld: np.ndarray
    notes: tuple = ()


def _z(level: float) -> float:
    return float(norm_ppf(0.5 + level / 2))


def _floor_cells(p, n, flat, binary: bool) -> np.ndarray:
    """Which cells get the Wilson floor: few items or few right/wrong (0/1 scores), or flat at 0 or 1."""
    p = np.asarray(p, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    ok = np.isfinite(p) & (n > 0)
    if binary:
        with np.errstate(invalid="ignore"):
            few = (n < MIN_ITEMS) | (n * np.minimum(p, 1 - p) < MIN_COUNT - 1e-9)
        return ok & (few | flat)
    return ok & flat & ((p <= 0) | (p >= 1))


def wilson_draws(p, n, models, tasks, n_draws: int) -> np.ndarray:
    """``n_draws`` draws of the Wilson confidence distribution of each cell (K,) -> (n_draws, K): its quantiles at
    an even grid of levels, in an order of their own per (model, task) name (so that tasks combine independently).

    Examples
    --------
    >>> import numpy as np
    >>> d = wilson_draws(np.array([1.0]), np.array([10.0]), ["m"], ["t"], 1000)
    >>> d.shape, bool(d.max() <= 1.0), bool(np.quantile(d, 0.025) < 0.8)
    ((1000, 1), True, True)
    """
    grid = np.clip(np.linspace(0.0, 1.0, n_draws), 1e-15, 1 - 1e-15)
    from ..estimation.proportion import wilson_bounds

    q = wilson_bounds(np.asarray(p)[None], np.asarray(n)[None], norm_ppf(grid)[:, None])  # (n_draws, K)
    out = np.empty_like(q)
    for k, (m, t) in enumerate(zip(models, tasks)):
        out[:, k] = q[block_generator(_ENTROPY, (name_key(m), name_key(t))).permutation(n_draws), k]
    return out


def _cells_text(pairs, limit: int = 4) -> str:
    shown = ", ".join(f"{m} on {t}" for m, t in pairs[:limit])
    return shown + (f" and {len(pairs) - limit} more" if len(pairs) > limit else "")


NOTE_WIDENED_TO_WILSON = NoteKind('resample.widened-to-wilson', 'caveat',
                                  '{what} of {value}: widened to contain the Wilson interval that summarize gives (a bootstrap interval of a proportion from fewer than {min_items} items, or fewer than {min_count} right or wrong, is too narrow, and has zero width when every item scores the same); the standard error is at least the one that interval implies')


def _widen_note(pairs, what: str) -> str:
    return (NOTE_WIDENED_TO_WILSON(what=what, value=_cells_text(pairs), min_items=MIN_ITEMS, min_count=MIN_COUNT))


NOTE_WITHHELD = NoteKind("resample.no-interval-replicates-alike", "excluded",
                         "{what} of {shown}: no interval (every bootstrap replicate is the same, from too few units or"
                         " units that all agree, so the bootstrap says nothing about its uncertainty)")


def _withheld_note(names, what: str) -> str:
    """``names``: (model, task) pairs or model names."""
    shown = (_cells_text(names) if isinstance(names[0], tuple)
             else ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else ""))
    return NOTE_WITHHELD(what=what, shown=shown)


def widen_tasks(reps, low, high, se, *, confidence_level=0.95) -> Widened:
    """The per-(model, task) intervals of a replicate set with the floor of this module (see the module doc).

    Parameters
    ----------
    reps : Replicates
        Its ``observed`` (M, T), ``models``, ``tasks`` and ``cells`` (:class:`CellCounts`, or None when the
        statistic is not a mean of scores in [0, 1]).
    low, high, se : array_like, shape (M, T)
        The bootstrap intervals and standard errors.
    confidence_level : float

    Returns
    -------
    Widened

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.resample import bootstrap, interval
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": range(10), "score": 0})
    >>> reps = bootstrap(df, n_resamples=200, rng=0)
    >>> ci = interval(reps.replicates, reps.observed)
    >>> w = widen_tasks(reps, ci.low, ci.high, reps.se)
    >>> float(ci.high[0, 0]), round(float(w.ci.high[0, 0]), 3)
    (0.0, 0.278)
    """
    level = check_confidence_level(confidence_level)
    lo = np.array(low, dtype=np.float64, copy=True)
    hi = np.array(high, dtype=np.float64, copy=True)
    sd = np.array(se, dtype=np.float64, copy=True)
    flat = degenerate(lo, hi, sd)
    cells = getattr(reps, "cells", None)
    obs = np.asarray(reps.observed, dtype=np.float64)
    if cells is None:
        floor = np.zeros(obs.shape, dtype=bool)
    else:
        floor = _floor_cells(obs, cells.n, flat, cells.binary)
    notes = []
    if floor.any():
        from ..estimation.proportion import wilson_bounds

        z = _z(level)
        n = np.asarray(cells.n, dtype=np.float64)
        wl, wh = wilson_bounds(obs, n, -z), wilson_bounds(obs, n, z)
        lo = np.where(floor, np.fmin(lo, wl), lo)
        hi = np.where(floor, np.fmax(hi, wh), hi)
        sd = np.where(floor, np.fmax(sd, (wh - wl) / (2 * z)), sd)
        changed = floor & ((lo < np.asarray(low) - 1e-15) | (hi > np.asarray(high) + 1e-15) | flat)
        if changed.any():
            idx = np.argwhere(changed)
            notes.append(_widen_note([(reps.models[i], reps.tasks[j]) for i, j in idx], "per-task intervals"))
        floor = changed
    gone = flat & ~floor & np.isfinite(obs)
    if gone.any():
        lo[gone] = hi[gone] = sd[gone] = np.nan
        idx = np.argwhere(gone)
        notes.append(_withheld_note([(reps.models[i], reps.tasks[j]) for i, j in idx], "per-task intervals"))
    return Widened(ConfidenceInterval(lo, hi), sd, floor, gone, tuple(notes))


NOTE_INTERVALS_OVER_TASKS_WIDENED = NoteKind(
    'resample.intervals-over-tasks-widened', 'caveat',
    'intervals of the {name} over tasks of {value}{value2}: widened to contain the interval from Wilson '
    'intervals of the tasks with few items, or with every item alike (there the bootstrap of a proportion is too '
    'narrow, or of zero width)')


def widen_aggregate(reps, aggregate, observed, samples, low, high, se, *, confidence_level=0.95) -> Widened:
    """Each model's aggregate interval over tasks with the floor of this module (see the module doc).

    Parameters
    ----------
    reps : Replicates
        The per-task replicate set the aggregate was evaluated on.
    aggregate : Aggregate or str
        The aggregate (its ``name`` decides whether it is each model's own function of its task scores on their
        scale, :data:`OWN_SCALE_AGGREGATES`; other aggregates, such as ranks, are left as they are).
    observed : array_like, shape (M,)
    samples : array_like, shape (B, M)
        The aggregate on the data and on every replicate.
    low, high, se : array_like, shape (M,)
    confidence_level : float

    Returns
    -------
    Widened
    """
    level = check_confidence_level(confidence_level)
    lo = np.array(low, dtype=np.float64, copy=True)
    hi = np.array(high, dtype=np.float64, copy=True)
    sd = np.array(se, dtype=np.float64, copy=True)
    name = getattr(aggregate, "name", aggregate)
    flat = degenerate(lo, hi, sd)
    if name not in OWN_SCALE_AGGREGATES or not callable(aggregate):
        return Widened(ConfidenceInterval(lo, hi), sd, np.zeros(lo.shape, bool), np.zeros(lo.shape, bool))
    cells = getattr(reps, "cells", None)
    obs_t = np.asarray(reps.observed, dtype=np.float64)
    notes = []
    widened = np.zeros(lo.shape, dtype=bool)
    if cells is not None:
        r = reps.replicates
        task_flat = (r.max(axis=0) - r.min(axis=0)) <= 1e-12 * np.maximum(1.0, np.abs(obs_t))
        floor = _floor_cells(obs_t, cells.n, task_flat, cells.binary)
        weights = getattr(aggregate, "weights", None)
        if weights is not None:
            floor = floor & (np.asarray(weights)[None, :] > 0)
        rows = np.flatnonzero(floor.any(axis=1))
        if rows.size:
            hybrid = np.array(reps.replicates[:, rows, :], dtype=np.float64)
            mi, ti = np.nonzero(floor[rows])
            draws = wilson_draws(obs_t[rows[mi], ti], np.asarray(cells.n)[rows[mi], ti],
                                  [reps.models[r] for r in rows[mi]], [reps.tasks[t] for t in ti],
                                  hybrid.shape[0])
            hybrid[:, mi, ti] = draws
            with np.errstate(invalid="ignore", divide="ignore"):
                agg = np.asarray(aggregate(hybrid), dtype=np.float64)  # (B, rows)
            tail = (1 - level) / 2
            flo, fhi = np.quantile(agg, [tail, 1 - tail], axis=0)
            z = _z(level)
            new_lo, new_hi = np.fmin(lo[rows], flo), np.fmax(hi[rows], fhi)
            changed = (new_lo < lo[rows] - 1e-15) | (new_hi > hi[rows] + 1e-15) | flat[rows]
            lo[rows], hi[rows] = new_lo, new_hi
            sd[rows] = np.fmax(sd[rows], (fhi - flo) / (2 * z))
            widened[rows] = changed
            if changed.any():
                names = [reps.models[r] for r in rows[changed]]
                notes.append(NOTE_INTERVALS_OVER_TASKS_WIDENED(name=name, value=', '.join(names[:4]), value2=f' and {len(names) - 4} more' if len(names) > 4 else ''))
    gone = degenerate(lo, hi, sd) & np.isfinite(np.asarray(observed, dtype=np.float64))
    if gone.any():
        lo[gone] = hi[gone] = sd[gone] = np.nan
        notes.append(_withheld_note([reps.models[i] for i in np.flatnonzero(gone)], f"the {name} over tasks"))
    return Widened(ConfidenceInterval(lo, hi), sd, widened, gone, tuple(notes))


def withhold_degenerate(low, high, se, names, *, what: str) -> Widened:
    """Withhold (NaN) zero-width intervals and zero standard errors of statistics that are not proportions, with
    the note that says why (ratings, costs, coefficients: a bootstrap that never varies gives no interval)."""
    lo = np.array(low, dtype=np.float64, copy=True)
    hi = np.array(high, dtype=np.float64, copy=True)
    sd = np.array(se, dtype=np.float64, copy=True)
    gone = degenerate(lo, hi, sd)
    notes = ()
    if gone.any():
        lo[gone] = hi[gone] = sd[gone] = np.nan
        notes = (_withheld_note([str(names[i]) for i in np.flatnonzero(gone)], what),)
    return Widened(ConfidenceInterval(lo, hi), sd, np.zeros(lo.shape, bool), gone, notes)
