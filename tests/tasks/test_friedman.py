"""Friedman / Iman-Davenport / Nemenyi against SciPy and the worked example of Demsar (2006)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalband._validate import InputError
from evalband.tasks import cliques_from_significance, friedman, nemenyi, run_test

from .demsar_data import DEMSAR_AUC, DEMSAR_AUC_RANKED, DEMSAR_MODELS, DEMSAR_TASKS


def test_demsar_table6_worked_example():
    # Demsar (2006), section 3.2.2: average ranks 3.143, 2.000, 2.893, 1.964; chi2_F = 9.28 (no tie correction);
    # F_F = 3.69 on (3, 39) df; Nemenyi CD = 2.569 * sqrt(4 * 5 / (6 * 14)) = 1.25 at alpha = 0.05.
    f = friedman(DEMSAR_AUC_RANKED, DEMSAR_MODELS, DEMSAR_TASKS, tie_correction=False)
    np.testing.assert_allclose(f.mean_ranks, [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert f.statistic == pytest.approx(9.28, abs=5e-3)
    assert f.iman_davenport == pytest.approx(3.69, abs=5e-3)
    assert (f.df1, f.df2) == (3, 39)
    # "the critical value of F(3, 39) for alpha = 0.05 is 2.85, so we reject the null-hypothesis"
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=5e-3)
    assert f.iman_davenport_p_value < 0.05
    n = nemenyi(DEMSAR_AUC_RANKED, DEMSAR_MODELS, DEMSAR_TASKS)
    assert n.q_alpha == pytest.approx(2.569, abs=1e-3)  # Table 5(a), k = 4
    assert n.critical_difference == pytest.approx(1.25, abs=5e-3)
    # "even the difference between the best and the worst performing algorithm is ... smaller than CD"
    assert not n.significant.any()
    assert n.cliques == (("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"),)
    # at alpha = 0.10, CD = 2.291 * sqrt(20 / 84) = 1.12: C4.5 is worse than C4.5+m and C4.5+m+cf, and
    # C4.5+cf cannot be assigned to either group (Figure 1(a) of the paper)
    n10 = nemenyi(DEMSAR_AUC_RANKED, DEMSAR_MODELS, DEMSAR_TASKS, confidence_level=0.90)
    assert n10.q_alpha == pytest.approx(2.291, abs=1e-3)
    assert n10.critical_difference == pytest.approx(1.12, abs=5e-3)
    sig = {frozenset((a, b)) for a, b, s in n10.to_frame()[["model_a", "model_b", "significant"]].itertuples(
        index=False) if s}
    assert sig == {frozenset(("C4.5", "C4.5+m")), frozenset(("C4.5", "C4.5+m+cf"))}
    assert n10.cliques == (("C4.5+m+cf", "C4.5+m", "C4.5+cf"), ("C4.5+cf", "C4.5"))


@pytest.mark.parametrize("k, alpha, expected", [
    # Demsar (2006), Table 5(a) (two-tailed Nemenyi q_alpha) and the 0.10 row
    (2, 0.05, 1.960), (3, 0.05, 2.343), (5, 0.05, 2.728), (10, 0.05, 3.164),
    (2, 0.10, 1.645), (6, 0.10, 2.589), (10, 0.10, 2.920),
])
def test_nemenyi_q_alpha_matches_published_table(k, alpha, expected):
    x = np.arange(k, dtype=float)[:, None] + np.zeros((1, 5))
    assert nemenyi(x, confidence_level=1 - alpha).q_alpha == pytest.approx(expected, abs=1e-3)


def test_friedman_matches_scipy_with_ties():
    # the printed table has ties (mushroom, lung cancer, voting, iris): SciPy corrects chi2 for them
    f = friedman(DEMSAR_AUC)
    ref = stats.friedmanchisquare(*DEMSAR_AUC)
    assert f.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert f.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    # scipy 1.17: stats.friedmanchisquare(*DEMSAR_AUC) on the printed values
    assert f.statistic == pytest.approx(10.952380952380956, rel=1e-12)


def test_friedman_matches_scipy_random(rng):
    for k, n in [(3, 7), (5, 20), (8, 40)]:
        x = np.round(rng.normal(size=(k, n)), 1)  # rounding makes ties
        f = friedman(x)
        ref = stats.friedmanchisquare(*x)
        assert f.statistic == pytest.approx(ref.statistic, rel=1e-10)
        assert f.p_value == pytest.approx(ref.pvalue, rel=1e-8)
        # Iman-Davenport from its formula
        chi2 = ref.statistic
        assert f.iman_davenport == pytest.approx((n - 1) * chi2 / (n * (k - 1) - chi2), rel=1e-10)


def test_lower_is_better_flips_ranks():
    f_hi = friedman(DEMSAR_AUC_RANKED)
    f_lo = friedman(-DEMSAR_AUC_RANKED, higher_is_better=False)
    np.testing.assert_allclose(f_hi.mean_ranks, f_lo.mean_ranks)
    np.testing.assert_allclose(friedman(-DEMSAR_AUC_RANKED).mean_ranks, 5 - f_hi.mean_ranks)


def test_nemenyi_p_values_agree_with_critical_difference(rng):
    x = rng.normal(size=(6, 30)) + np.linspace(0, 1.5, 6)[:, None]
    n = nemenyi(x)
    iu = np.triu_indices(6, 1)
    diff = np.abs(n.mean_ranks[:, None] - n.mean_ranks[None, :])[iu]
    np.testing.assert_array_equal(n.p_values[iu] < 0.05, diff > n.critical_difference)
    # p-value from the studentized range with infinite df, directly
    se = np.sqrt(6 * 7 / (6 * 30))
    np.testing.assert_allclose(n.p_values[iu], stats.studentized_range.sf(diff * np.sqrt(2) / se, 6, np.inf),
                               rtol=1e-10)


def test_complete_case_drops_and_counts_tasks():
    x = DEMSAR_AUC_RANKED.copy()
    x[1, 3] = np.nan
    x[3, 7] = np.nan
    f = friedman(x, DEMSAR_MODELS, DEMSAR_TASKS)
    assert f.dropped_tasks == ("cmc", "lung cancer")
    assert f.n_tasks == 12
    assert any("(2 of 14 left out)" in note for note in f.notes)
    ref = stats.friedmanchisquare(*np.delete(x, [3, 7], axis=1))
    assert f.statistic == pytest.approx(ref.statistic)


def test_too_few_tasks_raise():
    x = np.array([[1.0, np.nan, 3.0], [2.0, 2.0, np.nan]])
    with pytest.raises(InputError, match="at least 2 tasks"):
        friedman(x)
    with pytest.raises(ValueError, match="at least 2 models"):
        friedman(np.ones((1, 5)))


def test_identical_rankings_give_infinite_iman_davenport():
    x = np.tile(np.arange(4.0)[:, None], (1, 6))
    f = friedman(x)
    # the F approximation has no p-value at F = inf (QA O18: it printed "p = 0"); the permutation p is exact:
    # only the 4! arrangements that order all 6 tasks alike reach the maximum, p = 4! / (4!)^6
    assert f.iman_davenport == np.inf and np.isnan(f.iman_davenport_p_value)
    assert f.p_value_exact == pytest.approx(24.0 ** -5, rel=1e-9)
    assert f.statistic == pytest.approx(6 * 3)  # chi2 = N (k - 1) at perfect agreement


def test_cliques_from_a_significance_matrix():
    ranks = np.array([1.0, 2.0, 3.0, 4.0])
    names = ("a", "b", "c", "d")
    sig = np.zeros((4, 4), bool)
    sig[0, 2] = sig[2, 0] = True  # a differs from c only
    sig[0, 3] = sig[3, 0] = sig[1, 3] = sig[3, 1] = True
    assert cliques_from_significance(ranks, sig, names) == (("a", "b"), ("b", "c"), ("c", "d"))
    assert cliques_from_significance(ranks, np.ones((4, 4), bool) & ~np.eye(4, dtype=bool), names) == ()


def test_run_test_friedman_and_frame():
    res = run_test(pd.DataFrame(DEMSAR_AUC_RANKED, index=DEMSAR_MODELS, columns=DEMSAR_TASKS), test="friedman",
                   tie_correction=False)
    assert res.omnibus.statistic == pytest.approx(9.28, abs=5e-3)
    frame = res.to_frame()
    assert len(frame) == 6 and {"model_a", "model_b", "p_value", "significant"} <= set(frame.columns)
    assert (frame["mean_rank_a"] <= frame["mean_rank_b"]).all()
    text = res.summary()
    assert "Iman-Davenport" in text and "critical difference" in text
    with pytest.raises(ValueError, match="`test` must be one of"):
        run_test(DEMSAR_AUC, test="anova-ish")
    with pytest.raises(ValueError, match="`control` applies"):
        run_test(DEMSAR_AUC, test="friedman", control="model 0")


def test_skillings_mack_published_examples():
    # Brady (1969) via Hollander & Wolfe (1999), the example of R PMCMRplus::skillingsMackTest (3 treatments R, A,
    # B in 8 blocks, one missing): statistic 13.28095, df 2, p-value 0.001306405 (values as reproduced by the
    # tlsfuzzer test suite against that R example)
    x = np.array([[3, 1, 5, 2, 0, 0, 0, 0], [5, 3, 4, np.nan, 2, 2, 3, 2], [15, 18, 21, 6, 17, 10, 8, 13]])
    res = friedman(x, ["R", "A", "B"], missing="skillings-mack")
    assert res.statistic == pytest.approx(13.28095, rel=1e-6)
    assert res.p_value == pytest.approx(0.001306405, rel=1e-6)
    assert res.df == 2 and np.isnan(res.iman_davenport)
    assert "Skillings-Mack" in res.summary()
    # 5 treatments, 8 blocks, many missing (tlsfuzzer's second case): 12.53551, df 4, p 0.01378318
    y = np.full((5, 8), np.nan)
    cells = [(1, 1, 3), (2, 1, 5), (3, 1, 15), (5, 1, 4), (1, 2, 1), (2, 2, 3), (1, 3, 5), (2, 3, 4), (3, 3, 21),
             (4, 3, 5), (1, 4, 2), (3, 4, 6), (1, 5, 0), (2, 5, 2), (3, 5, 17), (1, 6, 0), (2, 6, 2), (3, 6, 10),
             (1, 7, 0), (2, 7, 3), (4, 7, 5), (1, 8, 0), (2, 8, 2), (3, 8, 13)]
    for g, b, v in cells:
        y[g - 1, b - 1] = v
    res = friedman(y, missing="skillings-mack")
    assert (res.statistic, res.df, res.p_value) == pytest.approx((12.53551, 4, 0.01378318), rel=1e-6)


def test_skillings_mack_without_missing_cells_is_friedman():
    # Skillings & Mack (1981): with complete blocks the statistic is Friedman's (no tie correction)
    sm = friedman(DEMSAR_AUC_RANKED, missing="skillings-mack")
    fr = friedman(DEMSAR_AUC_RANKED, tie_correction=False)
    assert sm.statistic == pytest.approx(fr.statistic, rel=1e-10)
    np.testing.assert_allclose(sm.mean_ranks, fr.mean_ranks)
    # a task with a single score carries no information and is named
    x = DEMSAR_AUC_RANKED.copy()
    x[1:, 0] = np.nan
    sm = friedman(x, DEMSAR_MODELS, DEMSAR_TASKS, missing="skillings-mack")
    assert sm.dropped_tasks == ("adult (sample)",)
    with pytest.raises(ValueError, match="`missing` must be one of"):
        friedman(x, missing="impute")


def test_run_test_with_skillings_mack():
    x = DEMSAR_AUC_RANKED.copy()
    x[0, 2] = np.nan
    res = run_test(x, DEMSAR_MODELS, DEMSAR_TASKS, test="friedman", missing="skillings-mack")
    assert res.omnibus.method == "skillings-mack" and res.omnibus.n_tasks == 14
    assert res.posthoc.n_tasks == 13  # Nemenyi on complete cases
    assert res.dropped_tasks == ("breast cancer wisconsin",)
    assert "Skillings-Mack" in res.summary()
