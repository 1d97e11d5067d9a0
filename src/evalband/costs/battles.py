"""Preference data on the frontier: quality is each model's arena rating (:func:`evalband.arena`), cost and latency
are resampled with the same clusters of battles, so quality and cost stay paired.

Where the costs come from:

* **per-battle columns** ``COST_a`` / ``COST_b`` (and ``LATENCY_a`` / ``LATENCY_b``): what model_a's and model_b's
  responses in that battle cost (read by the battle reader as numeric side columns);
* a **cost table** (``evalband.read(path, source='costs')``) of **per-response rows** (model, item, cost and / or
  latency): a response answers an item, matched to the battles' questions, e.g. LLMFAO's ``responses.csv`` with
  its durations as latency;
* a cost table that is a **per-model summary** (mean cost with its SE, or SD and n): not paired.

A model's value on a resampling unit (a question, or a battle when battles are resampled one by one) is the mean
of its responses there, so each response counts once; the mean cost is the mean over the model's units, the
latency median and p95 their quantiles. Each bootstrap replicate reweights the units by the counts the arena's
cluster bootstrap drew (:class:`evalband.preferences.ClusterBootstrap`, same seed, same entropy), so a replicate's
ratings and costs come from the same questions.
"""

from __future__ import annotations

import numpy as np

from .._random import run_entropy
from .._validate import ArgumentError, InputError, as_generator, renamed
from ..estimation.confidence import ConfidenceInterval
from ._inputs import Quality, summary_costs
from ._units import Cells, cell_jackknife, cell_means, cell_quantiles
from .latency import LatencyEstimates
from .measures import CostEstimates
from ..display.notes import NoteKind
from .._words import words

__all__ = ["battle_inputs", "ARENA_OPTIONS", "QUANTILES"]

#: options of :func:`evalband.arena` a frontier passes on (the seed, replicates and level are the frontier's)
ARENA_OPTIONS = ("model", "ties", "baseline", "scale", "anchor", "cluster", "style", "length_control", "k",
                 "simultaneous", "ridge")
#: latency quantiles reported
QUANTILES = (0.5, 0.95)
#: rating names in labels
_NAMES = {"bt": "Bradley-Terry rating", "rao-kupper": "Rao-Kupper rating", "davidson": "Davidson rating",
          "elo": "Elo rating", "win-rate": "win rate"}


def _arena_table(table, options):
    """The battles :func:`evalband.arena` will fit with ``options``: its own subsets (ties dropped, battles without
    the baseline for win rates) made here first, so that its units are ours."""
    from ..data.battles import NOTE_BATTLES_WITHOUT_BASELINE, NOTE_TIES_DROPPED

    if options.get("ties") == "drop":
        table = table.subset(~table.tie, note=NOTE_TIES_DROPPED(n=int(table.tie.sum())))
    baseline = options.get("baseline")
    if options.get("method") == "win-rate" and baseline is not None and baseline in table.models:
        pos = table.models.index(baseline)
        keep = (table.model_a == pos) | (table.model_b == pos)
        if not keep.all():
            table = table.subset(keep, note=NOTE_BATTLES_WITHOUT_BASELINE(n=int((~keep).sum()), baseline=baseline))
    return table


