"""QA O30: a selected model that lacks a whole task stopped `compare` and `rank` with "task 'law': the selected
models share no item", naming neither the model nor a way out.

Now the comparison runs on the tasks every selected model has, with a note naming the task and the model; a task
chosen with `tasks=` (`--tasks`) that a model lacks, and a selection with no task left, are one-line errors that
name the models and suggest `models` (`--models`). Oracle for the values: the same comparison on the table
restricted by hand to the shared tasks, with the same seed, and the per-task means computed with NumPy.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband import compare, rank
from evalband._validate import InputError
from evalband.cli.main import app
from evalband.data.table import ResultsTable

N = 60


def _items(missing=(("c", "law"),), tasks=("law", "math", "history"), models=("a", "b", "c"), seed=0):
    gen = np.random.default_rng(seed)
    rows = []
    for k, m in enumerate(models):
        for t in tasks:
            if (m, t) in missing:
                continue
            p = 0.5 + 0.1 * k
            rows += [(m, t, f"{t}-{i}", float(gen.random() < p)) for i in range(N)]
    return pd.DataFrame(rows, columns=["model", "task", "item", "score"])


def test_compare_leaves_out_the_task_and_says_who_lacks_it():
    df = _items()
    res = compare(ResultsTable.from_items(df), n_resamples=400, rng=5, per_task=False)
    assert res.tasks_left_out == {"law": ("c",)}
    assert "task 'law' left out: c has no results on it" in res.notes
    assert any("over the 2 tasks every selected model has (1 of 3 left out" in n for n in res.notes)
    assert res.replicates.tasks == ("history", "math")  # the canonical (natural) order of the table
    # oracle: the same call on the shared tasks chosen by hand, and the per-task means by hand
    ref = compare(ResultsTable.from_items(df), tasks=["math", "history"], n_resamples=400, rng=5, per_task=False)
    np.testing.assert_array_equal(res.aggregates[0].difference, ref.aggregates[0].difference)
    np.testing.assert_array_equal(res.aggregates[0].ci.low, ref.aggregates[0].ci.low)
    shared = df[df.task.isin(["math", "history"])]
    means = shared.groupby(["model", "task"])["score"].mean().groupby("model").mean()
    k = list(res.aggregates[0].model_a).index("c")
    assert res.aggregates[0].difference[k] == pytest.approx(means["c"] - means[res.aggregates[0].model_b[k]])


def test_rank_leaves_out_the_task():
    res = rank(ResultsTable.from_items(_items()), n_resamples=300, rng=1)
    assert res.tasks_left_out == {"law": ("c",)}
    assert "task 'law' left out: c has no results on it" in res.notes
    assert res.replicates.tasks == ("history", "math")  # the canonical (natural) order of the table


def test_several_tasks_and_models_are_named_together():
    df = _items(missing=(("c", "law"), ("c", "math"), ("b", "history")), tasks=("law", "math", "history", "bio"))
    res = compare(ResultsTable.from_items(df), n_resamples=200, rng=1, per_task=False)
    assert res.tasks_left_out == {"law": ("c",), "math": ("c",), "history": ("b",)}
    assert "2 tasks ('law', 'math') left out: c has no results on them" in res.notes
    assert "task 'history' left out: b has no results on it" in res.notes


def test_no_shared_item_is_named_too():
    df = _items(missing=())
    df.loc[(df.model == "a") & (df.task == "math"), "item"] += "-a"  # a's math items are not the others'
    res = compare(ResultsTable.from_items(df), n_resamples=200, rng=1, per_task=False)
    assert res.tasks_left_out == {"math": ()}
    assert "task 'math' left out: the selected models share no item on it" in res.notes


def test_a_chosen_task_that_a_model_lacks_is_an_error():
    with pytest.raises(InputError, match=r"task 'law' \(in `tasks`\): c has no results on it; leave the task out"
                                         r" of `tasks`, or such models out with `models`"):
        compare(ResultsTable.from_items(_items()), tasks=["law", "math"], n_resamples=50, rng=1)


def test_no_task_left_is_one_error_naming_the_models():
    df = _items(missing=(("a", "law"), ("b", "math")), tasks=("law", "math"))
    with pytest.raises(InputError, match=r"no task has results for every selected model \(a lacks 'law'; b lacks"
                                         r" 'math'\); choose models with `models`"):
        rank(ResultsTable.from_items(df), n_resamples=50, rng=1)


def test_summary_counts_and_independent_runs_say_aggregates_need_the_same_tasks():
    summ = pd.DataFrame({"model": ["a", "a", "b", "b", "c"], "task": ["x", "y", "x", "y", "x"],
                         "n": [100, 200, 100, 200, 100], "correct": [60, 120, 70, 150, 80]})
    res = compare(ResultsTable.from_summary(summ), n_resamples=300, rng=1, per_task=False)
    assert res.tasks_left_out == {"y": ("c",)}
    note = next(n for n in res.notes if n.startswith("aggregates over tasks"))
    assert "resampled independently, but an aggregate over tasks still needs every model on the same tasks" in note
    # the aggregate is the accuracy on x alone: c 0.80, b 0.70, a 0.60
    assert sorted(res.aggregates[0].difference.round(12)) == [0.1, 0.1, 0.2]
    # runs of independent seeds (rliable-style, items not paired): resampled per model, same rule for tasks
    gen = np.random.default_rng(1)
    rows = [(m, t, str(r), gen.normal(1 + 0.2 * k)) for k, m in enumerate("abc") for t in "xy" for r in range(12)
            if not (m == "c" and t == "y")]
    runs = ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "score"]), unbounded=True)
    runs = dataclasses.replace(runs, paired_items=False)
    r = rank(runs, n_resamples=300, rng=1)
    assert r.replicates.resampling == "independent" and r.tasks_left_out == {"y": ("c",)}
    assert any("resampled independently" in n for n in r.notes)


def test_task_weights_for_a_left_out_task():
    table = ResultsTable.from_items(_items())
    with pytest.raises(InputError, match=r"`weights` gives task 'law' a positive weight, but c has no results on"
                                         r" it; give it weight 0"):
        compare(table, weights={"law": 1, "math": 1}, n_resamples=50, rng=1)
    with pytest.raises(InputError, match="task 'law' a positive weight"):
        rank(table, weights=[2, 1, 1], n_resamples=50, rng=1)  # one per task in table order: history, law, math
    # weight 0 for the missing task: fine, and the same as naming only the others
    a = compare(table, weights={"law": 0, "math": 1, "history": 3}, n_resamples=200, rng=2, per_task=False)
    b = compare(table, weights=[3, 0, 1], n_resamples=200, rng=2, per_task=False)
    np.testing.assert_allclose(a.aggregates[0].difference, b.aggregates[0].difference)
    df = _items()
    means = df[df.task != "law"].groupby(["model", "task"])["score"].mean().unstack()
    agg = 0.25 * means["math"] + 0.75 * means["history"]
    k = list(a.aggregates[0].model_a).index("c")
    assert a.aggregates[0].difference[k] == pytest.approx(agg["c"] - agg[a.aggregates[0].model_b[k]])


def test_group_weights_keep_the_group_weight_with_a_note():
    df = _items(tasks=("law", "math", "history"))
    df["group"] = df["task"].map({"law": "hum", "history": "hum", "math": "stem"})
    res = compare(ResultsTable.from_items(df), group_weights="equal", n_resamples=200, rng=1, per_task=False)
    assert "group 'hum' keeps its weight, shared among the 1 of its 2 tasks left" in res.notes
    # equal groups over what is left: history (hum) and math (stem) weigh one half each
    means = df[df.task != "law"].groupby(["model", "task"])["score"].mean().unstack()
    agg = 0.5 * means["math"] + 0.5 * means["history"]
    k = list(res.aggregates[0].model_a).index("c")
    assert res.aggregates[0].difference[k] == pytest.approx(agg["c"] - agg[res.aggregates[0].model_b[k]])
    only_law = df.copy()
    only_law["group"] = only_law["task"].map({"law": "hum", "history": "stem", "math": "stem"})
    with pytest.raises(InputError, match="group 'hum' a positive weight"):
        compare(ResultsTable.from_items(only_law), group_weights={"hum": 1, "stem": 1}, n_resamples=50, rng=1)


@pytest.fixture
def missing_csv(tmp_path):
    path = tmp_path / "missing.csv"
    _items().to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("command", ["compare", "rank"])
def test_cli_runs_on_the_shared_tasks_with_a_note(command, missing_csv):
    res = CliRunner().invoke(app, [command, missing_csv, "--n-resamples", "200", "--seed", "1"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "task 'law' left out: c has no results on it" in out
    assert "choose with `--tasks` or `--models`" in out


@pytest.mark.parametrize("command", ["compare", "rank"])
def test_cli_tasks_option(command, missing_csv):
    ok = CliRunner().invoke(app, [command, missing_csv, "--tasks", "math", "--n-resamples", "200", "--seed", "1",
                                  "--format", "csv"])
    assert ok.exit_code == 0, ok.output
    assert "left out" not in ok.stderr
    bad = CliRunner().invoke(app, [command, missing_csv, "--tasks", "law,math", "--n-resamples", "50"])
    assert bad.exit_code == 2
    lines = [x for x in bad.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "task 'law' (in `--tasks`): c has no results on it" in lines[0]
    assert "`--models`" in lines[0]


def test_cli_no_task_left_is_one_line(tmp_path):
    """rank needs every model on the same tasks: one line; compare compares the pairs that share items (a vs c on
    math, b vs c on law; tests/comparison/test_shared_items.py), naming the pair that shares nothing."""
    path = tmp_path / "disjoint.csv"
    _items(missing=(("a", "law"), ("b", "math")), tasks=("law", "math")).to_csv(path, index=False)
    res = CliRunner().invoke(app, ["rank", str(path), "--n-resamples", "50"])
    assert res.exit_code == 2
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "a lacks 'law'; b lacks 'math'" in lines[0] and "`--models`" in lines[0]
    pairs = CliRunner().invoke(app, ["compare", str(path), "--n-resamples", "50", "--seed", "1"])
    assert pairs.exit_code == 0, pairs.output
    out = " ".join(pairs.output.split())
    assert "each pair is compared on the items both have (2 of 3 pairs" in out
    assert "not compared, no item in common: a vs b" in out
