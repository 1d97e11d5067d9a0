"""Variance arithmetic of planned comparisons: paired binary differences, design effects, trials."""

import math

import numpy as np
import pytest

from evalband.plan import (binary_variance_of_difference, design_effect, effective_sample_size,
                           recommend_trials, trial_variance, variance_of_difference, variance_reduction)


def test_binary_variance_matches_the_joint_table(rng):
    # theory: the variance of a - b from the 2x2 joint distribution implied by the margins and phi correlation
    p_a, p_b, rho = 0.78, 0.74, 0.5
    both = p_a * p_b + rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    p10, p01 = p_a - both, p_b - both  # A right & B wrong, B right & A wrong
    var_joint = (p10 + p01) - (p10 - p01) ** 2
    assert binary_variance_of_difference(p_a, p_b, correlation=rho) == pytest.approx(var_joint, rel=1e-12)
    # and a Monte Carlo draw from that table agrees
    cells = rng.multinomial(1, [both, p10, p01, 1 - both - p10 - p01], size=200_000)
    d = cells[:, 1] - cells[:, 2]
    assert d.var() == pytest.approx(var_joint, rel=0.02)


def test_binary_correlation_must_be_feasible():
    with pytest.raises(ValueError, match="`correlation`.*must lie in"):
        binary_variance_of_difference(0.9, 0.1, correlation=0.8)


def test_variance_of_difference_general():
    assert variance_of_difference(1.0, 4.0, correlation=0.0) == 5.0
    assert variance_of_difference(1.0, 4.0, correlation=0.5) == pytest.approx(3.0)
    with pytest.raises(ValueError, match="`correlation`"):
        variance_of_difference(1.0, 1.0, correlation=1.5)


def test_design_effect_equal_clusters_seed_example():
    # seed 001: 500 questions in 50 ten-question documents; at rho = 1 the effective size is about 50
    assert effective_sample_size(500, 10, 1.0) == pytest.approx(50)
    assert design_effect(10, 0.1) == pytest.approx(1.9)
    assert effective_sample_size(500, 10, 0.0) == pytest.approx(500)


def test_unequal_cluster_design_effect_is_exact_for_the_item_mean(rng):
    # theory: Var(mean) = sigma^2 / N * (1 + rho * (sum m_g^2 / N - 1)) under a common ICC; Eldridge et al.'s
    # 1 + ((cv^2 + 1) m_bar - 1) rho is this identity with cv = sd(m_g) / m_bar (population sd)
    sizes = rng.integers(1, 40, size=60)
    rho = 0.07
    exact = 1 + rho * (np.sum(sizes ** 2) / sizes.sum() - 1)
    cv = sizes.std() / sizes.mean()
    assert design_effect(sizes.mean(), rho, cv=cv) == pytest.approx(exact, rel=1e-12)


@pytest.mark.slow
def test_unequal_cluster_design_effect_by_simulation(rng):
    # Monte Carlo oracle: variance of the item mean of clustered normal data over its iid value
    sizes = np.array([2, 2, 3, 5, 8, 13, 21, 3, 4, 30])
    rho, reps = 0.2, 20_000
    codes = np.repeat(np.arange(sizes.size), sizes)
    u = rng.normal(scale=math.sqrt(rho), size=(reps, sizes.size))[:, codes]
    e = rng.normal(scale=math.sqrt(1 - rho), size=(reps, codes.size))
    ratio = (u + e).mean(axis=1).var() / (1 / codes.size)
    cv = sizes.std() / sizes.mean()
    assert ratio == pytest.approx(design_effect(sizes.mean(), rho, cv=cv), rel=0.05)


def test_trials_seed_numbers():
    # seed 001: output variance twice the item variance: 2 trials cut the variance by a third, 4 by a half,
    # no k by more than two thirds
    assert variance_reduction(1.0, 2.0, 2) == pytest.approx(1 / 3)
    assert variance_reduction(1.0, 2.0, 4) == pytest.approx(1 / 2)
    ks = np.arange(1, 10_001)
    red = variance_reduction(1.0, 2.0, ks)
    assert np.all(red < 2 / 3) and red[-1] == pytest.approx(2 / 3, abs=1e-3)
    assert trial_variance(1.0, 2.0, 4) == pytest.approx(1.5)


def test_recommend_trials():
    # without costs: smallest k within 10% of the infinite-trials variance: 2/k <= 0.1 -> k = 20
    assert recommend_trials(1.0, 2.0) == 20
    assert recommend_trials(1.0, 2.0, tolerance=0.5) == 4
    assert recommend_trials(1.0, 0.0) == 1
    # with costs: brute-force minimum of (cost_ratio + k) * (item + output / k), Cochran's optimum
    for c, vb, vw in [(1.0, 1.0, 2.0), (10.0, 0.05, 0.2), (50.0, 0.01, 0.2), (0.0, 1.0, 1.0)]:
        ks = np.arange(1, 500)
        best = int(ks[np.argmin((c + ks) * (vb + vw / ks))])
        assert recommend_trials(vb, vw, cost_ratio=c, max_trials=1000) == best
