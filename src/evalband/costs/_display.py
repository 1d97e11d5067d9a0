"""Short ``__repr__`` of the results of this package (what it is, shape, headline, the head of its frame); numbers
as :mod:`evalband.display` writes them. Notebook HTML and ``str()`` come from :func:`evalband.display.displayed`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..display import format_short

__all__ = ["short_repr", "MAX_REPR"]

#: longest repr, in characters
MAX_REPR = 2000
#: rows shown by a repr / an HTML head
HEAD_ROWS = 8


def _cell(v) -> str:
    if isinstance(v, (float, np.floating)):
        return format_short(v)
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        text = ", ".join(map(str, v)) or "-"
        return text if len(text) <= 40 else text[:37] + "..."
    text = str(v)
    return text if len(text) <= 40 else text[:37] + "..."


def short_repr(title: str, frame: pd.DataFrame, columns, *, headline: str | None = None) -> str:
    """A few lines: the title, an optional headline, and the head of ``frame[columns]``, at most 2,000 chars."""
    lines = [title]
    if headline:
        lines.append(headline if len(headline) <= 600 else headline[:596] + " ...")
    cols = [c for c in columns if c in frame.columns]
    head = frame[cols].head(HEAD_ROWS)
    cells = [[_cell(v) for v in row] for row in head.itertuples(index=False)]
    widths = [max([len(c)] + [len(r[k]) for r in cells]) for k, c in enumerate(cols)]
    lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for r in cells:
        lines.append("  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)))
    if len(frame) > HEAD_ROWS:
        lines.append(f"  ... {len(frame) - HEAD_ROWS} more rows (.to_frame())")
    text = "\n".join(line.rstrip() for line in lines)
    return text if len(text) <= MAX_REPR else text[:MAX_REPR - 4] + " ..."
