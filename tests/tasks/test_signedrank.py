"""Wilcoxon / sign tests over tasks against SciPy, Holm against statsmodels."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from evalband.comparison import adjust_p_values
from evalband.tasks import run_test, signed_rank_tests


def holm(p):  # the one Holm of evalband (the tests below were written for the former tasks.holm)
    return adjust_p_values(p, method="holm")

from .demsar_data import DEMSAR_AUC, DEMSAR_MODELS, DEMSAR_TASKS


def test_holm_matches_statsmodels(rng):
    for m in (1, 2, 5, 17):
        p = rng.uniform(0, 0.2, size=m)
        p[0] = p[-1]  # a tie
        ref = multipletests(p, alpha=0.05, method="holm")
        np.testing.assert_allclose(holm(p), ref[1], rtol=1e-12)
    p = np.array([0.01, np.nan, 0.04, 0.03])
    ref = multipletests(p[~np.isnan(p)], method="holm")[1]
    out = holm(p)
    assert np.isnan(out[1])
    np.testing.assert_allclose(out[~np.isnan(p)], ref)


def test_wilcoxon_pairs_match_scipy(rng):
    x = np.round(rng.normal(size=(4, 18)) + np.array([0, 0.3, 0.6, 0.1])[:, None], 1)
    res = signed_rank_tests(x)
    assert len(res.p_value) == 6
    for a, b, stat, p in zip(res.model_a, res.model_b, res.statistic, res.p_value):
        i, j = int(a.split()[1]), int(b.split()[1])
        ref = stats.wilcoxon(x[i], x[j])
        assert stat == pytest.approx(ref.statistic)
        assert p == pytest.approx(ref.pvalue, rel=1e-12)
    np.testing.assert_allclose(res.p_value_adjusted, multipletests(res.p_value, method="holm")[1], rtol=1e-12)
    np.testing.assert_array_equal(res.reject, res.p_value_adjusted <= 0.05)


def test_wilcoxon_demsar_c45_vs_c45m():
    # Demsar (2006), section 3.1.3 (Table 2, C4.5 vs C4.5+m): "with N = 14 ... the difference is significant
    # (p < 0.05)"; the exact signed-rank test on the AUCs with zero differences dropped, as SciPy computes it.
    res = signed_rank_tests(DEMSAR_AUC, DEMSAR_MODELS, DEMSAR_TASKS, control="C4.5",
                            alternative="two-sided")
    assert res.model_b == ("C4.5+m", "C4.5+cf", "C4.5+m+cf")
    ref = stats.wilcoxon(DEMSAR_AUC[0], DEMSAR_AUC[1])
    assert res.p_value[0] == pytest.approx(ref.pvalue)
    assert res.p_value[0] < 0.05
    assert res.median_difference[0] < 0  # C4.5 is worse
    assert (res.wins[0], res.ties[0], res.losses[0]) == (2, 2, 10)


def test_sign_test_matches_binomtest():
    res = signed_rank_tests(DEMSAR_AUC, DEMSAR_MODELS, control="C4.5+m", method="sign", alternative="greater")
    for k, b in enumerate(res.model_b):
        j = DEMSAR_MODELS.index(b)
        d = DEMSAR_AUC[1] - DEMSAR_AUC[j]
        ref = stats.binomtest(int((d > 0).sum()), int((d != 0).sum()), 0.5, alternative="greater")
        assert res.p_value[k] == pytest.approx(ref.pvalue)


def test_identical_models_get_p_one_and_lower_is_better():
    x = np.vstack([DEMSAR_AUC[0], DEMSAR_AUC[0], DEMSAR_AUC[1]])
    res = signed_rank_tests(x, control="model 0")
    assert res.p_value[0] == 1.0 and not res.reject[0]
    lo = signed_rank_tests(-DEMSAR_AUC, control="model 0", higher_is_better=False, alternative="less")
    hi = signed_rank_tests(DEMSAR_AUC, control="model 0", alternative="less")
    np.testing.assert_allclose(lo.p_value, hi.p_value)


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="`control`: unknown model 'nope'"):
        signed_rank_tests(DEMSAR_AUC, DEMSAR_MODELS, control="nope")
    with pytest.raises(ValueError, match="`method` must be one of 'wilcoxon', 'sign'"):
        signed_rank_tests(DEMSAR_AUC, method="t")


def test_run_test_wilcoxon_with_control():
    res = run_test(DEMSAR_AUC, DEMSAR_MODELS, DEMSAR_TASKS, test="wilcoxon", control="C4.5")
    assert res.omnibus is not None  # Friedman first
    frame = res.to_frame()
    assert list(frame["model_a"]) == ["C4.5"] * 3
    assert "Holm" in res.summary() and "control C4.5" in res.summary()
