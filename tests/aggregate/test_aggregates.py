"""Aggregates across tasks: hand-computable matrices, SciPy oracles, HELM's algorithm, rliable's definitions."""

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evalband.aggregate import AGGREGATES, get_aggregate, resolve_weights, rliable, task_ranks
from evalband.resample import Replicates

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

S = np.array([[0.9, 0.5, 0.2],
              [0.6, 0.6, 0.6],
              [0.3, 0.8, 0.6]])  # 3 models x 3 tasks
TASKS = ("t1", "t2", "t3")


def test_weighted_and_group_means_by_hand():
    assert np.allclose(get_aggregate("mean")(S), S.mean(axis=1))
    w = get_aggregate("mean", weights=[2, 1, 1])
    np.testing.assert_allclose(w(S), [(1.8 + 0.5 + 0.2) / 4, 0.6, (0.6 + 0.8 + 0.6) / 4])
    groups = {"t1": "g1", "t2": "g2", "t3": "g2"}
    g = get_aggregate("mean", group_weights="equal", task_groups=groups, tasks=TASKS)
    np.testing.assert_allclose(g.weights, [0.5, 0.25, 0.25])
    np.testing.assert_allclose(g(S), 0.5 * S[:, 0] + 0.25 * S[:, 1] + 0.25 * S[:, 2])
    gw = resolve_weights(3, tasks=TASKS, group_weights={"g1": 1, "g2": 3}, task_groups=groups)
    np.testing.assert_allclose(gw, [0.25, 0.375, 0.375])
    named = get_aggregate("mean", weights={"t1": 0, "t2": 1, "t3": 1}, tasks=TASKS)
    np.testing.assert_allclose(named(S), S[:, 1:].mean(axis=1))
    # tasks a mapping does not name weigh 0, with a note (QA O32); unknown names are an error
    only = get_aggregate("mean", weights={"t1": 1}, tasks=TASKS)
    np.testing.assert_allclose(only(S), S[:, 0])
    assert only.notes == ("2 tasks not named in `weights` get weight 0: 't2', 't3'",)
    with pytest.raises(ValueError, match=r"unknown task\(s\) \['t9'\]\.$"):
        get_aggregate("mean", weights={"t1": 1, "t9": 1}, tasks=TASKS)
    with pytest.raises(ValueError, match="non-negative"):
        get_aggregate("mean", weights=[1, -1, 1])


def test_geometric_and_harmonic_match_scipy():
    w = np.array([1.0, 2.0, 3.0])
    for name, ref in (("geometric", stats.gmean), ("harmonic", stats.hmean)):
        agg = get_aggregate(name, weights=w)
        np.testing.assert_allclose(agg(S), ref(S, axis=1, weights=w), rtol=1e-12)
    zero = S.copy()
    zero[0, 1] = 0.0
    assert get_aggregate("geometric")(zero)[0] == 0.0 and get_aggregate("harmonic")(zero)[0] == 0.0
    with pytest.raises(ValueError, match="non-negative"):
        get_aggregate("geometric")(-S)


def test_normalizations_by_hand():
    mm = get_aggregate("minmax", floors=[0.2, 0.5, 0.0], ceilings=[1.0, 1.0, 0.8])
    norm = (S - [0.2, 0.5, 0.0]) / np.array([0.8, 0.5, 0.8])
    np.testing.assert_allclose(mm(S), norm.mean(axis=1))
    ch = get_aggregate("chance-normalized", chance={"t1": 0.5, "t2": 0.25, "t3": 0.0}, tasks=TASKS)
    np.testing.assert_allclose(ch(S), ((S - [0.5, 0.25, 0.0]) / [0.5, 0.75, 1.0]).mean(axis=1))
    # Longjohn et al.: floors and ceilings are min and max over all models and replicates (and the data)
    reps = np.stack([S, S + 0.1, S - 0.05])
    fitted = get_aggregate("minmax", fit=reps)
    lo, hi = reps.min(axis=(0, 1)), reps.max(axis=(0, 1))
    np.testing.assert_allclose(fitted(reps), ((reps - lo) / (hi - lo)).mean(axis=2))
    assert fitted(reps).min() >= 0 and fitted(reps).max() <= 1
    with pytest.raises(ValueError, match="needs `floors` and `ceilings`"):
        get_aggregate("minmax")


def test_mean_rank_binned_rank_and_helm_win_rate():
    ranks = task_ranks(S)
    # task t3: model 0 scores 0.2 (rank 3), models 1 and 2 tie at 0.6 (rank 1.5 each)
    np.testing.assert_allclose(ranks[:, 2], [3, 1.5, 1.5])
    np.testing.assert_allclose(ranks, np.stack([stats.rankdata(-S[:, t]) for t in range(3)], axis=1))
    mr = get_aggregate("mean-rank")
    assert not mr.higher_is_better
    np.testing.assert_allclose(mr(S), ranks.mean(axis=1))
    # bins of width 0.25: t2 scores 0.5 and 0.6 share bin [0.5, 0.75) and tie
    br = get_aggregate("binned-rank", bin_width=0.25)
    expected = np.stack([[1, 2, 3], [2.5, 2.5, 1], [3, 1.5, 1.5]], axis=1)
    np.testing.assert_allclose(br(S), expected.mean(axis=1))
    # HELM's algorithm (stanford-crfm/helm summarize.compute_aggregate_row_win_rates), reimplemented as a loop
    helm = []
    for row in range(3):
        rates = []
        for col in range(3):
            counts = defaultdict(int)
            for r in range(3):
                counts[S[r, col]] += 1
            wins, acc = {}, 0
            for value, c in sorted(counts.items()):
                wins[value] = acc + (c - 1) / 2
                acc += c
            rates.append(wins[S[row, col]] / (acc - 1))
        helm.append(np.mean(rates))
    np.testing.assert_allclose(get_aggregate("win-rate")(S), helm)


