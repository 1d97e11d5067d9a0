"""The one rule for labels: model, task, item, cluster, group, trial and facet names are text, read as written.

Every reader (CSV, TSV, JSON Lines, JSON, Parquet, DataFrames and the harness logs) ends in
:func:`label_column`, so the same id means the same label whatever file it came from:

* text is kept as written: ``'1.1'`` and ``'1.10'`` are two labels, ``'2'`` stays ``'2'``, an item id of 20 digits
  stays exact, and ``'NA'``, ``'None'``, ``'null'``, ``'nan'`` are names like any other (text readers never turn
  them into missing values; only an empty cell is missing);
* a typed number (Parquet, a DataFrame, a JSON log) has no spelling of its own: integers (and floats holding an
  integer) are written in decimal digits, other floats by their shortest round-trip form (``0.1`` -> ``'0.1'``); a
  JSON number keeps the spelling of the file (:class:`JSONFloat`), so ``1`` and ``1.0`` stay apart there as in CSV;
* every label is normalized to Unicode NFC (``'café'`` typed with a combining accent and without are one label);
  labels that would still look alike, differing only by surrounding spaces, invisible characters (zero-width
  spaces, bidi controls, soft hyphens, ...), the kind of space, or their Unicode normalization, are refused
  naming both spellings and a row, since they would count as two labels that look like one.

Label sets are ordered by :func:`natural_order` (``'task2'`` before ``'task10'``), the one canonical order that
:class:`~evalband.data.table.ResultsTable` gives models, tasks, items, clusters, groups, trials and facet levels, so no
result depends on the order of the rows.
"""

from __future__ import annotations

import math
import re
import unicodedata

import numpy as np
import pandas as pd

from .._cells import NESTED, check_cells, describe
from .._validate import ArgumentTypeError, InputError
from ..display.notes import NoteKind

__all__ = ["JSONFloat", "label_text", "label_column", "natural_key", "natural_order", "natural_permutation", "shown"]


class JSONFloat(float):
    """A JSON number written with a fraction or an exponent, remembering its text (``1.0`` stays ``'1.0'``).

    JSON readers pass it as ``parse_float`` so that ids keep the spelling of the file while scores stay floats.
    """

    __slots__ = ("text",)

    def __new__(cls, text: str):
        value = super().__new__(cls, text)
        value.text = text
        return value


def label_text(value, *, nfc: bool = True):
    """One value as label text (None for a missing value); raises TypeError for values that are no label.

    Text as written (NFC-normalized; with ``nfc=False`` as written, for a reader whose labels reach
    :func:`label_column`, which normalizes them and says so in a note); integers in decimal digits; floats holding
    an integer as integers, others by their shortest round-trip form; a :class:`JSONFloat` by its text; booleans
    as ``'True'``/``'False'``.
    """
    text = _raw_text(value)
    return text if not nfc or text is None or text.isascii() else unicodedata.normalize("NFC", text)


