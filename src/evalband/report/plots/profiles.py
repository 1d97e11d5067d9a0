"""Plots of the tests over tasks that are not the CD diagram: performance profiles with bootstrap bands
(rliable's figure) and the simplex of Bayesian signed-rank posterior samples (Benavoli et al. 2017).

Both take the computed result and an optional Axes (``ax=None`` draws on a new Figure) and return the Axes.
"""

from __future__ import annotations

import numpy as np
from ..._validate import MissingExtraError

from .style import text_only

__all__ = ["plot_performance_profile", "plot_simplex"]

_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#332288", "#88CCEE",
           "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499")


def _new_axes(ax, width, height):
    if ax is not None:
        return ax
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - only without the extra
        raise MissingExtraError("plots need matplotlib: pip install 'evalband[report]'") from exc
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig.add_subplot()


@text_only
def plot_performance_profile(profile, *, ax=None, models=None, colors=None, xlabel: str | None = None,
                             legend: bool = True, log_x: bool = False):
    """Draw performance profiles with their bootstrap bands.

    Parameters
    ----------
    profile : PerformanceProfile
        From :func:`evalband.tasks.performance_profile`.
    ax : matplotlib Axes, optional
    models : sequence of str, optional
        Subset and order of the models drawn.
    colors : sequence of colours, optional
    xlabel : str, optional
        Default "score threshold tau".
    legend : bool, default True
    log_x : bool, default False
        Symmetric-log x axis, for heavy-tailed normalized scores.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _new_axes(ax, 6.4, 4.0)
    names = list(profile.models) if models is None else list(models)
    colors = list(colors) if colors is not None else [_COLORS[i % len(_COLORS)] for i in range(len(names))]
    for name, color in zip(names, colors):
        i = profile.models.index(name)
        ax.plot(profile.taus, profile.profile[i], color=color, linewidth=1.6, label=name)
        ax.fill_between(profile.taus, profile.low[i], profile.high[i], color=color, alpha=0.2, linewidth=0)
    what = "runs" if profile.kind == "runs" else "tasks"
    ax.set_xlabel(xlabel or "score threshold \u03c4")
    ax.set_ylabel(f"fraction of {what} with score > \u03c4")
    ax.set_ylim(-0.02, 1.02)
    if log_x:
        ax.set_xscale("symlog", linthresh=1.0)
    ax.grid(alpha=0.25)
    if legend:
        ax.legend(frameon=False, fontsize="small")
    return ax


@text_only
def plot_simplex(result, *, ax=None, max_points: int = 5000, color="#0072B2", rng=0):
    """Scatter Bayesian signed-rank posterior samples on the probability simplex.

    The triangle's corners are "a better" (bottom left), "b better" (bottom right) and "equivalent" (top); each
    posterior draw (P(a better), P(equivalent), P(b better)) is placed at the matching convex combination of
    the corners. Thin lines split the triangle into the regions where each probability is the largest.

    Parameters
    ----------
    result : BayesSignedRankResult
        From :func:`evalband.tasks.bayes_signed_rank`.
    ax : matplotlib Axes, optional
    max_points : int, default 5000
        At most this many draws are drawn (a seeded subsample).
    color : colour
    rng : seed for the subsample

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _new_axes(ax, 4.6, 4.2)
    samples = np.asarray(result.samples)
    if samples.shape[0] > max_points:
        pick = np.random.default_rng(rng).choice(samples.shape[0], max_points, replace=False)
        samples = samples[pick]
    corners = np.array([[0.0, 0.0], [0.5, np.sqrt(3) / 2], [1.0, 0.0]])  # a better, equivalent, b better
    xy = samples @ corners
    ax.plot(*np.vstack([corners, corners[:1]]).T, color="black", linewidth=1.0)
    centre = corners.mean(axis=0)
    for i in range(3):
        mid = (corners[i] + corners[(i + 1) % 3]) / 2
        ax.plot([centre[0], mid[0]], [centre[1], mid[1]], color="grey", linewidth=0.6, linestyle=":")
    ax.scatter(xy[:, 0], xy[:, 1], s=3, alpha=0.15, color=color, linewidths=0, rasterized=True)
    labels = (f"{result.model_a} better\n{result.prob_a_better:.3f}",
              f"equivalent (ROPE \u00b1{result.rope:g})\n{result.prob_equivalent:.3f}",
              f"{result.model_b} better\n{result.prob_b_better:.3f}")
    ax.text(*(corners[0] + [-0.02, -0.03]), labels[0], ha="center", va="top")
    ax.text(*(corners[1] + [0, 0.03]), labels[1], ha="center", va="bottom")
    ax.text(*(corners[2] + [0.02, -0.03]), labels[2], ha="center", va="top")
    ax.set_xlim(-0.15, 1.15)
    ax.set_ylim(-0.18, 1.05)
    ax.set_aspect("equal")
    ax.set_axis_off()
    return ax
