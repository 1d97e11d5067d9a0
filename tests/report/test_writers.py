"""The report: self-contained, escaped, deterministic, and saying what the analyses found.

Oracles: the report's tables must equal what ``rank``/``compare`` return on the same replicate set; the detectable
difference is (z_0.975 + z_0.80) * SE = 2.8016 SE (theory); the VTAB report must state the finding of Longjohn,
Gopalan & Casleton (2025) that structured-heavy weights make Rotation the best model.
"""

from __future__ import annotations

import base64
import html
import io
import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from matplotlib.image import imread  # noqa: E402

from evalband import load_example  # noqa: E402
from evalband.report.build import build_report  # noqa: E402
from evalband.report.sections.findings import detectable_difference  # noqa: E402
from evalband.report.writers import render_html, render_latex, render_markdown, write_report  # noqa: E402
from evalband.data.table import ResultsTable  # noqa: E402

EVIL = "<script>window.__xss=1;alert(1)</script>"
EVIL_TASK = "<img src=x onerror=alert(2)>"


@pytest.fixture(scope="module")
def vtab_report():
    return build_report(load_example("vtab"), n_resamples=400, rng=5, bayes=True, timestamp="T0")


@pytest.fixture(scope="module")
def vtab_html(vtab_report):
    return render_html(vtab_report)


def _images(text):
    return re.findall(r'<img alt="[^"]*" src="data:image/png;base64,([A-Za-z0-9+/=]+)">', text)


def test_html_is_self_contained_and_every_image_shows_something(vtab_report, vtab_html):
    text = vtab_html
    assert text.startswith("<!DOCTYPE html>")
    lowered = text.lower()
    assert "<script" not in lowered and "javascript:" not in lowered
    assert "@import" not in lowered and "url(" not in lowered
    assert not re.search(r'<(img|link|iframe|source|video|audio|object|embed)[^>]+(src|href)="(?!data:)', text)
    assert "<link" not in lowered
    images = _images(text)
    assert len(images) == len(vtab_report.figures) == text.count("<img")
    for data in images:
        img = imread(io.BytesIO(base64.b64decode(data)))
        assert img.shape[0] > 150 and img.shape[1] > 150
        assert img[..., :3].std() > 0.05


def test_report_sections_and_data_summary(vtab_report, vtab_html):
    text = vtab_html
    for heading in ("Findings", "Data", "Scores and ranks", "Pairwise comparisons", "Per task",
                    "Task weights", "Bayesian intervals", "Methods", "Reproduce"):
        assert f"<h2>{heading}</h2>" in text, heading
    table = load_example("vtab")
    assert html.escape(table.describe().split(";")[0]) in text
    for note in table.notes + vtab_report.analysis_notes:  # escaped, with `code` spans as <code>
        assert re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(note)) in text
    assert "binomial draw" in text                # what was assumed about summary data is said
    assert "seed 5" in text and "Longjohn" in text and "arXiv:2501.04234" in text
    assert "Coverage per model" in text


def test_vtab_findings_state_the_papers_rotation_result(vtab_report):
    weights = [f for f in vtab_report.findings if "significantly best model" in f]
    assert len(weights) == 2                                       # z = 2 and z = 1.4 (summary data)
    for f in weights:
        assert "Rotation for" in f and "structured tasks carry at least" in f and "ranks 6th" in f
    top = vtab_report.findings[0]
    assert top.startswith("Sup-Rotation-100% has the highest mean") and "not yet decided" in top


def test_tables_match_the_rank_and_compare_results():
    from evalband.comparison import compare
    from evalband.ranking import rank
    from evalband.resample import bootstrap

    table = _small_vtab()
    rep = build_report(table, n_resamples=300, rng=9, bayes=False, timestamp="T")
    reps = bootstrap(table, n_resamples=300, rng=9)
    rk = rank(table, replicates=reps, rng=9)["mean"].to_frame()
    pd.testing.assert_frame_equal(rep.ranking[rk.columns], rk)
    cmp = compare(table, replicates=reps, per_task=False, rng=9).to_frame()
    np.testing.assert_allclose(rep.pairs["difference"], cmp["difference"])
    np.testing.assert_array_equal(rep.pairs["verdict"], cmp["verdict"])


def test_detectable_difference_is_2_80_standard_errors():
    # scipy.stats.norm.ppf(0.975) + norm.ppf(0.8) = 1.959964 + 0.841621
    assert detectable_difference(1.0) == pytest.approx(2.801585, abs=1e-6)
    assert detectable_difference(0.01, alpha=0.05, power=0.5) == pytest.approx(0.0195996, abs=1e-7)


def _evil_table():
    rows = []
    rng = np.random.default_rng(1)
    models = [EVIL, "plain & <b>bold</b>", "quote\"'model_{x}^~%$#"]
    tasks = [EVIL_TASK, "t|pipe", "t_{x}^~%$#"]
    for m in models:
        for k, t in enumerate(tasks):
            rows.append({"model": m, "task": t, "group": ["<g1>", "g&2", "g3"][k], "n": 500,
                         "correct": int(rng.integers(200, 400))})
    return ResultsTable.from_summary(pd.DataFrame(rows), source="<evil>.csv")