def _raw_text(value):
    """:func:`label_text` before NFC normalization."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, JSONFloat):
        return value.text
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return None
        if math.isinf(v):
            raise ArgumentTypeError(f"{v!r}")
        return str(int(v)) if v.is_integer() else repr(v)
    if isinstance(value, NESTED):
        raise ArgumentTypeError(describe(value))
    return str(value)


# ------------------------------------------------------------------------------------------ look-alike labels
#: characters that do not show: format characters (zero-width, bidi controls, soft hyphen, BOM), variation
#: selectors and the combining grapheme joiner
def _invisible(ch: str) -> bool:
    return unicodedata.category(ch) == "Cf" or "\ufe00" <= ch <= "\ufe0f" or ch == "\u034f"


def _skeleton(text: str) -> str:
    """What a label looks like: NFC, invisible characters removed, every kind of space a plain space, stripped."""
    out = "".join(" " if unicodedata.category(ch) == "Zs" or ch == "\t" else ch
                  for ch in unicodedata.normalize("NFC", text) if not _invisible(ch))
    return out.strip()


def shown(text: str) -> str:
    """A label quoted for a message, with invisible, combining and unusual space characters escaped
    (``'gpt\\u200b-4'``), so that two spellings that look alike read differently."""
    out = []
    for ch in str(text):
        cat = unicodedata.category(ch)
        if _invisible(ch) or cat in ("Mn", "Me", "Cc") or (cat == "Zs" and ch != " "):
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "'" + "".join(out).replace("'", "\\'") + "'"


def _why(a: str, b: str) -> str:
    """How two spellings with the same skeleton differ, in words."""
    if a.strip() == b.strip() or _skeleton(a) == a.strip() == b.strip():
        return "differ only by surrounding spaces"
    if unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b):
        return "differ only in Unicode normalization (the same letters, composed and decomposed, NFC vs NFD)"
    chars = sorted({ch for ch in a + b if _invisible(ch)})
    if chars:
        names = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'format character')}" for c in chars[:3])
        return f"differ only by invisible characters ({names})"
    return "differ only by the kind of space or invisible characters"


NOTE_INVISIBLE = NoteKind("data.invisible-characters", "caveat", "{name} {first}{hold} invisible characters (kept as"
                          " written; type them the same way in --models and --tasks)")


def _check_lookalikes(uniq: list[str], col: pd.Series, name: str, source, row_word: str) -> list[str]:
    """Refuse labels that look alike (same skeleton, different text); return notes on labels holding invisible
    characters. ``uniq`` are the distinct labels before NFC normalization."""
    notes = []
    odd = [u for u in uniq if not (u.isascii() and u.isprintable() and u == u.strip())]
    if not odd:
        return notes
    skel = {}
    for u in uniq if len(odd) < len(uniq) else odd:  # an ASCII label can still clash with an odd one
        skel.setdefault(_skeleton(u), []).append(u)
    for s, spellings in skel.items():
        if s == "":
            pos = int(np.flatnonzero((col == spellings[0]).to_numpy())[0])
            raise InputError(f"missing {name} (only spaces or invisible characters)", source=source,
                             row=f"{row_word} {col.index[pos]}", column=name)
    for s, spellings in skel.items():
        if len(spellings) > 1:
            # name the spelling that is not the plain one first, at its first row
            spellings = sorted(spellings, key=lambda t: (t == s, t))
            a, b = spellings[0], spellings[1]
            pos = int(np.flatnonzero((col == a).to_numpy())[0])
            fix = "remove the spaces" if "spaces" in _why(a, b) else "write the names the same way"
            raise InputError(f"{name} {shown(a)} and {shown(b)} {_why(a, b)}; they would count as two different"
                             f" {name}s that look alike ({fix})", source=source,
                             row=f"{row_word} {col.index[pos]}", column=name)
    hidden = [u for u in odd if any(_invisible(ch) for ch in u)]
    if hidden:
        notes.append(NOTE_INVISIBLE(name=name, first=shown(hidden[0]),
                                    hold=f" and {len(hidden) - 1} more hold" if len(hidden) > 1 else " holds"))
    return notes


# ------------------------------------------------------------------------------------------ the column rule
def label_column(col: pd.Series, name: str, source=None, row_word: str = "row") -> tuple[pd.Series, list[str]]:
    """A column of labels as text by the one label rule, with the notes it gives rise to.

    Returns a categorical column (each label once, a small integer code per row; categories in no particular
    order), so a column of 1e8 labels costs a few bytes per row. The rule is applied to each distinct value once.

    Raises
    ------
    InputError
        A missing label (an empty cell, null or NaN; spaces only), a value that is no label (a nested object or
        list, :mod:`evalband._cells`; an infinite number) or labels that look alike, naming the row.
    """
    check_cells(col, name, source=source, where=lambda pos: f"{row_word} {col.index[pos]}")
    values = col
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        if codes.size and codes.min() < 0:
            _missing(values, name, source, row_word)
        cats = values.cat.categories
        used = np.bincount(codes, minlength=len(cats)) > 0
        if not used.all():  # categories no row has are no labels of the column
            remap = (np.cumsum(used) - 1).astype(codes.dtype)
            codes, cats = remap[codes], cats[used]
        if pd.api.types.is_integer_dtype(cats.dtype):
            return _digits(codes, cats.to_numpy(), values.index), []
        return _coded(codes, list(cats), values, name, source, row_word)
    if pd.api.types.is_bool_dtype(values) or pd.api.types.is_integer_dtype(values):
        if values.isna().any():
            _missing(values, name, source, row_word)
        from .codes import int_codes

        arr = values.to_numpy()
        if arr.dtype == object:  # a nullable integer column without missing values
            arr = values.to_numpy(dtype=np.int64)
        codes, uniq = int_codes(arr)
        if arr.dtype == bool:
            return _coded(codes, list(uniq.astype(bool)), values, name, source, row_word)
        return _digits(codes, uniq, values.index), []
    if values.isna().any():
        _missing(values, name, source, row_word)
    if pd.api.types.is_float_dtype(values):
        arr = values.to_numpy(dtype=np.float64)
        if not np.isfinite(arr).all():
            pos = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise InputError(f"{name} {arr[pos]!r} is not a name", source=source,
                             row=f"{row_word} {values.index[pos]}", column=name)
    elif (kind := pd.api.types.infer_dtype(values, skipna=False)) == "integer" and _fits_int64(values):
        values = pd.Series(values.to_numpy(dtype=np.int64), index=values.index)
        return label_column(values, name, source, row_word)
    elif kind != "string":
        # mixed Python objects (JSON values, a DataFrame column): each value by the rule, so that 1 and 1.0 (equal
        # as numbers, so one key to pandas) keep their own text
        raw = []
        for pos, v in enumerate(values.to_numpy(dtype=object)):
            try:
                t = _raw_text(v)
            except TypeError as exc:
                raise InputError(f"{name} must be text or a number; got {exc}", source=source,
                                 row=f"{row_word} {values.index[pos]}", column=name) from None
            if t is None:
                _missing(values.iloc[pos:pos + 1].where(False), name, source, row_word)
            raw.append(t)
        values = pd.Series(np.asarray(raw, dtype=object), index=values.index)
    codes, uniq = pd.factorize(values)
    return _coded(codes, list(uniq), values, name, source, row_word)


def _digits(codes: np.ndarray, uniq: np.ndarray, index) -> pd.Series:
    """Integer labels: their decimal digits (distinct integers, distinct texts; nothing to normalize or to look
    alike), converted in one NumPy pass."""
    return pd.Series(pd.Categorical.from_codes(codes, categories=uniq.astype(str).astype(object)), index=index)


def _coded(codes: np.ndarray, uniq: list, col: pd.Series, name: str, source, row_word: str):
    """The label rule on the distinct values ``uniq`` of a column coded as ``codes`` (``uniq[codes]`` is the
    column): a categorical column of the labels' text, with the notes; errors name the first row concerned."""
    if pd.api.types.infer_dtype(uniq, skipna=False) == "string":  # text already: the rule is the identity
        return _texts(codes, uniq, col, name, source, row_word)
    raw, bad, why = [], [], None
    for k, u in enumerate(uniq):
        try:
            t = _raw_text(u)
        except TypeError as exc:
            bad.append(k)
            why = why or str(exc)
            t = ""
        raw.append(t)
    missing = [k for k, t in enumerate(raw) if t is None or t == ""]
    if missing:  # the first row whose value is no label (or an empty text cell, missing as a blank cell is)
        pos = int(np.flatnonzero(np.isin(codes, missing))[0])
        k = int(codes[pos])
        if k in bad:
            raise InputError(f"{name} must be text or a number; got {_raw_error(uniq[k])}", source=source,
                             row=f"{row_word} {col.index[pos]}", column=name)
        raise InputError(f"missing {name}", source=source, row=f"{row_word} {col.index[pos]}", column=name)
    distinct = list(dict.fromkeys(raw))
    if len(distinct) < len(raw):  # values of one text (1 and '1' in a column of objects) are one label
        where = {t: k for k, t in enumerate(distinct)}
        remap = np.array([where[t] for t in raw], dtype=np.int64)
        codes = remap[codes]
    return _texts(codes, distinct, col, name, source, row_word)


