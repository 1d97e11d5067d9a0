"""Tables in files or DataFrames: CSV/TSV, Parquet, JSON Lines, in long, wide or summary shape.

A tabular source reaches :class:`~evalband.table.ResultsTable` in three shapes:

* ``long``: one row per model, task, item (and trial) with a score column;
* ``wide``: one row per item and one score column per model (blank where a model has no result);
* ``summary``: one row per model and task with ``n`` and ``correct`` or ``accuracy``.

``shape='auto'`` picks ``long`` when a score column exists, ``summary`` when ``n`` and ``correct``/``accuracy``
exist, and ``wide`` otherwise (every column not named as item, task, group or cluster is a model). Column names
are mapped with the ``*_col`` options; a role's name also matches a column that differs only by case (``Model``)
when exactly one does. Error messages give file line numbers for text files.

Several files (a glob such as ``"runs/*.csv"`` or a list) are read as one table: they must have the same columns,
each row is named by its file and line in messages, and files without a task column are one task each, named after
the file. ``"-"`` reads standard input (named ``<stdin>``), whose format (CSV, TSV, JSON Lines, JSON records,
Parquet) is read from its first bytes, after undoing gzip, bzip2, xz or zstd compression.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .._validate import ArgumentError, ArgumentTypeError, InputError, MissingExtraError
from ..table import ResultsTable
from .folders import _is_glob, expand

__all__ = ["read_tabular", "load_frame", "TABULAR_SUFFIXES", "STDIN"]

#: the path that means standard input, and its name in messages
STDIN = "-"
STDIN_NAME = "<stdin>"

TABULAR_SUFFIXES = {
    ".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".txt": "csv",
    ".parquet": "parquet", ".pq": "parquet",
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json",
}


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz", ".zst", ".zip"):
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def load_frame(path, *, file_format: str = "auto") -> tuple[pd.DataFrame, str, str]:
    """Read a file (or ``"-"``, standard input) into a DataFrame whose index holds the row names users see.

    Returns
    -------
    frame, source, row_word : DataFrame, str, str
        ``row_word`` is 'line' for text files (the index is then the file line, header = line 1) and 'row'
        otherwise. Standard input is named ``<stdin>``; its format is read from its first bytes unless given.
    """
    if isinstance(path, str) and path == STDIN:
        raw = _read_stdin()
        fmt = _sniff(raw) if file_format == "auto" else file_format
        return _parse(io.BytesIO(raw), fmt, STDIN_NAME, raw=raw)
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
        raise InputError(f"cannot tell the format from the name; give it with --source (source=), one of"
                         f" {', '.join(sorted(set(TABULAR_SUFFIXES.values())))}", source=source)
    compressed = path.suffix.lower() in _COMPRESSED
    return _parse(path, fmt, source, raw=None if compressed else _LazyBytes(path))


_COMPRESSED = (".gz", ".bz2", ".xz", ".zip", ".zst", ".zstd", ".tar")


class _LazyBytes:
    """A file's bytes, read only when a check needs them (the last line, JSONL line numbers)."""

    def __init__(self, path: Path):
        self.path = path

    def tail(self, size: int) -> bytes:
        with open(self.path, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - size))
            return fh.read()

    def all(self) -> bytes:
        return self.path.read_bytes()


def _read_stdin() -> bytes:
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    if stream is None:
        raise InputError("no standard input to read", source=STDIN_NAME)
    raw = stream.read()
    raw = raw.encode("utf-8") if isinstance(raw, str) else raw
    if not raw.strip():
        raise InputError("is empty (nothing was piped in)", source=STDIN_NAME)
    return _decompress(raw).removeprefix(_BOM)  # a UTF-8 byte-order mark would hide JSON's first '{'


#: UTF-8 byte-order mark (PowerShell's and Notepad's UTF-8); pandas skips it in CSV but not in JSON
_BOM = b"\xef\xbb\xbf"


#: magic bytes of compressed streams -> (name, module) that reads them
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "lzma"), (b"\x28\xb5\x2f\xfd", "zstandard"))


