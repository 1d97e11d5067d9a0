"""PPI / PPI++ for a mean against ppi_py, theory and coverage simulations.

Since issue 22 the interval is a small-sample one, ``estimate -/+ t_df se`` with each part of the variance over its
degrees of freedom and Student's t on ``df = n - 1`` labelled degrees of freedom, where ppi_py's is
``estimate -/+ z se_asymptotic``: the estimate and ``se_asymptotic`` are compared with ppi_py's to
solver precision, and the small-sample ``se`` and interval with their closed forms (``check_against``).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalband.judges import ppi_mean


def fresh_data(seed=2026, n=150, big_n=1500):
    """Binary human labels, judge scores in (0, 1) that predict them; the first n items are labelled."""
    rng = np.random.default_rng(seed)
    f = rng.beta(2, 2, size=n + big_n)
    y = (rng.uniform(size=n + big_n) < 0.15 + 0.7 * f).astype(float)
    return y[:n], f[:n], f[n:]


def masked(y, f_lab, f_unl):
    """ppi_py's (Y, Yhat, Yhat_unlabeled) as evalband's judge / human arrays (NaN = unlabelled)."""
    judge = np.concatenate([f_lab, f_unl])
    human = np.concatenate([y, np.full(f_unl.size, np.nan)])
    return judge, human


# ppi_py 0.2.3 on fresh_data():
#   ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled, lam=None) -> 0.535144681511396
#   ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.05, lam=None) -> (0.45595216709519826, 0.6143371959275938)
#   ppi_mean_pointestimate(..., lam=1) -> 0.5199426476973347
#   ppi_mean_ci(..., alpha=0.05, lam=1) -> (0.4364977139009981, 0.6033875814936712)
#   classical_mean_ci(Y, alpha=0.05) -> (0.46024126501084994, 0.6197587349891501)
PPI_PLUS = (0.535144681511396, 0.45595216709519826, 0.6143371959275938)
CLASSIC = (0.5199426476973347, 0.4364977139009981, 0.6033875814936712)
LABELLED = (0.46024126501084994, 0.6197587349891501)


def asymptotic_se(low, high, level=0.95):
    """ppi_py's standard error from its normal interval (low, high) = estimate -/+ z se."""
    return (high - low) / (2 * stats.norm.ppf(0.5 + level / 2))


def small_sample(y, f_lab, f_unl, lam, fitted):
    """Theory: the small-sample standard error, each part's variance over its degrees of freedom (the labelled
    residuals y - lam f over n - fitted, the unlabelled judge scores over N - 1)."""
    n, big_n = y.size, f_unl.size
    return float(np.sqrt(lam ** 2 * np.var(f_unl, ddof=1) / big_n + np.var(y - lam * f_lab, ddof=fitted) / n))


def check_against(res, estimate, low, high, data, *, fitted, level=0.95, abs_=1e-8):
    """evalband's estimate and asymptotic se equal ppi_py's; its interval is estimate -/+ t_df se with the
    small-sample se and df = n - fitted (issue 22)."""
    y, f_lab, f_unl = data
    assert float(res.estimate) == pytest.approx(estimate, abs=abs_)
    assert float(res.se_asymptotic) == pytest.approx(asymptotic_se(low, high, level), abs=abs_)
    se = small_sample(y, f_lab, f_unl, float(res.lam), fitted)
    assert float(res.se) == pytest.approx(se, rel=1e-10)
    t = stats.t.ppf(0.5 + level / 2, y.size - fitted)
    assert int(res.df) == y.size - fitted
    assert (float(res.ci.low), float(res.ci.high)) == pytest.approx((estimate - t * se, estimate + t * se), abs=abs_)


