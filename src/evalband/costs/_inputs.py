"""From what the user gives (a results table, per-model cost summaries, quality replicates from any source) to
quality draws, cost estimates and latency estimates on one list of models, shared by frontier and decision."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._validate import ArgumentError, ArgumentTypeError, as_generator, check_choice, check_confidence_level
from ..estimation.confidence import ConfidenceInterval
from .measures import COST_METHODS, CostEstimates, cost_from_summary, costs_from_replicates, mean_cost
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["Quality", "resolve_inputs", "QUALITY_METHODS"]

QUALITY_METHODS = ("percentile", "basic", "bca")


@displayed


@dataclass(frozen=True, repr=False)
class Quality:
    """Quality of each model on the data and on joint replicates, from any source (an aggregate of a results
    table, arena ratings, ...).

    Attributes
    ----------
    models : tuple of str
    observed : numpy.ndarray, shape (M,)
    samples : numpy.ndarray, shape (B, M)
        Replicates drawn jointly for all models (one replicate set), so that differences are paired.
    name : str
        What the quality is ('mean', 'rating', ...), for labels.
    higher_is_better : bool
    scale : float
        Display multiplier (100: fractions shown in points).
    jackknife, jackknife_strata : numpy.ndarray, optional
        Delete-one values (n_jack, M) and their strata, for BCa.
    n_units : float, optional
        Resampling units behind the replicates (items, clusters, battles); fewer than 10 decide nothing.
    notes : tuple of str
    """

    models: tuple
    observed: np.ndarray
    samples: np.ndarray
    name: str = "quality"
    higher_is_better: bool = True
    scale: float = 100.0
    jackknife: np.ndarray | None = None
    jackknife_strata: np.ndarray | None = None
    n_units: float | None = None
    notes: tuple = ()
    floor: object = field(default=None, repr=False, compare=False)
    """Optional ``floor(low, high, se, level) -> Widened``: the floor of :mod:`evalband.resample.floors` under
    each model's interval (set by :func:`quality_from_replicates`)."""

    def __post_init__(self):
        obs = np.asarray(self.observed, dtype=np.float64)
        s = np.asarray(self.samples, dtype=np.float64)
        models = tuple(map(str, self.models))
        if obs.shape != (len(models),):
            raise ArgumentError(words('`{arg:quality}` observed values must be one per model ({n_models}); got shape {shape}.', n_models=len(models), shape=obs.shape))
        if s.ndim != 2 or s.shape[1] != len(models) or s.shape[0] < 2:
            raise ArgumentError(words('`{arg:quality}` replicates must be (B >= 2, {n_models}); got shape {shape}.', n_models=len(models), shape=s.shape))
        if len(set(models)) != len(models):
            raise ArgumentError(words('`{arg:quality}` names a model twice: {models!r}.', models=models))
        object.__setattr__(self, "models", models)
        object.__setattr__(self, "observed", obs)
        object.__setattr__(self, "samples", s)

    def to_frame(self) -> pd.DataFrame:
        """One row per model: quality, its bootstrap SD, and the replicate count."""
        return pd.DataFrame({"model": list(self.models), "quality": self.observed,
                             "se": self.samples.std(axis=0, ddof=1), "n_resamples": self.samples.shape[0]})

    def __repr__(self) -> str:
        from ..display.reprs import titled_repr

        return titled_repr(f"Quality '{self.name}' of {len(self.models)} models, {self.samples.shape[0]:,} joint"
                          f" replicates{'' if self.higher_is_better else ' (lower is better)'}", frame=self.to_frame(),
                           columns=["model", "quality", "se"])


    @property
    def sign(self) -> float:
        return 1.0 if self.higher_is_better else -1.0

    def interval(self, method: str, level: float) -> ConfidenceInterval:
        from ..resample import interval

        kw = {}
        if method == "bca":
            if self.jackknife is None:
                raise ArgumentError(words("`{arg:method='bca'}` needs jackknife values of the quality; use 'percentile'."))
            kw = dict(jackknife=self.jackknife, jackknife_strata=self.jackknife_strata)
        return interval(self.samples, self.observed, method=method, confidence_level=level, **kw)

    def floored(self, method: str, level: float):
        """Each model's interval and standard error with the floor (:mod:`evalband.resample.floors`): a
        :class:`~evalband.resample.floors.Widened` (interval, se, notes)."""
        from ..resample.floors import withhold_degenerate

        ci = self.interval(method, level)
        se = self.samples.std(axis=0, ddof=1)
        if self.floor is not None:
            return self.floor(ci.low, ci.high, se, level)
        return withhold_degenerate(ci.low, ci.high, se, self.models, what=f"the {self.name}")


