"""What a reader of a report sees (issue 13): a table of contents whose links reach every section, one sentence
opening each section, a headline figure whose intervals can be seen, short captions that match what is drawn, no
empty columns, digits set by the standard error, integer ticks for k, one interval per quantity for one model,
and the file name as the title."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from evalband import load_example, read  # noqa: E402
from evalband.display import decimals_for  # noqa: E402
from evalband.report.build import build_report  # noqa: E402
from evalband.report.writers import render_html, render_markdown  # noqa: E402
from evalband.report.outline import outline, slug  # noqa: E402
from evalband.data.table import ResultsTable  # noqa: E402

TAU = Path(__file__).resolve().parents[1] / "fixtures" / "tau_bench" / "gpt-4o-airline_rewards.csv"


@pytest.fixture(scope="module")
def vtab():
    return build_report(load_example("vtab"), n_resamples=300, rng=1, bayes=True, timestamp="T")


def _small(seed=0, tasks=3, models=3, items=80, trials=1):
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(models):
        for t in range(tasks):
            for trial in range(trials):
                rows.append(pd.DataFrame({"model": f"m{m}", "task": f"t{t}", "item": np.arange(items),
                                          "trial": trial,
                                          "score": (rng.random(items) < 0.3 + 0.2 * m).astype(int)}))
    return ResultsTable.from_items(pd.concat(rows, ignore_index=True))


def test_toc_links_reach_every_section_and_each_opens_with_one_sentence(vtab):
    text = render_html(vtab)
    nav = re.search(r"<nav class='toc'>(.*?)</nav>", text).group(1)
    targets = re.findall(r'href="#([^"]+)"', nav)
    ids = re.findall(r'<section id="([^"]+)">', text)
    assert targets == ids and len(set(ids)) == len(ids)
    for key in ("findings", "data", "scores", "pairs", "tasks", "weights", "cd", "bayes", "methods", "reproduce"):
        assert key in ids
    intros = re.findall(r'<section id="[^"]+"><h2>[^<]+</h2>\s*<p class="intro">([^<]+)</p>', text)
    assert len(intros) == len(ids)
    for sentence in intros:  # one sentence each: ends with a full stop, no second sentence
        assert sentence.endswith(".") and sentence.count(". ") == 0, sentence


def test_markdown_contents_use_the_heading_anchors(vtab):
    md = render_markdown(vtab)
    contents = next(line for line in md.splitlines() if line.startswith("**Contents:**"))
    headings = [line[3:] for line in md.splitlines() if line.startswith("## ")]
    assert re.findall(r"\(#([^)]+)\)", contents) == [slug(h) for h in headings]
    assert slug("Scores and ranks") == "scores-and-ranks" and slug("pass@k and pass^k") == "passk-and-passk"


def test_markdown_says_how_to_get_its_figures_only_when_it_does_not_link_them(vtab, tmp_path):
    md = render_markdown(vtab)
    assert f"This report has {len(vtab.figures)} figures" in md and "--figures DIR" in md
    linked = render_markdown(vtab, figure_paths={f.key: f"figs/{f.key}.png" for f in vtab.figures})
    assert "This report has" not in linked and linked.count("![") == len(vtab.figures)


def test_headline_figure_adds_differences_when_intervals_are_too_narrow_to_see(vtab):
    forest = next(f for f in vtab.figures if f.key == "forest")
    assert len(forest.figure.axes) == 2  # VTAB: +-0.25 points on a 35-point axis
    right = forest.figure.axes[1]
    lows = [seg[0][0] for c in right.collections for seg in c.get_segments()]
    highs = [seg[1][0] for c in right.collections for seg in c.get_segments()]
    widths = np.subtract(highs, lows)
    span = np.ptp(right.get_xlim())
    assert np.median(widths) > 0.05 * span  # the bars of the difference panel are visible
    assert "model ranked just above it" in forest.caption or "minus" in forest.caption
    wide = build_report(_small(items=40), n_resamples=200, rng=0, bayes=False, timestamp="T")
    assert len(next(f for f in wide.figures if f.key == "forest").figure.axes) == 1  # visible already


def test_heatmap_caption_matches_what_is_drawn(vtab):
    many = next(f for f in vtab.figures if f.key == "tasks")  # 19 tasks: colours only
    assert not many.figure.axes[0].texts and "numbers left out" in many.caption
    few = build_report(_small(), n_resamples=200, rng=0, bayes=False, timestamp="T")
    fig = next(f for f in few.figures if f.key == "tasks")
    texts = fig.figure.axes[0].texts
    assert len(texts) == 9 and all(t.get_fontsize() >= 6.5 for t in texts) and "in each cell" in fig.caption


def test_critical_difference_caption_is_short_and_groups_are_a_table(vtab):
    cd = next(f for f in vtab.figures if f.key == "cd")
    assert len(cd.caption) < 450 and cd.caption.count(". ") <= 3
    assert "Not significantly different" not in cd.caption and "per-task score" not in cd.caption
    section = next(s for s in outline(vtab) if s.key == "cd")
    groups = section.tables[0]
    assert groups.folded and len(groups.frame) == len(vtab.tests.posthoc.cliques)


def test_no_table_has_an_empty_column(vtab):
    for section in outline(vtab):
        for t in section.tables:
            for c in t.frame.columns:
                assert (t.frame[c].astype(str).str.strip() != "").any(), (section.key, t.caption, c)
    weights = next(s for s in outline(vtab) if s.key == "weights").tables[0].frame
    assert "± MC SE" not in weights.columns  # VTAB's three groups are mapped on a grid: no Monte Carlo error


def test_digits_follow_the_standard_error_in_the_pairs_table(vtab):
    section = next(s for s in outline(vtab) if s.key == "pairs")
    frame = section.tables[0].frame  # neighbours in the ranking
    pairs = vtab.pairs.set_index(["model_a", "model_b"])
    for _, row in frame.iterrows():
        se = pairs.loc[(row["model A"], row["model B"]), "se"] * 100
        shown = row["A − B"]
        decimals = len(shown.split(".")[1]) if "." in shown else 0
        assert decimals == decimals_for(se), (row["model A"], row["model B"], se, shown)
    # neighbouring standard errors of 0.18-0.21 points all give two decimals: the column does not mix digits
    assert {len(v.split(".")[1]) for v in frame["A − B"]} == {2}


def test_pass_at_k_plot_ticks_the_whole_ks():
    rep = build_report(_small(trials=4), n_resamples=200, rng=0, bayes=False, timestamp="T")
    fig = next(f for f in rep.figures if f.key == "passk").figure
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == ["1", "2", "3", "4"]


def test_one_model_report_shows_one_interval_per_quantity_and_the_file_name():
    table = read(str(TAU), item_col="task_id", score_col="reward")
    rep = build_report(table, n_resamples=300, rng=0, timestamp="T")
    assert rep.title == f"evalband report: {TAU.name}"
    ax = next(f for f in rep.figures if f.key == "forest").figure.axes[0]
    assert len(ax.collections) == 1  # the 95% bar alone (no 83.4% bar, which is for comparing models)
    assert str(TAU.parent) not in render_html(rep).split("<h1>")[1].split("</h1>")[0]


def test_html_sentences_show_code_spans_and_stay_escaped():
    """QA round 4: "`sensitivity`" showed its backticks in the HTML report; code spans become <code>, and what
    is inside stays escaped text."""
    from evalband.report.writers import prose

    assert prose("see `sensitivity` and `--wide`") == "see <code>sensitivity</code> and <code>--wide</code>"
    assert prose("model <script>x</script> `a<b`") == "model &lt;script&gt;x&lt;/script&gt; <code>a&lt;b</code>"
