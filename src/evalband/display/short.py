"""Short text and HTML views shared by the results of the judges package."""

from __future__ import annotations

import math

__all__ = ["short_repr", "html_head", "fmt"]

#: the longest ``repr`` a result gives
MAX_REPR = 2000


def fmt(value, se=None) -> str:
    """A number with digits following its standard error (two significant figures of the SE)."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else str(value)
    if se is None or not math.isfinite(float(se)) or float(se) <= 0:
        return f"{value:.3g}"
    digits = min(max(1 - int(math.floor(math.log10(float(se)))), 0), 6)
    return f"{value:.{digits}f}"


def short_repr(title: str, lines, notes=()) -> str:
    """``title`` then indented lines and up to three notes, cut at :data:`MAX_REPR` characters."""
    out = [title] + [f"  {line}" for line in lines]
    notes = list(notes)
    out += [f"  note: {n}" for n in notes[:3]]
    if len(notes) > 3:
        out.append(f"  ... {len(notes) - 3} more notes")
    text = "\n".join(out)
    return text if len(text) <= MAX_REPR else text[:MAX_REPR - 4] + " ..."


def html_head(frame, rows: int = 20) -> str:
    """The head of a result's ``to_frame()`` as an HTML table."""
    return frame.head(rows).to_html(index=False)
