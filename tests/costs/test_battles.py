"""Preference data on the frontier: arena ratings as quality, costs and latencies resampled with the same clusters.

Oracles:
* the arena itself: quality and its interval are ``evalband.arena``'s for the same seed;
* pairing, by construction: with win rates against a baseline and each battle's cost equal to its outcome, the
  cost of a model on every replicate must equal its win rate on that replicate (same questions drawn);
* NumPy on the expanded sample: the quantiles of cells under bootstrap counts equal ``numpy.quantile`` of the cells
  repeated by their counts (hypothesis), the means the mean of that sample;
* pandas on LLMFAO's real files (crowd battles of 59 models on 13 prompts; ``responses.csv`` with each response's
  duration): each model's latency median, p95 and mean response length over the crowd-judged prompts.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import evalband as eb
from evalband._validate import InputError
from evalband.costs import frontier
from evalband.costs._units import Cells, cell_jackknife, cell_means, cell_quantiles

LLMFAO = Path(__file__).resolve().parents[1] / "fixtures" / "llmfao"


def _baseline_battles(n_questions=40, seed=0):
    gen = np.random.default_rng(seed)
    rows = []
    for q in range(n_questions):
        for model, p in (("X", 0.7), ("Y", 0.4)):
            y = float(gen.random() < p) if gen.random() > 0.1 else 0.5
            rows.append(dict(model_a=model, model_b="base", winner=y, question_id=f"q{q}", cost_a=y, cost_b=0.5,
                             latency_a=1.0 + y, latency_b=1.0))
    return pd.DataFrame(rows)


def test_costs_come_from_the_ratings_draws():
    res = frontier(_baseline_battles(), n_resamples=600, rng=3, arena_options={"model": "win-rate",
                                                                                "baseline": "base"})
    assert res.models == ("X", "Y", "base") and res.paired
    np.testing.assert_array_equal(res.draws.samples, res.cost.samples)  # the same questions on every replicate
    np.testing.assert_array_equal(res.quality, res.cost.estimate)
    ar = eb.arena(_baseline_battles(), model="win-rate", baseline="base", n_resamples=600,
                  rng=np.random.default_rng(3).integers(0, 2**63))
    np.testing.assert_array_equal(res.quality, ar.rating)
    assert res.latency is not None and res.latency.n_items.tolist() == [40.0, 40.0, 40.0]


def test_quality_is_the_arena_rating():
    battles = eb.select(str(LLMFAO / "crowd-comparisons.csv"))
    res = frontier(battles, cost=_llmfao_costs(), n_resamples=300, rng=np.random.default_rng(11))
    seed = np.random.default_rng(11).integers(0, 2**63)  # the one int seed the frontier draws for the arena
    ar = eb.arena(battles.table, n_resamples=300, rng=seed)
    np.testing.assert_allclose(res.quality, ar.rating, rtol=1e-12)
    np.testing.assert_allclose(res.quality_ci.low, ar.ranking.ci.low, rtol=1e-12)
    assert res.aggregate == "Bradley-Terry rating" and res.scale == 1.0
    assert any("only 13 questions" in n for n in res.notes)


def _llmfao_costs():
    return eb.read(str(LLMFAO / "responses.csv"), source="costs", model_col="name", cost_col="result_chars",
                   latency_col="duration_ms")


def test_llmfao_durations_as_latency():
    """LLMFAO: the crowd battles' quality against each response's length (cost) and duration (latency)."""
    battles = eb.select(str(LLMFAO / "crowd-comparisons.csv"))
    res = frontier(battles, cost=_llmfao_costs(), n_resamples=400, rng=2)
    responses = pd.read_csv(LLMFAO / "responses.csv")
    crowd = pd.read_csv(LLMFAO / "crowd-comparisons.csv")
    asked = responses[responses["prompt"].isin(crowd["prompt"].unique())]
    by = asked.groupby("name")
    frame = res.to_frame().set_index("model")
    models = list(frame.index)
    np.testing.assert_allclose(frame["latency_median"], by["duration_ms"].median().loc[models], rtol=1e-12)
    np.testing.assert_allclose(frame["latency_p95"], by["duration_ms"].quantile(0.95).loc[models], rtol=1e-12)
    np.testing.assert_allclose(frame["cost"], by["result_chars"].mean().loc[models], rtol=1e-12)
    assert res.latency.n_items.tolist() == by.size().loc[models].astype(float).tolist()  # 13 prompts each
    # the stored values of that call, for the record
    assert frame.loc["GPT 4", "latency_median"] == pytest.approx(6399.0)
    assert frame.loc["Dolly v2 (12B)", "latency_median"] == pytest.approx(10542.0)
    assert res.paired and any("matched to the battles' questions (paired)" in n for n in res.notes)
    dec = res.decision("Dolly v2 (12B)", "LLaMA-2-Chat (7B)")
    assert "LLaMA-2-Chat (7B)'s median latency is" in dec.sentence  # 10.5 s against 2.2 s on 13 prompts


def test_per_battle_columns_are_means_per_question():
    battles = _baseline_battles(30, seed=5)
    battles["cost_a"] = np.arange(len(battles), dtype=float) + 1.0
    res = frontier(battles, n_resamples=200, rng=1)
    expected = battles.groupby(["model_a", "question_id"])["cost_a"].mean().groupby("model_a").mean()
    np.testing.assert_allclose(res.cost.estimate[:2], expected.loc[["X", "Y"]], rtol=1e-13)
    assert res.cost.estimate[2] == 0.5  # the baseline's cost_b
    assert any("cost_a / cost_b columns" in n for n in res.notes)


def test_summary_costs_and_own_units():
    battles = _baseline_battles(30, seed=6).drop(columns=["cost_a", "cost_b", "latency_a", "latency_b"])
    summary = eb.read(pd.DataFrame({"model": ["X", "Y", "base"], "cost": [2.0, 1.0, 3.0], "se": [0.1, 0.1, 0.1]}),
                      source="costs")
    res = frontier(battles, cost=summary, n_resamples=200, rng=1)
    assert not res.paired and res.cost.method == "normal" and res.latency is None
    responses = eb.read(pd.DataFrame({"model": ["X", "Y", "base"] * 20, "item": np.repeat(np.arange(20), 3),
                                      "cost": np.tile([2.0, 1.0, 3.0], 20) + np.repeat(np.arange(20), 3) / 100}),
                        source="costs")
    own = frontier(battles, cost=responses, n_resamples=200, rng=1, arena_options={"cluster": "none"})
    assert not own.paired and any("resampled by its own items" in n for n in own.notes)
    np.testing.assert_allclose(own.cost.estimate, [2.095, 1.095, 3.095])


def test_errors():
    battles = _baseline_battles().drop(columns=["cost_a", "cost_b"])
    with pytest.raises(InputError, match="no per-battle 'cost' columns .cost_a / cost_b. in the battles"):
        frontier(battles, n_resamples=50, rng=0)
    with pytest.raises(ValueError, match="`cost_method='t'` applies to item-level results"):
        frontier(_baseline_battles(), cost_method="t", n_resamples=50, rng=0)
    with pytest.raises(ValueError, match="`arena_options` takes"):
        frontier(_baseline_battles(), arena_options={"models": ["X"]}, n_resamples=50, rng=0)
    partial = eb.read(pd.DataFrame({"model": ["X", "Y"], "item": ["q1", "q1"], "cost": [1.0, 2.0]}), source="costs")
    with pytest.raises(ValueError, match="the costs lack model.*'base'"):
        frontier(_baseline_battles(), cost=partial, n_resamples=50, rng=0)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_cell_statistics_are_those_of_the_expanded_sample(n_units, n_models, seed):
    gen = np.random.default_rng(seed)
    present = gen.random((n_units, n_models)) < 0.7
    unit, model = np.nonzero(present)
    value = np.round(gen.lognormal(0, 1, size=unit.size), 1)  # ties among values, as real costs have
    cells = Cells(unit, model, value, n_units, n_models)
    counts = gen.multinomial(n_units, np.full(n_units, 1 / n_units), size=5).astype(float)
    qs = (0.1, 0.5, 0.95)
    quant, mean = cell_quantiles(cells, counts, qs), cell_means(cells, counts)
    jack = cell_jackknife(cells)
    for b in range(counts.shape[0]):
        for k in range(n_models):
            mine = model == k
            sample = np.repeat(value[mine], counts[b, unit[mine]].astype(int))
            if sample.size == 0:
                assert np.isnan(quant[b, k]).all() and np.isnan(mean[b, k])
                continue
            np.testing.assert_array_equal(quant[b, k], np.quantile(sample, qs))
            assert mean[b, k] == pytest.approx(sample.mean(), rel=1e-12)
    for u in range(n_units):
        for k in range(n_models):
            rest = value[(model == k) & (unit != u)]
            assert (np.isnan(jack[u, k]) if rest.size == 0 else jack[u, k] == pytest.approx(rest.mean(), rel=1e-12))


def test_too_few_questions_decide_nothing():
    """GPT 4 and LLaMA-2-Chat (7B) met in 3 crowd battles on one prompt: no verdict on quality, cost or latency."""
    battles = eb.select(str(LLMFAO / "crowd-comparisons.csv"), models=["GPT 4", "LLaMA-2-Chat (7B)"])
    res = frontier(battles, cost=_llmfao_costs(), n_resamples=200, rng=1)
    dec = res.decision("GPT 4", "LLaMA-2-Chat (7B)")
    assert dec.withheld.startswith("only 1 resampling units: too few for a bootstrap verdict")
    assert set(dec.to_frame()["verdict"]) == {"not yet decided"}
    assert "median latency not yet decided (GPT 4 - LLaMA-2-Chat (7B) +" in dec.sentence
    assert not res.dominance.any()
