"""Interval methods against SciPy's bootstrap (same replicates, same jackknife) and hand-made cases."""

import numpy as np
import pytest
from scipy import stats

from evalband.resample import interval
from evalband.resample.intervals import bca_acceleration


@pytest.mark.parametrize("method,scipy_method", [("percentile", "percentile"), ("basic", "basic"), ("bca", "BCa")])
def test_one_sample_matches_scipy(rng, method, scipy_method):
    x = rng.exponential(size=60)
    res = stats.bootstrap((x,), np.mean, n_resamples=4000, method=scipy_method, rng=1)
    n = len(x)
    jack = (n * x.mean() - x) / (n - 1)
    ci = interval(res.bootstrap_distribution, x.mean(), method=method, jackknife=jack)
    np.testing.assert_allclose([ci.low, ci.high], [res.confidence_interval.low, res.confidence_interval.high],
                               rtol=1e-12)


def test_stratified_bca_matches_scipy_multisample(rng):
    """SciPy's multi-sample BCa (unpaired samples = strata) with the mean of sample means."""
    xs = [rng.exponential(size=k) for k in (15, 40, 25)]

    def stat(*samples, axis=-1):
        return np.mean([s.mean(axis=axis) for s in samples], axis=0)

    res = stats.bootstrap(xs, stat, n_resamples=3000, method="BCa", rng=2)
    obs = stat(*xs)
    jack, strata = [], []
    for j, x in enumerate(xs):
        n = len(x)
        loo = (n * x.mean() - x) / (n - 1)
        others = [xx.mean() for k, xx in enumerate(xs) if k != j]
        jack.append((loo + sum(others)) / len(xs))
        strata.append(np.full(n, j))
    ci = interval(res.bootstrap_distribution, obs, method="bca", jackknife=np.concatenate(jack),
                  jackknife_strata=np.concatenate(strata))
    np.testing.assert_allclose([ci.low, ci.high], [res.confidence_interval.low, res.confidence_interval.high],
                               rtol=1e-12)


def test_vectorized_and_one_sided():
    samples = np.arange(1, 101, dtype=float)[:, None] * np.array([1.0, 2.0])
    obs = np.array([50.0, 100.0])
    ci = interval(samples, obs, confidence_level=0.9)
    np.testing.assert_allclose(ci.low, np.quantile(samples, 0.05, axis=0))
    np.testing.assert_allclose(ci.high, np.quantile(samples, 0.95, axis=0))
    basic = interval(samples, obs, method="basic", confidence_level=0.9)
    np.testing.assert_allclose(basic.low, 2 * obs - ci.high)
    less = interval(samples, obs, alternative="less", confidence_level=0.9)
    assert np.all(np.isneginf(less.low))
    np.testing.assert_allclose(less.high, np.quantile(samples, 0.9, axis=0))
    greater = interval(samples, obs, alternative="greater", confidence_level="90%")
    assert np.all(np.isposinf(greater.high))
    overlap = interval(samples, obs, confidence_level="overlap")
    np.testing.assert_allclose(overlap.low, np.quantile(samples, 0.083, axis=0))


def test_nan_replicates_give_nan_and_constant_statistic_bca():
    samples = np.ones((50, 2))
    samples[3, 1] = np.nan
    ci = interval(samples, np.ones(2), method="bca", jackknife=np.ones((10, 2)))
    assert ci.low[0] == 1.0 and ci.high[0] == 1.0
    assert np.isnan(ci.low[1]) and np.isnan(ci.high[1])
    assert bca_acceleration(np.ones((5, 1)))[0] == 0.0


def test_argument_errors():
    with pytest.raises(ValueError, match="'percentile', 'basic', 'bca'"):
        interval(np.ones((10,)), 1.0, method="bc")
    with pytest.raises(ValueError, match="needs `jackknife`"):
        interval(np.ones((10,)), 1.0, method="bca")
    with pytest.raises(ValueError, match="`observed` must have shape"):
        interval(np.ones((10, 3)), np.ones(2))
    with pytest.raises(ValueError, match="confidence_level"):
        interval(np.ones((10,)), 1.0, confidence_level=95)
