"""Pairwise battles in column layouts (CSV, TSV, JSON Lines, Parquet, DataFrame), and the battle reader dispatcher.

A battle table has a column for each side and one for the winner:

* sides: ``model_a`` / ``model_b`` (Chatbot Arena), or ``left`` / ``right`` (evalica, LLMFAO);
* ``winner``: ``model_a`` / ``model_b`` / ``tie`` / ``tie (bothbad)`` (Chatbot Arena), ``a`` / ``b`` / ``tie``,
  ``left`` / ``right`` / ``tie`` (evalica, LLMFAO), the winning model's name, or a number in [0, 1] (the
  probability that A wins: 1, 0, 0.5 for a tie, or a weighted preference);
* optional: ``question_id`` (or ``question``, ``prompt_id``, ``prompt``, ``uid``), ``judge`` (or ``worker``,
  ``annotator``), ``turn``, ``cluster``, ``weight``, and style features as numeric column pairs ``NAME_a`` /
  ``NAME_b`` (found automatically) or single difference columns named with ``style_cols=``.

Column names match regardless of case; ``*_col`` options map other names. :func:`read_battles` also reads
Chatbot Arena / FastChat clean battles, Arena-Hard judgments and AlpacaEval annotations
(:mod:`evalband.io.arena_formats`), telling them apart by their fields; :func:`looks_like_battles` is the cheap
test the results reader can use to send a file here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from .._cells import check_cells, nested_cells
from .._validate import ArgumentError, ArgumentTypeError, InputError
from ..data.battles import BattleTable
from ._columns import find_column
from .tabular import STDIN, TABULAR_SUFFIXES, load_frame
from ..display.notes import NoteKind
from .._words import words

__all__ = ["read_battles", "looks_like_battles", "battles_from_frame", "BATTLE_SOURCES", "WINNER_VALUES"]

BATTLE_SOURCES = ("auto", "columns", "fastchat", "arena-hard", "alpaca-eval")

#: candidate column names of each role, in order of preference (matched regardless of case)
ROLES = {
    "model_a": ("model_a", "left"),
    "model_b": ("model_b", "right"),
    "winner": ("winner",),
    "question": ("question_id", "question", "prompt_id", "prompt", "uid"),
    "judge": ("judge", "worker", "annotator"),
    "turn": ("turn",),
    "cluster": ("cluster",),
    "weight": ("weight",),
}
#: winner words: -> probability that A wins
WINNER_VALUES = {"model_a": 1.0, "a": 1.0, "left": 1.0, "model_b": 0.0, "b": 0.0, "right": 0.0,
                 "tie": 0.5, "tie (bothbad)": 0.5, "draw": 0.5}


def _find(columns, role, explicit, source):
    cols = [str(c) for c in columns]
    if explicit is not None:
        return find_column(cols, explicit, role, source)
    for name in ROLES[role]:
        same = [c for c in cols if c.casefold() == name]
        if len(same) > 1:
            raise InputError(f"columns {' and '.join(map(repr, same))} differ only by case; name the one to use"
                             f" with {role}_col=", source=source)
        if same:
            return same[0]
    return None


def _row(index_label, row_word):
    return str(index_label) if row_word == "at" else f"{row_word} {index_label}"


def parse_winner(winner: pd.Series, model_a: np.ndarray, model_b: np.ndarray, *, source: str, row_word: str,
                 column: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Outcome (probability that A wins), declared ties and the number of 'tie (bothbad)' from a winner column."""
    if pd.api.types.is_bool_dtype(winner):
        raise InputError("winner holds true/false; give model_a/model_b/tie, the winner's name or a probability",
                         source=source, column=column)
    winner = _numbers_if_all(winner)  # text read as written: a column of numbers is numbers
    if pd.api.types.is_numeric_dtype(winner):
        y = winner.to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~(np.isfinite(y) & (y >= 0) & (y <= 1)))
        if bad.size:
            what = "a blank winner" if np.isnan(y[bad[0]]) else f"winner {float(y[bad[0]])!r} is not a probability in" \
                " [0, 1]"
            raise InputError(f"{what} ({bad.size:,} such row{'s' if bad.size > 1 else ''}); a numeric winner"
                             " is the probability that A wins", source=source,
                             row=_row(winner.index[bad[0]], row_word), column=column)
        return y, y == 0.5, 0
    text = winner.astype("string").str.strip()
    blank = text.isna().to_numpy() | (text.fillna("") == "").to_numpy()
    low = text.str.lower().fillna("")
    y = low.map(WINNER_VALUES).to_numpy(dtype=np.float64, na_value=np.nan).copy()
    raw = text.fillna("").to_numpy(dtype=object)
    todo = np.isnan(y) & ~blank
    y[todo & (raw == model_a)] = 1.0
    y[todo & (raw == model_b) & (raw != model_a)] = 0.0
    todo = np.isnan(y) & ~blank
    if todo.any():
        num = pd.to_numeric(pd.Series(raw[todo]), errors="coerce").to_numpy(dtype=np.float64)
        ok = (num >= 0) & (num <= 1)
        y[np.flatnonzero(todo)[ok]] = num[ok]
    bad = np.flatnonzero(np.isnan(y))
    if bad.size:
        value = raw[bad[0]]
        shown = "a blank winner" if blank[bad[0]] else f"winner {value!r}"
        raise InputError(f"{shown} is none of model_a, model_b, tie, tie (bothbad), a, b, left, right, the name of"
                         f" one of the two models, or a probability in [0, 1] ({bad.size:,} such"
                         f" row{'s' if bad.size > 1 else ''})", source=source,
                         row=_row(winner.index[bad[0]], row_word), column=column)
    tie = (low.isin([k for k, v in WINNER_VALUES.items() if v == 0.5])).to_numpy() | (y == 0.5)
    bothbad = int((low == "tie (bothbad)").sum())
    return y, tie, bothbad


