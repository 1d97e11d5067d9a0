"""Bootstrap p-values invert the engine's intervals: p < alpha exactly when the 1 - alpha interval excludes 0."""

import numpy as np
import pytest

from evalband.comparison import bootstrap_p_value
from evalband.resample import interval


def _bootstrap_mean(x, b, gen):
    n = x.size
    idx = gen.integers(0, n, size=(b, n))
    jack = (x.sum() - x) / (n - 1)
    return x[idx].mean(1), x.mean(), jack


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_p_value_interval_duality(method, alternative):
    gen = np.random.default_rng(7)
    x = gen.exponential(1.0, size=40)  # skewed, so the three methods differ
    samples, obs, jack = _bootstrap_mean(x, 20_000, gen)
    nulls = np.linspace(obs - 0.8, obs + 0.8, 41)
    kw = {"jackknife": jack[:, None]} if method == "bca" else {}
    p = np.array([bootstrap_p_value(samples[:, None], np.array([obs]), null=v, method=method,
                                   alternative=alternative, **kw)[0] for v in nulls])
    ci = interval(samples, obs, method=method, confidence_level=0.95, alternative=alternative,
                  **({"jackknife": jack} if method == "bca" else {}))
    outside = (nulls < ci.low) | (nulls > ci.high)
    clear = np.abs(p - 0.05) > 0.004  # away from the boundary, where interpolation and the +1 differ
    assert clear.sum() > 30
    np.testing.assert_array_equal((p < 0.05)[clear], outside[clear])


def test_p_value_floor_and_ties():
    s = np.zeros((999, 1))
    assert bootstrap_p_value(s, np.zeros(1))[0] == 1.0  # all replicates tie with the null: no evidence
    s = np.full((999, 1), 2.0)
    assert bootstrap_p_value(s, np.array([2.0]))[0] == pytest.approx(2 / 1000)
    with pytest.raises(ValueError, match="method"):
        bootstrap_p_value(s, np.array([2.0]), method="studentized")


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_no_p_value_beside_a_missing_statistic(method):
    """Issue 14: null estimates came with a p-value of 0.0066. A NaN (or infinite) observed value or replicate
    gives a NaN p-value; the other columns are unchanged."""
    gen = np.random.default_rng(0)
    s = gen.normal(0.1, 1.0, size=(999, 3))
    d = np.array([0.1, np.nan, 0.1])
    s[:, 2][5] = np.inf
    p = bootstrap_p_value(s, d, method=method)
    ok = bootstrap_p_value(s[:, :1], d[:1], method=method)
    assert np.isnan(p[1]) and np.isnan(p[2]) and p[0] == ok[0]


def test_pairwise_differences_give_no_p_value_for_a_missing_difference():
    from evalband.comparison import pairwise_differences

    gen = np.random.default_rng(1)
    obs = np.array([0.6, np.nan, 0.5])
    samples = obs + gen.normal(0, 0.02, size=(500, 3))
    res = pairwise_differences(obs, samples, ("a", "b", "c"), correction="holm")
    frame = res.to_frame()
    missing = frame["difference"].isna()
    assert missing.any() and frame.loc[missing, ["p_value", "p_adjusted"]].isna().all().all()
    assert frame.loc[~missing, "p_value"].notna().all()
