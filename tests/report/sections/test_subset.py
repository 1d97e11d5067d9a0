"""The subset-evaluation section (issue 25): estimates with both intervals, the difference, the anchor estimates
said to have no valid interval, the savings, the calibration plot; rendered in HTML, Markdown and LaTeX."""

import pytest

from evalband.report import build_report, render_html, render_latex, render_markdown
from evalband.report.sections import sections_for
from evalband.report.sections.subset import subset_section
from evalband.subset import choose, estimate

from subset.synthetic import on_items, synthetic


@pytest.fixture(scope="module")
def result():
    ref, new = synthetic(n_ref=8, n_items=300, seed=2)
    picked = choose(ref, 120, method="anchors", n_anchors=40, rng=1).to_frame()
    return estimate(ref, on_items(new, picked), items=picked, against="m0", rng=0), ref


def test_section_holds_the_estimates_the_anchors_and_the_calibration(result):
    res, ref = result
    sec = subset_section(res)
    assert [t.key for t in sec.tables] == ["subset-scores", "subset-differences", "subset-anchors"]
    scores = sec.tables[0].frame
    assert list(scores["method"]) == ["design", "prediction-assisted"]
    anchors = sec.tables[2]
    assert "no valid interval" in anchors.caption and not any("CI" in c for c in anchors.frame.columns)
    pa = res.to_frame().set_index("method").loc["prediction-assisted"]
    assert sec.findings[0].startswith(f"new: {int(pa['n_evaluated'])} of 300 items evaluated")
    assert f"about {pa['effective_n']:,.0f} items" in sec.findings[0]
    ax = sec.figures[0].figure.axes[0]
    assert ax.get_xlabel().startswith("predicted score")


def test_section_renders_in_every_format_and_is_registered(result):
    res, ref = result
    rep = build_report(ref, n_resamples=200, rng=0, bayes=False)
    rep.add_section(subset_section(res))
    html = render_html(rep)
    assert "Subset evaluation" in html and "no valid interval" in html and "subset-calibration" in html
    assert "Subset evaluation" in render_markdown(rep) and "Subset evaluation" in render_latex(rep)

    class WithExtra:
        extras = (("subset", res),)

    assert [s.key for s in sections_for(WithExtra())] == ["subset"]
