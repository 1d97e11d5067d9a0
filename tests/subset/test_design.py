"""The design-based and regression estimators of :mod:`evalband.subset.design` against direct computations.

Oracles: the textbook formulas written out item by item (Cochran 1977: (5.1)-(5.6) the stratified mean and its
variance, (5.16) Satterthwaite's df, (7.1)/(7.3) the regression estimator and its variance), statsmodels'
``DescrStatsW`` for the simple random sample, statsmodels' OLS for the regression slope, and theory (Neyman
allocation proportional to N_h S_h; inclusion probabilities n_h / N_h).
"""

import math

import numpy as np
import pytest
import statsmodels.api as sm
from statsmodels.stats.weightstats import DescrStatsW

from evalband.subset.design import difficulty_strata, draw, neyman_allocation, regression_mean, stratified_mean

# a fixed stratified sample: three strata of sizes 40, 25, 60 and scores written out
Y = np.array([1, 0, 1, 1, 0, 1, 1, 0.5, 0.25, 0.75, 1, 0, 0, 1, 0.2, 0.9, 0.4], dtype=float)
H_OF = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2])
SIZES = np.array([40.0, 25.0, 60.0])


def hand_stratified(y, strata, sizes):
    N = sum(sizes)
    est = var = 0.0
    parts, dfs = [], []
    for h, N_h in enumerate(sizes):
        ys = [v for v, s in zip(y, strata) if s == h]
        n_h = len(ys)
        mean = sum(ys) / n_h
        s2 = sum((v - mean) ** 2 for v in ys) / (n_h - 1)
        W = N_h / N
        est += W * mean
        part = W * W * (1 - n_h / N_h) * s2 / n_h
        var += part
        parts.append(part)
        dfs.append(n_h - 1)
    df = var ** 2 / sum(p * p / d for p, d in zip(parts, dfs))
    return est, var, df


def test_stratified_mean_matches_the_formulas_written_out():
    est, var, df = stratified_mean(Y, H_OF, SIZES)
    e2, v2, d2 = hand_stratified(Y, H_OF, SIZES)
    assert est == pytest.approx(e2, rel=1e-13)
    assert var == pytest.approx(v2, rel=1e-12)
    assert df == pytest.approx(d2, rel=1e-12)


def test_simple_random_sample_matches_statsmodels_with_the_fpc():
    rng = np.random.default_rng(3)
    y = rng.binomial(1, 0.4, size=50).astype(float)
    N = 400
    est, var, df = stratified_mean(y, np.zeros(50, dtype=int), np.array([float(N)]))
    d = DescrStatsW(y)
    assert est == pytest.approx(d.mean, rel=1e-14)
    assert math.sqrt(var) == pytest.approx(d.std_mean * math.sqrt(1 - 50 / N), rel=1e-12)
    assert df == 49
    # without the fpc (N huge) the t interval is statsmodels' tconfint_mean
    _, var_inf, _ = stratified_mean(y, np.zeros(50, dtype=int), np.array([1e15]))
    from scipy.stats import t
    lo, hi = d.tconfint_mean(alpha=0.05)
    q = t.ppf(0.975, 49)
    assert (est - q * math.sqrt(var_inf), est + q * math.sqrt(var_inf)) == pytest.approx((lo, hi), rel=1e-9)


def test_regression_estimator_matches_cochran_and_the_ols_slope():
    rng = np.random.default_rng(7)
    N, n = 500, 60
    f_pop = rng.uniform(0.1, 0.9, size=N)
    y_pop = (rng.random(N) < f_pop).astype(float)
    s = rng.choice(N, n, replace=False)
    y, f = y_pop[s], f_pop[s]
    est, var, df, b = regression_mean(y, f, np.zeros(n, dtype=int), np.array([float(N)]), f_pop.mean())
    slope = sm.OLS(y, sm.add_constant(f)).fit().params[1]
    assert b == pytest.approx(slope, rel=1e-10)
    ybar, fbar = y.mean(), f.mean()
    hand = ybar + slope * (f_pop.mean() - fbar)  # Cochran (7.1)
    e = (y - ybar) - slope * (f - fbar)
    hand_var = (1 - n / N) / n * sum(e ** 2) / (n - 2)  # Cochran (7.3)
    assert est == pytest.approx(hand, rel=1e-12)
    assert var == pytest.approx(hand_var, rel=1e-12)
    assert df == pytest.approx(n - 2)


def test_regression_estimator_stratified_form_by_hand():
    rng = np.random.default_rng(11)
    f = rng.uniform(size=len(Y))
    F_mean = 0.47
    est, var, df, b = regression_mean(Y, f, H_OF, SIZES, F_mean)
    N = SIZES.sum()
    g = [(SIZES[h] / N) ** 2 * (1 - (H_OF == h).sum() / SIZES[h]) / (H_OF == h).sum() / ((H_OF == h).sum() - 1)
         for h in range(3)]
    num = den = 0.0
    for v, x, h in zip(Y, f, H_OF):
        yb, fb = Y[H_OF == h].mean(), f[H_OF == h].mean()
        num += g[h] * (v - yb) * (x - fb)
        den += g[h] * (x - fb) ** 2
    slope = num / den
    assert b == pytest.approx(slope, rel=1e-12)
    hand = sum(SIZES[h] / N * (Y[H_OF == h].mean() - slope * f[H_OF == h].mean()) for h in range(3)) + slope * F_mean
    assert est == pytest.approx(hand, rel=1e-12)
    _, v_resid, _ = hand_stratified(Y - slope * f, H_OF, SIZES)
    n = len(Y)
    assert var == pytest.approx(v_resid * (n - 3) / (n - 3 - 1), rel=1e-12)


def test_a_useless_prediction_gives_back_the_design_estimate():
    f = np.full(len(Y), 0.3)
    est, var, _, b = regression_mean(Y, f, H_OF, SIZES, 0.3)
    e2, v2, _ = stratified_mean(Y, H_OF, SIZES)
    assert b == 0 and est == pytest.approx(e2) and var >= v2


def test_neyman_allocation_is_proportional_to_size_times_sd():
    assert neyman_allocation(np.array([100, 200, 300]), np.array([1.0, 1.0, 2.0]), 90).tolist() == [10, 20, 60]
    # a stratum's share larger than the stratum: capped at N_h, the rest spread over the others
    n = neyman_allocation(np.array([5, 200, 300]), np.array([50.0, 1.0, 1.0]), 105)
    assert n[0] == 5 and n.sum() == 105 and n[1] == 40 and n[2] == 60
    # every stratum gets its floor of 2
    n = neyman_allocation(np.array([50, 50, 50]), np.array([0.0, 0.0, 1.0]), 30)
    assert n.tolist() == [2, 2, 26]


def test_draw_takes_n_h_from_each_stratum_without_replacement():
    strata = difficulty_strata(np.repeat([0, 1], 50), np.tile(np.linspace(0, 1, 50), 2), 2)
    assert strata.max() == 3
    picked = draw(strata, np.array([3, 4, 5, 6]), np.random.default_rng(0))
    assert len(set(picked.tolist())) == 18
    assert np.bincount(strata[picked]).tolist() == [3, 4, 5, 6]
