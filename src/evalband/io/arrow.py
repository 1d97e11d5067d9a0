"""Columnar fast path for very large item-level files: per-task (models x items) score matrices from Arrow batches.

:class:`~evalband.data.table.ResultsTable` keeps a pandas frame with a string label per row; that is convenient up to
some millions of rows, but at 1e8 rows (1,000 models x 100,000 items) the labels alone would take tens of
gigabytes. Every estimator and the bootstrap engine only need, per task, the matrix of scores of every model on
the items they share. :func:`read_score_matrices` builds exactly those from a Parquet file (or a dataset folder)
read in record batches with pyarrow: labels are dictionary-encoded per batch and mapped to integer codes, item
positions are found with :func:`pyarrow.compute.index_in`, and scores are written straight into preallocated
float64 matrices. No Python object is made per row; memory is the matrices (8 bytes per model and item) plus one
batch.

Two passes over the file: the first collects each task's items and the models, the second fills the matrices.
Models, tasks and each task's items come in the canonical order of :class:`~evalband.data.table.ResultsTable` (the
natural order of their labels, :func:`evalband.data.labels.natural_order`), so results do not depend on row order.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..data.labels import label_text, natural_order
from .._validate import InputError
from ..display.reprs import displayed
from ..display.notes import NoteKind

__all__ = ["ScoreMatrices", "read_score_matrices"]

#: pass 1 merges its per-batch lists of (task, item) pairs once they hold this many rows (and 4x the distinct)
_MERGE_ROWS = 1 << 20
#: integer item ids spanning at most this many values are tracked with per-task bitmaps in pass 1
_DENSE_MAX_SPAN = 1 << 26
#: pass 2 maps (task, integer item) to a column with a (tasks x item range) table of at most this many entries
_DENSE_MAX_LOOKUP = 1 << 25


@displayed
@dataclass(frozen=True, repr=False)
class ScoreMatrices:
    """Per-task score matrices on the items every model has.

    Attributes
    ----------
    models, tasks : tuple of str
    scores : dict
        ``task -> (n_models, n_items)`` float64 array.
    items : dict
        ``task -> (n_items,)`` item labels (as read, e.g. int64 or str).
    task_groups : dict or None
    notes : tuple of str
        Items left out because not every model has them, with counts.
    source : str
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    scores: dict
    items: dict
    task_groups: dict | None = None
    notes: tuple[str, ...] = ()
    source: str = "<arrow>"
    score_kind: str = field(default="binary")

    @property
    def n_rows(self) -> int:
        return int(sum(s.size for s in self.scores.values()))

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Correct counts and sizes, each (n_models, n_tasks), for binary scores."""
        correct = np.column_stack([self.scores[t].sum(axis=1) for t in self.tasks])
        n = np.broadcast_to(np.array([self.scores[t].shape[1] for t in self.tasks], dtype=np.float64),
                            correct.shape).copy()
        return correct, n


def _pyarrow():
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    return pa, pc, ds


class _Codes:
    """Global integer codes of a label column, built from each batch's dictionary (not per row).

    Parquet files written by pyarrow or pandas repeat the same dictionary in every batch, so the mapping from a
    batch's dictionary to global codes is computed once and reused while the dictionary stays the same.
    """

    def __init__(self):
        self.labels: list = []
        self.index: dict = {}
        self._last = None
        self._lookup = None

    def encode(self, column, pa, pc) -> np.ndarray:
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        if not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        if column.null_count:
            raise InputError("missing label (null)")
        dictionary = column.dictionary
        if self._last is None or not (dictionary is self._last or dictionary.equals(self._last)):
            values = dictionary.to_pylist()
            lookup = np.empty(len(values), dtype=np.int32)
            for i, v in enumerate(values):
                key = label_text(v)  # the one label rule of every reader
                code = self.index.get(key)
                if code is None:
                    code = self.index[key] = len(self.labels)
                    self.labels.append(key)
                lookup[i] = code
            self._last, self._lookup = dictionary, lookup
        return self._lookup[column.indices.to_numpy(zero_copy_only=False)]


NOTE_ITEMS_NOT_SHARED = NoteKind("io.items-not-shared", "excluded",
                                 "items not shared by every model are left out of paired analyses ({counts})")


def read_score_matrices(path, *, model_col: str = "model", task_col: str = "task", item_col: str = "item",
                        score_col: str = "score", group_col: str | None = None, unbounded: bool = False,
                        batch_size: int = 1 << 20) -> ScoreMatrices:
    """Read a large long-format Parquet file (or folder of Parquet files) into per-task score matrices.

    Parameters
    ----------
    path : str or os.PathLike
        Parquet file or dataset folder with one row per model, task and item.
    model_col, task_col, item_col, score_col : str
        Column names.
    group_col : str, optional
        Column of task groups (constant within a task).
    unbounded : bool
        Allow scores outside [0, 1].
    batch_size : int
        Rows per record batch (memory is about 50 bytes per row of a batch).

    Returns
    -------
    ScoreMatrices

    Raises
    ------
    InputError
        Missing columns, a missing or non-numeric score, a score outside [0, 1] (unless ``unbounded``), or a
        model that has the same item twice (repeated trials need the table path, :func:`evalband.read`).

    Notes
    -----
    The matrices are what :meth:`ResultsTable.task_data` gives, without trials or clusters: items not shared by
    every model are left out (and counted in ``notes``).

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from evalband.io import read_score_matrices
    >>> frame = pd.DataFrame({"model": ["a", "a", "b", "b", "b"], "task": "qa",
    ...                       "item": [1, 2, 1, 2, 3], "score": [1.0, 0.0, 1.0, 1.0, 0.0]})
    >>> path = os.path.join(tempfile.mkdtemp(), "results.parquet")
    >>> frame.to_parquet(path)
    >>> mats = read_score_matrices(path)
    >>> mats.models, mats.tasks
    (('a', 'b'), ('qa',))
    >>> mats.scores["qa"]
    array([[1., 0.],
           [1., 1.]])
    >>> [str.__str__(n) for n in mats.notes]
    ['items not shared by every model are left out of paired analyses (b: 1)']
    """
    pa, pc, ds = _pyarrow()
    source = os.fspath(path)
    if not Path(source).exists():
        raise InputError("no such file", source=source)
    try:
        dataset = _Batches(source, ds)
    except Exception as exc:  # pyarrow.lib.ArrowInvalid and friends
        raise InputError(f"cannot be read as Parquet ({str(exc).splitlines()[0][:160]})", source=source) from None
    names = dataset.schema.names
    wanted = [model_col, task_col, item_col, score_col] + ([group_col] if group_col else [])
    missing = [c for c in wanted if c not in names]
    if missing:
        raise InputError(f"missing column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))};"
                         f" found {', '.join(map(repr, names))}", source=source)

    models, tasks = _Codes(), _Codes()
    # pass 1: the distinct (task, item) pairs in order of first appearance (a hash group-by per batch), the
    # models, and the task groups
    groups: dict[int, str] = {}
    cols1 = [task_col, item_col, model_col] + ([group_col] if group_col else [])
    n_rows = 0
    bounds_i = dataset.int_range(item_col)
    collector = _DensePairs(*bounds_i) if bounds_i is not None else _HashPairs()
    for batch in dataset.to_batches(columns=cols1, batch_size=batch_size):
        try:
            t = tasks.encode(batch.column(task_col), pa, pc)
            models.encode(batch.column(model_col), pa, pc)
        except InputError as exc:
            raise InputError(exc.problem, source=source, row=f"batch starting at row {n_rows + 1}") from None
        items = batch.column(item_col)
        if items.null_count:
            raise InputError("missing item (null)", source=source, column=item_col)
        collector.add(t, items, pa, pc)
        if group_col:
            g = pa.table({"t": pa.array(t), "g": batch.column(group_col).cast(pa.string())})
            for tc, gv in zip(*g.group_by(["t", "g"], use_threads=False).aggregate([]).columns):
                tc, gv = tc.as_py(), str(gv.as_py())
                if groups.setdefault(tc, gv) != gv:
                    raise InputError(f"group changes within task '{tasks.labels[tc]}' ('{groups[tc]}' and"
                                     f" '{gv}')", source=source, column=group_col)
        n_rows += batch.num_rows
    if n_rows == 0:
        raise InputError("no rows to analyse", source=source)
    pairs = collector.result(pa, pc)
    # columns grouped by task, so that each task's matrix is a view of one (models x all items) matrix; models,
    # tasks and the items of each task in the canonical (natural) order of the table path, whatever the row order
    m_rank, t_rank = _canonical_rank(models.labels), _canonical_rank(tasks.labels)
    t_codes = pairs.column("t").to_numpy()
    order = np.lexsort((_item_rank(pairs.column("i"), pa), t_rank[t_codes]))
    pairs = pairs.take(pa.array(order)).append_column("col", pa.array(np.arange(len(order), dtype=np.int64)))
    bounds = np.searchsorted(t_rank[t_codes][order], np.arange(len(tasks.labels) + 1))
    n_models, n_cols = len(models.labels), pairs.num_rows
    scores = np.full((n_models, n_cols), np.nan)
    seen = np.zeros((n_models, n_cols), dtype=bool)
    dense = _dense_lookup(pairs, len(tasks.labels), pa, pc)

    # pass 2: each row's column from a hash join on (task, item); scores written straight into the matrix
    row0 = 0
    for batch in dataset.to_batches(columns=[task_col, item_col, model_col, score_col], batch_size=batch_size):
        t = tasks.encode(batch.column(task_col), pa, pc)
        m = models.encode(batch.column(model_col), pa, pc)
        try:
            s = pc.cast(batch.column(score_col), pa.float64()).to_numpy(zero_copy_only=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeError) as exc:
            raise InputError(f"scores must be numbers ({str(exc).splitlines()[0][:120]})", source=source,
                             column=score_col) from None
        bad = np.flatnonzero(np.isnan(s) | (((s < 0) | (s > 1)) & (not unbounded)))
        if bad.size:
            pos = bad[0]
            what = "missing score (null or NaN)" if np.isnan(s[pos]) else (
                f"score {s[pos]!r} lies outside [0, 1]; if the score is not a proportion, declare it unbounded")
            raise InputError(f"{what} ({bad.size} such rows in this batch)", source=source,
                             row=f"row {row0 + pos + 1}", column=score_col)
        if dense is not None:  # integer items in a compact range: a table lookup, no hashing
            lookup, imin = dense
            items = batch.column(item_col)
            items = (items.combine_chunks() if isinstance(items, pa.ChunkedArray) else items).to_numpy()
            col, mm = lookup[t, items.astype(np.int64) - imin], m
        else:  # any other labels: a hash join on (task, item)
            joined = pa.table({"t": pa.array(t), "i": batch.column(item_col), "m": pa.array(m),
                               "s": pa.array(s)}).join(pairs, keys=["t", "i"], join_type="inner")
            col, mm, s = (joined.column(c).to_numpy() for c in ("col", "m", "s"))
        scores[m_rank[mm], col] = s
        seen[m_rank[mm], col] = True
        row0 += batch.num_rows

    if int(seen.sum()) != n_rows:
        _raise_duplicate(dataset, pa, pc, tasks, models, pairs, seen, source, columns=[task_col, item_col,
                                                                                         model_col])
    notes = []
    out_scores, out_items = {}, {}
    lost = np.zeros(n_models, dtype=np.int64)
    items_all = pairs.column("i")
    model_names, task_names = natural_order(models.labels), natural_order(tasks.labels)
    for code, label in enumerate(task_names):
        lo, hi = int(bounds[code]), int(bounds[code + 1])
        have = seen[:, lo:hi]
        common = have.all(axis=0)
        n_common = int(common.sum())
        lost += have.sum(axis=1) - n_common
        if n_common == 0:
            raise InputError(f"task '{label}': no item is shared by every model", source=source)
        block = scores[:, lo:hi]
        out_scores[label] = block if n_common == hi - lo else np.ascontiguousarray(block[:, common])
        out_items[label] = items_all.slice(lo, hi - lo).filter(pa.array(common)).to_numpy(zero_copy_only=False)
    del seen
    if lost.any():
        notes.append(NOTE_ITEMS_NOT_SHARED(counts=", ".join(f"{model_names[i]}: {int(v):,}"
                                                           for i, v in enumerate(lost) if v)))
    kind = "unbounded" if unbounded else (
        "binary" if all(((v == 0.0) | (v == 1.0)).all() for v in out_scores.values()) else "bounded")
    task_groups = {tasks.labels[c]: g for c, g in groups.items()} if group_col else None
    return ScoreMatrices(tuple(model_names), tuple(task_names), out_scores, out_items, task_groups,
                         tuple(notes), source, kind)


def _canonical_rank(labels: list) -> np.ndarray:
    """code -> position of its label in the natural order (evalband.data.labels.natural_order)."""
    where = {label: k for k, label in enumerate(natural_order(labels))}
    return np.array([where[label] for label in labels], dtype=np.int64)


def _item_rank(items, pa) -> np.ndarray:
    """Rank of each item label in the natural order of the labels' text (non-negative integers: by value)."""
    if isinstance(items, pa.ChunkedArray):
        items = items.combine_chunks()
    if pa.types.is_integer(items.type):
        values = items.to_numpy(zero_copy_only=False).astype(np.int64)
        if values.size == 0 or values.min() >= 0:
            return np.unique(values, return_inverse=True)[1].reshape(-1)
    texts = [label_text(v) for v in items.to_pylist()]
    where = {t: k for k, t in enumerate(natural_order(texts))}
    return np.array([where[t] for t in texts], dtype=np.int64)


