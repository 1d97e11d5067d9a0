"""Multiple-comparison control: Bonferroni/Holm/BH against statsmodels, max-t simultaneous coverage."""

import numpy as np
import pytest
from scipy import stats

from evalband.comparison import adjust_p_values, max_t_intervals
from evalband.comparison.multiplicity import correction_level

P = np.array([0.01, 0.04, 0.03, 0.005, 0.2, 0.5, 0.049, 0.0001])
# statsmodels 0.15.0: multipletests(P, method=m)[1]
REFERENCE = {
    "bonferroni": [0.08, 0.32, 0.24, 0.04, 1.0, 1.0, 0.392, 0.0008],
    "holm": [0.06, 0.16, 0.15, 0.035, 0.4, 0.5, 0.16, 0.0008],
    "bh": [0.02666666666666667, 0.064, 0.06, 0.02, 0.2285714285714286, 0.5, 0.06533333333333334, 0.0008],
}


@pytest.mark.parametrize("method", ["bonferroni", "holm", "bh"])
def test_adjusted_p_values_match_statsmodels_reference(method):
    np.testing.assert_allclose(adjust_p_values(P, method=method), REFERENCE[method], rtol=1e-12)


@pytest.mark.parametrize("method,sm", [("bonferroni", "bonferroni"), ("holm", "holm"), ("bh", "fdr_bh")])
def test_adjusted_p_values_match_statsmodels_on_random_families(method, sm):
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    gen = np.random.default_rng(5)
    for m in (1, 2, 7, 40):
        p = gen.uniform(0, 0.2, size=m) ** 2
        p[: m // 3] = p[0]  # ties
        np.testing.assert_allclose(adjust_p_values(p, method=method), multipletests(p, method=sm)[1], rtol=1e-12)


def test_nan_left_out_of_family_and_shape_kept():
    p = np.array([[0.01, np.nan], [0.04, 0.03]])
    out = adjust_p_values(p, method="bonferroni")
    assert np.isnan(out[0, 1])
    np.testing.assert_allclose(out[[0, 1, 1], [0, 0, 1]], [0.03, 0.12, 0.09])


def test_bad_method_lists_valid_ones():
    with pytest.raises(ValueError, match="'holm'"):
        adjust_p_values(P, method="hochberg")
    with pytest.raises(ValueError, match="p_values"):
        adjust_p_values([1.2], method="holm")


def test_correction_levels():
    assert correction_level(0.95, 3, "bonferroni") == pytest.approx(1 - 0.05 / 3)
    assert correction_level(0.95, 3, "holm") == pytest.approx(1 - 0.05 / 3)
    assert correction_level(0.95, 10, "bh", n_rejected=4) == pytest.approx(1 - 4 * 0.05 / 10)
    assert correction_level(0.95, 10, "bh", n_rejected=0) == pytest.approx(1 - 0.05 / 10)
    assert correction_level(0.95, 10, "max-t") == 0.95


def _count_weights(n, n_boot, gen):
    """(B, n) bootstrap count weights / n (resampling n items with replacement)."""
    idx = gen.integers(0, n, size=(n_boot, n))
    w = np.zeros((n_boot, n))
    np.add.at(w, (np.repeat(np.arange(n_boot), n), idx.ravel()), 1.0)
    return w / n


@pytest.mark.slow
def test_max_t_simultaneous_coverage_and_narrower_than_bonferroni():
    # 1,000 datasets of 4 correlated models on 300 items (1,000 replicates each); all 6 pairwise differences must be covered at once.
    gen = np.random.default_rng(11)
    n_sim, n, m, n_boot, chunk = 1000, 300, 4, 1000, 50
    mu = np.array([0.0, 0.1, 0.15, 0.3])
    cov = 0.6 * np.ones((m, m)) + 0.4 * np.eye(m)
    chol = np.linalg.cholesky(cov)
    i, j = np.triu_indices(m, 1)
    truth = mu[i] - mu[j]
    covered = 0
    ratio = []
    for _ in range(n_sim // chunk):
        x = mu + gen.standard_normal((chunk, n, m)) @ chol.T
        reps = np.einsum("bn,snm->sbm", _count_weights(n, n_boot, gen), x)  # (chunk, B, M)
        obs = x.mean(1)
        for k in range(chunk):  # a loop over simulated datasets
            sim = max_t_intervals(reps[k][:, i] - reps[k][:, j], obs[k, i] - obs[k, j], confidence_level=0.95)
            covered += np.all((sim.low <= truth) & (truth <= sim.high))
            ratio.append(sim.critical_value / stats.norm.ppf(1 - 0.05 / (2 * len(i))))
    # judged with a binomial test: coverage not significantly below 95% (nor absurdly above)
    assert stats.binomtest(int(covered), n_sim, 0.95, alternative="less").pvalue > 0.001
    assert covered / n_sim < 0.985
    # positively correlated comparisons: the max-t critical value is below the Bonferroni normal quantile
    assert np.mean(ratio) < 1.0


def test_max_t_adjusted_p_values_and_degenerate_pairs():
    gen = np.random.default_rng(3)
    obs = np.array([5.0, 0.1, 0.0])
    reps = obs + gen.standard_normal((4000, 3)) * [1.0, 1.0, 0.0]
    sim = max_t_intervals(reps, obs)
    assert sim.p_value[0] == pytest.approx(1 / 4001)  # far out: only the +1 of the identity
    assert sim.p_value[1] > 0.5
    assert sim.p_value[2] == 1.0 and sim.low[2] == sim.high[2] == 0.0  # zero variance, zero difference
    # the critical value of 2 independent standard normals at 95%: Sidak quantile 2.236
    assert sim.critical_value == pytest.approx(stats.norm.ppf(1 - (1 - 0.95 ** 0.5) / 2), abs=0.08)


def test_max_t_one_sided():
    gen = np.random.default_rng(4)
    reps = gen.standard_normal((5000, 2))
    sim = max_t_intervals(reps, np.zeros(2), alternative="greater")
    assert np.all(np.isinf(sim.high)) and np.all(np.isfinite(sim.low))
    with pytest.raises(ValueError, match="samples"):
        max_t_intervals(reps[0], np.zeros(2))
