"""Files to frames: one table file, standard input, or several files (a glob or a list) read as one frame.

Rows are named as the user sees them: the physical file line for text files (``line``), the row for Parquet, the
record for JSON arrays; with several files, by file and line. What reading undid or left out (compression, an
encoding, empty or header-only files of a glob) comes back as notes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .._validate import ArgumentError, InputError
from ._json_text import read_json_lines, read_json_table
from ._text import Raw, check_column_names, decompress, is_parquet, open_text, read_delimited
from .folders import _is_glob, expand
from ..display.notes import NoteKind
from .._words import words

__all__ = ["load_frame", "load", "TABULAR_SUFFIXES", "STDIN", "STDIN_NAME", "COMPRESSED"]

#: the path that means standard input, and its name in messages
STDIN = "-"
STDIN_NAME = "<stdin>"

TABULAR_SUFFIXES = {
    ".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".txt": "csv",
    ".parquet": "parquet", ".pq": "parquet",
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json",
}
COMPRESSED = (".gz", ".bz2", ".xz", ".zip", ".zst", ".zstd", ".tar")


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in COMPRESSED:
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


NOTE_PARQUET_FILE_TOLD_ITS = NoteKind('io.parquet-file-told-its', 'caveat',
                                       '{source}: a Parquet file (told by its content, not its name); read as Parquet')


def load_frame(path, *, file_format: str = "auto", skip=(), compact: bool = False
               ) -> tuple[pd.DataFrame, str, str, list[str]]:
    """Read a file (or ``"-"``, standard input) into a DataFrame whose index holds the row names users see.

    Returns
    -------
    frame, source, row_word, notes : DataFrame, str, str, list of str
        ``row_word`` is 'line' for text files (the index is then the physical file line, header = line 1),
        'record' for JSON arrays and 'row' otherwise. Cells of text files are text as written (only an empty cell
        is missing). Standard input is named ``<stdin>``; its format is read from its first bytes unless given.
        ``notes`` say what was undone (compression told by content, an encoding).

    With ``compact`` (the results-table reader), a CSV, TSV or Parquet file of at least
    :data:`evalband.io.columnar.MIN_ROWS` rows is read in record batches into a compact frame (categorical text
    cells, :mod:`evalband.io.columnar`); ``skip`` names columns it need not read (``--drop-cols``;
    ``frame.attrs['skipped']`` lists them). Other files give every column.
    """
    if isinstance(path, str) and path == STDIN:
        raw = open_text(None, STDIN_NAME, data=_read_stdin())
        fmt = _sniff(raw) if file_format == "auto" else file_format
        return _parse(raw, fmt, STDIN_NAME)
    path = Path(path)
    source = str(path)
    if not path.exists():
        raise InputError("no such file", source=source)
    if path.is_dir():
        try:
            from .folders import detect

            kind = detect(path)
        except InputError:  # logs of several tools
            kind = "harness"
        if kind is not None:  # reached with --source csv (or another table format) on a log folder
            raise InputError(f"is a folder of {kind} logs, not a table; leave --source at auto"
                             + (f" or give --source {kind}" if kind != "harness" else ""), source=source)
        raise InputError("is a folder without harness logs evalband recognizes (lm-eval, inspect, helm, rliable,"
                         " cruxeval); name a results file, or a glob such as 'folder/*.csv' to read several tables"
                         " as one", source=source)
    fmt = TABULAR_SUFFIXES.get(_suffix(path)) if file_format == "auto" else file_format
    if fmt is None:
        raise InputError(words('cannot tell the format from the name; give it with {py:source=}{cli:--source}, one of {value}', value=', '.join(sorted(set(TABULAR_SUFFIXES.values())))), source=source)
    from . import columnar

    if compact and columnar.wanted(path, fmt):
        loaded = columnar.load_columnar(path, fmt, source, skip=skip)
        if loaded is not None:
            frame, row_word, notes = loaded
            return frame, source, row_word, notes
    try:
        raw = open_text(path, source)
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror or type(exc).__name__})", source=source) from None
    if fmt != "parquet" and is_parquet(raw):
        raw.notes.append(NOTE_PARQUET_FILE_TOLD_ITS(source=source))
        fmt = "parquet"
    return _parse(raw, fmt, source)


def _read_stdin() -> bytes:
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    if stream is None:
        raise InputError("no standard input to read", source=STDIN_NAME)
    raw = stream.read()
    raw = raw.encode("utf-8") if isinstance(raw, str) else raw
    if not raw.strip():
        raise InputError("is empty (nothing was piped in)", source=STDIN_NAME)
    return decompress(raw, STDIN_NAME)[0]


def _sniff(raw: Raw) -> str:
    """The format of standard input from its first bytes: Parquet, JSON Lines, JSON records, TSV or CSV."""
    head = raw.head(1 << 16)
    if head[:4] == b"PAR1":
        return "parquet"
    head = head.lstrip()
    if head.startswith(b"{"):
        return "jsonl"
    if head.startswith(b"["):
        return "json"
    first = head.split(b"\n", 1)[0]
    # the separator the header uses more: a TSV header may hold commas in names ('gpt-4,2024', HELM run names)
    return "tsv" if first.count(b"\t") > first.count(b",") else "csv"


def _parse(raw: Raw, fmt: str, source: str) -> tuple[pd.DataFrame, str, str, list[str]]:
    """Parse ``raw`` as ``fmt``: (frame, source, row_word, notes)."""
    if raw.size() == 0:
        raise InputError("is empty", source=source)
    if fmt in ("csv", "tsv"):
        return read_delimited(raw, "\t" if fmt == "tsv" else ",", source), source, "line", raw.notes
    if fmt == "jsonl":
        return read_json_lines(raw, source), source, "line", raw.notes
    if fmt == "json":
        frame, row_word = read_json_table(raw, source)
        return frame, source, row_word, raw.notes
    if fmt == "parquet":
        try:
            import pyarrow.parquet as pq

            check_column_names(pq.read_schema(raw.stream()).names, source, row=None)
        except InputError:
            raise
        except Exception:  # not Parquet after all: pandas says what is wrong below
            pass
        try:
            df = pd.read_parquet(raw.stream())
        except Exception as exc:  # pyarrow raises its own error types
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InputError(f"could not be read as parquet: {first}", source=source) from None
        if not isinstance(df.index, pd.RangeIndex):  # an index pandas restored from the file's columns: columns
            df.index.names = [f"__index_level_{k}__" if n is None else n for k, n in enumerate(df.index.names)]
            df = df.reset_index()  # again, as the file stores them (and the columnar reader reads them)
        df.index = np.arange(1, len(df) + 1)
        return df, source, "row", raw.notes
    raise ArgumentError(f"`source_format` must be one of {sorted(set(TABULAR_SUFFIXES.values()))}; got {fmt!r}.")


NOTE_FILE_WITHOUT_ROWS_LEFT = NoteKind('io.file-without-rows-left', 'excluded',
                                        'file{value} without rows left out: {value2}')


NOTE_NAMED_TWICE = NoteKind("io.file-named-twice", "info",
                            "{n} file{s} named more than once in the list {were} read once: {files}{more}")


def _shard_folder(data) -> bool:
    """Whether ``data`` is a folder of table shards and nothing else (every file below it, hidden ones aside, a
    Parquet, CSV or TSV shard; no harness logs): read as the glob of its files, as the cluster reads a folder
    (:func:`evalband.io._shards.list_shards`), so that one command line works with and without ``--scheduler``."""
    if isinstance(data, (list, tuple)) or not isinstance(data, (str, os.PathLike)) or not Path(data).is_dir():
        return False
    from ._shards import SHARD_SUFFIXES
    from .folders import _walk, detect

    files = _walk(Path(data))
    if not files or not all(f.name.lower().endswith(SHARD_SUFFIXES) for f in files):
        return False
    try:
        return detect(data) is None
    except InputError:  # logs of several tools
        return False


def load(data, file_format: str, skip=()):
    """(frame, source, row_word, stems, notes): one file, standard input, or several files (a glob or a list) read
    as one table. With several files every row is named by its file and line (row_word 'at') and ``stems`` holds
    each row's file stem; the files must have the same columns. An empty or header-only file among several is
    left out and named in a note (alone, it is an error)."""
    several = isinstance(data, (list, tuple)) or _is_glob(os.fspath(data)) or _shard_folder(data)
    if not several:
        df, source, row_word, notes = load_frame(data, file_format=file_format, skip=skip, compact=True)
        return df, source, row_word, None, list(notes)
    source, files = expand(data)
    notes = []
    if isinstance(data, (list, tuple)):  # a file named twice (or by two overlapping globs) is read once: say so
        named = [f for entry in data for f in expand(entry)[1]]
        twice = sorted({str(f) for f in named if named.count(f) > 1})
        if twice:
            notes.append(NOTE_NAMED_TWICE(n=len(twice), s="s" if len(twice) > 1 else "",
                                          were="were" if len(twice) > 1 else "was", files=", ".join(twice[:5]),
                                          more=" ..." if len(twice) > 5 else ""))
    if len(files) == 1:
        df, src, row_word, more = load_frame(files[0], file_format=file_format, skip=skip, compact=True)
        return df, src, row_word, None, notes + list(more)
    names = [f.name for f in files]
    if len(set(names)) < len(names):  # the same name in two folders: show the paths
        names = [str(f) for f in files]
    frames, kept, first, empty = [], [], None, {"empty": [], "header only": []}
    for path, name in zip(files, names):
        try:
            df, src, row_word, more = load_frame(path, file_format=file_format, skip=skip, compact=True)
        except InputError as exc:
            if str(exc.problem).startswith("is empty"):
                empty["empty"].append(name)
                continue
            raise
        notes += more
        if len(df) == 0:
            empty["header only"].append(name)
            continue
        cols = [str(c).strip() for c in df.columns]
        if len(set(cols)) == len(cols):
            df.columns = cols
        if first is None:
            first = (name, list(df.columns))
        elif set(df.columns) != set(first[1]):
            # the same columns up to case ('Model' in one export, 'model' in another) are the same roles
            by_case = {str(c).casefold(): c for c in first[1]}
            if len(by_case) == len(first[1]) == len(df.columns) and {str(c).casefold() for c in df.columns} \
                    == set(by_case):
                df.columns = [by_case[str(c).casefold()] for c in df.columns]
        if set(df.columns) != set(first[1]):
            raise InputError(f"has columns {', '.join(map(repr, df.columns))} but {first[0]} has"
                             f" {', '.join(map(repr, first[1]))}; tables read together need the same columns",
                             source=src)
        if _compact(df):  # a large file: the row names built as one array of text, not one object each
            df.index = pd.Index(f"{name} {row_word} " + pd.Index(df.index).astype(str))
        else:
            df.index = pd.Index([f"{name} {row_word} {i}" for i in df.index], dtype=object)
        frames.append(df)
        kept.append(path)
    skipped = [n for names_ in empty.values() for n in names_]
    if skipped:
        parts = [f"{len(v)} {k} ({', '.join(v[:5])}{' ...' if len(v) > 5 else ''})" for k, v in empty.items() if v]
        if not frames:
            raise InputError(f"every file is empty or holds only a header: {'; '.join(parts)}", source=source)
        notes.append(NOTE_FILE_WITHOUT_ROWS_LEFT(value='s' if len(skipped) > 1 else '', value2='; '.join(parts)))
    stems = [pd.Series(stem, index=df.index, dtype=object) for df, stem in zip(frames, task_names(kept))]
    if any(_compact(f) for f in frames):
        return _concat_compact(frames, stems, source, notes)
    return pd.concat(frames), source, "at", pd.concat(stems), notes


def _compact(df: pd.DataFrame) -> bool:
    """Whether a frame came from the columnar reader (categorical text cells)."""
    return any(isinstance(t, pd.CategoricalDtype) for t in df.dtypes)


def _concat_compact(frames, stems, source, notes):
    """Frames of several files, some of them compact, as one compact frame: each label column's categories are
    united (no column falls back to one Python object per row); the file stems as a categorical."""
    from pandas.api.types import union_categoricals

    index = frames[0].index.append([f.index for f in frames[1:]])
    columns = {}
    for c in frames[0].columns:
        parts = [f[c] for f in frames]
        cats = [p.array if isinstance(p.dtype, pd.CategoricalDtype) else pd.Categorical(p) for p in parts]
        try:
            columns[c] = union_categoricals(cats)
        except TypeError:  # categories of different kinds (numbers in one file, text in another)
            columns[c] = np.concatenate([np.asarray(p, dtype=object) for p in parts])
    skipped = sorted({x for f in frames for x in f.attrs.get("skipped", [])})
    frame = pd.DataFrame(columns, index=index, copy=False)
    frame.attrs["skipped"] = skipped
    stem = union_categoricals([pd.Categorical.from_codes(np.zeros(len(s), dtype=np.int8), [s.iloc[0]])
                               for s in stems if len(s)])
    return frame, source, "at", pd.Series(stem, index=index), notes


def _strip_suffixes(name: str) -> str:
    """``results.v2.csv.gz`` -> ``results.v2``: only the table and compression suffixes go."""
    low = name.lower()
    for suffix in COMPRESSED:
        if low.endswith(suffix) and len(name) > len(suffix):
            name, low = name[:-len(suffix)], low[:-len(suffix)]
            break
    for suffix in TABULAR_SUFFIXES:
        if low.endswith(suffix) and len(name) > len(suffix):
            return name[:-len(suffix)]
    return name


def task_names(files) -> list[str]:
    """One distinct task name per file: its name without the table/compression suffix (``run.v1.csv`` ->
    ``run.v1``); files of the same name in different folders (``mmlu/results.csv``, ``gsm8k/results.csv``) are
    named by their path below the folder they share (``mmlu/results``, ``gsm8k/results``), so two files never
    merge into one task."""
    names = [_strip_suffixes(f.name) for f in files]
    if len(set(names)) == len(names):
        return names
    absolute = [Path(os.path.abspath(f)) for f in files]  # not resolve(): a symlink keeps its own folder
    parents = [p.parent for p in absolute]
    common = Path(os.path.commonpath([str(p) for p in parents]))
    return [_strip_suffixes(p.relative_to(common).as_posix()) for p in absolute]
