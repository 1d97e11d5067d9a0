"""Mean (CLT) and cluster-robust (CR1) intervals against SciPy, statsmodels and theory."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from evalband.estimation import cluster_interval, mean_interval

Y12 = np.array([0.001, 0.299, -0.274, -0.891, -0.455, -0.992, 0.06, 1.34, -0.492, -0.62, 0.49, 0.357])
G12 = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 4])


def test_mean_t_interval_matches_scipy():
    res = mean_interval(Y12, confidence_level=0.9)
    # scipy.stats.t.interval(0.9, df=11, loc=mean, scale=sem) is the textbook t interval
    low, high = stats.t.interval(0.9, 11, loc=Y12.mean(), scale=stats.sem(Y12))
    assert res.estimate == pytest.approx(Y12.mean())
    assert res.se == pytest.approx(stats.sem(Y12))
    assert (res.ci.low, res.ci.high) == pytest.approx((low, high))
    assert res.df == 11 and res.n == 12 and res.method == "t"


def test_mean_normal_interval_and_missing_items():
    x = np.array([[1.0, 2.0, 4.0, np.nan], [0.5, 0.5, 1.5, 2.5]])
    res = mean_interval(x, method="normal", confidence_level=0.95)
    assert res.n.tolist() == [3, 4]
    z = stats.norm.ppf(0.975)
    for row, est_low in zip(x, res.ci.low):
        v = row[~np.isnan(row)]
        assert est_low == pytest.approx(v.mean() - z * v.std(ddof=1) / np.sqrt(len(v)))
    assert res.df is None


def test_cr1_matches_stored_statsmodels_value():
    # statsmodels 0.15.0: sm.OLS(Y12, np.ones(12)).fit(cov_type='cluster', cov_kwds={'groups': G12}, use_t=True)
    #   params[0] = -0.09808333333333337, bse[0] = 0.1225887245813539,
    #   conf_int(alpha=0.05) = [-0.4384442, 0.24227753] (t with G - 1 = 4 df)
    with pytest.warns(UserWarning, match="only 5 clusters"):
        res = cluster_interval(Y12, G12)
    assert res.estimate == pytest.approx(-0.09808333333333337, abs=1e-14)
    assert res.se == pytest.approx(0.1225887245813539, abs=1e-14)
    assert (res.ci.low, res.ci.high) == pytest.approx((-0.4384442, 0.24227753), abs=1e-7)
    assert res.df == 4 and res.extras["n_clusters"] == 5
    assert res.notes and "badly off" in res.notes[0]


def test_cr1_matches_statsmodels_live(rng):
    n_clusters, m = 40, 7
    n_models = 3
    g = np.repeat(np.arange(n_clusters), m)
    g = g[rng.permutation(g.size)]
    effect = rng.normal(size=(n_models, n_clusters))[:, g]
    y = (effect + rng.normal(size=(n_models, g.size)) > 0).astype(float)
    res = cluster_interval(y, g, confidence_level=0.9)
    for i in range(n_models):
        fit = sm.OLS(y[i], np.ones(g.size)).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
        assert res.estimate[i] == pytest.approx(fit.params[0])
        assert res.se[i] == pytest.approx(fit.bse[0], rel=1e-12)
        assert [res.ci.low[i], res.ci.high[i]] == pytest.approx(list(fit.conf_int(alpha=0.1)[0]), rel=1e-10)


def test_singleton_clusters_reduce_to_iid_standard_error():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = cluster_interval(Y12, np.arange(12))
    assert res.se == pytest.approx(stats.sem(Y12))
    assert res.extras["design_effect"] == pytest.approx(1.0)
    assert np.isnan(res.extras["icc"])  # no within-cluster replication


def test_icc_and_design_effect_against_theory(rng):
    # random-intercept model: y = u_g + e, var(u) = 0.25, var(e) = 0.75 -> ICC = 0.25;
    # equal clusters of m = 5 -> design effect 1 + (m - 1) * ICC = 2 (Kish 1965)
    reps, n_clusters, m = 400, 60, 5
    g = np.repeat(np.arange(n_clusters), m)
    y = rng.normal(scale=0.5, size=(reps, n_clusters))[:, g] + rng.normal(scale=np.sqrt(0.75), size=(reps, g.size))
    res = cluster_interval(y, g)
    icc = res.extras["icc"]
    # ANOVA ICC is nearly unbiased: its mean over 400 datasets lies within 4 Monte Carlo SE of 0.25
    assert abs(icc.mean() - 0.25) < 4 * icc.std(ddof=1) / np.sqrt(reps)
    deff = res.extras["design_effect"]
    assert abs(np.median(deff) - 2.0) < 0.15
    # design effect is the variance ratio to the independent-items standard error
    naive = mean_interval(y)
    assert np.allclose(deff, (res.se / naive.se) ** 2)


def test_few_clusters_threshold_is_adjustable():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        res = cluster_interval(Y12, G12, min_clusters=5)
    assert res.notes == ()


def test_cluster_argument_errors():
    with pytest.raises(ValueError, match="`clusters` must have one code per item"):
        cluster_interval(Y12, G12[:5])
