"""Interval plots: the forest plot of per-model aggregates and Bayesian vs bootstrap intervals side by side."""

from __future__ import annotations

import numpy as np

from .style import GREY, as_pair, categorical_colors, label_fontsize, new_axes, rows_height, sort_order, styled
from ..._validate import ArgumentError

__all__ = ["forest_plot", "interval_comparison_plot", "headline_plot", "narrow_intervals"]


@styled
def forest_plot(models, estimate, ci, ci_overlap=None, *, ax=None, sort=True, scale=1.0,
                xlabel="aggregate score", title=None, confidence_level=0.95, overlap_level=0.834, order=None):
    """Per-model estimates with a thin 95% interval and a thick 83.4% ("overlap") interval.

    Parameters
    ----------
    models : sequence of str
    estimate : array, shape (M,)
    ci : ConfidenceInterval or (low, high)
        The ``confidence_level`` interval of each model (thin bar).
    ci_overlap : ConfidenceInterval or (low, high), optional
        The ``overlap_level`` interval (thick bar): two models whose thick bars do not overlap differ at about
        the 5% level when their estimates are independent (Goldstein & Healy 1995).
    ax : matplotlib Axes, optional
    sort : bool
        Highest estimate at the top.
    scale : float
        Multiply values for display (100 for percent).
    order : sequence of int, optional
        Explicit model order, top first (e.g. by rank when lower is better); overrides ``sort``.

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    H. Goldstein, M. J. R. Healy (1995). The graphical presentation of a collection of means. JRSS A 158, 175-177.
    """
    names = [str(m) for m in models]
    M = len(names)
    est = np.asarray(estimate, dtype=np.float64).reshape(-1) * scale
    if est.shape != (M,):
        raise ArgumentError(f"`estimate` must hold one value per model ({M}); got shape {est.shape}.")
    lo, hi = (v * scale for v in as_pair(ci, M, "ci"))
    pair2 = as_pair(ci_overlap, M, "ci_overlap")
    ax = new_axes(ax, width=6.4, height=rows_height(M))
    if order is None:
        order = sort_order(est) if sort else np.arange(M)
    order = np.asarray(order)
    y = np.arange(M)[::-1]                      # first in order at the top
    color = categorical_colors(1)[0]
    ax.hlines(y, lo[order], hi[order], color=color, lw=1.2, label=f"{confidence_level:.0%} interval")
    if pair2 is not None:
        lo2, hi2 = (v * scale for v in pair2)
        ax.hlines(y, lo2[order], hi2[order], color=color, lw=4.5, alpha=0.55,
                  label=f"{overlap_level:.1%} interval (no overlap ≈ significant at 5%)")
    ax.plot(est[order], y, "o", color="black", ms=3.5, zorder=3, label="estimate")
    ax.set_yticks(y, [names[i] for i in order], fontsize=label_fontsize(M))
    ax.set_ylim(-0.7, M - 0.3)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", color=GREY, lw=0.5, alpha=0.6)
    ax.legend(loc="lower right" if sort else "best", fontsize=7.5, frameon=False)
    if title:
        ax.set_title(title)
    return ax


