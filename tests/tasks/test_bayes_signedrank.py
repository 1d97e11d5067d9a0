"""Bayesian signed-rank test against its definition (Benavoli et al. 2017) and against baycomp's values."""

from __future__ import annotations

import numpy as np
import pytest

from evalband.tasks import bayes_signed_rank, bayes_signed_rank_tests, run_test

from .demsar_data import DEMSAR_AUC, DEMSAR_MODELS


def _heaviside(a):
    return (a > 0) + 0.5 * (a == 0)


def _exact_means(diff, rope, s):
    """Posterior means in closed form: E[w_i w_j] of Dir(alpha) is alpha_i (alpha_j + [i == j]) / (A (A + 1))."""
    z = np.concatenate(([0.0], diff))
    alpha = np.ones(z.size)
    alpha[0] = s
    a_sum = alpha.sum()
    moments = (np.outer(alpha, alpha) + np.diag(alpha)) / (a_sum * (a_sum + 1))
    sums = z[:, None] + z[None, :]
    right = np.sum(moments * _heaviside(sums - 2 * rope))
    left = np.sum(moments * _heaviside(-sums - 2 * rope))
    return right, 1 - right - left, left


def test_one_task_by_hand():
    # one difference d > 2r: theta_rope = w0^2 only, E = s (s + 1) / ((s + 1)(s + 2)) = 0.2 for s = 0.5
    res = bayes_signed_rank([0.9], [0.5], rope=0.1, n_draws=200_000, rng=1)
    mc = 0.5 / np.sqrt(200_000)
    assert res.prob_equivalent == pytest.approx(0.2, abs=4 * mc)
    assert res.prob_a_better == pytest.approx(0.8, abs=4 * mc)
    assert res.prob_b_better == 0.0
    # r < d < 2r: (0, 1) Walsh average d/2 lies in the ROPE; only w1^2 is right: E = 1 * 2 / (1.5 * 2.5)
    res = bayes_signed_rank([0.65], [0.5], rope=0.1, n_draws=200_000, rng=2)
    assert res.prob_a_better == pytest.approx(2 / 3.75, abs=4 * mc)
    # no task at all: the prior alone, everything at 0, inside the ROPE
    res = bayes_signed_rank([], [], rope=0.1, n_draws=100, rng=3)
    assert res.prob_equivalent == 1.0


@pytest.mark.parametrize("rope", [0.0, 0.005, 0.02])
def test_posterior_means_match_closed_form(rope):
    a, b = DEMSAR_AUC[3], DEMSAR_AUC[0]
    res = bayes_signed_rank(a, b, rope=rope, n_draws=60_000, rng=5)
    exact = _exact_means(a - b, rope, 0.5)
    sd = res.samples.std(axis=0) / np.sqrt(60_000)
    np.testing.assert_allclose([res.prob_a_better, res.prob_equivalent, res.prob_b_better], exact,
                               atol=float(5 * sd.max() + 1e-12))


def test_samples_are_the_double_sum_of_the_definition():
    a, b = DEMSAR_AUC[1, :6], DEMSAR_AUC[0, :6]
    res = bayes_signed_rank(a, b, rope=0.004, n_draws=5, rng=np.random.default_rng(9))
    z = np.concatenate(([0.0], a - b))
    w = np.random.default_rng(9).dirichlet(np.r_[0.5, np.ones(6)], 5)  # the same draws
    for s in range(5):
        right = sum(w[s, i] * w[s, j] * _heaviside(z[i] + z[j] - 0.008) for i in range(7) for j in range(7))
        left = sum(w[s, i] * w[s, j] * _heaviside(-(z[i] + z[j]) - 0.008) for i in range(7) for j in range(7))
        np.testing.assert_allclose(res.samples[s], [right, 1 - right - left, left], atol=1e-12)
    np.testing.assert_allclose(res.samples.sum(axis=1), 1.0)


def test_against_baycomp_values():
    # baycomp 1.0.3: SignedRankTest.sample(x, y, rope, prior=0.5, nsamples=50000, random_state=1).mean(0)
    # with x = C4.5 and y = C4.5+m AUCs of Demsar (2006) Table 6; columns (left = x better, rope, right)
    #   rope = 0    -> [0.12203137, 0.        , 0.87796863]
    #   rope = 0.01 -> [0.        , 0.43577465, 0.56422535]
    # our draws differ (another generator), so agreement is up to Monte Carlo error (sd < 0.002 here)
    x, y = DEMSAR_AUC[0], DEMSAR_AUC[1]
    for rope, ref in [(0.0, (0.12203137, 0.0, 0.87796863)), (0.01, (0.0, 0.43577465, 0.56422535))]:
        res = bayes_signed_rank(x, y, rope=rope, n_draws=50_000, rng=11)
        np.testing.assert_allclose([res.prob_a_better, res.prob_equivalent, res.prob_b_better], ref, atol=0.008)


def test_seeded_and_direction():
    a, b = DEMSAR_AUC[3], DEMSAR_AUC[0]
    r1 = bayes_signed_rank(a, b, rope=0.01, n_draws=2000, rng=42)
    r2 = bayes_signed_rank(a, b, rope=0.01, n_draws=2000, rng=42)
    np.testing.assert_array_equal(r1.samples, r2.samples)
    flipped = bayes_signed_rank(b, a, rope=0.01, n_draws=2000, rng=42)
    assert flipped.prob_b_better == pytest.approx(r1.prob_a_better)
    lower = bayes_signed_rank(-a, -b, rope=0.01, n_draws=2000, rng=42, higher_is_better=False)
    np.testing.assert_allclose(lower.samples, r1.samples)


def test_decisions_and_errors():
    big = bayes_signed_rank(np.full(30, 0.9), np.full(30, 0.5), rope=0.01, n_draws=2000, rng=0)
    assert big.decision == "a better"
    same = bayes_signed_rank(np.full(30, 0.5), np.full(30, 0.5), rope=0.01, n_draws=2000, rng=0)
    assert same.decision == "equivalent"
    with pytest.raises(ValueError, match="`rope` must be a number >= 0"):
        bayes_signed_rank([1.0], [0.0], rope=-1)
    with pytest.raises(ValueError, match="`a` and `b`"):
        bayes_signed_rank([1.0, 2.0], [0.0])
    nan = bayes_signed_rank([0.9, np.nan, 0.7], [0.5, 0.4, 0.3], n_draws=100, rng=0)
    assert nan.n_tasks == 2 and "1 task(s)" in nan.notes[0]


def test_many_pairs_and_run_test():
    res = bayes_signed_rank_tests(DEMSAR_AUC, DEMSAR_MODELS, control="C4.5", rope=0.01, n_draws=3000, rng=1)
    frame = res.to_frame()
    assert list(frame["model_b"]) == ["C4.5+m", "C4.5+cf", "C4.5+m+cf"]
    np.testing.assert_allclose(frame[["prob_a_better", "prob_equivalent", "prob_b_better"]].sum(axis=1), 1.0)
    out = run_test(DEMSAR_AUC, DEMSAR_MODELS, test="bayes-signed-rank", control="C4.5", rope=0.01, rng=1,
                   n_draws=3000)
    assert out.to_frame().equals(frame)
    assert "ROPE" in out.summary()
