"""Plots of latent-ability models: which model was measured on which task (the coverage of a sparse leaderboard),
the held-out check of the predictive intervals, and where on the ability scale each task discriminates."""

from __future__ import annotations

import numpy as np

from .style import GREY, OKABE_ITO, label_fontsize, new_axes, styled
from ..._validate import ArgumentError

__all__ = ["coverage_map", "holdout_plot", "information_ranges"]


def _matrix_height(n_rows: int) -> float:
    """Inches for ``n_rows`` rows of a matrix: readable labels for tens of models, a bounded figure for hundreds."""
    return float(min(40.0, max(2.8, 0.16 * n_rows + 1.6)))


@styled
def coverage_map(models, tasks, observed, *, held_out=None, order=None, ax=None, scale=100.0, title=None,
                 cmap="cividis"):
    """Which model was measured on which task: each measured cell coloured by its score, cells not measured
    left blank, cells held out for the model check ringed.

    Parameters
    ----------
    models, tasks : sequence of str
    observed : array, shape (M, T)
        The measured score of each cell (a fraction), NaN where the model was not run on the task.
    held_out : array of bool, shape (M, T), optional
        Cells left out of the refit of the held-out check (drawn with a ring).
    order : sequence of int, optional
        Row order, top first (e.g. by ability); default as given.
    scale : float
        Display multiplier of the colour bar (100: percent).
    ax : matplotlib Axes, optional
    cmap : str

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.report.plots.latent import coverage_map
    >>> ax = coverage_map(["a", "b"], ["x", "y"], np.array([[0.7, np.nan], [0.5, 0.2]]))
    >>> ax.get_xlabel()
    'task (columns ordered by how many models were measured on them)'
    """
    names, tnames = [str(m) for m in models], [str(t) for t in tasks]
    M, T = len(names), len(tnames)
    y = np.asarray(observed, dtype=np.float64)
    if y.shape != (M, T):
        raise ArgumentError(f"`observed` must be shaped (models, tasks) = ({M}, {T}); got {y.shape}.")
    rows = np.arange(M) if order is None else np.asarray(order, dtype=int)
    cols = np.argsort(-np.isfinite(y).sum(axis=0), kind="stable")  # the most measured tasks first
    shown = y[np.ix_(rows, cols)] * scale
    ax = new_axes(ax, width=float(min(16.0, max(5.0, 0.22 * T + 3.0))), height=_matrix_height(M))
    image = ax.imshow(np.ma.masked_invalid(shown), aspect="auto", cmap=cmap, vmin=0.0, vmax=scale,
                      interpolation="nearest")
    ax.set_facecolor("white")
    if held_out is not None:
        h = np.asarray(held_out, dtype=bool)
        if h.shape != (M, T):
            raise ArgumentError(f"`held_out` must be shaped ({M}, {T}); got {h.shape}.")
        r, c = np.nonzero(h[np.ix_(rows, cols)])
        if r.size:
            ax.scatter(c, r, s=14 if M <= 60 else 6, facecolors="none", edgecolors=OKABE_ITO[5], linewidths=0.8,
                       label="held out for the model check")
            ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=7.5,
                      borderaxespad=0.2)
    ax.set_xticks(np.arange(T), [tnames[k] for k in cols], rotation=90, fontsize=label_fontsize(T) - 1)
    ax.set_yticks(np.arange(M), [names[k] for k in rows], fontsize=max(4.0, label_fontsize(M) - (1 if M > 60 else 0)
                                                                        - (2 if M > 120 else 0)))
    ax.set_xlabel("task (columns ordered by how many models were measured on them)")
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    bar = ax.figure.colorbar(image, ax=ax, shrink=min(1.0, 4.0 / _matrix_height(M)), pad=0.01, anchor=(0.0, 1.0),
                             panchor=(1.0, 1.0))
    bar.set_label("measured score" + (" (%)" if scale == 100 else "") + "; blank: not measured")
    if title:
        ax.set_title(title)
    return ax


