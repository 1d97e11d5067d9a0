"""Judges against a reference: accuracy, kappa, bias, confusion, error correlation; LLMFAO's crowd and GPT-4."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalband.judges as ej

LLMFAO = Path(__file__).resolve().parents[1] / "fixtures" / "llmfao"


def llmfao_ratings() -> pd.DataFrame:
    """Crowd workers and GPT-4 / GPT-3.5 on the same 2,139 LLMFAO pairs: unit = pair id, value = winner."""
    crowd = pd.read_csv(LLMFAO / "crowd-comparisons.csv")
    gpt4 = pd.read_csv(LLMFAO / "gpt4-crowd-comparisons.csv")
    gpt3 = pd.read_csv(LLMFAO / "gpt3-crowd-comparisons.csv")
    frames = [crowd.assign(rater="w" + crowd["worker"].astype(str)), gpt4.assign(rater="gpt-4"),
              gpt3.assign(rater="gpt-3.5")]
    return pd.concat(frames, ignore_index=True)[["id", "prompt", "rater", "winner"]]


def test_llmfao_gpt4_against_the_crowd_majority():
    data = llmfao_ratings()
    res = ej.judge_reference(data, reference="majority", judges=["gpt-4", "gpt-3.5"], unit_col="id",
                             rater_col="rater", value_col="winner", measurement="nominal", cluster="prompt",
                             n_resamples=500, rng=1)
    st = res.to_frame().set_index(["judge", "statistic"])
    # pandas on the crowd-comparisons: majority winner per id (ties between categories left out) -> 1,831 ids;
    # (gpt4.winner == majority).mean() -> 0.446204259967231;
    # sklearn.metrics.cohen_kappa_score(gpt4, majority, labels=['left', 'right', 'tie']) -> 0.2181296602467946
    assert st.loc[("gpt-4", "accuracy"), "estimate"] == pytest.approx(0.446204259967231, abs=1e-12)
    assert st.loc[("gpt-4", "cohen_kappa"), "estimate"] == pytest.approx(0.2181296602467946, abs=1e-12)
    assert st.loc[("gpt-4", "accuracy"), "n_units"] == 1831
    assert any("308 units where the crowd's majority is tied" in n for n in res.notes)
    lo, hi = st.loc[("gpt-4", "cohen_kappa"), ["ci_low", "ci_high"]]
    assert lo < 0.218 < hi
    # GPT-4 agrees with the crowd better than GPT-3.5 does, on the same units
    assert st.loc[("gpt-4", "cohen_kappa"), "estimate"] > st.loc[("gpt-3.5", "cohen_kappa"), "estimate"]
    conf = res.confusion["gpt-4"]
    assert int(conf.to_numpy().sum()) == 1831
    assert int(np.trace(conf.to_numpy())) == round(0.446204259967231 * 1831)
    corr = res.error_correlation.iloc[0]
    assert 0 < corr["estimate"] < 1 and corr["ci_low"] < corr["estimate"] < corr["ci_high"]
    assert 1.0 < res.effective_judges < 2.0


def test_numeric_reference_bias_and_mae_theory():
    rng = np.random.default_rng(2)
    truth = rng.integers(1, 11, 300)
    judge = np.clip(truth + 1 + rng.integers(-1, 2, 300), 1, 10)  # reads about one point high
    other = np.clip(truth + rng.integers(-2, 3, 300), 1, 10)
    data = np.vstack([truth, judge, other]).astype(float)
    table = ej.RatingsTable.from_reliability_data(data, raters=["human", "judge", "other"])
    res = ej.judge_reference(table, reference="human", n_resamples=400, rng=0)
    st = res.to_frame().set_index(["judge", "statistic"])
    assert st.loc[("judge", "mean_bias"), "estimate"] == pytest.approx(float(np.mean(judge - truth)))
    assert st.loc[("judge", "mean_absolute_error"), "estimate"] == pytest.approx(float(np.mean(np.abs(judge - truth))))
    assert st.loc[("judge", "accuracy"), "estimate"] == pytest.approx(float(np.mean(judge == truth)))
    lo, hi = st.loc[("judge", "mean_bias"), ["ci_low", "ci_high"]]
    assert lo > 0.5  # clearly biased upwards
    # the interval of a mean bias is close to the t interval of the mean difference (theory, n = 300)
    d = judge - truth
    se = d.std(ddof=1) / np.sqrt(d.size)
    assert st.loc[("judge", "mean_bias"), "se"] == pytest.approx(se, rel=0.15)
    # the judges' errors: independent noise, so their correlation is near 0 and they count as about 2 judges
    assert abs(res.error_correlation["estimate"].iloc[0]) < 0.2
    assert res.effective_judges == pytest.approx(2.0, abs=0.4)


def test_mean_reference_and_errors():
    rng = np.random.default_rng(4)
    crowd = rng.integers(1, 6, size=(4, 80)).astype(float)
    judge = np.round(crowd.mean(axis=0))
    table = ej.RatingsTable.from_reliability_data(np.vstack([crowd, judge]), raters=["a", "b", "c", "d", "j"])
    res = ej.judge_reference(table, reference="mean", judges=["j"], measurement="interval", n_resamples=50, rng=0)
    st = res.to_frame().set_index("statistic")
    assert st.loc["mean_bias", "estimate"] == pytest.approx(float(np.mean(judge - crowd.mean(axis=0))))
    assert "accuracy" not in st.index  # a mean is no category
    with pytest.raises(ValueError, match="needs `judges`"):
        ej.judge_reference(table, reference="majority", rng=0)
    with pytest.raises(ValueError, match="unknown rater 'z'"):
        ej.judge_reference(table, reference="z", rng=0)
    with pytest.raises(ValueError, match="`judges`: unknown"):
        ej.judge_reference(table, reference="a", judges=["q"], rng=0)


def test_agreement_with_reference_shares_the_replicates():
    data = llmfao_ratings()
    kwargs = dict(unit_col="id", rater_col="rater", value_col="winner", measurement="nominal", n_resamples=200, rng=5)
    both = ej.agreement(data, reference="majority", judges=["gpt-4", "gpt-3.5"], **kwargs)
    alone = ej.judge_reference(data, reference="majority", judges=["gpt-4", "gpt-3.5"], **kwargs)
    pd.testing.assert_frame_equal(both.reference.to_frame(), alone.to_frame())
    assert "reference: 'majority'" in repr(both)
