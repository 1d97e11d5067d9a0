"""The one rule for cells: every cell a table reads holds one value (text, a number, a boolean, or nothing).

JSON Lines and JSON records can hold an object or an array where a value belongs (``"score": {"value": 1}``), and
Parquet has struct, list and map columns (read as dicts, arrays and lists of pairs). Such a cell is no score, no
label and no measure: every column a table reads (results, battles, ratings, costs; each role: model, task, item,
trial, cluster, group, facets, score, measures, sides, winner, weights, style features, units, raters, values) is
checked here before it is parsed, and a nested cell ends in one :class:`~evalband._validate.InputError` naming the
file, the row of the first such cell, the column, what the cell holds and how many cells do. Columns no role
reads are not checked (they are named as not used).

The check costs one pass of :func:`pandas.api.types.infer_dtype` over an object column (a column of numbers,
booleans, text or categories of text is never looked at cell by cell).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._validate import InputError

__all__ = ["NESTED", "describe", "nested_cells", "check_cells"]

#: what a cell may not hold: objects, arrays and binary data (a Parquet struct, list or map column, a JSON object
#: or array)
NESTED = (dict, list, tuple, set, frozenset, np.ndarray, bytes, bytearray, memoryview)

#: kinds of :func:`pandas.api.types.infer_dtype` that hold scalars only
_SCALAR_KINDS = frozenset({"string", "integer", "floating", "mixed-integer-float", "boolean", "empty", "decimal",
                           "complex", "datetime", "datetime64", "date", "time", "timedelta", "timedelta64",
                           "period", "interval", "categorical"})


def describe(value) -> str:
    """What a nested cell holds, in words: ``an object {'value': 1}``, ``a list [1, 0]``, ``bytes b'..'``."""
    if isinstance(value, dict):
        kind = "an object"
    elif isinstance(value, (bytes, bytearray, memoryview)):
        kind, value = "bytes", bytes(value)
    else:
        kind = "a list"
        if isinstance(value, np.ndarray):
            value = value.tolist()
    text = str(value)
    return f"{kind} {text if len(text) <= 40 else text[:37] + '...'}"


def nested_cells(values) -> np.ndarray:
    """Positions of the rows of ``values`` (a Series, an array or a list; a 2-D array: its rows) whose cells hold
    a nested value (see :data:`NESTED`); empty when every cell is a scalar or missing."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        bad = nested_cells(values.cat.categories)
        if not bad.size:
            return bad
        codes = values.cat.codes.to_numpy()
        return np.flatnonzero(np.isin(codes, bad))
    if isinstance(values, (pd.Series, pd.Index)):
        if values.dtype != object:
            return np.zeros(0, dtype=np.int64)
        arr = values.to_numpy(dtype=object)
    else:
        arr = np.asarray(values) if not isinstance(values, list) else np.empty(len(values), dtype=object)
        if isinstance(values, list):
            arr[:] = values
        if arr.dtype != object:
            return np.zeros(0, dtype=np.int64)
        if arr.ndim > 1:
            rows = nested_cells(arr.reshape(len(arr), -1).ravel())
            return np.unique(rows // max(arr.size // max(len(arr), 1), 1))
    if arr.size == 0 or pd.api.types.infer_dtype(arr, skipna=True) in _SCALAR_KINDS:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.fromiter((isinstance(v, NESTED) for v in arr), dtype=bool, count=arr.size))


def check_cells(values, name: str, *, source=None, where=None, column: str | None = None,
                expected: str = "text or a number") -> None:
    """Refuse a column whose cells hold nested values, naming the first such row.

    Parameters
    ----------
    values : pandas.Series, numpy.ndarray or list
        The cells of one column, in the order of the rows.
    name : str
        The role of the column in the message ('score', 'model', ...).
    source : str, optional
        The file, for the message.
    where : callable, optional
        Position -> the row as the user sees it ('line 7', 'row 3'); default: the Series' index label as
        ``row LABEL`` (position + 1 for arrays).
    column : str, optional
        The column's name in the source (default ``name``).
    expected : str
        What a cell of this role holds ('a number', 'text or a number', ...).

    Raises
    ------
    InputError
        ``score must be a number, ...; got an object {'value': 1} (a nested field: ...; 3 such rows)``.
    """
    bad = nested_cells(values)
    if not bad.size:
        return
    pos = int(bad[0])
    value = values.iloc[pos] if isinstance(values, pd.Series) else values[pos]
    if isinstance(value, np.ndarray) and value.dtype == object and isinstance(values, np.ndarray) \
            and values.ndim > 1:  # a row of a 2-D array: its first nested cell
        value = next(v for v in value.ravel() if isinstance(v, NESTED))
    if where is not None:
        row = where(pos)
    elif isinstance(values, pd.Series):
        row = f"row {values.index[pos]}"
    else:
        row = f"row {pos + 1}"
    raise InputError(f"{name} must be {expected}; got {describe(value)} (a nested field: one value per cell,"
                     f" flatten it into a column of its own; {bad.size:,} such row{'s' if bad.size > 1 else ''})",
                     source=source, row=row, column=column or name)
