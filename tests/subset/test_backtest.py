"""``evalband.subset.backtest``: leave-one-model-out coverage of both intervals, budget by budget.

Oracles: theory (coverage of the 95% intervals of the score and of the paired difference to a reference model,
judged with a one-sided binomial test; slow) on MMLU-Pro (29 real models, issue 25's evidence) and on VTAB-style
item data (the 16 models' published VTAB-1k accuracies on 19 tasks, items from a 2PL model); the truths written
out (each model's full mean, the difference's reference model the nearest in full score); invariance (a model's
runs do not depend on which other models are held out).
"""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

import evalband as eb
from evalband._validate import ArgumentError
from evalband.subset import backtest

from subset.synthetic import synthetic, vtab_style


@pytest.fixture(scope="module")
def data():
    ref, new = synthetic(n_ref=7, n_items=600, seed=4)
    return pd.concat([ref, new.assign(model="m7")], ignore_index=True)


def test_backtest_truths_and_the_reference_of_the_difference(data):
    bt = backtest(data, budgets=[40, 80], n_repeats=2, anchors=True, rng=3)
    runs = bt.runs
    full = data.groupby("model")["score"].mean()
    for model, g in runs.groupby("model"):
        assert np.allclose(g.loc[g["quantity"] == "score", "truth"], full[model])
        others = full.drop(model)
        nearest = (others - full[model]).abs().idxmin()
        assert (g["against"] == nearest).all()
        diff = g.loc[g["quantity"] == "difference", "truth"]
        assert np.allclose(diff, full[model] - full[nearest])
    anchors = runs[runs["method"].isin(["anchor points", "anchor IRT"])]
    assert len(anchors) == 8 * 2 * 2 and anchors["ci_low"].isna().all() and anchors["covered"].isna().all()
    f = bt.to_frame()
    assert set(f["method"]) == {"design", "prediction-assisted", "anchor points", "anchor IRT"}
    row = f[(f["budget"] == 40) & (f["quantity"] == "score") & (f["method"] == "design")].iloc[0]
    assert row["n"] == 16 and row["width_ratio"] == 1.0 and row["fraction_evaluated"] == pytest.approx(40 / 600)
    g = runs[(runs["budget"] == 40) & (runs["quantity"] == "score") & (runs["method"] == "design")]
    assert row["coverage"] == pytest.approx(g["covered"].mean())
    assert row["rmse"] == pytest.approx(np.sqrt(np.mean((g["estimate"] - g["truth"]) ** 2)))
    assert "leave-one-model-out over 8 models x 2 random samples" in repr(bt)


def test_a_models_runs_do_not_depend_on_the_others_held_out(data):
    whole = backtest(data, budgets=[60], n_repeats=2, method="stratified", rng=9).runs
    one = backtest(data, budgets=[60], n_repeats=2, method="stratified", models=["m3"], rng=9).runs
    pd.testing.assert_frame_equal(whole[whole["model"] == "m3"].reset_index(drop=True), one)


def test_backtest_input_checks(data):
    with pytest.raises(ArgumentError, match="`budgets` up to 400 leave too few"):
        backtest(data, budgets=[400])
    with pytest.raises(ArgumentError, match="`against` must be"):
        backtest(data, budgets=[50], against="nobody")
    with pytest.raises(ArgumentError, match="`models`: 'zz' not in"):
        backtest(data, budgets=[50], models=["zz"])
    named = backtest(data, budgets=[50], n_repeats=1, against="m0", rng=0).runs
    assert named.loc[named["model"] == "m0", "quantity"].eq("score").all()  # m0 held out: no difference to itself
    assert (named.loc[named["model"] != "m0", "against"] == "m0").all()


def _assert_coverage(bt):
    f = bt.to_frame()
    f = f[f["coverage"].notna()]
    assert len(f) == 16  # 4 budgets x (score, difference) x (design, prediction-assisted)
    for _, r in f.iterrows():
        hits = int(round(r["coverage"] * r["n"]))
        p = binomtest(hits, int(r["n"]), 0.95, alternative="less").pvalue
        assert p > 0.01, (r["budget"], r["quantity"], r["method"], r["coverage"])
    pa = f[f["method"] == "prediction-assisted"]
    assert (pa["width_ratio"] < 1).all()
    return f


@pytest.mark.slow
def test_coverage_on_mmlu_pro_leave_one_model_out():
    """29 models x 8 random samples per budget: 232 intervals per budget, quantity and method."""
    bt = backtest(eb.load_example("mmlu-pro"), n_repeats=8, rng=25, progress=False)
    f = _assert_coverage(bt)
    print(f[["budget", "quantity", "method", "coverage", "width_ratio"]].to_string())


@pytest.mark.slow
def test_coverage_on_vtab_style_items():
    """16 models x 12 random samples per budget (192 intervals), 19 tasks of 100 items, stratified by task."""
    bt = backtest(vtab_style(items_per_task=100, seed=1), n_repeats=12, method="stratified", rng=26,
                  progress=False)
    f = _assert_coverage(bt)
    print(f[["budget", "quantity", "method", "coverage", "width_ratio"]].to_string())