def _decompress(raw: bytes) -> bytes:
    """Standard input compressed with gzip, bzip2, xz or zstd (``cat results.csv.gz | evalband ... -``) is
    decompressed, as files with those suffixes are."""
    for magic, module in _MAGIC:
        if raw.startswith(magic):
            break
    else:
        return raw
    try:
        if module == "zstandard":
            try:
                import zstandard
            except ImportError:
                raise MissingExtraError("zstd-compressed input needs zstandard: pip install 'evalband[logs]'") from None
            out = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)).read()
        else:
            out = __import__(module).decompress(raw)
    except ImportError:
        raise
    except Exception as exc:  # truncated or corrupt stream
        raise InputError(f"looks {module.replace('lzma', 'xz')}-compressed but could not be decompressed"
                         f" ({str(exc).strip() or type(exc).__name__})", source=STDIN_NAME) from None
    if not out.strip():
        raise InputError("is empty once decompressed", source=STDIN_NAME)
    return out


def _sniff(raw: bytes) -> str:
    """The format of standard input from its first bytes: Parquet, JSON Lines, JSON records, TSV or CSV."""
    if raw[:4] == b"PAR1":
        return "parquet"
    head = raw.lstrip()
    if head.startswith(b"{"):
        return "jsonl"
    if head.startswith(b"["):
        return "json"
    first = head.split(b"\n", 1)[0]
    # the separator the header uses more: a TSV header may hold commas in names ('gpt-4,2024', HELM run names)
    return "tsv" if first.count(b"\t") > first.count(b",") else "csv"


def _parse(src, fmt: str, source: str, *, raw) -> tuple[pd.DataFrame, str, str]:
    """Parse ``src`` (a path or a binary buffer) as ``fmt``; ``raw`` gives its bytes for the checks (None: skip)."""
    try:
        if fmt in ("csv", "tsv"):
            sep = "\t" if fmt == "tsv" else ","
            # blank lines kept while numbering (file line = index, header = line 1), then dropped; a line of empty
            # cells only (',,,', as spreadsheets export) goes with them, since it holds nothing
            df = pd.read_csv(src, sep=sep, low_memory=False, keep_default_na=True, na_values=[""],
                             skip_blank_lines=False)
            df.index = np.arange(2, len(df) + 2)
            if len(df) and len(df.columns):
                if raw is not None:
                    tail = raw.tail(65536) if isinstance(raw, _LazyBytes) else raw[-65536:]
                    _check_last_line(tail, sep, len(df.columns), int(df.index[-1]), source)
                blank = df.isna().all(axis=1).to_numpy()
                if blank.any():
                    df = df.loc[~blank]
            return df, source, "line"
        if fmt == "parquet":
            df = pd.read_parquet(src)
            df.index = np.arange(1, len(df) + 1)
            return df, source, "row"
        if fmt in ("jsonl", "json") and isinstance(raw, _LazyBytes):
            with open(raw.path, "rb") as fh:
                bom = fh.read(3) == _BOM
            if bom:
                raw = raw.all().removeprefix(_BOM)
                src = io.BytesIO(raw)
        if fmt == "jsonl":
            df = pd.read_json(src, lines=True)
            df.index = _jsonl_lines(raw, len(df))
            return df, source, "line"
        if fmt == "json":
            df = pd.read_json(src)
            df.index = np.arange(1, len(df) + 1)
            return df, source, "record"
    except InputError:
        raise
    except (ValueError, OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"could not be read as {fmt}: {first}", source=source) from None
    except Exception as exc:  # pyarrow raises its own error types
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"could not be read as {fmt}: {first}", source=source) from None
    raise ArgumentError(f"`source_format` must be one of {sorted(set(TABULAR_SUFFIXES.values()))}; got {fmt!r}.")


def _jsonl_lines(raw, n_rows: int) -> np.ndarray:
    """File line of each JSONL record: read_json skips blank lines, which would shift every later line number."""
    plain = np.arange(1, n_rows + 1)
    if raw is None:
        return plain
    raw = raw.all() if isinstance(raw, _LazyBytes) else raw
    if not (raw.startswith((b"\n", b"\r\n")) or b"\n\n" in raw or b"\n\r\n" in raw):
        return plain
    lines = np.flatnonzero([bool(line.strip()) for line in raw.split(b"\n")]) + 1
    return lines if len(lines) == n_rows else plain


def _check_last_line(tail: bytes, sep: str, n_columns: int, line: int, source: str) -> None:
    """A file cut off mid-line (no final newline, fewer fields than the header) is named as truncated.

    ``tail`` is the file's last bytes. Fields are counted by splitting on ``sep`` (a quoted separator only adds
    fields, so "fewer" is reliable). Compressed files are not checked (their bytes are not the text)."""
    if not tail or tail.endswith(b"\n") or tail.endswith(b"\r"):
        return
    last = tail.rsplit(b"\n", 1)[-1]
    fields = last.count(sep.encode()) + 1
    if fields < n_columns:
        raise InputError(f"the last line has {fields} of {n_columns} fields: the file looks truncated",
                         source=source, row=f"line {line}")