def _numbers_if_all(col: pd.Series) -> pd.Series:
    """A text column whose every non-blank cell is a number, as numbers (readers keep text as written); any
    other column unchanged."""
    if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        return col
    text = col.astype("string").str.strip()
    present = text.notna() & (text != "")
    values = pd.to_numeric(text.where(present), errors="coerce")
    if present.any() and values[present].notna().all():
        return values.astype(np.float64)
    return col


def _partner(column, columns):
    """The other column of a pair NAME_a / NAME_b (regardless of case) among ``columns``, or None."""
    name = str(column).lower()
    if not name.endswith(("_a", "_b")):
        return None
    want = name[:-2] + ("_b" if name.endswith("_a") else "_a")
    return next((c for c in columns if str(c).lower() == want), None)


def _features(frame, used, style_cols, source, row_word="row"):
    """Style features: numeric NAME_a / NAME_b pairs (found automatically) and columns named in ``style_cols``.

    Nested cells (objects, lists) are refused in a column named in ``style_cols`` and in a column of a pair whose
    other cells are numbers; a pair of columns of nested values only (FastChat's ``conversation_a`` / ``_b``) is
    no feature, and a note says so. Returns (features, their columns, notes)."""
    named = {str(n).strip().casefold() for n in ([style_cols] if isinstance(style_cols, str) else style_cols or [])}
    nested = {c: bad for c in frame.columns if c not in used and (bad := nested_cells(frame[c])).size}
    for c, bad in nested.items():
        partner = _partner(c, frame.columns)
        # the pair's other cells: numbers (a feature with bad cells) or not (objects, text: no feature)
        rest = [frame[c].drop(frame.index[bad])]
        if partner is not None and partner not in used:
            rest.append(frame[partner].drop(frame.index[nested.get(partner, [])]))
        rest = pd.concat(rest)
        numbers = partner is not None and rest.notna().any() and pd.api.types.is_numeric_dtype(_numbers_if_all(rest))
        if str(c).casefold() in named or numbers:
            check_cells(frame[c], "style feature", source=source, column=str(c), expected="a number",
                        where=lambda pos, c=c: _row(frame.index[pos], row_word))
    pairs = sorted({"/".join(sorted((str(c), str(p)))) for c in nested if (p := _partner(c, nested)) is not None})
    notes = [f"column{'s' if len(pairs) > 1 else ''} {', '.join(pairs)} hold objects or lists, not numbers: not"
             " read as style features"] if pairs else []
    frame = frame.drop(columns=list(nested)).apply(_numbers_if_all)
    cols = [str(c) for c in frame.columns]
    out, columns = {}, {}
    numeric = {c for c in cols if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])}
    for c in cols:
        if c in used or not c.lower().endswith("_a"):
            continue
        partner = next((p for p in cols if p.lower() == c[:-2].lower() + "_b"), None)
        if partner and partner not in used and c in numeric and partner in numeric:
            out[c[:-2]] = np.column_stack([frame[c].to_numpy(dtype=np.float64), frame[partner].to_numpy(np.float64)])
            columns[c[:-2]] = f"{c}/{partner}"
    for name in ([style_cols] if isinstance(style_cols, str) else list(style_cols or [])):
        name = str(name).strip()
        if name in out:
            continue
        match = [c for c in cols if c.casefold() == name.casefold()]
        if not match:
            raise InputError(f"no style column {name!r} (nor a pair {name}_a/{name}_b); columns:"
                             f" {', '.join(map(repr, cols))}", source=source)
        values = pd.to_numeric(frame[match[0]], errors="coerce")
        bad = np.flatnonzero(values.isna().to_numpy())
        if bad.size:
            raise InputError(f"style column {match[0]!r} holds {frame[match[0]].iloc[bad[0]]!r}, not a number",
                             source=source, row=str(frame.index[bad[0]]), column=match[0])
        out[name] = values.to_numpy(dtype=np.float64)
        columns[name] = match[0]
    return out, columns, notes