def test_ppi_plus_plus_and_classic_match_ppi_py_stored():
    data = fresh_data()
    judge, human = masked(*data)
    res = ppi_mean(judge, human, method="ppi++")
    check_against(res, *PPI_PLUS, data, fitted=1)
    assert int(res.n_labelled) == 150 and int(res.n_unlabelled) == 1500
    assert 0.0 < float(res.lam) < 1.0
    res = ppi_mean(judge, human, method="classic")
    check_against(res, *CLASSIC, data, fitted=1)
    assert float(res.lam) == 1.0
    # the labels alone: ppi_py's classical_mean_ci is ybar -/+ z s0 / sqrt(n) (ddof 0); ours is the classical t
    # interval ybar -/+ t_{n-1} s / sqrt(n)
    y = data[0]
    mid = sum(LABELLED) / 2
    assert mid == pytest.approx(y.mean(), abs=1e-12)
    assert asymptotic_se(*LABELLED) == pytest.approx(np.std(y) / np.sqrt(y.size), abs=1e-12)
    t = stats.t.ppf(0.975, y.size - 1)
    classical = (mid - t * np.std(y, ddof=1) / np.sqrt(y.size), mid + t * np.std(y, ddof=1) / np.sqrt(y.size))
    assert (float(res.labelled_ci.low), float(res.labelled_ci.high)) == pytest.approx(classical, abs=1e-10)
    lab = ppi_mean(judge, human, method="labelled")  # lambda = 0 is the classical interval
    check_against(lab, mid, *LABELLED, data, fitted=1)
    assert (float(lab.ci.low), float(lab.ci.high)) == pytest.approx(classical, abs=1e-10)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("lam", [None, 1])
def test_live_ppi_py(seed, lam):
    ppi = pytest.importorskip("ppi_py")
    y, f_lab, f_unl = fresh_data(seed, n=40 + 30 * seed, big_n=500 * seed)
    judge, human = masked(y, f_lab, f_unl)
    res = ppi_mean(judge, human, method="ppi++" if lam is None else "classic", confidence_level=0.9)
    low, high = ppi.ppi_mean_ci(y, f_lab, f_unl, alpha=0.1, lam=lam)
    estimate = float(ppi.ppi_mean_pointestimate(y, f_lab, f_unl, lam=lam)[0])
    check_against(res, estimate, float(low[0]), float(high[0]), (y, f_lab, f_unl), fitted=1,
                  level=0.9, abs_=1e-10)


def test_vectorized_over_models_equals_one_by_one_and_masks_may_differ():
    rng = np.random.default_rng(4)
    judge = rng.uniform(size=(3, 300))
    human = np.where(rng.uniform(size=(3, 300)) < 0.2, (rng.uniform(size=(3, 300)) < judge).astype(float), np.nan)
    both = ppi_mean(judge, human)
    for m in range(3):
        one = ppi_mean(judge[m], human[m])
        assert float(both.estimate[m]) == pytest.approx(float(one.estimate), abs=1e-14)
        assert float(both.se[m]) == pytest.approx(float(one.se), abs=1e-14)
        assert int(both.n_labelled[m]) == int(np.isfinite(human[m]).sum())


def test_effective_sample_size_and_influence_theory():
    judge, human = masked(*fresh_data())
    res = ppi_mean(judge, human)
    # ess = n var_labelled / var_ppi (asymptotic variances, as ppi_py's), so an interval from ess labels alone
    # would be as wide; labelled_se is the classical s / sqrt(n) (ddof 1)
    lab_asym = float(res.labelled_se) * np.sqrt(149 / 150)
    assert float(res.ess) == pytest.approx(150 * lab_asym ** 2 / float(res.se_asymptotic) ** 2)
    assert float(res.gain) == pytest.approx(float(res.ess) / 150)
    # the influence terms sum to zero; their sum of squares is the asymptotic variance, and weighted by the
    # small-sample factors the small-sample one
    assert float(res.influence.sum()) == pytest.approx(0.0, abs=1e-12)
    assert float((res.influence ** 2).sum()) == pytest.approx(float(res.se_asymptotic) ** 2, rel=1e-12)
    assert float((res.factor * res.influence ** 2).sum()) == pytest.approx(float(res.se) ** 2, rel=1e-12)
    # one item per cluster: CR1 scales the variance by G / (G - 1) (G = number of items)
    k = judge.size
    clustered = ppi_mean(judge, human, clusters=np.arange(k), lam=float(res.lam))
    assert float(clustered.se) ** 2 == pytest.approx(float(res.se_asymptotic) ** 2 * k / (k - 1), rel=1e-12)


