"""The decision table for one pair.

Oracles: the one home of verdicts (``evalband.compare`` on the same two models and seed gives the same quality
difference, interval and verdict); the cost ratio's interval is that of ``cost_differences`` on the same draws;
the sentence follows seed 001's wording, checked on constructed data whose cost ratio is fixed by construction
(B's cost is exactly 0.62 of A's on every item, so the ratio is 0.62 on every replicate and "38% less" is exact).
"""

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband.costs import cost_from_summary, decision
from evalband.costs.decision import cost_words, latency_words, quality_words


def _pair(seed=3, n=120, ratio=0.62):
    gen = np.random.default_rng(seed)
    base = gen.lognormal(0, 0.8, size=n)
    p = 1 / (1 + np.exp(-gen.normal(1.2, 1.0, size=n)))
    rows = []
    for m, shift, c in (("A", 0.0, 1.0), ("B", -0.25, ratio)):
        score = (gen.random(n) < np.clip(p + shift * 0.2, 0, 1)).astype(float)
        for i in range(n):
            rows.append(dict(model=m, task="t", item=i, score=score[i], cost=c * base[i],
                             latency=float(gen.lognormal(0.5 if m == "A" else 0.0, 0.3))))
    return pd.DataFrame(rows)


def test_quality_part_is_that_of_compare():
    df = _pair()
    dec = decision(df, models=("A", "B"), n_resamples=2000, rng=4)
    cmp = eb.compare(df, models=["A", "B"], n_resamples=2000, rng=4).to_frame()
    row = cmp[(cmp["aggregate"] == "mean")].iloc[0]
    sign = 1.0 if row["model_a"] == "A" else -1.0
    assert dec.quality.difference[0] == pytest.approx(sign * row["difference"], rel=1e-12)
    lo, hi = (row["ci_low"], row["ci_high"]) if sign > 0 else (-row["ci_high"], -row["ci_low"])
    assert (dec.quality.ci.low[0], dec.quality.ci.high[0]) == (pytest.approx(lo), pytest.approx(hi))
    flipped = {"A better": "B better", "B better": "A better"}
    expected = row["verdict"] if sign > 0 else flipped.get(row["verdict"], row["verdict"])
    assert dec.quality.verdict[0] == expected


def test_sentence_with_an_exact_cost_ratio():
    dec = decision(_pair(), models="A,B", n_resamples=1000, rng=1)
    assert dec.cost_ratio == pytest.approx(0.62, rel=1e-12)
    assert dec.cost_ratio_ci.low == pytest.approx(0.62) and dec.cost_ratio_ci.high == pytest.approx(0.62)
    assert "B costs 38.0% less per item (95% CI 38.0% to 38.0%)" in dec.sentence
    assert dec.sentence.startswith(("quality not yet decided (", "A better in quality ("))
    assert "B's median latency is" in dec.sentence  # A's latencies are exp(0.5) times B's
    frame = dec.to_frame()
    assert frame["measure"].tolist() == ["quality", "cost", "cost", "latency median", "latency p95"]
    assert frame.loc[1, "comparison"] == "B / A" and frame.loc[1, "verdict"] == "B cheaper"
    assert frame.loc[3, "verdict"] == "B faster"
    assert "Decision: A (A) vs B (B)" in repr(dec)


def test_seed_001_wording():
    # seed 001's worked example: +4.0 points, 95% CI -3.6 to +11.6, undecided; B 38% cheaper (30% to 45%);
    # digits follow the standard error (two significant figures: an SE of 3.8 points shows one decimal)
    q = quality_words("A", "B", 0.04, 0.039, -0.036, 0.116, "not yet decided", level=0.95, scale=100, margin=0)
    assert q == "quality not yet decided (+4.0 points, 95% CI -3.6 to +11.6)"
    c = cost_words("A", "B", 0.62, 0.55, 0.70, level=0.95)
    assert c == "B costs 38.0% less per item (95% CI 30.0% to 45.0%)"
    assert cost_words("A", "B", 1.25, 0.6, 2.6, level=0.95) == (
        "cost not yet decided (B costs 25% more per item, 95% CI 40% less to 160% more)")  # SE ~ 50%: no decimals
    assert cost_words("A", "B", 1.25, 1.1, 1.4, level=0.95) == "B costs 25.0% more per item (95% CI 10.0% to 40.0%)"
    assert cost_words("A", "B", 0.95, 0.88, 1.03, level=0.95) == (
        "cost not yet decided (B costs 5.0% less per item, 95% CI 12.0% less to 3.0% more)")
    # the house digit rule counts an SE's two significant figures with trailing zeros (display.decimals_for)
    assert latency_words("A", "B", -0.42, 0.06, -0.55, -0.31, level=0.95) == (
        "A's median latency is 0.420 lower (95% CI 0.310 to 0.550)")  # SE 0.06 to two figures is 0.060: 3 decimals
    assert latency_words("A", "B", -0.42, 0.12, -0.66, -0.18, level=0.95) == (
        "A's median latency is 0.42 lower (95% CI 0.18 to 0.66)")  # SE 0.12: two decimals
    assert quality_words("A", "B", 0.05, 0.01, 0.03, 0.07, "A better", level=0.95, scale=100,
                         margin=0).startswith("A better in quality (+5.0 points")  # SE 1.0 to two figures: 1 decimal
    assert quality_words("A", "B", 0.05, 0.12, -0.19, 0.29, "not yet decided", level=0.95, scale=100,
                         margin=0).startswith("quality not yet decided (+5 points")  # SE 12 points: no decimals


def test_margin_detail_and_summary_costs():
    df = _pair()
    dec = decision(df, models=["A", "B"], n_resamples=1000, rng=2, margin=0.5, latency=False)
    assert dec.quality.verdict[0] == "equivalent"  # every difference lies inside a 50-point margin
    assert dec.sentence.startswith("quality equivalent within the 50-point margin")
    assert dec.latency_values is None and len(dec.to_frame()) == 3
    costs = cost_from_summary(pd.DataFrame({"model": ["A", "B"], "cost": [2.0, 1.0], "se": [0.1, 0.1]}))
    dec = decision(df, models=["A", "B"], cost=costs, n_resamples=500, rng=0, latency=False)
    assert dec.cost_ratio == pytest.approx(0.5) and not dec.paired
    assert "B costs 50" in dec.sentence


def test_bad_pairs():
    df = _pair()
    with pytest.raises(ValueError, match="`models` must name two different models"):
        decision(df, models=("A", "A"))
    with pytest.raises(ValueError, match="`models`: unknown 'Z'"):
        decision(df, models=("A", "Z"))
