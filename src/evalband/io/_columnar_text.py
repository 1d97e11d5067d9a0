"""Byte-level helpers of the columnar reader (:mod:`evalband.io.columnar`): the input streams (decompressed as
they are read) and the one-line errors for what pyarrow refused, naming the physical line (quoted line breaks
counted) and, where it can, the column.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from .._validate import InputError
from ._text import Raw, record_lines

#: bytes per CSV block read (the columnar reader's blocks and the scans for errors)
BLOCK_BYTES = 1 << 24
#: streams pyarrow decompresses as it reads (the others are decompressed in memory by the text path)
_STREAMED = {"gzip": "gzip", "bz2": "bz2", "zstd": "zstd"}


def _pyarrow():
    import pyarrow as pa

    return pa


def _input_stream(path: Path, kind: str | None):
    pa = _pyarrow()
    if kind is None:
        return pa.OSFile(str(path))
    return pa.CompressedInputStream(pa.OSFile(str(path)), _STREAMED[kind])


def _raw(path: Path, source: str, kind: str | None) -> Raw:
    """The bytes of the file for the scans of line numbers and errors (decompressed in memory when compressed:
    the error path, or a file with quoted line breaks)."""
    if kind is None:
        return Raw(source, path=path)
    with _input_stream(path, kind) as stream:
        return Raw(source, data=stream.read())


def _csv_problem(text: str, path: Path, sep: str, source: str, kind, header) -> InputError:
    """The one-line error for what pyarrow refused: the physical line (and column) it concerns."""
    raw = _raw(path, source, kind)
    if "UTF8" in text or "UTF-8" in text:
        return _utf8_problem(raw, source, sep)
    if "Expected" in text and "columns" in text:
        import re

        m = re.search(r"Expected (\d+) columns, got (\d+): (.*)", text, re.S)
        expected, saw = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        row_text = m.group(3) if m else ""
        if row_text.count('"') % 2:
            line = _unclosed_quote_line(raw)
            return InputError("a quoted field opened here is never closed (an unbalanced '\"'); the file may be"
                              " truncated", source=source, row=f"line {line}")
        record = _invalid_record(path, sep, kind, expected)
        line = int(record_lines(raw, record)[record - 1]) if record else None
        sep_name = "tab" if sep == "\t" else f"'{sep}'"
        if saw < expected:
            tail = raw.tail()
            if record is not None and not tail.endswith((b"\n", b"\r")) and line == _last_line(raw):
                return InputError(f"the last line has {saw} of {expected} fields: the file looks truncated",
                                  source=source, row=f"line {line}")
            missing = str(header[saw]) if header is not None and saw < len(header) else None
            return InputError(f"has {saw} fields but the header has {expected}; a field is missing"
                              f"{'' if missing is None else f' (missing {missing})'}", source=source,
                              row=None if line is None else f"line {line}", column=missing)
        why = (f"the line ends with a {sep_name}" if row_text.rstrip("\r\n").endswith(sep) else
               f"a value holding a {sep_name} needs quotes, or the header lacks a column name")
        return InputError(f"has {saw} fields but the header has {expected}; {why}", source=source,
                          row=None if line is None else f"line {line}")
    first = text.strip().splitlines()[0] if text.strip() else "unreadable"
    return InputError(f"could not be read as a table: {first}", source=source)


def _invalid_record(path: Path, sep: str, kind, expected: int) -> int | None:
    """The 1-based record number (header = 1) of the first record with the wrong number of fields."""
    pa = _pyarrow()
    import pyarrow.csv as pcsv

    found = []

    def handler(row):
        found.append(row.number)
        return "error"

    names = [f"f{j}" for j in range(expected)]
    try:
        reader = pcsv.open_csv(_input_stream(path, kind),
                               read_options=pcsv.ReadOptions(use_threads=False, block_size=BLOCK_BYTES,
                                                             autogenerate_column_names=True),
                               parse_options=pcsv.ParseOptions(delimiter=sep, newlines_in_values=True,
                                                               ignore_empty_lines=False, invalid_row_handler=handler),
                               convert_options=pcsv.ConvertOptions(column_types={f: pa.string() for f in names}))
        for _ in reader:
            pass
    except pa.ArrowInvalid:
        pass
    return found[0] if found and found[0] is not None else None


def _last_line(raw: Raw) -> int:
    count = sum(bytes(chunk).count(b"\n") for chunk in raw.chunks())
    return count + 1


def _unclosed_quote_line(raw: Raw) -> int:
    """The physical line of the quote that is never closed (the last quote opening a field)."""
    seen, parity, opened = 0, 0, 1
    for chunk in raw.chunks():
        a = np.frombuffer(bytes(chunk), dtype=np.uint8)
        q = np.flatnonzero(a == 34)
        nl = np.flatnonzero(a == 10)
        if q.size:
            odd = np.flatnonzero((parity + np.arange(q.size)) % 2 == 0)  # quotes that open (even count before)
            if odd.size:
                last = q[odd[-1]]
                opened = seen + int(np.searchsorted(nl, last)) + 1
        parity = (parity + q.size) % 2
        seen += nl.size
    return opened


def _utf8_problem(raw: Raw, source: str, sep: str) -> InputError:
    """The first byte that is not UTF-8, found chunk by chunk (the line, the column and a likely encoding)."""
    import codecs

    from ._text import utf8_problem

    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    for chunk in raw.chunks():
        chunk = bytes(chunk)
        try:
            decoder.decode(chunk)
        except UnicodeDecodeError as exc:
            bad = offset + exc.start
            start = max(0, bad - (1 << 16))
            data = _read_range(raw, 0, bad + 1) if bad < (1 << 24) else None
            if data is not None:
                return utf8_problem(data, source, sep=sep, header=_header_of(raw, sep))
            window = _read_range(raw, start, bad + 1)
            lines_before = sum(bytes(c).count(b"\n") for c in _chunks_until(raw, start))
            err = utf8_problem(window, source, sep=sep, header=_header_of(raw, sep))
            return InputError(err.problem, source=source, row=f"line {lines_before + int(err.row.split()[-1])}",
                              column=err.column)
        offset += len(chunk)
    return InputError("is not valid UTF-8 text; save it as UTF-8", source=source)


def _read_range(raw: Raw, start: int, stop: int) -> bytes:
    out, offset = [], 0
    for chunk in raw.chunks():
        chunk = bytes(chunk)
        lo, hi = max(start - offset, 0), min(stop - offset, len(chunk))
        if lo < hi:
            out.append(chunk[lo:hi])
        offset += len(chunk)
        if offset >= stop:
            break
    return b"".join(out)


def _chunks_until(raw: Raw, stop: int):
    offset = 0
    for chunk in raw.chunks():
        chunk = bytes(chunk)
        if offset + len(chunk) >= stop:
            yield chunk[:stop - offset]
            return
        yield chunk
        offset += len(chunk)


def _header_of(raw: Raw, sep: str) -> list:
    first = raw.head(1 << 16).split(b"\n", 1)[0].decode("utf-8", errors="replace")
    return next(csv.reader([first], delimiter=sep), [])