@styled
def holdout_plot(observed, predicted, low, high, covered, *, ax=None, scale=100.0, confidence_level=0.95,
                 title=None):
    """The held-out check: each held-out cell's measured score against its prediction, with its predictive
    interval as a vertical bar; cells whose interval misses the measured score in orange.

    Parameters
    ----------
    observed, predicted, low, high : array, shape (K,)
        Measured score, prediction and predictive interval of the held-out cells (fractions).
    covered : array of bool, shape (K,)
    scale : float
        Display multiplier (100: percent).
    confidence_level : float
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from evalband.report.plots.latent import holdout_plot
    >>> ax = holdout_plot([0.5, 0.8], [0.45, 0.6], [0.3, 0.5], [0.6, 0.7], [True, False])
    >>> ax.get_ylabel()
    'measured score (%)'
    """
    arrays = [np.asarray(v, dtype=np.float64).reshape(-1) * scale for v in (observed, predicted, low, high)]
    ok = np.asarray(covered, dtype=bool).reshape(-1)
    if any(a.shape != ok.shape for a in arrays):
        raise ArgumentError("`observed`, `predicted`, `low`, `high` and `covered` must have one value per held-out"
                            f" cell; got shapes {[a.shape for a in arrays]} and {ok.shape}.")
    y, p, lo, hi = arrays
    ax = new_axes(ax, width=5.2, height=4.6)
    ax.plot([0, scale], [0, scale], color=GREY, lw=1.0, zorder=1)
    for mask, color, label in ((ok, OKABE_ITO[0], f"in its {confidence_level:.0%} predictive interval"),
                               (~ok, OKABE_ITO[5], "outside it")):
        if mask.any():
            ax.vlines(p[mask], lo[mask], hi[mask], color=color, lw=0.8, alpha=0.45, zorder=2)
            ax.plot(p[mask], y[mask], "o", ms=3.0, color=color, label=f"{label} ({int(mask.sum())})", zorder=3)
    unit = " (%)" if scale == 100 else ""
    ax.set_xlabel(f"predicted score{unit} (from the refit without these cells)")
    ax.set_ylabel(f"measured score{unit}")
    ax.set_xlim(0, scale)
    ax.set_ylim(0, scale)
    ax.set_aspect("equal")
    ax.legend(loc="upper left", fontsize=7.5, frameon=False)
    if title:
        ax.set_title(title)
    return ax


@styled
def information_ranges(tasks, peak, low, high, *, abilities=None, ax=None, title=None):
    """Where on the ability scale each task discriminates: a bar over the abilities where its information is at
    least half its peak, a dot at the peak; the models' abilities as ticks along the axis.

    Parameters
    ----------
    tasks : sequence of str
    peak, low, high : array, shape (T,)
        The ability of peak information and the range above half of it (NaN: the task carries none).
    abilities : array, optional
        The models' abilities (a rug under the bars).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from evalband.report.plots.latent import information_ranges
    >>> ax = information_ranges(["t1", "t2"], [0.0, 1.5], [-1.0, 0.5], [1.0, 2.5], abilities=[-0.5, 0.3])
    >>> ax.get_xlabel()
    'ability (standardized)'
    """
    names = [str(t) for t in tasks]
    T = len(names)
    pk, lo, hi = (np.asarray(v, dtype=np.float64).reshape(-1) for v in (peak, low, high))
    if not (pk.shape == lo.shape == hi.shape == (T,)):
        raise ArgumentError(f"`peak`, `low` and `high` must hold one value per task ({T}); got {pk.shape},"
                            f" {lo.shape}, {hi.shape}.")
    ax = new_axes(ax, width=6.4, height=float(max(2.6, 0.26 * T + 1.5)))
    y = np.arange(T)[::-1]
    ax.hlines(y, lo, hi, color=OKABE_ITO[0], lw=4.0, alpha=0.6, label="information at least half its peak")
    ax.plot(pk, y, "o", color="black", ms=3.5, label="peak information")
    if abilities is not None:
        a = np.asarray(abilities, dtype=np.float64).reshape(-1)
        ax.plot(a, np.full(a.size, -0.9), "|", color=OKABE_ITO[5], ms=8, label="models' abilities")
    ax.set_yticks(y, names, fontsize=label_fontsize(T))
    ax.set_ylim(-1.4, T - 0.4)
    ax.set_xlabel("ability (standardized)")
    ax.grid(axis="x", color=GREY, lw=0.5, alpha=0.6)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=7.5, frameon=False,
              borderaxespad=0.2)
    if title:
        ax.set_title(title)
    return ax
