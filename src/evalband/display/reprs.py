"""Short reprs for result objects, their notebook HTML, and ``print(result)`` as the command line's table.

A result object's default dataclass repr prints every array (a comparison's replicates: a million characters).
:func:`displayed` replaces it: a few lines saying what the object is, its shape and its headline; ``str()``
renders ``to_frame()`` as the terminal table the CLI prints; ``_repr_html_`` shows the same table in Jupyter (the
display rules, the columns that fit, the head of a long table), with the full frame one call away.
"""

from __future__ import annotations

import dataclasses
import html
from .notes import NoteKind

__all__ = ["displayed", "short_repr", "titled_repr", "html_head", "summary_of", "html_table", "REPR_LIMIT"]

#: the longest repr a result object may print
REPR_LIMIT = 2000
#: a notebook shows a table of up to LONG_ROWS rows whole, a longer one by its first HEAD_ROWS rows and a note
#: saying where the rest is; ``print(result)`` (the command line's table) does the same from PRINT_ROWS rows
LONG_ROWS = 40
HEAD_ROWS = 20
PRINT_ROWS = 500
HTML_ROWS = HEAD_ROWS  # (the name of earlier versions)
#: the width, in characters, a notebook table is fitted to (the columns left out are those the terminal leaves out)
HTML_WIDTH = 120


def summary_of(value, depth: int = 0) -> str:
    """One short phrase for a field's value: arrays by shape, sequences by length and first items, frames by
    size, nested results by class."""
    import numpy as np
    import pandas as pd

    if isinstance(value, np.ndarray):
        if value.size <= 6 and value.ndim <= 1:
            return np.array2string(value, precision=4, separator=", ", max_line_width=200)
        return f"array{tuple(value.shape)} {value.dtype}"
    if isinstance(value, pd.DataFrame):
        return f"DataFrame({len(value)} rows x {value.shape[1]} columns)"
    if isinstance(value, (list, tuple)):
        if not value:
            return "()" if isinstance(value, tuple) else "[]"
        if all(isinstance(v, str) for v in value):
            head = ", ".join(repr(v[:40]) for v in value[:3])
            return f"({head}{', ...' if len(value) > 3 else ''}; {len(value)})"
        if depth < 1:
            inner = ", ".join(summary_of(v, depth + 1) for v in value[:2])
            return f"[{inner}{', ...' if len(value) > 2 else ''}] ({len(value)})"
        return f"{type(value).__name__}({len(value)})"
    if isinstance(value, dict):
        return f"dict({len(value)})"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "...")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return f"{type(value).__name__}(...)"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def short_repr(obj) -> str:
    """``ClassName(field=summary, ...)`` on a few lines, at most :data:`REPR_LIMIT` characters; a ``headline()``
    method, when the class has one, adds its line."""
    name = type(obj).__name__
    parts = []
    if dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            if not f.repr or f.name.startswith("_"):
                continue
            value = getattr(obj, f.name, None)
            if f.name == "notes" and isinstance(value, tuple):
                parts.append(f"notes={len(value)}")
                continue
            parts.append(f"{f.name}={summary_of(value)}")
    lines = [f"{name}("]
    line = "    "
    for p in parts:
        if len(line) + len(p) + 2 > 110 and line.strip():
            lines.append(line.rstrip())
            line = "    "
        line += p + ", "
    if line.strip():
        lines.append(line.rstrip().rstrip(","))
    lines.append(")")
    headline = getattr(obj, "headline", None)
    text = "\n".join(lines)
    if callable(headline):
        try:
            text += "\n" + str(headline())
        except Exception as exc:  # noqa: BLE001 - a repr must never raise
            text += f"\n(headline unavailable: {type(exc).__name__})"
    if len(text) > REPR_LIMIT:
        text = text[:REPR_LIMIT - 5] + " ...)"
    return text


#: rows of a result's frame a titled repr shows
REPR_ROWS = 8


def _cell(v) -> str:
    import numpy as np

    from .numbers import format_short

    if isinstance(v, (float, np.floating)):
        return format_short(v)
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        text = ", ".join(map(str, v)) or "-"
        return text if len(text) <= 40 else text[:37] + "..."
    text = str(v)
    return text if len(text) <= 40 else text[:37] + "..."


