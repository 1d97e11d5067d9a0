"""Aggregates evaluated on one replicate set: observed values, bootstrap replicates and jackknife values of
every model's aggregate, with the metadata the comparisons, rankings and displays read (direction, scale).

:func:`evaluate_aggregates` is the one place where aggregate specifications (``'mean'``, ``'mean,mean-rank'``,
``'binned-rank:0.01'``, a callable) meet replicates, so per-model intervals, differences and ranks all come from
the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core import get_aggregate
from .._validate import ArgumentError
from ..display.reprs import displayed
from .._words import words
from ..display.notes import NoteKind

__all__ = ["AggregateValues", "evaluate_aggregates", "aggregate_specs", "aggregate_notes", "linear_weights"]


@displayed
@dataclass(frozen=True, repr=False)
class AggregateValues:
    """One aggregate evaluated on one replicate set.

    Attributes
    ----------
    name : str
        The specification as given (``'binned-rank:0.01'``).
    observed : numpy.ndarray, shape (M,)
    samples : numpy.ndarray, shape (B, M)
    jackknife : numpy.ndarray or None, shape (n_jack, M)
    higher_is_better : bool
    linear_weights : numpy.ndarray or None, shape (M, T)
        When the aggregate is affine in the per-task scores (a weighted mean), its weights; else None.
    scale : float
        Display multiplier: 100 for aggregates on the scale of proportions (shown in points), 1 otherwise.
    unit : str
        'points' for aggregates shown in points, '' otherwise.
    function : callable
        The aggregate, ``(..., M, T) -> (..., M)``.
    notes : tuple of str
        What its weights assumed.
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


def aggregate_specs(aggregate) -> list:
    """``aggregate`` as a list of specifications ('mean', 'mean,mean-rank', a callable or a list).

    Examples
    --------
    >>> from evalband.aggregate import aggregate_specs
    >>> aggregate_specs("mean, mean-rank")
    ['mean', 'mean-rank']
    >>> aggregate_specs(None)
    ['mean']
    >>> aggregate_specs(["mean", "binned-rank:0.01"])
    ['mean', 'binned-rank:0.01']
    """
    if aggregate is None:
        return ["mean"]
    if isinstance(aggregate, str):
        specs = [a.strip() for a in aggregate.split(",") if a.strip()]
        if not specs:
            raise ArgumentError(words('`{arg:aggregate}` is empty.'))
        return specs
    if callable(aggregate):
        return [aggregate]
    specs = list(aggregate)
    if not specs:
        raise ArgumentError(words('`{arg:aggregate}` is empty.'))
    return specs


def _name_of(spec) -> str:
    if isinstance(spec, str):
        return spec
    return getattr(spec, "name", None) or getattr(spec, "__name__", None) or "custom"


def evaluate_aggregates(reps, aggregate="mean", *, weights=None, higher_is_better=None, jackknife: bool = True,
                        **options) -> list[AggregateValues]:
    """Evaluate each aggregate on the observed per-task values and on every replicate.

    Parameters
    ----------
    reps : Replicates
        One replicate set (``observed`` (M, T), ``replicates`` (B, M, T)).
    aggregate : str, callable or sequence
        Specifications, see :func:`aggregate_specs`; ``'name:value'`` sets an aggregate's one parameter.
    weights : numpy.ndarray, optional, shape (T,)
        Normalized task weights (a :class:`~evalband.selection.Selection`'s ``weights``); None for equal weights.
    higher_is_better : bool, optional
        Override the direction of every aggregate.
    jackknife : bool
        Also evaluate the replicates' jackknife values (for BCa).
    **options
        Further options of :func:`get_aggregate` (floors, ceilings, chance, bin_width, gamma, baseline).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.aggregate import evaluate_aggregates
    >>> from evalband.resample import ItemColumns, bootstrap
    >>> rng = np.random.default_rng(0)
    >>> scores = {"t1": {"score": rng.binomial(1, [[0.8], [0.6]], size=(2, 50)).astype(float)},
    ...           "t2": {"score": rng.binomial(1, [[0.5], [0.4]], size=(2, 50)).astype(float)}}
    >>> reps = bootstrap(ItemColumns(["A", "B"], ["t1", "t2"], scores), n_resamples=200, rng=0)
    >>> mean, mean_rank = evaluate_aggregates(reps, "mean,mean-rank")
    >>> mean.observed, mean.samples.shape
    (array([0.65, 0.47]), (200, 2))
    >>> mean_rank.observed, mean_rank.higher_is_better
    (array([1., 2.]), False)
    """
    out = []
    jk = reps.jackknife() if jackknife else None
    observed = np.asarray(reps.observed, dtype=np.float64)
    # per-task values outside [0, 1] (returns, rewards): not proportions, so no x100 and no "points"
    bounded = bool(np.all(np.isnan(observed) | ((observed >= 0) & (observed <= 1))))
    for spec in aggregate_specs(aggregate):
        fn = _get(spec, reps, weights=weights, **options)
        name = _name_of(spec)
        obs = np.asarray(fn(reps.observed), dtype=np.float64)
        samples = np.asarray(fn(reps.replicates), dtype=np.float64)
        if obs.shape != (len(reps.models),) or samples.shape != (reps.replicates.shape[0], len(reps.models)):
            raise ArgumentError(f"aggregate {name!r} must map (..., models, tasks) to (..., models); got {obs.shape}"
                             f" and {samples.shape}.")
        jack = None if jk is None else np.asarray(fn(jk), dtype=np.float64)
        hib = higher_is_better if higher_is_better is not None else fn.higher_is_better
        points = fn.on_score_scale and bounded
        notes = tuple(getattr(fn, "notes", ()))
        if fn.on_score_scale and not bounded:
            notes += _scale_note(name, observed, reps.tasks)
        out.append(AggregateValues(name, obs, samples, jack, bool(hib), linear_weights(fn, reps.observed),
                                   100.0 if points else 1.0, "points" if points else "", fn, notes))
    return out


