"""Paired differences: the analytic SE against SciPy/statsmodels, and a coverage simulation of paired intervals."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalband.comparison import paired_difference


def test_paired_se_equals_ttest_rel_standard_error_and_formula():
    gen = np.random.default_rng(1)
    a = gen.normal(0.7, 0.2, size=(3, 50))
    b = 0.8 * a + gen.normal(0.1, 0.1, size=(3, 50))
    res = paired_difference(a, b)
    for k in range(3):
        t = stats.ttest_rel(a[k], b[k])
        assert res.se[k] == pytest.approx(res.difference[k] / t.statistic, rel=1e-12)
        # seed 001: SE_diff = sqrt(var_a + var_b - 2 cov) / sqrt(n)
        c = np.cov(a[k], b[k])
        assert res.se[k] == pytest.approx(np.sqrt(c[0, 0] + c[1, 1] - 2 * c[0, 1]) / np.sqrt(50), rel=1e-12)
        assert res.correlation[k] == pytest.approx(np.corrcoef(a[k], b[k])[0, 1], rel=1e-12)
        assert res.se_unpaired[k] == pytest.approx(np.sqrt((c[0, 0] + c[1, 1]) / 50), rel=1e-12)
    assert np.all(res.se < res.se_unpaired)  # positive correlation: pairing helps


def test_cluster_robust_se_matches_statsmodels_ols_cluster():
    sm = pytest.importorskip("statsmodels.api")
    gen = np.random.default_rng(2)
    clusters = np.repeat(np.arange(12), gen.integers(3, 9, size=12))
    n = clusters.size
    shock = gen.normal(0, 0.3, size=12)[clusters]
    a = (gen.random(n) < 0.6 + 0.2 * np.tanh(shock)).astype(float)
    b = (gen.random(n) < 0.5 + 0.2 * np.tanh(shock)).astype(float)
    res = paired_difference(a, b, clusters=clusters)
    fit = sm.OLS(a - b, np.ones(n)).fit(cov_type="cluster", cov_kwds={"groups": clusters})
    assert res.se == pytest.approx(fit.bse[0], rel=1e-10)
    assert res.n_clusters == 12
    fit_a = sm.OLS(a, np.ones(n)).fit(cov_type="cluster", cov_kwds={"groups": clusters})
    assert res.se_a == pytest.approx(fit_a.bse[0], rel=1e-10)


def test_constant_scores_and_errors():
    res = paired_difference(np.ones(10), np.r_[np.ones(5), np.zeros(5)])
    assert np.isnan(res.correlation) and res.difference == pytest.approx(0.5)
    with pytest.raises(ValueError, match="same number of items"):
        paired_difference(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="at least 2 clusters"):
        paired_difference(np.ones(3), np.zeros(3), clusters=[0, 0, 0])


def _correlated_binary(gen, s, n, p, rho):
    """(s, n, len(p)) 0/1 scores with exact marginal accuracies p and latent correlation rho (Gaussian copula)."""
    u = gen.standard_normal((s, n, 1))
    e = gen.standard_normal((s, n, len(p)))
    return (np.sqrt(rho) * u + np.sqrt(1 - rho) * e < stats.norm.ppf(p)).astype(float)


@pytest.mark.slow
def test_paired_difference_interval_coverage_and_width():
    """1,000 simulated datasets (one task each) of two correlated models; the engine's paired bootstrap and the
    analytic paired SE must cover the true difference at the nominal rate, and be narrower than unpaired."""
    from evalband.resample import bootstrap, interval
    from evalband.estimation.confidence import ConfidenceInterval
    from evalband.data.table import ResultsTable

    gen = np.random.default_rng(20261130)
    s, n, p = 1000, 300, np.array([0.7, 0.65])
    truth = p[0] - p[1]
    x = _correlated_binary(gen, s, n, p, rho=0.6)
    # ten tables of 100 datasets (tasks) each: the table's per-task view scans all rows, so smaller tables are faster
    d_obs, ci_p, ci_u = [], [], []
    for k in range(10):
        xs = x[100 * k: 100 * (k + 1)]
        df = pd.DataFrame({"model": np.tile(["A", "B"], 100 * n), "task": np.repeat(np.arange(100), 2 * n),
                           "item": np.tile(np.repeat(np.arange(n), 2), 100), "score": xs.ravel()})
        table = ResultsTable.from_items(df)
        paired = bootstrap(table, n_resamples=500, rng=k)
        obs = paired.observed[0] - paired.observed[1]
        d_obs.append(obs)
        ci_p.append(interval(paired.replicates[:, 0] - paired.replicates[:, 1], obs))
        if k == 0:  # the same datasets resampled without pairing
            boot_sd = (paired.replicates[:, 0] - paired.replicates[:, 1]).std(axis=0, ddof=1)
            unpaired = bootstrap(table, n_resamples=500, rng=k, resampling="independent")
            ci_u = interval(unpaired.replicates[:, 0] - unpaired.replicates[:, 1], obs)
    ci_p = ConfidenceInterval(np.concatenate([c.low for c in ci_p]), np.concatenate([c.high for c in ci_p]))
    cover_p = int(np.sum((ci_p.low <= truth) & (truth <= ci_p.high)))
    # judged with a binomial test against the nominal 95%
    assert stats.binomtest(cover_p, s, 0.95).pvalue > 0.001
    # positive correlation: the paired interval is much narrower than the unpaired one on the same data
    assert np.mean(ci_p.high[:100] - ci_p.low[:100]) < 0.85 * np.mean(ci_u.high - ci_u.low)
    # the analytic paired interval (normal, 1.96 SE) on the same datasets
    res = paired_difference(x[..., 0], x[..., 1])
    z = stats.norm.ppf(0.975)
    cover_a = int(np.sum(np.abs(res.difference - truth) <= z * res.se))
    assert stats.binomtest(cover_a, s, 0.95).pvalue > 0.001
    assert np.mean(res.se) < 0.85 * np.mean(res.se_unpaired)
    # bootstrap SD and analytic SE agree within Monte Carlo error (ratio of means; ddof 0 vs 1 is 0.3%)
    assert np.mean(boot_sd) / np.mean(res.se[:100]) == pytest.approx(1.0, abs=0.03)