def titled_repr(title: str, lines=(), notes=(), *, headline: str | None = None, frame=None, columns=()) -> str:
    """The repr of a result that says what it is in a title: the title, a headline, indented ``lines`` (one per
    judge, task, ...), the first :data:`REPR_ROWS` rows of ``frame[columns]`` and up to three notes, at most
    :data:`REPR_LIMIT` characters. (:func:`short_repr` is the repr of the results that do not write their own.)

    Examples
    --------
    >>> import pandas as pd
    >>> print(titled_repr("Costs of 2 models", frame=pd.DataFrame({"model": ["a", "b"], "cost": [0.125, 2.5]}),
    ...                   columns=["model", "cost"], notes=["costs are per item"]))
    Costs of 2 models
      model  cost
      a      0.125
      b      2.5
      note: costs are per item
    """
    out = [title]
    if headline:
        out.append(headline if len(headline) <= 600 else headline[:596] + " ...")
    out += [f"  {line}" for line in lines]
    if frame is not None:
        cols = [c for c in columns if c in frame.columns]
        cells = [[_cell(v) for v in row] for row in frame[cols].head(REPR_ROWS).itertuples(index=False)]
        widths = [max([len(c)] + [len(r[k]) for r in cells]) for k, c in enumerate(cols)]
        table = ["  " + "  ".join(c.ljust(w) for c, w in zip(cols, widths))]
        table += ["  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)) for r in cells]
        if len(frame) > REPR_ROWS:
            table.append(f"  ... {len(frame) - REPR_ROWS} more rows (.to_frame())")
        out += [line.rstrip() for line in table]
        out = [line.rstrip() for line in out]
    notes = list(notes)
    out += [f"  note: {n}" for n in notes[:3]]
    if len(notes) > 3:
        out.append(f"  ... {len(notes) - 3} more notes")
    text = "\n".join(out)
    return text if len(text) <= REPR_LIMIT else text[:REPR_LIMIT - 4] + " ..."


def html_head(frame, rows: int = HEAD_ROWS) -> str:
    """The head of a result's ``to_frame()`` as an HTML table (the notebook view of the results with a
    :func:`titled_repr`)."""
    return frame.head(rows).to_html(index=False)


def _display_args(obj):
    """``(frame, options)``: the result's frame as ``print(result)`` shows it (the columns a class's
    ``__display__`` names, the confidence level for the interval's header) and the options of
    :func:`evalband.display.render` (value columns, the display scale: points for proportions, the p-value
    floor)."""
    frame = obj.to_frame()
    hints = getattr(type(obj), "__display__", {})
    if "columns" in hints:
        frame = frame[[c for c in hints["columns"] if c in frame.columns]]
    else:  # sentences (a reading per pair) are the notes of a table, never a column of it
        frame = frame.drop(columns=[c for c in ("reading", "verdict_detail", "message") if c in frame.columns])
    level = getattr(obj, "confidence_level", None)
    if "confidence_level" not in frame.columns and isinstance(level, float):  # the header says '95% CI'
        frame = frame.assign(confidence_level=level)
    value_cols = hints.get("value_cols", ("estimate", "se", "ci_low", "ci_high", "difference"))
    scale = hints["scale"] if "scale" in hints else getattr(obj, hints.get("scale_attr", "scale"), None)
    if scale is None:  # proportions (every value in [0, 1]) in points, as the command line shows them
        import numpy as np

        shown = [c for c in value_cols if c in frame.columns and not str(c).startswith(("se", "ci_"))]
        values = frame[shown].to_numpy(dtype=float)
        scale = 100.0 if values.size and np.all(np.isnan(values) | ((values >= -1) & (values <= 1))) else 1.0
    try:
        scale = float(scale)
    except (TypeError, ValueError):
        scale = 1.0
    floor = getattr(obj, "p_floor", None)  # bootstrap p-values at their floor read '<0.0002', as the CLI shows them
    # a label that varies in the whole table stays a column even when the rows shown (a head) agree
    labels = [c for c in frame.columns  # (as text: a cell may hold a list, such as the models dominating one)
              if not pd_numeric(frame[c]) and frame[c].dropna().astype(str).nunique() > 1]
    keep = tuple(dict.fromkeys(("model", "model_a", "model_b", "task", *labels)))
    return frame, dict(value_cols=value_cols, scale=scale, p_floor=floor if isinstance(floor, float) else None,
                       keep=keep, se_col=hints.get("se_col", "se"))


def _head(frame, long: int):
    """The rows shown: all of a table up to ``long`` rows, else the first :data:`HEAD_ROWS`; and the note that
    says where the rest is."""
    if len(frame) <= long:
        return frame, None
    return frame.head(HEAD_ROWS), (f"{len(frame) - HEAD_ROWS:,} more rows: .to_frame() has all {len(frame):,}"
                                   " (fractions, full precision)")


def _str(obj) -> str:
    """The terminal table of ``to_frame()`` (as the command line shows it: points for proportions, the columns
    that fit, the head of a long table)."""
    from .tables import render

    frame, options = _display_args(obj)
    frame, more = _head(frame, PRINT_ROWS)
    return render(frame, "table", notes=[more] if more else (), **options).rstrip("\n")


NOTE_NOT_SHOWN_FIT = NoteKind('display.not-shown-fit', 'caveat',
                               'not shown, to fit: {value}')
NOTE_FRAME_GIVES_EVERY_COLUMN = NoteKind('display.frame-gives-every-column', 'info',
                                          '.to_frame() gives every column at full precision (fractions)')


def html_table(obj) -> str:
    """A result in a notebook: what ``print(result)`` shows (the display rules, the columns that fit a notebook
    of :data:`HTML_WIDTH` characters, the head of a long table) as an HTML table, with the full frame one call
    away (``.to_frame()``). Objects without ``to_frame`` show their ``str()``."""
    from .tables import display_frame, fit_columns

    name = f"<p><code>{html.escape(type(obj).__name__)}</code></p>"
    if not hasattr(obj, "to_frame"):
        return name + f"<pre>{html.escape(str(obj))}</pre>"
    own = getattr(obj, "display_table", None)  # a table of the class's own (a frontier, a decision), as print shows
    if own is None and type(obj).__str__ is not _str:
        return (name + f"<pre>{html.escape(str(obj))}</pre>"
                + "<p><small><code>.to_frame()</code> gives every row and column (fractions, full precision)"
                  "</small></p>")
    if own is not None:
        frame, value_cols, title = own()
        options = dict(value_cols=value_cols, title=title, keep=("model", "frontier"))
    else:
        frame, options = _display_args(obj)
    part, more = _head(frame, LONG_ROWS)
    shown, head = display_frame(part, **options)
    shown, dropped = fit_columns(shown, part.reset_index(drop=True), HTML_WIDTH)
    notes = [more] if more else []
    if dropped:
        notes.append(NOTE_NOT_SHOWN_FIT(value=', '.join(dropped)))
    if not more:
        notes.append(NOTE_FRAME_GIVES_EVERY_COLUMN())
    caption = f"<p>{html.escape(head)}</p>" if head else ""
    import pandas as pd

    # labels (text columns of the result) align left; numbers and the intervals made of them right
    align = ["left" if c in part.columns and not pd.api.types.is_numeric_dtype(part[c]) else "right"
             for c in shown.columns]
    cells = lambda tag, values: "".join(  # noqa: E731
        f'<{tag} style="text-align: {a}">{html.escape(str(v))}</{tag}>' for a, v in zip(align, values))
    rows = "".join(f"<tr>{cells('td', r)}</tr>" for r in shown.itertuples(index=False))
    table = f'<table class="dataframe"><thead><tr>{cells("th", shown.columns)}</tr></thead><tbody>{rows}</tbody></table>'
    notes = [html.escape(n).replace(".to_frame()", "<code>.to_frame()</code>") for n in notes]
    return name + caption + table + "".join(f"<p><small>{n}</small></p>" for n in notes)


def pd_numeric(column) -> bool:
    """Whether a column holds numbers (booleans too): not a label."""
    import pandas as pd

    return bool(pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column))