def _as_quality(quality, models) -> Quality:
    if isinstance(quality, Quality):
        return quality
    if isinstance(quality, (tuple, list)) and len(quality) == 2:
        if models is None:
            raise ArgumentError(words('`{arg:quality}` given as (observed, replicates) needs `{arg:models=}` naming its columns.'))
        names = [m.strip() for m in models.split(",")] if isinstance(models, str) else list(models)
        return Quality(tuple(names), quality[0], quality[1], name="quality", scale=1.0)
    raise ArgumentTypeError(words('`{arg:quality}` must be a Quality or a pair (observed (M,), replicates (B, M)); got {name}.', name=type(quality).__name__))


def _take(costs: CostEstimates, names) -> CostEstimates:
    """The cost estimates of ``names``, in that order (every name must be there)."""
    missing = [n for n in names if n not in costs.models]
    if missing:
        raise ArgumentError(f"the costs lack model(s) {', '.join(map(repr, missing))}; they have"
                         f" {', '.join(map(repr, costs.models))}.")
    idx = np.array([costs.models.index(n) for n in names])
    if np.array_equal(idx, np.arange(len(costs.models))):
        return costs
    sub = lambda a, axis=0: None if a is None else np.take(a, idx, axis=axis)  # noqa: E731
    return replace(costs, models=tuple(names), estimate=costs.estimate[idx], se=costs.se[idx],
                   ci=ConfidenceInterval(np.asarray(costs.ci.low)[idx], np.asarray(costs.ci.high)[idx]),
                   n_items=costs.n_items[idx], missing_items=costs.missing_items[idx],
                   samples=sub(costs.samples, 1), jackknife=sub(costs.jackknife, 1),
                   cov=None if costs.cov is None else costs.cov[np.ix_(idx, idx)], df=sub(costs.df))


def quality_from_replicates(reps, *, aggregate="mean", weights=None, group_weights=None, aggregate_options=None,
                            jackknife=False) -> Quality:
    """Each model's aggregate over tasks, on the data and on every replicate of one replicate set
    (:func:`evalband.aggregate.evaluate_aggregates`, as ``evalband.rank`` evaluates it).

    Parameters
    ----------
    reps : Replicates
        Per-task replicates (:func:`evalband.resample.bootstrap`, or ``JointReplicates.quality``).
    aggregate : str or callable
        One aggregate ('mean', 'geometric', 'binned-rank:0.01', ...).
    weights : numpy.ndarray, optional, shape (T,)
        Normalized task weights (a :class:`~evalband.selection.Selection`'s ``weights``).
    group_weights, aggregate_options
        Further options of :func:`evalband.aggregate.get_aggregate`.
    jackknife : bool
        Also evaluate the aggregate on the delete-one values (for BCa).

    Returns
    -------
    Quality
        ``scale`` 100 (points) for aggregates on the scale of proportions of bounded scores, else 1.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.resample import ItemColumns, bootstrap
    >>> cols = ItemColumns(["A", "B"], ["t"], {"t": {"score": np.array([[1.0, 1, 0, 1], [0.0, 1, 0, 0]])}})
    >>> q = quality_from_replicates(bootstrap(cols, n_resamples=100, rng=0))
    >>> q.observed, q.scale
    (array([0.75, 0.25]), 100.0)
    """
    from ..aggregate import evaluate_aggregates

    options = dict(aggregate_options or {})
    if group_weights is not None:
        options["group_weights"] = group_weights
    values = evaluate_aggregates(reps, aggregate, weights=weights, jackknife=jackknife, **options)
    if len(values) != 1:
        raise ArgumentError(words('`{arg:aggregate}` must name one aggregate for a frontier; got {aggregate!r}.', aggregate=aggregate))
    av = values[0]
    strata = reps.jackknife_strata() if av.jackknife is not None else None
    from functools import partial

    from ..resample.floors import widen_aggregate

    def floor(low, high, se, level, _w=partial(widen_aggregate, reps, av.function, av.observed, av.samples)):
        return _w(low, high, se, confidence_level=level)

    return Quality(tuple(reps.models), av.observed, av.samples, av.name, bool(av.higher_is_better), av.scale,
                   av.jackknife, strata, float(np.sum(np.asarray(reps.n_units))), tuple(av.notes), floor)