def _battle_cells(table, name, units):
    """Cells of a per-battle side measure ``name`` (``NAME_a`` / ``NAME_b``): each (unit, model) once, the mean of
    the model's battles on that unit."""
    values = table.features.get(name)
    if values is None or np.ndim(values) != 2:
        have = [k for k, v in table.features.items() if np.ndim(v) == 2]
        raise InputError(f"no per-battle {name!r} columns ({name}_a / {name}_b) in the battles"
                         + (f" (side columns: {', '.join(map(repr, have))})" if have else "")
                         + "; give per-model costs in a cost file (--costs FILE, or a CostTable)", source=table.source)
    unit = np.concatenate([units.codes, units.codes])
    model = np.concatenate([table.model_a, table.model_b]).astype(np.int64)
    value = np.concatenate([values[:, 0], values[:, 1]])
    key = unit * table.n_models + model
    uniq, inverse = np.unique(key, return_inverse=True)
    mean = np.bincount(inverse, weights=value) / np.bincount(inverse)
    return Cells(uniq // table.n_models, uniq % table.n_models, mean, units.n_units, table.n_models), 0


def _table_cells(costs, measure, models, units):
    """Cells of a per-response cost table on the battles' units (questions), or None when they cannot be matched;
    and the count of responses to items the battles do not ask."""
    if units.column != "question" or units.names is None:
        return None, 0
    missing = [m for m in models if m not in costs.models]
    if missing:
        raise ArgumentError(f"the costs lack model(s) {', '.join(map(repr, missing))}; they have"
                            f" {', '.join(map(repr, costs.models[:8]))}{' ...' if len(costs.models) > 8 else ''}.")
    sub = costs.select(list(models))
    u, m, v, _, dropped = sub.cells(measure, item_names=units.names)
    return Cells(u, m, v, units.n_units, len(models)), dropped


def _own_units(costs, measure, models, n_resamples, gen):
    """Cells of a per-response cost table resampled by its own items (the battles' units are not its items)."""
    from ..resample.battles import ClusterBootstrap, Units

    sub = costs.select(list(models))
    u, m, v, names, _ = sub.cells(measure)
    units = Units(np.arange(len(names)), np.asarray(names, dtype=object), "cluster", len(names))
    return Cells(u, m, v, len(names), len(models)), ClusterBootstrap(units, n_resamples, run_entropy(gen))


def _replicates(boot, fn):
    """``fn(counts)`` on every block of ``boot``, stacked: (B, ...)."""
    return np.concatenate([fn(counts) for _, counts in boot.blocks()], axis=0)


def _check_cover(cells, models, measure, source):
    """Every model needs a value on some unit (a model without any has no mean and no quantiles)."""
    none = [models[k] for k in np.flatnonzero(cells.counts_per_model == 0)]
    if none:
        raise InputError(f"model {none[0]!r} has no {measure} on any of the battles' units"
                         + (f" ({len(none)} such models)" if len(none) > 1 else "")
                         + "; leave such models out with `models`", source=source)


def _cost_estimates(cells, boot, models, measure, method, level, notes, paired_between) -> CostEstimates:
    from ..resample import interval

    obs = cell_means(cells, np.ones((1, cells.n_units)))[0]
    samples = _replicates(boot, lambda w: cell_means(cells, w))
    jack = cell_jackknife(cells) if method == "bca" else None
    ci = interval(samples, obs, method=method, confidence_level=level, jackknife=jack)
    with np.errstate(invalid="ignore"):
        se = np.nanstd(samples, axis=0, ddof=1)
    n_items = cells.counts_per_model
    return CostEstimates(measure, tuple(models), obs, se, ci, n_items, np.zeros(len(models), dtype=np.int64), method,
                         level, paired_between, tuple(notes), samples, jack, None)


def _latency_estimates(cells, boot, models, measure, level, notes) -> LatencyEstimates:
    from ..resample import interval

    obs = cell_quantiles(cells, np.ones((1, cells.n_units)), QUANTILES)[0]
    samples = _replicates(boot, lambda w: cell_quantiles(cells, w, QUANTILES))
    ci = interval(samples, obs, method="percentile", confidence_level=level)
    return LatencyEstimates(measure, tuple(models), QUANTILES, obs, ConfidenceInterval(ci.low, ci.high),
                            cells.counts_per_model, np.zeros(len(models), dtype=np.int64), "percentile", level,
                            samples, tuple(notes))


NOTE_PER_RESPONSE_FROM_BATTLES = NoteKind(
    'costs.per-response-from-battles', 'info',
    "{cost} per response from the battles' {cost}_a / {cost}_b columns; each model's value on one of the "
    "{n_units:,} {unit_word} is the mean of its battles there, resampled with the ratings' clusters (paired)")
NOTE_MEDIAN_P95_FROM_BATTLES = NoteKind(
    'costs.median-p95-from-battles', 'info',
    "{lname} median and p95 from the battles' {lname}_a / {lname}_b columns, resampled with the ratings' clusters")
NOTE_COST_PER_RESPONSE_FROM = NoteKind(
    'costs.cost-per-response-from', 'info',
    "cost per response from {source}, matched to the battles' questions and resampled with the ratings' clusters "
    "(paired)")
NOTE_COST_PER_RESPONSE_FROM_2 = NoteKind(
    'costs.cost-per-response-from-2', 'caveat',
    'cost per response from {source}, resampled by its own items: the battles are resampled by {unit_word}, not '
    'by the items the responses answered (not paired)')
NOTE_RESPONSES_ITEMS_BATTLES_DO = NoteKind('costs.responses-items-battles-do', 'excluded',
                                            '{dropped:,} responses to items the battles do not ask left out')


NOTE_LATENCY_FROM = NoteKind("costs.latency-from", "info", "latency median and p95 from {source}{how}")


def battle_inputs(sel, *, cost="cost", latency=None, n_resamples=2000, method="percentile", cost_method="bca",
                  confidence_level=0.95, rng=None, need_latency=True, arena_options=None):
    """``(Quality, CostEstimates, LatencyEstimates or None, notes, paired)`` for battles (see the module docs).

    ``sel`` is the selection of a BattleTable (:func:`evalband.select`); ``cost`` names the per-battle side columns
    (``'cost'``: ``cost_a`` / ``cost_b``) or is a CostTable; ``latency`` names per-battle side columns, or None
    for 'latency' columns when present (else the cost table's latency), or False for none.
    """
    from ..data.costs import CostTable
    from ..resample.battles import ClusterBootstrap, resampling_units
    from ..preferences import arena
    from ._inputs import _cost_table

    options = dict(arena_options or {})
    if "method" in options:  # the rating model's keyword before 0.2
        options["model"] = renamed(options, old="method", new="model", function="arena_options",
                                   value=options.get("model", "bt"), default="bt")
    unknown = sorted(set(options) - set(ARENA_OPTIONS))
    if unknown:
        raise ArgumentError(words("`arena_options` takes {value}; got {value2} (models are chosen with `{arg:models}`, the seed, replicates and level are the frontier's).", value=', '.join(ARENA_OPTIONS), value2=', '.join(unknown)))
    if cost_method == "t":
        raise ArgumentError("`cost_method='t'` applies to item-level results; battles' costs use bootstrap intervals"
                            " ('bca', 'percentile', 'basic').")
    gen = as_generator(rng)
    seed = int(gen.integers(0, 2**63))
    table = _arena_table(sel.table, options)
    res = arena(table, n_resamples=n_resamples, confidence_level=confidence_level, rng=seed,
                method="bca" if method == "bca" else "percentile", **options)
    models = tuple(res.models)
    units = resampling_units(table, options.get("cluster", "auto"))
    boot = ClusterBootstrap(units, n_resamples, run_entropy(as_generator(seed)))  # the arena's draws
    name = _NAMES.get(res.method, "rating")
    q = Quality(models, res.rating, res.samples, name, True, float(res.display_scale),
                res.jackknife if method == "bca" else None, None, float(res.n_units), tuple(res.notes))
    notes = list(sel.notes) + list(res.notes)
    per_model = _cost_table(cost)
    if per_model is not None and not isinstance(per_model, CostTable):  # pragma: no cover - _cost_table's contract
        raise ArgumentError(words('`{arg:cost}` must name per-battle columns or be a cost table.'))
    unit_word = units.unit_name
    paired = False
    if per_model is None:
        if not isinstance(cost, str):
            raise ArgumentError(words("for battles, `{arg:cost}` names per-battle side columns ('cost': cost_a / cost_b) or is a cost table ({arg:source='costs'}); got {name}.", name=type(cost).__name__))
        cells, _ = _battle_cells(table, cost, units)
        _check_cover(cells, models, cost, table.source)
        notes.append(NOTE_PER_RESPONSE_FROM_BATTLES(cost=cost, n_units=units.n_units, unit_word=unit_word))
        costs = _cost_estimates(cells, boot, models, cost, cost_method, confidence_level, [], True)
        paired = True
    elif per_model.shape == "summary":
        costs = summary_costs(per_model, models, confidence_level)
    elif "cost" in per_model.measures:
        cells, dropped = _table_cells(per_model, "cost", models, units)
        if cells is not None:
            notes.append(NOTE_COST_PER_RESPONSE_FROM(source=per_model.source))
            paired = True
            own = boot
        else:
            cells, own = _own_units(per_model, "cost", models, n_resamples, gen)
            notes.append(NOTE_COST_PER_RESPONSE_FROM_2(source=per_model.source, unit_word=unit_word))
        if dropped:
            notes.append(NOTE_RESPONSES_ITEMS_BATTLES_DO(dropped=dropped))
        _check_cover(cells, models, "cost", per_model.source)
        costs = _cost_estimates(cells, own, models, "cost", cost_method, confidence_level, [], True)
    else:
        raise InputError("the cost file holds no cost column (only latency); name it with --cost-col",
                         source=per_model.source)
    lat = None
    if need_latency and latency is not False:
        if isinstance(latency, str) or (latency is None and "latency" in table.features):
            lname = latency if isinstance(latency, str) else "latency"
            if per_model is not None and "latency" in per_model.measures and lname not in table.features:
                lat_cells, lat_boot = None, None
            else:
                lat_cells, _ = _battle_cells(table, lname, units)
                lat_boot = boot
                notes.append(NOTE_MEDIAN_P95_FROM_BATTLES(lname=lname))
        else:
            lat_cells = lat_boot = None
        if lat_cells is None and per_model is not None and "latency" in per_model.measures:
            lname = "latency"
            lat_cells, _ = _table_cells(per_model, "latency", models, units)
            lat_boot = boot
            if lat_cells is None:
                lat_cells, lat_boot = _own_units(per_model, "latency", models, n_resamples, gen)
            notes.append(NOTE_LATENCY_FROM(source=per_model.source,
                                           how=", matched to the battles' questions (paired)" if lat_boot is boot else
                                           ", resampled by its own items (not paired with the ratings)"))
        if lat_cells is not None:
            _check_cover(lat_cells, models, lname, table.source)
            lat = _latency_estimates(lat_cells, lat_boot, models, lname, confidence_level, [])
    notes += [n for n in costs.notes if n not in notes]
    return q, costs, lat, tuple(dict.fromkeys(notes)), paired
