"""``arena()``: the issue's contract on real data, one replicate set behind every statistic, seeds and row order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband.preferences import ELO_PER_LOGIT, BattleTable, arena
from evalband.ranking import rank_models

from ..conftest import FIXTURES
from .test_bradley_terry import golden

LLMFAO = FIXTURES / "llmfao" / "crowd-comparisons.csv"
JSON_FIELDS = ["model", "rating", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "p_best", "n_battles",
               "n_wins", "n_ties"]


@pytest.fixture(scope="module")
def llmfao():
    return {c: arena(LLMFAO, scale="logit", cluster=c, rng=2026, n_resamples=1000) for c in ("auto", "none")}


def test_contract_softmax_of_logit_rating_equals_evalica_golden(llmfao):
    frame = llmfao["auto"].to_frame()
    share = np.exp(frame["rating"]) / np.exp(frame["rating"]).sum()
    ours = pd.Series(share.to_numpy(), index=frame["model"])
    g = golden("llmfao", "bradley_terry")  # evalica.bradley_terry(...).scores / sum, all 59 models
    assert len(g) == 59 and set(g.index) == set(ours.index)
    np.testing.assert_allclose(ours[g.index].to_numpy(), g.to_numpy(), rtol=5e-4)


def test_contract_question_clustering_widens_the_intervals(llmfao):
    clustered = llmfao["auto"].to_frame().set_index("model")
    plain = llmfao["none"].to_frame().set_index("model").loc[clustered.index]
    assert llmfao["auto"].cluster == "question" and llmfao["auto"].n_units == 13
    assert llmfao["none"].cluster is None and llmfao["none"].n_units == 8931
    width_c = clustered["ci_high"] - clustered["ci_low"]
    width_n = plain["ci_high"] - plain["ci_low"]
    assert width_c.mean() > 1.3 * width_n.mean()
    assert (width_c > width_n).mean() > 0.9


def test_to_frame_has_the_issue_fields_first(llmfao):
    frame = llmfao["auto"].to_frame()
    assert list(frame.columns[:11]) == JSON_FIELDS
    assert {"rank_sim_low", "rank_sim_high", "tier", "se"} <= set(frame.columns)
    assert (frame["rank"].diff().dropna() >= 0).all()
    assert frame["p_best"].sum() == pytest.approx(1.0)
    assert (frame["ci_low"] <= frame["rating"]).all() and (frame["rating"] <= frame["ci_high"]).all()
    assert (frame["rank_sim_low"] <= frame["rank_low"]).all() and (frame["rank_high"] <= frame["rank_sim_high"]).all()
    assert frame["n_battles"].sum() == 2 * 8931


def test_one_replicate_set_feeds_every_statistic(llmfao):
    res = llmfao["auto"]
    again = rank_models(res.rating, res.samples, res.models, aggregate="rating", scale=1.0, n_units=13)
    frame = res.to_frame().set_index("model")
    np.testing.assert_array_equal(frame.loc[list(res.models), "p_best"], again.p_best)
    np.testing.assert_array_equal(frame.loc[list(res.models), "rank_sim_high"], again.rank_simultaneous.high)
    pairs = res.pairwise(correction="none")
    separated = pairs["verdict"].isin(["A better", "B better"]).mean()
    assert res.separability == pytest.approx(separated)
    assert set(pairs["verdict"]) <= {"A better", "B better", "equivalent", "not yet decided"}
    # predicted win probability of model_a over model_b agrees with the rating difference
    row = pairs.iloc[0]
    assert row["win_probability"] == pytest.approx(1 / (1 + np.exp(-row["difference"])))
    mat = res.win_matrix()
    off = ~np.eye(59, dtype=bool)
    assert mat.shape == (59, 59) and np.isnan(np.diag(mat.to_numpy())).all()
    assert np.allclose((mat.to_numpy() + mat.to_numpy().T)[off], 1.0)


def test_same_seed_same_numbers_and_row_order_does_not_matter():
    df = pd.read_csv(LLMFAO)
    shuffled = df.sample(frac=1.0, random_state=3)
    for method in ("bt", "win-rate", "elo", "davidson"):
        r1 = arena(df, model=method, rng=11, n_resamples=120)
        r2 = arena(shuffled, model=method, rng=11, n_resamples=120)
        f1, f2 = r1.to_frame(), r2.to_frame()
        cols = ["model", "rating", "ci_low", "ci_high", "rank_low", "rank_high", "p_best"]
        pd.testing.assert_frame_equal(f1[cols], f2[cols], rtol=1e-10, atol=1e-10)
    other = arena(df, rng=12, n_resamples=120).to_frame()
    assert not np.allclose(other["ci_low"], arena(df, rng=11, n_resamples=120).to_frame()["ci_low"])


def test_identical_model_copies_get_identical_intervals():
    df = pd.read_csv(LLMFAO)
    copy = df[(df.left == "GPT 4") | (df.right == "GPT 4")].copy()
    copy["left"] = copy["left"].replace("GPT 4", "GPT 4 (copy)")
    copy["right"] = copy["right"].replace("GPT 4", "GPT 4 (copy)")
    both = pd.concat([df, copy], ignore_index=True)
    frame = arena(both, rng=5, n_resamples=300).to_frame().set_index("model")
    a, b = frame.loc["GPT 4"], frame.loc["GPT 4 (copy)"]
    for col in ("rating", "ci_low", "ci_high", "rank_low", "rank_high"):
        assert a[col] == pytest.approx(b[col], abs=1e-8)


def test_scales_are_one_fit_seen_three_ways():
    df = pd.read_csv(LLMFAO)
    logit = arena(df, scale="logit", rng=1, n_resamples=100)
    elo = arena(df, scale="elo", rng=1, n_resamples=100)
    prob = arena(df, scale="prob", rng=1, n_resamples=100)
    np.testing.assert_allclose(elo.rating, ELO_PER_LOGIT * logit.rating + 1000, rtol=1e-12)
    np.testing.assert_allclose(elo.samples, ELO_PER_LOGIT * logit.samples + 1000, rtol=1e-12)
    np.testing.assert_allclose(prob.rating, np.exp(logit.rating) / np.exp(logit.rating).sum(), rtol=1e-12)
    assert logit.rating.mean() == pytest.approx(0.0, abs=1e-12)
    assert prob.rating.sum() == pytest.approx(1.0)
    anchored = arena(df, anchor={"GPT 4": 1200}, rng=1, n_resamples=100).to_frame().set_index("model")
    assert anchored.loc["GPT 4", ["rating", "ci_low", "ci_high"]].tolist() == [1200, 1200, 1200]
    same = arena(df, anchor="GPT 4=1200", rng=1, n_resamples=100)
    np.testing.assert_allclose(same.rating - elo.rating, 1200 - elo.rating[elo.models.index("GPT 4")])


def test_tie_models_report_their_parameter():
    df = pd.read_csv(LLMFAO)
    rk = arena(df, model="rao-kupper", rng=1, n_resamples=100)
    dv = arena(df, ties="davidson", rng=1, n_resamples=100)
    assert rk.method == "rao-kupper" and rk.tie_parameter > 1 and rk.tie_parameter_ci.low < rk.tie_parameter
    assert dv.method == "davidson" and dv.tie_parameter > 0
    assert any("tie parameter" in r for r in dv.readings())
    dropped = arena(df, ties="drop", rng=1, n_resamples=100)
    assert any("tied battles left out" in n for n in dropped.notes)
    assert dropped.n_battles == int((df.winner != "tie").sum())


def test_bca_intervals_and_arena_hard_90_percent():
    df = pd.read_csv(LLMFAO)
    pct = arena(df, rng=3, n_resamples=300)
    bca = arena(df, rng=3, n_resamples=300, method="bca")
    assert bca.jackknife.shape == (13, 59)
    np.testing.assert_array_equal(pct.samples, bca.samples)
    assert not np.allclose(pct.to_frame()["ci_low"], bca.to_frame()["ci_low"])
    ninety = arena(df, rng=3, n_resamples=300, confidence_level=0.9)
    assert any("90% intervals, as Arena-Hard" in n for n in ninety.notes)
    w90 = (ninety.to_frame()["ci_high"] - ninety.to_frame()["ci_low"]).mean()
    w95 = (pct.to_frame()["ci_high"] - pct.to_frame()["ci_low"]).mean()
    assert w90 < w95


def test_elo_method_reports_online_and_bootstrap():
    res = arena(LLMFAO, model="elo", rng=1, n_resamples=100)
    frame = res.to_frame()
    assert "rating_online" in frame.columns
    np.testing.assert_allclose(res.rating, np.median(res.samples, axis=0) - np.median(res.samples, axis=0).mean()
                               + 1000, rtol=1e-12)
    assert any("depends on the order" in n for n in res.notes)


def test_baseline_adds_predicted_win_rate():
    res = arena(LLMFAO, baseline="GPT 4", rng=1, n_resamples=100)
    f = res.to_frame().set_index("model")
    assert f.loc["GPT 4", "predicted_win_rate"] == 0.5
    assert ((f["predicted_win_rate_low"] <= f["predicted_win_rate"])
            & (f["predicted_win_rate"] <= f["predicted_win_rate_high"])).all()


def test_readings_repr_and_html(llmfao):
    res = llmfao["auto"]
    text = res.readings()
    assert text[0].startswith("Bradley-Terry (a tie counts as half a win) of 59 models from 8,931 battles")
    assert "13 questions resampled whole, seed 2026" in text[0]
    assert text[1].startswith("GPT 4 ranks first")
    assert text[2].startswith("separability:")
    r = repr(res)
    assert len(r) <= 2000 and r.count("\n") <= 10 and "ArenaResult(Bradley-Terry" in r
    assert "<table" in res._repr_html_()
    assert res.summary["leader"] == "GPT 4"
    dist = res.rank_distribution()
    assert dist.groupby("model")["probability"].sum().round(12).eq(1).all()


def test_argument_errors_name_the_argument():
    df = pd.read_csv(LLMFAO)
    with pytest.raises(ValueError, match="`model` must be one of 'bt', 'elo', 'rao-kupper', 'davidson', 'win-rate'"):
        arena(df, model="glicko")
    with pytest.raises(ValueError, match="`method` must be one of 'percentile', 'bca'"):
        arena(df, method="glicko")
    with pytest.raises(ValueError, match="`ties` must be one of"):
        arena(df, ties="ignore")
    with pytest.raises(ValueError, match="`method='bca'` is not available for model 'elo'"):
        arena(df, model="elo", method="bca")
    with pytest.raises(ValueError, match="`anchor`: unknown model 'nobody'"):
        arena(df, anchor="nobody=1000", n_resamples=10)
    with pytest.raises(ValueError, match="`anchor` does not apply to scale='prob'"):
        arena(df, anchor="GPT 4=1000", scale="prob", n_resamples=10)
    with pytest.raises(ValueError, match="`k` must be a finite number > 0"):
        arena(df, model="elo", k=0)
    with pytest.raises(ValueError, match="`n_resamples` must be an integer >= 2"):
        arena(df, n_resamples=1)
    with pytest.raises(ValueError, match="`cluster`: the battles have no 'session' labels"):
        arena(df, cluster="session", n_resamples=10)
    with pytest.raises(ValueError, match="`models` must name at least two models"):
        arena(df, models=["GPT 4"], n_resamples=10)
    one = BattleTable.build(np.array(["x", "x"], dtype=object), np.array(["y", "y"], dtype=object), [0.5, 0.5])
    with pytest.raises(ValueError, match="every battle is a tie"):
        arena(one, ties="drop", n_resamples=10)
    with pytest.raises(ValueError, match="no ties"):
        arena(BattleTable.build(np.array(["x"], dtype=object), np.array(["y"], dtype=object), [1.0]),
              model="rao-kupper", n_resamples=10)


def test_models_selection_counts_what_is_left_out():
    res = arena(LLMFAO, models=["GPT 4", "command", "Claude v1"], rng=1, n_resamples=100)
    assert set(res.models) == {"GPT 4", "command", "Claude v1"}
    assert any("battles with a model outside `models` left out" in n for n in res.notes)
