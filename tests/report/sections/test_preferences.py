"""Preference reports: build_report on battles renders the leaderboard as report sections (ratings forest and
table, pairs, win probabilities, ranks, style control) in HTML, Markdown and LaTeX; every number shown is the
result's, rounded by the display rules (the oracle: the ArenaResult the analysis holds)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband.display import decimals_for, format_value
from evalband.report import build_report, render_html, render_latex, render_markdown, write_report
from evalband.report.sections import SECTIONS

from ...conftest import FIXTURES

LLMFAO = FIXTURES / "llmfao" / "crowd-comparisons.csv"
ALPACA = FIXTURES / "preference_formats" / "alpaca_eval"


@pytest.fixture(scope="module")
def llmfao_report():
    return build_report(LLMFAO, n_resamples=200, rng=5, timestamp="T")


def test_sections_figures_and_findings(llmfao_report):
    rep = llmfao_report
    assert rep.kind == "preference"
    assert [s.key for s in rep.sections] == ["arena", "arena-win", "arena-ranks"]
    assert [f.key for f in rep.figures] == ["arena-ratings", "arena-win-probability", "arena-ranks"]
    assert rep.findings[0].startswith("Bradley-Terry (a tie counts as half a win) of 59 models from 8,931 battles")
    assert any(f.startswith("GPT 4 ranks first") for f in rep.findings)
    assert "8,931 pairwise battles among 59 models (3,471 ties); 13 questions" in rep.description
    from evalband.report.sections.preferences import arena_section

    assert SECTIONS["arena"] is arena_section


def test_the_ratings_table_shows_the_results_numbers_by_the_digit_rule(llmfao_report):
    rep = llmfao_report
    frame = rep.ranking  # ArenaResult.to_frame()
    table = rep.sections[0].tables[0].frame
    assert table["model"].tolist() == frame["model"].tolist()
    for (_, shown), (_, x) in zip(table.iterrows(), frame.iterrows()):
        d = decimals_for(x["se"])
        assert shown["rating (Elo points)"] == format_value(x["rating"], d)
        assert shown["95% CI"] == f"({format_value(x['ci_low'], d)}, {format_value(x['ci_high'], d)})"
        lo, hi = int(x["rank_low"]), int(x["rank_high"])
        assert shown["rank interval"] == (str(lo) if lo == hi else f"{lo}-{hi}")
    pairs = rep.sections[0].tables[1].frame
    assert len(pairs) == 58  # 1,711 pairs: the neighbours in the ranking
    assert set(pairs["verdict"]) <= {"A better", "B better", "equivalent", "not yet decided"}


def test_html_markdown_and_latex_render_without_the_results_table_parts(llmfao_report):
    html = render_html(llmfao_report)
    md = render_markdown(llmfao_report)
    tex = render_latex(llmfao_report)
    for text in (html, md):
        assert "Preference leaderboard" in text and "Who beats whom" in text and "Ranks and their uncertainty" in text
        assert "Coverage per model" not in text and "Per task" not in text
        assert "Uncertainty: 200 bootstrap replicates, resampling whole questions" in text
    assert "Bradley, M. E. Terry (1952)" in html  # (the Markdown report lists methods, not references)
    assert html.count("<img") == 3 and "GPT 4" in html
    assert r"\label{tab:evalband-arena-ratings}" in tex and r"\label{tab:evalband-arena-pairs}" in tex


def test_a_model_name_is_escaped():
    frame = pd.read_csv(LLMFAO)
    frame = frame.replace({"GPT 4": "<script>alert(1)</script>"})
    rep = build_report(frame, n_resamples=100, rng=1, timestamp="T")
    html = render_html(rep)
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_style_control_section_and_small_win_matrix(tmp_path):
    rep = build_report(ALPACA, n_resamples=200, rng=2, timestamp="T")
    keys = [s.key for s in rep.sections]
    assert keys == ["arena", "arena-win", "arena-ranks", "arena-style"]
    style = rep.sections[-1].tables[0].frame
    res = eb.analyze(ALPACA, n_resamples=200, rng=2).preference
    coef, se = float(res.style["coefficient"].iloc[0]), float(res.style["se"].iloc[0])
    assert style["feature"].tolist() == ["length"]
    assert style["coefficient"].iloc[0] == ("+" if coef >= 0 else "") + format_value(coef, decimals_for(se))
    win = rep.sections[1].tables[0].frame  # 3 models: the matrix as a table too
    assert win.shape == (3, 4) and (np.diag(win.iloc[:, 1:].to_numpy()) == "").all()
    assert "without style control" in rep.sections[0].tables[0].frame.columns
    for fmt, name in (("html", "r.html"), ("markdown", "r.md"), ("latex", "r.tex")):
        write_report(rep, tmp_path / name, format=fmt, figures_dir=tmp_path / "figs" if fmt == "markdown" else None)
        assert (tmp_path / name).stat().st_size > 1000
    assert "Style control" in (tmp_path / "r.md").read_text()
    assert (tmp_path / "figs" / "arena-style.png").exists()


def test_separability_and_the_pairs_verdicts_say_how_they_differ(llmfao_report):
    """Issue 22: the separability (pointwise) sat beside a pairs table deciding fewer pairs (corrected) without
    saying they differ; and the pairs table called its max-t intervals Holm-corrected."""
    import re

    res = dict(llmfao_report.analysis.extras)["arena"] if hasattr(llmfao_report, "analysis") else None
    res = res if res is not None else eb.arena(LLMFAO, n_resamples=200, rng=5)
    line = next(r for r in res.readings() if r.startswith("separability:"))
    pairs = res.pairwise(correction="max-t")
    decided = int(pairs["verdict"].isin(["A better", "B better"]).sum())
    n = len(pairs)
    assert "pointwise" in line and "no multiplicity correction" in line
    assert re.search(rf"decide {decided:,} of {n:,}\.", line), (line, decided)
    assert f"{res.separability:.0%} of the {n:,} model pairs" in line
    assert decided <= round(res.separability * n)  # pointwise separates at least as many as the corrected verdicts
    text = render_markdown(llmfao_report)
    assert "Holm" not in text  # the pairs are max-t: the words say so
    assert set(pairs["correction"]) == {"max-t"} and "simultaneous (max-t)" in text
