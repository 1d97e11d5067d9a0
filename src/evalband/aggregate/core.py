"""Aggregates across tasks as functions of a score matrix whose last two axes are (models, tasks).

``get_aggregate(name, ...)`` returns an :class:`Aggregate`, a callable ``scores (..., M, T) -> (..., M)`` that works
on the observed matrix (M, T) and on bootstrap replicates (B, M, T) alike, so point estimates and intervals come
from the same replicates::

    reps = bootstrap(table, rng=1)
    agg = get_aggregate("mean", group_weights="equal", replicates=reps)
    low, high = interval(agg(reps.replicates), agg(reps.observed))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from .._validate import ArgumentError, check_choice
from ..selection.weights import weights_and_notes
from .ranks import binned_task_ranks, task_ranks, task_win_rates
from ..display.reprs import displayed
from .._words import words

__all__ = ["Aggregate", "get_aggregate", "AGGREGATES", "PARAMETERS", "PARAMETER_SYNTAX", "parse_parameter"]


@displayed
@dataclass(frozen=True, repr=False)
class Aggregate:
    """A named aggregate across tasks; call it on (..., M, T) scores to get (..., M).

    Attributes
    ----------
    name : str
    fn : callable
    higher_is_better : bool
        False for mean rank and the optimality gap (smaller is better); rankings must respect it.
    weights : numpy.ndarray or None
        The normalized task weights used, when the aggregate is weighted.
    description : str
    notes : tuple of str
        What the weights assumed (e.g. tasks not named in a mapping of weights get weight 0).
    on_score_scale : bool
        Whether values are on the per-task score's scale (means, normalized means: shown in points when the
        scores are proportions); False for ranks, win rates and probabilities of improvement.
    """

    name: str
    fn: Callable = field(repr=False)
    higher_is_better: bool = True
    weights: np.ndarray | None = None
    description: str = ""
    notes: tuple = ()
    on_score_scale: bool = True

    def __call__(self, scores) -> np.ndarray:
        s = np.asarray(scores, dtype=np.float64)
        if s.ndim < 2:
            raise ArgumentError(f"aggregate '{self.name}': scores must be (..., models, tasks); got shape {s.shape}.")
        if self.weights is not None and self.weights.shape[0] != s.shape[-1]:
            raise ArgumentError(f"aggregate '{self.name}' has {self.weights.shape[0]} task weights; the scores have"
                             f" {s.shape[-1]} tasks.")
        out = np.asarray(self.fn(s), dtype=np.float64)
        if out.shape != s.shape[:-1]:
            raise ArgumentError(f"aggregate '{self.name}' returned shape {out.shape}; expected {s.shape[:-1]}"
                             " (one value per model, over the leading axes).")
        return out


def _weighted(w, fn=None):
    def agg(s):
        ww = np.full(s.shape[-1], 1.0 / s.shape[-1]) if w is None else w
        return (s if fn is None else fn(s)) @ ww
    return agg


def _geometric(w):
    def agg(s):
        if (s < 0).any():
            raise ArgumentError("the geometric mean needs non-negative scores.")
        ww = np.full(s.shape[-1], 1.0 / s.shape[-1]) if w is None else w
        with np.errstate(divide="ignore"):
            logs = np.log(s)
        # a zero score with positive weight makes the geometric mean 0; zero-weight tasks do not count
        zero = ((s == 0) & (ww > 0)).any(axis=-1)
        val = np.exp(np.where(np.isneginf(logs), 0.0, logs) @ ww)
        return np.where(zero, 0.0, val)
    return agg


def _harmonic(w):
    def agg(s):
        if (s < 0).any():
            raise ArgumentError("the harmonic mean needs non-negative scores.")
        ww = np.full(s.shape[-1], 1.0 / s.shape[-1]) if w is None else w
        zero = ((s == 0) & (ww > 0)).any(axis=-1)
        with np.errstate(divide="ignore"):
            inv = np.where(s > 0, 1.0 / np.where(s > 0, s, 1.0), 0.0) @ ww
        with np.errstate(divide="ignore"):
            return np.where(zero, 0.0, 1.0 / inv)
    return agg


def _per_task(values, tasks, name, n_tasks=None) -> np.ndarray:
    if isinstance(values, Mapping):
        if tasks is None:
            raise ArgumentError(words('`{arg:{name}}` given as a mapping needs `{arg:tasks}` (or `replicates=`).', name=name))
        missing = [t for t in tasks if t not in values]
        if missing:
            raise ArgumentError(words('`{arg:{name}}` lacks task(s) {missing!r}.', name=name, missing=missing))
        return np.array([float(values[t]) for t in tasks])
    return np.asarray(values, dtype=np.float64)


def _fit_bounds(fit):
    arr = getattr(fit, "replicates", fit)
    arr = np.asarray(arr, dtype=np.float64)
    obs = getattr(fit, "observed", None)
    flat = arr.reshape(-1, arr.shape[-1])
    if obs is not None:
        flat = np.concatenate([flat, np.asarray(obs).reshape(-1, arr.shape[-1])])
    return np.nanmin(flat, axis=0), np.nanmax(flat, axis=0)


AGGREGATES = ("mean", "geometric", "harmonic", "minmax", "chance-normalized", "mean-rank", "binned-rank",
              "win-rate", "median", "iqm", "optimality-gap", "probability-of-improvement")


def get_aggregate(name="mean", *, weights=None, group_weights=None, task_groups=None, tasks=None, models=None,
                  replicates=None, floors=None, ceilings=None, fit=None, chance=None, bin_width=None,
                  gamma: float = 1.0, baseline=None) -> Aggregate:
    """An aggregate across tasks, as a callable ``scores (..., M, T) -> (..., M)``.

    Parameters
    ----------
    name : str or callable
        One of :data:`AGGREGATES`, or your own function of the (..., models, tasks) matrix returning (..., models)
        (it must broadcast over leading axes, e.g. use ``axis=-1``).
    weights : array (T,) or mapping task -> weight, optional
        Task weights (normalized to sum to one) for 'mean', 'geometric', 'harmonic', 'minmax',
        'chance-normalized', 'mean-rank', 'binned-rank' and 'win-rate'. A mapping may name only some tasks: the
        others get weight 0, and :attr:`Aggregate.notes` lists them. Unknown names are an error.
    group_weights : 'equal' or mapping group -> weight, optional
        Weight per group of tasks, shared among the group's tasks ('equal': every group the same). Groups a
        mapping does not name get weight 0 (listed in :attr:`Aggregate.notes`).
    task_groups : mapping task -> group, optional
    tasks, models : sequence of str, optional
        Column and row names (for weights or baselines given by name).
    replicates : Replicates, optional
        Supplies ``tasks``, ``models`` and ``task_groups`` (and the fit for ``minmax`` when ``fit=True``).
    floors, ceilings : array (T,) or mapping, optional
        'minmax': ``(s - floor) / (ceiling - floor)`` per task (chance level, human, state of the art ...).
    fit : Replicates or array (..., T), or True, optional
        'minmax': take floors and ceilings as the min and max over all models and replicates (and the observed
        values) per task, as Longjohn et al. (2025) did; ``True`` uses ``replicates``.
    chance : array (T,) or mapping, optional
        'chance-normalized': ``(s - chance) / (1 - chance)`` per task.
    bin_width : float
        'binned-rank': scores in the same bin ``[k w, (k+1) w)`` tie before ranking.
    gamma : float
        'optimality-gap': the target score (1 = human level for human-normalized scores).
    baseline : str or int
        'probability-of-improvement': the model compared against.

    Returns
    -------
    Aggregate
        Callable; ``.higher_is_better`` is False for 'mean-rank', 'binned-rank' and 'optimality-gap'.

    Notes
    -----
    Task-level vs run-level: 'iqm', 'median', 'optimality-gap' and 'probability-of-improvement' here act on one
    score per task (the per-task statistic of the replicates): IQM is the 25%-trimmed mean over tasks, the
    optimality gap ``gamma - mean_t min(s_t, gamma)``, the probability of improvement the share of tasks on which
    the model beats ``baseline`` (ties half). rliable defines IQM, the optimality gap and the probability of
    improvement over **runs** pooled across tasks; for that, bootstrap the run-level scores with
    :func:`evalband.resample.bootstrap_items` and the functions of :mod:`evalband.aggregate.rliable`. The median
    over tasks of per-task means is the same in both views.

    'mean-rank' averages (weighted) each model's rank within each task (1 = best, ties averaged). 'win-rate' is
    HELM's mean win rate: per task, the share of other models beaten (ties count half), averaged over tasks
    (Liang et al. 2023; ``compute_aggregate_row_win_rates`` in stanford-crfm/helm). The geometric and harmonic
    means are 0 when a positively weighted task scores 0, and refuse negative scores.

    References
    ----------
    Longjohn, R., Gopalan, G. & Casleton, E. (2025). arXiv:2501.04234 (min-max normalization, ranks).
    Agarwal, R. et al. (2021). Deep RL at the edge of the statistical precipice. NeurIPS (IQM, optimality gap,
    probability of improvement).
    Liang, P. et al. (2023). Holistic evaluation of language models. TMLR (mean win rate).

    Examples
    --------
    >>> import evalband as eb
    >>> agg = eb.get_aggregate("median")
    >>> agg.name
    'median'
    """
    if replicates is not None:
        tasks = replicates.tasks if tasks is None else tasks
        models = replicates.models if models is None else models
        task_groups = replicates.task_groups if task_groups is None else task_groups
        if fit is True:
            fit = replicates
    if fit is True:
        raise ArgumentError("`fit=True` needs `replicates=`.")
    if isinstance(name, str) and ":" in name:  # 'binned-rank:0.01', 'optimality-gap:0.9', ...: the text syntax
        name, options = parse_parameter(name)
        bin_width = options.get("bin_width", bin_width)
        gamma = options.get("gamma", gamma)
        baseline = options.get("baseline", baseline)
        chance = options.get("chance", chance)
    if callable(name):
        if any(v is not None for v in (weights, group_weights, floors, ceilings, fit, chance, bin_width)):
            raise ArgumentError("a user aggregate takes no weights or normalization options; apply them inside it.")
        return Aggregate(getattr(name, "__name__", "custom"), name, True, None, "user-supplied function")
    name = check_choice(name, AGGREGATES, "name")
    n_tasks = len(tasks) if tasks is not None else None
    unweighted = name in ("median", "iqm", "optimality-gap", "probability-of-improvement")
    if unweighted and (weights is not None or group_weights is not None):
        given = [n for n, v in (("weights", weights), ("group_weights", group_weights)) if v is not None]
        shown = " and ".join("`{arg:" + g + "}`" for g in given)
        raise ArgumentError(words("aggregate '{name}' is unweighted: " + shown + " {verb} not apply to it; leave"
                                  " '{name}' out of the aggregates or give no weights.", name=name,
                                  verb="do" if len(given) > 1 else "does"))
    w, notes = weights_and_notes(n_tasks, tasks=tasks, weights=weights, group_weights=group_weights,
                                 task_groups=task_groups)
    agg = _build(name, w, tasks, models, fit, floors, ceilings, chance, bin_width, gamma, baseline)
    if name in _TASK_LEVEL:  # the same names as rliable's run-level statistics, which give other numbers
        notes = tuple(notes) + (_TASK_LEVEL[name],)
    return replace(agg, notes=notes) if notes else agg


#: aggregates with one parameter that a ':' suffix sets in text (``'binned-rank:0.01'``), and its keyword
PARAMETERS = {"binned-rank": "bin_width", "optimality-gap": "gamma", "probability-of-improvement": "baseline",
              "chance-normalized": "chance"}
#: an example of each parameter's text syntax, for messages
PARAMETER_SYNTAX = {"bin_width": "binned-rank:0.01", "gamma": "optimality-gap:0.9",
                    "baseline": "probability-of-improvement:MODEL", "chance": "chance-normalized:0.25"}


def parse_parameter(text: str) -> tuple[str, dict]:
    """``'binned-rank:0.01'`` -> ``('binned-rank', {'bin_width': 0.01})``: an aggregate's name with its one
    parameter written after a colon (the command line's syntax).

    Examples
    --------
    >>> from evalband.aggregate import parse_parameter
    >>> parse_parameter("binned-rank:0.01")
    ('binned-rank', {'bin_width': 0.01})
    >>> parse_parameter("probability-of-improvement:baseline-model")
    ('probability-of-improvement', {'baseline': 'baseline-model'})
    """
    name, value = (x.strip() for x in str(text).split(":", 1))
    key = name.lower().replace("_", "-")
    if key not in PARAMETERS:
        raise ArgumentError(f"aggregate {name!r} takes no ':' parameter; those that do: "
                         + ", ".join(f"{k}:<{v}>" for k, v in PARAMETERS.items()) + ".")
    param = PARAMETERS[key]
    if param == "baseline":
        return key, {param: value}
    try:
        return key, {param: float(value)}
    except ValueError:
        raise ArgumentError(f"aggregate '{name}:{value}': {value!r} is not a number.") from None


#: notes for the aggregates that rliable defines over runs pooled across tasks, but that act here on one score per
#: task (with several runs per task the two differ: Atari 100k SPR IQM 1173 over game means, 972 over runs)
_TASK_LEVEL = {
    "iqm": "'iqm' is the interquartile (25%-trimmed) mean of the per-task scores (each task's mean over its items"
           " or runs); rliable's IQM pools every run of every task (evalband.aggregate.rliable.iqm) and differs"
           " when tasks have several runs",
    "optimality-gap": "'optimality-gap' is computed from the per-task scores (each task's mean over its items or"
                      " runs); rliable's pools every run of every task (evalband.aggregate.rliable.optimality_gap)",
    "probability-of-improvement": "'probability-of-improvement' is the share of tasks on which a model's per-task"
                                  " score beats the baseline's (ties half); rliable's compares runs"
                                  " (evalband.aggregate.rliable.probability_of_improvement)",
}


def _build(name, w, tasks, models, fit, floors, ceilings, chance, bin_width, gamma, baseline) -> Aggregate:
    """The named aggregate with normalized task weights ``w`` (None: equal)."""
    if name == "mean":
        return Aggregate(name, _weighted(w), True, w, "weighted mean over tasks")
    if name == "geometric":
        return Aggregate(name, _geometric(w), True, w, "weighted geometric mean over tasks")
    if name == "harmonic":
        return Aggregate(name, _harmonic(w), True, w, "weighted harmonic mean over tasks")
    if name == "minmax":
        if fit is not None:
            if floors is not None or ceilings is not None:
                raise ArgumentError("give either `fit` or `floors`/`ceilings` for 'minmax', not both.")
            lo, hi = _fit_bounds(fit)
            how = "min and max over all models and replicates"
        else:
            if floors is None or ceilings is None:
                raise ArgumentError("'minmax' needs `floors` and `ceilings` (per task), or `fit=` replicates.")
            lo, hi = _per_task(floors, tasks, "floors"), _per_task(ceilings, tasks, "ceilings")
            how = "user floors and ceilings"
        if np.any(hi <= lo):
            raise ArgumentError("'minmax': every ceiling must exceed its floor.")
        return Aggregate(name, _weighted(w, lambda s: (s - lo) / (hi - lo)), True, w,
                         f"weighted mean of min-max normalized scores ({how})")
    if name == "chance-normalized":
        if chance is None:
            raise ArgumentError(words("{py:'chance-normalized' needs `chance`}{cli:--aggregate chance-normalized needs its chance after a colon, e.g. --aggregate chance-normalized:0.25} (the random-guess score of each task)."))
        c = _per_task(chance, tasks, "chance")
        if np.any(c >= 1):
            raise ArgumentError("'chance-normalized': chance levels must be below 1.")
        return Aggregate(name, _weighted(w, lambda s: (s - c) / (1 - c)), True, w,
                         "weighted mean of (score - chance) / (1 - chance)")
    if name == "mean-rank":
        return Aggregate(name, _weighted(w, task_ranks), False, w, "weighted mean of per-task ranks (1 = best)",
                         on_score_scale=False)
    if name == "binned-rank":
        if bin_width is None:
            raise ArgumentError(words("{py:'binned-rank' needs `bin_width`}{cli:--aggregate binned-rank needs its bin width after a colon, e.g. --aggregate binned-rank:0.01} (scores in the same bin tie)."))
        return Aggregate(name, _weighted(w, lambda s: binned_task_ranks(s, bin_width)), False, w,
                         f"weighted mean of per-task ranks after binning scores by {bin_width:g}",
                         on_score_scale=False)
    if name == "win-rate":
        return Aggregate(name, _weighted(w, task_win_rates), True, w, "HELM mean win rate", on_score_scale=False)
    if name == "median":
        return Aggregate(name, lambda s: np.median(s, axis=-1), True, None, "median over tasks")
    if name == "iqm":
        from scipy.stats import trim_mean

        return Aggregate(name, lambda s: trim_mean(s, 0.25, axis=-1), True, None,
                         "interquartile (25%-trimmed) mean over tasks")
    if name == "optimality-gap":
        return Aggregate(name, lambda s: gamma - np.minimum(s, gamma).mean(axis=-1), False, None,
                         f"optimality gap over tasks (gamma = {gamma:g})")
    # probability of improvement over a baseline model
    if baseline is None:
        raise ArgumentError(words("{py:'probability-of-improvement' needs `baseline`}{cli:--aggregate probability-of-improvement needs its baseline after a colon, e.g. --aggregate probability-of-improvement:MODEL} (a model name or index)."))
    if isinstance(baseline, str):
        if models is None or baseline not in models:
            raise ArgumentError(words('`{arg:baseline}` {baseline!r} is not among the models {models!r}.', baseline=baseline, models=models))
        b = list(models).index(baseline)
    else:
        b = int(baseline)

    def poi(s):
        ref = s[..., b:b + 1, :]
        return ((s > ref) + 0.5 * (s == ref)).mean(axis=-1)

    return Aggregate(name, poi, True, None, f"share of tasks on which the model beats {baseline} (ties half)",
                     on_score_scale=False)
