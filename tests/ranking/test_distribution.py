"""Rank distributions on constructed replicates with known answers."""

import numpy as np
import pytest

from evalband.ranking import marginal_rank_intervals, probability_best, rank_distribution, ranks


def test_competition_ranks_both_directions():
    assert ranks([0.5, 0.7, 0.7, 0.1]).tolist() == [3, 1, 1, 4]
    assert ranks([0.5, 0.7, 0.7, 0.1], higher_is_better=False).tolist() == [2, 3, 3, 1]
    assert ranks([[1, 2], [2, 1]]).tolist() == [[2, 1], [1, 2]]
    # equal up to rounding error: tied (3.7894736842105265 and 3.789473684210526 are two sums of the same ranks)
    assert ranks([72 / 19, 3.789473684210526, 5.0], higher_is_better=False).tolist() == [1, 1, 3]


def test_distribution_probability_best_and_ties():
    # 10 replicates of 3 models: model 0 best 7 times, model 1 twice, a tie between 0 and 2 once
    s = np.array([[3, 2, 1]] * 7 + [[1, 3, 2]] * 2 + [[3, 1, 3]])
    r = ranks(s)
    dist = rank_distribution(r)
    assert dist[0].tolist() == [0.8, 0.0, 0.2]
    assert dist[1].tolist() == [0.2, 0.7, 0.1]
    assert dist[2].tolist() == [0.1, 0.2, 0.7]  # the tie counts as rank 1 for both
    np.testing.assert_allclose(probability_best(s), [0.75, 0.2, 0.05])
    assert probability_best(s).sum() == pytest.approx(1.0)
    np.testing.assert_allclose(probability_best(-s, higher_is_better=False), [0.75, 0.2, 0.05])


def test_marginal_rank_interval_ends():
    # rank 1 in 97% of 1,000 replicates, rank 2 in 3%: P(rank <= 1) = 0.97 < 0.975, so the upper end is 2
    r = np.r_[np.ones(970), np.full(30, 2)].astype(int)[:, None]
    assert marginal_rank_intervals(r, confidence_level=0.95) == ([1], [2])
    r = np.r_[np.ones(980), np.full(20, 2)].astype(int)[:, None]
    low, high = marginal_rank_intervals(r, confidence_level=0.95)
    assert (low[0], high[0]) == (1, 1)
    r = np.r_[np.full(20, 3), np.full(960, 4), np.full(20, 5)].astype(int)[:, None]
    assert [x[0] for x in marginal_rank_intervals(r, confidence_level=0.95)] == [4, 4]
    assert [x[0] for x in marginal_rank_intervals(r, confidence_level=0.97)] == [3, 5]
