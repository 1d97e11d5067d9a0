"""Position and length biases of pairwise judges: theory on constructed judges, statsmodels on HiBayES q5,
LLMFAO's GPT judges against the crowd."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalband.judges as ej
from evalband._validate import InputError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def swapped_games(rng, n=400, bias=0.0):
    """Games of answers with quality q judged in both orders: P(first wins) = expit(q_first - q_second + bias)."""
    q = rng.normal(size=(n, 2))
    rows = []
    for g in range(n):
        for first, second in ((0, 1), (1, 0)):
            p = 1 / (1 + np.exp(-(q[g, first] - q[g, second] + bias)))
            rows.append({"prompt": f"p{g % 40}", "left": f"g{g}-{first}", "right": f"g{g}-{second}",
                         "winner": "left" if rng.uniform() < p else "right"})
    return pd.DataFrame(rows)


def test_constructed_judges_exact():
    rng = np.random.default_rng(0)
    games = swapped_games(rng, 50)
    always_first = games.assign(winner="left")
    res = ej.position_bias(always_first, item_col="prompt", n_resamples=50, rng=0).to_frame().set_index("statistic")
    assert res.loc["first_position_win_rate", "estimate"] == 1.0
    assert res.loc["position_consistency", "estimate"] == 0.0
    # a judge that always picks the same answer (the one named '...-0') has no position bias and full consistency
    fair = games.assign(winner=np.where(games["left"].str.endswith("-0"), "left", "right"))
    res = ej.position_bias(fair, item_col="prompt", n_resamples=50, rng=0).to_frame().set_index("statistic")
    assert res.loc["first_position_win_rate", "estimate"] == 0.5
    assert res.loc["position_consistency", "estimate"] == 1.0
    assert res.loc["first_position_win_rate", "design"] == "swapped"


def test_position_bias_detected_and_unbiased_judge_covered():
    rng = np.random.default_rng(1)
    unbiased = ej.position_bias(swapped_games(rng, 400, 0.0), item_col="prompt", cluster_col="prompt",
                                rng=3).to_frame().set_index("statistic")
    lo, hi = unbiased.loc["first_position_win_rate", ["ci_low", "ci_high"]]
    assert lo < 0.5 < hi
    biased = ej.position_bias(swapped_games(rng, 400, 1.0), item_col="prompt", rng=3).to_frame().set_index("statistic")
    assert biased.loc["first_position_win_rate", "ci_low"] > 0.6  # expit(1) averaged over quality: about 0.68


def test_llmfao_gpt_judges_against_the_crowd():
    d = FIXTURES / "llmfao"
    crowd = pd.read_csv(d / "crowd-comparisons.csv")
    games = pd.concat([crowd.assign(judge="crowd"), pd.read_csv(d / "gpt4-crowd-comparisons.csv").assign(judge="gpt-4"),
                       pd.read_csv(d / "gpt3-crowd-comparisons.csv").assign(judge="gpt-3.5")], ignore_index=True)
    res = ej.position_bias(games, item_col="prompt", judge_col="judge", reference="crowd", cluster_col="prompt",
                           n_resamples=500, rng=0)
    st = res.to_frame().set_index(["judge", "statistic"])
    # pandas on gpt3-crowd-comparisons.csv: winner 'left' 1,352, 'right' 593, 'tie' 194 of 2,139 games, so the
    # first position's score is (1352 + 194 / 2) / 2139 = 0.6774193548387096
    assert st.loc[("gpt-3.5", "first_position_win_rate"), "estimate"] == pytest.approx(1449 / 2139, abs=1e-12)
    assert st.loc[("gpt-3.5", "first_position_win_rate"), "design"] == "single order"
    # crowd: the mean over games of each game's mean worker score
    per_game = crowd.assign(s=crowd["winner"].map({"left": 1.0, "right": 0.0, "tie": 0.5})).groupby("id")["s"].mean()
    assert st.loc[("crowd", "first_position_win_rate"), "estimate"] == pytest.approx(float(per_game.mean()))
    # same games, same order: GPT-3.5 favours the first answer more than the crowd, GPT-4 less
    assert st.loc[("gpt-3.5", "first_position_vs_reference"), "ci_low"] > 0.05
    assert st.loc[("gpt-4", "first_position_vs_reference"), "ci_high"] < 0
    assert any("no game judged in both orders" in n for n in res.notes)


def test_hibayes_length_slope_matches_statsmodels():
    q5 = pd.read_csv(FIXTURES / "hibayes" / "q5.csv")
    res = ej.length_bias(q5, outcome_col="first_is_chosen", length_col="length_diff", judge_col="grader",
                         strata_col="llm_pair", per=100, reference="Human", n_resamples=2000, rng=0)
    st = res.to_frame().set_index(["judge", "statistic"])
    # statsmodels.formula.api.ols('first_is_chosen ~ 0 + C(llm_pair) + ld', q5[grader == G].assign(ld=length_diff
    # / 100)).fit() -> params['ld']: Autograder 0.20599796703654621, Human -0.06146630744301822; with
    # cov_type='HC1' the standard errors are 0.0444360951006491 and 0.06355333762359958
    assert st.loc[("Autograder", "length_slope"), "estimate"] == pytest.approx(0.20599796703654621, abs=1e-10)
    assert st.loc[("Human", "length_slope"), "estimate"] == pytest.approx(-0.06146630744301822, abs=1e-10)
    assert st.loc[("Autograder", "length_slope"), "se"] == pytest.approx(0.0444360951006491, rel=0.1)
    assert st.loc[("Human", "length_slope"), "se"] == pytest.approx(0.06355333762359958, rel=0.1)
    # the autograder prefers longer answers more than the humans do
    diff = st.loc[("Autograder", "length_slope_vs_reference")]
    assert diff["estimate"] == pytest.approx(0.20599796703654621 + 0.06146630744301822, abs=1e-10)
    assert diff["ci_low"] > 0
    smf = pytest.importorskip("statsmodels.formula.api")
    sub = q5[q5["grader"] == "Autograder"].assign(ld=lambda f: f["length_diff"] / 100)
    fit = smf.ols("first_is_chosen ~ 0 + C(llm_pair) + ld", sub).fit()
    assert st.loc[("Autograder", "length_slope"), "estimate"] == pytest.approx(fit.params["ld"], abs=1e-10)


def test_bias_errors_name_the_argument():
    games = swapped_games(np.random.default_rng(0), 5)
    with pytest.raises(InputError, match="winner 'maybe' is not"):
        ej.position_bias(games.assign(winner="maybe"), rng=0)
    with pytest.raises(InputError, match="no column 'side'"):
        ej.position_bias(games, first_col="side", rng=0)
    with pytest.raises(ValueError, match="`reference`: unknown judge"):
        ej.position_bias(games, reference="crowd", rng=0)
    with pytest.raises(ValueError, match="`per` must be a positive number"):
        ej.length_bias(games.assign(length_diff=1.0), per=0, rng=0)
    res = ej.position_bias(games, item_col="prompt", n_resamples=20, rng=0)
    assert "BiasResult(position" in repr(res) and "<table" in res._repr_html_()
