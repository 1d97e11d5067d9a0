"""The quality-cost plot: what it draws is what the result says (positions, error bars, frontier, marks, names).

Oracle: the FrontierResult's own numbers (the plot must place each model at its mean cost and quality, with
bars reaching its interval ends), and matplotlib's text objects (names drawn as plain text, never mathtext).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from evalband.costs import frontier  # noqa: E402
from evalband.report.plots.frontier import frontier_plot  # noqa: E402
from evalband.report.plots import figure_bytes  # noqa: E402


def _result():
    gen = np.random.default_rng(0)
    specs = [("gpt-$4$_x", 0.9, 10.0), ("B", 0.7, 1.0), ("C", 0.4, 5.0), ("D", 0.72, 1.1), ("E", 0.8, 20.0)]
    rows = [dict(model=m, task="t", item=i, score=float(gen.random() < p), cost=c * gen.lognormal(0, 0.5))
            for m, p, c in specs for i in range(200)]
    return frontier(pd.DataFrame(rows), n_resamples=500, rng=1)


def test_draws_the_result():
    res = _result()
    ax = frontier_plot(res)
    assert ax.get_xscale() == "log"
    texts = {t.get_text(): t for t in ax.texts}
    assert set(texts) == set(res.models)
    name = "gpt-$4$_x"
    assert texts[name].get_parse_math() is False  # drawn as typed, no mathtext
    k = res.models.index(name)
    assert texts[name].xy == pytest.approx((res.cost.estimate[k], 100 * res.quality[k]))
    segments = np.concatenate([c.get_segments() for c in ax.collections if isinstance(c, LineCollection)])
    ends = {tuple(np.round(seg[:, 0], 9)) for seg in segments} | {tuple(np.round(seg[:, 1], 9)) for seg in segments}
    assert tuple(np.round([res.cost.ci.low[k], res.cost.ci.high[k]], 9)) in ends  # horizontal bar = cost CI
    assert tuple(np.round([100 * res.quality_ci.low[k], 100 * res.quality_ci.high[k]], 9)) in ends
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "dominated with confidence" in labels and "frontier (point estimates)" in labels
    step = [line for line in ax.get_lines() if line.get_label() == "frontier (point estimates)"][0]
    order = [res.models.index(m) for m in res.frontier_models]
    assert np.unique(step.get_xdata()).tolist() == pytest.approx(sorted(res.cost.estimate[order]))
    dominated = [m for m, d in zip(res.models, res.dominated_by) if d]
    assert dominated == ["C"]
    crosses = [line for line in ax.get_lines() if line.get_marker() == "x"][0]
    assert crosses.get_xdata().tolist() == pytest.approx([res.cost.estimate[res.models.index("C")]])


def test_given_axes_linear_axis_and_stable_bytes():
    res = _result()
    fig = Figure()
    ax = fig.add_subplot()
    assert frontier_plot(res, ax=ax, log_cost=False, title="costs") is ax
    assert ax.get_xscale() == "linear" and ax.get_title() == "costs"
    a = figure_bytes(frontier_plot(res).figure, "svg")
    b = figure_bytes(frontier_plot(res).figure, "svg")
    assert a == b


def test_log_axis_ticks_are_plain_numbers():
    """The plots draw text without mathtext, so the log axis must not use matplotlib's mathtext tick labels
    (they would show as '$\\mathdefault{10^{0}}$')."""
    ax = frontier_plot(_result())
    figure_bytes(ax.figure)  # drawn, so the tick labels are set
    major = [t.get_text() for t in ax.get_xticklabels()]
    minor = [t.get_text() for t in ax.get_xticklabels(minor=True)]
    assert major and all("$" not in t and "mathdefault" not in t for t in major + minor)
    assert {"1", "10"} <= set(major)