def _load(data, file_format: str):
    """(frame, source, row_word, stems, notes): one file, standard input, or several files (a glob or a list) read as one
    table. With several files every row is named by its file and line (row_word 'at') and ``stems`` holds each
    row's file stem; the files must have the same columns."""
    several = isinstance(data, (list, tuple)) or _is_glob(os.fspath(data))
    if not several:
        return (*load_frame(data, file_format=file_format), None, [])
    source, files = expand(data)
    notes = []
    if isinstance(data, (list, tuple)):  # a file named twice (or by two overlapping globs) is read once: say so
        named = [f for entry in data for f in expand(entry)[1]]
        twice = sorted({str(f) for f in named if named.count(f) > 1})
        if twice:
            notes.append(f"{len(twice)} file{'s' if len(twice) > 1 else ''} named more than once in the list"
                             f" {'were' if len(twice) > 1 else 'was'} read once: {', '.join(twice[:5])}"
                             + (" ..." if len(twice) > 5 else ""))
    if len(files) == 1:
        return (*load_frame(files[0], file_format=file_format), None, notes)
    names = [f.name for f in files]
    if len(set(names)) < len(names):  # the same name in two folders: show the paths
        names = [str(f) for f in files]
    frames, stems, first = [], [], None
    for path, name in zip(files, names):
        df, src, row_word = load_frame(path, file_format=file_format)
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
        df.index = pd.Index([f"{name} {row_word} {i}" for i in df.index], dtype=object)
        frames.append(df)
    for df, stem in zip(frames, _task_names(files)):
        stems.append(pd.Series(stem, index=df.index, dtype=object))
    return pd.concat(frames), source, "at", pd.concat(stems), notes


def _strip_suffixes(name: str) -> str:
    """``results.v2.csv.gz`` -> ``results.v2``: only the table and compression suffixes go."""
    low = name.lower()
    for suffix in _COMPRESSED:
        if low.endswith(suffix) and len(name) > len(suffix):
            name, low = name[:-len(suffix)], low[:-len(suffix)]
            break
    for suffix in TABULAR_SUFFIXES:
        if low.endswith(suffix) and len(name) > len(suffix):
            return name[:-len(suffix)]
    return name


def _task_names(files) -> list[str]:
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


def _match_case(col, columns, source: str, option: str, *, explicit: bool):
    """The column for a role: ``col`` itself, else the one column equal to it ignoring case; two columns that
    differ only by case are an error unless ``col`` was named explicitly and matches one exactly."""
    if col is None:
        return None
    same = [c for c in columns if c.casefold() == str(col).casefold()]
    if col in same and (explicit or len(same) == 1):
        return col
    if len(same) > 1:
        raise InputError(f"columns {' and '.join(map(repr, same))} differ only by case; rename one, or name the one"
                         f" to use with {option}", source=source)
    return same[0] if same else col


