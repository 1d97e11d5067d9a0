"""The judges' inputs, through the selection layer (:func:`evalband.select`): ratings for agreement and the
reference analysis, item-level results with human labels for prediction-powered inference."""

from __future__ import annotations

from .._validate import InputError

__all__ = ["ratings_of", "labelled_results"]


def ratings_of(data, *, level: str = "auto", **read_options):
    """``data`` (a Selection of ratings, a RatingsTable, or anything ``select(data, source='ratings')`` reads) as
    a RatingsTable at ``level``."""
    from ..ratings import RatingsTable
    from ..selection import Selection, select

    if isinstance(data, Selection):
        table = data.table
    elif isinstance(data, RatingsTable):
        table = data
    else:
        table = select(data, source="ratings", level=level, **read_options).table
    if not isinstance(table, RatingsTable):
        raise InputError("agreement needs ratings (unit, rater, value); read them with source='ratings'"
                         f" (got a {type(table).__name__})", source=getattr(table, "source", None))
    return table.with_level(level)


def labelled_results(data, *, models=None, tasks=None):
    """The item-level results table of ``data`` (anything :func:`evalband.select` accepts) restricted to
    ``models`` and ``tasks``, refused unless it has human labels."""
    from ..selection import select

    table = select(data, models=models, tasks=tasks).table
    if getattr(table, "level", None) != "item":
        raise InputError("prediction-powered inference needs item-level scores (a judge score per item); summary"
                         " counts have no items to label", source=getattr(table, "source", None))
    if "human" not in table.measures:
        raise InputError("no human labels: PPI needs a 'human' column holding the human label where there is one"
                         " (blank elsewhere); map another column with read(..., human_col=NAME)",
                         source=table.source)
    return table