def test_paired_difference_equals_ppi_on_differences():
    """Theory: with the same labelled items and lambda = 1, the difference of two classic PPI estimates is classic
    PPI on the per-item differences, with the same variance (the influence terms subtract)."""
    # ppi_py: ppi_mean_ci(ya - yb, fa - fb (labelled), fa - fb (unlabelled), alpha=0.05, lam=1) with the data
    # below -> (0.013704900880052745, 0.22861814471480793), estimate 0.12116152279743034
    rng = np.random.default_rng(7)
    n, big_n = 150, 1500
    fa = rng.beta(2, 2, size=n + big_n)
    fb = np.clip(fa - 0.1 + rng.normal(0, 0.1, n + big_n), 0, 1)
    ya = (rng.uniform(size=n + big_n) < 0.15 + 0.7 * fa).astype(float)
    yb = (rng.uniform(size=n + big_n) < 0.15 + 0.7 * fb).astype(float)
    lab = np.arange(n + big_n) < n
    human = np.vstack([np.where(lab, ya, np.nan), np.where(lab, yb, np.nan)])
    res = ppi_mean(np.vstack([fa, fb]), human, method="classic")
    d = float(res.estimate[0] - res.estimate[1])
    se = float(np.sqrt(((res.influence[0] - res.influence[1]) ** 2).sum()))
    z = stats.norm.ppf(0.975)
    assert (d, d - z * se, d + z * se) == pytest.approx((0.12116152279743034, 0.013704900880052745,
                                                         0.22861814471480793), abs=1e-10)


def test_edge_cases_and_errors():
    judge = np.linspace(0, 1, 50)
    human = np.full(50, np.nan)
    human[:1] = 1.0
    res = ppi_mean(judge, human)
    assert np.isnan(res.estimate) and int(res.n_labelled) == 1
    all_labelled = ppi_mean(judge, (judge > 0.5).astype(float))
    assert float(all_labelled.lam) == 0.0
    assert float(all_labelled.estimate) == pytest.approx(float(np.mean(judge > 0.5)))
    with pytest.raises(ValueError, match="`method`"):
        ppi_mean(judge, human, method="ppi+")
    with pytest.raises(ValueError, match="`human` has a label where `judge` has no score"):
        ppi_mean(np.where(judge < 0.01, np.nan, judge), human)
    with pytest.raises(ValueError, match="must be finite"):
        ppi_mean(np.where(judge > 0.9, np.inf, judge), human)
    # NaN judge scores leave items out of a row: the same as dropping them
    part = np.where(np.arange(50) % 3 == 0, np.nan, judge)
    human2 = np.where(np.arange(50) < 20, (judge > 0.4).astype(float), np.nan)
    human2[np.isnan(part)] = np.nan
    keep = ~np.isnan(part)
    a, b = ppi_mean(part, human2), ppi_mean(judge[keep], human2[keep])
    assert (float(a.estimate), float(a.se), float(a.lam)) == pytest.approx((float(b.estimate), float(b.se),
                                                                             float(b.lam)), abs=1e-14)
    assert float(a.judge_se) == pytest.approx(float(b.judge_se), abs=1e-14)
    with pytest.raises(ValueError, match="same shape"):
        ppi_mean(judge, human[:10])
    with pytest.raises(ValueError, match="at least 2 clusters"):
        ppi_mean(judge, human, clusters=np.zeros(50))
    one_sided = ppi_mean(*masked(*fresh_data()), alternative="greater")
    assert np.isinf(one_sided.ci.high) and np.isfinite(one_sided.ci.low)


