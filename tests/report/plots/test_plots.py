"""Plots: each returns its Axes, draws something visible, keeps 30 labels apart, and saves byte-identical PNG/SVG."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import imread  # noqa: E402

from evalband import load_example  # noqa: E402
from evalband.report import plots  # noqa: E402
from evalband.report.plots.style import GREY  # noqa: E402
from evalband.weights import weight_sensitivity  # noqa: E402


def _models(M):
    return [f"model-{k:02d}-{'x' * (k % 7)}" for k in range(M)]


def _data(M=30, T=14, seed=0):
    rng = np.random.default_rng(seed)
    est = rng.uniform(0.3, 0.8, size=(M, T))
    width = rng.uniform(0.01, 0.05, size=(M, T))
    agg = est.mean(axis=1)
    se = width.mean(axis=1) / 4
    diff = agg[:, None] - agg[None, :]
    verdict = np.abs(diff) > 2 * np.sqrt(se[:, None] ** 2 + se[None, :] ** 2)
    reps = agg + rng.normal(size=(500, M)) * se
    ranks = (-reps).argsort(axis=1).argsort(axis=1)
    probs = np.stack([(ranks == r).mean(axis=0) for r in range(M)], axis=1)
    rank_ci = (np.quantile(ranks + 1, 0.025, axis=0), np.quantile(ranks + 1, 0.975, axis=0))
    return dict(est=est, width=width, agg=agg, se=se, diff=diff, verdict=verdict, probs=probs, rank_ci=rank_ci)


def _all_plots(M=30, T=14, ax_factory=lambda: None):
    d = _data(M, T)
    models = _models(M)
    tasks = [f"task-{k}" for k in range(T)]
    agg, se = d["agg"], d["se"]
    k = np.arange(1, 11)
    pk = 1 - (1 - d["est"][:5, :1]) ** k
    return {
        "forest": plots.forest_plot(models, agg, (agg - 2 * se, agg + 2 * se), (agg - 1.4 * se, agg + 1.4 * se),
                                    ax=ax_factory()),
        "heatmap": plots.task_heatmap(models, tasks, d["est"], d["width"], ax=ax_factory()),
        "pairwise": plots.pairwise_matrix(models, d["diff"], d["verdict"], ax=ax_factory()),
        "ranks": plots.rank_distribution_plot(models, d["probs"], d["rank_ci"], ax=ax_factory()),
        "bayes": plots.interval_comparison_plot(models, {"bootstrap": (agg - 2 * se, agg + 2 * se),
                                                         "Bayesian": (agg - 2.1 * se, agg + 1.9 * se)},
                                                {"bootstrap": agg}, ax=ax_factory()),
        "passk": plots.pass_at_k_plot(k, pk, models[:5], (pk - 0.02, pk + 0.02), ax=ax_factory()),
    }


def _pixels(ax):
    png = plots.figure_bytes(ax.figure, "png")
    return imread(io.BytesIO(png))[..., :3]


def _drawn(ax, axis):
    """Tick labels matplotlib actually draws (inside the view limits)."""
    lo, hi = sorted(ax.get_xlim() if axis == "x" else ax.get_ylim())
    labels = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    locs = ax.get_xticks() if axis == "x" else ax.get_yticks()
    return [t for t, v in zip(labels, locs) if t.get_text() and lo - 1e-9 <= v <= hi + 1e-9]


def _overlaps(labels, renderer):
    labels = [t for t in labels if t.get_text()]
    rotation = {round(t.get_rotation()) % 180 for t in labels}
    if labels and rotation != {0}:
        # rotated labels are parallel strips: they clear each other when the gap between neighbouring anchors,
        # measured across the text direction, exceeds the text's line height
        (theta,) = rotation
        x = np.sort([t.get_window_extent(renderer).x1 for t in labels])
        line = labels[0].get_fontsize() * labels[0].figure.dpi / 72 * 1.15
        gaps = np.diff(x) * np.sin(np.deg2rad(theta))
        return [] if gaps.min() >= line else [tuple(np.flatnonzero(gaps < line)[:2])]
    boxes = [t.get_window_extent(renderer) for t in labels]
    return [(a, b) for a, b in itertools.combinations(range(len(boxes)), 2)
            if boxes[a].overlaps(boxes[b]) and boxes[a].intersection(boxes[a], boxes[b]).width > 0.5
            and boxes[a].intersection(boxes[a], boxes[b]).height > 0.5]


def test_every_plot_returns_its_axes_and_draws_something():
    for name, ax in _all_plots(M=8, T=5).items():
        assert ax.__class__.__name__ == "Axes", name
        img = _pixels(ax)
        assert img.std() > 0.05, name                       # not a blank canvas
        assert (img.reshape(-1, 3).max(axis=1) - img.reshape(-1, 3).min(axis=1)).max() > 0.3, name   # has colour


def test_plots_draw_on_a_given_axes():
    fig = Figure()
    made = []

    def factory():
        made.append(fig.add_subplot(3, 3, len(made) + 1))
        return made[-1]

    out = _all_plots(M=5, T=4, ax_factory=factory)
    assert [out[k] for k in out] == made


def test_thirty_models_have_no_overlapping_labels():
    for name, ax in _all_plots(M=30, T=14).items():
        canvas = FigureCanvasAgg(ax.figure)
        canvas.draw()
        renderer = canvas.get_renderer()
        assert not _overlaps(_drawn(ax, "y"), renderer), f"{name}: y labels overlap"
        assert not _overlaps(_drawn(ax, "x"), renderer), f"{name}: x labels overlap"
        # every label stays inside the figure
        fig_box = ax.figure.bbox
        for t in _drawn(ax, "y") + _drawn(ax, "x"):
            if t.get_text():
                b = t.get_window_extent(renderer)
                assert b.x0 >= -1 and b.y0 >= -1 and b.x1 <= fig_box.x1 + 1 and b.y1 <= fig_box.y1 + 1, \
                    f"{name}: label {t.get_text()!r} is cut off"


def test_models_are_sorted_best_first():
    models = ["low", "high", "mid"]
    est = np.array([0.2, 0.9, 0.5])
    ax = plots.forest_plot(models, est, (est - 0.05, est + 0.05))
    # y positions: the first in order is at the top (largest y)
    ticks = dict(zip([t.get_text() for t in ax.get_yticklabels()], ax.get_yticks()))
    assert ticks["high"] > ticks["mid"] > ticks["low"]


def test_png_and_svg_are_byte_identical_across_runs():
    table = load_example("vtab")
    res = weight_sensitivity(table, resolution=30)
    for fmt in ("png", "svg"):
        a = plots.figure_bytes(plots.weight_sensitivity_plot(res).figure, fmt)
        b = plots.figure_bytes(plots.weight_sensitivity_plot(res).figure, fmt)
        assert a == b, fmt
        c = plots.figure_bytes(_all_plots(6, 4)["forest"].figure, fmt)
        d = plots.figure_bytes(_all_plots(6, 4)["forest"].figure, fmt)
        assert c == d, fmt
    svg = plots.figure_bytes(plots.weight_sensitivity_plot(res).figure, "svg").decode()
    assert "<dc:date>" not in svg and "Matplotlib v" not in svg


def test_save_figure_writes_files(tmp_path):
    ax = _all_plots(5, 3)["heatmap"]
    plots.save_figure(ax.figure, tmp_path / "h.png")
    plots.save_figure(ax.figure, tmp_path / "h.svg", format="svg")
    assert (tmp_path / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "h.svg").read_text().lstrip().startswith("<?xml")
    with pytest.raises(ValueError, match="`format`"):
        plots.save_figure(ax.figure, None, format="gif")


def test_simplex_map_colours_rotation_at_the_structured_vertex():
    res = weight_sensitivity(load_example("vtab"))
    ax = plots.simplex_map(res)
    coll = ax.collections[0]
    faces = coll.get_facecolors()
    k = res.nearest([0, 0, 1])
    rot = res.models.index("Rotation")
    assert res.winner[k] == rot
    undecided = faces[~res.decided]
    grey = np.array([int(GREY[i:i + 2], 16) for i in (1, 3, 5)]) / 255
    np.testing.assert_allclose(undecided[:, :3], np.broadcast_to(grey, undecided[:, :3].shape))
    assert not np.allclose(faces[k, :3], undecided[0, :3])
    # all Rotation cells share one colour, different from the other winner's
    rot_faces = faces[res.winner == rot]
    assert np.ptp(rot_faces, axis=0).max() == 0
    other = faces[res.decided & (res.winner != rot)]
    assert not np.allclose(other[0], rot_faces[0])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("Rotation") for t in legend) and any(t.startswith("undecided") for t in legend)
    texts = " ".join(t.get_text() for t in ax.texts)
    for g in ("natural", "specialized", "structured"):
        assert g in texts


def test_line_and_shares_layouts():
    table = load_example("vtab")
    two = table.select(tasks=[t for t in table.tasks if table.task_groups[t] != "specialized"])
    ax = plots.weight_sensitivity_plot(weight_sensitivity(two))
    assert "structured" in ax.get_xlabel() and _pixels(ax).std() > 0.05
    many = weight_sensitivity(table, groups={t: t[:3] for t in table.tasks}, n_points=2000, rng=1)
    ax = plots.weight_sensitivity_plot(many)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == "undecided" or "undecided" in labels
    with pytest.raises(ValueError, match="layout"):
        plots.simplex_map(many)


@pytest.mark.parametrize("call, match", [
    (lambda: plots.forest_plot(["a", "b"], [1, 2, 3], ([0, 0], [1, 1])), "`estimate`"),
    (lambda: plots.forest_plot(["a", "b"], [1, 2], ([0], [1])), "`ci`"),
    (lambda: plots.task_heatmap(["a"], ["t", "u"], np.zeros((2, 2))), "`estimate`"),
    (lambda: plots.pairwise_matrix(["a", "b"], np.zeros((2, 2)), np.zeros((3, 3))), "`difference`"),
    (lambda: plots.rank_distribution_plot(["a", "b"], np.zeros((2, 3))), "`rank_probabilities`"),
    (lambda: plots.interval_comparison_plot(["a"], {}), "`intervals`"),
])
def test_shape_errors_name_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()
