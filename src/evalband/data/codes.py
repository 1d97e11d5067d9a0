"""Integer codes behind :class:`evalband.data.table.ResultsTable`: the canonical sort, duplicates, values constant within
a group and per-group counts, all on the small integer codes of the label columns (no Python object per row).

A table of 1e8 rows keeps each label column as a categorical (an int8/int16/int32 code per row and each label
once), so every check and count here is a few passes of NumPy over code arrays: a stable LSD radix sort on 16-bit
digits for the canonical row order (skipped when the rows are in order already), comparisons of neighbouring
sorted rows for duplicates, a scatter of each group's first value for "constant within", and ``bincount`` for
counts. The same code runs for a table of ten rows, so both give the same table and the same messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas

__all__ = ["small_int", "int_codes", "combined_key", "stable_order", "take", "sorted_same", "first_duplicate",
           "changes_within", "runs", "CHUNK", "sorted_codes", "row_positions", "distinct_pairs"]

#: rows per chunk of the passes that make an int64 temporary (bounds the extra memory at 1e8 rows)
CHUNK = 1 << 23


def codes_of(column) -> np.ndarray:
    """The codes of a categorical column without a copy (a read-only view; ``Series.cat.codes.to_numpy()``
    copies the whole column in pandas 3, which at 1e8 rows is a transient of 100-400 MB per call).

    Examples
    --------
    >>> import pandas as pd
    >>> codes_of(pd.Series(pd.Categorical(["b", "a", "b"]))).tolist()
    [1, 0, 1]
    """
    return getattr(column, "array", column).codes


def run_bounds(codes: np.ndarray, n: int) -> np.ndarray:
    """Where each of the codes ``0..n-1`` starts in sorted ``codes``, and the end: ``(n + 1,)`` positions. The
    codes are searched in their own dtype (searching int64 values would copy an int8 column into int64).

    Examples
    --------
    >>> run_bounds(np.array([0, 0, 2], dtype=np.int8), 3).tolist()
    [0, 2, 2, 3]
    """
    codes = np.asarray(codes)
    return np.r_[np.searchsorted(codes, np.arange(n, dtype=codes.dtype)), codes.size].astype(np.int64)


def small_int(a: np.ndarray) -> np.ndarray:
    """``a`` (integers) in the smallest signed dtype that holds its values (int8, int16, int32 or int64)."""
    if a.size == 0:
        return a.astype(np.int8)
    lo, hi = int(a.min()), int(a.max())
    for dtype in (np.int8, np.int16, np.int32):
        info = np.iinfo(dtype)
        if info.min <= lo and hi <= info.max:
            return a.astype(dtype, copy=False)
    return a.astype(np.int64, copy=False)


def int_codes(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, distinct values) of an integer (or boolean) array: ``values[codes] == a``.

    Values spanning a compact range are coded by a presence table (ascending values; no hashing, no sort); others
    by :func:`pandas.factorize` (order of first appearance). Codes come in the smallest dtype that holds them.
    """
    import pandas as pd

    if a.dtype == bool:
        a = a.view(np.uint8)
    n = a.size
    if n == 0:
        return np.zeros(0, dtype=np.int8), a[:0]
    lo, hi = int(a.min()), int(a.max())
    span = hi - lo + 1
    if span > max(2 * n, 1 << 20) or span > 1 << 28:
        codes, uniq = pd.factorize(a)
        return small_int(codes), np.asarray(uniq)
    present = np.zeros(span, dtype=bool)
    for s in range(0, n, CHUNK):
        present[a[s:s + CHUNK].astype(np.int64) - lo] = True
    remap = small_int(np.cumsum(present, dtype=np.int64) - 1)
    codes = np.empty(n, dtype=remap.dtype)
    for s in range(0, n, CHUNK):
        codes[s:s + CHUNK] = remap[a[s:s + CHUNK].astype(np.int64) - lo]
    return codes, (np.flatnonzero(present) + lo).astype(a.dtype)


def combined_key(codes: list, radices: list, *, compact: bool = False) -> np.ndarray | None:
    """One int64 per row ordering the rows as the tuple of ``codes`` (each in ``[0, radix)``); None when the
    product of the radices does not fit in 63 bits. ``compact``: the smallest of uint16, int32 and int64 that
    holds every key (less memory for the sorts of large tables)."""
    total = 1
    for r in radices:
        total *= max(int(r), 1)
    if total >= 2**63 or not codes:
        return None
    dtype = np.int64
    if compact:
        dtype = np.uint16 if total <= 2**16 else np.int32 if total < 2**31 else np.int64
    key = np.zeros(codes[0].size, dtype=dtype)
    for c, r in zip(codes, radices):
        np.multiply(key, max(int(r), 1), out=key, casting="unsafe")
        np.add(key, c, out=key, casting="unsafe")
    return key


