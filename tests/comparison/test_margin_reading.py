"""QA O28: with a margin, a pair whose interval excludes 0 but not the margin read only "not yet decided".

`compare --example vtab --models Sup-Exemplar-100%,Sup-100% --margin 1%` gave "+1.30 points, 95% CI (0.93, 1.67);
not yet decided". The verdict stays 'not yet decided' (a contract), but the reading and the new `verdict_detail`
column now say what is decided (Sup-Exemplar-100% is better) and what is not (by more than the margin).
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband import compare
from evalband.cli.main import app
from evalband.comparison.pairwise import pairwise_differences
from evalband.comparison.verdict import VERDICTS, margin_text, verdict, verdict_detail
from evalband.data.table import ResultsTable
import jsonout  # noqa: E402

# (low, high) of A - B against a 1-point margin: the verdict (unchanged rule) and what the reading adds
CASES = [
    ((0.0093, 0.0167), "not yet decided", "not yet decided: A better, but not decidedly by more than the 1-point margin"),
    ((-0.0167, -0.0093), "not yet decided", "not yet decided: B better, but not decidedly by more than the 1-point margin"),
    ((-0.005, 0.015), "not yet decided", "not yet decided: B is not better by more than the 1-point margin"),
    ((-0.015, 0.005), "not yet decided", "not yet decided: A is not better by more than the 1-point margin"),
    ((-0.02, 0.02), "not yet decided", "not yet decided"),
    ((0.011, 0.02), "A better", "A better by more than the 1-point margin"),
    ((-0.02, -0.011), "B better", "B better by more than the 1-point margin"),
    ((-0.005, 0.005), "equivalent", "equivalent: the difference lies within the 1-point margin"),
    ((0.002, 0.008), "equivalent", "equivalent: A better, but by less than the 1-point margin"),
]


@pytest.mark.parametrize("bounds, expected_verdict, expected_detail", CASES)
def test_detail_says_what_is_decided(bounds, expected_verdict, expected_detail):
    low, high = bounds
    v = verdict(low, high, margin=0.01)[()]
    assert v == expected_verdict
    assert verdict_detail(v, low, high, margin=0.01, model_a="A", model_b="B") == expected_detail


def test_detail_without_margin_is_the_verdict_and_lower_is_better_flips():
    assert verdict_detail("not yet decided", 0.001, 0.02, model_a="A", model_b="B") == "not yet decided"
    assert verdict_detail("A better", 0.001, 0.02, model_a="A", model_b="B") == "A better"
    # mean rank (lower is better): A - B in (0.5, 1.5) ranks favours B, but not by more than a margin of 1 rank
    v = verdict(0.5, 1.5, margin=1.0, higher_is_better=False)[()]
    assert v == "not yet decided"
    assert (verdict_detail(v, 0.5, 1.5, margin=1.0, higher_is_better=False, model_a="A", model_b="B", scale=1.0)
            == "not yet decided: B better, but not decidedly by more than the margin of 1")
    assert margin_text(0.015) == "1.5-point margin"


def test_verdict_values_stay_the_contract():
    assert VERDICTS == ("A better", "B better", "equivalent", "not yet decided")


def test_vtab_reading_names_the_margin():
    # known answer from the QA run: +1.30 points, 95% CI (0.93, 1.67) with summary (binomial) replicates
    res = compare(_vtab(), models=["Sup-Exemplar-100%", "Sup-100%"], margin=0.01,
                  n_resamples=2000, rng=1, per_task=False)
    agg = res.aggregates[0]
    assert agg.verdict[0] == "not yet decided"
    assert 0 < agg.ci.low[0] < 0.01 < agg.ci.high[0]
    detail = "not yet decided: Sup-Exemplar-100% better, but not decidedly by more than the 1-point margin"
    assert agg.verdict_detail[0] == detail
    assert f"; {detail}" in agg.readings[0]
    frame = res.to_frame()
    assert frame.loc[0, "verdict"] == "not yet decided" and frame.loc[0, "verdict_detail"] == detail


def test_cli_reading_and_json_field():
    args = ["compare", "--example", "vtab", "--models", "Sup-Exemplar-100%,Sup-100%", "--margin", "1%",
            "--n-resamples", "2000", "--seed", "1"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "better, but not decidedly by more than the 1-point" in " ".join(res.output.split())
    js = CliRunner().invoke(app, args + ["--format", "json"])
    frame = pd.DataFrame(jsonout.records(js.stdout))
    assert frame.loc[0, "verdict"] == "not yet decided"
    assert frame.loc[0, "verdict_detail"].startswith("not yet decided: Sup-Exemplar-100% better, but")


def test_withheld_verdict_reads_nothing_from_its_interval():
    # 5 items only: the bootstrap verdict is withheld; the detail must not claim 'A better' from the interval
    obs = np.array([0.8, 0.2])
    samples = np.random.default_rng(0).normal(obs, 0.01, size=(500, 2))
    pc = pairwise_differences(obs, samples, ["A", "B"], margin=0.01, n_units=5)
    assert pc.verdict[0] == "not yet decided" and pc.verdict_detail[0] == "not yet decided"


def test_item_level_pair_and_report_lead():
    from evalband.report.sections.findings import _lead_text

    gen = np.random.default_rng(3)
    n = 3000
    a = (gen.random(n) < 0.72).astype(int)
    b = np.where(gen.random(n) < 0.9, a, (gen.random(n) < 0.6).astype(int))  # about 1.5 points below a
    df = pd.DataFrame({"model": np.repeat(["a", "b"], n), "task": "t", "item": np.tile(np.arange(n), 2),
                       "score": np.r_[a, b]})
    c = compare(ResultsTable.from_items(df), n_resamples=2000, rng=2, margin=0.02, per_task=False)
    pc = c.aggregates[0]
    lo, hi = pc.ci.low[0], pc.ci.high[0]
    assert 0 < lo < 0.02 < hi  # excludes 0, not the margin
    assert pc.verdict_detail[0] == "not yet decided: a better, but not decidedly by more than the 2-point margin"
    lead = _lead_text(pc, 0, decided=False)
    assert "a better, but not decidedly by more than the 2-point margin" in lead
    assert "cannot tell the two apart" not in lead


def _vtab():
    from evalband import load_example

    return load_example("vtab")


def test_a_margin_in_points_on_proportions_is_refused():
    """QA round 4: `--margin 2` (meant as 2 points) made a 28-point gap 'equivalent'. A margin of 1 or more on a
    difference of proportions covers the whole range of differences: refused, naming the fraction and the percent."""
    from evalband import compare, load_example
    from evalband._validate import ArgumentError
    from evalband.comparison.verdict import check_margin

    with pytest.raises(ArgumentError, match=r"0\.02 for 2 points.*'2%'"):
        compare(load_example("vtab"), models=["Sup-100%", "VAE"], margin=2, n_resamples=50, rng=0)
    assert check_margin(0.02, scale=100.0) == 0.02 and check_margin(2.0, scale=1.0) == 2.0  # own scale: allowed
    ok = compare(load_example("vtab"), models=["Sup-100%", "VAE"], margin=0.02, n_resamples=200, rng=0)
    assert list(ok.aggregates[0].verdict) == ["A better"]


def test_too_few_replicates_decide_nothing():
    """QA round 4: 10 replicates called every pair 'A better' beside p '<0.18'. The smallest two-sided bootstrap
    p-value is 2 / (B + 1); when it exceeds the significance level no verdict is given (basis 'too few
    replicates'), with Holm's corrected level counted; 39 replicates are the least that can decide at 5%."""
    data = load_example_vtab()
    few = compare(data, models=["Sup-Rotation-100%", "VAE"], n_resamples=10, rng=0).aggregates[0]
    assert list(few.verdict) == ["not yet decided"] and list(few.verdict_basis) == ["too few replicates"]
    assert "10 bootstrap replicates are too few to decide" in few.readings[0] and "at least 39" in few.readings[0]
    enough = compare(data, models=["Sup-Rotation-100%", "VAE"], n_resamples=39, rng=0).aggregates[0]
    assert list(enough.verdict) == ["A better"]  # 2 / 40 = 0.05: the floor reaches the level
    three = compare(data, models=["Sup-Rotation-100%", "Sup-100%", "VAE"], n_resamples=39, rng=0,
                    correction="bonferroni").aggregates[0]
    assert set(three.verdict_basis) == {"too few replicates"}  # 0.05 / 3 needs B >= 119


def load_example_vtab():
    from evalband import load_example

    return load_example("vtab")
