"""``evalband.subset.choose`` and ``estimate``: the designs, the estimates, bad input, and the contract of issue 25.

Oracles: theory (inclusion probabilities n_h / N_h summing to the budget; the design estimate of a simple random
sample is the sample mean; row order does not change a seeded result), and a real dataset's known answer: on
MMLU-Pro (29 models, leave-one-model-out, 200 random items) the prediction-assisted 95% interval covers the
model's full accuracy for at least 26 of 29 models and is on average narrower than the design-based one.
"""

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband._validate import InputError
from evalband.subset import choose, estimate
from subset.synthetic import on_items, synthetic


@pytest.fixture(scope="module")
def data():
    return synthetic()


@pytest.mark.parametrize("method", ["random", "stratified"])
def test_choose_gives_each_item_its_inclusion_probability(data, method):
    ref, _ = data
    c = choose(ref, 90, method=method, rng=1)
    f = c.to_frame()
    assert list(f.columns[:3]) == ["task", "item", "inclusion_prob"]
    assert len(f) == 90 and not f.duplicated(["task", "item"]).any()
    # each stratum: n_h / N_h; the inverse probabilities add up to the benchmark
    assert (1 / f["inclusion_prob"]).sum() == pytest.approx(600)
    for h, part in f.groupby("stratum"):
        row = c.strata.set_index("stratum").loc[h]
        assert part["inclusion_prob"].iloc[0] == pytest.approx(row["n_chosen"] / row["n_items"])
        assert len(part) == row["n_chosen"] >= 2
    if method == "stratified":
        assert len(c.strata) == 12  # 3 tasks x 4 difficulty bins (2 items each fit in 90)
    assert "90 of 600 items" in repr(c)


def test_choose_is_the_same_in_any_row_order(data):
    ref, _ = data
    a = choose(ref, 50, method="stratified", rng=4).to_frame()
    b = choose(ref.sample(frac=1, random_state=2), 50, method="stratified", rng=4).to_frame()
    pd.testing.assert_frame_equal(a, b)


def test_estimate_design_row_is_the_sample_mean_and_pa_is_valid(data):
    ref, new = data
    picked = choose(ref, 120, rng=2).to_frame()
    sub = on_items(new, picked)
    res = estimate(ref, sub, items=picked, rng=0)
    f = res.to_frame().set_index("method")
    assert f.loc["design", "estimate"] == pytest.approx(sub["score"].mean())
    assert f.loc["design", "effective_n"] == pytest.approx(120)
    assert (f["n_evaluated"] == 120).all() and (f["n_items"] == 600).all()
    pa = f.loc["prediction-assisted"]
    assert pa["ci_low"] < pa["estimate"] < pa["ci_high"]
    # a poor prediction (12 reference models, 120 items) costs little; the gain is measured on MMLU-Pro below
    assert pa["se"] <= 1.05 * f.loc["design", "se"]
    assert pa["effective_n"] == pytest.approx(120 * (f.loc["design", "se"] / pa["se"]) ** 2, rel=0.05)
    # the same without the items file (a simple random sample is assumed, with a note)
    res2 = estimate(ref, sub, rng=0)
    assert res2.to_frame()["estimate"].tolist() == pytest.approx(res.to_frame()["estimate"].tolist())
    assert any("simple random sample" in n for n in res2.notes)
    # rows in another order: the same numbers
    res3 = estimate(ref, sub.sample(frac=1, random_state=5), items=picked, rng=0)
    pd.testing.assert_frame_equal(res.to_frame(), res3.to_frame())


