"""Simulation-based calibration of the exact sampler (Talts, Betancourt, Simpson, Vehtari & Gelman 2018,
arXiv:1804.06788).

Draw (alpha, beta) from the prior, theta from Beta(alpha, beta) and counts from the binomial; fit; the rank of each
true parameter among L posterior draws is uniform on 0..L exactly when the sampler draws from the posterior.
Each simulated dataset is one "model" of a single vectorized fit. Judged with a chi-square test on 10 bins at
the 0.001 level; the same test at the same level rejects a deliberately wrong (plug-in) sampler.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalband.bayes import beta_binomial, parse_prior
from evalband.bayes.grid import fit_grid
from evalband.data.table import Counts

N_SIM, SIZES, L = 160, np.array([10, 20, 40, 80]), 99


def _simulate(prior, seed):
    rng = np.random.default_rng(seed)
    a, b = prior.sample(N_SIM, rng)
    theta = rng.beta(a[:, None], b[:, None], size=(N_SIM, SIZES.size))
    y = rng.binomial(SIZES, theta)
    c = Counts(tuple(f"sim{i}" for i in range(N_SIM)), tuple(f"t{j}" for j in range(SIZES.size)),
               y.astype(float), np.broadcast_to(SIZES, y.shape).astype(float))
    return a, b, theta, c


def _uniform_p(ranks):
    counts = np.bincount(np.asarray(ranks).ravel() * 10 // (L + 1), minlength=10)
    return stats.chisquare(counts).pvalue


def _tails_p(ranks):
    """binomtest of the share of ranks in the outer 10% (0..4 and L-4..L): sensitive to intervals too narrow
    (share too high) or too wide (too low)."""
    r = np.asarray(ranks).ravel()
    k = int(((r < 5) | (r > L - 5)).sum())
    return stats.binomtest(k, r.size, 10 / (L + 1)).pvalue


@pytest.fixture(scope="module", params=[("exponential:0.1", 11), ("gamma:2,0.2", 12)], ids=["exponential", "gamma"])
def sbc(request):
    spec, seed = request.param
    prior = parse_prior(spec)
    a, b, theta, c = _simulate(prior, seed)
    return a, b, theta, c, beta_binomial(c, prior=prior, n_draws=L, rng=seed + 100)


@pytest.mark.slow
def test_ranks_of_true_parameters_are_uniform(sbc):
    a, b, theta, c, res = sbc
    rank_theta = (res.theta < theta[None]).sum(axis=0)  # (N_SIM, T), each in 0..L
    assert _uniform_p(rank_theta) > 0.001
    assert _tails_p(rank_theta) > 0.001
    assert _uniform_p((res.alpha < a[None]).sum(axis=0)) > 0.001
    assert _uniform_p((res.beta < b[None]).sum(axis=0)) > 0.001
    assert _uniform_p((res.aggregate < theta.mean(axis=1)[None]).sum(axis=0)) > 0.001
    for j in range(SIZES.size):  # per task size too
        assert _uniform_p(rank_theta[:, j]) > 0.001


@pytest.mark.slow
def test_the_calibration_check_catches_a_wrong_sampler(sbc):
    # the grid's own failure mode: an extent that truncates the posterior of (alpha, beta) (here to the region
    # within 0.5 of the maximum log density) gives draws that are too concentrated; the same tests must reject it
    a, b, theta, c, res = sbc
    prior = parse_prior(res.prior)
    truncated = fit_grid(c.correct, c.n, prior, size=32, drop=0.5)
    rng = np.random.default_rng(5)
    alpha, beta = truncated.sample(L, rng)
    ranks = (alpha < a[None]).sum(axis=0)
    assert _uniform_p(ranks) < 0.001 and _tails_p(ranks) < 0.001
    assert _tails_p((res.alpha < a[None]).sum(axis=0)) > 0.001  # the real grid passes on the same data