#: per-task scales (median |score| over models) differing by more than this factor get a note
SCALE_SPREAD = 10.0


NOTE_SCALES_DIFFER = NoteKind('aggregate.unbounded-scales-differ', 'caveat',
                              "'{name}' averages unbounded scores whose scales differ by a factor of {value:,.0f} across tasks (typical |score| {value2:.3g} on '{value3}', {value4:.3g} on '{value5}'): the tasks with large scores decide it; unless the scores are already normalized, normalize them (human and random baselines, as rliable does) or use a rank-based aggregate (mean-rank)")


def _scale_note(name, observed, tasks) -> tuple[str, ...]:
    """A note when unbounded per-task scores live on scales so different that an aggregate on the score scale is
    decided by the tasks with large scores (raw Atari returns: Pong's +-21 beside Breakout's hundreds)."""
    if observed.ndim != 2 or observed.shape[1] < 2:
        return ()
    with np.errstate(all="ignore"):
        size = np.nanmedian(np.abs(observed), axis=0)
    ok = np.isfinite(size) & (size > 0)
    if ok.sum() < 2 or size[ok].max() <= SCALE_SPREAD * size[ok].min():
        return ()
    big, small = int(np.nanargmax(np.where(ok, size, np.nan))), int(np.nanargmin(np.where(ok, size, np.nan)))
    return (NOTE_SCALES_DIFFER(name=name, value=size[big] / size[small], value2=size[small], value3=tasks[small], value4=size[big], value5=tasks[big]),)


def aggregate_notes(aggs) -> list[str]:
    """The aggregates' notes, each once.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.aggregate import aggregate_notes, evaluate_aggregates
    >>> from evalband.resample import ItemColumns, bootstrap
    >>> rng = np.random.default_rng(0)
    >>> tasks = ["math", "code", "chat"]
    >>> scores = {t: {"score": rng.binomial(1, 0.6, size=(2, 30)).astype(float)} for t in tasks}
    >>> reps = bootstrap(ItemColumns(["A", "B"], tasks, scores), n_resamples=100, rng=0)
    >>> aggs = evaluate_aggregates(reps, "iqm,optimality-gap,median")
    >>> notes = aggregate_notes(aggs + aggs)  # a note shared by several aggregates is said once
    >>> len(notes)
    2
    >>> print(notes[0])
    'iqm' is the interquartile (25%-trimmed) mean of the per-task scores (each task's mean over its items or runs);
    rliable's IQM pools every run of every task (evalband.aggregate.rliable.iqm) and differs when tasks have
    several runs
    """
    out = []
    for av in aggs:
        for n in av.notes:
            if n not in out:
                out.append(n)
    return out


def _get(spec, reps, *, weights=None, **options):
    """:func:`get_aggregate` with the replicates supplying tasks, models and groups; a user callable keeps its own
    ``higher_is_better`` and ``accuracy_scale`` attributes."""
    from dataclasses import replace

    kwargs = dict(options)
    if weights is not None:
        kwargs["weights"] = np.asarray(weights, dtype=np.float64)
    kwargs.setdefault("replicates", reps)
    if callable(spec) and not hasattr(spec, "on_score_scale"):
        agg = get_aggregate(spec, **{k: v for k, v in kwargs.items() if k == "replicates"})
        hib = getattr(spec, "higher_is_better", None)
        return replace(agg, higher_is_better=True if hib is None else bool(hib),
                       on_score_scale=bool(getattr(spec, "accuracy_scale", True)))
    if callable(spec):
        return spec
    base = spec.split(":", 1)[0].strip().lower() if isinstance(spec, str) else spec
    if base == "minmax" and "floors" not in kwargs and "ceilings" not in kwargs:
        kwargs.setdefault("fit", True)  # min and max over all models and replicates (Longjohn et al. 2025)
    return get_aggregate(spec, **kwargs)


def linear_weights(fn, observed) -> np.ndarray | None:
    """Weights W (M, T) when ``fn`` is affine in the scores (``fn(x) = c + sum_t W[:, t] x[:, t]``), else None.

    Found by probing: unit steps from a central point give W; two fixed points then check affinity.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.aggregate import get_aggregate, linear_weights
    >>> observed = np.array([[0.8, 0.6, 0.7], [0.5, 0.9, 0.4]])  # 2 models x 3 tasks
    >>> linear_weights(get_aggregate("mean", weights=[2, 1, 1]), observed)
    array([[0.5 , 0.25, 0.25],
           [0.5 , 0.25, 0.25]])
    >>> linear_weights(get_aggregate("median"), observed) is None  # not affine in the scores
    True
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
    except Exception:  # noqa: BLE001 - any failure of the probe means "not affine"
        return None
    if f0.shape != (m,) or fp.shape != (t, m) or fc.shape != (2, m):
        return None
    w = ((fp - f0) / step).T  # (M, T)
    pred = f0 + np.einsum("kmt,mt->km", check - base, w)
    if not np.all(np.isfinite(pred)) or not np.allclose(pred, fc, rtol=1e-9, atol=1e-12):
        return None
    return w