def _biased_judge(rng, sims, k, n_lab, p=0.6, clusters=None, icc=0.0):
    """Human labels y ~ Bernoulli(p); the judge says 1 with probability 0.9 when y = 1 and 0.3 when y = 0 (mean
    0.66, not 0.6): biased, but informative. With clusters, a shared effect moves y within a cluster."""
    if clusters is None:
        y = (rng.uniform(size=(sims, k)) < p).astype(float)
    else:
        g = int(clusters.max()) + 1
        shift = rng.normal(0, icc, size=(sims, g))[:, clusters]
        prob = np.clip(p + shift, 0.02, 0.98)
        y = (rng.uniform(size=(sims, k)) < prob).astype(float)
    f = np.where(y == 1, rng.uniform(size=y.shape) < 0.9, rng.uniform(size=y.shape) < 0.3).astype(float)
    labelled = np.argsort(rng.uniform(size=(sims, k)), axis=1) < n_lab  # a uniform random subset per simulation
    human = np.where(labelled, y, np.nan)
    return f, human


@pytest.mark.slow
def test_coverage_biased_judge():
    """The naive judge-only interval under-covers the human-scale truth; PPI++ and classic PPI cover at about
    95%; PPI++ is narrower than the labelled-only interval when the judge is informative."""
    rng = np.random.default_rng(20261201)
    sims, k, n_lab, truth = 2000, 1000, 100, 0.6
    f, human = _biased_judge(rng, sims, k, n_lab, truth)
    plus = ppi_mean(f, human, method="ppi++")  # all simulations at once, one per row
    classic = ppi_mean(f, human, method="classic")
    for res in (plus, classic):
        covered = int(np.sum((res.ci.low <= truth) & (truth <= res.ci.high)))
        assert stats.binomtest(covered, sims, 0.95).pvalue > 0.001, covered
    z = stats.norm.ppf(0.975)
    naive = int(np.sum(np.abs(plus.judge_mean - truth) <= z * plus.judge_se))
    assert stats.binomtest(naive, sims, 0.95, alternative="less").pvalue < 1e-12, naive
    assert naive / sims < 0.05
    width_ratio = np.mean(plus.se / plus.labelled_se)
    assert width_ratio < 0.9
    labelled = int(np.sum((plus.labelled_ci.low <= truth) & (truth <= plus.labelled_ci.high)))
    assert stats.binomtest(labelled, sims, 0.95).pvalue > 0.001


@pytest.mark.slow
def test_coverage_clustered_items():
    """Items in clusters that share an effect: the cluster-robust PPI interval covers at about 95%, the one
    that treats items as independent under-covers."""
    rng = np.random.default_rng(7)
    sims, g, per, n_lab, truth = 1500, 60, 10, 200, 0.6
    clusters = np.repeat(np.arange(g), per)
    f, human = _biased_judge(rng, sims, g * per, n_lab, truth, clusters=clusters, icc=0.25)
    robust = ppi_mean(f, human, clusters=clusters)
    naive = ppi_mean(f, human)
    # the truth is the superpopulation mean of y: p averaged over the (clipped) cluster effects
    draws = np.clip(truth + np.random.default_rng(0).normal(0, 0.25, 2_000_000), 0.02, 0.98)
    theta = float(draws.mean())
    cov_robust = int(np.sum((robust.ci.low <= theta) & (theta <= robust.ci.high)))
    cov_naive = int(np.sum((naive.ci.low <= theta) & (theta <= naive.ci.high)))
    assert stats.binomtest(cov_robust, sims, 0.95).pvalue > 0.001, cov_robust
    assert stats.binomtest(cov_naive, sims, 0.95, alternative="less").pvalue < 1e-6, cov_naive
