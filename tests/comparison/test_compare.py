"""compare(): one replicate set behind every pair, item-level pairing, summary-level correlation sweep."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalband import load_example
from evalband.comparison import compare, mcnemar_exact, paired_difference
from evalband.resample import bootstrap
from evalband.data.table import ResultsTable

VTAB3 = ["Sup-Rotation-100%", "Sup-Exemplar-100%", "Sup-100%"]


@pytest.fixture(scope="module")
def items():
    """Three correlated binary models on two tasks (300 and 200 items)."""
    gen = np.random.default_rng(42)
    rows = []
    for task, n, p in (("t1", 300, (0.75, 0.70, 0.55)), ("t2", 200, (0.60, 0.62, 0.40))):
        u = gen.standard_normal((n, 1))
        z = np.sqrt(0.5) * u + np.sqrt(0.5) * gen.standard_normal((n, 3))
        x = (z < stats.norm.ppf(p)).astype(int)
        for m, name in enumerate(("m1", "m2", "m3")):
            rows.append(pd.DataFrame({"model": name, "task": task, "item": np.arange(n), "score": x[:, m]}))
    return ResultsTable.from_items(pd.concat(rows, ignore_index=True))


def test_item_level_pairs_analytic_se_mcnemar_and_permutation(items):
    c = compare(items, n_resamples=4000, rng=1, permutation=True, n_permutations=999)
    assert c.paired and len(c.aggregates) == 1 and len(c.tasks) == 2
    agg = c.aggregates[0]
    f = c.to_frame()
    assert list(f.columns[:3]) == ["aggregate", "model_a", "model_b"]
    assert np.all(agg.difference >= 0)  # oriented best first
    # the bootstrap SD of the mean difference agrees with the analytic paired SE (Monte Carlo error ~1.1%)
    np.testing.assert_allclose(agg.se, agg.se_analytic, rtol=0.06)
    assert np.all(agg.correlation > 0.1)
    # per task: analytic SE, correlation and McNemar equal the direct computations on the task's items
    t1 = c["t1"]
    td = items.task_data("t1")
    ia, ib = t1.index_a, t1.index_b
    direct = paired_difference(td.scores[ia], td.scores[ib])
    np.testing.assert_allclose(t1.se_analytic, direct.se)
    np.testing.assert_allclose(t1.correlation, direct.correlation)
    np.testing.assert_allclose(t1.p_mcnemar, mcnemar_exact(td.scores[ia], td.scores[ib]).p_value)
    assert np.all((t1.p_permutation > 0) & (t1.p_permutation <= 1))
    # equal-weight mean of two tasks: aggregate analytic variance = sum of (1/2)^2 task variances
    t2 = c["t2"]
    pos = {(a, b): k for k, (a, b) in enumerate(zip(t2.model_a, t2.model_b))}
    for k, (a, b) in enumerate(zip(agg.model_a, agg.model_b)):
        k1 = dict(((x, y), i) for i, (x, y) in enumerate(zip(t1.model_a, t1.model_b)))
        v1 = t1.se_analytic[k1[(a, b)] if (a, b) in k1 else k1[(b, a)]] ** 2
        v2 = t2.se_analytic[pos[(a, b)] if (a, b) in pos else pos[(b, a)]] ** 2
        assert agg.se_analytic[k] == pytest.approx(np.sqrt(v1 + v2) / 2, rel=1e-10)


def test_same_seed_same_numbers_and_model_order(items):
    a = compare(items, n_resamples=500, rng=3, per_task=False).to_frame()
    b = compare(items, n_resamples=500, rng=3, per_task=False).to_frame()
    pd.testing.assert_frame_equal(a, b)
    reps = bootstrap(items, n_resamples=500, rng=3)
    c = compare(reps, models=["m3", "m1", "m2"], per_task=False).to_frame()
    key = ["model_a", "model_b"]
    pd.testing.assert_frame_equal(a.sort_values(key).reset_index(drop=True)[["difference", "ci_low", "ci_high"]],
                                  c.sort_values(key).reset_index(drop=True)[["difference", "ci_low", "ci_high"]])


def test_corrections_widen_intervals_and_adjust_p_values(items):
    reps = bootstrap(items, n_resamples=3000, rng=5)
    res = {c: compare(items, replicates=reps, correction=c, per_task=False).aggregates[0]
           for c in ("none", "bonferroni", "holm", "bh", "max-t")}
    w = {c: r.ci.width for c, r in res.items()}
    assert np.all(w["bonferroni"] > w["none"]) and np.all(w["max-t"] > w["none"])
    assert res["bonferroni"].interval_level == pytest.approx(1 - 0.05 / 3)
    assert np.all(res["holm"].p_adjusted >= res["none"].p_value)
    assert np.all(res["holm"].p_adjusted <= res["bonferroni"].p_adjusted)
    assert np.all(res["bh"].p_adjusted <= res["holm"].p_adjusted)
    assert "simultaneous CI" in res["max-t"].readings[0]


def test_margin_gives_equivalence():
    gen = np.random.default_rng(0)
    n = 4000
    x = (gen.random(n) < 0.7).astype(int)
    y = np.where(gen.random(n) < 0.97, x, 1 - x)  # nearly the same model
    df = pd.DataFrame({"model": np.repeat(["a", "b"], n), "task": "t", "item": np.tile(np.arange(n), 2),
                       "score": np.r_[x, y]})
    c = compare(ResultsTable.from_items(df), n_resamples=2000, rng=1, margin=0.02, per_task=False)
    assert c.aggregates[0].verdict[0] == "equivalent"
    # the interval (0.75, 1.82) points excludes 0 but lies inside the 2-point margin (QA O28: say both)
    assert c.aggregates[0].readings[0].endswith("; equivalent: a better, but by less than the 2-point margin")


def test_lower_is_better_aggregate_orientation(items):
    c = compare(items, aggregate="mean,mean-rank", n_resamples=500, rng=2, per_task=False)
    mean, mr = c["mean"], c["mean-rank"]
    assert not mr.higher_is_better and np.all(mr.difference <= 0)
    assert np.all(np.isnan(mr.se_analytic)) and np.all(np.isfinite(mean.se_analytic))
    decided = mr.verdict == "A better"
    assert np.all(mr.ci.high[decided] < 0)


def test_summary_data_sweep_assumed_correlation():
    table = load_example("vtab").select(models=VTAB3)
    c = compare(table, n_resamples=4000, rng=7, per_task=False)
    assert not c.paired and any("no pairing" in n for n in c.notes)
    sens = c.to_frame("sensitivity")
    assert sorted(sens["assumed_correlation"].unique()) == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    main = c.aggregates[0]
    at0 = sens[sens.assumed_correlation == 0.0]
    np.testing.assert_allclose(at0["ci_low"], main.ci.low)
    # bootstrap SD of each difference follows the analytic binomial SE at every assumed correlation (MC ~1.1%)
    np.testing.assert_allclose(sens["se"], sens["se_analytic"], rtol=0.05)
    # a larger assumed correlation can only shrink the difference's SE: sqrt(1 - rho) at equal variances
    se = sens.pivot_table(index=["model_a", "model_b"], columns="assumed_correlation", values="se_analytic")
    assert np.all(np.diff(se.to_numpy(), axis=1) < 0)
    assert np.all(c.to_frame()["verdict_by_correlation"].str.contains(" at 0"))
    assert "assumed correlation 0 to 0.5" in main.readings[0]
    c3 = compare(table, n_resamples=4000, rng=7, per_task=False, correlation=0.3)
    assert c3.aggregates[0].assumed_correlation == 0.3
    # correlation of the two aggregate estimates: rho weighted by sqrt(v_A v_B), at most rho (Cauchy-Schwarz)
    corr = c3.aggregates[0].correlation
    assert np.all(corr <= 0.3) and np.all(corr > 0.29)


def test_aggregate_parameters_after_colon(items):
    c = compare(items, aggregate="binned-rank:0.05,optimality-gap:0.9", n_resamples=200, rng=1, per_task=False)
    binned, gap = c["binned-rank:0.05"], c["optimality-gap:0.9"]
    assert not binned.higher_is_better and not gap.higher_is_better
    assert "(lower is better)" in binned.readings[0] and "points (lower is better)" in gap.readings[0]
    with pytest.raises(ValueError, match="binned-rank:<bin_width>"):
        compare(items, aggregate="mean:2", n_resamples=10)


def test_errors(items):
    with pytest.raises(ValueError, match="'max-t'"):
        compare(items, correction="tukey", n_resamples=10)
    with pytest.raises(ValueError, match="summary-level"):
        compare(items, correlation=0.2, n_resamples=10)
    with pytest.raises(ValueError, match="at least 2 models"):
        compare(items, models=["m1"], n_resamples=10)
    with pytest.raises(ValueError, match="resampling"):
        compare(items, resampling="stratified", n_resamples=10)
    with pytest.raises(ValueError, match="margin"):
        compare(items, margin=-1, n_resamples=10)


def test_per_task_auto_leaves_out_huge_per_task_tables_with_a_note(monkeypatch):
    """per_task='auto': every task's pairs while pairs x tasks is at most PER_TASK_ROWS, else none, said in a note;
    True and permutation=True always compare within tasks."""
    from evalband.comparison import comparison as module

    vtab = load_example("vtab")  # 120 pairs x 19 tasks = 2,280 pair rows
    assert len(compare(vtab, n_resamples=200, rng=1).tasks) == 19
    monkeypatch.setattr(module, "PER_TASK_ROWS", 2279)
    out = compare(vtab, n_resamples=200, rng=1)
    assert out.tasks == () and any("per-task comparisons left out: 120 pairs x 19 tasks is 2,280 pair rows" in n
                                   for n in out.notes)
    assert len(compare(vtab, n_resamples=200, rng=1, per_task=True).tasks) == 19
    assert not any("per-task" in n for n in compare(vtab, n_resamples=200, rng=1, per_task=False).notes)