NOTE_TIE_BOTHBAD_BATTLES_COUNTED = NoteKind('io.tie-bothbad-battles-counted', 'info',
                                             "{bothbad:,} 'tie (bothbad)' battles counted as ties")
NOTE_STYLE_FEATURES = NoteKind('io.style-features', 'info',
                                'style features: {value} (read from the battles; the ratings control only for'
                                ' the ones `{arg:style}` names)')


def battles_from_frame(frame: pd.DataFrame, *, source: str = "<DataFrame>", row_word: str = "row",
                       model_a_col=None, model_b_col=None, winner_col=None, question_col=None, judge_col=None,
                       turn_col=None, cluster_col=None, weight_col=None, style_cols=None, notes=()) -> BattleTable:
    """A :class:`~evalband.preferences.BattleTable` from a DataFrame in a column layout (see the module docs).

    ``frame.index`` holds the row labels used in messages (file lines for text files).
    """
    if frame.shape[0] == 0:
        raise InputError("holds no battles (no rows)", source=source)
    found = {}
    for role, explicit in (("model_a", model_a_col), ("model_b", model_b_col), ("winner", winner_col),
                           ("question", question_col), ("judge", judge_col), ("turn", turn_col),
                           ("cluster", cluster_col), ("weight", weight_col)):
        found[role] = _find(frame.columns, role, explicit, source)
    missing = [r for r in ("model_a", "model_b", "winner") if found[r] is None]
    if missing:
        raise InputError(words('not a battle table: no {value} column (looked for {value2}); columns: {value3}; map them with {arg:model_a_col=}, {arg:model_b_col=}, {arg:winner_col=}', value=', '.join(missing), value2='; '.join(' / '.join(ROLES[r]) for r in missing), value3=', '.join(map(repr, map(str, frame.columns)))), source=source)
    expected = {"winner": "model_a, model_b, tie, a model's name or a probability", "weight": "a number"}
    for role, col in found.items():  # before any cell is turned into text
        if col is not None:
            check_cells(frame[col], role, source=source, where=lambda pos: _row(frame.index[pos], row_word),
                        column=col, expected=expected.get(role, "text or a number"))
    a = frame[found["model_a"]].astype("string").str.strip().to_numpy(dtype=object, na_value=None)
    b = frame[found["model_b"]].astype("string").str.strip().to_numpy(dtype=object, na_value=None)
    for role, arr in (("model_a", a), ("model_b", b)):
        blank = np.flatnonzero(pd.isna(arr) | (arr == ""))
        if blank.size:
            raise InputError(f"no model name ({blank.size:,} row{'s' if blank.size > 1 else ''} without one)",
                             source=source, row=_row(frame.index[blank[0]], row_word), column=found[role])
    y, tie, bothbad = parse_winner(frame[found["winner"]], a, b, source=source, row_word=row_word,
                                   column=found["winner"])
    notes = list(notes)
    if bothbad:
        notes.append(NOTE_TIE_BOTHBAD_BATTLES_COUNTED(bothbad=bothbad))
    labels = {}
    for role in ("question", "judge", "cluster", "turn"):
        col = found[role]
        if col is not None:
            labels[role] = frame[col].astype("string").to_numpy(dtype=object, na_value=None)
    weight = None
    if found["weight"] is not None:
        weight = pd.to_numeric(_numbers_if_all(frame[found["weight"]]), errors="coerce").to_numpy(dtype=np.float64)
    used = {v for v in found.values() if v is not None}
    features, fcols, more = _features(frame, used, style_cols, source, row_word)
    notes += more
    if features:
        notes.append(NOTE_STYLE_FEATURES(value=', '.join(f'{k} ({v})' for k, v in fcols.items())))
    columns = {k: v for k, v in found.items() if v is not None}
    columns.update(fcols)
    return BattleTable.build(a, b, y, tie=tie, weight=weight, labels=labels, features=features, source=source,
                             rows=frame.index.to_numpy(dtype=object), row_word=row_word, notes=notes,
                             columns=columns)


