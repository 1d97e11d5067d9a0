"""Where the variance comes from: each model's variance of the mean split into its components, with intervals."""

from __future__ import annotations

import numpy as np

from .style import categorical_colors, label_fontsize, new_axes, rows_height, styled
from ..._validate import ArgumentError

__all__ = ["variance_shares_plot"]


@styled
def variance_shares_plot(frame, *, ax=None, title=None):
    """Stacked horizontal bars: each row (model and task) is its variance of the mean, split into the shares of
    its components (items, each facet, interactions, trials), with each share's interval as a whisker at the end
    of its segment.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows of :meth:`evalband.facets.VarianceComponents.to_frame`: ``model``, ``task``, ``component``,
        ``share``, ``share_low``, ``share_high``.
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    need = {"model", "task", "component", "share", "share_low", "share_high"}
    if not need <= set(frame.columns):
        raise ArgumentError(f"`frame` needs columns {', '.join(sorted(need))}; got {', '.join(frame.columns)}.")
    tasks = list(dict.fromkeys(frame["task"]))
    keys = list(dict.fromkeys(zip(frame["model"], frame["task"])))
    labels = [m if len(tasks) == 1 else f"{m} / {t}" for m, t in keys]
    components = list(dict.fromkeys(frame["component"]))
    colors = categorical_colors(len(components))
    ax = new_axes(ax, width=7.2, height=rows_height(len(keys)))
    y = np.arange(len(keys))[::-1]
    left = np.zeros(len(keys))
    index = {k: i for i, k in enumerate(keys)}
    for c, color in zip(components, colors):
        sub = frame[frame["component"] == c]
        share = np.zeros(len(keys))
        lo = np.full(len(keys), np.nan)
        hi = np.full(len(keys), np.nan)
        for r in sub.itertuples():
            i = index[(r.model, r.task)]
            share[i], lo[i], hi[i] = r.share, r.share_low, r.share_high
        ax.barh(y, share, left=left, color=color, edgecolor="white", linewidth=0.6, label=c, height=0.7)
        end = left + share
        ok = np.isfinite(lo) & np.isfinite(hi) & (share > 0)
        if ok.any():
            err = np.vstack([np.maximum(share - lo, 0), np.maximum(hi - share, 0)])[:, ok]
            ax.errorbar(end[ok], y[ok], xerr=err, fmt="none", ecolor="#333333", elinewidth=0.8, capsize=2)
        left = end
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=label_fontsize(len(labels)))
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the variance of the mean (whiskers: interval of each share)")
    ax.xaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=min(len(components), 4), frameon=False,
              fontsize=8)
    if title:
        ax.set_title(title)
    return ax