def _cost_table(cost):
    """``cost`` as a :class:`~evalband.data.costs.CostTable` when it gives per-model costs to be read (a cost
    table, its selection, or a summary frame / mapping), else None."""
    from ..data.costs import CostTable
    from ..selection import Selection, select

    if isinstance(cost, CostTable):
        return cost
    if isinstance(cost, Selection) and isinstance(cost.table, CostTable):
        return cost.table
    if isinstance(cost, (pd.DataFrame, Mapping)) and not isinstance(cost, CostEstimates):
        return select(pd.DataFrame(cost) if isinstance(cost, Mapping) else cost, source="costs").table
    return None


def summary_costs(table, models, level) -> CostEstimates:
    """The per-model costs of ``table`` (a CostTable) for ``models``, in that order (every model must be there)."""
    missing = [m for m in models if m not in table.models]
    if missing:
        raise ArgumentError(f"the costs lack model(s) {', '.join(map(repr, missing))}; they have"
                            f" {', '.join(map(repr, table.models))}.")
    return cost_from_summary(table, models=list(models), confidence_level=level)


NOTE_QUALITY_COST_WERE_RESAMPLED = NoteKind(
    'costs.quality-cost-were-resampled', 'caveat',
    'quality and cost were resampled separately (quality given directly), so judgements involving both are not '
    'paired')
NOTE_FROM_THEIR_OWN_PAIRED = NoteKind('costs.from-their-own-paired', 'info',
                                       '{name} {value} from their own paired item draws')


