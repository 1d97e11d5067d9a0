"""Shared plumbing of the harness readers: which files a path names, what kind of log each is, and safe parsing.

A harness reader (lm-eval, inspect_ai, HELM, rliable, CRUXEval) accepts one log file, a folder (searched
recursively), a glob such as ``"logs/**/*.eval"`` or a list of these, and turns every log it finds into rows of one
long table.
This module

* expands such an argument into files (:func:`expand`) and names each file's kind (:func:`classify`), so that
  ``source='auto'`` can pick a reader and refuse a folder that mixes kinds (:func:`detect`);
* parses JSON and JSON Lines with errors that name the file and line (:func:`load_json`, :func:`iter_jsonl`) and
  checks the type of every field it reads (:func:`field`), so that truncated files, malformed lines, wrong types
  and missing keys end in one :class:`~evalband._validate.InputError`, never a traceback;
* collects what was skipped and why (:class:`Skipped`), for ``ResultsTable.notes``;
* builds the table from the rows (:func:`build_table`).
"""

from __future__ import annotations

import glob as _glob
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.labels import JSONFloat, label_text
from .._validate import ArgumentError, ArgumentTypeError, InputError, MissingExtraError
from ..data.table import ResultsTable
from ._text import utf8_problem
from .._words import words
from ..display.notes import NoteKind

__all__ = ["expand", "input_files", "classify", "detect", "load_json", "iter_jsonl", "field", "Skipped", "build_table",
           "check_tabular_unused", "places", "HARNESS_SOURCES"]

#: harness sources that a folder or glob may hold
HARNESS_SOURCES = ("lm-eval", "inspect", "helm", "rliable", "cruxeval")
_HELM_FILES = {"per_instance_stats.json", "run_spec.json", "stats.json", "scenario.json", "scenario_state.json",
               "instances.json", "display_predictions.json", "display_requests.json"}
_GLOB_CHARS = re.compile(r"[*?\[]")
_PEEK = 4096


def _is_glob(text: str) -> bool:
    return bool(_GLOB_CHARS.search(text)) and not Path(text).exists()


def expand(data, *, hidden: list | None = None) -> tuple[str, list[Path]]:
    """Turn a file, folder, glob or list of these into a sorted list of files.

    Files and folders whose names start with '.' inside a folder are not read (``.DS_Store``, ``.git``,
    ``.ipynb_checkpoints``); ``hidden``, when given, gets them (folders are not searched), for a note.

    Returns
    -------
    source, files : str, list of Path
        ``source`` names the argument in messages (the path or pattern as given).
    """
    if isinstance(data, (list, tuple)):
        if not data:
            raise InputError("an empty list of log paths")
        files: list[Path] = []
        for item in data:
            files.extend(expand(item, hidden=hidden)[1])
        return f"{len(data)} paths", sorted(set(files))
    if not isinstance(data, (str, os.PathLike)):
        raise ArgumentTypeError(f"`data` must be a path, a glob or a list of paths; got {type(data).__name__}.")
    text = os.fspath(data)
    if _is_glob(text):
        found = [Path(p) for p in _glob.glob(text, recursive=True)]
        files = []
        for p in found:
            files.extend(_walk(p, hidden) if p.is_dir() else [p])
        if not files:
            raise InputError("the pattern matches no file", source=text)
        return text, sorted(set(files))
    path = Path(text)
    if not path.exists():
        raise InputError("no such file or folder", source=text)
    if path.is_dir():
        files = _walk(path, hidden)
        if not files:
            seen = [] if hidden is None else hidden
            raise InputError("the folder holds no file" + (f" but hidden ones ({', '.join(p.name for p in seen[:5])})"
                                                            if seen else ""), source=text)
        return text, files
    return text, [path]


