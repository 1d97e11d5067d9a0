"""Nemenyi p-values and critical difference from the permutation distribution of the largest mean-rank difference.

With few tasks the studentized-range p-values of the Nemenyi test are poor (0.038 for the extreme pair of 3 models
ranked alike over 3 tasks). Below 10 tasks they now come from the exact permutation distribution of
max_ij |R_i - R_j| (the Friedman test's null: every within-task arrangement of the ranks equally likely).

Oracles: a hand count (3 models x 3 tasks ranked alike: 6 of the 3!^3 = 216 arrangements order every task alike
and reach the largest difference, p = 6/216; 3 models x 2 tasks: at most 6/36 = 1/6, so nothing can be significant
at 5%), and a brute-force enumeration of all (k!)^N arrangements with itertools for tiny cases, with ties.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from evalband.tasks import nemenyi, run_test
from evalband.tasks._matrix import rank_matrix
from evalband.tasks.nemenyi_exact import max_rank_difference_test

IDENTICAL_3x3 = np.array([[0.9, 0.8, 0.7], [0.6, 0.5, 0.4], [0.3, 0.2, 0.1]])  # models x tasks, same order


def _brute_force(ranks, alpha):
    """p-value of every pair and the CD by listing all (k!)^N equally likely arrangements (with multiplicity)."""
    k, n = ranks.shape
    per_task = [list(itertools.permutations(ranks[:, b])) for b in range(n)]
    ranges = []
    for combo in itertools.product(*per_task):
        sums = np.sum(np.array(combo), axis=0)  # combo: N arrangements of k ranks -> rank sums (k,)
        ranges.append(sums.max() - sums.min())
    ranges = np.array(ranges)
    sums = ranks.sum(axis=1)
    p = np.array([[np.mean(ranges >= abs(sums[i] - sums[j]) - 1e-9) for j in range(k)] for i in range(k)])
    support = np.unique(ranges)
    sf = np.array([np.mean(ranges >= v - 1e-9) for v in support])
    ok = support[(sf <= alpha + 1e-12) & (support > 0)]
    cd = ok.min() / n if ok.size else math.inf
    return p, cd, len(ranges)


def test_qa_3_models_3_tasks_hand_count():
    res = nemenyi(IDENTICAL_3x3)
    assert res.method == "enumeration" and res.n_arrangements == 216
    # hand count: only the 3! arrangements that order all three tasks alike reach a mean-rank difference of 2
    assert res.p_values[0, 2] == pytest.approx(6 / 216, rel=1e-12)
    # the studentized range (the old answer, kept beside it): scipy 1.17,
    # studentized_range.sf(2 * sqrt(2) / sqrt(3 * 4 / (6 * 3)), 3, inf) = 0.0380
    assert res.p_values_asymptotic[0, 2] == pytest.approx(0.038034586740082754, rel=1e-9)
    assert res.critical_difference == pytest.approx(2.0)
    assert res.critical_difference_asymptotic == pytest.approx(1.9136235154962777, rel=1e-9)
    assert res.significant[0, 2] and not res.significant[0, 1]
    assert any("permutation distribution of the largest difference" in n and "216" in n for n in res.notes)
    frame = res.to_frame()
    assert {"p_value", "p_value_asymptotic"} <= set(frame.columns)


def test_two_tasks_can_decide_nothing():
    res = nemenyi(IDENTICAL_3x3[:, :2])
    # hand count: the largest difference (2 mean ranks) has probability 3!/3!^2 = 1/6 > 0.05
    assert res.p_values[0, 2] == pytest.approx(1 / 6, rel=1e-12)
    assert math.isinf(res.critical_difference) and not res.significant.any()
    assert "none (no attainable difference is significant" in res.summary()


@pytest.mark.parametrize("k, n, digits, seed", [(3, 3, 1, 0), (3, 4, 0, 1), (4, 3, 1, 2), (3, 5, 0, 3),
                                                (2, 6, 1, 4)])
def test_enumeration_matches_brute_force(k, n, digits, seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=(k, n)) + np.linspace(0, 1.5, k)[:, None], digits)  # 0 digits: ties, midranks
    ranks = rank_matrix(x)
    assert digits == 1 or (ranks % 1 != 0).any()  # the rounded cases have midranks
    for alpha in (0.05, 0.2):
        got = max_rank_difference_test(ranks, alpha=alpha, method="exact")
        p, cd, n_arr = _brute_force(ranks, alpha)
        np.fill_diagonal(p, 1.0)
        np.testing.assert_allclose(got.p_values, p, rtol=1e-10, atol=1e-14)
        assert got.critical_difference == pytest.approx(cd) if math.isfinite(cd) else math.isinf(
            got.critical_difference)
        assert got.method == "enumeration" and not got.p_value_se.any()
    # nemenyi() uses it below 10 tasks, and its verdicts are p <= alpha
    res = nemenyi(x, confidence_level=0.8)
    np.testing.assert_allclose(res.p_values, p, rtol=1e-10, atol=1e-14)
    iu = np.triu_indices(k, 1)
    np.testing.assert_array_equal(res.significant[iu], p[iu] <= 0.2 + 1e-12)


def test_monte_carlo_agrees_with_enumeration():
    rng = np.random.default_rng(7)
    ranks = rank_matrix(rng.normal(size=(4, 6)) + np.linspace(0, 2, 4)[:, None])
    exact = max_rank_difference_test(ranks, method="exact")
    mc = max_rank_difference_test(ranks, method="monte-carlo", n_resamples=20_000, rng=3)
    iu = np.triu_indices(4, 1)
    assert mc.method == "monte-carlo" and mc.n_arrangements == 20_000
    z = (mc.p_values[iu] - exact.p_values[iu]) / np.maximum(mc.p_value_se[iu], 1e-4)
    assert np.all(np.abs(z) < 4.5), z
    # same seed, same numbers
    again = max_rank_difference_test(ranks, method="monte-carlo", n_resamples=20_000, rng=3)
    np.testing.assert_array_equal(again.p_values, mc.p_values)


def test_auto_falls_back_to_monte_carlo_when_enumeration_is_too_large():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 6))
    res = nemenyi(x, rng=2, n_resamples=2_000)
    assert res.method == "monte-carlo" and res.p_value_se is not None
    with pytest.raises(ValueError, match="too large"):
        nemenyi(x, method="exact")


def test_ten_tasks_or_more_stay_asymptotic_and_few_asymptotic_tasks_are_flagged():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(4, 12))
    res = nemenyi(x)
    assert res.method == "asymptotic" and res.p_value_se is None
    np.testing.assert_array_equal(res.p_values, res.p_values_asymptotic)
    assert "p_value_asymptotic" not in res.to_frame().columns
    forced = nemenyi(IDENTICAL_3x3, method="asymptotic")
    assert forced.p_values[0, 2] == pytest.approx(0.038034586740082754, rel=1e-9)
    assert any("asymptotic (studentized range) and unreliable" in n for n in forced.notes)
    assert "unreliable" in forced.summary()


def test_run_test_summary_says_the_post_hoc_is_exact():
    text = run_test(IDENTICAL_3x3, test="friedman").summary()
    assert "Exact: p-values and CD from all 216" in text and "gives CD 1.91" in text
