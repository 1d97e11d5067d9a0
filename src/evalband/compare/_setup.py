"""Shared plumbing of comparisons and rankings: one replicate set, aggregates evaluated on it.

Everything here is private. ``prepare`` turns the user's data into a table (when there is one) and a
:class:`~evalband.resample.Replicates`; ``resolve_aggregates`` turns aggregate specifications into
:class:`AggregateValues` (observed values, bootstrap replicates and delete-one values of each model's aggregate),
so that per-model intervals, differences and ranks all come from the same replicates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import InputError, as_generator, check_choice

__all__ = ["prepare", "resolve_aggregates", "AggregateValues", "LOWER_IS_BETTER", "pair_indices"]

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


def pair_indices(order) -> tuple[np.ndarray, np.ndarray]:
    """All pairs (i, j), i before j in ``order`` (model indices listed best first)."""
    order = np.asarray(order)
    i, j = np.triu_indices(len(order), k=1)
    return order[i], order[j]


def prepare(data, *, replicates=None, models=None, tasks=None, resampling="auto", n_resamples=10_000,
            rng=None, cluster=None):
    """Return ``(table or None, Replicates, generator)`` for ``data``.

    ``data`` may be a ResultsTable, anything ``evalband.read`` accepts, or a Replicates (then the table is None
    and item-level analytics are unavailable). A precomputed ``replicates`` can be passed with a table.
    """
    from ..resample import Replicates, bootstrap

    resampling = check_choice(resampling, RESAMPLING, "resampling")
    gen = as_generator(rng)
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
    return table, reps, gen


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
                                   1.0 if unitless else 100.0, "" if unitless else "points", fn))
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
