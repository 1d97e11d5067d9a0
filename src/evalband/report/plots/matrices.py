"""Matrix plots: per-task scores with interval widths, and the pairwise-difference matrix with verdicts."""

from __future__ import annotations

import numpy as np

from .style import GREY, label_fontsize, new_axes, sort_order, styled
from ..._validate import ArgumentError

__all__ = ["task_heatmap", "pairwise_matrix"]


#: the heatmap writes values in its cells up to this many tasks (columns) and models (rows); beyond, the cells
#: are too small for numbers one can read, and the figure shows colours only
MAX_ANNOTATED_TASKS = 15
MAX_ANNOTATED_MODELS = 40


def annotates(n_models: int, n_tasks: int) -> bool:
    """Whether :func:`task_heatmap` writes the values in its cells (the one rule; the report's caption says it)."""
    return n_tasks <= MAX_ANNOTATED_TASKS and n_models <= MAX_ANNOTATED_MODELS


def _cell_fontsize(n_rows: int, n_cols: int) -> float:
    # cells are 0.3 in high and 0.55 in wide whatever their number, so two lines of 6.5 pt fit
    return 7.0 if max(n_rows, n_cols) <= 12 else 6.5


@styled
def task_heatmap(models, tasks, estimate, width=None, *, ax=None, sort=True, scale=100.0, annotate=None,
                 title=None, cmap="cividis"):
    """Each model's score on each task, with the interval width (±half-width) written in each cell.

    Parameters
    ----------
    models, tasks : sequence of str
    estimate : array, shape (M, T)
    width : array, shape (M, T), optional
        Full width of each cell's confidence interval; shown as ``±width/2`` under the estimate.
    sort : bool
        Rows ordered by the mean over tasks, best at the top.
    scale : float
        Display multiplier (100: percent).
    annotate : bool, optional
        Write values in cells; default :func:`annotates` (at most 15 tasks and 40 models).
    cmap : str
        Colour map (default 'cividis', designed for colour-vision deficiency).

    Returns
    -------
    matplotlib.axes.Axes
    """
    names, tnames = [str(m) for m in models], [str(t) for t in tasks]
    M, T = len(names), len(tnames)
    est = np.asarray(estimate, dtype=np.float64)
    if est.shape != (M, T):
        raise ArgumentError(f"`estimate` must be shaped (models, tasks) = ({M}, {T}); got {est.shape}.")
    wid = None if width is None else np.asarray(width, dtype=np.float64)
    if wid is not None and wid.shape != (M, T):
        raise ArgumentError(f"`width` must be shaped ({M}, {T}); got {wid.shape}.")
    order = sort_order(np.nanmean(est, axis=1)) if sort else np.arange(M)
    longest = max(len(t) for t in tnames)
    ax = new_axes(ax, width=min(16.0, max(5.5, 0.55 * T + 2.2)),
                  height=max(2.8, 0.3 * M + 0.9 + 0.065 * longest))
    shown = est[order] * scale
    im = ax.imshow(shown, cmap=cmap, aspect="auto", interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label="score" + (" (%)" if scale == 100 else ""))
    ax.set_yticks(np.arange(M), [names[i] for i in order], fontsize=label_fontsize(M))
    ax.set_xticks(np.arange(T), tnames, fontsize=label_fontsize(T), rotation=50, ha="right",
                  rotation_mode="anchor")
    ax.spines[:].set_visible(False)
    if annotate is None:
        annotate = annotates(M, T)
    if annotate:
        fs = _cell_fontsize(M, T)
        lo, hi = np.nanmin(shown), np.nanmax(shown)
        mid = (lo + hi) / 2
        for r in range(M):
            for c in range(T):
                v = shown[r, c]
                if not np.isfinite(v):
                    continue
                text = f"{v:.1f}" if scale == 100 else f"{v:.3g}"
                if wid is not None and np.isfinite(wid[order[r], c]):
                    text += f"\n±{wid[order[r], c] * scale / 2:.1f}" if scale == 100 else \
                        f"\n±{wid[order[r], c] * scale / 2:.2g}"
                ax.text(c, r, text, ha="center", va="center", fontsize=fs, linespacing=0.95,
                        color="black" if v > mid else "white")
    if title:
        ax.set_title(title)
    return ax


@styled
def pairwise_matrix(models, difference, verdict, *, ax=None, order=None, scale=100.0, annotate=None, title=None,
                    cmap="PuOr"):
    """Pairwise differences (row model minus column model), coloured where the difference is decided.

    Parameters
    ----------
    models : sequence of str
    difference : array, shape (M, M)
        ``difference[i, j]`` = score of model i minus score of model j.
    verdict : array of bool, shape (M, M)
        True where the difference is decided (its interval excludes zero after any multiplicity control).
        Undecided cells are drawn grey.
    order : sequence of int, optional
        Model order (default: by mean difference, best first).
    scale : float
        Display multiplier for the written differences (100: percentage points).

    Returns
    -------
    matplotlib.axes.Axes
    """
    names = [str(m) for m in models]
    M = len(names)
    diff = np.asarray(difference, dtype=np.float64)
    dec = np.asarray(verdict, dtype=bool)
    if diff.shape != (M, M) or dec.shape != (M, M):
        raise ArgumentError(f"`difference` and `verdict` must be ({M}, {M}); got {diff.shape} and {dec.shape}.")
    if order is None:
        order = sort_order(np.nanmean(np.where(np.eye(M, dtype=bool), np.nan, diff), axis=1))
    order = np.asarray(order)
    d = diff[np.ix_(order, order)] * scale
    k = dec[np.ix_(order, order)]
    ax = new_axes(ax, width=max(4.5, 0.3 * M + 2.8), height=max(3.8, 0.3 * M + 1.8))
    from matplotlib.colors import ListedColormap, TwoSlopeNorm

    vmax = np.nanmax(np.abs(d[k])) if k.any() else 1.0
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-vmax, vmax=vmax)
    masked = np.ma.masked_where(~k, d)
    ax.imshow(np.where(np.eye(M, dtype=bool), np.nan, 0.0), cmap=ListedColormap([GREY]), aspect="equal",
              interpolation="nearest")
    im = ax.imshow(masked, cmap=cmap, norm=norm, aspect="equal", interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, shrink=0.7, label="row − column" + (" (points)" if scale == 100 else "")
                        + "; grey: undecided")
    fs = label_fontsize(M)
    ax.set_yticks(np.arange(M), [names[i] for i in order], fontsize=fs)
    ax.set_xticks(np.arange(M), [names[i] for i in order], fontsize=fs, rotation=50, ha="right",
                  rotation_mode="anchor")
    ax.spines[:].set_visible(False)
    if annotate is None:
        annotate = M <= 16
    if annotate:
        cf = _cell_fontsize(M, M)
        for r in range(M):
            for c in range(M):
                if r != c and np.isfinite(d[r, c]):
                    ax.text(c, r, f"{d[r, c]:+.1f}" if scale == 100 else f"{d[r, c]:+.2g}", ha="center",
                            va="center", fontsize=cf, color="black" if (not k[r, c] or abs(d[r, c]) < 0.6 * vmax)
                            else "white")
    if title:
        ax.set_title(title)
    return ax
