"""ArenaResult's tables and words for each method: the columns the CLI and report will show."""

from __future__ import annotations

import numpy as np
import pytest

from evalband.preferences import arena

from ..conftest import FIXTURES
from .test_core import JSON_FIELDS

ALPACA = FIXTURES / "preference_formats" / "alpaca_eval"
LLMFAO = FIXTURES / "llmfao" / "crowd-comparisons.csv"


def test_win_rate_frame_has_win_rate_and_se_after_the_fields():
    res = arena(ALPACA, model="win-rate", baseline="gpt4_1106_preview", rng=1, n_resamples=200)
    frame = res.to_frame()
    assert list(frame.columns[:13]) == JSON_FIELDS + ["win_rate", "se"]
    assert {"se_bootstrap", "rank_sim_low", "rank_sim_high", "tier"} <= set(frame.columns)
    assert (frame["scale"] == "fraction").all()
    assert res.win_probability is None
    with pytest.raises(ValueError, match="no predicted win probabilities"):
        res.win_matrix()
    pairs = res.pairwise()
    assert "win_probability" not in pairs.columns and (pairs["statistic"] == "win_rate").all()
    text = res.readings()
    assert text[0].startswith("win rate against gpt4_1106_preview of 3 models from 47 battles")
    assert "+" in text[3] and "points" in text[3]  # differences of win rates read in points


def test_length_controlled_frame():
    res = arena(ALPACA, model="win-rate", baseline="gpt4_1106_preview", length_control=True, rng=1,
                n_resamples=200)
    frame = res.to_frame().set_index("model")
    assert (frame["lc_win_rate"] == frame["rating"]).all()
    assert {"win_rate_ci_low", "win_rate_ci_high"} <= set(frame.columns)
    assert res.readings()[0].startswith("length-controlled win rate against gpt4_1106_preview")
    with pytest.raises(ValueError, match="`method='bca'` is not available with `length_control=True`"):
        arena(ALPACA, model="win-rate", baseline="gpt4_1106_preview", length_control=True, method="bca",
              n_resamples=20)


def test_average_win_rate_frame_uses_the_bootstrap_se():
    res = arena(LLMFAO, model="win-rate", rng=1, n_resamples=100)
    frame = res.to_frame()
    assert (frame["win_rate"] == frame["rating"]).all()
    np.testing.assert_allclose(frame["se"], frame["se_bootstrap"])
    assert any("average win rate" in n for n in res.notes)


def test_win_matrix_is_ordered_by_rank_and_pairwise_has_intervals():
    res = arena(LLMFAO, rng=2, n_resamples=200)
    mat = res.win_matrix()
    assert list(mat.index) == res.to_frame()["model"].tolist() == list(mat.columns)
    low, high = res.win_matrix("low"), res.win_matrix("high")
    off = ~np.eye(59, dtype=bool)
    assert ((low.to_numpy() <= mat.to_numpy()) & (mat.to_numpy() <= high.to_numpy()))[off].all()
    pairs = res.pairwise(correction="bonferroni", margin=10.0)
    assert (pairs["correction"] == "bonferroni").all() and len(pairs) == 59 * 58 // 2
    assert {"win_probability_low", "win_probability_high", "verdict_detail", "reading"} <= set(pairs.columns)
    with pytest.raises(ValueError, match="`which` must be"):
        res.win_matrix("median")
