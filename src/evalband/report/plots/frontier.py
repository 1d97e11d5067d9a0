"""The quality-cost plot: quality against mean cost per item (log axis), 2-D error bars, the Pareto frontier drawn,
models dominated with confidence marked."""

from __future__ import annotations

import numpy as np

from ...display import format_level
from .style import GREY, categorical_colors, new_axes, styled

__all__ = ["frontier_plot"]


@styled
def frontier_plot(result, *, ax=None, log_cost: bool = True, labels: bool = True, title=None, xlabel=None,
                  ylabel=None):
    """Quality against cost with 2-D error bars, the frontier as a staircase, dominated models marked.

    Parameters
    ----------
    result : evalband.costs.FrontierResult
    ax : matplotlib Axes, optional
        Drawn on a new pyplot-free figure when None.
    log_cost : bool
        Logarithmic cost axis (costs often span orders of magnitude); linear when a mean cost is not positive.
        Interval ends at or below 0 are clipped at the axis edge.
    labels : bool
        Write each model's name beside its point (as plain text: ``$`` and ``_`` in names are not mathtext).
    title, xlabel, ylabel : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    The horizontal bar of each model is the interval of its mean cost per item, the vertical bar that of its
    quality, both at ``result.confidence_level``. The staircase joins the models on the frontier (point
    estimates), cheapest first: for a budget on the x axis it reads the best quality available at that cost.
    Models dominated with confidence (decidedly no better and decidedly costlier than some other model, with
    the multiplicity correction of the result) are drawn hollow in grey with an x. Overlapping bars do not mean
    two models are indistinguishable; the domination marks come from paired tests of the differences.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.costs import frontier
    >>> gen = np.random.default_rng(0)
    >>> rows = [dict(model=m, task="t", item=i, score=float(gen.random() < p), cost=c * gen.lognormal(0, 0.3))
    ...         for m, p, c in [("A", 0.9, 10.0), ("B", 0.7, 1.0), ("C", 0.4, 5.0)] for i in range(100)]
    >>> ax = frontier_plot(frontier(pd.DataFrame(rows), n_resamples=200, rng=1))
    >>> ax.get_xscale(), sorted(t.get_text() for t in ax.texts)
    ('log', ['A', 'B', 'C'])
    """
    names = [str(m) for m in result.models]
    scale = float(result.scale)
    y = np.asarray(result.quality, dtype=np.float64) * scale
    y_lo = np.asarray(result.quality_ci.low, dtype=np.float64) * scale
    y_hi = np.asarray(result.quality_ci.high, dtype=np.float64) * scale
    x = np.asarray(result.cost.estimate, dtype=np.float64)
    x_lo = np.asarray(result.cost.ci.low, dtype=np.float64)
    x_hi = np.asarray(result.cost.ci.high, dtype=np.float64)
    dominated = np.array([bool(d) for d in result.dominated_by])
    on = np.asarray(result.on_frontier, dtype=bool)
    ax = new_axes(ax, width=6.4, height=4.6)
    use_log = bool(log_cost and np.all(x > 0))
    if use_log:
        ax.set_xscale("log", nonpositive="clip")
        x_lo = np.where(x_lo > 0, x_lo, x / 1e3)
        _plain_log_ticks(ax, np.nanmin(np.r_[x_lo, x]), np.nanmax(np.r_[x_hi, x]))
    colors = categorical_colors(2)
    xerr = np.vstack([np.maximum(x - x_lo, 0), np.maximum(x_hi - x, 0)])
    yerr = np.vstack([np.maximum(y - y_lo, 0), np.maximum(y_hi - y, 0)])
    groups = ((~dominated & on, colors[0], "on the frontier", "o", "full"),
              (~dominated & ~on, colors[1], "off the frontier (not decidedly dominated)", "s", "full"),
              (dominated, "#777777", "dominated with confidence", "o", "none"))
    for mask, color, label, marker, fill in groups:
        if not mask.any():
            continue
        ax.errorbar(x[mask], y[mask], xerr=xerr[:, mask], yerr=yerr[:, mask], fmt=marker, color=color, ms=5,
                    fillstyle=fill, elinewidth=0.9, capsize=2, label=label, zorder=3)
    if dominated.any():
        ax.plot(x[dominated], y[dominated], "x", color="#777777", ms=5, zorder=4)
    idx = np.flatnonzero(on)
    idx = idx[np.argsort(x[idx], kind="stable")]
    if idx.size > 1:
        ax.step(x[idx], y[idx], where="post", color=colors[0], lw=1.0, alpha=0.7, zorder=2,
                label="frontier (point estimates)")
    if labels:
        for i, name in enumerate(names):
            ax.annotate(name, (x[i], y[i]), xytext=(4, 4), textcoords="offset points", fontsize=7.5,
                        color="#555555" if dominated[i] else "black", parse_math=False, zorder=5)
    lvl = format_level(result.confidence_level)
    unit = ", points" if scale == 100 else ""
    ax.set_xlabel(xlabel or f"mean {result.cost.measure} per item, {lvl} CI" + (" (log scale)" if use_log else ""))
    ax.set_ylabel(ylabel or f"quality ({result.aggregate}{unit}), {lvl} CI")
    if not result.higher_is_better:
        ax.invert_yaxis()  # better at the top, as for every other quality
    ax.grid(color=GREY, lw=0.5, alpha=0.6)
    ax.legend(fontsize=7.5, frameon=False, loc="best")
    if title:
        ax.set_title(title)
    return ax


def _plain_log_ticks(ax, low: float, high: float) -> None:
    """Tick labels of a log axis as plain numbers ('0.5', '2', '100'): matplotlib writes them as mathtext, which
    the plots' plain-text rule would show raw. Within two decades the 2 and 5 minor ticks are labelled too."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    def plain(v, _pos=None):
        return f"{v:g}"

    ax.xaxis.set_major_formatter(FuncFormatter(plain))
    few_decades = np.isfinite(low) and np.isfinite(high) and low > 0 and np.log10(high / low) < 2
    if few_decades:
        def minor(v, _pos=None):
            mantissa = round(v / 10 ** np.floor(np.log10(v)), 6)
            return plain(v) if mantissa in (2.0, 5.0) else ""

        ax.xaxis.set_minor_formatter(FuncFormatter(minor))
    else:
        ax.xaxis.set_minor_formatter(NullFormatter())
