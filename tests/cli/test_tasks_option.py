"""Second QA pass (S15, command-line part): every command that reads results can choose tasks with ``--tasks``.

Before, only ``compare`` and ``rank`` had ``--tasks`` (the shared ``InputOptions`` has the field), so ``bayes`` on
data where a model lacks a task could not be pointed at the tasks every model has, and ``summarize``, ``passk``,
``report``, ``plan`` and ``gate`` could not be restricted either. Also, the library's message "`clusters='effective'`
needs ..." read in API words on the command line; it now reads "`--clusters effective` needs ...".

Oracles: the library called on the same table with ``tasks=`` (bayes, plan), and pandas sums of the VTAB counts
(summarize's pooled row).
"""

from __future__ import annotations

from notes import flat  # noqa: F401
import inspect

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband import load_example
from evalband.bayes import beta_binomial
from evalband._words import words
from evalband.cli._common import note_text
from evalband.cli.main import app, command_functions
import jsonout  # noqa: E402

runner = CliRunner()


def test_every_reading_command_has_tasks():
    reading = {name: fn for name, fn in command_functions().items() if "source" in inspect.signature(fn).parameters}
    assert set(reading) >= {"summarize", "passk", "bayes", "compare", "rank", "report", "plan", "gate"}
    lacking = [name for name, fn in reading.items() if "tasks" not in inspect.signature(fn).parameters]
    assert lacking == []


def test_bayes_tasks_matches_the_library():
    res = runner.invoke(app, ["bayes", "--example", "vtab", "--tasks", "DTD,Pets,Camelyon", "--draws", "2000",
                              "--seed", "5", "--format", "json"])
    assert res.exit_code == 0, res.output
    got = pd.DataFrame(jsonout.records(res.stdout)).set_index("model")["posterior_mean"]
    want = beta_binomial(load_example("vtab"), tasks=["DTD", "Pets", "Camelyon"], n_draws=2000, rng=5).summary()
    want = want.set_index("model")["posterior_mean"]
    np.testing.assert_allclose(got.loc[want.index].to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)


def _lacking_csv(tmp_path):
    rows = [dict(model=m, task=t, item=f"{t}{i}", score=int((i * 7 + len(m)) % 3 > 0))
            for m in ("A", "B") for t in ("t1", "t2") for i in range(30) if not (m == "B" and t == "t2")]
    path = tmp_path / "lacking.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


def test_bayes_tasks_choose_and_a_chosen_task_a_model_lacks_is_named(tmp_path):
    path = _lacking_csv(tmp_path)
    res = runner.invoke(app, ["bayes", path, "--tasks", "t1,t2", "--draws", "500", "--seed", "1"])
    assert res.exit_code == 2
    assert res.output.strip() == (f"evalband: error: {path}: task 't2' (in `--tasks`): B has no results on it;"
                                  " leave the task out of `--tasks`, or such models out with `--models`")
    res = runner.invoke(app, ["bayes", path, "--tasks", "t1", "--draws", "500", "--seed", "1"])
    assert res.exit_code == 0, res.output
    assert "left out" not in res.stdout  # chosen: nothing left out behind the user's back


def test_bayes_weights_are_read_before_tasks():
    base = ["bayes", "--example", "vtab", "--models", "Sup-100%,Sup-Exemplar-100%", "--draws", "500", "--seed", "1",
            "--tasks", "DTD,Pets"]
    res = runner.invoke(app, [*base, "--weights", "natural=1,structured=1"])
    assert res.exit_code == 2
    assert "group 'structured' a positive weight, but none of its tasks is among `--tasks`" in flat(res.output)
    res = runner.invoke(app, [*base, "--weights", "natural=1,structured=0"])
    assert res.exit_code == 0, res.output
    assert "group 'natural' keeps its weight, shared among the 2 of its 7 tasks in `--tasks`" in flat(res.stdout)


def test_clusters_effective_message_reads_as_an_option():
    res = runner.invoke(app, ["bayes", "--example", "vtab", "--clusters", "effective"])
    assert res.exit_code == 2
    assert res.output.startswith("evalband: error: `--clusters effective` needs item-level data with a cluster"
                                 " column (--cluster COL); this input has none.")
    assert note_text(words("`{arg:method='bca'}` needs more")) == "`--method bca` needs more"
    assert note_text(words("`{arg:unknown_arg='x'}` stays")) == "`unknown_arg='x'` stays"


def test_summarize_tasks_and_pooled_row():
    res = runner.invoke(app, ["summarize", "--example", "vtab", "--models", "Sup-100%", "--tasks", "DTD,Pets",
                              "--format", "json"])
    assert res.exit_code == 0, res.output
    frame = pd.DataFrame(jsonout.records(res.stdout))
    assert list(frame["task"]) == ["DTD", "Pets", "(pooled)"]
    d = load_example("vtab").data
    d = d[(d["model"] == "Sup-100%") & d["task"].isin(["DTD", "Pets"])]
    assert frame["estimate"].iloc[-1] == pytest.approx(d["correct"].sum() / d["n"].sum(), abs=1e-12)


def test_passk_tasks(tmp_path):
    rows = [dict(model="A", task=t, item=i, trial=k, score=int((i + k + len(t)) % 2))
            for t in ("t1", "t22") for i in range(6) for k in range(3)]
    path = tmp_path / "trials.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    res = runner.invoke(app, ["passk", str(path), "--k", "1,2", "--tasks", "t22", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert {r["task"] for r in jsonout.records(res.stdout)} == {"t22"}


def test_plan_tasks_matches_the_library():
    from evalband.plan import plan_from_pilot

    models = ["Llama-2-70b-hf", "Llama-2-13b-hf"]
    res = runner.invoke(app, ["plan", "--example", "mmlu-pro", "--effect", "0.03", "--models", ",".join(models),
                              "--tasks", "law,math", "--format", "json"])
    assert res.exit_code == 0, res.output
    table = load_example("mmlu-pro").select(tasks=["law", "math"])
    want = plan_from_pilot(table, effect=0.03, models=models).to_dict()
    assert jsonout.records(res.stdout)["n_required"] == want["n_required"]
    res = runner.invoke(app, ["plan", "--effect", "0.03", "--tasks", "law"])
    assert res.exit_code == 2 and "--tasks chooses tasks from a results file" in flat(res.output)


def test_report_tasks_is_used_and_repeated(tmp_path):
    out = tmp_path / "r.md"
    res = runner.invoke(app, ["report", "--example", "vtab", "-o", str(out), "--n-resamples", "100", "--no-bayes",
                              "--models", "Sup-100%,Sup-Exemplar-100%", "--tasks", "DTD,Pets,Camelyon"])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "--tasks DTD,Pets,Camelyon" in text and "3 tasks" in text and "Clevr" not in text
