"""analyze() on pairwise battles: an Analysis of kind 'preference' holding the leaderboard of evalband.arena,
computed once on the analysis's seed, replicate count and confidence level (the oracle: arena() called alike)."""

from __future__ import annotations

import numpy as np
import pytest

import evalband as eb
from evalband.analysis.extensions import EXTENSIONS
from evalband.analysis.preferences import arena_extension
from evalband.preferences import ArenaResult, arena

from ..conftest import FIXTURES

LLMFAO = FIXTURES / "llmfao" / "crowd-comparisons.csv"
ALPACA = FIXTURES / "preference_formats" / "alpaca_eval"


def test_battles_give_a_preference_analysis_with_arenas_numbers():
    a = eb.analyze(LLMFAO, n_resamples=200, rng=3, confidence_level=0.9)
    assert a.kind == "preference" and isinstance(a.preference, ArenaResult)
    assert [k for k, _ in a.extras] == ["arena"] and a.extra("arena") is a.preference
    same = arena(LLMFAO, n_resamples=200, rng=3, confidence_level=0.9)
    np.testing.assert_array_equal(a.preference.samples, same.samples)
    np.testing.assert_array_equal(a.preference.ranking.p_best, same.ranking.p_best)
    assert (a.seed, a.n_resamples, a.confidence_level) == (3, 200, 0.9)
    assert a.preference.cluster == "question" and a.preference.n_units == 13
    assert "preference: 59 models, 8,931 battles" in repr(a)


def test_models_select_the_battles_and_a_selection_is_analysed_as_it_is():
    sel = eb.select(LLMFAO, models=["GPT 4", "Weaver 12k", "command"])
    a = eb.analyze(sel, n_resamples=100, rng=1)
    assert set(a.preference.models) == {"GPT 4", "Weaver 12k", "command"}
    assert any("battles with a model outside `models` left out" in n for n in a.preference.notes)
    b = eb.analyze(LLMFAO, models=["GPT 4", "Weaver 12k", "command"], n_resamples=100, rng=1)
    np.testing.assert_array_equal(a.preference.rating, b.preference.rating)


def test_style_features_in_the_battles_are_controlled_for():
    a = eb.analyze(ALPACA, n_resamples=200, rng=2)
    res = a.preference
    assert res.style is not None and list(res.style["feature"]) == ["length"]
    assert res.rating_raw is not None
    plain = arena(ALPACA, n_resamples=200, rng=2)
    np.testing.assert_allclose(res.rating_raw, plain.rating, atol=1e-6)  # the raw fit is the plain fit


def test_the_capability_is_registered_and_absent_for_results_tables():
    assert EXTENSIONS["arena"][1] is arena_extension
    sel = eb.select("example:vtab")
    assert arena_extension(sel, aggregate="mean", n_resamples=100, confidence_level=0.95, rng=0) is None


def test_tasks_and_weights_do_not_apply_to_battles():
    with pytest.raises(TypeError, match="battles have models, not tasks or weights"):
        eb.analyze(LLMFAO, tasks=["x"], n_resamples=100, rng=0)