# ---------------------------------------------------------------------------------------------- dispatch
def _json_records(path: Path):
    """Records of a JSON array file, or of a JSON Lines file, with their record/line numbers."""
    text = path.read_text(encoding="utf-8-sig")
    head = text.lstrip()[:1]
    if head == "[":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"is not valid JSON: {exc.msg} (line {exc.lineno})", source=str(path)) from None
        if not all(isinstance(r, dict) for r in data):
            raise InputError("is a JSON array whose entries are not all records (objects)", source=str(path))
        return data, [f"record {i}" for i in range(1, len(data) + 1)]
    records, where = [], []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"is not valid JSON Lines: {exc.msg}", source=str(path), row=f"line {n}") from None
        if not isinstance(rec, dict):
            raise InputError("holds a JSON value that is not a record (object)", source=str(path), row=f"line {n}")
        records.append(rec)
        where.append(f"line {n}")
    return records, where


def _kind_of_keys(keys) -> str | None:
    keys = {str(k).lower() for k in keys}
    if {"generator_1", "generator_2", "preference"} <= keys:
        return "alpaca-eval"
    if "games" in keys and "model" in keys:
        return "arena-hard"
    if {"model_a", "model_b", "winner"} <= keys and ("conv_metadata" in keys or "conversation_a" in keys
                                                      or "anony" in keys):
        return "fastchat"
    if ({"model_a", "model_b"} <= keys or {"left", "right"} <= keys) and "winner" in keys:
        return "columns"
    return None


def _first_keys(path: Path):
    """The keys of the first record of a JSON or JSON Lines file, from its first 64 KB (or None)."""
    with open(path, "rb") as fh:
        head = fh.read(65536).decode("utf-8-sig", errors="ignore")
    start = head.lstrip()
    if start.startswith("["):
        start = start[1:].lstrip()
    if not start.startswith("{"):
        return None
    try:  # a whole first record within the head
        rec, _ = json.JSONDecoder().raw_decode(start)
        return list(rec) if isinstance(rec, dict) else None
    except json.JSONDecodeError:  # a long first record: the keys seen in the head
        import re

        return re.findall(r'"([A-Za-z_0-9 ]+)"\s*:', start)


def _expand(data) -> list[Path]:
    if isinstance(data, (list, tuple)):
        out = []
        for entry in data:
            out.extend(_expand(entry))
        return out
    path = Path(data)
    if path.is_dir():
        files = sorted(list(path.glob("*.jsonl")) + list(path.glob("*.json")) + list(path.glob("*/*/annotations.json")))
        if not files:
            raise InputError("is a folder without .json or .jsonl battle files", source=str(path))
        return files
    if not path.exists():
        raise InputError("no such file", source=str(path))
    return [path]


