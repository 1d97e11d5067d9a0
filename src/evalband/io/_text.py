"""Text tables as bytes: compression and encodings told by content, physical line numbers, strict headers.

Every tabular reader path (a file, a file of a glob, standard input) goes through here, so that

* compressed bytes (gzip, bzip2, xz, zstd, a one-member zip) are undone whatever the file is called, and a
  Parquet file named ``.csv`` is read as Parquet (both said in a note);
* UTF-8 (with or without a byte-order mark) is read, UTF-16 and UTF-32 with a byte-order mark are read too (with a
  note), and any other bytes end in one error naming the line and column of the first bad byte and the encoding
  they look like;
* every row is named by the **physical** line it starts on, even when a quoted field holds line breaks;
* the header is strict: an empty or duplicated column name, or a data line with more fields than the header, is
  an error naming the line (pandas would invent ``Unnamed: 2`` or ``A.1``, or shift the columns);
* cells are read as text, exactly as written (``1.10`` stays ``1.10``); only an empty cell is missing;
* JSON Lines and JSON are parsed with line numbers in every message, numbers keeping their spelling
  (:class:`evalband.data.labels.JSONFloat`), in :mod:`evalband.io._json_text`.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd

from .._validate import InputError, MissingExtraError
from ..display.notes import NoteKind

__all__ = ["Raw", "decompress", "read_delimited", "utf8_problem", "check_column_names", "pandas_index",
           "row_numbers", "index_note", "MAGIC", "BOM"]

#: UTF-8 byte-order mark (PowerShell's and Notepad's UTF-8)
BOM = b"\xef\xbb\xbf"
#: magic bytes of compressed streams -> (name in messages, module that reads them)
MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd"),
         (b"PK\x03\x04", "zip"))
_UTF_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe", "utf-16-le"),
             (b"\xfe\xff", "utf-16-be"))
_CHUNK = 1 << 26


class Raw:
    """The bytes of one text source: a path read lazily, or bytes in memory (standard input, a decompressed or
    transcoded file). ``notes`` say what was undone (compression, an encoding)."""

    def __init__(self, source: str, *, path=None, data: bytes | None = None, notes=()):
        self.source, self.path, self._data, self.notes = source, path, data, list(notes)

    @property
    def in_memory(self) -> bool:
        return self._data is not None

    def head(self, size: int = 4096) -> bytes:
        if self._data is not None:
            return self._data[:size]
        with open(self.path, "rb") as fh:
            return fh.read(size)

    def tail(self, size: int = 65536) -> bytes:
        if self._data is not None:
            return self._data[-size:]
        with open(self.path, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - size))
            return fh.read()

    def all(self) -> bytes:
        return self._data if self._data is not None else self.path.read_bytes()

    def chunks(self):
        if self._data is not None:
            view = memoryview(self._data)
            for start in range(0, len(view), _CHUNK):
                yield view[start:start + _CHUNK]
            return
        with open(self.path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                yield chunk

    def contains(self, byte: bytes) -> bool:
        return any(byte in chunk for chunk in self.chunks())

    def stream(self):
        """What pandas reads: the path, or a binary buffer over the bytes."""
        return io.BytesIO(self._data) if self._data is not None else self.path

    def size(self) -> int:
        return len(self._data) if self._data is not None else self.path.stat().st_size


# ---------------------------------------------------------------------------------------------- content
def decompress(raw: bytes, source: str) -> tuple[bytes, str | None]:
    """Undo gzip, bzip2, xz, zstd or a one-member zip told by the first bytes; (bytes, name or None)."""
    for magic, name in MAGIC:
        if raw.startswith(magic):
            break
    else:
        return raw, None
    try:
        if name == "zstd":
            try:
                import zstandard
            except ImportError:
                raise MissingExtraError("zstd-compressed input needs zstandard: pip install 'evalband[logs]'") from None
            out = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)).read()
        elif name == "zip":
            import zipfile

            with zipfile.ZipFile(io.BytesIO(raw)) as archive:
                members = [m for m in archive.namelist() if not m.endswith("/")]
                if any(m.startswith("xl/") for m in members) or "[Content_Types].xml" in members:
                    raise InputError("is an Excel workbook (a zip archive), not a text table; export the sheet as"
                                     " CSV and read that", source=source)
                if len(members) != 1:
                    raise InputError(f"is a zip archive of {len(members)} files; unpack it and name the table to"
                                     " read", source=source)
                out = archive.read(members[0])
        else:
            import bz2
            import gzip
            import lzma

            out = {"gzip": gzip, "bz2": bz2, "xz": lzma}[name].decompress(raw)
    except (ImportError, InputError):
        raise
    except Exception as exc:  # truncated or corrupt stream
        raise InputError(f"looks {name}-compressed but could not be decompressed"
                         f" ({str(exc).strip() or type(exc).__name__})", source=source) from None
    if not out.strip():
        raise InputError("is empty once decompressed", source=source)
    return out, name


NOTE_COMPRESSED_TOLD_ITS_CONTENT = NoteKind(
    'io.compressed-told-its-content', 'caveat',
    '{source}: {name}-compressed (told by its content, not its name); decompressed')
NOTE_READ_BYTE_ORDER_MARK = NoteKind('io.read-byte-order-mark', 'info',
                                      '{source}: read as {value} (byte-order mark) and converted to UTF-8')
NOTE_READ_NO_BYTE_ORDER = NoteKind(
    'io.read-no-byte-order', 'info',
    '{source}: read as {value} (no byte-order mark; told by its zero bytes) and converted to UTF-8')


def open_text(path, source: str, *, data: bytes | None = None) -> Raw:
    """The text of a file (or of ``data``): compression undone by content, UTF-16/32 with a byte-order mark
    transcoded to UTF-8, a UTF-8 byte-order mark removed. Parquet is left as it is (see :func:`is_parquet`)."""
    notes = []
    head = data[:8] if data is not None else Raw(source, path=path).head(8)
    if any(head.startswith(m) for m, _ in MAGIC):
        raw = data if data is not None else path.read_bytes()
        data, name = decompress(raw, source)
        if path is not None and not str(path).lower().endswith((".gz", ".bz2", ".xz", ".zst", ".zstd", ".zip")):
            notes.append(NOTE_COMPRESSED_TOLD_ITS_CONTENT(source=source, name=name))
        head = data[:8]
    if head.startswith(b"PAR1"):  # Parquet: binary by design
        return Raw(source, data=data, notes=notes) if data is not None else Raw(source, path=path, notes=notes)
    for bom, encoding in _UTF_BOMS:
        if head.startswith(bom) and not (encoding == "utf-16-le" and head.startswith(b"\xff\xfe\x00\x00")):
            raw = data if data is not None else path.read_bytes()
            try:
                text = raw[len(bom):].decode(encoding)
            except UnicodeDecodeError as exc:
                line = raw[:exc.start].decode(encoding, errors="replace").count("\n") + 1
                raise InputError(f"starts with a {encoding.upper()[:6]} byte-order mark but is not valid"
                                 f" {encoding.upper()} text", source=source, row=f"line {line}") from None
            data = text.encode("utf-8")
            notes.append(NOTE_READ_BYTE_ORDER_MARK(source=source, value=encoding.upper()[:6]))
            break
    else:
        if head.startswith(BOM):
            raw = data if data is not None else path.read_bytes()
            data = raw[len(BOM):]
        else:
            sample = data[:4096] if data is not None else Raw(source, path=path).head(4096)
            encoding = _utf16_without_bom(sample)
            if encoding is None and b"\x00" in sample:
                line = sample[:sample.index(b"\x00")].count(b"\n") + 1
                raise InputError("holds zero bytes: a binary file, not a text table (is it a spreadsheet, a"
                                 " database or an archive?)", source=source, row=f"line {line}")
            if encoding is not None:
                raw = data if data is not None else path.read_bytes()
                try:
                    data = raw.decode(encoding).encode("utf-8")
                except UnicodeDecodeError:
                    raise InputError(f"looks like {encoding.upper()} text without a byte-order mark (every other"
                                     " byte is zero) but does not decode as such; save it as UTF-8",
                                     source=source) from None
                notes.append(NOTE_READ_NO_BYTE_ORDER(source=source, value=encoding.upper()))
    if data is not None:
        return Raw(source, data=data, notes=notes)
    return Raw(source, path=path, notes=notes)


def _utf16_without_bom(sample: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' when the bytes look like UTF-16 text of Latin letters without a byte-order mark:
    zero bytes at nearly every odd (LE) or even (BE) position and none at the others (text tables hold no zero
    bytes otherwise); else None."""
    n = len(sample) // 2 * 2
    if n < 8 or b"\x00" not in sample:
        return None
    a = np.frombuffer(sample[:n], dtype=np.uint8).reshape(-1, 2)
    even, odd = (a[:, 0] == 0).mean(), (a[:, 1] == 0).mean()
    if odd > 0.9 and even == 0:
        return "utf-16-le"
    if even > 0.9 and odd == 0:
        return "utf-16-be"
    return None


