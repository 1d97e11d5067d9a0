"""Repeated trials: the between/within variance split against theory (simulated known variances)."""

from __future__ import annotations

import numpy as np
import pytest

from evalband.estimation import mean_interval, trial_interval, trial_variance
from evalband.estimation.trials import TrialVariance


def _padded(rng, values, counts):
    """(reps, n_items, kmax) with NaN beyond each item's trial count."""
    kmax = counts.max()
    mask = np.arange(kmax)[None, :] < counts[:, None]
    return np.where(mask[None], values, np.nan)


def test_unbiased_split_with_unequal_trial_counts(rng):
    # item means ~ N(0, 0.5), output noise ~ N(0, 1): var_between = 0.5, var_within = 1.0 by construction
    reps, n_items = 3000, 40
    counts = np.tile([1, 2, 3, 5], n_items // 4)
    mu = rng.normal(scale=np.sqrt(0.5), size=(reps, n_items, 1))
    x = _padded(rng, mu + rng.normal(size=(reps, n_items, counts.max())), counts)
    tv = trial_variance(x)
    for est, truth in ((tv.var_between, 0.5), (tv.var_within, 1.0)):
        mc_se = est.std(ddof=1) / np.sqrt(reps)
        assert abs(est.mean() - truth) < 4 * mc_se
    # without the correction the variance of the item means is inflated by mean(var_within / k_i)
    naive = np.nanvar(np.nanmean(x, axis=-1), axis=-1, ddof=1)
    assert naive.mean() == pytest.approx(0.5 + np.mean(1.0 / counts), abs=0.02)
    assert tv.mean_trials[0] == pytest.approx(counts.mean())
    assert (tv.n_items == n_items).all()


def test_binary_uniform_difficulty_is_the_seed_setting(rng):
    # 0/1 scores with item success rates p ~ Uniform(0, 1): var_between = var(p) = 1/12,
    # var_within = E[p (1 - p)] = 1/6, i.e. output variance twice the item variance (seed 001, Miller 2024)
    reps, n_items, k = 2000, 60, 4
    p = rng.uniform(size=(reps, n_items, 1))
    x = (rng.uniform(size=(reps, n_items, k)) < p).astype(float)
    tv = trial_variance(x)
    assert abs(tv.var_between.mean() - 1 / 12) < 4 * tv.var_between.std(ddof=1) / np.sqrt(reps)
    assert abs(tv.var_within.mean() - 1 / 6) < 4 * tv.var_within.std(ddof=1) / np.sqrt(reps)


def test_variance_reduction_matches_seed_figures():
    # "two samples reduce total variance by about a third, four by about a half, and the upper limit is about
    # two-thirds" (seed 001) holds exactly when var_within = 2 var_between
    tv = TrialVariance(np.array(1 / 12), np.array(1 / 6), np.array(100), np.array(1.0))
    assert tv.reduction(1) == pytest.approx(0.0)
    assert tv.reduction(2) == pytest.approx(1 / 3)
    assert tv.reduction(4) == pytest.approx(1 / 2)
    assert tv.reduction(10 ** 9) == pytest.approx(2 / 3, abs=1e-8)
    # k_enough: smallest k with (vw / k) / (vb + vw / k) <= 0.1, i.e. k >= 2 * 9 = 18
    assert tv.k_enough(tolerance=0.1) == 18
    share = lambda k: (2 / k) / (1 + 2 / k)
    assert share(18) <= 0.1 < share(17)
    frame = tv.to_frame(ks=(1, 2, 4))
    assert frame["reduction"].tolist() == pytest.approx([0, 1 / 3, 1 / 2])
    assert frame["variance_of_mean"].iloc[0] == pytest.approx(0.25 / 100)


def test_k_enough_edge_cases():
    tv = TrialVariance(np.array([0.1, -0.01, 0.1]), np.array([0.0, 0.2, np.nan]), np.array([5, 5, 5]),
                       np.array([2.0, 2.0, 1.0]))
    k = tv.k_enough()
    assert k[0] == 1 and np.isnan(k[1]) and np.isnan(k[2])  # no k is "enough" when all variance is output noise


def test_trial_interval_averages_within_item_first(rng):
    x = rng.normal(size=(2, 30, 3))
    x[0, :5, 2] = np.nan  # unequal trial counts
    res = trial_interval(x, confidence_level=0.9)
    ref = mean_interval(np.nanmean(x, axis=-1), confidence_level=0.9)
    assert np.allclose(res.estimate, ref.estimate) and np.allclose(res.se, ref.se)
    assert np.allclose(res.ci.low, ref.ci.low)
    assert set(res.extras) >= {"var_between", "var_within", "k_enough", "mean_trials"}
    assert res.extras["mean_trials"][0] == pytest.approx((25 * 3 + 5 * 2) / 30)


def test_trial_interval_arguments():
    with pytest.raises(ValueError, match="`clusters` must be given"):
        trial_interval(np.ones((3, 2)), method="cluster")
    with pytest.raises(ValueError, match="`method` must be one of 't', 'normal', 'cluster'"):
        trial_interval(np.ones((3, 2)), method="wilson")


@pytest.mark.parametrize("scale, trials, python_ints", [(1, 5, False), (2 ** 20, 2048, False), (2 ** 20, 2048, True)])
def test_within_item_variance_from_exact_sums_is_the_exact_value(scale, trials, python_ints, monkeypatch):
    """Scores whose sums are exact in any order (integers here) give each item's sample variance from its count,
    sum and sum of squares: sumsq - sum**2 / k as an exact integer, rounded once (checked against fractions)."""
    from fractions import Fraction

    from evalband.estimation.trials import exact_sums, variance_from_sums

    if python_ints:  # the products beyond int64: Python integers (forced here)
        monkeypatch.setattr("evalband.estimation.trials._INT64_ROOM", 0.0)
    gen = np.random.default_rng(3)
    x = gen.integers(0, scale + 1, size=(4, trials)).astype(np.float64)
    x[1, : trials // 2] = np.nan  # fewer trials on one item
    sums = exact_sums(x)
    assert sums is not None
    tv = variance_from_sums(*sums)
    exact = []
    for row in x:
        v = [Fraction(int(a)) for a in row[~np.isnan(row)]]
        m = sum(v) / len(v)
        exact.append(sum((a - m) ** 2 for a in v) / (len(v) - 1))
    assert float(tv.var_within) == pytest.approx(float(sum(exact) / len(exact)), rel=4e-16)
    assert tv.var_within == trial_variance(x).var_within  # trial_variance takes the same path
