"""Critical-difference diagram: draws for 3 and 30 models with no overlapping labels, cliques as bars."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from evalband.report.plots.cd_diagram import cd_diagram  # noqa: E402
from evalband.report.plots.profiles import plot_performance_profile, plot_simplex  # noqa: E402
from evalband.tasks import bayes_signed_rank, nemenyi, performance_profile, run_test  # noqa: E402


def _label_boxes(ax):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = ax.figure
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = [t for t in ax.texts if (t.get_gid() or "").startswith("cd-label-")]
    return texts, [t.get_window_extent(renderer) for t in texts]


def _assert_no_overlap(boxes):
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            overlap = (min(a.x1, b.x1) - max(a.x0, b.x0) > 0.5) and (min(a.y1, b.y1) - max(a.y0, b.y0) > 0.5)
            assert not overlap, f"labels {i} and {j} overlap: {a} {b}"


def _bars(ax):
    """Clique bars: the thick horizontal lines."""
    return [ln for ln in ax.lines if ln.get_linewidth() >= 3.0]


@pytest.mark.parametrize("k", [3, 30])
def test_labels_do_not_overlap(k):
    rng = np.random.default_rng(k)
    x = rng.normal(size=(k, 25)) + np.linspace(0, 3, k)[rng.permutation(k)][:, None]
    names = [f"model-{i}" + "-long" * (i % 4) for i in range(k)]
    res = nemenyi(x, names)
    ax = cd_diagram(res)
    texts, boxes = _label_boxes(ax)
    assert len(texts) == k
    _assert_no_overlap(boxes)
    # every label stays inside the figure
    fig_box = ax.figure.bbox
    for b in boxes:
        assert b.x0 >= fig_box.x0 - 1 and b.x1 <= fig_box.x1 + 1 and b.y0 >= fig_box.y0 - 1
    # one bar per clique, spanning its models' mean ranks (plus a small overhang)
    assert len(_bars(ax)) == len(res.cliques)


def test_labels_fit_a_given_small_axes():
    from matplotlib.figure import Figure

    rng = np.random.default_rng(1)
    x = rng.normal(size=(30, 20))
    fig = Figure(figsize=(8, 3))
    ax = fig.add_subplot()
    out = cd_diagram(nemenyi(x), ax=ax)
    assert out is ax
    _assert_no_overlap(_label_boxes(ax)[1])


def test_label_order_and_sides_follow_ranks():
    ranks = np.array([3.4, 1.2, 2.5, 4.0])
    ax = cd_diagram(mean_ranks=ranks, models=["c", "a", "b", "d"], critical_difference=1.0, show_ranks=False)
    texts, _ = _label_boxes(ax)
    by_name = {t.get_text(): t for t in texts}
    # better half on the left (right-aligned), best on the top row; worst on the top right
    assert by_name["a"].get_ha() == "right" and by_name["b"].get_ha() == "right"
    assert by_name["c"].get_ha() == "left" and by_name["d"].get_ha() == "left"
    assert by_name["a"].get_position()[1] > by_name["b"].get_position()[1]
    assert by_name["d"].get_position()[1] > by_name["c"].get_position()[1]
    # CD = 1: cliques {a}, {b, c}? |2.5 - 1.2| > 1, |3.4 - 2.5| <= 1, |4.0 - 3.4| <= 1, |4.0 - 2.5| > 1
    assert len(_bars(ax)) == 2
    # reversed axis puts rank 1 on the right, and the better half of the labels with it
    ax_r = cd_diagram(mean_ranks=ranks, models=["c", "a", "b", "d"], critical_difference=1.0, reverse=True,
                      show_ranks=False)
    texts_r, boxes_r = _label_boxes(ax_r)
    by_name_r = {t.get_text(): t for t in texts_r}
    assert by_name_r["a"].get_ha() == "left" and by_name_r["d"].get_ha() == "right"
    assert by_name_r["a"].get_position()[0] > by_name_r["d"].get_position()[0]
    _assert_no_overlap(boxes_r)


def test_from_run_test_wilcoxon_uses_its_verdicts():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(5, 30)) + np.array([0, 0.05, 0.6, 0.65, 1.5])[:, None]
    res = run_test(x, test="wilcoxon")
    ax = cd_diagram(res)
    assert len(_bars(ax)) >= 1
    with pytest.raises(ValueError, match="give a `result` or `mean_ranks`"):
        cd_diagram()


def test_profile_and_simplex_plots_return_axes():
    rng = np.random.default_rng(0)
    prof = performance_profile({"a": rng.random((5, 4)), "b": rng.random((5, 4)) + 0.2}, n_resamples=20, rng=0)
    ax = plot_performance_profile(prof)
    assert len(ax.lines) == 2 and len(ax.collections) == 2
    post = bayes_signed_rank(rng.random(10), rng.random(10), rope=0.05, n_draws=500, rng=0)
    ax = plot_simplex(post)
    xy = ax.collections[0].get_offsets()
    assert len(xy) == 500
    # every sample lies inside the triangle (0, 0), (0.5, sqrt(3)/2), (1, 0)
    assert np.all(xy[:, 1] >= -1e-9) and np.all(xy[:, 1] <= np.sqrt(3) * np.minimum(xy[:, 0], 1 - xy[:, 0]) + 1e-9)