def is_parquet(raw: Raw) -> bool:
    return raw.head(4) == b"PAR1"


def utf8_problem(raw: bytes, source: str, *, sep: str | None = None, header=None) -> InputError | None:
    """The error for bytes that are not UTF-8: the line (and column) of the first bad byte and the encoding the
    bytes look like; None when they decode."""
    try:
        raw.decode("utf-8")
        return None
    except UnicodeDecodeError as exc:
        start = exc.start
    line = raw.count(b"\n", 0, start) + 1
    line_start = raw.rfind(b"\n", 0, start) + 1
    column = None
    if sep is not None and header is not None:
        field = raw[line_start:start].count(sep.encode())
        column = str(header[field]) if field < len(header) else None
    sample = raw[:1 << 16]
    if sample.count(b"\x00") > len(sample) // 4:
        guess, enc = "UTF-16 without a byte-order mark", "UTF-16"
    else:
        try:
            raw.decode("cp1252")
            guess, enc = "Windows-1252 (Latin-1) text", "WINDOWS-1252"
        except UnicodeDecodeError:
            guess, enc = "Latin-1 text", "LATIN1"
    name = source.rsplit("/", 1)[-1]
    how = f"iconv -f {enc} -t UTF-8" + ("" if name.startswith("<") else f" {name} > utf8-{name}")
    return InputError(f"byte 0x{raw[start]:02x} is not UTF-8; the file looks like {guess}: convert it to UTF-8"
                      f" ({how}) or save it as UTF-8", source=source, row=f"line {line}", column=column)


