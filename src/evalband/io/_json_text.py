"""JSON Lines and JSON tables as bytes: every message names the line (or record), numbers keep their spelling
(:class:`evalband.data.labels.JSONFloat`), a key twice in one record is an error rather than the last one winning,
and records become a frame of Python objects (an integer beside a null stays an exact integer). The text side
(compression, encodings, strict headers) is :mod:`evalband.io._text`."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..data.labels import JSONFloat
from .._validate import InputError
from ..display.notes import NoteKind
from ._text import Raw, utf8_problem

__all__ = ["read_json_lines", "read_json_table"]


class _DuplicateKey(ValueError):
    pass


def _no_duplicate_keys(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


_DECODER = json.JSONDecoder(parse_float=JSONFloat, object_pairs_hook=_no_duplicate_keys)


def _loads(text):
    """JSON with numbers keeping their spelling; a key given twice in one object raises _DuplicateKey (JSON keeps
    the last silently, as a header with a column named twice would)."""
    return _DECODER.decode(text)


def _kind(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")


def read_json_lines(raw: Raw, source: str) -> pd.DataFrame:
    """A JSON Lines table (one object per line), indexed by file line; cells keep JSON's values (numbers with
    their spelling). A line that is not an object, not JSON or cut off is named."""
    data = raw.all()
    if not data.strip():
        raise InputError("is empty", source=source)
    parts = data.split(b"\n")
    lines = [i + 1 for i, p in enumerate(parts) if p.strip()]
    try:  # the whole file in one decoder call; any problem: line by line below, to name the line
        records = _loads("[" + ",".join(parts[i - 1].decode("utf-8") for i in lines) + "]")
        if len(records) == len(lines) and all(isinstance(r, dict) for r in records):
            return _frame(records, np.asarray(lines), source)
    except (ValueError, RecursionError, UnicodeDecodeError):
        pass
    records, lines = [], []
    last = max(i for i, p in enumerate(parts) if p.strip())
    for i, part in enumerate(parts):
        if not part.strip():
            continue
        try:
            record = _loads(part.decode("utf-8"))
        except UnicodeDecodeError:
            raise utf8_problem(data, source) from None
        except json.JSONDecodeError as exc:
            cut = i == last and not data.rstrip(b"\r").endswith(b"\n")
            raise InputError(("is cut off: the file looks truncated" if cut else "is not valid JSON")
                             + f" ({exc.msg}, column {exc.colno})", source=source, row=f"line {i + 1}") from None
        except RecursionError:
            raise InputError("JSON nested too deeply", source=source, row=f"line {i + 1}") from None
        except _DuplicateKey as exc:
            raise InputError(f"key '{exc}' appears twice in one record; every field needs its own name",
                             source=source, row=f"line {i + 1}") from None
        if not isinstance(record, dict):
            raise InputError(f"holds {_kind(record)}, not an object; each line of a JSON Lines table is one record"
                             " {\"model\": ..., \"score\": ...}", source=source, row=f"line {i + 1}")
        records.append(record)
        lines.append(i + 1)
    return _frame(records, np.asarray(lines), source)


NOTE_ROWS_NAMED_KEYS_PANDAS = NoteKind(
    'io.rows-named-keys-pandas', 'caveat',
    '{source}: the rows are named by keys ({value}{value2}; a pandas index), not read as a column; rows are '
    'counted in their order')


def read_json_table(raw: Raw, source: str) -> tuple[pd.DataFrame, str]:
    """A JSON table: an array of records (rows named 'record k') or an object of columns (rows 'row k')."""
    data = raw.all()
    if not data.strip():
        raise InputError("is empty", source=source)
    try:
        doc = _loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise utf8_problem(data, source) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"is not valid JSON ({exc.msg}, column {exc.colno}); is the file truncated?",
                         source=source, row=f"line {exc.lineno}") from None
    except RecursionError:
        raise InputError("JSON nested too deeply", source=source) from None
    except _DuplicateKey as exc:
        raise InputError(f"key '{exc}' appears twice in one record; every field needs its own name",
                         source=source) from None
    if isinstance(doc, list):
        bad = [k for k, r in enumerate(doc) if not isinstance(r, dict)]
        if bad:
            raise InputError(f"record {bad[0] + 1} is {_kind(doc[bad[0]])}, not an object; a JSON table is an array"
                             " of records [{\"model\": ..., \"score\": ...}, ...]", source=source)
        return _frame(doc, np.arange(1, len(doc) + 1), source), "record"
    if isinstance(doc, dict) and doc and all(isinstance(v, (list, dict)) for v in doc.values()):
        if all(isinstance(v, dict) for v in doc.values()):  # pandas' to_json(): {column: {row key: value}}
            cols, keys = _by_row_key(doc, source)
            frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in cols.items()})
            frame.index = np.arange(1, len(keys) + 1)
            if list(keys) != [str(k) for k in range(len(keys))]:
                raw.notes.append(NOTE_ROWS_NAMED_KEYS_PANDAS(source=source, value=', '.join(keys[:3]), value2=' ...' if len(keys) > 3 else ''))
            return frame, "row"
        cols = {k: (list(v.values()) if isinstance(v, dict) else v) for k, v in doc.items()}
        sizes = {len(v) for v in cols.values()}
        if len(sizes) > 1:
            raise InputError(f"its columns have different lengths ({', '.join(map(str, sorted(sizes)))})",
                             source=source)
        n = sizes.pop()
        frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in cols.items()})
        frame.index = np.arange(1, n + 1)
        return frame, "row"
    raise InputError(f"holds {_kind(doc)}; a JSON table is an array of records or an object of columns",
                     source=source)


def _by_row_key(doc: dict, source: str) -> tuple[dict, list]:
    """Columns written as objects of row keys (pandas' ``to_json()``): each column's values in the order of the
    first column's keys (so that a column written in another order is not shifted); a key one column has and
    another lacks is an error naming both."""
    names = list(doc)
    keys = list(doc[names[0]])
    for name in names[1:]:
        have = doc[name]
        if len(have) != len(keys) or any(k not in have for k in keys):
            extra = next((k for k in have if k not in doc[names[0]]), None)
            lacking = next((k for k in keys if k not in have), None)
            what = (f"has row {extra!r}, which column {names[0]!r} lacks" if extra is not None else
                    f"lacks row {lacking!r}, which column {names[0]!r} has")
            raise InputError(f"column {name!r} {what}; every column needs the same rows", source=source,
                             column=str(name))
    return {name: [doc[name][k] for k in keys] for name in names}, keys


def _frame(records: list, index: np.ndarray, source: str) -> pd.DataFrame:
    """Records as a frame of Python objects (columns in order of first appearance; an absent key is missing), so
    that an integer beside a null stays an exact integer rather than a float."""
    if not records:
        raise InputError("holds no record", source=source)
    columns = list(dict.fromkeys(k for r in records for k in r))
    frame = pd.DataFrame({c: pd.Series([r.get(c) for r in records], dtype=object) for c in columns})
    frame.index = index
    return frame