def _raise_duplicate(dataset, pa, pc, tasks, models, pairs, seen, source, *, columns):
    """Some (model, task, item) appears more than once: find the first one and name it (error path only)."""
    count = np.zeros(seen.shape, dtype=np.int32)
    for batch in dataset.to_batches(columns=columns):
        t = tasks.encode(batch.column(columns[0]), pa, pc)
        m = models.encode(batch.column(columns[2]), pa, pc)
        joined = pa.table({"t": pa.array(t), "i": batch.column(columns[1]), "m": pa.array(m)}) \
            .join(pairs, keys=["t", "i"], join_type="inner")
        np.add.at(count, (joined.column("m").to_numpy(), joined.column("col").to_numpy()), 1)
    mi, ci = np.argwhere(count > 1)[0]
    task = tasks.labels[pairs.column("t")[int(ci)].as_py()]
    item = pairs.column("i")[int(ci)].as_py()
    raise InputError(f"model '{models.labels[mi]}' has item '{item}' of task '{task}' {int(count[mi, ci])} times;"
                     " repeated trials need the table reader (evalband.read)", source=source)


def _first_pairs(t: np.ndarray, items, pa, pc):
    """The distinct (task code, item) pairs in order of first appearance, as a table with columns t, i.

    ``dictionary_encode`` numbers items in order of first appearance; a pair's first row is then found with
    ``numpy.unique`` on an integer key (hash group-bys do not promise an order).
    """
    if isinstance(items, pa.ChunkedArray):
        items = items.combine_chunks()
    enc = pc.dictionary_encode(items)
    codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    key = t.astype(np.int64) * max(len(enc.dictionary), 1) + codes
    _, first = np.unique(key, return_index=True)
    first.sort()
    return pa.table({"t": pa.array(t[first].astype(np.int32)), "i": items.take(pa.array(first))})


