"""Mean cost per item with an interval.

Oracles:
* BCa against ``scipy.stats.bootstrap(..., method='BCa')`` (live, same data; one task = one sample, two tasks = two
  samples, which SciPy resamples separately, i.e. stratified, with its multi-sample jackknife). The two runs draw
  different replicates, so the ends agree up to Monte Carlo error: with B = 20,000 about 0.04 standard errors
  per end; we allow 0.15. The percentile interval on the same data lies more than 0.5 SE from SciPy's BCa upper
  end, so the check tells the methods apart. Values of the run below, for the record:
  ``scipy.stats.bootstrap((c1,), np.mean, n_resamples=20000, method='BCa', rng=default_rng(2))`` ->
  (1.2509, 2.8054); two samples, pooled mean -> (2.0289, 3.1984).
* The jackknife behind BCa: delete-one pooled means computed by hand.
* t: ``scipy.stats.t.interval(0.95, n - 1, loc=mean, scale=sem)``; with clusters, statsmodels' cluster-robust
  OLS standard error of an intercept (``OLS(y, 1).fit(cov_type='cluster')``, whose small-sample factor is G/(G-1)
  for one regressor).
* Summaries: SE = SD / sqrt(n) and t(n - 1) by hand.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalband import InputError
from evalband.costs import cost_from_summary, joint_bootstrap, mean_cost


def _skewed():
    gen = np.random.default_rng(42)
    c1, c2 = gen.lognormal(0, 1.2, size=40), gen.lognormal(1, 1.0, size=25)
    rows = ([dict(model="A", task="t1", item=i, score=1.0, cost=v) for i, v in enumerate(c1)]
            + [dict(model="A", task="t2", item=i, score=1.0, cost=v) for i, v in enumerate(c2)])
    return pd.DataFrame(rows), c1, c2


def test_bca_one_task_matches_scipy():
    df, c1, _ = _skewed()
    one = df[df["task"] == "t1"]
    ours = mean_cost(one, n_resamples=20_000, rng=1)
    ref = stats.bootstrap((c1,), np.mean, n_resamples=20_000, method="BCa", rng=np.random.default_rng(2))
    se = ref.standard_error
    assert abs(ours.ci.low[0] - ref.confidence_interval.low) < 0.15 * se
    assert abs(ours.ci.high[0] - ref.confidence_interval.high) < 0.15 * se
    pct = mean_cost(one, n_resamples=20_000, rng=1, method="percentile")
    assert ref.confidence_interval.high - pct.ci.high[0] > 0.5 * se  # BCa moves the upper end out (skew)
    assert ours.estimate[0] == pytest.approx(c1.mean(), rel=1e-14)


def test_bca_two_tasks_matches_scipy_stratified():
    df, c1, c2 = _skewed()
    ours = mean_cost(df, n_resamples=20_000, rng=1)

    def pooled(a, b, axis=-1):
        return (a.sum(axis) + b.sum(axis)) / (a.shape[axis] + b.shape[axis])

    ref = stats.bootstrap((c1, c2), pooled, n_resamples=20_000, method="BCa", vectorized=True,
                          rng=np.random.default_rng(2))
    se = ref.standard_error
    assert abs(ours.ci.low[0] - ref.confidence_interval.low) < 0.15 * se
    assert abs(ours.ci.high[0] - ref.confidence_interval.high) < 0.15 * se
    assert ours.se[0] == pytest.approx(se, rel=0.05)  # two bootstrap SDs of 20,000 replicates each
    assert ours.estimate[0] == pytest.approx(np.concatenate([c1, c2]).mean(), rel=1e-14)


def test_jackknife_is_the_delete_one_pooled_mean():
    df, c1, c2 = _skewed()
    _, jack, strata = joint_bootstrap(df, n_resamples=50, rng=0).jackknife()
    total, n = c1.sum() + c2.sum(), c1.size + c2.size
    by_hand = np.concatenate([(total - c1) / (n - 1), (total - c2) / (n - 1)])
    np.testing.assert_allclose(jack[:, 0], by_hand, rtol=1e-13)
    assert strata.tolist() == [0] * 40 + [1] * 25


def test_t_interval_matches_scipy(results):
    one = results[results["task"] == "t1"]
    est = mean_cost(one, method="t")
    for k, model in enumerate(est.models):
        c = one.loc[one["model"] == model, "cost"].to_numpy()
        lo, hi = stats.t.interval(0.95, c.size - 1, loc=c.mean(), scale=stats.sem(c))
        assert est.ci.low[k] == pytest.approx(lo, rel=1e-12)
        assert est.ci.high[k] == pytest.approx(hi, rel=1e-12)
        assert est.se[k] == pytest.approx(stats.sem(c), rel=1e-12)
    assert est.method == "t" and est.df[0] == 149


def test_t_with_clusters_matches_statsmodels(make):
    sm = pytest.importorskip("statsmodels.api")
    df = make({"A": (0.7, 1.0), "B": (0.6, 0.5)}, n_items=90, clusters=15)
    est = mean_cost(df, method="t")
    for k, model in enumerate(est.models):
        sub = df[df["model"] == model]
        fit = sm.OLS(sub["cost"].to_numpy(), np.ones(len(sub))).fit(
            cov_type="cluster", cov_kwds={"groups": pd.factorize(sub["cluster"])[0]})
        assert est.se[k] == pytest.approx(fit.bse[0], rel=1e-10)
    assert est.df[0] == 14  # clusters - tasks


def test_missing_costs_are_left_out_and_counted(results):
    df = results.copy()
    df.loc[(df["model"] == "A") & (df["item"].isin(["t1-3", "t2-9"])), "cost"] = np.nan
    for method in ("t", "bca"):
        est = mean_cost(df, method=method, n_resamples=200, rng=0)
        frame = est.to_frame().set_index("model")
        assert frame.loc["A", "n_items"] == 298 and frame.loc["A", "missing_items"] == 2
        assert frame.loc["A", "cost"] == pytest.approx(df.loc[df["model"] == "A", "cost"].mean(), rel=1e-13)
        assert any("A: 2 of 300 items" in n for n in est.notes)


def test_percentile_is_the_quantiles_of_the_replicates(results):
    joint = joint_bootstrap(results, n_resamples=500, rng=4)
    est = mean_cost(results, method="percentile", replicates=joint)
    np.testing.assert_allclose(est.ci.low, np.quantile(joint.cost_samples, 0.025, axis=0), rtol=1e-13)
    np.testing.assert_allclose(est.ci.high, np.quantile(joint.cost_samples, 0.975, axis=0), rtol=1e-13)
    assert "CostEstimates" in repr(est) and len(repr(est)) < 2000


def test_summary_costs():
    frame = pd.DataFrame({"model": ["A", "B", "C"], "cost": [0.02, 0.01, 0.05], "sd": [0.01, 0.004, 0.02],
                          "n": [100, 50, 10]})
    est = cost_from_summary(frame)
    se = frame["sd"].to_numpy() / np.sqrt(frame["n"].to_numpy())
    np.testing.assert_allclose(est.se, se, rtol=1e-14)
    np.testing.assert_allclose(est.ci.high, frame["cost"] + stats.t.ppf(0.975, frame["n"] - 1) * se, rtol=1e-12)
    assert est.method == "t" and not est.paired
    normal = cost_from_summary(frame[["model", "cost"]].assign(se=se))
    np.testing.assert_allclose(normal.ci.low, frame["cost"] - stats.norm.ppf(0.975) * se, rtol=1e-12)
    known = cost_from_summary(frame[["model", "cost"]])
    assert known.method == "known" and np.array_equal(known.ci.low, known.estimate)
    assert any("taken as exact" in n for n in known.notes)


def test_summary_errors_name_row_and_column():
    with pytest.raises(InputError, match="row 1, column 'se': se -0.1 must be a finite number >= 0"):
        cost_from_summary(pd.DataFrame({"model": ["A", "B"], "cost": [1.0, 2.0], "se": [0.1, -0.1]}))
    with pytest.raises(InputError, match="model 'A' is listed twice"):
        cost_from_summary(pd.DataFrame({"model": ["A", "A"], "cost": [1.0, 2.0]}))
    with pytest.raises(InputError, match="needs the number of items"):
        cost_from_summary(pd.DataFrame({"model": ["A"], "cost": [1.0], "sd": [0.3]}))
    with pytest.raises(InputError, match="needs a 'cost' column"):
        cost_from_summary(pd.DataFrame({"model": ["A"], "usd": [1.0]}))


def test_bad_arguments(results):
    with pytest.raises(ValueError, match="`method` must be one of 'bca', 'percentile', 'basic', 't'"):
        mean_cost(results, method="wald")
    with pytest.raises(ValueError, match="`confidence_level`"):
        mean_cost(results, method="t", confidence_level=95)
    with pytest.raises(InputError, match="no 'latency' column"):
        mean_cost(results.drop(columns="latency"), cost="latency", method="t")
