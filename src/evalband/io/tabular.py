"""Tables in files or DataFrames: CSV/TSV, Parquet, JSON Lines, in long, wide or summary shape.

A tabular source reaches :class:`~evalband.table.ResultsTable` in three shapes:

* ``long``: one row per model, task, item (and trial) with a score column;
* ``wide``: one row per item and one score column per model (blank where a model has no result);
* ``summary``: one row per model and task with ``n`` and ``correct`` or ``accuracy``.

``shape='auto'`` picks ``long`` when a score column exists, ``summary`` when ``n`` and ``correct``/``accuracy``
exist, and ``wide`` otherwise (every column not named as item, task, group or cluster is a model). Column names
are mapped with the ``*_col`` options. Error messages give file line numbers for text files.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .._validate import InputError
from ..table import ResultsTable

__all__ = ["read_tabular", "load_frame", "TABULAR_SUFFIXES"]

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
    """Read a file into a DataFrame whose index holds the row names users see.

    Returns
    -------
    frame, source, row_word : DataFrame, str, str
        ``row_word`` is 'line' for text files (the index is then the file line, header = line 1) and 'row'
        otherwise.
    """
    path = Path(path)
    source = str(path)
    if not path.exists():
        raise InputError("no such file", source=source)
    if path.is_dir():
        raise InputError("is a folder; name a file (harness log folders need --source lm-eval/inspect/helm)",
                         source=source)
    fmt = TABULAR_SUFFIXES.get(_suffix(path)) if file_format == "auto" else file_format
    if fmt is None:
        raise InputError(f"cannot tell the format from the name; give it with --source (source=), one of"
                         f" {', '.join(sorted(set(TABULAR_SUFFIXES.values())))}", source=source)
    try:
        if fmt in ("csv", "tsv"):
            sep = "\t" if fmt == "tsv" else ","
            # blank lines kept while numbering (file line = index, header = line 1), then dropped; a line of empty
            # cells only (',,,', as spreadsheets export) goes with them, since it holds nothing
            df = pd.read_csv(path, sep=sep, low_memory=False, keep_default_na=True, na_values=[""],
                             skip_blank_lines=False)
            df.index = np.arange(2, len(df) + 2)
            if len(df) and len(df.columns):
                _check_last_line(path, sep, len(df.columns), int(df.index[-1]), source)
                blank = df.isna().all(axis=1).to_numpy()
                if blank.any():
                    df = df.loc[~blank]
            return df, source, "line"
        if fmt == "parquet":
            df = pd.read_parquet(path)
            df.index = np.arange(1, len(df) + 1)
            return df, source, "row"
        if fmt == "jsonl":
            df = pd.read_json(path, lines=True)
            df.index = _jsonl_lines(path, len(df))
            return df, source, "line"
        if fmt == "json":
            df = pd.read_json(path)
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
    raise ValueError(f"`source_format` must be one of {sorted(set(TABULAR_SUFFIXES.values()))}; got {fmt!r}.")


def _jsonl_lines(path, n_rows: int) -> np.ndarray:
    """File line of each JSONL record: read_json skips blank lines, which would shift every later line number."""
    plain = np.arange(1, n_rows + 1)
    if Path(path).suffix.lower() in (".gz", ".bz2", ".xz", ".zip", ".zst", ".zstd", ".tar"):
        return plain
    raw = Path(path).read_bytes()
    if not (raw.startswith((b"\n", b"\r\n")) or b"\n\n" in raw or b"\n\r\n" in raw):
        return plain
    lines = np.flatnonzero([bool(line.strip()) for line in raw.split(b"\n")]) + 1
    return lines if len(lines) == n_rows else plain


def _check_last_line(path, sep: str, n_columns: int, line: int, source: str) -> None:
    """A file cut off mid-line (no final newline, fewer fields than the header) is named as truncated.

    Fields are counted by splitting on ``sep`` (a quoted separator only adds fields, so "fewer" is reliable).
    Compressed files are not checked (their bytes are not the text)."""
    if Path(path).suffix.lower() in (".gz", ".bz2", ".xz", ".zip", ".zst", ".zstd", ".tar"):
        return
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        size = fh.tell()
        fh.seek(max(0, size - 65536))
        tail = fh.read()
    if not tail or tail.endswith(b"\n") or tail.endswith(b"\r"):
        return
    last = tail.rsplit(b"\n", 1)[-1]
    fields = last.count(sep.encode()) + 1
    if fields < n_columns:
        raise InputError(f"the last line has {fields} of {n_columns} fields: the file looks truncated",
                         source=source, row=f"line {line}")


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
) -> ResultsTable:
    """Read a table (file path or DataFrame) into a validated :class:`ResultsTable`.

    Parameters
    ----------
    data : str, os.PathLike or pandas.DataFrame
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
    """
    if isinstance(data, pd.DataFrame):
        df, source, row_word = data, "<DataFrame>", "row"
    elif isinstance(data, (str, os.PathLike)):
        df, source, row_word = load_frame(data, file_format=file_format)
    else:
        raise TypeError(f"`data` must be a path or a pandas DataFrame; got {type(data).__name__}.")
    df = df.copy()
    names = [str(c) for c in df.columns]
    stripped = [c.strip() for c in names]  # 'model, task, score' headers (a space after each comma)
    df.columns = stripped if len(set(stripped)) == len(stripped) else names
    pre_notes = []
    if drop_cols is not None:
        drop = [drop_cols] if isinstance(drop_cols, str) else [str(c) for c in drop_cols]
        unknown = [c for c in drop if c not in df.columns]
        if unknown:
            raise InputError(f"no column {', '.join(map(repr, unknown))} to leave out (drop_cols=, --drop-cols);"
                             f" found {', '.join(map(repr, df.columns))}", source=source)
        df = df.drop(columns=list(dict.fromkeys(drop)))
        pre_notes.append(f"column{'s' if len(drop) > 1 else ''} left out as asked (--drop-cols):"
                         f" {', '.join(dict.fromkeys(drop))}")
    cluster_auto = cluster_col is None
    if cluster_col is None and "cluster" in df.columns:
        cluster_col = "cluster"
    for name, col in (("cluster_col", cluster_col),):
        if col is not None and col not in df.columns:
            raise InputError(f"no column '{col}' (given as {name}); found {', '.join(map(repr, df.columns))}",
                             source=source)
    default_task = task or (Path(data).name.split(".")[0] if not isinstance(data, pd.DataFrame) else "task")

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
    if shape == "long":
        original = list(df.columns)
        mapping = _role_mapping(
            [("model", model_col, False), ("task", task_col, False), ("item", item_col, False),
             ("score", score_col, False), ("trial", trial_col, trial_col == "trial"),
             ("cluster", cluster_col, cluster_auto), ("group", group_col, group_col == "group")], df.columns, source)
        df = _rename(df, mapping, source)
        notes = list(pre_notes)
        missing = [c for c in (item_col, score_col) if c not in original]
        if model_col not in original and (missing or model_col != "model"):
            missing.insert(0, model_col)  # a file without any model column is one model's results (below)
        if missing:
            raise InputError(f"missing column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))};"
                             f" found {', '.join(map(repr, original))} (map names with --model-col, --item-col,"
                             " --score-col, ...)", source=source)
        if "task" not in df.columns:
            df["task"] = default_task
            notes.append(f"no '{task_col}' column: one task named '{default_task}'")
        if "model" not in df.columns and model_col == "model":  # one model's log (e.g. tau-bench rewards)
            df["model"] = default_task
            notes.append(f"no '{model_col}' column: one model named '{default_task}'")
        return ResultsTable.from_items(df, source=source, unbounded=unbounded, row_word=row_word, notes=notes)
    if shape == "summary":
        mapping = _role_mapping(
            [("model", model_col, False), ("task", task_col, False), ("n", n_col, False),
             ("correct", correct_col, correct_col == "correct"), ("accuracy", accuracy_col, accuracy_col == "accuracy"),
             ("group", group_col, group_col == "group")], df.columns, source)
        df = _rename(df, mapping, source)  # with both correct and accuracy, from_summary checks they agree
        return ResultsTable.from_summary(df, source=source, count_rule=count_rule, accuracy_scale=accuracy_scale,
                                         row_word=row_word, notes=pre_notes)
    if shape == "wide":
        return _from_wide(df, source, row_word, item_col=item_col, task_col=task_col, group_col=group_col,
                          cluster_col=cluster_col, models=models, task=default_task, unbounded=unbounded,
                          notes=pre_notes)
    raise ValueError(f"`shape` must be one of 'auto', 'long', 'wide', 'summary'; got {shape!r}.")


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
               notes=()):
    if item_col not in df.columns:
        raise InputError(f"wide shape needs an item column '{item_col}' (set --item-col)", source=source)
    id_cols = [c for c in (item_col, task_col, group_col, cluster_col) if c is not None and c in df.columns]
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
    return ResultsTable.from_items(long, source=source, unbounded=unbounded, row_word=row_word, notes=notes)