def _merge_pairs(parts: list, pa, pc):
    """Distinct pairs of several ordered pair tables, still in order of first appearance."""
    table = pa.concat_tables(parts) if len(parts) > 1 else parts[0]
    return _first_pairs(table.column("t").to_numpy(), table.column("i"), pa, pc)


class _HashPairs:
    """Distinct (task, item) pairs of any item type, merged now and then so memory stays ~ the distinct pairs."""

    def __init__(self):
        self.parts, self.pending, self.unique = [], 0, 0

    def add(self, t, items, pa, pc):
        self.parts.append(_first_pairs(t, items, pa, pc))
        self.pending += self.parts[-1].num_rows
        if self.pending > max(4 * self.unique, _MERGE_ROWS):
            self.parts = [_merge_pairs(self.parts, pa, pc)]
            self.unique = self.pending = self.parts[0].num_rows

    def result(self, pa, pc):
        return _merge_pairs(self.parts, pa, pc)


class _DensePairs:
    """Distinct (task, item) pairs for integer items in ``[lo, hi]`` (known from the Parquet statistics): a bitmap
    per task marks the items seen, so only new items are sorted."""

    def __init__(self, lo: int, hi: int):
        self.lo, self.span = lo, hi - lo + 1
        self.seen: dict[int, np.ndarray] = {}
        self.new: dict[int, list] = {}

    def add(self, t, items, pa, pc):
        if isinstance(items, pa.ChunkedArray):
            items = items.combine_chunks()
        self.type = items.type
        it = items.to_numpy(zero_copy_only=False).astype(np.int64) - self.lo
        if it.size and (it.min() < 0 or it.max() >= self.span):
            raise InputError("item ids outside the range the file's statistics give; rewrite the file")
        for code in np.flatnonzero(np.bincount(t)):
            seen = self.seen.get(code)
            if seen is None:
                seen = self.seen[code] = np.zeros(self.span, dtype=bool)
                self.new[code] = []
            cand = it[t == code]
            cand = cand[~seen[cand]]
            if cand.size:
                _, first = np.unique(cand, return_index=True)
                fresh = cand[np.sort(first)]
                seen[fresh] = True
                self.new[code].append(fresh)

    def result(self, pa, pc):
        codes = sorted(self.new)
        items = [np.concatenate(self.new[c]) for c in codes]
        t = np.concatenate([np.full(len(v), c, dtype=np.int32) for c, v in zip(codes, items)])
        return pa.table({"t": pa.array(t), "i": pa.array(np.concatenate(items) + self.lo).cast(self.type)})


