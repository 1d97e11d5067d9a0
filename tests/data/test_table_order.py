"""Order invariance (issue 14): the same rows in any order, with the same seed, give byte-identical JSON from
summarize, compare, rank, bayes, gate and report, because the table orders every label set by one canonical rule
(natural order) and every random stream is keyed by names.

Oracle: the unshuffled file. Real data, shuffled: MMLU-Pro subsets with clusters (the bundled example), tau-bench
with trials (tests/fixtures/tau_bench), VTAB summary counts (the bundled example), through the command line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband import load_example
from evalband.cli.main import app

from ..conftest import FIXTURES

MODELS = ["Meta-Llama-3-70B", "Meta-Llama-3-8B", "Mistral-7B-v0.1", "gemma-7b"]
TASKS = ["computer science", "history", "philosophy"]


def _mmlu() -> pd.DataFrame:
    table = load_example("mmlu-pro").select(models=MODELS, tasks=TASKS)
    d = table.data
    return pd.DataFrame({"model": d["model"].astype(str), "task": d["task"].astype(str),
                         "item": d["item"].astype(str), "cluster": d["cluster"].astype(str),
                         "score": d["score"].astype(int)})


def _vtab() -> pd.DataFrame:
    d = load_example("vtab").data
    return pd.DataFrame({"model": d["model"].astype(str), "task": d["task"].astype(str),
                         "group": d["group"].astype(str), "n": d["n"], "correct": d["correct"]})


def _tau() -> pd.DataFrame:
    return pd.read_csv(FIXTURES / "tau_bench" / "gpt-4o-airline_rewards.csv")


def _write(frame: pd.DataFrame, folder, name="data.csv", seed=None):
    folder.mkdir(parents=True, exist_ok=True)
    if seed is not None:
        frame = frame.sample(frac=1.0, random_state=seed)
    frame.to_csv(folder / name, index=False)


def _run(folder, args, monkeypatch):
    monkeypatch.chdir(folder)
    res = CliRunner().invoke(app, args)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    return res


def _same_output(tmp_path, monkeypatch, frame, args, *, seeds=(1, 2)):
    _write(frame, tmp_path / "orig")
    ref = _run(tmp_path / "orig", args, monkeypatch)
    assert ref.exit_code in (0, 1, 3), ref.stderr
    for s in seeds:
        _write(frame, tmp_path / f"shuffled{s}", seed=s)
        got = _run(tmp_path / f"shuffled{s}", args, monkeypatch)
        assert got.exit_code == ref.exit_code
        assert got.stdout == ref.stdout  # byte-identical
        assert got.stderr == ref.stderr  # the notes too
    return ref


@pytest.mark.parametrize("command", [
    ["summarize", "data.csv", "--format", "json"],
    ["compare", "data.csv", "--n-resamples", "300", "--seed", "5", "--format", "json"],
    ["compare", "data.csv", "--n-resamples", "300", "--seed", "5", "--interval", "bca", "--format", "json"],
    ["rank", "data.csv", "--n-resamples", "300", "--seed", "5", "--format", "json"],
    ["bayes", "data.csv", "--draws", "300", "--seed", "5", "--format", "json"],
])
def test_mmlu_pro_with_clusters(command, tmp_path, monkeypatch):
    ref = _same_output(tmp_path, monkeypatch, _mmlu(), command)
    assert ref.exit_code == 0 and ref.stdout.startswith("[") or ref.stdout.startswith("{")


@pytest.mark.parametrize("command", [
    ["summarize", "data.csv", "--format", "json"],
    ["compare", "data.csv", "--n-resamples", "300", "--seed", "5", "--format", "json"],
    ["rank", "data.csv", "--n-resamples", "300", "--seed", "5", "--format", "json"],
    ["bayes", "data.csv", "--draws", "300", "--seed", "5", "--format", "json"],
])
def test_vtab_summary_counts(command, tmp_path, monkeypatch):
    ref = _same_output(tmp_path, monkeypatch, _vtab(), command)
    assert ref.exit_code == 0


@pytest.mark.parametrize("command", [
    ["summarize", "data.csv", "--item-col", "task_id", "--score-col", "reward", "--format", "json"],
    ["passk", "data.csv", "--item-col", "task_id", "--score-col", "reward", "--k", "1,2,4", "--format", "json"],
])
def test_tau_bench_with_trials(command, tmp_path, monkeypatch):
    ref = _same_output(tmp_path, monkeypatch, _tau(), command)
    assert ref.exit_code == 0


def test_reports_are_byte_identical_but_for_the_timestamp(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    frame = _mmlu()
    texts = []
    for name, seed in (("orig", None), ("shuffled", 3)):
        _write(frame, tmp_path / name, seed=seed)
        res = _run(tmp_path / name, ["report", "data.csv", "-o", "report.md", "--n-resamples", "200", "--seed",
                                     "4"], monkeypatch)
        assert res.exit_code == 0, res.stderr
        lines = (tmp_path / name / "report.md").read_text().splitlines()
        texts.append([line for line in lines if not any(w in line for w in ("Generated", "generated", " UTC"))])
    assert texts[0] == texts[1]


def test_gate_betting_decision_does_not_depend_on_row_order(tmp_path, monkeypatch):
    frame = _mmlu()
    base = frame[frame.model == "Meta-Llama-3-8B"]
    cand = frame[frame.model == "Meta-Llama-3-70B"]
    args = ["gate", "base.csv", "cand.csv", "--method", "betting", "--margin", "0.02", "--format", "json"]
    outs = []
    for name, seed in (("orig", None), ("a", 1), ("b", 2)):
        _write(base, tmp_path / name, "base.csv", seed)
        _write(cand, tmp_path / name, "cand.csv", None if seed is None else seed + 10)
        outs.append(_run(tmp_path / name, args, monkeypatch))
    assert len({o.stdout for o in outs}) == 1 and len({o.exit_code for o in outs}) == 1
    assert outs[0].exit_code in (0, 1, 3)
    assert "random order fixed by the seed" in outs[0].stdout
    other = _run(tmp_path / "orig", args + ["--seed", "7"], monkeypatch)
    assert other.exit_code in (0, 1, 3)


def test_shuffled_items_give_the_same_table():
    frame = _mmlu()
    from evalband import read

    a, b = read(frame), read(frame.sample(frac=1.0, random_state=9))
    assert a.models == b.models and a.tasks == b.tasks
    for task in a.tasks:
        ta, tb = a.task_data(task), b.task_data(task)
        np.testing.assert_array_equal(ta.items, tb.items)
        np.testing.assert_array_equal(ta.scores, tb.scores)
        np.testing.assert_array_equal(ta.clusters, tb.clusters)
        assert ta.cluster_labels == tb.cluster_labels
