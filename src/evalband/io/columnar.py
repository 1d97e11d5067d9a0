"""Large tables read in record batches into a compact frame: the reading path of files of 1e8 rows.

The text path (:mod:`evalband.io._text`) reads every cell of a CSV as a Python string, about 200 bytes per row
once the table is built: 20 GB at 1e8 rows. A file of at least :data:`MIN_ROWS` rows (Parquet: from its
metadata; CSV and TSV: estimated from the size of the file and of its first lines) is read here instead, in record
batches with pyarrow, into a frame that :func:`evalband.io.tabular.read_tabular` and
:meth:`evalband.data.table.ResultsTable.from_items` take as they take any frame:

* text cells (every cell of a CSV or TSV, string columns of Parquet) are dictionary-encoded batch by batch and
  become pandas categoricals: each distinct text is stored once and each row holds a small integer code (4 bytes,
  no Python object), so the label rule and the score parsing run once per distinct value;
* numeric and boolean Parquet columns stay NumPy arrays of their own dtype (an int8 score is one byte a row);
* rows are named as the text path names them: the physical file line for CSV and TSV (quoted line breaks
  counted), ``row k`` for Parquet; a line of empty cells holds nothing and is left out, as in the text path.

Cells keep the text path's rules: text as written (``1.10`` stays ``1.10``), only an empty cell is missing; the
header must give every column a name of its own; a line with a field too many or too few, a quote never closed
and bytes that are not UTF-8 are one error naming the line (and the column). Compression is told by content
(gzip, bzip2 and zstd are read as a stream). A file whose type the batches do not cover (a Parquet column of
dates, lists, ...) is read by the text path.

The frame holds about 4 bytes per label cell; the table built from it about 20 bytes per row (a 1e8-row file in
about 2 GB), each label once.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from .._validate import InputError
from ._columnar_text import _STREAMED, BLOCK_BYTES, _csv_problem, _input_stream, _pyarrow, _raw
from ._text import (MAGIC, Raw, check_column_names, index_note, not_an_index, pandas_index, record_lines,
                    row_numbers)
from ..display.notes import NoteKind

__all__ = ["MIN_ROWS", "wanted", "load_columnar"]

#: files of at least this many rows are read in batches into a compact frame (the threshold of the columnar
#: path; set it to 0 to read every CSV, TSV and Parquet file that way)
MIN_ROWS = 1_000_000
#: rows per Parquet record batch (the bytes per CSV block, BLOCK_BYTES, come from evalband.io._columnar_text)
BATCH_ROWS = 1 << 20
#: compressed text is assumed to hold about this many times its size (for the row estimate only)
COMPRESSION_RATIO = 4


def _release(pa) -> None:
    """Hand the memory pyarrow's pool keeps after the batches back to the system (mimalloc and jemalloc keep
    freed pages for reuse; the table built next is made by NumPy, not by pyarrow)."""
    pa.default_memory_pool().release_unused()


def _compression(head: bytes) -> str | None:
    for magic, name in MAGIC:
        if head.startswith(magic):
            return name
    return None


def wanted(path: Path, fmt: str) -> bool:
    """Whether ``path`` (a file, in format ``fmt``) is large enough for the columnar path (:data:`MIN_ROWS`)."""
    if fmt not in ("csv", "tsv", "parquet") or not path.is_file():
        return False
    try:
        import pyarrow  # noqa: F401
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        return False
    with open(path, "rb") as fh:
        head = fh.read(1 << 20)
    if head[:4] == b"PAR1":
        if MIN_ROWS <= 0:
            return True
        import pyarrow.parquet as pq

        try:
            return pq.ParquetFile(path).metadata.num_rows >= MIN_ROWS
        except Exception:  # not readable as Parquet: the text path says why
            return False
    if fmt == "parquet":
        return False
    kind = _compression(head)
    if kind is not None and kind not in _STREAMED:
        return False  # xz, zip: decompressed in memory by the text path
    if head.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")) or b"\x00" in head[:4096] and kind is None:
        return False  # UTF-16/32 or binary: the text path converts or refuses
    if kind is not None:
        head = _decompressed_head(path, kind)
    if not head.strip() or b"\r" in head and b"\n" not in head:
        return False  # empty, or old Mac line ends: the text path says so or reads it
    if MIN_ROWS <= 0:
        return True
    size = path.stat().st_size * (COMPRESSION_RATIO if kind else 1)
    lines = max(head.count(b"\n"), 1)
    return size / (max(len(head), 1) / lines) >= MIN_ROWS


def _decompressed_head(path: Path, kind: str) -> bytes:
    pa = _pyarrow()
    try:
        with pa.CompressedInputStream(pa.OSFile(str(path)), _STREAMED[kind]) as stream:
            return stream.read(1 << 20)
    except Exception:
        return b""


NOTE_COMPRESSED_TOLD_ITS_CONTENT_2 = NoteKind(
    'io.compressed-told-its-content-2', 'caveat',
    '{source}: {kind}-compressed (told by its content, not its name); decompressed')
NOTE_PARQUET_FILE_TOLD_ITS_2 = NoteKind(
    'io.parquet-file-told-its-2', 'caveat',
    '{source}: a Parquet file (told by its content, not its name); read as Parquet')


def load_columnar(path: Path, fmt: str, source: str, *, skip=()) -> tuple[pd.DataFrame, str, list[str]] | None:
    """Read a large CSV, TSV or Parquet file into a compact frame: ``(frame, row_word, notes)``, or None when the
    file holds a column type the batches do not cover (the text path reads it then).

    ``skip``: columns not to read (``--drop-cols``), checked against the header.
    """
    with open(path, "rb") as fh:
        head = fh.read(8)
    notes = []
    if head[:4] == b"PAR1":
        if fmt != "parquet":
            notes.append(NOTE_PARQUET_FILE_TOLD_ITS_2(source=source))
        out = _parquet(path, source, skip)
        return None if out is None else (out, "row", notes)
    kind = _compression(head)
    if kind is not None and not str(path).lower().endswith((".gz", ".bz2", ".zst", ".zstd")):
        notes.append(NOTE_COMPRESSED_TOLD_ITS_CONTENT_2(source=source, kind=kind))
    return _delimited(path, "\t" if fmt == "tsv" else ",", source, kind, skip, notes), "line", notes


# ------------------------------------------------------------------------------------------------ Parquet
def _parquet(path: Path, source: str, skip) -> pd.DataFrame | None:
    pa = _pyarrow()
    import pyarrow.parquet as pq

    from .._progress import track

    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"could not be read as parquet: {first}", source=source) from None
    schema = pf.schema_arrow
    check_column_names(schema.names, source, row=None)
    skip = {str(c).strip() for c in skip}
    names = [n for n in schema.names if str(n).strip() not in skip]  # --drop-cols: never read
    kinds = {}
    for name in names:
        t = schema.field(name).type
        if pa.types.is_dictionary(t) and (pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type)
                                          or pa.types.is_integer(t.value_type)):
            kinds[name] = "labels"
        elif pa.types.is_string(t) or pa.types.is_large_string(t):
            kinds[name] = "labels"
        elif pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
            kinds[name] = "numbers"
        else:
            return None  # dates, decimals, lists, ...: the text path (pandas) reads them
    meta = pf.metadata
    n = meta.num_rows
    columns = {name: (_Labels() if kinds[name] == "labels" else _Numbers(n, schema.field(name).type, pa))
               for name in names}
    n_batches = sum(-(-meta.row_group(g).num_rows // BATCH_ROWS) for g in range(meta.num_row_groups))
    start = 0
    batches = pf.iter_batches(batch_size=BATCH_ROWS, columns=names) if names else iter(())
    for batch in track(batches, n_batches, description=f"reading {Path(source).name}"):
        for name in names:
            columns[name].add(batch.column(name), start, pa)
        start += batch.num_rows
    frame = pd.DataFrame({name: columns.pop(name).result(pa) for name in names}, copy=False)
    frame.index = pd.RangeIndex(1, n + 1)
    frame.attrs["skipped"] = [name for name in schema.names if name not in names]
    frame.attrs["columns"] = list(schema.names)
    _release(pa)
    return frame


class _Numbers:
    """A numeric Parquet column filled batch by batch into one NumPy array (of its dtype; float64 with NaN where
    an integer or boolean column has nulls, as pandas reads it)."""

    def __init__(self, n: int, arrow_type, pa):
        dtype = np.dtype(arrow_type.to_pandas_dtype())
        self.values = np.empty(n, dtype=dtype)
        self.nulls = None
        self.n = n

    def add(self, column, start: int, pa):
        stop = start + len(column)
        if column.null_count:
            if self.nulls is None:
                self.nulls = np.zeros(self.n, dtype=bool)
            self.nulls[start:stop] = column.is_null().to_numpy(zero_copy_only=False)
            column = column.fill_null(0 if not pa.types.is_boolean(column.type) else False)
        self.values[start:stop] = column.to_numpy(zero_copy_only=False)

    def result(self, pa):
        if self.nulls is None or not self.nulls.any():
            return self.values
        out = self.values.astype(np.float64)
        out[self.nulls] = np.nan
        return out


class _Labels:
    """A text column dictionary-encoded batch by batch; the dictionaries are unified once at the end (one hash
    pass over the distinct values of all batches), giving one categorical."""

    def __init__(self):
        self.chunks = []

    def add(self, column, start: int, pa):
        import pyarrow.compute as pc

        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        if not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        self.chunks.append(column)

    def result(self, pa):
        return _categorical(self.chunks, pa)


def _categorical(chunks: list, pa) -> pd.Categorical:
    """One pandas Categorical from dictionary arrays (nulls -> code -1); the chunks list is emptied."""
    if not chunks:
        return pd.Categorical([])
    value_type = chunks[0].type.value_type
    chunks[:] = [c if c.type.value_type == value_type else c.cast(pa.dictionary(c.type.index_type, value_type))
                 for c in chunks]
    unified = pa.chunked_array(chunks).unify_dictionaries()
    chunks.clear()
    dictionary = unified.chunk(0).dictionary if unified.num_chunks else pa.array([], value_type)
    n = len(unified)
    k = len(dictionary)
    dtype = np.int8 if k < 2**7 else np.int16 if k < 2**15 else np.int32 if k < 2**31 else np.int64
    codes = np.empty(n, dtype=dtype)
    start = 0
    for chunk in unified.iterchunks():
        idx = chunk.indices
        stop = start + len(chunk)
        if idx.null_count:
            codes[start:stop] = idx.fill_null(-1).to_numpy(zero_copy_only=False)
        else:
            codes[start:stop] = idx.to_numpy(zero_copy_only=False)
        start = stop
    del unified
    categories = pd.Index(dictionary.to_pandas(), dtype=object if pa.types.is_string(value_type)
                          or pa.types.is_large_string(value_type) else None)
    return pd.Categorical.from_codes(codes, categories=categories, validate=False)


# ------------------------------------------------------------------------------------------------ CSV / TSV
def _header_fields(path: Path, sep: str, kind: str | None) -> list:
    """The fields of the first record (quoted line breaks included)."""
    with _input_stream(path, kind) as stream:
        head = stream.read(1 << 20)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    text = head.decode("utf-8", errors="replace")
    return next(csv.reader(io.StringIO(text), delimiter=sep), []) or [""]


def _delimited(path: Path, sep: str, source: str, kind: str | None, skip, notes: list) -> pd.DataFrame:
    """A large CSV or TSV file as a compact frame; ``notes`` gets what was left out (a pandas index)."""
    pa = _pyarrow()
    import pyarrow.csv as pcsv

    from .._progress import track

    fields = _header_fields(path, sep, kind)
    k = len(fields)
    names = [f"f{j}" for j in range(k)]
    skip = {str(c).strip() for c in skip}
    read_cols = [j for j in range(k) if fields[j].strip() not in skip]  # --drop-cols: never read
    read = pcsv.ReadOptions(use_threads=True, block_size=BLOCK_BYTES, autogenerate_column_names=True)
    parse = pcsv.ParseOptions(delimiter=sep, newlines_in_values=True, ignore_empty_lines=False)
    convert = pcsv.ConvertOptions(column_types={f: pa.string() for f in names}, strings_can_be_null=True,
                                  null_values=[""], quoted_strings_can_be_null=True)
    labels = {j: _Labels() for j in read_cols}
    header, index = None, False
    blank = []
    n_records = 0
    size = path.stat().st_size * (COMPRESSION_RATIO if kind else 1)
    try:
        reader = pcsv.open_csv(_input_stream(path, kind), read_options=read, parse_options=parse,
                               convert_options=convert)
        for n_batch, batch in enumerate(track(reader, max(1, -(-size // BLOCK_BYTES)),
                                              description=f"reading {Path(source).name}")):
            if n_batch % 16 == 15:  # the parsed text of the blocks read so far: back to the system
                _release(pa)
            if header is None:
                header = [batch.column(j)[0].as_py() for j in range(k)]
                batch = batch.slice(1)
                index = pandas_index(header, batch.column(0).to_numpy(zero_copy_only=False), source,
                                     lines=_BatchLines(path, kind, source, 0))
                check_column_names(header, source, index=index)
                if index:  # pandas' index (DataFrame.to_csv): checked batch by batch, never stored
                    read_cols = [j for j in read_cols if j != 0]
                    labels.pop(0, None)
            elif index:
                first = batch.column(0).to_numpy(zero_copy_only=False)
                if not row_numbers(first, n_records):
                    raise not_an_index(first, source, start=n_records,
                                       lines=_BatchLines(path, kind, source, n_records))
            empty = np.ones(batch.num_rows, dtype=bool)
            for j in range(k):
                col = batch.column(j)
                if col.null_count != len(col):
                    empty &= col.is_null().to_numpy(zero_copy_only=False)
            if empty.any():  # a line of empty cells (',,,', as spreadsheets export) holds nothing
                blank.append(n_records + np.flatnonzero(empty))
                batch = batch.filter(pa.array(~empty))
            for j in read_cols:
                labels[j].add(batch.column(j), 0, pa)
            n_records += len(empty)
    except pa.ArrowInvalid as exc:
        raise _csv_problem(str(exc), path, sep, source, kind, header or fields) from None
    except OSError as exc:  # a truncated or corrupt compressed stream
        raise InputError(f"looks {kind}-compressed but could not be decompressed"
                         f" ({str(exc).strip() or type(exc).__name__})", source=source) from None
    if header is None:
        raise InputError("is empty (no header line)", source=source)
    header = [str(h) for h in header]
    frame = pd.DataFrame({header[j]: labels.pop(j).result(pa) for j in read_cols}, copy=False)
    frame.attrs["skipped"] = [header[j] for j in range(k) if j not in read_cols and not (index and j == 0)]
    frame.attrs["columns"] = header[1:] if index else header
    if index:
        notes.append(index_note(source, n_records))
    broken = _breaks_in_values(path, kind, n_records)
    frame.index = _line_index(_raw(path, source, kind) if broken else None, n_records, blank)
    if len(frame):
        _check_last_line(path, kind, sep, k, int(frame.index[-1]), source)
    _release(pa)
    return frame


class _BatchLines:
    """The physical lines of the records from ``start`` on (for the error path only: counted when asked)."""

    def __init__(self, path: Path, kind, source: str, start: int):
        self.path, self.kind, self.source, self.start = path, kind, source, start

    def __getitem__(self, pos: int) -> int:
        record = self.start + pos + 2  # 1-based, the header being record 1
        return int(record_lines(_raw(self.path, self.source, self.kind), record)[record - 1])


def _breaks_in_values(path: Path, kind: str | None, n_records: int) -> bool:
    """Whether some quoted value holds a line break: the file has more line breaks than records (the header is
    one record; the last line may lack its break). Only then are the records' lines counted one by one."""
    count = 0
    with _input_stream(path, kind) as stream:
        while chunk := stream.read(1 << 26):
            count += chunk.count(b"\n")
            if count > n_records + 1:
                return True
    return False


def _line_index(raw: Raw | None, n_records: int, blank: list) -> pd.Index:
    """The physical line each kept record starts on: record k + 2 without quotes (header = line 1), else counted
    by :func:`evalband.io._text.record_lines`; blank records left out."""
    if raw is None:
        lines = np.arange(2, n_records + 2, dtype=np.int64)
    else:
        lines = record_lines(raw, n_records + 1)[1:]
    if blank:
        drop = np.concatenate(blank)
        keep = np.ones(n_records, dtype=bool)
        keep[drop] = False
        lines = lines[keep]
    if lines.size and lines[-1] < 2**31:
        return pd.Index(lines.astype(np.int32))
    return pd.Index(lines)


def _check_last_line(path: Path, kind, sep: str, n_columns: int, line: int, source: str) -> None:
    from ._text import _check_last_line as check

    if kind is None:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 65536))
            tail = fh.read()
    else:
        tail = _raw(path, source, kind).tail()
    check(tail, sep, n_columns, line, source)