def _detect_path(path: Path) -> str:
    suffix = [s.lower() for s in path.suffixes]
    suffix = suffix[-2] if suffix and suffix[-1] in (".gz", ".bz2", ".xz", ".zst") and len(suffix) > 1 else \
        (suffix[-1] if suffix else "")
    if suffix in (".json", ".jsonl", ".ndjson") and not path.name.endswith((".gz", ".bz2", ".xz", ".zst")):
        return _kind_of_keys(_first_keys(path) or []) or "columns"
    return "columns"


def read_battles(data, *, source: str = "auto", model_a_col=None, model_b_col=None, winner_col=None,
                 question_col=None, judge_col=None, turn_col=None, cluster_col=None, weight_col=None,
                 style_cols=None, file_format: str = "auto", baseline: str | None = None,
                 **format_options) -> BattleTable:
    """Read pairwise battles from a file, a folder or list of files, or a DataFrame.

    Parameters
    ----------
    data : str, os.PathLike, list, pandas.DataFrame or BattleTable
        A battle table in a column layout (CSV, TSV, JSON Lines, Parquet, ``-`` for standard input), a Chatbot
        Arena / FastChat clean battles JSON, Arena-Hard judgment JSONL files (a file, a list, or their folder),
        AlpacaEval ``annotations.json`` files (a file or a list), or a DataFrame of any of these.
    source : {'auto', 'columns', 'fastchat', 'arena-hard', 'alpaca-eval'}
        'auto' tells them apart by their fields.
    model_a_col, model_b_col, winner_col, question_col, judge_col, turn_col, cluster_col, weight_col : str
        Column names for the column layouts (defaults: see the module docs).
    style_cols : str or list of str
        Style feature columns that are differences A - B (pairs NAME_a / NAME_b are found automatically).
    file_format : str
        For column layouts: 'csv', 'tsv', 'jsonl', 'parquet' (default by suffix).
    baseline : str, optional
        The baseline model of Arena-Hard judgments (the files do not name it); ignored by the other sources.
    **format_options
        Arena-Hard: ``strong_weight=3``; FastChat: ``anonymous_only=True``.

    Returns
    -------
    BattleTable

    Raises
    ------
    InputError
        Naming the file, row (line or record) and field: missing columns, unknown winner values, self-battles,
        empty input.

    Examples
    --------
    >>> import pandas as pd
    >>> t = read_battles(pd.DataFrame({"left": ["x", "y"], "right": ["y", "z"], "winner": ["left", "tie"]}))
    >>> t.models, t.outcome.tolist()
    (('x', 'y', 'z'), [1.0, 0.5])
    """
    from . import arena_formats

    if isinstance(data, BattleTable):
        return data
    if source not in BATTLE_SOURCES:
        raise ArgumentError(words('`{arg:source}` must be one of {value}; got {source!r}.', value=', '.join(map(repr, BATTLE_SOURCES)), source=source))
    cols = dict(model_a_col=model_a_col, model_b_col=model_b_col, winner_col=winner_col,
                question_col=question_col, judge_col=judge_col, turn_col=turn_col, cluster_col=cluster_col,
                weight_col=weight_col, style_cols=style_cols)
    if isinstance(data, pd.DataFrame):
        kind = _kind_of_keys(data.columns) if source == "auto" else source
        if kind in ("alpaca-eval", "arena-hard", "fastchat"):
            records = data.to_dict("records")
            where = [f"row {i}" for i in data.index]
            if kind == "arena-hard":
                format_options["baseline"] = baseline
            return arena_formats.READERS[kind](records, where, "<DataFrame>", **format_options, **_only(cols))
        frame = data.copy()
        return battles_from_frame(frame, source="<DataFrame>", row_word="row", **cols)
    if not isinstance(data, (str, os.PathLike, list, tuple)):
        raise ArgumentTypeError(f"`data` must be a path, a list of paths, a DataFrame or a BattleTable; got"
                        f" {type(data).__name__}.")
    if isinstance(data, str) and data == STDIN:
        frame, src, row_word, read_notes = load_frame(data, file_format=file_format)
        return battles_from_frame(frame, source=src, row_word=row_word, notes=read_notes, **cols)
    files = _expand(data)
    kinds = [source if source != "auto" else _detect_path(f) for f in files]
    if len(set(kinds)) > 1:
        raise InputError(f"the files hold different battle formats ({', '.join(sorted(set(kinds)))}); read them"
                         " one format at a time", source=str(data))
    kind = kinds[0]
    if kind == "columns":
        if len(files) > 1:
            raise InputError("several files of a column layout: concatenate them first (or read each)",
                             source=str(data))
        frame, src, row_word, read_notes = load_frame(files[0], file_format=file_format)
        return battles_from_frame(frame, source=src, row_word=row_word, notes=read_notes, **cols)
    records, where = [], []
    for f in files:
        recs, w = _json_records(f)
        records.extend(recs)
        where.extend(w if len(files) == 1 else [f"{f.name} {x}" for x in w])
    folder = os.path.commonpath([str(f.parent) for f in files])
    src = str(files[0]) if len(files) == 1 else f"{len(files)} files in {folder}"
    if not records:
        raise InputError("holds no records", source=src)
    if kind == "arena-hard":
        format_options["baseline"] = baseline
    return arena_formats.READERS[kind](records, where, src, **format_options, **_only(cols))