def test_names_from_files_are_escaped_everywhere(tmp_path):
    rep = build_report(_evil_table(), n_resamples=200, rng=1, bayes=True, timestamp="T")
    text = render_html(rep)
    assert "<script" not in text.lower()
    assert "onerror=alert" not in text.replace("&lt;img src=x onerror=alert(2)&gt;", "")
    assert "&lt;script&gt;window.__xss=1;alert(1)&lt;/script&gt;" in text
    assert "&lt;b&gt;bold&lt;/b&gt;" in text and "<b>bold</b>" not in text
    assert "quote&quot;&#x27;model_{x}^~%$#" in text
    md = render_markdown(rep)
    # Markdown escapes for Markdown (QA O24), not HTML: '&' and '>' stay, only a tag-opening '<' becomes &lt;
    assert "<script" not in md.lower() and "<b>" not in md and "plain & &lt;b>bold&lt;/b>" in md
    assert "&amp;" not in md and "&gt;" not in md and "t\\|pipe" in md
    tex = render_latex(rep)
    assert r"model\_\{x\}\textasciicircum{}\textasciitilde{}\%\$\#" in tex
    assert r"\textless{}script\textgreater{}" in tex


def _small_vtab():
    table = load_example("vtab")
    return table.select(models=list(table.models[:6]))


def test_same_seed_same_bytes_apart_from_the_timestamp_line():
    table = _small_vtab()
    a = render_html(build_report(table, n_resamples=300, rng=3, bayes=False, timestamp="2026-01-01 00:00:00"))
    b = render_html(build_report(table, n_resamples=300, rng=3, bayes=False, timestamp="2026-11-30 09:00:00"))
    assert a != b
    strip = lambda s: "\n".join(line for line in s.splitlines() if 'id="generated"' not in line)
    assert strip(a) == strip(b)
    assert sum('id="generated"' in line for line in a.splitlines()) == 1
    c = build_report(table, n_resamples=300, rng=4, bayes=False, timestamp="2026-01-01 00:00:00")
    assert not np.array_equal(c.ranking["ci_low"], build_report(table, n_resamples=300, rng=3, bayes=False,
                                                                timestamp="x").ranking["ci_low"])


def test_markdown_latex_and_figures_on_disk(tmp_path):
    vtab_report = build_report(_small_vtab(), n_resamples=200, rng=1, bayes=False, timestamp="T")
    figs = tmp_path / "figs"
    write_report(vtab_report, tmp_path / "r.md", format="markdown", figures_dir=figs)
    md = (tmp_path / "r.md").read_text()
    for f in vtab_report.figures:
        assert (figs / f"{f.key}.png").exists() and (figs / f"{f.key}.svg").exists()
        assert f"](figs/{f.key}.png)" in md
    assert "| rank | model |" in md
    write_report(vtab_report, tmp_path / "r.tex", format="latex")
    tex = (tmp_path / "r.tex").read_text()
    assert tex.count(r"\begin{tabular}") == 3 and r"\toprule" in tex and "Rel.Pat.Loc" in tex
    with pytest.raises(ValueError, match="`format`"):
        write_report(vtab_report, tmp_path / "r.x", format="docx")


def test_item_level_with_trials_adds_pass_at_k_and_measured_weights():
    rng = np.random.default_rng(2)
    rows = []
    for m, skill in (("a", 0.8), ("b", 0.3), ("c", -0.2)):
        for t, g in (("t1", "G1"), ("t2", "G2")):
            diff = rng.normal(size=60)
            p = 1 / (1 + np.exp(-(skill - diff)))
            for trial in range(4):
                rows.append(pd.DataFrame({"model": m, "task": t, "group": g, "item": np.arange(60),
                                          "trial": trial, "score": (rng.random(60) < p).astype(int)}))
    table = ResultsTable.from_items(pd.concat(rows, ignore_index=True))
    rep = build_report(table, n_resamples=200, rng=0, bayes=False, timestamp="T")
    keys = [f.key for f in rep.figures]
    assert "passk" in keys and "weights-measured" in keys
    assert any("measured" in f for f in rep.findings)
    assert "<h2>pass@k and pass^k</h2>" in render_html(rep)


def test_build_report_argument_errors():
    table = load_example("vtab")
    with pytest.raises(ValueError, match="`n_resamples`"):
        build_report(table, n_resamples=10)
    with pytest.raises(TypeError, match="`rng`"):
        build_report(table, rng="x")


def test_lower_is_better_aggregate_orders_best_first():
    rep = build_report(_small_vtab(), aggregate="mean-rank", n_resamples=200, rng=2, bayes=False, timestamp="T")
    assert rep.scale == 1 and not rep.higher_is_better
    assert "lowest (best) mean-rank" in rep.findings[0]
    best = rep.ranking.sort_values("estimate")["model"].iloc[0]
    assert rep.findings[0].startswith(best)
    assert rep.ranking["rank"].iloc[0] == 1
    text = render_html(rep)
    assert "(points)" not in text.split("<h2>Methods</h2>")[0].split("<h2>Task weights</h2>")[0]


def test_sample_size_factor_for_an_undecided_lead_follows_the_planning_formula(vtab_report):
    # SE scales as 1/sqrt(n): detecting the gap with 80% power needs n * (2.8016 SE / gap)^2
    p = vtab_report.pairs
    row = p[(p["model_a"] == "Sup-Rotation-100%") & (p["model_b"] == "Sup-Exemplar-100%")].iloc[0]
    factor = (2.801585 * row["se"] / row["difference"]) ** 2
    assert f"about {factor:.0f} times as many test items" in vtab_report.findings[0]
