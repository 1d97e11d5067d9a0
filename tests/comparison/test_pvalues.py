"""Bootstrap p-values invert the engine's intervals: p < alpha exactly when the 1 - alpha interval excludes 0."""

import numpy as np
import pytest

from evalband.comparison import bootstrap_pvalue
from evalband.resample import interval


def _bootstrap_mean(x, b, gen):
    n = x.size
    idx = gen.integers(0, n, size=(b, n))
    jack = (x.sum() - x) / (n - 1)
    return x[idx].mean(1), x.mean(), jack


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_pvalue_interval_duality(method, alternative):
    gen = np.random.default_rng(7)
    x = gen.exponential(1.0, size=40)  # skewed, so the three methods differ
    samples, obs, jack = _bootstrap_mean(x, 20_000, gen)
    nulls = np.linspace(obs - 0.8, obs + 0.8, 41)
    kw = {"jackknife": jack[:, None]} if method == "bca" else {}
    p = np.array([bootstrap_pvalue(samples[:, None], np.array([obs]), null=v, method=method,
                                   alternative=alternative, **kw)[0] for v in nulls])
    ci = interval(samples, obs, method=method, confidence_level=0.95, alternative=alternative,
                  **({"jackknife": jack} if method == "bca" else {}))
    outside = (nulls < ci.low) | (nulls > ci.high)
    clear = np.abs(p - 0.05) > 0.004  # away from the boundary, where interpolation and the +1 differ
    assert clear.sum() > 30
    np.testing.assert_array_equal((p < 0.05)[clear], outside[clear])


def test_pvalue_floor_and_ties():
    s = np.zeros((999, 1))
    assert bootstrap_pvalue(s, np.zeros(1))[0] == 1.0  # all replicates tie with the null: no evidence
    s = np.full((999, 1), 2.0)
    assert bootstrap_pvalue(s, np.array([2.0]))[0] == pytest.approx(2 / 1000)
    with pytest.raises(ValueError, match="method"):
        bootstrap_pvalue(s, np.array([2.0]), method="studentized")
