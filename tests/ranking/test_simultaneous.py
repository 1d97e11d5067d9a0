"""Simultaneous rank intervals (Klein, Wright & Wieczorek 2020) and tiers on constructed cases."""

import numpy as np
import pytest
from scipy import stats

from evalband.ranking import better_matrix, rank_models, simultaneous_rank_intervals, tiers


def test_hand_built_better_matrix_non_transitive():
    # A ~ B, B ~ C, but A significantly better than C; D worse than all
    a, b, c, d = range(4)
    s = np.zeros((4, 4), dtype=bool)
    s[a, c] = True
    s[[a, b, c], d] = True
    low, high = simultaneous_rank_intervals(s)
    assert low.tolist() == [1, 1, 2, 4]
    assert high.tolist() == [2, 3, 3, 4]
    assert tiers([0.9, 0.85, 0.8, 0.1], s).tolist() == [1, 1, 2, 3]


def test_better_matrix_from_intervals_and_margin():
    ia, ib = np.array([0, 0, 1]), np.array([1, 2, 2])
    low, high = np.array([0.01, 0.03, -0.01]), np.array([0.05, 0.08, 0.02])
    s = better_matrix(low, high, ia, ib, 3)
    assert s.tolist() == [[False, True, True], [False, False, False], [False, False, False]]
    s = better_matrix(low, high, ia, ib, 3, margin=0.02)
    assert s.tolist() == [[False, False, True], [False, False, False], [False, False, False]]
    s = better_matrix(-high, -low, ia, ib, 3, higher_is_better=False)  # lower is better: same relation
    assert s.tolist() == [[False, True, True], [False, False, False], [False, False, False]]


def _normal_replicates(est, se, b, gen):
    return est + gen.standard_normal((b, est.size)) * se


def test_separated_and_tied_models_known_ranks():
    gen = np.random.default_rng(1)
    est = np.array([0.9, 0.9, 0.5, 0.2])  # two tied at the top, then clearly separated
    r = rank_models(est, _normal_replicates(est, 0.01, 2000, gen), ["a", "b", "c", "d"])
    assert r.rank_simultaneous.low.tolist() == [1, 1, 3, 4]
    assert r.rank_simultaneous.high.tolist() == [2, 2, 3, 4]
    assert r.tier.tolist() == [1, 1, 2, 3]
    assert r.p_best[:2].sum() == pytest.approx(1.0) and r.p_best[2:].sum() == 0
    assert r.rank_ci.low.tolist()[2:] == [3, 4] and r.rank_ci.high.tolist()[2:] == [3, 4]
    frame = r.to_frame()
    assert frame["model"].tolist()[2:] == ["c", "d"]


@pytest.mark.slow
def test_simultaneous_rank_intervals_joint_coverage():
    # 1,000 datasets: 5 models with known means and normal estimates; the true ranks must all lie in their
    # intervals at once in at least 95% of datasets (the construction is conservative)
    gen = np.random.default_rng(2)
    mu = np.array([0.0, 0.05, 0.1, 0.3, 0.31])
    se = 0.03
    true_rank = stats.rankdata(-mu, method="min")
    covered = 0
    for _ in range(1000):  # a loop over simulated datasets
        est = mu + gen.standard_normal(5) * se
        reps = _normal_replicates(est, se, 400, gen)
        r = rank_models(est, reps, list("abcde"))
        covered += np.all((r.rank_simultaneous.low <= true_rank) & (true_rank <= r.rank_simultaneous.high))
    assert stats.binomtest(int(covered), 1000, 0.95, alternative="less").pvalue > 0.001
