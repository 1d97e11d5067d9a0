"""Expected-mean-squares estimators of balanced designs: closed forms, and REML (statsmodels) where they agree."""

import numpy as np
import pytest

from evalband.facets import anova_components


def test_two_way_closed_form():
    # items x prompts, one score per cell: sigma2_item = (MS_I - MS_e) / P, sigma2_prompt = (MS_P - MS_e) / I
    rng = np.random.default_rng(0)
    y = rng.normal(size=(15, 4)) + rng.normal(size=15)[:, None]
    n_i, n_p = y.shape
    g = y.mean()
    ms_i = n_p * ((y.mean(1) - g) ** 2).sum() / (n_i - 1)
    ms_p = n_i * ((y.mean(0) - g) ** 2).sum() / (n_p - 1)
    r = y - y.mean(1, keepdims=True) - y.mean(0, keepdims=True) + g
    ms_e = (r ** 2).sum() / ((n_i - 1) * (n_p - 1))
    t = anova_components(y)
    assert t.terms == ((0,), (1,), (0, 1))
    np.testing.assert_allclose(t.ms, [ms_i, ms_p, ms_e], rtol=1e-12)
    np.testing.assert_allclose(t.estimate, [(ms_i - ms_e) / n_p, (ms_p - ms_e) / n_i, ms_e], rtol=1e-12)
    np.testing.assert_array_equal(t.df, [14, 3, 42])


def test_three_way_with_trials_closed_form():
    # items x prompts x judges with r trials: Cornfield-Tukey rules, e.g. s2_ij = (MS_ij - MS_ijp) / (P r)
    rng = np.random.default_rng(1)
    n_i, n_p, n_j, r = 8, 3, 4, 2
    obs = rng.normal(size=(n_i, n_p, n_j, r)) + rng.normal(size=(n_i, 1, n_j, 1))
    y = obs.mean(-1)
    w_ss = ((obs - y[..., None]) ** 2).sum()
    t = anova_components(y, trials=r, within_ss=[w_ss], within_df=[n_i * n_p * n_j * (r - 1)])
    ms = dict(zip(t.terms, t.ms))
    ms_e = w_ss / (n_i * n_p * n_j * (r - 1))
    est = dict(zip(t.terms + ("e",), t.estimate))
    np.testing.assert_allclose(est["e"], ms_e)
    np.testing.assert_allclose(est[(0, 1, 2)], (ms[(0, 1, 2)] - ms_e) / r)
    np.testing.assert_allclose(est[(0, 2)], (ms[(0, 2)] - ms[(0, 1, 2)]) / (n_p * r))
    np.testing.assert_allclose(est[(0,)], (ms[(0,)] - ms[(0, 1)] - ms[(0, 2)] + ms[(0, 1, 2)]) / (n_p * n_j * r))


def test_nested_closed_form():
    # workers nested within items (3 per item, labels not shared): one-way nested ANOVA
    rng = np.random.default_rng(2)
    y = rng.normal(size=(20, 3)) + rng.normal(size=20)[:, None]
    t = anova_components(y, parents=[frozenset(), frozenset({0})])
    assert t.terms == ((0,), (0, 1))
    ms_b = 3 * ((y.mean(1) - y.mean()) ** 2).sum() / 19
    ms_w = ((y - y.mean(1, keepdims=True)) ** 2).sum() / 40
    np.testing.assert_allclose(t.estimate, [(ms_b - ms_w) / 3, ms_w])


def test_vectorized_over_models_equals_one_at_a_time():
    rng = np.random.default_rng(3)
    y = rng.normal(size=(5, 10, 4))
    t = anova_components(y, parents=[frozenset(), frozenset()])
    for k in range(5):
        np.testing.assert_allclose(t.estimate[k], anova_components(y[k]).estimate)


def test_pivots_are_exact_for_a_chi_square_component():
    # a single mean square: the generalized pivotal interval of sigma2_e is the exact chi-square interval
    rng = np.random.default_rng(4)
    y = rng.normal(size=(30, 5))
    t = anova_components(y)
    draws = t.pivots(np.random.default_rng(0), 200_000)[:, -1]
    from scipy.stats import chi2
    df = t.df[-1]
    exact = t.ms[-1] * df / chi2.ppf([0.975, 0.025], df)
    np.testing.assert_allclose(np.quantile(draws, [0.025, 0.975]), exact, rtol=0.01)


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="`trials`"):
        anova_components(np.ones((3, 2)), trials=0)
    with pytest.raises(ValueError, match="degrees of freedom"):
        anova_components(np.ones((3, 1)))
