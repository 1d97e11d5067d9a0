"""The one set-up of every analysis over tasks on bootstrap replicates (comparisons, rankings, the report):
select the models, tasks and weights once, then draw (or take) one replicate set for that selection."""

from __future__ import annotations

from dataclasses import replace

from .._validate import ArgumentError, ArgumentTypeError, InputError, as_generator, check_choice
from ..selection import select, selection_of_labels
from .engine import bootstrap
from .replicates import ReplicateSet

__all__ = ["replicates_for", "ANALYSIS_RESAMPLING"]

#: resampling choices of analyses over tasks ('binomial' is what summary data always get under 'auto')
ANALYSIS_RESAMPLING = ("auto", "paired", "independent")


def replicates_for(data, *, models=None, tasks=None, weights=None, group_weights=None, replicates=None,
                   resampling: str = "auto", n_resamples: int = 10_000, rng=None, cluster=None,
                   min_models: int = 2, what: str = "a comparison", fixed=None):
    """``(selection, replicates, generator)`` for an analysis over tasks.

    Parameters
    ----------
    data : Selection, ResultsTable, path, DataFrame or ReplicateSet
        Anything :func:`evalband.select` accepts, or replicates already drawn (then the selection is made on
        their labels, and item-level analytics are unavailable: ``selection.table`` is None).
    models, tasks, weights, group_weights
        The selection (:func:`evalband.select`). Tasks that a selected model lacks are left out with a note
        (``complete``); for paired resampling, also tasks on which the models share no item.
    replicates : ReplicateSet, optional
        Replicates drawn earlier on the same selection (checked), reused instead of drawing.
    resampling : {'auto', 'paired', 'independent'}
    n_resamples, rng, cluster
        Passed to :func:`evalband.resample.bootstrap`.
    min_models : int
        Fewest models the analysis needs (checked before any replicate is drawn).
    fixed : str, sequence of str, True or None
        Facets to condition on. Default (None): facet columns crossed with items are random, and paired item data
        with such facets, or with few clusters, get the replicates of :func:`evalband.facets.default_replicates`
        (crossed wild bootstrap; small-sample wild cluster bootstrap) instead of the engine's.
    what : str
        The analysis, for the message.
    """
    resampling = check_choice(resampling, ANALYSIS_RESAMPLING, "resampling")
    gen = as_generator(rng)
    if isinstance(data, ReplicateSet):
        if replicates is not None:
            raise ArgumentTypeError("give the replicates once: as `data` or as `replicates`, not both.")
        sel, mi, ti = selection_of_labels(data.models, data.tasks, data.task_groups, select_models=models,
                                          select_tasks=tasks, weights=weights, group_weights=group_weights)
        reps = data.subset(mi, ti) if hasattr(data, "subset") else data
        if len(reps.models) < min_models:
            raise ArgumentError(f"{what} needs at least {min_models} models; got {len(reps.models)}.")
        return sel, reps, gen
    sel = select(data, models=models, tasks=tasks, weights=weights, group_weights=group_weights)
    table = sel.table
    if len(sel.models) < min_models:  # before drawing any replicate; name the file and the models
        raise InputError(f"{what} needs at least {min_models} models; found {len(sel.models)}"
                         f" ({', '.join(sel.models)})", source=table.source)
    independent = (table.level == "summary" or resampling == "independent" or not table.paired_items)
    paired = table.level == "item" and not independent
    sel = sel.complete_tasks(shared_items=paired, independent=independent)
    if replicates is not None:
        if not isinstance(replicates, ReplicateSet):
            raise ArgumentTypeError(f"`replicates` must be replicates from evalband.resample.bootstrap; got"
                            f" {type(replicates).__name__}.")
        if tuple(replicates.models) != tuple(sel.models) or tuple(replicates.tasks) != tuple(sel.tasks):
            raise ArgumentError("`replicates` were drawn for other models or tasks than the selection holds.")
        return sel, replicates, gen
    from ..facets.defaults import check_fixed, default_replicates

    fixed = check_fixed(table, fixed)
    if paired and resampling in ("auto", "paired"):  # facets random, or few clusters: the one dispatch
        reps = default_replicates(sel, fixed=fixed, cluster=cluster, n_resamples=n_resamples, rng=gen)
        if reps is not None:
            return sel, reps, gen
    kwargs = dict(resampling=resampling, n_resamples=n_resamples, rng=gen)
    if cluster is not None:
        kwargs["cluster"] = cluster
    reps = bootstrap(sel, **kwargs)
    if not paired and table.level == "item" and set(table.facets) - set(fixed):
        reps = replace(reps, notes=(*reps.notes, "facets not resampled: the models are resampled independently"
                                    " (no shared items), which conditions on the facet levels used"))
    return sel, reps, gen