def stable_order(key: np.ndarray, upper: int) -> np.ndarray | None:
    """The stable sorting permutation of ``key`` (non-negative int64 below ``upper``), or None when ``key`` is
    sorted already. A least-significant-digit radix sort on 16-bit digits (NumPy's stable sort is a radix sort
    for 16-bit integers), so shuffled rows cost a few linear passes rather than a comparison sort."""
    n = key.size
    if n < 2 or bool(np.all(key[:-1] <= key[1:])):
        return None
    index = np.int32 if n < 2**31 else np.int64
    order = None
    shift = 0
    while (upper - 1) >> shift or shift == 0:
        digit = ((key if order is None else key[order]) >> shift) & 0xFFFF
        step = np.argsort(digit.astype(np.uint16), kind="stable").astype(index)
        del digit
        order = step if order is None else order[step]
        shift += 16
    return order


def take(values, order):
    """``values[order]`` for a NumPy array or a pandas Categorical (``order`` None: unchanged)."""
    if order is None:
        return values
    if isinstance(values, np.ndarray):
        return values[order]
    return values.take(order)


def sorted_same(keys: list, order) -> np.ndarray:
    """(n - 1,) bool: whether each row of the sorted table has the same keys as the row before it."""
    n = keys[0].size
    same = np.ones(max(n - 1, 0), dtype=bool)
    for k in keys:
        ks = take(k, order)
        same &= ks[1:] == ks[:-1]
        del ks
    return same


def first_duplicate(same: np.ndarray, order) -> tuple[int, int, int] | None:
    """Rows sharing their keys with another row: ``(first, second, count)`` with ``first`` the first such row
    in the source order, ``second`` the next row with the same keys, and ``count`` the rows that have a twin;
    None when there are none. Positions are in the source order."""
    if not same.any():
        return None
    n = same.size + 1
    twin = np.zeros(n, dtype=bool)
    twin[1:] |= same
    twin[:-1] |= same
    sorted_pos = np.flatnonzero(twin)
    source = sorted_pos if order is None else np.asarray(order)[sorted_pos]
    k = int(sorted_pos[np.argmin(source)])
    starts = np.flatnonzero(np.r_[True, ~same])
    s = int(starts[np.searchsorted(starts, k, side="right") - 1])
    e = int(starts[np.searchsorted(starts, k, side="right")]) if np.searchsorted(starts, k, side="right") < \
        starts.size else n
    run = np.arange(s, e) if order is None else np.sort(np.asarray(order)[s:e])
    return int(run[0]), int(run[1]), int(twin.sum())


def changes_within(group: np.ndarray, n_groups: int, value: np.ndarray) -> np.ndarray | None:
    """Groups (codes ``group`` in ``[0, n_groups)``) in which ``value`` (codes) is not constant: a boolean mask
    over the groups, or None when ``value`` is constant within every group."""
    first = np.empty(n_groups, dtype=value.dtype)
    first[group] = value
    bad_rows = first[group] != value
    if not bad_rows.any():
        return None
    bad = np.zeros(n_groups, dtype=bool)
    bad[group[bad_rows]] = True
    return bad


def runs(same: np.ndarray) -> np.ndarray:
    """Start of each run of rows with the same keys (``same`` from :func:`sorted_same`), with the end appended."""
    n = same.size + 1
    return np.r_[np.flatnonzero(np.r_[True, ~same]), n]


def sorted_codes(codes: np.ndarray, n_categories: int) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize(codes, sort=True)`` for codes in ``[0, n_categories)``: a presence table when the
    categories are not many more than the rows (no sort)."""
    if n_categories > 4 * codes.size + 1024:
        import pandas as pd

        return pd.factorize(codes, sort=True)
    present = np.zeros(n_categories, dtype=bool)
    present[codes] = True
    remap = np.cumsum(present) - 1
    return remap[codes], np.flatnonzero(present)


def row_positions(cell: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Position of each row among the rows of its (model, item) cell, in the order of the rows (what
    ``groupby(...).cumcount()`` gives): from the runs of neighbouring rows when each cell's rows are together, as
    in the table's canonical order, else after a stable sort of the cells."""
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if cell.size else cell
    if starts.size == int((count > 0).sum()):  # every cell is one run
        run = np.repeat(starts, np.diff(np.r_[starts, cell.size]))
        return np.arange(cell.size) - run
    order = np.argsort(cell, kind="stable")  # rows of a cell keep their order
    ordered = cell[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    position = np.empty(cell.size, dtype=np.int64)
    position[order] = np.arange(cell.size) - np.repeat(starts, np.diff(np.r_[starts, cell.size]))
    return position


def distinct_pairs(d: "pandas.DataFrame", a: str, b: str) -> int:
    """Number of distinct (a, b) label pairs among the rows (codes)."""
    x, y = codes_of(d[a]).astype(np.int64), codes_of(d[b])
    ny = len(d[b].cat.categories)
    key = x * ny + y
    if len(d[a].cat.categories) * ny <= max(4 * key.size, 1 << 24):
        return int((np.bincount(key) > 0).sum())
    return int(np.unique(key).size)
