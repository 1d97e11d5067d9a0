"""The cost part of an analysis and its report section (analysis.extensions 'costs', report.sections 'costs').

Oracles: the analysis's own replicate set (the frontier's quality draws must be the ranking's, element for
element: one selection, one seed, one engine run); the frontier and decision computed directly on the same data
and seed; data without a cost column add nothing; every report format renders the section.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband.costs import frontier
from evalband.analysis.costs import CostAnalysis, leader_and_rival

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "frontier" / "contract.csv"


@pytest.fixture(scope="module")
def analysis():
    return eb.analyze(str(FIXTURE), n_resamples=300, rng=4, bayes=False)


def test_the_frontier_uses_the_analysis_draws(analysis):
    ca = analysis.extra("costs")
    assert isinstance(ca, CostAnalysis)
    np.testing.assert_array_equal(ca.frontier.draws.samples, analysis.ranking.samples)
    direct = frontier(str(FIXTURE), n_resamples=300, rng=4)
    np.testing.assert_array_equal(ca.frontier.p_adjusted, direct.p_adjusted)
    assert (ca.leader, ca.rival) == ("A", "B")  # A is best; B is the cheapest other model on the frontier
    assert ca.decision.sentence == direct.decision("A", "B").sentence
    assert ca.to_frame().equals(direct.to_frame())


def test_leader_and_rival_rules():
    res = frontier(str(FIXTURE), n_resamples=200, rng=1, models=["A", "C"])
    assert leader_and_rival(res) == ("A", "C")  # the leader alone on the frontier: the cheapest other model


def test_no_cost_column_adds_nothing():
    a = eb.analyze("example:vtab", n_resamples=100, rng=1, bayes=False)
    assert a.extra("costs") is None and not any(t == "Cost and quality" for t, _ in a.skipped)
    rep = eb.report.build_report("example:vtab", n_resamples=100, rng=1, bayes=False)
    assert "costs" not in [s.key for s in rep.sections]


def test_a_model_without_costs_is_skipped_with_the_reason():
    df = pd.read_csv(FIXTURE)
    df = df[~((df["model"] == "C") & (df["task"] == "coding") & (df["item"] < "coding-050"))]
    df.loc[df["model"] == "A", "cost"] = np.nan  # A has no cost at all: the frontier cannot include it
    a = eb.analyze(df, n_resamples=100, rng=1, bayes=False)
    assert a.extra("costs") is None
    reasons = dict(a.skipped)
    assert "Cost and quality" in reasons and "has no cost on any item" in reasons["Cost and quality"]


def test_the_section_in_every_format(analysis):
    from evalband.report.writers import render_html, render_latex, render_markdown

    rep = eb.report.build_report(analysis)
    sec = {s.key: s for s in rep.sections}["costs"]
    assert sec.title == "Cost and quality" and [f.key for f in sec.figures] == ["frontier"]
    assert any(f.startswith("C is dominated with confidence by A, B") for f in sec.findings)
    assert any(f.startswith("A (best quality) against B, its cheapest rival on the frontier: A better in quality")
               for f in sec.findings)
    table = sec.tables[0].frame
    assert list(table.columns[:5]) == ["model", "quality", "quality CI", "cost", "cost CI"]
    assert table["model"].tolist() == ["B", "A", "C"]  # cheapest first
    assert table.loc[2, "frontier"] == "no: dominated by A, B"
    assert float(table.loc[1, "quality"]) > 70  # points
    md = render_markdown(rep)
    assert "## Cost and quality" in md and "| model | quality | quality CI | cost | cost CI |" in md
    assert "Cost and quality" in render_html(rep) and "tab:evalband-costs-frontier" in render_latex(rep)
