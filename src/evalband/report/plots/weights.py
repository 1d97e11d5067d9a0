"""Plots of task-weight sensitivity (``evalband.weights``): a simplex map for three groups, a line for two, and
the share of weight space each model wins for more."""

from __future__ import annotations

import numpy as np

from .style import GREY, categorical_colors, label_fontsize, new_axes, rows_height, styled
from ..._validate import ArgumentError

__all__ = ["weight_sensitivity_plot", "simplex_map", "weight_line_plot", "weight_shares_plot"]


def _winner_colors(result):
    """Colours for the models that win somewhere, by share (largest first), and the share of each."""
    counts = np.bincount(result.winner + 1, minlength=len(result.models) + 1)
    winners = [int(i) for i in np.argsort(-counts[1:], kind="stable") if counts[1 + i] > 0]
    colors = dict(zip(winners, categorical_colors(len(winners))))
    share = counts / counts.sum()
    return winners, colors, share


def _legend(ax, result, winners, colors, share, **kw):
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=colors[i], label=f"{result.models[i]} ({share[1 + i]:.0%})") for i in winners]
    handles.append(Patch(facecolor=GREY, label=f"undecided ({share[0]:.0%})"))
    ax.legend(handles=handles, title=f"significantly best (lead > {result.z:g} SE)", title_fontsize=8,
              fontsize=7.5, frameon=False, **kw)


@styled
def simplex_map(result, *, ax=None, title=None, mark_equal=True):
    """Triangle of three-group weightings coloured by the significantly best model, grey where undecided.

    Parameters
    ----------
    result : WeightSensitivity
        With ``layout == 'simplex'``.
    mark_equal : bool
        Mark the equal-weights point (the plain mean of group means).

    Returns
    -------
    matplotlib.axes.Axes
    """
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Polygon

    from ...weights import barycentric_to_xy
    from ...weights import SIMPLEX_CORNERS

    if result.layout != "simplex":
        raise ArgumentError(f"`result` must cover three groups on a grid (layout 'simplex'); got {result.layout!r}.")
    ax = new_axes(ax, width=6.6, height=4.6)
    xy = barycentric_to_xy(result.weights)
    winners, colors, share = _winner_colors(result)
    face = np.array([colors.get(int(w), GREY) if w >= 0 else GREY for w in result.winner], dtype=object)
    h = 1.0 / result.resolution
    ang = np.deg2rad(np.arange(30, 390, 60))
    hexagon = np.column_stack([np.cos(ang), np.sin(ang)]) * (h / np.sqrt(3) * 1.02)
    cells = xy[:, None, :] + hexagon[None, :, :]
    coll = PolyCollection(cells, facecolors=face, edgecolors="none", antialiased=False, rasterized=True)
    triangle = Polygon(SIMPLEX_CORNERS, closed=True, fill=False, edgecolor="black", lw=1.0)
    ax.add_patch(triangle)
    ax.add_collection(coll)
    coll.set_clip_path(triangle)
    # ticks every 0.2 along each edge
    for g in range(3):
        a, b = SIMPLEX_CORNERS[g], SIMPLEX_CORNERS[(g + 1) % 3]
        for t in (0.2, 0.4, 0.6, 0.8):
            p = a + t * (b - a)
            ax.plot(*p, marker="|", color="black", ms=3, mew=0.6,
                    transform=ax.transData)
    offsets = [(-0.02, -0.03, "right", "top"), (1.02, -0.03, "left", "top"), (0.5, 0.89, "center", "bottom")]
    for g, (x, y, ha, va) in enumerate(offsets):
        ax.text(x, y, f"{result.groups[g]}\n(weight 1)", ha=ha, va=va, fontsize=8.5, fontweight="bold")
    if mark_equal:
        ax.plot(1 / 2, np.sqrt(3) / 6, marker="*", ms=9, mfc="white", mec="black", mew=0.8, ls="none",
                label="equal weights")
    ax.set_xlim(-0.3, 1.3)
    ax.set_ylim(-0.16, 1.02)
    ax.set_aspect("equal")
    ax.axis("off")
    _legend(ax, result, winners, colors, share, loc="upper left", bbox_to_anchor=(0.72, 1.0))
    ax.text(0.0, -0.14, "★ equal weights; each vertex puts all weight on one task group", fontsize=7,
            color="#444444")
    if title:
        ax.set_title(title)
    return ax


