"""Columns a table reads and columns it does not: nothing in a file is ignored without a word.

* A column no role uses (``weight``, ``notes``, ``timestamp``, ...) is named in a note.
* A column that looks like a data split (``split``/``partition`` with several values, or any column whose values
  are split names such as dev/test/validation) is refused unless the user says what to do: keep one split
  (``split='test'``, ``--split test``) or leave the column out (``drop_cols``, ``--drop-cols``) to pool the splits
  knowingly. Pooling dev and test items silently would report a number for a test set that does not exist.
"""

from __future__ import annotations

import re

import pandas as pd

from ..data.labels import natural_order
from .._lists import check_named_columns
from .._validate import InputError
from .._words import words
from ..display.notes import NoteKind

__all__ = ["find_column", "keep_split", "refuse_splits", "unused_note", "SPLIT_NAMES"]

#: column names that say "this is a data split"
SPLIT_NAMES = ("split", "data_split", "dataset_split", "eval_split", "partition")
#: values that name a data split
_SPLIT_VALUE = re.compile(r"(train(ing)?|dev(elopment)?|val(id(ation)?)?|test(ing)?|eval(uation)?|held[-_ ]?out"
                          r"|holdout|public|private|hidden)([-_ ]?[a-z0-9]{0,8})?", re.IGNORECASE)


def find_column(columns, name, role: str, source: str, *, required: bool = True):
    """The column of ``columns`` named ``name`` for ``role``: the column itself, else the one column equal to it
    regardless of case (``Model`` for ``model``); None when ``name`` is None, or when it is not found and not
    ``required``. A required column that is not found (or found twice, differing only by case) is refused with
    the reader's message (:func:`evalband._lists.check_named_columns`: the closest name, the columns there are).

    Examples
    --------
    >>> find_column(["Model", "score"], "model", "model", "results.csv")
    'Model'
    >>> find_column(["Model", "score"], "judge", "judge", "results.csv", required=False) is None
    True
    """
    if name is None:
        return None
    if name in columns:
        return name
    folded = [c for c in columns if str(c).casefold() == str(name).casefold()]
    if len(folded) == 1:
        return folded[0]
    if required:
        check_named_columns([(f"{role}_col", name)], columns, source)
    return None


def _values(col: pd.Series, limit: int = 50) -> list[str]:
    uniq = pd.unique(col.dropna())
    return [str(v).strip() for v in uniq[:limit + 1]]


def is_split(name: str, col: pd.Series) -> bool:
    """Whether a column looks like a data split: a split name with at least two values, or at least two values
    that are all split names (dev, test, validation, train, ...)."""
    values = _values(col)
    if len(set(values)) < 2 or len(values) > 50:
        return False
    if str(name).strip().casefold() in SPLIT_NAMES:
        return True
    return all(_SPLIT_VALUE.fullmatch(v) for v in values)


def _shown(values: list[str], k: int = 4) -> str:
    values = natural_order(values)
    return ", ".join(repr(v) for v in values[:k]) + (" ..." if len(values) > k else "")


def refuse_splits(df: pd.DataFrame, candidates, source: str) -> None:
    """Refuse the first column among ``candidates`` (columns no role uses) that looks like a data split."""
    for c in candidates:
        if is_split(c, df[c]):
            raise InputError(words("column '{c}' looks like a data split (values {value}): its rows would be pooled into one test set; keep one split ({py:split='...'}{cli:--split NAME}), or leave the column out ({py:drop_cols=}{cli:--drop-cols {c}}) to pool them on purpose", c=c, value=_shown(_values(df[c]))),
                             source=source, column=str(c))


def keep_split(df: pd.DataFrame, split: str, source: str, *, taken=()) -> tuple[pd.DataFrame, str, list[str]]:
    """The rows of one split: the split column is the one named like a split, else the one column whose values
    look like split names; the rows of the other splits are counted in a note. Returns (rows, column, notes)."""
    named = [c for c in df.columns if str(c).strip().casefold() in SPLIT_NAMES and c not in taken]
    cols = named or [c for c in df.columns if c not in taken and is_split(c, df[c])]
    if not cols:
        raise InputError(words("no split column to choose '{split}' from ({py:split=}{cli:--split}: a column named {value} or holding dev/test/... values); found {value2}", split=split, value=', '.join(map(repr, SPLIT_NAMES[:2])), value2=', '.join(map(repr, map(str, df.columns)))), source=source)
    if len(cols) > 1:
        raise InputError(f"several columns look like data splits ({', '.join(map(repr, cols))}); leave the others"
                         " out with --drop-cols", source=source)
    col = cols[0]
    text = df[col].astype("string").str.strip()
    keep = (text == str(split).strip()).fillna(False).to_numpy(dtype=bool)
    if not keep.any():
        raise InputError(f"no row of split '{split}'; the column holds {_shown(_values(df[col]))}", source=source,
                         column=str(col))
    left = text[~keep].fillna("").value_counts()
    notes = [f"split '{split}' kept (column '{col}', {int(keep.sum()):,} rows)"
             + ("; left out: " + ", ".join(f"{v or '(blank)'} {int(k):,} rows" for v, k in left.items())
                if len(left) else "")]
    return df.loc[keep], col, notes


NOTE_COLUMNS_UNUSED = NoteKind("io.columns-not-used", "excluded", "column{s} not used: {shown} (no role reads {them};"
                               " map a role with --cluster, --group-col, --facets, ..., or leave it out with --drop-cols)")


def unused_note(columns, used, *, limit: int = 8) -> list[str]:
    """A note naming the columns no role uses (in the order of the file), or nothing."""
    unused = [str(c) for c in columns if c not in used]
    if not unused:
        return []
    shown = ", ".join(unused[:limit]) + (f" and {len(unused) - limit} more" if len(unused) > limit else "")
    return [NOTE_COLUMNS_UNUSED(s="s" if len(unused) > 1 else "", shown=shown, them="them" if len(unused) > 1 else "it")]