class _Batches:
    """Record batches of a Parquet file (``ParquetFile.iter_batches``, the faster scan) or dataset folder."""

    def __init__(self, source: str, ds):
        import pyarrow.parquet as pq

        if Path(source).is_dir():
            self._dataset = ds.dataset(source, format="parquet")
            self._file = None
            self.schema = self._dataset.schema
        else:
            self._file = pq.ParquetFile(source)
            self.schema = self._file.schema_arrow

    def int_range(self, column: str):
        """(min, max) of an integer column from the Parquet statistics, when every row group has them and the
        range is compact enough for bitmaps; else None."""
        import pyarrow as pa

        if self._file is None or not pa.types.is_integer(self.schema.field(column).type):
            return None
        meta = self._file.metadata
        idx = self._file.schema_arrow.get_field_index(column)
        lo = hi = None
        for g in range(meta.num_row_groups):
            stats = meta.row_group(g).column(idx).statistics
            if stats is None or not stats.has_min_max:
                return None
            lo = stats.min if lo is None else min(lo, stats.min)
            hi = stats.max if hi is None else max(hi, stats.max)
        if lo is None or hi - lo + 1 > _DENSE_MAX_SPAN:
            return None
        return int(lo), int(hi)

    def to_batches(self, columns, batch_size: int = 1 << 20):
        if self._file is not None:
            return self._file.iter_batches(columns=columns, batch_size=batch_size)
        return self._dataset.to_batches(columns=columns, batch_size=batch_size)


def _dense_lookup(pairs, n_tasks: int, pa, pc):
    """For integer items spanning a compact range: ``lookup[task, item - imin] -> column``, else None."""
    items = pairs.column("i")
    if not pa.types.is_integer(items.type) or pairs.num_rows == 0:
        return None
    lo, hi = (v.as_py() for v in pc.min_max(items).values())
    span = hi - lo + 1
    if n_tasks * span > max(4 * pairs.num_rows, _DENSE_MAX_LOOKUP):
        return None
    lookup = np.full((n_tasks, span), -1, dtype=np.int64 if pairs.num_rows >= 2**31 else np.int32)
    lookup[pairs.column("t").to_numpy(), items.to_numpy().astype(np.int64) - lo] = pairs.column("col").to_numpy()
    return lookup, lo
