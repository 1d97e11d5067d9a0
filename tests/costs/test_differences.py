"""Paired cost differences and ratios between models.

Oracles:
* the paired t path against ``scipy.stats.ttest_rel`` (statistic's p-value and ``confidence_interval()``), live;
* summaries (unpaired) against ``scipy.stats.ttest_ind_from_stats(..., equal_var=False)`` (Welch), live;
* the delta-method ratio interval of summaries by hand: ``exp(log r -/+ z sqrt((se_a/a)^2 + (se_b/b)^2))``;
* the bootstrap path: percentile ends are the quantiles of the replicate differences (consistency), and BCa
  against SciPy's paired BCa of the same ratio statistic (Monte Carlo tolerance);
* a coverage simulation of the BCa cost-ratio interval, judged with ``scipy.stats.binomtest`` (slow).
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalband.costs import cost_differences, cost_from_summary, joint_bootstrap, mean_cost
from evalband.costs.differences import pair_ratio
from evalband.costs.joint import joint_from_arrays
from evalband.costs.measures import costs_from_replicates


def test_paired_t_matches_ttest_rel(results):
    one = results[results["task"] == "t1"]
    cmp = cost_differences(one, method="t")
    wide = one.pivot(index="item", columns="model", values="cost")
    for a, b, d, lo, hi, p in zip(cmp.model_a, cmp.model_b, cmp.difference, cmp.ci.low, cmp.ci.high, cmp.p_value):
        ref = stats.ttest_rel(wide[a], wide[b])
        ci = ref.confidence_interval(0.95)
        assert d == pytest.approx(np.mean(wide[a] - wide[b]), rel=1e-12)
        assert p == pytest.approx(ref.pvalue, rel=1e-9)
        assert (lo, hi) == (pytest.approx(ci.low, rel=1e-10), pytest.approx(ci.high, rel=1e-10))
    one_sided = cost_differences(one, method="t", alternative="less")
    ref = stats.ttest_rel(wide["A"], wide["B"], alternative="less")
    assert one_sided.p_value[0] == pytest.approx(ref.pvalue, rel=1e-9)
    assert np.isneginf(one_sided.ci.low[0])


def test_summary_differences_are_welch():
    frame = pd.DataFrame({"model": ["A", "B"], "cost": [0.020, 0.016], "sd": [0.010, 0.006], "n": [80, 40]})
    cmp = cost_differences(cost_from_summary(frame))
    ref = stats.ttest_ind_from_stats(0.020, 0.010, 80, 0.016, 0.006, 40, equal_var=False)
    assert cmp.p_value[0] == pytest.approx(ref.pvalue, rel=1e-9)
    se = frame["sd"] / np.sqrt(frame["n"])
    normal = cost_differences(cost_from_summary(frame[["model", "cost"]].assign(se=se)))
    z = stats.norm.ppf(0.975)
    log_se = np.sqrt((se[0] / 0.020) ** 2 + (se[1] / 0.016) ** 2)
    assert normal.ratio[0] == pytest.approx(0.8, rel=1e-14)
    assert normal.ratio_ci.low[0] == pytest.approx(0.8 * np.exp(-z * log_se), rel=1e-12)
    assert normal.ratio_ci.high[0] == pytest.approx(0.8 * np.exp(z * log_se), rel=1e-12)


def test_bootstrap_differences_are_the_replicate_quantiles(results):
    joint = joint_bootstrap(results, n_resamples=1000, rng=2)
    cmp = cost_differences(mean_cost(results, method="percentile", replicates=joint))
    s = joint.cost_samples
    d = s[:, 0] - s[:, 1]
    assert cmp.ci.low[0] == pytest.approx(np.quantile(d, 0.025), rel=1e-13)
    assert cmp.ratio_ci.high[0] == pytest.approx(np.quantile(s[:, 1] / s[:, 0], 0.975), rel=1e-13)
    # paired by item: the two models' mean costs move together over the replicates (a shared item effect),
    # which drawing each model's items on its own would not give (correlation about 0)
    assert np.corrcoef(s[:, 0], s[:, 1])[0, 1] > 0.7
    assert d.std(ddof=1) < np.hypot(s[:, 0].std(ddof=1), s[:, 1].std(ddof=1))


def test_bca_ratio_matches_scipy_paired():
    gen = np.random.default_rng(5)
    n = 60
    item = gen.lognormal(0, 1.0, size=n)
    a, b = item * gen.lognormal(0, 0.5, size=n), 0.6 * item * gen.lognormal(0, 0.5, size=n)
    joint = joint_from_arrays(["A", "B"], {"t": np.ones((2, n))}, {"t": np.vstack([a, b])}, n_resamples=20_000,
                              rng=1)
    r, lo, hi = pair_ratio(costs_from_replicates(joint, method="bca"), [0], [1])
    ref = stats.bootstrap((a, b), lambda x, y, axis=-1: y.mean(axis) / x.mean(axis), paired=True, vectorized=True,
                          method="BCa", n_resamples=20_000, rng=np.random.default_rng(2))
    se = ref.standard_error
    assert r[0] == pytest.approx(b.mean() / a.mean(), rel=1e-13)
    assert abs(lo[0] - ref.confidence_interval.low) < 0.15 * se
    assert abs(hi[0] - ref.confidence_interval.high) < 0.15 * se


def test_corrections_and_frame(results):
    plain = cost_differences(results, method="t")
    holm = cost_differences(results, method="t", correction="holm")
    assert holm.interval_level == pytest.approx(1 - 0.05 / 3)
    assert np.all(holm.p_adjusted >= plain.p_value) and np.all(holm.ci.low <= plain.ci.low)
    frame = holm.to_frame()
    assert list(frame[["model_a", "model_b"]].itertuples(index=False, name=None)) == [("A", "B"), ("A", "C"),
                                                                                     ("B", "C")]
    assert {"difference", "ratio", "ratio_ci_low", "p_adjusted"} <= set(frame.columns)
    with pytest.raises(ValueError, match="`correction` must be one of"):
        cost_differences(results, correction="sidak")


@pytest.mark.slow
def test_bca_cost_ratio_coverage():
    """800 datasets of 200 paired lognormal costs (item effect sd 0.75 on the log scale, model noise 0.4), true
    ratio of mean costs 0.6. Each dataset is its own engine run (its own seed), so hits are independent. In a
    heavier-tailed setting (item sd 1.0, noise 0.5, 100 items) BCa, ours and SciPy's alike, covers only about
    0.89: the ratio of skewed means needs more items than a mean does."""
    gen = np.random.default_rng(2026)
    n, n_sim, hits = 200, 800, 0
    for s in range(n_sim):
        item = gen.lognormal(0, 0.75, size=n)
        c = np.vstack([item * gen.lognormal(0, 0.4, size=n), 0.6 * item * gen.lognormal(0, 0.4, size=n)])
        joint = joint_from_arrays(["A", "B"], {"t": np.ones((2, n))}, {"t": c}, n_resamples=999, rng=s)
        _, lo, hi = pair_ratio(costs_from_replicates(joint, method="bca"), [0], [1])
        hits += int(lo[0] <= 0.6 <= hi[0])
    assert stats.binomtest(hits, n_sim, 0.95).pvalue > 1e-3, hits