def _repr_html(obj) -> str:
    return html_table(obj)


def displayed(cls):
    """Class decorator (outside ``@dataclass``): the short repr, the notebook HTML and, for classes with
    ``to_frame()``, ``str()`` as the terminal table.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> import numpy as np
    >>> import pandas as pd
    >>> from evalband.display import displayed
    >>> @displayed
    ... @dataclass(frozen=True, repr=False)
    ... class Scores:
    ...     models: tuple
    ...     score: np.ndarray
    ...     def to_frame(self):
    ...         return pd.DataFrame({"model": list(self.models), "score": self.score})
    >>> s = Scores(("A", "B"), np.array([0.81, 0.74]))
    >>> s
    Scores(
        models=('A', 'B'; 2), score=[0.81, 0.74]
    )
    >>> print(s)
    model  score
    ────────────
    A       0.81
    B       0.74
    >>> s._repr_html_().startswith("<p><code>Scores</code></p><table")  # the notebook view
    True
    """
    params = cls.__dict__.get("__dataclass_params__")
    # a repr @dataclass wrote (it prints every array) is replaced; dataclasses wrap it for recursion (__wrapped__)
    generated = params is not None and params.repr and hasattr(cls.__dict__.get("__repr__"), "__wrapped__")
    if generated or "__repr__" not in cls.__dict__:  # a repr of the class's own (with @dataclass(repr=False)) is kept
        cls.__repr__ = short_repr
    cls._repr_html_ = _repr_html
    if hasattr(cls, "to_frame"):
        cls.__str__ = _str
    return cls
