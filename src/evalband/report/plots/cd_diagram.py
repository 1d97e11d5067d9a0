"""Critical-difference diagram (Demsar 2006): mean ranks on an axis, cliques of models not significantly different
joined by bars.

The better half of the models is labelled on the left, the other half on the right, one label per row, so labels
never overlap whatever the order of the ranks; rows and font size are set from the number of models (up to 30 and
beyond), and when an Axes is given the font shrinks to fit its height. Any post-hoc verdict can be drawn: the
Nemenyi critical difference, or a significance matrix (e.g. Holm-corrected signed-rank tests).
"""

from __future__ import annotations

import math

import numpy as np
from ..._validate import ArgumentError, MissingExtraError

from .style import text_only
from ..._words import words

__all__ = ["cd_diagram"]


def _require_matplotlib():
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - only without the extra
        raise MissingExtraError("plots need matplotlib: pip install 'evalband[report]'") from exc
    return Figure


def _unpack(result, mean_ranks, models, critical_difference, significant, cliques):
    """Take what the diagram needs from a result object, or from the keyword arguments."""
    from ...tasks.posthoc import cliques_from_significance

    if result is not None:
        posthoc = getattr(result, "posthoc", result)
        omnibus = getattr(result, "omnibus", None)
        models = tuple(getattr(posthoc, "models", models))
        ranks = getattr(posthoc, "mean_ranks", None)
        if ranks is None and omnibus is not None:
            ranks = getattr(omnibus, "mean_ranks", None)
        if ranks is None:
            raise ArgumentError("`result` carries no mean ranks: pass a Friedman/Nemenyi result, a run_test result,"
                             " or `mean_ranks=`.")
        mean_ranks = ranks
        if critical_difference is None:
            critical_difference = getattr(posthoc, "critical_difference", None)
        if significant is None:
            if hasattr(posthoc, "significance_matrix"):
                significant = posthoc.significance_matrix()
            else:
                significant = getattr(posthoc, "significant", None)
        if cliques is None:
            cliques = getattr(posthoc, "cliques", None)
    if mean_ranks is None:
        raise ArgumentError("give a `result` or `mean_ranks`.")
    mean_ranks = np.asarray(mean_ranks, dtype=float)
    if mean_ranks.ndim != 1 or mean_ranks.size < 2:
        raise ArgumentError(f"`mean_ranks` must be 1-D with at least 2 models; got shape {mean_ranks.shape}.")
    k = mean_ranks.size
    models = tuple(map(str, models)) if models is not None else tuple(f"model {i}" for i in range(k))
    if len(models) != k:
        raise ArgumentError(words('`{arg:models}` has {n_models} names for {k} mean ranks.', n_models=len(models), k=k))
    if cliques is None:
        if significant is None:
            if critical_difference is None:
                raise ArgumentError("give `critical_difference`, `significant` or `cliques` to join models.")
            significant = np.abs(mean_ranks[:, None] - mean_ranks[None, :]) > critical_difference
        cliques = cliques_from_significance(mean_ranks, significant, models)
    return mean_ranks, models, critical_difference, tuple(tuple(c) for c in cliques)


