"""Repeated-measures ANOVA against statsmodels AnovaRM; Mauchly and Greenhouse-Geisser against pingouin values;
Tukey HSD against scipy.stats.tukey_hsd."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.anova import AnovaRM

from evalband.tasks import greenhouse_geisser, mauchly, rm_anova, run_test
from evalband.tasks.anova import tukey_hsd_from_mse

from .demsar_data import DEMSAR_AUC, DEMSAR_MODELS

# a (tasks x models) matrix with unequal variances; values rounded to 2 decimals
UNEQUAL = np.array([
    [0.00, 0.95, 0.45, -1.17, 0.18], [-0.99, 0.59, 3.68, 0.02, -0.48], [0.49, 1.04, 1.21, -1.29, 1.88],
    [0.70, -1.52, 0.08, -4.20, -3.16], [-1.84, 0.15, -1.53, 2.31, 2.63], [-0.19, -3.28, -0.08, 1.35, 2.45],
    [-1.53, -0.22, -0.96, -0.93, 6.24], [-0.81, 0.45, 2.77, -0.25, 1.55], [0.11, 0.60, -1.45, 1.73, 7.44],
])


def _long(x_models_tasks):
    k, n = x_models_tasks.shape
    return pd.DataFrame({"task": np.tile(np.arange(n), k), "model": np.repeat(np.arange(k), n),
                         "score": x_models_tasks.ravel()})


@pytest.mark.parametrize("x", [DEMSAR_AUC, UNEQUAL.T])
def test_rm_anova_matches_statsmodels(x):
    res = rm_anova(x)
    ref = AnovaRM(_long(x), depvar="score", subject="task", within=["model"]).fit().anova_table
    assert res.statistic == pytest.approx(ref["F Value"].iloc[0], rel=1e-10)
    assert res.p_value == pytest.approx(ref["Pr > F"].iloc[0], rel=1e-8)
    assert (res.df1, res.df2) == (ref["Num DF"].iloc[0], ref["Den DF"].iloc[0])


def test_mauchly_and_epsilon_match_pingouin():
    # pingouin 0.7.0: pg.sphericity(pd.DataFrame(DEMSAR_AUC.T)) -> W=0.4642641370980841,
    # chi2=8.994480191796596, dof=5, pval=0.11040975236004054; pg.epsilon(..., correction='gg') = 0.7628041030801425
    w, chi2, df, p = mauchly(DEMSAR_AUC)
    assert (w, chi2, df, p) == pytest.approx((0.4642641370980841, 8.994480191796596, 5, 0.11040975236004054),
                                              rel=1e-9)
    assert greenhouse_geisser(DEMSAR_AUC) == pytest.approx(0.7628041030801425, rel=1e-9)
    # pingouin 0.7.0: pg.sphericity(pd.DataFrame(UNEQUAL)) -> W=0.15181316991401209, chi2=12.096088231516188,
    # dof=9, pval=0.22220612752236052; pg.epsilon(pd.DataFrame(UNEQUAL), correction='gg') = 0.47588957128631443
    w, chi2, df, p = mauchly(UNEQUAL.T)
    assert (w, chi2, df, p) == pytest.approx((0.15181316991401209, 12.096088231516188, 9, 0.22220612752236052),
                                              rel=1e-9)
    assert greenhouse_geisser(UNEQUAL.T) == pytest.approx(0.47588957128631443, rel=1e-9)
    # the Greenhouse-Geisser corrected p-value uses eps * df on both sides (pingouin p_GG_corr = 0.016765)
    res = rm_anova(DEMSAR_AUC)
    assert res.p_value_gg == pytest.approx(stats.f.sf(res.statistic, 3 * 0.7628041030801425, 39 * 0.7628041030801425))
    assert res.p_value_gg == pytest.approx(0.016765, abs=5e-6)


def test_sphericity_theory():
    rng = np.random.default_rng(3)
    # compound symmetry (task effect + iid noise) is spherical: epsilon near 1 with many tasks
    x = rng.normal(size=(1, 4000)) + rng.normal(size=(4, 4000))
    assert greenhouse_geisser(x) == pytest.approx(1.0, abs=0.01)
    # two models: sphericity holds trivially
    assert mauchly(x[:2]) == (1.0, 0.0, 0.0, 1.0)
    # too few tasks for the test
    assert np.isnan(mauchly(x[:, :3])[0])


def test_tukey_core_matches_scipy_tukey_hsd(rng):
    groups = [rng.normal(0.3 * i, 1.0, size=12) for i in range(4)]
    ref = stats.tukey_hsd(*groups)
    ci = ref.confidence_interval(0.95)
    means = np.array([g.mean() for g in groups])
    mse = np.mean([g.var(ddof=1) for g in groups])
    diff, p, lo, hi = tukey_hsd_from_mse(means, mse, 12, 4 * 11)
    np.testing.assert_allclose(diff, ref.statistic, atol=1e-12)
    np.testing.assert_allclose(p, ref.pvalue, rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(lo, ci.low, rtol=1e-6)
    np.testing.assert_allclose(hi, ci.high, rtol=1e-6)


def test_assumptions_reported():
    res = rm_anova(DEMSAR_AUC, DEMSAR_MODELS)
    # Shapiro-Wilk on the two-way residuals, directly
    x = DEMSAR_AUC
    resid = x - x.mean(1, keepdims=True) - x.mean(0, keepdims=True) + x.mean()
    assert res.shapiro_p_value == pytest.approx(stats.shapiro(resid.ravel()).pvalue)
    assert res.assumptions_hold == (res.mauchly_p_value > 0.05 and res.shapiro_p_value > 0.05)
    assert "Mauchly" in res.summary() and "Shapiro" in res.summary()
    frame = run_test(DEMSAR_AUC, DEMSAR_MODELS, test="rm-anova").to_frame()
    assert len(frame) == 6 and {"difference", "low", "high", "p_value"} <= set(frame.columns)
    # normal, spherical data: the checks pass
    rng = np.random.default_rng(11)
    good = rng.normal(size=(1, 60)) + rng.normal(size=(3, 60)) + np.array([[0.0], [0.2], [0.4]])
    assert rm_anova(good).assumptions_hold


def test_few_tasks_judge_sphericity_by_epsilon():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(6, 4)) * np.array([[0.1], [0.1], [1], [3], [5], [9]])  # 6 models, 4 tasks
    res = rm_anova(x)
    assert np.isnan(res.mauchly_p_value)
    assert res.epsilon_gg < 0.75 and not res.assumptions_hold
    assert any("Greenhouse-Geisser epsilon" in n for n in res.notes)