# ---------------------------------------------------------------------------------------------- CSV / TSV
_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_EOF_IN_STRING = re.compile(r"EOF inside string starting at row (\d+)")


def record_lines(raw: Raw, n_records: int) -> np.ndarray:
    """The physical line (1-based) on which each of ``n_records`` CSV records starts.

    A line break inside a quoted field does not end a record; quotes are counted (an escaped quote ``""`` adds
    two, so the parity of the quotes before a line break says whether it lies inside a field). When the count does
    not come out (a stray quote inside an unquoted field, old Mac line ends), records are taken as lines."""
    plain = np.arange(1, n_records + 1)
    if not raw.contains(b'"'):
        return plain
    starts, parity, seen = [np.array([1])], 0, 0
    for chunk in raw.chunks():
        a = np.frombuffer(chunk, dtype=np.uint8)
        nl = np.flatnonzero(a == 10)
        q = np.flatnonzero(a == 34)
        outside = (parity + np.searchsorted(q, nl)) % 2 == 0
        starts.append(seen + np.flatnonzero(outside) + 2)
        parity = (parity + q.size) % 2
        seen += nl.size
        del a
    lines = np.concatenate(starts)
    if lines.size in (n_records, n_records + 1):
        return lines[:n_records]
    return plain


def read_delimited(raw: Raw, sep: str, source: str) -> pd.DataFrame:
    """A CSV/TSV table as text cells, indexed by the physical line each row starts on (header = line 1).

    Raises
    ------
    InputError
        Empty file; not UTF-8 (line, column, a likely encoding); an empty or duplicated header cell; a line with
        more fields than the header, or a quote never closed (the physical line).
    """
    if raw.size() == 0:
        raise InputError("is empty", source=source)
    try:
        df = pd.read_csv(raw.stream(), sep=sep, header=None, dtype=str, keep_default_na=False, na_values=[""],
                         skip_blank_lines=False, low_memory=False, encoding="utf-8", compression=None)
    except UnicodeDecodeError:
        data = raw.all()
        first = data.split(b"\n", 1)[0].decode("utf-8", errors="replace")
        header = next(csv.reader([first], delimiter=sep), [])
        raise utf8_problem(data, source, sep=sep, header=header) from None
    except pd.errors.EmptyDataError:
        raise InputError("is empty (no header line)", source=source) from None
    except pd.errors.ParserError as exc:
        raise _parser_problem(exc, raw, sep, source) from None
    if len(df) == 0:
        raise InputError("is empty (no header line)", source=source)
    header = df.iloc[0].tolist()
    lines = record_lines(raw, len(df))
    index = pandas_index(header, df.iloc[1:, 0].to_numpy(dtype=object), source, lines=lines[1:])
    check_column_names(header, source, index=index)
    if index:
        df = df.iloc[:, 1:]
        header = header[1:]
        raw.notes.append(index_note(source, len(df) - 1))
    df = df.iloc[1:]
    df.columns = [str(h) for h in header]
    df.index = lines[1:]
    if len(df):
        _check_last_line(raw.tail(), sep, len(df.columns), int(df.index[-1]), source)
        blank = df.isna().all(axis=1).to_numpy()  # a line of empty cells (',,,', as spreadsheets export) holds nothing
        if blank.any():
            df = df.loc[~blank]
    return df


