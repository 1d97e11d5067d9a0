"""The table-level entry ``estimate``: bundled examples, method resolution, pooled rows, what is reported."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from statsmodels.stats.proportion import proportion_confint

from evalband import load_example
from evalband.estimation import POOLED, estimate
from evalband.data.table import ResultsTable


@pytest.fixture(scope="module")
def vtab():
    return load_example("vtab")


@pytest.fixture(scope="module")
def mmlu():
    return load_example("mmlu-pro")


def test_vtab_wilson_matches_statsmodels(vtab):
    res = estimate(vtab)
    assert res.method == "wilson" and res.estimate.shape == (16, 19)
    counts = vtab.counts()
    low, high = proportion_confint(counts.correct, counts.n, alpha=0.05, method="wilson")
    assert np.allclose(res.ci.low, low, atol=1e-12) and np.allclose(res.ci.high, high, atol=1e-12)
    assert np.array_equal(res.estimate, counts.correct / counts.n)
    # sane: estimate inside its interval, interval inside [0, 1], about +/- 1.96 SE at these n (>= 711)
    assert ((res.ci.low < res.estimate) & (res.estimate < res.ci.high)).all()
    assert ((res.ci.low >= 0) & (res.ci.high <= 1)).all()
    assert np.allclose(res.ci.high - res.ci.low, 2 * 1.959964 * res.se, rtol=0.01)
    # pooled: the pooled proportion of each model
    pooled_p = counts.correct.sum(axis=1) / counts.n.sum(axis=1)
    assert np.allclose(res.pooled.estimate, pooled_p)
    lo, hi = proportion_confint(counts.correct.sum(axis=1), counts.n.sum(axis=1), alpha=0.05, method="wilson")
    assert np.allclose(res.pooled.ci.low, lo) and np.allclose(res.pooled.ci.high, hi)


def test_vtab_any_method_and_level(vtab):
    res = estimate(vtab, method="exact", confidence_level="overlap")
    assert res.method == "clopper-pearson" and res.confidence_level == 0.834
    counts = vtab.counts()
    low, high = proportion_confint(counts.correct, counts.n, alpha=0.166, method="beta")
    assert np.allclose(res.ci.low, low) and np.allclose(res.ci.high, high)


def test_to_frame_columns_and_pooled_rows(vtab):
    res = estimate(vtab)
    frame = res.to_frame()
    assert list(frame.columns[:8]) == ["model", "task", "estimate", "se", "ci_low", "ci_high", "n", "method"]
    assert len(frame) == 16 * 19
    both = res.to_frame(pooled=True)
    assert len(both) == 16 * 20
    first = both.iloc[:20]
    assert (first["model"] == vtab.models[0]).all() and first["task"].iloc[-1] == POOLED
    assert first["estimate"].iloc[-1] == pytest.approx(res.pooled.estimate[0])


def test_mmlu_pro_clusters_and_known_accuracy(mmlu):
    with pytest.warns(UserWarning, match="few clusters: 14 of 14 task"):
        res = estimate(mmlu)
    assert res.method == "cluster"
    k = mmlu.models.index("Meta-Llama-3-70B")
    # known answer (data README): column mean over answered questions 0.5201
    assert round(res.pooled.estimate[k], 4) == 0.5201
    assert res.pooled.extras["n_clusters"][k] == 91
    assert any("few clusters" in n for n in res.notes)
    # one cell against statsmodels' cluster-robust OLS
    data = mmlu.data
    cell = data[(data["model"] == "Meta-Llama-3-70B") & (data["task"] == "physics")]
    y = cell["score"].to_numpy()
    g = pd.factorize(cell["cluster"].astype(str))[0]
    fit = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
    t = mmlu.tasks.index("physics")
    assert res.se[k, t] == pytest.approx(fit.bse[0], rel=1e-10)
    assert res.extras["n_clusters"][k, t] == len(np.unique(g)) and res.extras["df"][k, t] == len(np.unique(g)) - 1
    # models that do not cover every item: each is estimated on its own items, and the notes say so
    d = mmlu.models.index("DeepSeek-Coder-V2")
    assert res.n[d].sum() == 12032 - 1681 and res.n[k].sum() == 12032
    assert any(n.startswith("coverage:") and "DeepSeek-Coder-V2" in n for n in res.notes)


def test_mmlu_pro_cluster_false_uses_wilson_and_says_so(mmlu):
    res = estimate(mmlu, cluster=False)
    assert res.method == "wilson"
    res = estimate(mmlu, method="t")
    assert any("clusters ignored by method 't'" in n for n in res.notes)


def _items(**cols):
    return ResultsTable.from_items(pd.DataFrame(cols))


def test_binary_items_default_wilson_and_t_option():
    table = _items(model=["a"] * 6 + ["b"] * 6, task="x", item=list(range(6)) * 2,
                   score=[1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0])
    res = estimate(table)
    assert res.method == "wilson"
    assert res.n.tolist() == [[6], [6]] and res.estimate[:, 0].tolist() == pytest.approx([4 / 6, 1 / 6])
    t = estimate(table, method="t", confidence_level=0.9)
    assert t.extras["df"].tolist() == [[5], [5]]
    assert t.se[0, 0] == pytest.approx(np.std([1, 1, 0, 1, 0, 1], ddof=1) / np.sqrt(6))


def test_unbounded_scores_only_with_mean_methods():
    table = ResultsTable.from_items(pd.DataFrame({"model": "m", "task": "t", "item": range(5),
                                                  "score": [3.0, -1.0, 12.5, 0.0, 7.0]}), unbounded=True)
    assert estimate(table).method == "t"
    with pytest.raises(ValueError, match="method 'wilson' does not apply: scores are unbounded; applicable: t,"
                                         " normal"):
        estimate(table, method="wilson")


def test_summary_refuses_mean_methods(vtab):
    with pytest.raises(ValueError, match="method 't' does not apply: the table holds per-task summaries;"
                                         " applicable: wilson, clopper-pearson, jeffreys, agresti-coull, wald"):
        estimate(vtab, method="t")
    with pytest.raises(ValueError, match="`method` must be one of 'auto', 'crossed', 'wilson'"):
        estimate(vtab, method="bootstrapp")
    with pytest.raises(ValueError, match="cluster-robust errors need a cluster column"):
        estimate(vtab, cluster=True)


def test_trials_average_within_item_and_decompose():
    rng = np.random.default_rng(3)
    rows = [{"model": "m", "task": "t", "item": i, "trial": j, "score": float(rng.uniform() < (i % 5) / 5)}
            for i in range(40) for j in range(4 if i % 2 else 2)]
    table = ResultsTable.from_items(pd.DataFrame(rows))
    res = estimate(table)
    assert res.method == "t" and res.n[0, 0] == 40
    means = pd.DataFrame(rows).groupby("item")["score"].mean()
    assert res.estimate[0, 0] == pytest.approx(means.mean())
    assert res.se[0, 0] == pytest.approx(means.std(ddof=1) / np.sqrt(40))
    assert res.extras["mean_trials"][0, 0] == 3.0
    assert {"var_between", "var_within", "k_enough"} <= set(res.extras)
    tv = res.trial_variance()
    assert tv.var_within.shape == (1, 1) and tv.reduction(1)[0, 0] == 0.0
    assert tv.k_enough()[0, 0] == res.extras["k_enough"][0, 0]
    assert estimate(table, method="t").trial_variance() is not None
    assert any("trial counts differ" in n for n in res.notes)
    with pytest.raises(ValueError, match="applicable: t, normal"):
        estimate(table, method="wilson")


def test_missing_cell_is_nan_and_reported():
    table = _items(model=["a", "a", "a", "b", "b"], task=["x", "x", "y", "x", "x"], item=[1, 2, 3, 1, 2],
                   score=[1, 0, 1, 1, 1])
    res = estimate(table, method="t")
    assert res.trial_variance() is None
    assert np.isnan(res.estimate[1, 1]) and res.n[1, 1] == 0
    assert any("1 model-task cell(s) have no result" in n and "b on y" in n for n in res.notes)


def test_cluster_with_trials_uses_item_means(rng):
    rows = [{"model": "m", "task": "t", "item": i, "trial": j, "cluster": i // 4, "score": rng.normal()}
            for i in range(160) for j in range(3)]
    table = ResultsTable.from_items(pd.DataFrame(rows), unbounded=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = estimate(table)
    assert res.method == "cluster" and res.extras["n_clusters"][0, 0] == 40
    means = pd.DataFrame(rows).groupby("item")["score"].mean().to_numpy()
    g = np.arange(160) // 4
    fit = sm.OLS(means, np.ones(160)).fit(cov_type="cluster", cov_kwds={"groups": g})
    assert res.se[0, 0] == pytest.approx(fit.bse[0])


def test_result_frames(vtab):
    from evalband.estimation import proportion_interval

    est = proportion_interval([[3, 4]], [[10, 10]])
    frame = est.to_frame()
    assert frame.columns.tolist() == ["estimate", "se", "ci_low", "ci_high", "n", "method"]
    assert frame["estimate"].tolist() == [0.3, 0.4] and frame["n"].tolist() == [10, 10]
    res = estimate(vtab)
    one = res[vtab.models[1]]
    assert len(one) == 19 and (one["model"] == vtab.models[1]).all()
    assert one["estimate"].tolist() == res.estimate[1].tolist()


def test_proportion_method_on_rows_per_item_names_the_real_reason():
    # issue 22: `--method wilson` on data with a prompt facet said "scores are binary; applicable: t, normal":
    # the reason is that items have several rows, and the default method crossed is applicable
    import pandas as pd

    from evalband import estimate
    from evalband._validate import ArgumentError, InputError

    facet = pd.DataFrame({"model": "m", "task": "t", "item": np.repeat(np.arange(20), 3),
                          "prompt": np.tile(["p1", "p2", "p3"], 20), "score": np.tile([1, 0, 1, 1], 15)})
    with pytest.raises(InputError, match=r"several rows \(facet prompt\).*applicable: crossed, t, normal"):
        estimate(facet, method="wilson")
    trials = facet.rename(columns={"prompt": "trial"})
    with pytest.raises(InputError, match=r"several rows \(repeated trials\).*applicable: t, normal"):
        estimate(trials, method="wilson")
    assert estimate(facet, method="crossed").method == "crossed"
    with pytest.raises(ArgumentError, match="no facet crossed with items"):
        estimate(facet.drop(columns="prompt").drop_duplicates(["item"]), method="crossed")