def test_rliable_task_level_and_run_level():
    np.testing.assert_allclose(get_aggregate("median")(S), np.median(S, axis=1))
    wide = np.arange(1.0, 9.0)[None, :]
    # IQM of 1..8 = mean(3, 4, 5, 6) = 4.5
    assert get_aggregate("iqm")(wide)[0] == 4.5
    og = get_aggregate("optimality-gap", gamma=0.7)
    np.testing.assert_allclose(og(S), 0.7 - np.minimum(S, 0.7).mean(axis=1))
    assert not og.higher_is_better
    poi = get_aggregate("probability-of-improvement", baseline="b", models=("a", "b", "c"))
    # vs model b (0.6, 0.6, 0.6): a wins t1, loses t2, t3 -> 1/3; c loses t1, wins t2, ties t3 -> 1.5/3
    np.testing.assert_allclose(poi(S), [1 / 3, 0.5, 0.5])
    # run level: (tasks, runs)
    x = np.array([[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]])
    y = np.array([[2.5, 0.0, np.nan, np.nan], [15.0, 25.0, 35.0, np.nan]])
    assert rliable.iqm(x) == pytest.approx(stats.trim_mean(x.ravel(), 0.25))
    assert rliable.median_of_means(x) == pytest.approx(np.median([2.5, 25.0]))
    assert rliable.optimality_gap(x / 40, gamma=0.5) == pytest.approx(0.5 - np.minimum(x / 40, 0.5).mean())
    # probability of improvement = mean over tasks of Mann-Whitney U / (n m)
    expect = np.mean([stats.mannwhitneyu(x[t], y[t][~np.isnan(y[t])]).statistic / (4 * (~np.isnan(y[t])).sum())
                      for t in range(2)])
    assert rliable.probability_of_improvement(x, y) == pytest.approx(expect)
    ragged = np.array([[1.0, 2.0, 3.0, 4.0, np.nan, np.nan, np.nan, np.nan]])
    assert rliable.trimmed_mean(ragged) == pytest.approx(2.5)


def test_atari_spr_known_answers():
    scores = json.loads((FIXTURES / "atari100k" / "SPR.json").read_text())
    ref = json.loads((FIXTURES / "atari100k" / "reference_scores.json").read_text())
    games = sorted(scores)
    runs = np.stack([(np.array(scores[g]) - ref["random"][g]) / (ref["human"][g] - ref["random"][g]) for g in games])
    # rliable notebook output (data README): median 0.39562938291779215, mean 0.6157957428691673
    assert rliable.median_of_means(runs) == pytest.approx(0.39562938291779215, abs=1e-15)
    assert rliable.mean_of_means(runs) == pytest.approx(0.6157957428691673, abs=1e-15)
    per_game = runs.mean(axis=1)[None, :]
    assert get_aggregate("median")(per_game)[0] == pytest.approx(0.39562938291779215, abs=1e-15)
    assert get_aggregate("mean")(per_game)[0] == pytest.approx(0.6157957428691673, abs=1e-15)


def _reps():
    rng = np.random.default_rng(0)
    obs = rng.random((4, 3))
    return Replicates(("a", "b", "c", "d"), TASKS, obs, np.clip(obs + 0.05 * rng.normal(size=(200, 4, 3)), 0, 1), "paired",
                      "item", 200, np.array([100, 100, 100]), {"t1": "x", "t2": "x", "t3": "y"})


@pytest.mark.parametrize("name", AGGREGATES)
def test_every_aggregate_broadcasts_over_replicates(name):
    reps = _reps()
    kw = {"minmax": dict(fit=True), "chance-normalized": dict(chance=[0.1, 0.2, 0.0]),
          "binned-rank": dict(bin_width=0.05), "probability-of-improvement": dict(baseline="a")}.get(name, {})
    agg = get_aggregate(name, replicates=reps, **kw)
    out = agg(reps.replicates)
    assert out.shape == (200, 4)
    np.testing.assert_allclose(out[7], agg(reps.replicates[7]))


def test_user_callable_and_errors():
    agg = get_aggregate(lambda s: s.max(axis=-1) - s.min(axis=-1))
    np.testing.assert_allclose(agg(S), S.max(axis=1) - S.min(axis=1))
    bad = get_aggregate(lambda s: s.sum())
    with pytest.raises(ValueError, match="returned shape"):
        bad(S)
    with pytest.raises(ValueError, match="must be one of 'mean'"):
        get_aggregate("average")
    with pytest.raises(ValueError, match="unweighted"):
        get_aggregate("median", weights=[1, 1, 1])
