"""Ratings files: who rated which unit how, long or wide, into one :class:`~evalband.judges.RatingsTable`.

* ``long``: one row per unit and rater, with unit, rater and value columns (any names, mapped with the
  ``*_col`` options); a blank value is a missing rating.
* ``wide``: one row per unit, one column per rater (blank = missing); ``raters`` picks the rater columns.

Files are CSV, TSV, JSON Lines or Parquet (told by the suffix, or ``file_format=``), or ``"-"`` for standard input,
read as :func:`evalband.io.tabular.load_frame` reads results tables, so messages name the file line. A column name
also matches a column differing only by case when exactly one does.
"""

from __future__ import annotations

import os

import pandas as pd

from .._validate import ArgumentTypeError, check_choice, no_other_keywords, renamed
from ..data.ratings import RatingsTable
from ._columns import find_column
from .tabular import load_frame

__all__ = ["read_ratings", "as_ratings", "RATING_SHAPES"]

RATING_SHAPES = ("long", "wide")


def _column(frame: pd.DataFrame, name, role: str, source: str, *, required: bool = True):
    """The frame's column for ``name``: exact, else the one column equal to it regardless of case."""
    return find_column(frame.columns, name, role, source, required=required)


def read_ratings(data, *, unit_col: str = "unit", rater_col: str = "rater", value_col: str = "value",
                 shape: str = "long", raters=None, cluster_col: str | None = None,
                 measurement: str = "auto", categories=None, file_format: str = "auto", **deprecated) -> RatingsTable:
    """Read ratings from a file or a DataFrame.

    Parameters
    ----------
    data : str, os.PathLike, pandas.DataFrame or RatingsTable
        A CSV / TSV / JSON Lines / Parquet file, ``"-"`` for standard input, a DataFrame, or a RatingsTable
        (returned unchanged).
    unit_col, rater_col, value_col : str
        Long shape: the columns of the unit, the rater and the rating. Wide shape: ``unit_col`` is the unit
        column (when the file has none, rows are the units, with a note).
    shape : {'long', 'wide'}
    raters : sequence of str, optional
        Wide shape: the rater columns (default: every column but the unit and cluster columns).
    cluster_col : str, optional
        A column constant within each unit naming its cluster; bootstraps then resample whole clusters.
    measurement : {'auto', 'nominal', 'ordinal', 'interval', 'ratio'}
        The level of measurement (``level=`` before 0.2, deprecated): 'auto' reads text as nominal, integer
        ratings with at most 12 values as ordinal and other numbers as
        interval, and says which in the table's notes.
    categories : sequence, optional
        The allowed values in order (an ordinal scale of labels, e.g. ``['bad', 'ok', 'good']``).
    file_format : {'auto', 'csv', 'tsv', 'jsonl', 'json', 'parquet'}

    Returns
    -------
    RatingsTable

    Notes
    -----
    Each (unit, rater) may be rated once; a repeated rating is an error naming both lines (give repeats their
    own rater or unit). Blank ratings are missing and counted in the notes, as are units nobody rated.

    Examples
    --------
    >>> from evalband.io.ratings import read_ratings
    >>> table = read_ratings("ratings.csv", unit_col="item", rater_col="grader", value_col="score")  # doctest: +SKIP
    >>> wide = read_ratings("wide.csv", shape="wide", unit_col="item")                            # doctest: +SKIP
    """
    measurement = renamed(deprecated, old="level", new="measurement", function="read_ratings", value=measurement,
                          default="auto")
    no_other_keywords(deprecated, "read_ratings")
    level = measurement
    if isinstance(data, RatingsTable):
        return data
    shape = check_choice(shape, RATING_SHAPES, "shape")
    read_notes = []
    if isinstance(data, pd.DataFrame):
        frame, source, row_word = data, "<DataFrame>", "row"
    elif isinstance(data, (str, os.PathLike)):
        frame, source, row_word, read_notes = load_frame(data, file_format=file_format)
    else:
        raise ArgumentTypeError(f"`data` must be a path, a DataFrame or a RatingsTable; got {type(data).__name__}.")
    cluster = _column(frame, cluster_col, "cluster", source)
    if shape == "long":
        return RatingsTable.from_long(frame, unit_col=_column(frame, unit_col, "unit", source),
                                      rater_col=_column(frame, rater_col, "rater", source),
                                      value_col=_column(frame, value_col, "value", source), cluster_col=cluster,
                                      level=level, categories=categories, source=source, row_word=row_word,
                                      notes=read_notes)
    unit = _column(frame, unit_col, "unit", source, required=unit_col != "unit")
    return RatingsTable.from_wide(frame, unit_col=unit, raters=raters, cluster_col=cluster, level=level,
                                  categories=categories, source=source, row_word=row_word, notes=read_notes)


def as_ratings(data, *, level: str = "auto", **options) -> RatingsTable:
    """``data`` as a RatingsTable: read it (``read_ratings`` options), or check a table against ``level``.

    A RatingsTable given with another ``level`` is re-read at that level (interval and ratio need numbers).
    """
    if not isinstance(data, RatingsTable):
        return read_ratings(data, measurement=level, **options)
    return data.with_level(level)