def resolve_inputs(data, *, cost="cost", latency=None, quality=None, aggregate="mean", weights=None,
                   group_weights=None, aggregate_options=None, models=None, tasks=None, n_resamples=2000,
                   method="percentile", cost_method="bca", confidence_level=0.95, cluster=None, rng=None,
                   need_latency=True, arena_options=None, read_options=None):
    """``(Quality, CostEstimates, LatencyEstimates or None, notes, paired)`` on one list of models.

    ``data`` goes through :func:`evalband.select` once: results give the quality as an aggregate over tasks
    (paired with item-level costs), battles as arena ratings (:mod:`evalband.costs.battles`). ``paired`` says
    whether quality and cost come from the same draws.
    """
    from ..data.battles import BattleTable
    from ..resample import bootstrap
    from ..selection import select
    from ._items import results_selection
    from .joint import joint_bootstrap
    from .latency import latency_quantiles, quantile_name

    method = check_choice(method, QUALITY_METHODS, "method")
    cost_method = check_choice(cost_method, COST_METHODS, "cost_method")
    level = check_confidence_level(confidence_level)
    gen = as_generator(rng)
    sel = None
    if data is not None:
        sel = select(data, models=models if quality is None else None, tasks=tasks, weights=weights,
                     group_weights=group_weights, **(read_options or {}))
    from .._defaults import n_resamples_for

    n_resamples = n_resamples_for("refit" if sel is not None and isinstance(sel.table, BattleTable) else "average",
                                  n_resamples)
    if sel is not None and isinstance(sel.table, BattleTable):
        if quality is not None:
            raise ArgumentError(words('battles give the quality (their arena ratings): give battles or `{arg:quality=}`, not both.'))
        from .battles import battle_inputs

        return battle_inputs(sel, cost=cost, latency=latency, n_resamples=n_resamples, method=method,
                             cost_method=cost_method, confidence_level=level, rng=gen, need_latency=need_latency,
                             arena_options=arena_options)
    if arena_options:
        raise ArgumentError("`arena_options` apply to battles (preference data); `data` holds results.")
    per_model = _cost_table(cost)
    notes = []
    paired = False
    if quality is None:
        if sel is None:
            raise ArgumentError(words('give `data` (a results table), or quality replicates with `{arg:quality=}`.'))
        sel = results_selection(sel)
        if isinstance(cost, str):
            joint = joint_bootstrap(sel, cost=cost, n_resamples=n_resamples, rng=gen, cluster=cluster)
            q = quality_from_replicates(joint.quality, aggregate=aggregate, weights=sel.weights,
                                        aggregate_options=aggregate_options, jackknife=method == "bca")
            if cost_method == "t":
                costs = mean_cost(sel, cost=cost, method="t", confidence_level=level, cluster=cluster)
            else:
                costs = costs_from_replicates(joint, method=cost_method, confidence_level=level)
            notes += list(joint.notes)
            paired = cost_method != "t"
        else:
            kw = {} if cluster is None else {"cluster": cluster}
            reps = bootstrap(sel, n_resamples=n_resamples, rng=gen, **kw)
            q = quality_from_replicates(reps, aggregate=aggregate, weights=sel.weights,
                                        aggregate_options=aggregate_options, jackknife=method == "bca")
            notes += list(reps.notes)
            costs = summary_costs(per_model, q.models, level) if per_model is not None else cost
    else:
        q = _as_quality(quality, models)
        notes += list(q.notes)
        if isinstance(cost, str):
            if sel is None:
                raise ArgumentError(words('`{arg:cost={cost!r}}` names a measure column, which needs `data`; or give per-model costs (a CostEstimates, a CostTable, or a summary frame with model, cost, se / sd / n).', cost=cost))
            costs = mean_cost(select(sel, models=list(q.models)), cost=cost, method=cost_method,
                              confidence_level=level, n_resamples=n_resamples, cluster=cluster, rng=gen)
        elif per_model is not None:
            costs = summary_costs(per_model, q.models, level)
        else:
            costs = cost
        notes.append(NOTE_QUALITY_COST_WERE_RESAMPLED())
    if not isinstance(costs, CostEstimates):
        raise ArgumentTypeError(words("`{arg:cost}` must name a measure column ('cost', 'latency'), or be a CostEstimates, a CostTable or a per-model summary frame; got {name}.", name=type(costs).__name__))
    costs = _take(costs, q.models)
    notes += [n for n in costs.notes if n not in notes]
    notes += [n for n in q.notes if n not in notes]
    lat = None
    if need_latency and latency is not False and sel is not None and sel.table.level == "item":
        name = latency if isinstance(latency, str) else ("latency" if "latency" in sel.table.measures else None)
        if name is not None and not (isinstance(cost, str) and name == cost and latency is None):
            lat = latency_quantiles(select(sel, models=list(q.models)), latency=name, confidence_level=level,
                                    n_resamples=n_resamples, rng=gen)
            notes += list(lat.notes)
            notes.append(NOTE_FROM_THEIR_OWN_PAIRED(name=name, value=' and '.join(map(quantile_name, lat.quantiles))))
    elif isinstance(latency, str):
        raise ArgumentError(words('`{arg:latency={latency!r}}` needs item-level `data` with that measure column.', latency=latency))
    return q, costs, lat, tuple(dict.fromkeys(notes)), paired