def read_tabular(
    data,
    *,
    shape: str = "auto",
    file_format: str = "auto",
    model_col: str = "model",
    task_col: str = "task",
    item_col: str = "item",
    score_col: str = "score",
    trial_col: str | None = "trial",
    cluster_col: str | None = None,
    group_col: str | None = "group",
    n_col: str = "n",
    correct_col: str = "correct",
    accuracy_col: str = "accuracy",
    models=None,
    task: str | None = None,
    unbounded: bool = False,
    count_rule: str = "floor",
    accuracy_scale: str = "auto",
    drop_cols=None,
    cost_col: str | None = "cost",
    latency_col: str | None = "latency",
    human_col: str | None = "human",
    facets=None,
) -> ResultsTable:
    """Read a table (file path or DataFrame) into a validated :class:`ResultsTable`.

    Parameters
    ----------
    data : str, os.PathLike, list or pandas.DataFrame
        A file, a glob or list of files (read as one table; see the module notes), ``"-"`` for standard input,
        or a DataFrame.
    shape : {'auto', 'long', 'wide', 'summary'}
    model_col, task_col, item_col, score_col, trial_col, cluster_col, group_col, n_col, correct_col, accuracy_col
        The source's names for each column. ``cluster_col`` defaults to a column named 'cluster' if present.
    models : list of str, optional
        Wide shape: the model columns (default: every column not used for item, task, group or cluster). The
        other columns are left out, with a note naming them.
    task : str, optional
        Wide or long shape without a task column: the single task's name (default: the file's stem).
    unbounded : bool
        Declare scores outside [0, 1] legitimate (rewards, BLEU...).
    count_rule, accuracy_scale
        Summary shape: see :meth:`ResultsTable.from_summary`.
    drop_cols : str or list of str, optional
        Columns to leave out before anything else (e.g. a 0/1 flag such as MMLU-Pro's ``answer_key_varies`` in a
        wide table, which would otherwise be read as a model). Named in the table's notes.
    cost_col, latency_col, human_col : str, optional
        Long shape: per-row measures kept beside the score (:data:`evalband.table.MEASURES`): cost (dollars,
        tokens), latency (seconds) and a human label (prediction-powered inference); a column of the default name
        is used when present. Blank cells mean "not measured".
    facets : str or list of str, optional
        Label columns of other sources of variation (prompt template, judge, run, harness, ...). Default: the
        columns named ``prompt``, ``template``, ``judge``, ``run`` or ``harness`` when present; ``[]`` for none.
    """
    stems, load_notes = None, []  # with several files: each row's file stem
    if isinstance(data, pd.DataFrame):
        df, source, row_word = data, "<DataFrame>", "row"
    elif isinstance(data, (str, os.PathLike, list, tuple)):
        df, source, row_word, stems, load_notes = _load(data, file_format)
    else:
        raise ArgumentTypeError(f"`data` must be a path, a glob, a list of paths or a pandas DataFrame; got"
                        f" {type(data).__name__}.")
    df = df.copy()
    names = [str(c) for c in df.columns]
    stripped = [c.strip() for c in names]  # 'model, task, score' headers (a space after each comma)
    df.columns = stripped if len(set(stripped)) == len(stripped) else names
    pre_notes = list(load_notes)
    if drop_cols is not None:
        drop = [drop_cols] if isinstance(drop_cols, str) else [str(c) for c in drop_cols]
        unknown = [c for c in drop if c not in df.columns]
        if unknown:
            raise InputError(f"no column {', '.join(map(repr, unknown))} to leave out (drop_cols=, --drop-cols);"
                             f" found {', '.join(map(repr, df.columns))}", source=source)
        df = df.drop(columns=list(dict.fromkeys(drop)))
        pre_notes.append(f"column{'s' if len(drop) > 1 else ''} left out as asked (--drop-cols):"
                         f" {', '.join(dict.fromkeys(drop))}")
    # role names match a column ignoring case when exactly one column does ('Model', 'SCORE')
    is_default = {"trial": trial_col == "trial", "group": group_col == "group", "correct": correct_col == "correct",
                  "accuracy": accuracy_col == "accuracy"}
    cols = list(df.columns)
    model_col, task_col, item_col, score_col, trial_col, group_col, n_col, correct_col, accuracy_col = (
        _match_case(col, cols, source, option, explicit=col != default) for col, option, default in (
            (model_col, "--model-col", "model"), (task_col, "--task-col", "task"), (item_col, "--item-col", "item"),
            (score_col, "--score-col", "score"), (trial_col, "--trial-col", "trial"),
            (group_col, "--group-col", "group"), (n_col, "n_col=", "n"), (correct_col, "correct_col=", "correct"),
            (accuracy_col, "accuracy_col=", "accuracy")))
    cluster_auto = cluster_col is None
    cluster_col = _match_case(cluster_col or "cluster", cols, source, "--cluster", explicit=not cluster_auto)
    if cluster_auto and cluster_col not in df.columns:
        cluster_col = None
    for name, col in (("cluster_col", cluster_col),):
        if col is not None and col not in df.columns:
            raise InputError(f"no column '{col}' (given as {name}); found {', '.join(map(repr, df.columns))}",
                             source=source)
    default_task = task or ("task" if isinstance(data, pd.DataFrame) else "stdin" if source == STDIN_NAME
                            else Path(source).name.split(".")[0])
    added_task = stems is not None and task is None and task_col not in df.columns
    if added_task:
        df[task_col] = stems  # several files without a task column: each file is one task
        shown = list(pd.unique(stems))
        pre_notes.append(f"no '{task_col}' column: each file is one task, named after the file"
                         f" ({', '.join(shown[:8])}{' ...' if len(shown) > 8 else ''})")

    if shape == "auto":
        if score_col in df.columns:
            shape = "long"
        elif n_col in df.columns and (correct_col in df.columns or accuracy_col in df.columns):
            shape = "summary"
        elif item_col in df.columns or models is not None:
            shape = "wide"
        else:
            raise InputError(
                f"cannot tell the table's shape: no '{score_col}' column (long), no '{n_col}' with"
                f" '{correct_col}' or '{accuracy_col}' (summary), no '{item_col}' column (wide); found"
                f" {', '.join(map(repr, df.columns))}. Map the columns with --score-col, --item-col, ...",
                source=source)
    facet_cols = _facet_columns(facets, df.columns, source)
    if shape == "long":
        original = [c for c in df.columns if c != task_col or not added_task]
        measures = []
        for role, col, default in (("cost", cost_col, "cost"), ("latency", latency_col, "latency"),
                                   ("human", human_col, "human")):
            col = _match_case(col, cols, source, f"--{role}-col", explicit=col != default)
            if col is not None and col != default and col not in df.columns:
                raise InputError(f"no column '{col}' (given as --{role}-col); found"
                                 f" {', '.join(map(repr, df.columns))}", source=source)
            measures.append((role, col, col == default))
        mapping = _role_mapping(
            [("model", model_col, False), ("task", task_col, False), ("item", item_col, False),
             ("score", score_col, False), ("trial", trial_col, is_default["trial"]),
             ("cluster", cluster_col, cluster_auto), ("group", group_col, is_default["group"]), *measures,
             *((f, f, False) for f in facet_cols)], df.columns, source)
        df = _rename(df, mapping, source)
        notes = list(pre_notes)
        missing = [c for c in (item_col, score_col) if c not in original]
        if model_col not in original and (missing or model_col != "model" or stems is not None):
            missing.insert(0, model_col)  # a file without any model column is one model's results (below)
        if missing:
            several = " (several files are read as one table: each needs a model column)" if stems is not None \
                and model_col in missing and model_col == "model" else ""
            raise InputError(f"missing column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))};"
                             f" found {', '.join(map(repr, original))} (map names with --model-col, --item-col,"
                             f" --score-col, ...){several}", source=source)
        if "task" not in df.columns:
            df["task"] = default_task
            notes.append(f"no '{task_col}' column: one task named '{default_task}'")
        if "model" not in df.columns and model_col == "model":  # one model's log (e.g. tau-bench rewards)
            df["model"] = default_task
            notes.append(f"no '{model_col}' column: one model named '{default_task}'")
        return ResultsTable.from_items(df, source=source, unbounded=unbounded, row_word=row_word, notes=notes,
                                       facets=facet_cols)
    if shape == "summary":
        mapping = _role_mapping(
            [("model", model_col, False), ("task", task_col, False), ("n", n_col, False),
             ("correct", correct_col, is_default["correct"]), ("accuracy", accuracy_col, is_default["accuracy"]),
             ("group", group_col, is_default["group"])], df.columns, source)
        df = _rename(df, mapping, source)  # with both correct and accuracy, from_summary checks they agree
        return ResultsTable.from_summary(df, source=source, count_rule=count_rule, accuracy_scale=accuracy_scale,
                                         row_word=row_word, notes=pre_notes)
    if shape == "wide":
        return _from_wide(df, source, row_word, item_col=item_col, task_col=task_col, group_col=group_col,
                          cluster_col=cluster_col, models=models, task=default_task, unbounded=unbounded,
                          notes=pre_notes, facets=facet_cols)
    raise ArgumentError(f"`shape` must be one of 'auto', 'long', 'wide', 'summary'; got {shape!r}.")