@text_only
def cd_diagram(result=None, *, mean_ranks=None, models=None, critical_difference=None, significant=None,
               cliques=None, ax=None, title: str | None = None, show_ranks: bool = True,
               fontsize: float = 9.0, reverse: bool = False):
    """Draw a critical-difference diagram.

    Parameters
    ----------
    result : NemenyiResult, SignedRankResult with ranks, TaskTestResult, optional
        From :func:`evalband.tasks.nemenyi` or :func:`evalband.tasks.run_test`; supplies everything below.
    mean_ranks : array_like, shape (n_models,), optional
        Mean rank of each model (1 = best).
    models : sequence of str, optional
    critical_difference : float, optional
        Drawn as a bar above the axis; also defines the cliques when neither ``significant`` nor ``cliques`` is
        given.
    significant : array_like of bool, shape (n_models, n_models), optional
        Pairs that differ; cliques are the maximal runs of consecutive models with no such pair.
    cliques : sequence of sequence of str, optional
        Groups to join with a bar, given directly.
    ax : matplotlib Axes, optional
        Draw here; default a new Figure sized to the number of models.
    title : str, optional
    show_ranks : bool, default True
        Append each model's mean rank to its label.
    fontsize : float, default 9
        Label size in points (shrunk if a given Axes is too short for one row per label).
    reverse : bool, default False
        Put rank 1 on the right instead of the left.

    Returns
    -------
    matplotlib.axes.Axes
    """
    figure_cls = _require_matplotlib()
    ranks, names, cd, cl = _unpack(result, mean_ranks, models, critical_difference, significant, cliques)
    k = ranks.size
    order = np.argsort(ranks, kind="stable")
    n_left = int(math.ceil(k / 2))
    left, right = order[:n_left], order[n_left:][::-1]  # right side: worst at the top
    labels = [f"{names[i]} ({ranks[i]:.2f})" if show_ranks else names[i] for i in range(k)]

    # geometry in inches: one label row per model on each side, clique bars between axis and labels
    fs = float(fontsize)
    char_w = 0.55 * fs / 72.0
    label_w = max(len(s) for s in labels) * char_w + 0.15
    row_h = 1.7 * fs / 72.0
    n_rows = max(len(left), len(right))
    clique_h = 0.09
    top = 0.75 if cd is not None else 0.4
    first_row = 0.25 + clique_h * (len(cl) + 1)
    height = top + first_row + row_h * n_rows + 0.1
    axis_w = max(3.0, 0.3 * (np.ptp(np.ceil(ranks)) + 1) + 2.0)
    width = axis_w + 2 * label_w + 0.4
    if ax is None:
        fig = figure_cls(figsize=(width, height))
        ax = fig.add_axes((0, 0, 1, 1))
    else:
        bbox = ax.get_window_extent().transformed(ax.figure.dpi_scale_trans.inverted())
        if bbox.height < height:
            scale = max(bbox.height / height, 4.0 / fs)
            fs *= scale
            char_w, row_h, label_w = char_w * scale, row_h * scale, label_w * scale
            first_row = 0.25 * scale + clique_h * (len(cl) + 1)
            height = top + first_row + row_h * n_rows + 0.1
        axis_w = max(1.0, bbox.width - 2 * label_w - 0.4)
        width = axis_w + 2 * label_w + 0.4
    ax.set_axis_off()
    ax.set_xlim(0, width)
    ax.set_ylim(-(height - top), top)
    x0 = label_w + 0.2
    lo, hi = 1.0, float(max(k, math.ceil(ranks.max())))

    def xpos(r):
        frac = (np.asarray(r, dtype=float) - lo) / (hi - lo)
        return x0 + (1.0 - frac if reverse else frac) * axis_w

    line_kw = dict(color="black", linewidth=0.9, solid_capstyle="butt")
    ax.plot([xpos(lo), xpos(hi)], [0, 0], **line_kw)
    for t in range(int(lo), int(hi) + 1):
        ax.plot([xpos(t)] * 2, [0, 0.08], **line_kw)
        ax.text(xpos(t), 0.11, str(t), ha="center", va="bottom", fontsize=fs)
    for t in np.arange(lo + 0.5, hi, 1.0):
        ax.plot([xpos(t)] * 2, [0, 0.04], **line_kw)
    if cd is not None and np.isfinite(cd):
        start = lo if not reverse else hi
        end = start + cd if not reverse else start - cd
        y = 0.42
        ax.plot([xpos(start), xpos(end)], [y, y], **line_kw)
        for xe in (start, end):
            ax.plot([xpos(xe)] * 2, [y - 0.04, y + 0.04], **line_kw)
        ax.text((xpos(start) + xpos(end)) / 2, y + 0.06, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=fs)

    # labels with elbow lines from the axis
    sides = (("left", left), ("right", right)) if not reverse else (("right", left), ("left", right))
    for side, idx in sides:  # the better half on the side where rank 1 is
        for row, i in enumerate(idx):
            y = -(first_row + row * row_h)
            xr = xpos(ranks[i])
            x_end = x0 - 0.1 if side == "left" else x0 + axis_w + 0.1
            ax.plot([xr, xr, x_end], [0, y, y], color="black", linewidth=0.7)
            ax.text(x_end - 0.05 if side == "left" else x_end + 0.05, y, labels[i],
                    ha="right" if side == "left" else "left", va="center", fontsize=fs, gid=f"cd-label-{i}")
    # clique bars, each on its own level
    pos = {n: ranks[i] for i, n in enumerate(names)}
    for level, group in enumerate(cl):
        r = [pos[n] for n in group]
        y = -(0.2 + clique_h * (level + 1))
        xa, xb = xpos(min(r)), xpos(max(r))
        xa, xb = min(xa, xb) - 0.04, max(xa, xb) + 0.04
        ax.plot([xa, xb], [y, y], color="black", linewidth=3.0, solid_capstyle="round", zorder=3)
    if title:
        ax.set_title(title, fontsize=fs + 1)
    return ax