def _texts(codes: np.ndarray, distinct: list, col: pd.Series, name: str, source, row_word: str):
    """Distinct label texts ``distinct`` coded as ``codes``: refuse a missing (empty) label and labels that look
    alike; NFC-normalize; a categorical column."""
    if "" in distinct:
        pos = int(np.flatnonzero(codes == distinct.index(""))[0])
        raise InputError(f"missing {name}", source=source, row=f"{row_word} {col.index[pos]}", column=name)
    as_raw = pd.Series(pd.Categorical.from_codes(codes, categories=distinct, validate=False), index=col.index)
    notes = _check_lookalikes(distinct, as_raw, name, source, row_word)
    texts = [r if r.isascii() else unicodedata.normalize("NFC", r) for r in distinct]
    changed = [(r, t) for r, t in zip(distinct, texts) if r != t]
    if changed:
        notes.append(nfc_note(name, changed))
        as_raw = pd.Series(pd.Categorical.from_codes(as_raw.cat.codes.to_numpy(), categories=texts),
                           index=col.index)
    return as_raw, notes


NOTE_NFC = NoteKind('data.nfc-normalized', 'info',
                    "{name} {value} is written with combining marks (decomposed Unicode, NFD) and shown as '{nfc}' (normalized to NFC, the one spelling of labels){more}")


