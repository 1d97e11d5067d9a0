"""Shared look of every evalband figure: colour-blind-safe colours, sizes that grow with the number of labels, and
byte-stable PNG/SVG output.

Figures are built on :class:`matplotlib.figure.Figure` directly (no pyplot state), so the report can draw many
of them without leaking figures or touching the user's backend.
"""

from __future__ import annotations

import io

import numpy as np
from ..._validate import ArgumentError, MissingExtraError
from ..._words import words

__all__ = ["require_matplotlib", "new_axes", "OKABE_ITO", "GREY", "categorical_colors", "save_figure",
           "figure_bytes", "label_fontsize", "rc", "text_only", "plain_text", "TEXT_ONLY"]

#: Okabe & Ito (2008) colour-blind-safe palette (black left out), then Paul Tol's 'muted' scheme for more.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")
_TOL_MUTED = ("#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499")
#: colour of 'undecided' regions and cells
GREY = "#C8C8C8"

#: names from the user's files are drawn as text, never parsed as mathtext ('$5 vs $10', '$\\badcmd{$')
TEXT_ONLY = {"text.parse_math": False}

#: settings applied while drawing and saving; 'svg.hashsalt' makes SVG ids stable across runs
rc = {
    **TEXT_ONLY,
    "svg.hashsalt": "evalband",
    "svg.fonttype": "path",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 100,
    "savefig.dpi": 110,
    "path.simplify": True,
}


def require_matplotlib():
    """Import matplotlib or say which extra to install."""
    try:
        import matplotlib
        import matplotlib.figure  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingExtraError("plots need matplotlib: pip install 'evalband[report]'") from exc
    return matplotlib


def new_axes(ax, *, width: float = 6.4, height: float = 4.0):
    """Return ``ax`` or a fresh Axes on a new pyplot-free Figure of the given size (inches)."""
    if ax is not None:
        return ax
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig.add_subplot()


def categorical_colors(n: int) -> list[str]:
    """``n`` distinguishable colour-blind-safe colours (cycling only beyond 16)."""
    base = list(OKABE_ITO) + list(_TOL_MUTED)
    return [base[i % len(base)] for i in range(n)]


def label_fontsize(n_labels: int) -> float:
    """Tick-label font size for ``n_labels`` labels on one axis."""
    return 9.0 if n_labels <= 16 else 8.0 if n_labels <= 30 else 7.0


def rows_height(n_rows: int, *, per_row: float = 0.26, extra: float = 1.3, minimum: float = 2.6) -> float:
    """Figure height (inches) giving each of ``n_rows`` labelled rows room for its label."""
    return max(minimum, per_row * n_rows + extra)


def save_figure(fig, path=None, *, format: str = "png"):
    """Save ``fig`` as PNG or SVG with no date or version metadata (identical input gives identical bytes).

    Returns the bytes when ``path`` is None.
    """
    matplotlib = require_matplotlib()
    fmt = format.lower()
    if fmt not in ("png", "svg"):
        raise ArgumentError(f"`format` must be 'png' or 'svg'; got {format!r}.")
    metadata = {"Software": None} if fmt == "png" else {"Date": None, "Creator": None}
    buf = io.BytesIO()
    with matplotlib.rc_context(rc):
        fig.savefig(buf, format=fmt, metadata=metadata)
    data = buf.getvalue()
    if path is None:
        return data
    from ..._files import write_atomic

    write_atomic(path, data)  # whole or not at all
    return None


def figure_bytes(fig, format: str = "png") -> bytes:
    """The figure as PNG or SVG bytes (deterministic)."""
    return save_figure(fig, None, format=format)


def sort_order(values, *, descending: bool = True) -> np.ndarray:
    """Stable order of ``values`` (NaN last)."""
    v = np.asarray(values, dtype=np.float64)
    key = np.where(np.isnan(v), -np.inf if descending else np.inf, v)
    return np.argsort(-key if descending else key, kind="stable")


def plain_text(result):
    """Mark every text of the figure holding ``result`` (an Axes or a Figure) as plain text (no mathtext), so
    that drawing it later, outside evalband's settings, shows names as written. Returns ``result``."""
    fig = getattr(result, "figure", result)
    if fig is not None and hasattr(fig, "findobj"):
        from matplotlib.text import Text

        for text in fig.findobj(Text):
            text.set_parse_math(False)
    return result


def text_only(func):
    """Decorator of every plot function: names are drawn as text, never as mathtext (the one helper for it)."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        matplotlib = require_matplotlib()
        with matplotlib.rc_context(TEXT_ONLY):
            return plain_text(func(*args, **kwargs))

    return wrapper


def styled(func):
    """Run a plot function inside the evalband rc settings (fonts are fixed when artists are created); names
    are drawn as text (:func:`text_only`)."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        matplotlib = require_matplotlib()
        with matplotlib.rc_context(rc):
            return plain_text(func(*args, **kwargs))

    return wrapper


def as_pair(interval, n: int, name: str):
    """(low, high) arrays of length ``n`` from a ConfidenceInterval, a (2, n) array or a (low, high) tuple."""
    if interval is None:
        return None
    low, high = (interval.low, interval.high) if hasattr(interval, "low") else interval
    low = np.asarray(low, dtype=np.float64).reshape(-1)
    high = np.asarray(high, dtype=np.float64).reshape(-1)
    if low.shape != (n,) or high.shape != (n,):
        raise ArgumentError(words('`{arg:{name}}` must hold {n} lows and {n} highs; got shapes {shape} and {shape2}.', name=name, n=n, shape=low.shape, shape2=high.shape))
    return low, high
