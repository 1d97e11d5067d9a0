"""Sign-flip permutation test: exact enumeration on tiny cases, scipy.stats.permutation_test, reproducibility."""

import itertools

import numpy as np
import pytest
from scipy import stats

from evalband.comparison import paired_permutation_test


def _brute_force(d, alternative):
    d = np.asarray(d, dtype=float)
    t = d.mean()
    null = np.array([np.mean(np.array(s) * d) for s in itertools.product([1, -1], repeat=d.size)])
    ge = np.mean(null >= t - 1e-12)
    le = np.mean(null <= t + 1e-12)
    return {"greater": ge, "less": le, "two-sided": min(1.0, 2 * min(ge, le))}[alternative]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_enumeration_on_tiny_case(alternative):
    x = np.array([0.9, 0.7, 1.0, 0.4, 0.8, 0.6, 0.95, 0.5])
    y = np.array([0.5, 0.75, 0.6, 0.3, 0.8, 0.2, 0.7, 0.55])
    res = paired_permutation_test(x, y, alternative=alternative)
    assert res.exact and res.n_resamples == 2 ** 8
    assert res.p_value == pytest.approx(_brute_force(x - y, alternative), abs=1e-15)
    # scipy 1.17: permutation_test(..., permutation_type='samples') enumerates all 2**8 sign patterns too
    ref = stats.permutation_test((x, y), lambda a, b, axis: np.mean(a - b, axis=axis), vectorized=True,
                                 permutation_type="samples", alternative=alternative, n_resamples=np.inf)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-12)


def test_vectorized_over_pairs_equals_one_at_a_time_and_binary_ties():
    gen = np.random.default_rng(8)
    x = gen.integers(0, 2, size=(5, 12)).astype(float)
    y = gen.integers(0, 2, size=(5, 12)).astype(float)
    res = paired_permutation_test(x, y)
    for k in range(5):
        assert res.p_value[k] == pytest.approx(_brute_force(x[k] - y[k], "two-sided"), abs=1e-15)


def test_random_sign_flips_agree_with_exact_and_are_reproducible():
    gen = np.random.default_rng(9)
    d = gen.normal(0.15, 1.0, size=16)
    exact = paired_permutation_test(d, n_resamples=2 ** 16)
    approx = paired_permutation_test(d, n_resamples=20_000, rng=1)
    assert exact.exact and not approx.exact
    # Monte Carlo standard error of a p-value near 0.5 with 20,000 draws is about 0.0035
    assert abs(approx.p_value - exact.p_value) < 0.02
    again = paired_permutation_test(d, n_resamples=20_000, rng=1, batch=777)
    assert again.p_value == approx.p_value


def test_weighted_statistic_and_errors():
    d = np.array([1.0, -1.0, 2.0, 0.5])
    res = paired_permutation_test(d, weights=[1, 1, 2, 0], n_resamples=100)
    assert res.statistic == pytest.approx((1 - 1 + 4) / 4)
    with pytest.raises(ValueError, match="weights"):
        paired_permutation_test(d, weights=[1, 1])
    with pytest.raises(TypeError, match="n_resamples"):
        paired_permutation_test(d, n_resamples=1.5)
