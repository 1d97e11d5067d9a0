"""The judges' inputs, through the selection layer (:func:`evalband.select`): ratings for agreement and the
reference analysis, item-level results with human labels for prediction-powered inference."""

from __future__ import annotations

from .._validate import InputError, check_choice
from .._words import words
from ..display.notes import NoteKind

__all__ = ["ratings_of", "labelled_results", "PPI_CHOICES", "MIN_LABELS", "check_ppi", "uses_ppi", "ppi_method", "FEW_LABELS",
           "ppi_rule_note"]


def ratings_of(data, *, level: str = "auto", **read_options):
    """``data`` (a Selection of ratings, a RatingsTable, or anything ``select(data, source='ratings')`` reads) as
    a RatingsTable at ``level``."""
    from ..data.ratings import RatingsTable
    from . import Selection, select

    if isinstance(data, Selection):
        table = data.table
    elif isinstance(data, RatingsTable):
        table = data
    else:
        table = select(data, source="ratings", measurement=level, **read_options).table
    if not isinstance(table, RatingsTable):
        raise InputError(words("agreement needs ratings (unit, rater, value); read them with {arg:source='ratings'} (got a {name})", name=type(table).__name__), source=getattr(table, "source", None))
    return table.with_level(level)


def labelled_results(data, *, models=None, tasks=None):
    """The item-level results table of ``data`` (anything :func:`evalband.select` accepts) restricted to
    ``models`` and ``tasks``, refused unless it has human labels."""
    from . import select

    table = select(data, models=models, tasks=tasks).table
    if getattr(table, "level", None) != "item":
        raise InputError("prediction-powered inference needs item-level scores (a judge score per item); summary"
                         " counts have no items to label", source=getattr(table, "source", None))
    if "human" not in table.measures:
        raise InputError(words("no human labels: PPI needs a 'human' column holding the human label where there is one (blank elsewhere); map another column with read(..., {arg:human_col=NAME})"),
                         source=table.source)
    return table


#: the ``ppi=`` choices of estimate, bootstrap, compare, rank and analyze
PPI_CHOICES = ("ppi++", "classic", "labelled", "none")



#: fewest human labels per model and task PPI needs (a variance of the residuals)
MIN_LABELS = 2
#: below this many human labels (labelled clusters), a note says the interval rests on few labels
FEW_LABELS = 30



def check_ppi(ppi) -> str:
    """``ppi`` checked against :data:`PPI_CHOICES` ('ppi' is read as 'ppi++')."""
    if isinstance(ppi, str) and ppi.strip().lower() == "ppi":
        return "ppi++"
    return check_choice(ppi, PPI_CHOICES, "ppi")



def uses_ppi(table, ppi="ppi++") -> bool:
    """Whether the rule applies: ``table`` is item-level results with human labels and ``ppi`` is not 'none'."""
    ppi = check_ppi(ppi)
    return (ppi != "none" and getattr(table, "level", None) == "item"
            and "human" in getattr(table, "measures", ()))



def ppi_method(ppi: str) -> str:
    """The :func:`~evalband.judges.ppi_mean` method of a ``ppi=`` choice."""
    return check_ppi(ppi)



NOTE_PPI_RULE = NoteKind(
    "selection.ppi-rule", "info", "human labels on {n_labelled:,} of {n_rows:,} rows: estimates target the"
    " human-scale mean by {how}, from the judge's score on every item corrected by its error on the labelled ones;"
    " the labelled items must be a random sample (`{arg:ppi='classic'}`: lambda = 1; `{arg:ppi='none'}`: the"
    " judge's scores at face value)")


def ppi_rule_note(method: str, n_labelled: int, n_rows: int) -> str:
    """The note saying that the human-scale quantity is estimated, and how."""
    how = {"ppi++": "PPI++ (power-tuned lambda; Angelopoulos, Duchi & Zrnic 2023)",
           "classic": "classic PPI (lambda = 1; Angelopoulos et al. 2023)",
           "labelled": "the human labels alone (lambda = 0)"}[method]
    return NOTE_PPI_RULE(n_labelled=n_labelled, n_rows=n_rows, how=how)
