"""Lists of names written as text (``--models``, ``--weights``): commas, CSV quoting and ``@FILE``.

Task names may hold commas and ``=`` (HELM run names such as ``mmlu:subject=philosophy,method=multiple_choice_joint``),
so a plain ``text.split(",")`` cannot express them. :func:`split_names` is the one splitter that the command line
and the library's text parsers (``aggregate.parse_weights``) share.
"""

from __future__ import annotations

import csv
import re
from ._validate import ArgumentError, InputError, closest_name
from ._words import words

__all__ = ["split_names", "names_text", "lacks_text", "and_names", "closest_name", "check_named_columns"]  # closest_name: from _validate

_OPEN_QUOTE = re.compile(r'(^|,)\s*"')


def split_names(text, *, name: str = "list") -> list[str]:
    """Split a comma-separated list into names.

    Parameters
    ----------
    text : str
        * ``'a,b,c'`` -> ``['a', 'b', 'c']``; blank entries are dropped, spaces around each entry removed;
        * CSV quoting keeps commas: ``'"x,y",c'`` -> ``['x,y', 'c']`` (``""`` inside quotes is one quote);
          text after a closing quote stays with its entry, so ``'"x,y"=2'`` -> ``['x,y=2']`` (a ``name=value``
          pair whose name is quoted);
        * ``'@FILE'``: one entry per line of FILE, not split further (blank lines skipped), so names with commas
          need no quoting there (a line quoted as on the command line, ``"a,b"=2``, is unquoted). Quote a name that starts with ``@`` (``'"@name"'``).
    name : str
        The argument's name for messages.

    Returns
    -------
    list of str

    Notes
    -----
    A quote inside an unquoted name (``a"b``) is kept as it is, as in CSV. ``name=value`` pairs are split on
    their last ``=`` by the caller, so names may hold ``=`` too.
    """
    text = str(text)
    if text.startswith("@"):
        path = text[1:]
        try:
            with open(path, encoding="utf-8-sig") as fh:  # -sig: a BOM (Windows editors) is not a name
                return [_unquote(line.strip()) for line in fh.read().splitlines() if line.strip()]
        except (OSError, UnicodeDecodeError) as exc:
            why = "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else exc.strerror or type(exc).__name__
            raise ArgumentError(words('`{arg:{name}}`: cannot read the list file {path!r} ({why}); @FILE names a file with one entry per line.', name=name, path=path, why=why)) from None
    if text.count('"') % 2 and _OPEN_QUOTE.search(text):
        raise ArgumentError(words('`{arg:{name}}`: unbalanced quote in {text!r}; quote a name holding commas as "a,b".', name=name, text=text))
    rows = list(csv.reader([text], skipinitialspace=True))
    return [t.strip() for t in (rows[0] if rows else []) if t.strip()]


def _unquote(line: str) -> str:
    """A list file's line as one entry: kept as it is, except that a line quoted as on the command line
    (``"a,b"`` or ``"a,b"=2``) loses its quotes, so a list copied from a command line means the same."""
    if not line.startswith('"'):
        return line
    rows = list(csv.reader([line], skipinitialspace=True))
    return rows[0][0].strip() if rows and len(rows[0]) == 1 else line


#: names listed in a note before "and N more"
_SHOWN = 20


def names_text(names, limit: int = _SHOWN) -> str:
    """``'a', 'b' and 3 more`` style listing (the first ``limit`` names, quoted)."""
    names = [str(n) for n in names]
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def lacks_text(by_model) -> str:
    """``"B lacks 'law'; C lacks 'law', 'math'"`` from model -> tasks it lacks (models in order, at most 4)."""
    items = [(m, ts) for m, ts in dict(by_model).items() if ts]
    who = "; ".join(f"{m} lacks {names_text(ts, 4)}" for m, ts in items[:4])
    return who + (f"; and {len(items) - 4} more models" if len(items) > 4 else "")


def and_names(names, *, limit: int = 6, noun: str = "models") -> str:
    """``'A'``, ``'A and B'``, ``'A, B and C'``; past ``limit`` names, ``'A, ..., F and 3 more models'``."""
    names = [str(n) for n in names]
    if len(names) > limit:
        more = len(names) - limit
        one = noun[:-1] if more == 1 and noun.endswith("s") else noun  # '1 more pair', '2 more pairs'
        return ", ".join(names[:limit]) + f" and {more:,} more {one}"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


#: columns listed in a message about a column that is not there
_COLUMNS_SHOWN = 20


def check_named_columns(named, columns, source: str) -> None:
    """Refuse the first column named for a role that the table does not have: the one rule of every reader's
    column mapping (``task_col='categroy'``, ``cluster_col``, ``facets``, ``drop_cols``, a ratings reader's
    ``unit_col``, a battle reader's ``winner_col``, ...).

    ``named`` holds (argument, column) pairs: the reader's keyword and the column the user named with it. The
    message says the column is not in the file, suggests the closest column name and lists the columns; the
    command line names its own option for the keyword (``task_col`` -> ``--task-col``)."""
    columns = [str(c) for c in columns]
    for argument, col in named:
        if col is None or str(col) in columns:
            continue
        close = closest_name(col, columns)
        shown = ", ".join(map(repr, columns[:_COLUMNS_SHOWN]))
        if len(columns) > _COLUMNS_SHOWN:
            shown += f" and {len(columns) - _COLUMNS_SHOWN} more"
        hint = f"; did you mean '{close}'? Its columns: " if close else "; its columns: "
        raise InputError(words("column '{col}' (named with `{arg:{argument}}`) is not in the file{hint}{shown}", col=col, argument=argument, hint=hint, shown=shown), source=source)