def _empty(cell) -> bool:
    return cell is None or (isinstance(cell, float) and np.isnan(cell)) or str(cell).strip() == ""


def row_numbers(values, start: int = 0) -> bool:
    """Whether text cells are the row numbers ``start, start + 1, ...`` written in plain digits, as
    :meth:`pandas.DataFrame.to_csv` writes a default index."""
    values = np.asarray(values, dtype=object)
    expected = np.arange(start, start + values.size).astype(str).astype(object)
    return bool(np.all(values == expected))


def pandas_index(header, first_column, source: str, *, start: int = 0, lines=None) -> bool:
    """Whether the first column is the index :meth:`pandas.DataFrame.to_csv` writes by default: an empty first
    header cell (and named columns after it) over the row numbers 0, 1, ..., n - 1 (``first_column`` holds rows
    ``start, start + 1, ...`` of them, on the physical ``lines``). An empty first header cell over anything else
    is an error naming the line of the first cell that is no row number."""
    if len(header) < 2 or not _empty(header[0]) or any(_empty(h) for h in header[1:]):
        return False
    values = np.asarray(first_column, dtype=object)
    if values.size and row_numbers(values, start):
        return True
    raise not_an_index(values, source, start=start, lines=lines)


def not_an_index(values, source: str, *, start: int = 0, lines=None) -> InputError:
    """The error for an empty first header cell over cells that are not the row numbers of pandas' index: the
    line of the first cell that is no row number (the header line when there is no data row)."""
    values = np.asarray(values, dtype=object)
    expected = np.arange(start, start + values.size).astype(str).astype(object)
    bad = np.flatnonzero(values != expected)
    if not bad.size:
        return InputError("header cell 1 is empty; every column needs a name (name it, or remove the column)",
                          source=source, row="line 1")
    pos = int(bad[0])
    line = int(lines[pos]) if lines is not None else start + pos + 2
    cell = "an empty cell" if _empty(values[pos]) else repr(values[pos])
    return InputError(f"header cell 1 is empty, and the column is no pandas index (row numbers 0, 1, 2, ...): it"
                      f" holds {cell} where row number {start + pos} would be; every column needs a name (name it,"
                      " or remove the column)", source=source, row=f"line {line}")


