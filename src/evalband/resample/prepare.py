"""The one set-up of every analysis over tasks on bootstrap replicates (comparisons, rankings, the report):
select the models, tasks and weights once, then draw (or take) one replicate set for that selection."""

from __future__ import annotations

from dataclasses import replace

from .._validate import ArgumentError, ArgumentTypeError, InputError, as_generator, check_choice
from ..selection import select, selection_of_labels
from .engine import bootstrap
from .replicates import ReplicateSet
from .._words import words
from ..display.notes import NoteKind

__all__ = ["require_clusters", "replicates_for", "ANALYSIS_RESAMPLING"]

#: resampling choices of analyses over tasks ('binomial' is what summary data always get under 'auto')
ANALYSIS_RESAMPLING = ("auto", "paired", "independent")


NOTE_FACETS_NOT_RESAMPLED = NoteKind("resample.facets-not-resampled", "info", "facets not resampled: the models"
                                     " are resampled independently (no shared items), which conditions on the facet"
                                     " levels used")


def replicates_for(data, *, models=None, tasks=None, weights=None, group_weights=None, replicates=None,
                   resampling: str = "auto", n_resamples: int = 10_000, rng=None, cluster=None,
                   min_models: int = 2, what: str = "a comparison", fixed=None, jackknife: bool = False,
                   ppi: str = "ppi++"):
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
    ppi : {'ppi++', 'classic', 'labelled', 'none'}
        Item-level results with human labels: replicates of each model's prediction-powered estimate (see
        :func:`evalband.resample.bootstrap`); every item of a task counts for the models that have it, so tasks
        are not left out for sharing no item.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from evalband.resample import replicates_for
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"model": np.repeat(["A", "B"], 60), "task": np.tile(np.repeat(["math", "code"], 30), 2),
    ...                    "item": np.tile(np.arange(60), 2), "score": rng.integers(0, 2, 120)})
    >>> sel, reps, gen = replicates_for(df, n_resamples=200, rng=0)
    >>> sel.models, sel.tasks, reps.replicates.shape
    (('A', 'B'), ('code', 'math'), (200, 2, 2))
    >>> reps.observed.round(3)
    array([[0.467, 0.667],
           [0.467, 0.6  ]])
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
    from ..selection.judgements import uses_ppi

    sel = sel.complete_tasks(shared_items=paired and not uses_ppi(table, ppi), independent=independent)
    if replicates is not None:
        if not isinstance(replicates, ReplicateSet):
            raise ArgumentTypeError(f"`replicates` must be replicates from evalband.resample.bootstrap; got"
                            f" {type(replicates).__name__}.")
        if tuple(replicates.models) != tuple(sel.models) or tuple(replicates.tasks) != tuple(sel.tasks):
            raise ArgumentError("`replicates` were drawn for other models or tasks than the selection holds.")
        return sel, replicates, gen
    require_clusters(sel, cluster=cluster, what=what)
    from .dispatch import BCA_FEW_CLUSTERS_NOTE, default_replicates, few_clusters
    from ..selection.facet_design import check_fixed

    fixed = check_fixed(table, fixed)
    human = uses_ppi(table, ppi)  # human labels: the PPI replicate set (judges.ppi_replicates) comes first
    if paired and resampling in ("auto", "paired") and not human:  # facets random, or few clusters
        reps = default_replicates(sel, fixed=fixed, cluster=cluster, n_resamples=n_resamples, rng=gen,
                                  jackknife=jackknife)
        if reps is not None:
            return sel, reps, gen
        if jackknife and few_clusters(sel, cluster=cluster):
            reps = bootstrap(sel, resampling=resampling, n_resamples=n_resamples, rng=gen,
                             **({} if cluster is None else {"cluster": cluster}))
            return sel, replace(reps, notes=(*reps.notes, BCA_FEW_CLUSTERS_NOTE)), gen
    kwargs = dict(resampling=resampling, n_resamples=n_resamples, rng=gen, ppi=ppi)
    if cluster is not None:
        kwargs["cluster"] = cluster
    reps = bootstrap(sel, **kwargs)
    if not paired and table.level == "item" and set(table.facets) - set(fixed):
        reps = replace(reps, notes=(*reps.notes, NOTE_FACETS_NOT_RESAMPLED()))
    return sel, reps, gen


def require_clusters(selection, *, cluster=None, what: str = "a comparison") -> None:
    """The one rule for clustered items: no decided difference or ranking from fewer than 2 clusters in a task.

    With one cluster the cluster bootstrap redraws the same cluster every time, so every interval has zero width
    and every verdict would look decided. An :class:`~evalband._validate.InputError` names the file, the tasks and
    their cluster, and the ways out (items as independent with ``cluster=False`` / ``--cluster none``, or the
    task left out). ``cluster=False`` (items resampled on their own) passes.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from evalband import select
    >>> from evalband.resample import require_clusters
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"model": np.repeat(["A", "B"], 40), "task": np.tile(np.repeat(["math", "code"], 20), 2),
    ...                    "item": np.tile(np.arange(40), 2), "score": rng.integers(0, 2, 80),
    ...                    "cluster": np.tile(np.repeat(["p1", "p2", "p3", "p4"], 10), 2)})
    >>> require_clusters(select(df))  # 2 clusters in each task: passes
    >>> one = df.assign(cluster=np.where(df.task == "math", "p1", df.cluster))
    >>> require_clusters(select(one))
    Traceback (most recent call last):
    ...
    evalband._validate.InputError: <DataFrame>: a comparison needs at least 2 clusters in every task, and task 'math'
    has all its items in one cluster (first: 'p1'): ...
    >>> require_clusters(select(one), cluster=False)  # items treated as independent
    """
    table = selection.table
    if cluster is False or table is None or table.level != "item" or not table.has_clusters:
        return
    def one_cluster(task):  # no row, or every row in the same cluster (the task's codes, no copy of the table)
        (codes,) = table.task_codes(task, "cluster")
        return codes.size == 0 or codes.min() == codes.max()

    few = [t for t in selection.tasks if one_cluster(t)]
    if not few:
        return
    (first,) = table.task_codes(few[0], "cluster")
    label = str(table.data["cluster"].cat.categories[first[0]]) if first.size else ""
    tasks = ", ".join(f"'{t}'" for t in few[:5]) + (f" and {len(few) - 5} more" if len(few) > 5 else "")
    raise InputError(words('{what} needs at least 2 clusters in every task, and task{value} {tasks} {value2} all {value3} items in one cluster{value4}: its uncertainty cannot be estimated, so no difference or rank could be decided. Treat the items as independent (`{arg:cluster=False}`), or leave the task out (`{arg:tasks}`)', what=what, value='s' if len(few) > 1 else '', tasks=tasks, value2='have' if len(few) > 1 else 'has', value3='their' if len(few) > 1 else 'its', value4=f' (first: {label!r})' if label else ''), source=table.source)
