"""Performance profiles of Atari 100k (rliable data) against direct counts; bootstrap bands against theory."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalband.tasks import performance_profile, run_scores
from evalband.tasks.profiles import _bootstrap

from ..conftest import FIXTURES

ATARI = FIXTURES / "atari100k"
ALGOS = ("SPR", "DrQ(eps)", "SimPLe")  # 100, 100 and 5 runs per game


@pytest.fixture(scope="module")
def atari():
    base = pd.read_csv(ATARI / "atari_100k_baselines.csv").set_index("task")
    games = list(base.index)
    runs = {}
    for algo in ALGOS:
        raw = json.loads((ATARI / f"{algo}.json").read_text())
        runs[algo] = np.array([(np.asarray(raw[g]) - base.loc[g, "random"]) / (base.loc[g, "human"]
                                                                                - base.loc[g, "random"])
                               for g in games]).T  # (runs, games)
    return runs, games


def test_normalization_reproduces_the_known_answer(atari):
    runs, _ = atari
    per_game = runs["SPR"].mean(axis=0)
    # data README: SPR per-game mean human-normalized score, median 0.39562938291779215, mean 0.6157957428691673
    assert np.median(per_game) == pytest.approx(0.39562938291779215, rel=1e-12)
    assert per_game.mean() == pytest.approx(0.6157957428691673, rel=1e-12)


def test_run_profile_equals_direct_counts(atari):
    runs, games = atari
    taus = np.array([-0.1, 0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0])
    prof = performance_profile(runs, tasks=games, taus=taus, n_resamples=50, rng=0)
    assert prof.models == ALGOS and prof.n_runs[2, 0] == 5 and prof.n_runs[0, 0] == 100
    for m, algo in enumerate(ALGOS):
        x = runs[algo]
        for k, tau in enumerate(taus):
            count = 0.0
            for g in range(len(games)):  # direct count, game by game
                count += sum(1 for v in x[:, g] if v > tau) / x.shape[0]
            assert prof.profile[m, k] == pytest.approx(count / len(games), abs=1e-12)
    # with equal runs per game this is rliable's np.mean(scores > tau) over all runs and games
    assert prof.profile[0, 3] == pytest.approx(np.mean(runs["SPR"] > 0.5))


def test_task_profile_equals_direct_counts(atari):
    runs, games = atari
    taus = np.linspace(0, 2, 9)
    prof = performance_profile(runs, tasks=games, taus=taus, kind="tasks", n_resamples=50, rng=0)
    for m, algo in enumerate(ALGOS):
        means = runs[algo].mean(axis=0)
        for k, tau in enumerate(taus):
            assert prof.profile[m, k] == sum(1 for v in means if v > tau) / len(games)


def test_bootstrap_mean_and_variance_match_theory(atari):
    # resampling runs within each game: the fraction above tau in game t is Binomial(R_t, p_t) / R_t, so the
    # profile's bootstrap mean is the observed profile and its variance sum_t p_t (1 - p_t) / R_t / T^2
    runs, games = atari
    x = np.stack([runs["SPR"], runs["DrQ(eps)"]])  # (M, R, T)
    taus = np.array([0.1, 0.5, 1.0])
    have = np.ones(x.shape, bool)
    n_runs = np.full((2, len(games)), 100)
    ind = (x[..., None] > taus).astype(float)
    boot = _bootstrap(x, ind, have, n_runs, taus, "runs", 3000, np.random.default_rng(3))
    p = ind.mean(axis=1)  # (M, T, K)
    var = (p * (1 - p) / 100).sum(axis=1) / len(games) ** 2
    observed = p.mean(axis=1)
    se_of_mean = np.sqrt(var / 3000)
    assert np.all(np.abs(boot.mean(axis=0) - observed) < 5 * se_of_mean)
    np.testing.assert_allclose(boot.var(axis=0), var, rtol=0.12)  # sd of a variance estimate ~ sqrt(2/3000) = 0.026


def test_bands_are_seeded_and_bracket_the_profile(atari):
    runs, games = atari
    a = performance_profile(runs, tasks=games, taus=np.linspace(0, 3, 31), n_resamples=300, rng=7)
    b = performance_profile(runs, tasks=games, taus=np.linspace(0, 3, 31), n_resamples=300, rng=7)
    np.testing.assert_array_equal(a.low, b.low)
    assert np.all(a.low <= a.profile + 1e-12) and np.all(a.profile <= a.high + 1e-12)
    assert a.seed == 7 and "stratified" in a.resampling
    assert any("different numbers of runs" in n for n in a.notes)
    frame = a.to_frame()
    assert len(frame) == 3 * 31 and {"model", "tau", "fraction", "low", "high"} <= set(frame.columns)


def test_from_a_results_table(atari):
    from evalband.io.rliable import read_rliable

    runs, games = atari
    table = read_rliable([ATARI / "SPR.json", ATARI / "SimPLe.json"], baselines=ATARI / "atari_100k_baselines.csv")
    x, models, tasks = run_scores(table)
    assert models == ("SimPLe", "SPR") and x.shape == (2, 100, 26)  # the table's canonical (natural) order
    assert np.isnan(x[0, 5:]).all()
    order = [tasks.index(g) for g in games]
    np.testing.assert_allclose(x[1][:, order], runs["SPR"], rtol=1e-12)
    np.testing.assert_allclose(x[0, :5][:, order], runs["SimPLe"], rtol=1e-12)
    prof = performance_profile(x, models, tasks, taus=[0.5], n_resamples=20, rng=0)
    assert prof.profile[0, 0] == pytest.approx(np.mean(runs["SimPLe"] > 0.5))


def test_engine_replicates_for_task_profiles():
    class Reps:  # the contract's Replicates fields used here
        models = ("a", "b")
        tasks = ("t1", "t2", "t3", "t4")
        observed = np.array([[0.1, 0.6, 0.9, 0.4], [0.2, 0.3, 0.4, 0.5]])
        replicates = observed[None] + np.array([-0.05, 0.0, 0.05])[:, None, None]
        resampling, seed, n_units = "independent", 5, np.array([10, 10, 10, 10])

    prof = performance_profile(None, taus=[0.35], kind="tasks", replicates=Reps())
    np.testing.assert_allclose(prof.profile[:, 0], [0.75, 0.5])
    assert prof.n_resamples == 3 and "engine" in prof.resampling
    with pytest.raises(ValueError, match="kind='tasks'"):
        performance_profile(None, replicates=Reps())


def test_input_errors():
    with pytest.raises(ValueError, match="`kind` must be one of"):
        performance_profile({"a": np.ones((2, 3))}, kind="games")
    with pytest.raises(ValueError, match="same number of tasks"):
        performance_profile({"a": np.ones((2, 3)), "b": np.ones((2, 4))})
    with pytest.raises(ValueError, match="no run on task"):
        performance_profile(np.full((1, 2, 2), np.nan))


def test_engine_and_builtin_resampling_agree(atari):
    # the same scheme (runs resampled independently within each model and task), drawn two ways: the engine's
    # evalband.resample.bootstrap_items and the builtin counts; the bands agree up to Monte Carlo error
    runs, games = atari
    taus = np.linspace(0, 2, 11)
    for kind in ("runs", "tasks"):
        eng = performance_profile(runs, tasks=games, taus=taus, kind=kind, n_resamples=1000, rng=5,
                                  resampler="engine")
        own = performance_profile(runs, tasks=games, taus=taus, kind=kind, n_resamples=1000, rng=6,
                                  resampler="builtin")
        assert "bootstrap_items" in eng.resampling and "builtin" in own.resampling
        np.testing.assert_array_equal(eng.profile, own.profile)
        tol = 0.025 if kind == "runs" else 2 / 26 + 1e-9  # task profiles move in steps of 1/26
        np.testing.assert_allclose(eng.low, own.low, atol=tol)
        np.testing.assert_allclose(eng.high, own.high, atol=tol)
