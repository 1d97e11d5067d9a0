"""Laying out display strings: terminal tables fitted to the width, Markdown and LaTeX, notes said once.

:mod:`evalband.display.tables` turns a result frame into display strings (the digit rule, intervals, constant
columns in the title) and lays them out here; :func:`text_table` lays out a table whose cells the caller wrote
(the plan of ``evalband plan``), with the same rules. Nothing here imports pandas or NumPy, so a command that
prints a few lines of text does not load them.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import sys
import textwrap

from .._validate import ArgumentError
from .escape import latex_escape, md_escape, one_line

__all__ = ["lay_out", "fit_columns", "text_table", "constant_columns", "terminal_width", "wrap_notes", "fold_name", "DEFAULT_WIDTH",
           "HUMAN_FORMATS"]

#: the formats laid out here ('csv' and 'json' are machine formats, of a frame's full-precision values)
HUMAN_FORMATS = ("table", "table-wide", "markdown", "latex")
#: terminal width when it cannot be detected (not a terminal, no COLUMNS)
DEFAULT_WIDTH = 100
#: columns left out first when a table is too wide for the terminal, before any name is folded (least needed
#: first; display names; any column ending in '_raw' goes with them)
_DROP_FIRST = ("variance_raw", "undefined_replicates", "random", "se_analytic", "correlation", "p_adjusted",
               "rank_mean", "hdi", "pred", "posterior_sd", "sim. rank CI", "icc", "df", "n_clusters")
#: then, when names folded to :data:`_MIN_TEXT` characters still do not fit
_DROP_THEN = ("design_effect", "se", "observed", "p_value", "n", "n_unlabelled", "rank CI", "tier")
_DROP_ORDER = _DROP_FIRST + _DROP_THEN
#: columns that carry the decision: never left out to fit the terminal
_DECIDING = ("verdict", "significant", "reject", "decision")


def terminal_width() -> int:
    """``COLUMNS`` when set, else the terminal's width, else :data:`DEFAULT_WIDTH` (not a terminal).

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> from evalband.display import terminal_width
    >>> with mock.patch.dict(os.environ, {"COLUMNS": "100"}):
    ...     terminal_width()
    100
    """
    env = os.environ.get("COLUMNS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        if sys.stdout.isatty():
            return max(40, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)
    except (AttributeError, ValueError, OSError):
        pass
    return DEFAULT_WIDTH


def _once(notes) -> list[str]:
    """The notes on one line each, said once (a note and its copy with a line break are the same), none empty."""
    return list(dict.fromkeys(one_line(n) for n in notes if n and str(n).strip()))


def wrap_notes(notes, width: int, *, prefix: str = "note: ") -> list[str]:
    """Each note once, on one line or wrapped at ``width`` on word boundaries with a hanging indent.

    Examples
    --------
    >>> from evalband.display import wrap_notes
    >>> notes = ["2 tasks left out: B has no results on them", "2 tasks left out: B has no results on them"]
    >>> for line in wrap_notes(notes, 30):
    ...     print(line)
    note: 2 tasks left out: B has
          no results on them
    """
    out = []
    for n in _once(notes):
        out.extend(textwrap.wrap(n, width=max(20, width), initial_indent=prefix,
                                 subsequent_indent=" " * len(prefix), break_on_hyphens=False) or [prefix])
    return out


def lay_out(cells: dict, is_text: dict, fmt: str = "table", *, head=None, notes=(), width: int | None = None,
            deciding=(), drop_first=()) -> str:
    """A table of display strings in a human format.

    Parameters
    ----------
    cells : dict
        Column name -> its display strings (every column as long as the others), in the order shown.
    is_text : dict
        Column name -> whether it holds labels (aligned left and folded to fit) rather than numbers (aligned
        right, never folded).
    fmt : {'table', 'table-wide', 'markdown', 'latex'}
        'table' fits the terminal's ``width``; 'table-wide' shows every column.
    head : str, optional
        The title line.
    notes : sequence of str
        Below a terminal or Markdown table (wrapped, each once), as ``% note:`` comment lines after LaTeX.
    width : int, optional
        Terminal width (default :func:`terminal_width`).
    deciding, drop_first : sequence of column names
        Columns never left out to fit the terminal (a decision and what it rests on), and columns to leave out
        before the usual order (:func:`fit_columns`).
    """
    right = [not is_text[c] for c in cells]
    rows = list(zip(*cells.values()))
    if fmt == "markdown":
        lines = ["| " + " | ".join(md_escape(c, block=False) for c in cells) + " |",
                 "|" + "|".join("---:" if r else "---" for r in right) + "|"]
        lines += ["| " + " | ".join(md_escape(v, block=False) for v in r) + " |" for r in rows]
        text = "\n".join(lines)
        if head:
            text = f"**{md_escape(head, block=False)}**\n\n" + text
        if _once(notes):
            text += "\n\n" + "\n".join(f"- {md_escape(n)}" for n in _once(notes))
        return text + "\n"
    if fmt == "latex":
        cols = "".join("r" if r else "l" for r in right)
        lines = ([f"% {latex_escape(head, ligatures=False)}"] if head else []) + [
            r"\begin{tabular}{" + cols + "}", r"\toprule",
            " & ".join(latex_escape(c) for c in cells) + r" \\", r"\midrule"]
        lines += [" & ".join(latex_escape(v) for v in r) + r" \\" for r in rows]
        lines += [r"\bottomrule", r"\end{tabular}"]
        lines += [f"% note: {latex_escape(n, ligatures=False)}" for n in _once(notes)]
        return "\n".join(lines) + "\n"
    return _terminal(cells, is_text, head, notes, terminal_width() if width is None else int(width),
                     fit=fmt != "table-wide", deciding=deciding, drop_first=drop_first)


def constant_columns(cells: dict, labels, keep) -> tuple[dict, list[str]]:
    """Label columns (text, such as aggregate or method) with one value on every row move to the title (as
    ``name: value``); empty columns go. Returns the columns kept and the title parts."""
    parts, kept = [], {}
    for c, values in cells.items():
        distinct = set(values)
        if distinct <= {""}:
            continue
        if len(values) > 1 and len(distinct) == 1 and c not in keep and c in labels:
            parts.append(f"{c}: {next(iter(distinct))}")
            continue
        kept[c] = values
    return kept, parts


def text_table(columns, rows, fmt: str = "table", *, title: str | None = None, notes=(), width: int | None = None,
               keep=()) -> str:
    """A table of text the caller formatted (every column a label column), laid out as result tables are.

    Examples
    --------
    >>> print(text_table(["quantity", "value"], [("n", "120"), ("power", "80.0%")], "markdown"), end="")
    | quantity | value |
    |---|---|
    | n | 120 |
    | power | 80.0% |
    """
    if fmt not in HUMAN_FORMATS:
        raise ArgumentError(f"`fmt` must be one of {', '.join(map(repr, HUMAN_FORMATS))}; got {fmt!r}.")
    cells = {c: ["" if v is None or (isinstance(v, float) and v != v) else one_line(v) for v in col]
             for c, col in zip(columns, zip(*rows))} if rows else {c: [] for c in columns}
    head = [title] if title else []
    if fmt != "table-wide":
        cells, parts = constant_columns(cells, set(columns), keep)
        head += parts
    return lay_out(cells, {c: True for c in cells}, fmt, head="; ".join(head) or None, notes=notes, width=width)


def fold_name(name: str, width: int) -> str:
    """``name`` on lines of at most ``width`` characters, broken after a separator (space, ``-``, ``_``, ``/``,
    ``.``, ``:``) where one is near, else inside a run of characters; the characters are kept as written.

    Examples
    --------
    >>> print(fold_name("gemini-1.5-flash-002", 18))
    gemini-1.5-flash-
    002
    """
    if width <= 0 or len(name) <= width:
        return name
    lines, line = [], ""
    for token in re.findall(r"[^ \-_/.:]*[ \-_/.:]?", name):
        if not token:
            continue
        if len(line) + len(token) <= width:
            line += token
            continue
        if line and len(line) >= width // 2:  # break at the separator before the token
            lines.append(line)
            line = ""
        while len(line) + len(token) > width:  # a long run: break inside it
            cut = width - len(line)
            lines.append(line + token[:cut])
            line, token = "", token[cut:]
        line += token
    if line:
        lines.append(line)
    return "\n".join(lines)


#: a text column (names) may fold down to this many characters before columns are left out
_MIN_TEXT = 18


def _measures(cells: dict, is_text: dict):
    """``(natural, need)``: each column's natural width, and the width a set of columns needs with its labels
    folded to a given width."""
    natural = {c: max([len(str(c))] + [len(str(v)) for v in cells[c]]) for c in cells}

    def need(cols, text_width):  # rich's SIMPLE_HEAD box: one space each side of a cell, none at the edges
        widths = sum(min(natural[c], max(text_width, len(str(c)))) if is_text[c] else natural[c] for c in cols)
        return widths + 2 * len(cols) - 2

    return natural, need


def fit_columns(cells: dict, is_text: dict, width: int, *, deciding=(), drop_first=()) -> tuple[list, list[str]]:
    """``(columns, dropped)``: the columns of a table of display strings kept to fit ``width`` characters, and the
    names of those left out, by the terminal table's rule:

    1. the least needed columns (``drop_first``, then :data:`_DROP_FIRST`, ``*_raw``) go before any name folds;
    2. if names folded to :data:`_MIN_TEXT` characters still do not fit, the columns of :data:`_DROP_THEN` go,
       then columns from the right (never a label, a deciding column, or the first value and its interval).

    A decision (:data:`_DECIDING`) and the columns in ``deciding`` are never left out.

    Examples
    --------
    >>> cells = {"model": ["a"], "estimate": ["78.1"], "se_analytic": ["1.2"], "verdict": ["A better"]}
    >>> fit_columns(cells, {"model": True, "estimate": False, "se_analytic": False, "verdict": True}, 30)
    (['model', 'estimate', 'verdict'], ['se_analytic'])
    """
    natural, need = _measures(cells, is_text)
    keep = set(deciding) | {c for c in cells if str(c) in _DECIDING}
    columns, dropped = list(cells), []

    def first(keys):
        return next((c for key in keys for c in columns if str(c) == key and c not in keep), None)

    # 1. the least needed columns go before any name is folded
    while need(columns, 10**6) > width:
        victim = first([str(c) for c in drop_first] + list(_DROP_FIRST)) or \
            next((c for c in columns if str(c).endswith("_raw") and c not in keep), None)
        if victim is None:
            break
        dropped.append(str(victim))
        columns.remove(victim)
    # 2. names fold down to _MIN_TEXT; when even that is too wide, more columns go, then columns from the
    #    right, never a label, a deciding column, or the first value and its interval
    while need(columns, _MIN_TEXT) > width:
        victim = first(_DROP_THEN)
        if victim is None:
            spare = [c for c in columns if not is_text[c] and str(c) not in _DECIDING][2:]
            spare = [c for c in spare if c not in keep]
            if not spare:
                break
            victim = spare[-1]
        dropped.append(str(victim))
        columns.remove(victim)
    return columns, dropped


def _terminal(cells: dict, is_text: dict, head, notes, width: int, *, fit: bool, deciding=(), drop_first=()) -> str:
    """A rich table fitted to ``width`` (said in a note when columns are left out):

    1. the least needed columns (:data:`_DROP_FIRST`, ``*_raw``) go before any name is folded;
    2. names fold after separators (:func:`fold_name`), the widest first, down to :data:`_MIN_TEXT` characters;
       if that is still too wide, the columns of :data:`_DROP_THEN` go, then columns from the right (never a
       label, a deciding column of :data:`_DECIDING`, or the first value and its interval), and last the names
       fold further.
    Numbers and intervals never fold."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    natural, need = _measures(cells, is_text)
    columns, dropped = (fit_columns(cells, is_text, width, deciding=deciding, drop_first=drop_first) if fit
                        else (list(cells), []))
    text_cols = [c for c in columns if is_text[c]]
    room = {c: natural[c] for c in text_cols}
    if fit and text_cols and need(columns, 10**6) > width:  # the widest names give way first
        rest = width - sum(natural[c] for c in columns if not is_text[c]) - (2 * len(columns) - 2)
        for least in (_MIN_TEXT, 6):  # below _MIN_TEXT only when no column is left to leave out
            floor = {c: min(natural[c], max(least, len(str(c)))) for c in text_cols}
            while sum(room.values()) > rest:
                widest = max((c for c in text_cols if room[c] > floor[c]), key=lambda c: room[c], default=None)
                if widest is None:
                    break
                room[widest] -= 1
    table = Table(title=Text(head) if head else None, box=box.SIMPLE_HEAD, header_style="bold",
                  title_justify="left", pad_edge=False, show_edge=False, collapse_padding=True, expand=False)
    for c in columns:
        if is_text[c]:
            table.add_column(Text(str(c)), justify="left", overflow="fold", max_width=room[c] + 2)  # + padding
        else:
            table.add_column(Text(str(c)), justify="right", no_wrap=True, min_width=natural[c])
    for r in zip(*(cells[c] for c in columns)):  # Text: names are never read as rich markup
        table.add_row(*[Text(fold_name(str(v), room[c]) if c in room else str(v)) for c, v in zip(columns, r)])
    buf = io.StringIO()
    console = Console(file=buf, width=width if fit else max(width, 1000), force_terminal=False,
                      color_system=None, highlight=False, emoji=False, markup=False)
    console.print(table)
    text = "\n".join(line.rstrip() for line in buf.getvalue().splitlines())
    more = list(notes)
    if dropped:
        more.append(f"not shown, to fit {width} columns: {', '.join(dropped)} (--wide shows every column; JSON and"
                    " CSV have them all)")
    lines = [text] + wrap_notes(more, width)
    return "\n".join(lines).rstrip("\n") + "\n"