def nfc_note(name: str, changed: list) -> str:
    """The note on labels written with combining marks (decomposed Unicode) and shown in NFC: the first spelling as
    written (its combining marks escaped, :func:`shown`) and as shown, and how many more."""
    written, nfc = changed[0]
    more = f" (and {len(changed) - 1:,} more {name} label{'s' if len(changed) > 2 else ''})" if len(changed) > 1 else ""
    return (NOTE_NFC(name=name, value=shown(written), nfc=nfc, more=more))


def _raw_error(value) -> str:
    try:
        _raw_text(value)
    except TypeError as exc:
        return str(exc)
    return repr(value)


def _fits_int64(values: pd.Series) -> bool:
    try:
        values.to_numpy(dtype=np.int64)
        return True
    except (OverflowError, ValueError, TypeError):
        return False


def _missing(values: pd.Series, name: str, source, row_word: str):
    missing = values.isna().to_numpy()
    pos = int(np.flatnonzero(missing)[0]) if missing.any() else 0
    raise InputError(f"missing {name}", source=source, row=f"{row_word} {values.index[pos]}", column=name)


# ------------------------------------------------------------------------------------------ canonical order
_DIGITS = re.compile(r"(\d+)", re.ASCII)


def natural_key(text: str):
    """Sort key of the natural order: runs of digits compare as numbers (``'task2'`` < ``'task10'``), other text
    without regard to case; ties (``'a01'`` and ``'a1'``, ``'A'`` and ``'a'``) are broken by the text itself, so the
    order is total."""
    parts = _DIGITS.split(str(text))
    key = []
    for i, p in enumerate(parts):
        if i % 2:
            digits = p.lstrip("0")
            key.append((0, len(digits), digits))
        elif p:
            key.append((1, 0, p.casefold()))
    return tuple(key), str(text)


def natural_order(labels) -> list[str]:
    """The distinct ``labels`` in natural order (see :func:`natural_key`)."""
    uniq = list(dict.fromkeys(str(x) for x in labels))
    return [uniq[k] for k in natural_permutation(uniq)]


def natural_permutation(uniq: list) -> np.ndarray:
    """The positions of distinct texts ``uniq`` in natural order: ``[uniq[k] for k in result]`` is sorted."""
    if uniq and all(u.isdigit() and u.isascii() for u in uniq):  # plain numeric ids: one NumPy sort, no key
        arr = np.array(uniq)
        stripped = np.char.lstrip(arr, "0")
        return np.lexsort((arr, stripped, np.char.str_len(stripped)))
    return np.array(sorted(range(len(uniq)), key=lambda k: natural_key(uniq[k])), dtype=np.int64)
