"""Joint replicates of quality and cost.

Oracles: the bootstrap engine itself (the quality replicates must equal ``evalband.resample.bootstrap`` for the
same seed, and so must its jackknife), and the draws rebuilt by hand: the engine's counts for a task come from
``draw_counts(block_generator(run_entropy(default_rng(seed)), (crc32(task), block)), K, B)``, and every replicate's
quality and mean cost are recomputed from those counts with plain NumPy. If quality and cost were drawn from
different items, the cost check would fail.
"""

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband import InputError
from evalband._random import block_generator, name_key, run_entropy
from evalband.costs import joint_bootstrap
from evalband.resample import draw_counts


def test_quality_replicates_equal_the_engine(results):
    table = eb.read(results)
    joint = joint_bootstrap(table, n_resamples=400, rng=7)
    plain = eb.bootstrap(table, n_resamples=400, rng=7)
    np.testing.assert_array_equal(joint.quality.replicates, plain.replicates)
    np.testing.assert_array_equal(joint.quality.observed, plain.observed)
    np.testing.assert_array_equal(joint.quality.jackknife(), plain.jackknife())
    assert joint.quality.seed == 7 and joint.quality.models == plain.models


def test_clusters_and_trials_equal_the_engine(make):
    df = make({"A": (0.7, 1.0), "B": (0.6, 0.5)}, n_items=60, clusters=12)
    df = pd.concat([df.assign(trial=0), df.assign(trial=1, score=1 - df["score"])], ignore_index=True)
    table = eb.read(df)
    joint = joint_bootstrap(table, n_resamples=300, rng=3)
    plain = eb.bootstrap(table, n_resamples=300, rng=3)
    assert joint.quality.unit == "cluster"
    np.testing.assert_allclose(joint.quality.replicates, plain.replicates, rtol=0, atol=1e-15)
    assert any("trials" in n for n in joint.notes)


def test_cost_replicates_come_from_the_same_item_draws(results):
    b, seed = 300, 11
    table = eb.read(results)
    joint = joint_bootstrap(table, n_resamples=b, rng=seed)
    entropy = run_entropy(np.random.default_rng(seed))
    cost_sum = np.zeros((b, 3))
    cost_n = np.zeros((b, 3))
    for t, task in enumerate(table.tasks):
        td = table.task_data(task)
        counts = draw_counts(block_generator(entropy, (name_key(task), 0)), td.n_items, b)  # one block: B <= 1000
        np.testing.assert_allclose(joint.quality.replicates[:, :, t], counts @ td.scores.T / td.n_items,
                                   rtol=1e-13)
        cost = (results[results["task"] == task].pivot(index="item", columns="model", values="cost")
                .loc[td.items, list(table.models)].to_numpy())
        cost_sum += counts @ cost
        cost_n += counts.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(joint.cost_samples, cost_sum / cost_n, rtol=1e-12)
    by_hand = results.groupby("model", sort=False)["cost"].mean().loc[list(table.models)].to_numpy()
    np.testing.assert_allclose(joint.cost_observed, by_hand, rtol=1e-13)


def test_missing_costs_are_counted_and_left_out(results):
    df = results.copy()
    df.loc[(df["model"] == "B") & (df["item"].isin(["t1-0", "t1-1", "t2-5"])), "cost"] = np.nan
    joint = joint_bootstrap(df, n_resamples=100, rng=0)
    k = joint.models.index("B")
    assert joint.missing_items.tolist() == [0, 3, 0] and joint.missing_rows[k] == 3
    assert any("B: 3 of 300 items, 3 blank rows" in n for n in joint.notes)
    assert joint.observed_items.sum(-1)[k] == 297
    np.testing.assert_allclose(joint.cost_observed[k], df.loc[df["model"] == "B", "cost"].mean(), rtol=1e-13)
    frame = joint.to_frame()
    assert list(frame.columns) == ["model", "cost", "cost_se", "items", "missing_items", "missing_rows"]
    assert len(repr(joint)) < 2000 and "<table" in joint._repr_html_()


def test_model_order_does_not_matter(results):
    a = joint_bootstrap(results, n_resamples=200, rng=5)
    moved = pd.concat([results[results["model"] == "C"], results[results["model"] != "C"]])
    b = joint_bootstrap(moved, n_resamples=200, rng=5)
    assert b.models == a.models == ("A", "B", "C")  # labels in natural order, whatever the rows' order (issue 14)
    order = [b.models.index(m) for m in a.models]
    np.testing.assert_allclose(b.cost_samples[:, order], a.cost_samples, rtol=1e-12)
    np.testing.assert_allclose(b.quality.replicates[:, order], a.quality.replicates, rtol=1e-12)


def test_row_order_does_not_matter(results):  # the table orders items canonically (issue 14)
    a = joint_bootstrap(results, n_resamples=200, rng=5)
    b = joint_bootstrap(results.sample(frac=1.0, random_state=1), n_resamples=200, rng=5)
    np.testing.assert_allclose(b.cost_samples, a.cost_samples, rtol=1e-12)


def test_errors_name_the_problem(results):
    with pytest.raises(InputError, match="no 'cost' column"):
        joint_bootstrap(results.drop(columns="cost"), n_resamples=10)
    df = results.copy()
    df.loc[df["model"] == "C", "cost"] = np.nan
    with pytest.raises(InputError, match="model 'C' has no cost on any item"):
        joint_bootstrap(df, n_resamples=10)
    with pytest.raises(ValueError, match="`n_resamples`"):
        joint_bootstrap(results, n_resamples=1)
    lacking = results[~((results["model"] == "C") & (results["task"] == "t2"))]
    # the selection rule (evalband.select): a task some model lacks is left out and named, as in rank and compare;
    # naming it in `tasks` is an error naming it
    reps = joint_bootstrap(lacking, n_resamples=10)
    assert reps.tasks == ("t1",) and any("task 't2' left out: C has no results on it" in n for n in reps.notes)
    with pytest.raises(InputError, match="task 't2' \\(in `tasks`\\): C has no results on it"):
        joint_bootstrap(lacking, n_resamples=10, tasks=["t1", "t2"])
