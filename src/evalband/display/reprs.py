"""Short reprs for result objects, their notebook HTML, and ``print(result)`` as the command line's table.

A result object's default dataclass repr prints every array (a comparison's replicates: a million characters).
:func:`displayed` replaces it: a few lines saying what the object is, its shape and its headline; ``str()``
renders ``to_frame()`` as the terminal table the CLI prints; ``_repr_html_`` shows the head of ``to_frame()`` in
Jupyter.
"""

from __future__ import annotations

import dataclasses
import html

__all__ = ["displayed", "short_repr", "summary_of", "REPR_LIMIT"]

#: the longest repr a result object may print
REPR_LIMIT = 2000
#: rows of ``to_frame()`` shown in a notebook
HTML_ROWS = 20


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


def _str(obj) -> str:
    """The terminal table of ``to_frame()`` (as the command line shows it: points for proportions)."""
    from .tables import render

    frame = obj.to_frame()
    hints = getattr(type(obj), "__display__", {})
    if "columns" in hints:
        frame = frame[[c for c in hints["columns"] if c in frame.columns]]
    scale = hints["scale"] if "scale" in hints else getattr(obj, hints.get("scale_attr", "scale"), None)
    if scale is None:  # proportions (every value in [0, 1]) in points, as the command line shows them
        import numpy as np

        values = frame[[c for c in ("estimate", "difference") if c in frame.columns]].to_numpy(dtype=float)
        scale = 100.0 if values.size and np.all(np.isnan(values) | ((values >= -1) & (values <= 1))) else 1.0
    try:
        scale = float(scale)
    except (TypeError, ValueError):
        scale = 1.0
    value_cols = hints.get("value_cols", ("estimate", "se", "ci_low", "ci_high", "difference"))
    return render(frame, "table", value_cols=value_cols, scale=scale).rstrip("\n")


def _repr_html(obj) -> str:
    frame = obj.to_frame() if hasattr(obj, "to_frame") else None
    head = f"<p><code>{html.escape(type(obj).__name__)}</code></p>"
    if frame is None:
        return head + f"<pre>{html.escape(short_repr(obj))}</pre>"
    more = f"<p>{len(frame) - HTML_ROWS:,} more rows: <code>.to_frame()</code></p>" if len(frame) > HTML_ROWS else ""
    return head + frame.head(HTML_ROWS).to_html(index=False, escape=True) + more


def displayed(cls):
    """Class decorator (outside ``@dataclass``): the short repr, the notebook HTML and, for classes with
    ``to_frame()``, ``str()`` as the terminal table."""
    if "__repr__" not in cls.__dict__:  # a repr of the class's own (with @dataclass(repr=False)) is kept
        cls.__repr__ = short_repr
    cls._repr_html_ = _repr_html
    if hasattr(cls, "to_frame"):
        cls.__str__ = _str
    return cls
