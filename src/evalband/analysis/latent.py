"""The latent-ability adapters of a report (registered in :data:`evalband.analysis.extensions.EXTENSIONS`):

* 'sparse': when some selected model has no result on some task, the report's comparison keeps only the tasks
  every model has; this analysis puts every measured cell to use through the latent-ability model
  (:func:`evalband.latent.ability`), with the held-out check of its predictive intervals;
* 'items' (on request: ``sections=('items',)``, ``--sections items``): the item diagnostics of item-level
  results (:func:`evalband.latent.items`).

Both run on the analysis's selection, seed and confidence level.
"""

from __future__ import annotations

__all__ = ["sparse_extension", "items_extension", "all_cells", "cell_scores_ability", "HOLDOUT"]

#: share of the measured cells the report's held-out check leaves out
HOLDOUT = 0.1


def all_cells(selection):
    """The selection's models on its tasks and on the tasks it left out because some model lacks them: every
    measured cell, for an analysis that does not need every model on every task. The table itself when nothing
    was left out.

    Examples
    --------
    >>> import pandas as pd
    >>> import evalband as eb
    >>> df = pd.DataFrame({"model": ["a", "a", "b"], "task": ["x", "y", "x"], "n": 100, "correct": [70, 40, 60]})
    >>> sel = eb.select(df, complete=True)       # the comparison's tasks: x only
    >>> sel.tasks, all_cells(sel).tasks
    (('x',), ('x', 'y'))
    """
    table = selection.table
    lacking = selection.left_out.lacking
    source = getattr(selection, "source", None)
    if not lacking or source is None:
        return table
    keep = set(selection.tasks) | set(lacking)
    return source.select(models=list(selection.models), tasks=[str(t) for t in source.tasks if str(t) in keep])


def sparse_extension(selection, *, aggregate, n_resamples, confidence_level, rng, replicates=None):
    """The report's "Sparse leaderboard": the :class:`~evalband.latent.AbilityResult` of every measured cell
    (with the held-out check, :data:`HOLDOUT`), or None when no cell is missing.

    Raises :class:`~evalband.analysis.extensions.Skip` with the reason when cells are missing but the model does
    not apply (a model x task graph in pieces, scores outside [0, 1], a single model).
    """
    from .extensions import Skip
    from .._validate import InputError
    from ..latent import ability
    from ..selection import missing_tasks

    table = all_cells(selection)
    if table is None or getattr(table, "level", None) not in ("item", "summary") or len(table.models) < 2:
        return None
    if not missing_tasks(table, shared_items=False):
        return None  # every model on every task: the comparison uses every cell already
    try:
        return ability(table, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng, holdout=HOLDOUT)
    except InputError as exc:
        raise Skip(getattr(exc, "problem", None) or str(exc)) from None


def items_extension(selection, *, aggregate, n_resamples, confidence_level, rng, replicates=None):
    """The report's "Items" section: :class:`~evalband.latent.ItemsResult` of the item-level results (2PL
    difficulty and discrimination, item-total correlations, flags, per-task information).

    Raises :class:`~evalband.analysis.extensions.Skip` with the reason when the results are not at item level or
    the diagnostics do not apply (fewer than 3 models, a graph in pieces).
    """
    from .extensions import Skip
    from .._validate import InputError
    from ..latent import items

    table = all_cells(selection)
    if getattr(table, "level", None) != "item":
        raise Skip("item diagnostics need item-level results (model, task, item, score); these are per-task"
                   " summaries")
    try:
        return items(table, confidence_level=confidence_level, n_draws=n_resamples, rng=rng)
    except InputError as exc:
        raise Skip(getattr(exc, "problem", None) or str(exc)) from None


def cell_scores_ability(data, *, n_resamples=None, confidence_level=0.95, rng=None, models=None, tasks=None):
    """The latent abilities of cell scores (one score in [0, 1] per model and task, no items or counts: a path,
    ``'example:NAME'`` or such a DataFrame), with the held-out check (:data:`HOLDOUT`); None for any other data.

    What a report of such data can show: the sparse leaderboard (the bootstrap comparison of scores needs items
    or counts).
    """
    import os

    import pandas as pd

    from ..latent import ability
    from ..selection.cell_scores import cell_scores_input

    if isinstance(data, (str, os.PathLike)):
        frame = cell_scores_input(data)
    elif isinstance(data, pd.DataFrame) and {"model", "task", "score"} <= set(data.columns) and not (
            {"item", "n", "correct", "accuracy"} & set(data.columns)):
        frame = data
    else:
        frame = None
    if frame is None:
        return None
    return ability(frame, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng, holdout=HOLDOUT,
                   models=models, tasks=tasks)