#: label columns read as facets when present and ``facets`` is not given
KNOWN_FACETS = ("prompt", "template", "judge", "run", "harness")


def _facet_columns(facets, columns, source: str) -> tuple[str, ...]:
    """The facet columns: ``facets`` as given (each must exist), or the known facet names present."""
    if facets is None:
        return tuple(c for c in columns if str(c) in KNOWN_FACETS)
    facets = [facets] if isinstance(facets, str) else [str(f) for f in facets]
    missing = [f for f in facets if f not in columns]
    if missing:
        raise InputError(f"no facet column {', '.join(map(repr, missing))} (--facets); found"
                         f" {', '.join(map(repr, columns))}", source=source)
    return tuple(dict.fromkeys(facets))


def _role_mapping(roles, columns, source: str) -> dict:
    """Source column -> role. ``roles`` holds (role, column, is_default); model, task, item and score (n for
    summaries) are always mapped, the other roles only when their column exists. A column named for two
    roles is an error, except that a role left at its default name yields to an explicit one (``task_col='group'``
    makes the 'group' column the tasks rather than being undone by the default group column)."""
    required = {"model", "task", "item", "score", "n"}
    mapping, owner = {}, {}
    for role, col, is_default in sorted(roles, key=lambda r: r[2]):  # explicit names first
        if col is None or (role not in required and col not in columns):
            continue
        if col in owner:
            if is_default:
                continue
            raise InputError(f"column '{col}' is named for two roles, {owner[col]} and {role}; give each role its"
                             " own column (--model-col, --task-col, --item-col, --score-col, --trial-col,"
                             " --cluster, --group-col)", source=source)
        owner[col] = role
        mapping[col] = role
    return mapping


