"""Proportion intervals against statsmodels and SciPy values stored beside the call that produced them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalband.estimation import proportion_interval

# statsmodels 0.15.0: proportion_confint(count, nobs, alpha=1 - level, method=M) -> (low, high)
# M in {'wilson', 'beta' (Clopper-Pearson), 'jeffreys', 'agresti_coull', 'normal' (Wald)}
STATSMODELS = [
    ('wilson', 3, 10, 0.95, 0.10779126740630099, 0.6032218525388546),
    ('wilson', 0, 10, 0.95, 0.0, 0.2775327998628892),
    ('wilson', 10, 10, 0.95, 0.7224672001371107, 0.9999999999999999),
    ('wilson', 1, 25, 0.9, 0.008974868434241237, 0.16086635709132574),
    ('wilson', 47, 120, 0.834, 0.3321131462458458, 0.45462998735001287),
    ('wilson', 118, 120, 0.99, 0.9192801840718724, 0.9967390421724719),
    ('beta', 3, 10, 0.95, 0.0667395111777345, 0.6524528500599973),
    ('beta', 0, 10, 0.95, 0.0, 0.3084971078187607),
    ('beta', 10, 10, 0.95, 0.6915028921812392, 1.0),
    ('beta', 1, 25, 0.9, 0.0020496284126207912, 0.17612071060451803),
    ('beta', 47, 120, 0.834, 0.32775689747975645, 0.4586950657392071),
    ('beta', 118, 120, 0.99, 0.9250225958389571, 0.9991343039359472),
    ('jeffreys', 3, 10, 0.95, 0.09269459393815317, 0.6058183181486713),
    ('jeffreys', 1, 25, 0.9, 0.007083446620670625, 0.14607139815124148),
    ('jeffreys', 47, 120, 0.834, 0.3317503384598623, 0.4544708953167814),
    ('jeffreys', 118, 120, 0.99, 0.932176964665813, 0.998275080119916),
    ('agresti_coull', 3, 10, 0.95, 0.10333841792242532, 0.6076747020227304),
    ('agresti_coull', 0, 10, 0.95, 0.0, 0.3208873057505457),
    ('agresti_coull', 10, 10, 0.95, 0.6791126942494543, 1.0),
    ('agresti_coull', 1, 25, 0.9, 0.0, 0.1720329901111099),
    ('agresti_coull', 47, 120, 0.834, 0.3320897992897093, 0.4546533343061494),
    ('agresti_coull', 118, 120, 0.99, 0.9121003575076633, 1.0),
    ('normal', 3, 10, 0.95, 0.015974234910674623, 0.5840257650893254),
    ('normal', 0, 10, 0.95, 0.0, 0.0),
    ('normal', 10, 10, 0.95, 1.0, 1.0),
    ('normal', 1, 25, 0.9, 0.0, 0.10446483340155746),
    ('normal', 47, 120, 0.834, 0.3299443709143591, 0.45338896241897425),
    ('normal', 118, 120, 0.99, 0.9532309271195155, 1.0),
]
OURS = {"wilson": "wilson", "beta": "clopper-pearson", "jeffreys": "jeffreys", "agresti_coull": "agresti-coull",
        "normal": "wald"}


@pytest.mark.parametrize("sm_method, count, nobs, level, low, high", STATSMODELS)
def test_matches_statsmodels(sm_method, count, nobs, level, low, high):
    res = proportion_interval(count, nobs, method=OURS[sm_method], confidence_level=level)
    assert res.ci.low == pytest.approx(low, abs=1e-12)
    assert res.ci.high == pytest.approx(high, abs=1e-12)
    assert res.estimate == count / nobs
    assert res.se == pytest.approx(np.sqrt(count / nobs * (1 - count / nobs) / nobs))


def test_vectorized_matches_scalar_calls():
    counts, nobs = np.array([[3, 0], [47, 118]]), np.array([[10, 10], [120, 120]])
    res = proportion_interval(counts, nobs, method="wilson")
    assert res.ci.low.shape == (2, 2)
    for idx in np.ndindex(2, 2):
        one = proportion_interval(counts[idx], nobs[idx], method="wilson")
        assert res.ci.low[idx] == one.ci.low and res.ci.high[idx] == one.ci.high


# scipy 1.17.1: binomtest(k, n).proportion_ci(confidence_level=L, method=M) -> (low, high)
SCIPY = [
    ("exact", 3, 10, 0.95, 0.06673951117773447, 0.652452850060008),
    ("exact", 1, 25, 0.9, 0.002049628412620793, 0.17612071060451806),
    ("exact", 118, 120, 0.99, 0.9250225958389467, 0.9991343039359512),
    ("wilson", 47, 120, 0.834, 0.3321131462458458, 0.45462998735001287),
    ("wilson", 10, 10, 0.95, 0.7224672001371109, 1.0),
]


@pytest.mark.parametrize("sp_method, count, nobs, level, low, high", SCIPY)
def test_matches_scipy_binomtest(sp_method, count, nobs, level, low, high):
    res = proportion_interval(count, nobs, method="exact" if sp_method == "exact" else "wilson",
                              confidence_level=level)
    assert res.method == ("clopper-pearson" if sp_method == "exact" else "wilson")
    assert res.ci.low == pytest.approx(low, abs=1e-10)
    assert res.ci.high == pytest.approx(high, abs=1e-10)


def test_jeffreys_ends_at_zero_and_one():
    # Brown, Cai & DasGupta (2001, sec. 4.1.2) set the Jeffreys end to 0 at x = 0 and 1 at x = n (statsmodels
    # 0.15 does not: it gives low 4.789043315758196e-05 for (0, 10)); the other end is the Beta quantile.
    # statsmodels 0.15.0: proportion_confint(0, 10, alpha=0.05, method='jeffreys') -> (4.79e-05, 0.21719626750921053)
    # statsmodels 0.15.0: proportion_confint(10, 10, alpha=0.05, method='jeffreys') -> (0.7828037324907895, 0.99995)
    zero = proportion_interval(0, 10, method="jeffreys")
    full = proportion_interval(10, 10, method="jeffreys")
    assert zero.ci.low == 0.0 and zero.ci.high == pytest.approx(0.21719626750921053, abs=1e-12)
    assert full.ci.high == 1.0 and full.ci.low == pytest.approx(0.7828037324907895, abs=1e-12)


def test_overlap_level_by_name():
    res = proportion_interval(47, 120, confidence_level="overlap")
    assert res.confidence_level == 0.834
    # statsmodels 0.15.0: proportion_confint(47, 120, alpha=0.166, method='wilson')
    assert res.ci.low == pytest.approx(0.3321131462458458, abs=1e-12)


def test_any_level_wald_is_normal_quantile():
    res = proportion_interval(30, 100, method="wald", confidence_level=0.6)
    half = stats.norm.ppf(0.8) * np.sqrt(0.3 * 0.7 / 100)
    assert res.ci.low == pytest.approx(0.3 - half) and res.ci.high == pytest.approx(0.3 + half)


@pytest.mark.parametrize("kwargs, message", [
    (dict(method="wilsn"), "`method` must be one of 'wilson', 'clopper-pearson'"),
    (dict(confidence_level=95), "`confidence_level` must lie strictly between 0 and 1"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        proportion_interval(3, 10, **kwargs)


@pytest.mark.parametrize("correct, n, message", [
    (11, 10, "`correct` must hold integers between 0 and `n`"),
    (2.5, 10, "`correct` must hold integers"),
    (0, 0, "`n` must hold positive integers"),
])
def test_bad_counts(correct, n, message):
    with pytest.raises(ValueError, match=message):
        proportion_interval(correct, n)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 5000), frac=st.floats(0, 1), lo=st.floats(0.5, 0.9), hi=st.floats(0.9, 0.999))
def test_intervals_are_ordered_nested_and_contain_the_estimate(n, frac, lo, hi):
    correct = int(round(frac * n))
    for method in ("wilson", "clopper-pearson", "jeffreys", "agresti-coull", "wald"):
        narrow = proportion_interval(correct, n, method=method, confidence_level=lo)
        wide = proportion_interval(correct, n, method=method, confidence_level=hi)
        assert 0.0 <= wide.ci.low <= narrow.ci.low + 1e-12
        assert narrow.ci.high <= wide.ci.high + 1e-12 <= 1.0 + 1e-12
        assert narrow.ci.low - 1e-12 <= correct / n <= narrow.ci.high + 1e-12