def index_note(source: str, n: int) -> str:
    """The note that a pandas index column was left out."""
    return (f"{source}: the first column has no name and holds the row numbers 0 to {n - 1:,}: pandas' index (as"
            " DataFrame.to_csv writes it), left out")


def check_column_names(header, source: str, *, row: str | None = "line 1", index: bool = False) -> None:
    """Every column needs a name of its own: an empty name, or a name given twice (after removing surrounding
    spaces), is an error naming the column's position (and the header line, for text files). ``index``: the first
    column is pandas' index (:func:`pandas_index`), whose empty name is allowed."""
    names = ["" if _empty(h) else str(h).strip() for h in header]
    what = "the header" if row else "the columns"
    for k, name in enumerate(names):
        if name == "" and not (index and k == 0):
            after = f" (after '{names[k - 1]}')" if k and names[k - 1] else ""
            cell = f"header cell {k + 1}{after} is empty" if row else f"column {k + 1}{after} has no name"
            raise InputError(f"{cell}; every column needs a name (name it, or remove the column)", source=source,
                             row=row)
    seen = {}
    for k, name in enumerate(names):
        if index and k == 0:
            continue
        if name in seen:
            raise InputError(f"column name '{name}' appears twice in {what} (columns {seen[name] + 1} and"
                             f" {k + 1}); every column needs its own name", source=source, row=row)
        seen[name] = k


def _parser_problem(exc, raw: Raw, sep: str, source: str) -> InputError:
    text = str(exc)
    m = _FIELDS.search(text)
    if m:
        expected, record, saw = (int(g) for g in m.groups())
        line = int(record_lines(raw, record)[record - 1])
        sep_name = "tab" if sep == "\t" else f"'{sep}'"
        text = _physical_line(raw, line)
        why = (f"the line ends with a {sep_name}" if text.rstrip(b"\r").endswith(sep.encode()) else
               f"a value holding a {sep_name} needs quotes, or the header lacks a column name")
        return InputError(f"has {saw} fields but the header has {expected}; {why}", source=source,
                          row=f"line {line}")
    m = _EOF_IN_STRING.search(text)
    if m:
        record = int(m.group(1)) + 1
        line = int(record_lines(raw, record)[-1])
        return InputError("a quoted field opened here is never closed (an unbalanced '\"'); the file may be"
                          " truncated", source=source, row=f"line {line}")
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return InputError(f"could not be read as a table: {first}", source=source)


def _physical_line(raw: Raw, line: int) -> bytes:
    """The bytes of one physical line (1-based), for messages (error path only)."""
    seen = 0
    for chunk in raw.chunks():
        chunk = bytes(chunk)
        count = chunk.count(b"\n")
        if seen + count >= line - 1:
            parts = chunk.split(b"\n")
            return parts[line - 1 - seen] if line - 1 - seen < len(parts) else b""
        seen += count
    return b""


def _check_last_line(tail: bytes, sep: str, n_columns: int, line: int, source: str) -> None:
    """A file cut off mid-line (no final newline, fewer fields than the header) is named as truncated.

    Fields are counted by splitting on ``sep`` (a quoted separator only adds fields, so "fewer" is reliable)."""
    if not tail or tail.endswith(b"\n") or tail.endswith(b"\r"):
        return
    last = tail.rsplit(b"\n", 1)[-1]
    fields = last.count(sep.encode()) + 1
    if fields < n_columns:
        raise InputError(f"the last line has {fields} of {n_columns} fields: the file looks truncated",
                         source=source, row=f"line {line}")
