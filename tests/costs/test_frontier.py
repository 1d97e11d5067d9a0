"""The quality-cost frontier with domination decided at a confidence level.

Oracles:
* the contract of issue 18 on constructed files (C far worse and far costlier than B: B in C's dominated_by; A
  and B trading quality for cost: both on the frontier, neither dominating the other);
* constructed cases where domination is and is not decided (a near tie; an identical model at half the cost,
  decided only with a margin);
* the same engine as ``evalband.rank``: quality and its interval equal rank's for the same seed;
* theory for the error rate: with every model equal in quality and cost no domination claim is true, so the
  share of simulated datasets with any claim must not exceed 1 - confidence_level (binomtest, slow).
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalband as eb
from evalband.costs import (Quality, cost_from_summary, costs_from_replicates, frontier, joint_from_arrays,
                            quality_from_replicates)

CONTRACT_COLUMNS = ["model", "quality", "quality_ci_low", "quality_ci_high", "cost", "cost_ci_low", "cost_ci_high",
                    "on_frontier", "dominated_by"]


def test_contract_far_worse_and_costlier_is_dominated(make, tmp_path):
    df = make({"A": (0.85, 2.0), "B": (0.70, 0.5), "C": (0.35, 4.0)}, n_items=200, latency=False)
    path = tmp_path / "results.csv"
    df.to_csv(path, index=False)
    res = frontier(str(path), n_resamples=1000, rng=1)
    frame = res.to_frame()
    assert list(frame.columns) == CONTRACT_COLUMNS
    rows = frame.set_index("model")
    assert "B" in rows.loc["C", "dominated_by"]
    assert not rows.loc["C", "on_frontier"]
    assert isinstance(rows.loc["C", "dominated_by"], list)


def test_contract_trading_quality_for_cost(make):
    df = make({"A": (0.85, 2.0), "B": (0.60, 0.5)}, n_items=200, latency=False)
    res = frontier(df, n_resamples=1000, rng=2)
    rows = res.to_frame().set_index("model")
    assert rows["on_frontier"].all()
    assert rows.loc["A", "dominated_by"] == [] and rows.loc["B", "dominated_by"] == []
    assert not res.dominance.any()
    assert res.frontier_models == ("B", "A")


def test_a_near_tie_is_not_decided(make):
    df = make({"B": (0.70, 1.0), "C": (0.69, 1.03)}, n_items=150, latency=False, seed=4)
    res = frontier(df, n_resamples=1000, rng=3)
    assert not res.dominance.any()
    assert res.p_adjusted[0, 1] > 0.05 and res.p_adjusted[1, 0] > 0.05


def test_an_identical_cheaper_model_dominates_only_with_a_margin(make):
    df = make({"A": (0.80, 1.0), "B": (0.70, 0.6)}, n_items=150, latency=False)
    copy = df[df["model"] == "B"].assign(model="B-cheap", cost=lambda d: d["cost"] * 0.5)
    df = pd.concat([df, copy], ignore_index=True)
    strict = frontier(df, n_resamples=1000, rng=5)
    assert strict.to_frame().set_index("model").loc["B", "dominated_by"] == []  # equal, not better
    loose = frontier(df, n_resamples=1000, rng=5, margin=0.01)
    assert loose.to_frame().set_index("model").loc["B", "dominated_by"] == ["B-cheap"]
    assert any("1-point margin" in r for r in loose.readings())


def test_quality_is_that_of_rank(results):
    res = frontier(results, n_resamples=800, rng=12)
    ranked = eb.rank(results, n_resamples=800, rng=12)["mean"]
    np.testing.assert_allclose(res.quality, ranked.estimate, rtol=1e-14)
    np.testing.assert_allclose(res.quality_ci.low, ranked.ci.low, rtol=1e-14)
    np.testing.assert_allclose(res.quality_ci.high, ranked.ci.high, rtol=1e-14)
    again = frontier(results, n_resamples=800, rng=12)
    np.testing.assert_array_equal(again.p_adjusted, res.p_adjusted)  # same seed, same numbers


def test_latency_fields_and_outputs(results):
    res = frontier(results, n_resamples=300, rng=0, min_quality=0.6)
    frame = res.to_frame()
    assert list(frame.columns) == CONTRACT_COLUMNS + [
        "latency_median", "latency_median_ci_low", "latency_median_ci_high", "latency_p95", "latency_p95_ci_low",
        "latency_p95_ci_high"]
    pairs = res.dominance_frame()
    assert len(pairs) == 6 and pairs["p_adjusted"].ge(pairs["p_value"]).all()
    assert len(repr(res)) <= 2000 and "FrontierResult" in repr(res) and "<table" in res._repr_html_()
    assert res.reach.cheapest == "B" and "cheapest model decidedly above 60 points: B" in res.reach.sentence
    none = frontier(results, n_resamples=300, rng=0, min_quality=0.97, latency=False)
    assert none.reach.cheapest is None and "no model is decidedly above 97 points" in none.reach.sentence
    assert none.latency is None and list(none.to_frame().columns) == CONTRACT_COLUMNS


def test_quality_given_directly_with_summary_costs():
    gen = np.random.default_rng(0)
    observed = np.array([1200.0, 1100.0, 1000.0])  # ratings, e.g. from an arena
    samples = observed + gen.normal(0, 15, size=(2000, 3))
    costs = pd.DataFrame({"model": ["X", "Y", "Z"], "cost": [3.0, 1.0, 2.0], "se": [0.1, 0.05, 0.05]})
    res = frontier(quality=(observed, samples), models=["X", "Y", "Z"], cost=costs, rng=0)
    rows = res.to_frame().set_index("model")
    assert rows["on_frontier"].tolist() == [True, True, False]
    assert rows.loc["Z", "dominated_by"] == ["Y"]
    assert res.scale == 1.0 and any("not paired" in n for n in res.notes)
    est = cost_from_summary(costs)
    res2 = frontier(quality=Quality(("Y", "X", "Z"), observed[[1, 0, 2]], samples[:, [1, 0, 2]], scale=1.0),
                    cost=est)
    assert res2.to_frame().set_index("model").loc["Z", "dominated_by"] == ["Y"]


def test_errors(results):
    with pytest.raises(ValueError, match="`correction` must be one of 'holm', 'bonferroni', 'bh', 'none'"):
        frontier(results, correction="fdr")
    with pytest.raises(ValueError, match="needs `models=` naming its columns"):
        frontier(quality=(np.zeros(2), np.zeros((10, 2))), cost=pd.DataFrame({"model": ["a", "b"], "cost": [1, 2]}))
    with pytest.raises(ValueError, match="the costs lack model"):
        frontier(quality=(np.zeros(2), np.zeros((10, 2))), models=["a", "c"],
                 cost=pd.DataFrame({"model": ["a", "b"], "cost": [1.0, 2.0]}))
    with pytest.raises(TypeError, match="`margin`"):
        frontier(results, margin="1%")


@pytest.mark.slow
def test_false_domination_stays_below_the_level():
    """The least favourable null: A is far better than B in quality (that half of "A dominates B" is true) and
    the two cost the same in distribution (the other half is false, at its boundary), so every claim that A
    dominates B is false. 600 datasets of 150 items, lognormal costs sharing an item effect; Holm over the two
    ordered pairs. Without the correction the one-sided BCa cost test rejects in about 7-8% of such datasets
    (measured: 0.079 over 2,000), liberal as bootstrap tests of skewed means are at this size; the paired t test
    is off by as much in the other tail."""
    gen = np.random.default_rng(8)
    n, n_sim, claims = 150, 600, 0
    for s in range(n_sim):
        item = gen.lognormal(0, 0.8, size=n)
        scores = np.vstack([gen.random(n) < 0.9, gen.random(n) < 0.4]).astype(float)
        cost = item * gen.lognormal(0, 0.4, size=(2, n))
        joint = joint_from_arrays(["A", "B"], {"t": scores}, {"t": cost}, n_resamples=999, rng=s)
        res = frontier(quality=quality_from_replicates(joint.quality), cost=costs_from_replicates(joint))
        claims += int(res.dominance.any())
    assert stats.binomtest(claims, n_sim, 0.05, alternative="greater").pvalue > 1e-3, claims


def test_weights_and_tasks_are_the_selection_rule(make):
    """Weights and tasks go through evalband.select, as for rank: the same weighted quality on the same draws."""
    df = make({"A": (0.85, 2.0), "B": (0.6, 0.5)}, n_items=120, tasks=("t1", "t2", "t3"), latency=False, seed=9)
    res = frontier(df, weights="t1=2,t2=1", n_resamples=600, rng=4)
    ranked = eb.rank(df, weights="t1=2,t2=1", n_resamples=600, rng=4)["mean"]
    np.testing.assert_allclose(res.quality, ranked.estimate, rtol=1e-13)
    np.testing.assert_allclose(res.quality_ci.high, ranked.ci.high, rtol=1e-13)
    assert any("weight 0" in n for n in res.notes)  # t3 is not named: it weighs 0, said in a note
    only = frontier(df, tasks=["t2"], n_resamples=300, rng=1)
    assert only.draws.samples.shape == (300, 2)
    np.testing.assert_allclose(only.quality, df[df["task"] == "t2"].groupby("model")["score"].mean(), rtol=1e-13)
