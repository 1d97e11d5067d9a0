"""The one set-up of every analysis over tasks on bootstrap replicates (comparisons, rankings, the report):
select the models, tasks and weights once, then draw (or take) one replicate set for that selection."""

from __future__ import annotations

from .._validate import ArgumentError, ArgumentTypeError, InputError, as_generator, check_choice
from ..selection import select, selection_of_labels
from .engine import bootstrap
from .replicates import ReplicateSet

__all__ = ["replicates_for", "ANALYSIS_RESAMPLING"]

#: resampling choices of analyses over tasks ('binomial' is what summary data always get under 'auto')
ANALYSIS_RESAMPLING = ("auto", "paired", "independent")


def replicates_for(data, *, models=None, tasks=None, weights=None, group_weights=None, replicates=None,
                   resampling: str = "auto", n_resamples: int = 10_000, rng=None, cluster=None,
                   min_models: int = 2, what: str = "a comparison", ppi: str = "ppi++"):
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
    what : str
        The analysis, for the message.
    ppi : {'ppi++', 'classic', 'labelled', 'none'}
        Item-level results with human labels: replicates of each model's prediction-powered estimate (see
        :func:`evalband.resample.bootstrap`); every item of a task counts for the models that have it, so tasks
        are not left out for sharing no item.
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
    from ..judges.ppi_replicates import uses_ppi

    sel = sel.complete_tasks(shared_items=paired and not uses_ppi(table, ppi), independent=independent)
    if replicates is not None:
        if not isinstance(replicates, ReplicateSet):
            raise ArgumentTypeError(f"`replicates` must be replicates from evalband.resample.bootstrap; got"
                            f" {type(replicates).__name__}.")
        if tuple(replicates.models) != tuple(sel.models) or tuple(replicates.tasks) != tuple(sel.tasks):
            raise ArgumentError("`replicates` were drawn for other models or tasks than the selection holds.")
        return sel, replicates, gen
    kwargs = dict(resampling=resampling, n_resamples=n_resamples, rng=gen, ppi=ppi)
    if cluster is not None:
        kwargs["cluster"] = cluster
    return sel, bootstrap(sel, **kwargs), gen