@styled
def weight_line_plot(result, *, ax=None, title=None, scale=100.0, max_models=6):
    """Two groups: each leading model's weighted score along the weight line, with the verdict as a band."""
    if result.layout != "line":
        raise ArgumentError(f"`result` must cover two groups (layout 'line'); got {result.layout!r}.")
    ax = new_axes(ax, width=6.4, height=4.0)
    t = result.weights[:, 1]
    winners, colors, share = _winner_colors(result)
    shown = list(dict.fromkeys(list(result.best) + list(result.runner_up)))
    shown = sorted(shown, key=lambda i: -result.scores[:, i].max())[:max_models]
    palette = categorical_colors(len(shown) + len(winners))
    line_colors = {i: colors.get(i, palette[len(winners) + k]) for k, i in enumerate(shown)}
    for i in shown:
        ax.plot(t, result.scores[:, i] * scale, color=line_colors[i], lw=1.6, label=result.models[i])
    lo = np.nanmin(result.scores[:, shown]) * scale
    hi = np.nanmax(result.scores[:, shown]) * scale
    band = (hi - lo) * 0.08 or 1.0
    step = t[1] - t[0] if len(t) > 1 else 1.0
    for k in range(len(t)):
        w = result.winner[k]
        ax.axvspan(t[k] - step / 2, t[k] + step / 2, ymin=0, ymax=0.06, color=colors.get(int(w), GREY),
                   lw=0)
    ax.set_ylim(lo - 2 * band, hi + band)
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"weight on {result.groups[1]} (the rest on {result.groups[0]})")
    ax.set_ylabel("weighted score" + (" (%)" if scale == 100 else ""))
    ax.grid(color=GREY, lw=0.5, alpha=0.6)
    ax.legend(fontsize=7.5, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.6))
    ax.text(1.02, 0.02, "bottom band: significantly\nbest model (grey: undecided)", transform=ax.transAxes,
            fontsize=7, va="bottom")
    if title:
        ax.set_title(title)
    return ax


@styled
def weight_shares_plot(result, *, ax=None, title=None):
    """More than three groups: share of (Dirichlet-sampled) weightings where each model is significantly best."""
    frame = result.shares()
    frame = frame[(frame["points"] > 0) | (frame["model"] == "undecided")]
    n = len(frame)
    ax = new_axes(ax, width=6.0, height=rows_height(n, extra=1.4))
    y = np.arange(n)[::-1]
    winners, colors, _ = _winner_colors(result)
    index = {m: i for i, m in enumerate(result.models)}
    col = [GREY if m == "undecided" else colors.get(index[m], GREY) for m in frame["model"]]
    se = frame["share_se"].to_numpy()
    ax.barh(y, frame["share"] * 100, color=col, xerr=None if np.isnan(se).all() else 2 * se * 100,
            error_kw=dict(lw=0.8, capsize=2))
    for yy, s, e in zip(y, frame["share"], np.nan_to_num(se)):
        ax.text((s + 2 * e) * 100 + 1.5, yy, f"{s:.1%}", va="center", fontsize=7.5)
    ax.set_yticks(y, list(frame["model"]), fontsize=label_fontsize(n))
    ax.set_xlim(0, 110)
    ax.set_xlabel(f"weightings where significantly best (%)\nlead > {result.z:g} SE; bars ±2 Monte Carlo SE")
    if title:
        ax.set_title(title)
    return ax


def weight_sensitivity_plot(result, *, ax=None, title=None):
    """The plot that fits ``result.layout``: line (2 groups), simplex map (3) or shares (more)."""
    if result.layout == "simplex":
        return simplex_map(result, ax=ax, title=title)
    if result.layout == "line":
        return weight_line_plot(result, ax=ax, title=title)
    return weight_shares_plot(result, ax=ax, title=title)