def input_files(*specs) -> list[Path]:
    """The existing files named by input arguments: paths, globs, folders (searched), lists of them, and
    ``@FILE`` lists of names. Standard input (``-``), ``None`` and names that match nothing are skipped."""
    out: list[Path] = []
    for spec in specs:
        if spec is None:
            continue
        if isinstance(spec, (list, tuple)):
            out += input_files(*spec)
            continue
        text = os.fspath(spec)
        if text == "-":
            continue
        if text.startswith("@") and Path(text[1:]).is_file():
            out.append(Path(text[1:]))
            continue
        try:
            out += expand(text)[1]
        except (InputError, ArgumentTypeError):  # a name that matches nothing is the reader's business
            continue
    return out


def _walk(folder: Path, hidden: list | None = None) -> list[Path]:
    """The files below ``folder``, sorted; names starting with '.' are left out (and added to ``hidden``)."""
    out = []
    for root, dirs, names in os.walk(folder):
        if hidden is not None:
            hidden.extend(Path(root) / d for d in sorted(dirs) if d.startswith("."))
            hidden.extend(Path(root) / n for n in sorted(names) if n.startswith("."))
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out.extend(Path(root) / n for n in sorted(names) if not n.startswith("."))
    return out


def _peek(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(_PEEK).decode("utf-8", errors="replace")
    except OSError:
        return ""


# the stored pass@k may come first (keys sorted, e.g. by `jq -S` or json.dump(sort_keys=True))
_CRUXEVAL_HEAD = re.compile(r'^\s*\{\s*(?:"pass_at_\d+"\s*:\s*[-+\d.eE]+\s*,\s*)*"raw_(scored_)?generations"\s*:\s*\{')
_RLIABLE_HEAD = re.compile(r'^\s*\{\s*"[^"]*"\s*:\s*(\[\s*[-+\d.eEnNaIf\]]|\{\s*"[^"]*"\s*:\s*\[)')


def classify(path: Path) -> str | None:
    """Name the kind of log a file is ('lm-eval', 'inspect', 'helm', 'rliable', 'cruxeval'), or None otherwise.

    Decided from the name and, for other ``.json`` files, the first few kilobytes (a whole large log is not
    parsed just to classify it).
    """
    name = path.name
    lower = name.lower()
    if lower.endswith(".eval"):
        return "inspect"
    if re.fullmatch(r"results_.*\.json", name) or re.fullmatch(r"samples_.*\.jsonl", name):
        return "lm-eval"
    if name in _HELM_FILES:
        return "helm" if (path.parent / "run_spec.json").exists() else None
    if lower.endswith(".json"):
        head = _peek(path)
        if re.search(r'"eval"\s*:\s*\{', head) and re.search(r'"(version|status)"\s*:', head):
            return "inspect"
        if _CRUXEVAL_HEAD.match(head):  # before rliable: {"raw_generations": {"sample_0": [...]}} fits both
            return "cruxeval"
        if _RLIABLE_HEAD.match(head):
            return "rliable"
    return None


def detect(data) -> str | None:
    """The one harness source ``data`` holds, None when it holds none; mixed sources raise :class:`InputError`."""
    try:
        source, files = expand(data)
    except (InputError, TypeError):
        return None
    kinds: dict[str, list[Path]] = {}
    for f in files:
        kind = classify(f)
        if kind is not None:
            kinds.setdefault(kind, []).append(f)
    if not kinds:
        return None
    if len(kinds) > 1:
        shown = "; ".join(f"{k} ({len(v)} file{'s' if len(v) > 1 else ''}, e.g. {v[0].name})"
                          for k, v in sorted(kinds.items()))
        raise InputError(f"mixes logs of different tools: {shown}. Read each kind separately, or name one with"
                         " --source (the other files are then skipped and listed)", source=source)
    return next(iter(kinds))


def files_of(data, kind: str) -> tuple[str, list[Path], "Skipped"]:
    """The files of ``kind`` under ``data``; every other file is listed as skipped, hidden files and folders
    (names starting with '.') too."""
    hidden: list[Path] = []
    source, files = expand(data, hidden=hidden)
    skipped = Skipped(data if isinstance(data, (str, os.PathLike)) else None)
    for path in hidden:
        skipped.add(path, "hidden folders, not searched: the name starts with '.'" if path.is_dir()
                    else "hidden files: the name starts with '.'")
    if isinstance(data, (list, tuple)):  # a table named in a list of logs was asked for: not skipped silently
        for entry in data:
            path = Path(entry) if isinstance(entry, (str, os.PathLike)) and not _is_glob(os.fspath(entry)) else None
            if path is not None and path.is_file() and classify(path) is None and _is_table_name(path.name):
                raise InputError(f"is a table, but the other paths are {kind} logs; read tables and harness logs"
                                 " separately (or convert the logs to a table first)", source=str(path))
    mine = []
    for f in files:
        k = classify(f)
        if k == kind:
            mine.append(f)
        elif k is not None:
            skipped.add(f, f"a {k} log, not read by the {kind} reader")
        elif len(files) > 1:
            skipped.add(f, f"not a log for the {kind} reader")
    if not mine:
        if len(files) == 1:
            # a single file named explicitly: let the reader try it and say precisely what is wrong
            return source, files, Skipped()
        raise InputError(f"holds no {kind} log ({len(files)} other files)", source=source)
    return source, mine, skipped


_TABLE_NAME = re.compile(r".*\.(csv|tsv|tab|parquet|pq|jsonl|ndjson)(\.(gz|bz2|xz|zst|zstd))?", re.IGNORECASE)


def _is_table_name(name: str) -> bool:
    return _TABLE_NAME.fullmatch(name) is not None


NOTE_SKIPPED = NoteKind("io.skipped-files", "excluded", "skipped {n} ({reason}): {shown}{more}")


class Skipped:
    """What a reader left out, with the reason, for ``ResultsTable.notes``."""

    def __init__(self, root=None):
        self.items: list[tuple[str, str]] = []
        self.root = Path(root) if root is not None and Path(root).is_dir() else None

    def add(self, what, reason: str) -> None:
        self.items.append((str(what), reason))

    def notes(self, limit: int = 8) -> list[str]:
        """One note per distinct reason, naming up to ``limit`` of the things skipped for it."""
        by_reason: dict[str, list[str]] = {}
        for what, reason in self.items:
            by_reason.setdefault(reason, []).append(what)
        out = []
        for reason, whats in by_reason.items():
            shown = ", ".join(self._show(w) for w in whats[:limit])
            more = f" and {len(whats) - limit} more" if len(whats) > limit else ""
            out.append(NOTE_SKIPPED(n=len(whats), reason=reason, shown=shown, more=more))
        return out


    def _show(self, what: str) -> str:
        if os.sep not in what:
            return what
        path = Path(what)
        if self.root is not None:
            try:
                return str(path.relative_to(self.root))
            except ValueError:
                pass
        return path.name


# ---------------------------------------------------------------------------------------------- parsing
def _where_line(lineno) -> str:
    return f"line {lineno}"


def load_json(path, text: bytes | str | None = None, *, member: str | None = None):
    """Parse a JSON file (or given bytes); errors name the file (and archive member) and line.

    Numbers written with a fraction or exponent keep their spelling (:class:`evalband.data.labels.JSONFloat`), so an
    id follows the one label rule of every reader; a UTF-8, UTF-16 or UTF-32 byte-order mark is read."""
    source = f"{path}:{member}" if member else str(path)
    if text is None:
        try:
            text = Path(path).read_bytes()
        except OSError as exc:
            raise InputError(f"cannot be read ({exc.strerror or type(exc).__name__})", source=source) from None
    if isinstance(text, bytes):
        text = _decode(text, source)
    if not text.strip():
        raise InputError("is empty", source=source)
    try:
        return json.loads(text, parse_float=JSONFloat)
    except json.JSONDecodeError as exc:
        if member is None and exc.pos == 0 and _is_table_name(Path(path).name):
            # a table given to a JSON log reader (--source cruxeval/rliable/... on a .csv): not a truncated log
            raise InputError("is a table, not a JSON log; leave --source at auto, or give --source csv (tsv,"
                             " parquet, jsonl) for tables", source=source) from None
        raise InputError(f"malformed JSON ({exc.msg}, column {exc.colno}); is the file truncated?",
                         source=source, row=_where_line(exc.lineno)) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", source=source) from None


def _decode(raw: bytes, source: str) -> str:
    """UTF-8 text (a byte-order mark of UTF-8, UTF-16 or UTF-32 is read); other bytes name the line and the
    encoding they look like."""
    for bom, encoding in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe\x00\x00", "utf-32-le"),
                          (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if raw.startswith(bom):
            try:
                return raw[len(bom):].decode(encoding)
            except UnicodeDecodeError:
                raise InputError(f"starts with a {encoding.upper()} byte-order mark but is not {encoding.upper()}"
                                 " text", source=source) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise utf8_problem(raw, source) from None


def iter_jsonl(path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, record) for each non-blank line of a JSON Lines file; a bad line raises (a line cut off
    at the end of the file is named as truncated)."""
    source = str(path)
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror or type(exc).__name__})", source=source) from None
    with fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8")
                record = json.loads(line, parse_float=JSONFloat)
            except UnicodeDecodeError:
                raise utf8_problem(Path(path).read_bytes(), source) from None
            except json.JSONDecodeError as exc:
                cut = not raw.endswith(b"\n") and not fh.read(1)
                what = "the last line is cut off: the file looks truncated" if cut else \
                    "malformed JSON line; is the file truncated?"
                raise InputError(f"{what} ({exc.msg}, column {exc.colno})", source=source,
                                 row=_where_line(lineno)) from None
            except RecursionError:
                raise InputError("JSON nested too deeply", source=source, row=_where_line(lineno)) from None
            if not isinstance(record, dict):
                raise InputError(f"each line must hold a JSON object; got {_kind(record)}", source=source,
                                 row=_where_line(lineno))
            yield lineno, record


def _kind(value) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "a number"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), type(value).__name__)


_MISSING = object()


def field(obj, key, types, *, source: str, row=None, path: str = "", default=_MISSING):
    """``obj[key]`` checked to be one of ``types``; a missing key (without default) or a wrong type raises.

    ``path`` names where ``obj`` sits in the file (e.g. ``samples[3]``) for the message.
    """
    where = f"{path}.{key}" if path else str(key)
    if not isinstance(obj, dict):
        raise InputError(f"'{path or 'the file'}' must be a JSON object; got {_kind(obj)}", source=source, row=row)
    if key not in obj or obj[key] is None:
        if default is not _MISSING:
            return default
        raise InputError(f"missing key '{where}'", source=source, row=row)
    value = obj[key]
    types = types if isinstance(types, tuple) else (types,)
    if bool not in types and isinstance(value, bool) and (int in types or float in types):
        raise InputError(f"'{where}' must be a number; got a boolean", source=source, row=row)
    if not isinstance(value, types):
        want = " or ".join(_kind(t()) if t in (dict, list, str, bool, int, float) else t.__name__ for t in types)
        raise InputError(f"'{where}' must be {want}; got {_kind(value)}", source=source, row=row)
    return value


def places(first: Path, second: Path, kind: str = "log", *, at=(None, None)) -> str:
    """Where a result was found twice, for the message: ``twice in the same log a.json (samples[2] and
    samples[5])``, or ``in two logs: a.json and b.json`` (by their paths when the names alike: ``x/a.json and
    y/a.json``). ``at`` names the two places inside the files, when known."""
    first, second = Path(first), Path(second)
    if first == second:
        inside = f" ({at[0]} and {at[1]})" if at[0] is not None and at[1] is not None else ""
        return f"twice in the same {kind} {first.name}{inside}"
    if first.name != second.name:
        return f"in two {kind}s: {first.name} and {second.name}"
    try:  # the same name in two folders: their paths below the folder they share
        common = Path(os.path.commonpath([os.path.abspath(first), os.path.abspath(second)]))
        a, b = (Path(os.path.abspath(p)).relative_to(common) for p in (first, second))
    except ValueError:
        a, b = first, second
    return f"in two {kind}s: {a.as_posix()} and {b.as_posix()}"


def as_label(value, *, what: str, source: str, row=None) -> str:
    """An id (text or a number) as a label by the one label rule of every reader (:func:`evalband.data.labels.label_text`:
    text as written, integers in digits, a JSON number by its spelling). Text keeps its Unicode form here: the
    table normalizes it to NFC and names the spelling as written in a note (:func:`evalband.data.labels.label_column`)."""
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        raise InputError(f"{what} must be a string or an integer; got {_kind(value)}", source=source, row=row)
    if isinstance(value, float) and not np.isfinite(value):
        raise InputError(f"{what} must be finite; got {value!r}", source=source, row=row)
    return label_text(value, nfc=False)


# ---------------------------------------------------------------------------------------------- building
#: options of the tabular reader that ``load_input`` passes to every reader, with their defaults
_TABULAR_DEFAULTS = {"shape": "auto", "file_format": "auto", "model_col": "model", "task_col": "task",
                     "item_col": "item", "score_col": "score", "trial_col": "trial", "group_col": "group",
                     "count_rule": "floor", "accuracy_scale": "auto", "n_col": "n", "correct_col": "correct",
                     "accuracy_col": "accuracy", "task": None, "models": None, "cluster_col": None}


def check_tabular_unused(options: dict, source_name: str) -> None:
    """Refuse column-mapping options that a harness reader cannot honour (defaults pass silently).

    ``facets`` (label columns of other sources of variation) passes when it names none (None or empty: e.g. the
    command line's ``--facets trial``, trials being read as trials already); naming columns is refused in words,
    since these logs have no label columns beyond their fixed fields. Readers that do read facets (inspect's
    metadata fields) take the option themselves."""
    options = dict(options)
    facets = options.pop("facets", None)
    if facets is not None and len([facets] if isinstance(facets, str) else list(facets)):
        raise ArgumentError(words('`{arg:facets}` names label columns of a results table; {source_name} logs have none (their repeats are read as trials, which every analysis uses already); write the results as a table with the facet column (model, task, item, score, and e.g. prompt) to analyse a facet', source_name=source_name))
    for key, value in options.items():
        if key not in _TABULAR_DEFAULTS:
            raise ArgumentTypeError(words('the {source_name} reader got an unexpected option `{arg:{key}}`.', source_name=source_name, key=key))
        if value != _TABULAR_DEFAULTS[key]:
            raise ArgumentError(words('`{arg:{key}}` does not apply to {source_name} logs (their fields are fixed); got {value!r}.', key=key, source_name=source_name, value=value))


def build_table(rows: dict, *, source: str, notes: list[str], skipped: Skipped, unbounded: bool = False,
                what: str = "logs", facets=()) -> ResultsTable:
    """Build the item-level table from column lists; ``rows['where']`` names each row (file and line)."""
    n = len(rows.get("score", ()))
    if n == 0:
        reasons = "; ".join(skipped.notes()) or "no scored record"
        raise InputError(f"no usable result in these {what} ({reasons})", source=source)
    frame = pd.DataFrame({k: v for k, v in rows.items() if k != "where" and v is not None and len(v) == n},
                         index=pd.Index(rows["where"], dtype=object))
    if "trial" in frame.columns and frame["trial"].nunique() <= 1:
        frame = frame.drop(columns="trial")
    return ResultsTable.from_items(frame, source=source, unbounded=unbounded, row_word="at",
                                   notes=list(notes) + skipped.notes(), facets=tuple(facets))


def require_zstandard():
    """Import :mod:`zstandard` or say which extra installs it."""
    try:
        import zstandard
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise MissingExtraError("reading inspect_ai .eval archives needs the zstandard package:"
                          " pip install 'evalband[logs]'") from None
    return zstandard
