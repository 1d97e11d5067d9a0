"""Exact McNemar test against statsmodels and scipy.stats.binomtest."""

import numpy as np
import pytest
from scipy import stats

from evalband.comparison import mcnemar_exact


def _pairs(both, only_a, only_b, neither):
    a = np.r_[np.ones(both), np.ones(only_a), np.zeros(only_b), np.zeros(neither)]
    b = np.r_[np.ones(both), np.zeros(only_a), np.ones(only_b), np.zeros(neither)]
    return a, b


@pytest.mark.parametrize("table,expected", [
    # statsmodels 0.15.0: mcnemar([[10, 7], [2, 30]], exact=True).pvalue
    (((10, 7), (2, 30)), 0.1796875),
    # statsmodels 0.15.0: mcnemar([[5, 12], [3, 20]], exact=True).pvalue
    (((5, 12), (3, 20)), 0.03515625),
    # statsmodels 0.15.0: mcnemar([[5, 0], [0, 20]], exact=True).pvalue (no discordant item)
    (((5, 0), (0, 20)), 1.0),
])
def test_mcnemar_matches_statsmodels_reference(table, expected):
    (both, only_a), (only_b, neither) = table
    a, b = _pairs(both, only_a, only_b, neither)
    res = mcnemar_exact(a, b)
    assert res.only_a == only_a and res.only_b == only_b
    assert res.p_value == pytest.approx(expected, rel=1e-12)


def test_mcnemar_vectorized_over_pairs_against_binomtest_and_statsmodels():
    mcnemar = pytest.importorskip("statsmodels.stats.contingency_tables").mcnemar
    gen = np.random.default_rng(2)
    a = gen.integers(0, 2, size=(25, 60))
    b = np.where(gen.random((25, 60)) < 0.7, a, 1 - a)
    res = mcnemar_exact(a, b)
    for k in range(25):
        n01 = int(((a[k] == 1) & (b[k] == 0)).sum())
        n10 = int(((a[k] == 0) & (b[k] == 1)).sum())
        ref = stats.binomtest(n01, n01 + n10, 0.5).pvalue if n01 + n10 else 1.0
        assert res.p_value[k] == pytest.approx(ref, rel=1e-10)
        sm = mcnemar([[0, n01], [n10, 0]], exact=True).pvalue
        assert res.p_value[k] == pytest.approx(sm, rel=1e-10)


def test_mcnemar_one_sided_against_binomtest():
    a, b = _pairs(3, 11, 4, 9)
    assert mcnemar_exact(a, b, alternative="greater").p_value == pytest.approx(
        stats.binomtest(11, 15, 0.5, alternative="greater").pvalue)
    assert mcnemar_exact(a, b, alternative="less").p_value == pytest.approx(
        stats.binomtest(11, 15, 0.5, alternative="less").pvalue)


def test_mcnemar_refuses_non_binary():
    with pytest.raises(ValueError, match="`a`"):
        mcnemar_exact([0.5, 1], [0, 1])
