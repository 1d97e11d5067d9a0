"""The matrix of predicted win probabilities of a preference leaderboard (row model beats column model)."""

from __future__ import annotations

import numpy as np

from .style import GREY, label_fontsize, new_axes, styled
from ..._validate import ArgumentError

__all__ = ["win_probability_matrix"]


@styled
def win_probability_matrix(models, probability, low=None, high=None, *, ax=None, order=None, annotate=None,
                           title=None, cmap="PuOr"):
    """Predicted probability that the row model beats the column model, grey where its interval holds 1/2.

    Parameters
    ----------
    models : sequence of str
    probability : array, shape (M, M)
        ``probability[i, j]``: P(model i beats model j), a tie counting half (the diagonal is ignored).
    low, high : array, shape (M, M), optional
        The interval of each probability; cells whose interval includes 0.5 are drawn grey (not decided).
    order : sequence of int, optional
        Model order, best first (default: by mean probability of winning).
    annotate : bool, optional
        Write the probability (in percent) in each cell (default: up to 16 models).

    Returns
    -------
    matplotlib.axes.Axes
    """
    names = [str(m) for m in models]
    m = len(names)
    p = np.asarray(probability, dtype=np.float64)
    if p.shape != (m, m):
        raise ArgumentError(f"`probability` must be ({m}, {m}); got {p.shape}.")
    off = ~np.eye(m, dtype=bool)
    decided = off.copy()
    if low is not None and high is not None:
        lo, hi = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
        decided &= (lo > 0.5) | (hi < 0.5)
    if order is None:
        order = np.argsort(-np.nanmean(np.where(off, p, np.nan), axis=1), kind="stable")
    order = np.asarray(order)
    shown = p[np.ix_(order, order)]
    dec = decided[np.ix_(order, order)]
    ax = new_axes(ax, width=max(4.5, 0.3 * m + 2.8), height=max(3.8, 0.3 * m + 1.8))
    from matplotlib.colors import ListedColormap

    ax.imshow(np.where(off[np.ix_(order, order)], 0.0, np.nan), cmap=ListedColormap([GREY]), aspect="equal",
              interpolation="nearest")
    im = ax.imshow(np.ma.masked_where(~dec, shown), cmap=cmap, vmin=0.0, vmax=1.0, aspect="equal",
                   interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, shrink=0.7, label="P(row beats column); grey: interval holds 50%")
    fs = label_fontsize(m)
    ax.set_yticks(np.arange(m), [names[i] for i in order], fontsize=fs)
    ax.set_xticks(np.arange(m), [names[i] for i in order], fontsize=fs, rotation=50, ha="right",
                  rotation_mode="anchor")
    ax.spines[:].set_visible(False)
    if annotate is None:
        annotate = m <= 16
    if annotate:
        size = max(4.5, min(8.0, 110.0 / max(m, 1)))
        for r in range(m):
            for c in range(m):
                if r != c and np.isfinite(shown[r, c]):
                    dark = dec[r, c] and abs(shown[r, c] - 0.5) > 0.3
                    ax.text(c, r, f"{100 * shown[r, c]:.0f}", ha="center", va="center", fontsize=size,
                            color="white" if dark else "black")
    if title:
        ax.set_title(title)
    return ax