@styled
def interval_comparison_plot(models, intervals: dict, estimates: dict | None = None, *, ax=None, sort=True,
                             scale=1.0, xlabel="aggregate score", title=None, order=None):
    """Several interval methods per model, drawn side by side (e.g. Bayesian credible vs bootstrap intervals).

    Parameters
    ----------
    models : sequence of str
    intervals : dict
        Method label -> ConfidenceInterval or (low, high), each of length M.
    estimates : dict, optional
        Method label -> (M,) point estimates (posterior mean, observed mean).
    sort : bool
        Order models by the first method's estimate (or interval midpoint).
    order : sequence of int, optional
        Explicit model order, top first; overrides ``sort``.

    Returns
    -------
    matplotlib.axes.Axes
    """
    names = [str(m) for m in models]
    M = len(names)
    if not intervals:
        raise ArgumentError("`intervals` must name at least one method.")
    pairs = {k: tuple(v * scale for v in as_pair(ci, M, f"intervals[{k!r}]")) for k, ci in intervals.items()}
    ests = {k: np.asarray(v, dtype=np.float64).reshape(-1) * scale for k, v in (estimates or {}).items()}
    first = next(iter(pairs))
    key = ests.get(first, (pairs[first][0] + pairs[first][1]) / 2)
    if order is None:
        order = sort_order(key) if sort else np.arange(M)
    order = np.asarray(order)
    K = len(pairs)
    ax = new_axes(ax, width=6.4, height=rows_height(M, per_row=0.22 + 0.1 * K))
    y = np.arange(M)[::-1].astype(float)
    offsets = (np.arange(K) - (K - 1) / 2) * min(0.28, 0.8 / K)
    for (label, (lo, hi)), off, color in zip(pairs.items(), offsets, categorical_colors(K)):
        ax.hlines(y - off, lo[order], hi[order], color=color, lw=2.2, label=label)
        if label in ests:
            ax.plot(ests[label][order], y - off, "o", color=color, ms=3, mec="black", mew=0.4)
    ax.set_yticks(y, [names[i] for i in order], fontsize=label_fontsize(M))
    ax.set_ylim(-0.7, M - 0.3)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", color=GREY, lw=0.5, alpha=0.6)
    ax.legend(fontsize=7.5, frameon=False, loc="lower right")
    if title:
        ax.set_title(title)
    return ax


def narrow_intervals(estimate, ci, *, threshold: float = 0.05) -> bool:
    """Whether the intervals are too narrow to see beside the spread of the models: the median interval width is
    below ``threshold`` of the range the forest plot spans (VTAB: 0.5 points on a 35-point axis)."""
    est = np.asarray(estimate, dtype=np.float64).reshape(-1)
    lo, hi = as_pair(ci, len(est), "ci")
    span = np.nanmax(hi) - np.nanmin(lo)
    width = np.nanmedian(hi - lo)
    return bool(len(est) > 1 and span > 0 and np.isfinite(width) and width < threshold * span)


@styled
def headline_plot(models, estimate, ci, ci_overlap=None, *, difference, difference_ci, reference: int, scale=1.0,
                  xlabel="aggregate score", confidence_level=0.95, order=None, unit="points",
                  difference_label=None):
    """The forest plot with a second panel of each model's difference from a reference model (the leader), with
    the paired interval of that difference, for when the per-model intervals are too narrow to see.

    Parameters
    ----------
    models, estimate, ci, ci_overlap, scale, xlabel, confidence_level, order
        As :func:`forest_plot`.
    difference : array, shape (M,)
        Each model minus the reference (0 for the reference itself).
    difference_ci : (low, high)
        The paired interval of each difference (NaN for the reference).
    reference : int
        Index of the reference model.
    unit : str
        Unit of the differences after ``scale`` (for the axis label).
    difference_label : str, optional
        What the differences are from, for the axis label (default: "from" the reference model's name); e.g.
        "from the model above" when each row is a model minus its neighbour.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    names = [str(m) for m in models]
    M = len(names)
    d = np.asarray(difference, dtype=np.float64).reshape(-1) * scale
    dlo, dhi = (v * scale for v in as_pair(difference_ci, M, "difference_ci"))
    fig = Figure(figsize=(9.6, rows_height(M)), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2, sharey=True, width_ratios=(3, 2))
    forest_plot(models, estimate, ci, ci_overlap, ax=ax1, scale=scale, xlabel=xlabel,
                confidence_level=confidence_level, order=order)
    if order is None:
        order = sort_order(np.asarray(estimate, dtype=np.float64).reshape(-1))
    order = np.asarray(order)
    y = np.arange(M)[::-1]
    color = categorical_colors(1)[0]
    others = order[order != reference]
    yo = y[order != reference]
    ax2.hlines(yo, dlo[others], dhi[others], color=color, lw=1.8)
    ax2.plot(d[others], yo, "o", color="black", ms=3.5, zorder=3)
    ax2.plot([0], y[order == reference], "D", color=GREY, ms=4, zorder=3)
    ax2.axvline(0, color="#666666", lw=0.8)
    ax2.set_xlabel(f"difference {difference_label or 'from ' + names[reference]} ({unit})")
    ax2.grid(axis="x", color=GREY, lw=0.5, alpha=0.6)
    ax2.tick_params(axis="y", left=False)
    return fig