def _rename(df: pd.DataFrame, mapping: dict, source: str) -> pd.DataFrame:
    clash = [c for c in mapping.values() if c in df.columns and c not in mapping]
    if clash:
        df = df.drop(columns=clash)
    return df.rename(columns=mapping)


def _from_wide(df, source, row_word, *, item_col, task_col, group_col, cluster_col, models, task, unbounded,
               notes=(), facets=()):
    if item_col not in df.columns:
        raise InputError(f"wide shape needs an item column '{item_col}' (set --item-col)", source=source)
    id_cols = [c for c in (item_col, task_col, group_col, cluster_col, *facets) if c is not None and c in df.columns]
    if models is None:
        models = [c for c in df.columns if c not in id_cols]
        # columns that are clearly not scores (text) are named, not guessed
        texty = [c for c in models if (df[c].dtype == object or pd.api.types.is_string_dtype(df[c]))
                 and pd.to_numeric(df[c].dropna().astype(str).str.strip().replace(
                     {"C": "1", "I": "0", "P": "0.5", "N": "0", "True": "1", "False": "0",
                      "true": "1", "false": "0"}), errors="coerce").isna().any()]
        if texty:
            raise InputError(f"column{'s' if len(texty) > 1 else ''} {', '.join(map(repr, texty))} hold{'' if len(texty) > 1 else 's'} text, not"
                             " scores; name the model columns (models=..., --models) or the id columns"
                             " (--item-col, --task-col, --group-col, --cluster)", source=source)
    else:
        models = [models] if isinstance(models, str) else list(models)
        missing = [m for m in models if m not in df.columns]
        if missing:
            raise InputError(f"no model column {', '.join(map(repr, missing))}", source=source)
        others = [c for c in df.columns if c not in id_cols and c not in models]
        if others:  # selected at read time: the coverage notes count only the chosen models
            notes = [*notes, f"wide table: {len(others)} column{'s' if len(others) > 1 else ''} not read as"
                             f" models (not in --models): {', '.join(map(str, others))}"]
    if not models:
        raise InputError("wide shape found no model columns", source=source)
    long = df.melt(id_vars=id_cols, value_vars=list(models), var_name="model", value_name="score",
                   ignore_index=False)
    blank = long["score"].isna()
    notes = list(notes)
    if blank.any():
        per = long.loc[blank, "model"].value_counts()
        notes.append("blank cells read as 'no result' and left out (" +
                     ", ".join(f"{m}: {int(v):,}" for m, v in per.items()) + ")")
        long = long.loc[~blank]
    if task_col in df.columns:
        empty = sorted(set(df[task_col].dropna().astype(str)) - set(long[task_col].dropna().astype(str)))
        if empty:
            raise InputError(f"task{'s' if len(empty) > 1 else ''} {', '.join(map(repr, empty))} ha"
                             f"{'ve' if len(empty) > 1 else 's'} no result at all (every model's cell is blank)",
                             source=source, column=task_col)
    mapping = {item_col: "item"}
    if task_col in long.columns:
        mapping[task_col] = "task"
    if group_col is not None and group_col in long.columns:
        mapping[group_col] = "group"
    if cluster_col is not None and cluster_col in long.columns:
        mapping[cluster_col] = "cluster"
    long = long.rename(columns=mapping)
    if "task" not in long.columns:
        long["task"] = task
    return ResultsTable.from_items(long, source=source, unbounded=unbounded, row_word=row_word, notes=notes,
                                   facets=facets)