def _only(cols: dict) -> dict:
    """Column options that a format reader accepts (the column layout's names do not apply to it)."""
    given = {k: v for k, v in cols.items() if v is not None}
    allowed = {"style_cols"}
    extra = set(given) - allowed
    if extra:
        raise ArgumentTypeError(f"{', '.join(sorted(extra))} apply to column layouts, not to this battle format.")
    return {k: v for k, v in given.items() if k in allowed}


def looks_like_battles(path_or_frame) -> bool:
    """Whether a file or DataFrame holds pairwise battles (cheap: a header, a first record, a schema).

    True for the column layouts (``model_a``/``model_b`` or ``left``/``right`` with ``winner``), Chatbot Arena
    clean battles, Arena-Hard judgments and AlpacaEval annotations.

    Examples
    --------
    >>> import pandas as pd
    >>> looks_like_battles(pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "winner": ["tie"]}))
    True
    >>> looks_like_battles(pd.DataFrame({"model": ["x"], "task": ["t"], "item": [1], "score": [1]}))
    False
    """
    try:
        if isinstance(path_or_frame, BattleTable):
            return True
        if isinstance(path_or_frame, pd.DataFrame):
            return _kind_of_keys(path_or_frame.columns) is not None
        if isinstance(path_or_frame, (list, tuple)):
            return bool(path_or_frame) and all(looks_like_battles(p) for p in path_or_frame)
        path = Path(path_or_frame)
        if path.is_dir():
            files = sorted(path.glob("*.jsonl"))[:1] + sorted(path.glob("*/*/annotations.json"))[:1]
            return bool(files) and looks_like_battles(files[0])
        if not path.is_file():
            return False
        suffixes = [s.lower() for s in path.suffixes]
        if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz", ".zst"):
            return False
        kind = TABULAR_SUFFIXES.get(suffixes[-1] if suffixes else "")
        if kind in ("json", "jsonl"):
            return _kind_of_keys(_first_keys(path) or []) is not None
        if kind == "parquet":
            import pyarrow.parquet as pq

            return _kind_of_keys(pq.read_schema(path).names) is not None
        if kind in ("csv", "tsv"):
            with open(path, encoding="utf-8-sig", errors="ignore") as fh:
                header = fh.readline()
            sep = "\t" if kind == "tsv" else ","
            import csv

            names = next(csv.reader([header], delimiter=sep), [])
            return _kind_of_keys([n.strip() for n in names]) is not None
    except Exception:  # a detector never raises: the file goes to another reader, which says what is wrong
        return False
    return False