def test_estimate_stratified_and_differences_with_verdicts(data):
    ref, new = data
    picked = choose(ref, 120, method="stratified", rng=3).to_frame()
    res = estimate(ref, on_items(new, picked), items=picked, against="m0", margin=0.01, rng=0)
    assert res.design.startswith("stratified")
    d = res.differences_frame().set_index("method")
    full_new, full_m0 = new["score"].mean(), ref.loc[ref["model"] == "m0", "score"].mean()
    assert set(d["verdict"]) <= {"A better", "B better", "equivalent", "not yet decided"}
    assert (d["ci_low"] < d["ci_high"]).all()
    f = res.to_frame().set_index("method")
    # the prediction-assisted difference uses the prediction and m0's own scores as controls: slopes (0, 1) are
    # the design difference, so it is not wider (up to the degrees of freedom of the slopes)
    assert d.loc["prediction-assisted", "se"] <= 1.05 * d.loc["design", "se"]
    assert abs(d.loc["prediction-assisted", "difference"] - (full_new - full_m0)) < 6 * d.loc["design", "se"]
    assert abs(f.loc["prediction-assisted", "estimate"] - full_new) < 6 * f.loc["design", "se"]
    assert abs(d.loc["design", "difference"] - (full_new - full_m0)) < 6 * d.loc["design", "se"]


def test_bad_items_files_are_one_line_naming_the_row(data, tmp_path):
    ref, new = data
    picked = choose(ref, 40, rng=2).to_frame()
    sub = on_items(new, picked)
    bad = picked.copy()
    bad.loc[3, "inclusion_prob"] = 1.5
    path = tmp_path / "items.csv"
    bad.to_csv(path, index=False)
    with pytest.raises(InputError, match=r"items.csv, row 5, column 'inclusion_prob': 1.5 is not a probability"):
        estimate(ref, sub, items=path)
    bad = picked.copy()
    bad.loc[2, "item"] = "nope"
    bad.to_csv(path, index=False)
    with pytest.raises(InputError, match=r"row 4: task 't\d', item 'nope' is not an item of the reference"):
        estimate(ref, sub, items=path)
    bad = picked.drop(columns="stratum")
    bad.loc[1, "inclusion_prob"] = 0.5
    bad.to_csv(path, index=False)
    with pytest.raises(InputError, match="row 3, column 'inclusion_prob'.*without a 'stratum' column"):
        estimate(ref, sub, items=path)
    outside = sub.copy()
    outside.loc[outside.index[0], "item"] = "zzz"
    with pytest.raises(InputError, match="not items of the reference benchmark.*item 'zzz'"):
        estimate(ref, outside)


def test_a_useless_reference_keeps_the_interval_valid():
    """Reference models that know nothing of the new model: the slope goes to ~0, the estimate to the design one."""
    ref, new = synthetic(seed=1)
    rng = np.random.default_rng(0)
    ref = ref.assign(score=rng.integers(0, 2, size=len(ref)).astype(float))
    picked = choose(ref, 150, rng=0).to_frame()
    f = estimate(ref, on_items(new, picked), items=picked, rng=0).to_frame().set_index("method")
    d, p = f.loc["design"], f.loc["prediction-assisted"]
    assert abs(p["estimate"] - d["estimate"]) < 0.5 * d["se"]
    assert p["se"] == pytest.approx(d["se"], rel=0.1)


@pytest.mark.slow
def test_contract_mmlu_pro_leave_one_model_out():
    """Issue 25's contract: >= 26 of 29 prediction-assisted intervals cover the full accuracy; narrower on average."""
    d = eb.load_example("mmlu-pro").data[["model", "task", "item", "score"]]
    d = d.astype({"model": str, "task": str, "item": str})
    covered, ratios = 0, []
    for k, m in enumerate(sorted(d["model"].unique())):
        ref, mine = d[d["model"] != m], d[d["model"] == m]
        picked = choose(ref, 200, rng=k).to_frame()
        f = estimate(ref, on_items(mine, picked), items=picked, rng=k).to_frame().set_index("method")
        p, des = f.loc["prediction-assisted"], f.loc["design"]
        truth = mine["score"].mean()  # the items the model has (3 models lack some)
        covered += p["ci_low"] <= truth <= p["ci_high"]
        ratios.append((p["ci_high"] - p["ci_low"]) / (des["ci_high"] - des["ci_low"]))
    assert covered >= 26
    assert np.mean(ratios) < 1
    print(f"covered {covered}/29, mean width ratio {np.mean(ratios):.3f}")
