"""Second QA pass (S14): ``--weights`` is read against every task and group of the data, before ``--tasks``.

``compare --example vtab --models Sup-100%,Sup-Exemplar-100% --tasks DTD,Pets --weights natural=1,structured=1``
said "unknown group 'structured'": the weights were parsed against the table already restricted to DTD and Pets
(both 'natural'). Now 'structured' is a known group that ``--tasks`` left without tasks, and the rule for tasks
left out (compare's ``TasksLeftOut``) applies: a positive weight on it is refused with that reason, weight 0
drops it, 'groups' leaves it out with a note, a group keeps its weight over its chosen tasks.

Oracle: the VTAB summary counts (pandas): with --tasks DTD,Pets,Camelyon and natural=1, specialized=0 the
difference of the weighted mean is the mean of the DTD and Pets accuracy differences.
"""

from __future__ import annotations

from notes import flat, notes_of  # noqa: F401

import pytest
from typer.testing import CliRunner

from evalband import load_example
from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()
MODELS = "Sup-100%,Sup-Exemplar-100%"


def run(command, *args):
    return runner.invoke(app, [command, "--example", "vtab", "--models", MODELS, "--n-resamples", "200",
                               "--seed", "1", *args])


@pytest.mark.parametrize("command", ["compare", "rank"])
def test_group_left_without_tasks_is_known_and_explained(command):
    res = run(command, "--tasks", "DTD,Pets", "--weights", "natural=1,structured=1")
    assert res.exit_code == 2
    assert "unknown" not in res.output
    assert res.output.strip() == ("evalband: error: `--weights` gives group 'structured' a positive weight, but none"
                                  " of its tasks is among `--tasks`; give it weight 0, or add some of its tasks to"
                                  " `--tasks`")


def _accuracy(task):
    d = load_example("vtab").data
    d = d[d["task"] == task].set_index("model")
    acc = d["correct"] / d["n"]
    return acc["Sup-100%"] - acc["Sup-Exemplar-100%"]


@pytest.mark.parametrize("command", ["compare", "rank"])
def test_weight_zero_drops_the_group_and_numbers_follow(command):
    res = run(command, "--tasks", "DTD,Pets,Camelyon", "--weights", "natural=1,structured=0", "--format", "json")
    assert res.exit_code == 0, res.output
    records = jsonout.records(res.stdout)
    assert "group 'natural' keeps its weight, shared among the 2 of its 7 tasks in `--tasks`" in flat(res.stderr)
    if command == "compare":
        diff = records[0]["difference"] * (1 if records[0]["model_a"] == "Sup-100%" else -1)
        # pandas: the mean of the two natural tasks' differences; Camelyon ('specialized', not named) weighs 0
        assert diff == pytest.approx((_accuracy("DTD") + _accuracy("Pets")) / 2, abs=1e-12)
    else:
        est = {r["model"]: r["estimate"] for r in records}
        assert est["Sup-100%"] - est["Sup-Exemplar-100%"] == pytest.approx(
            (_accuracy("DTD") + _accuracy("Pets")) / 2, abs=1e-12)


def test_equal_group_weights_leave_out_groups_without_tasks():
    res = run("compare", "--tasks", "DTD,Camelyon", "--weights", "groups", "--format", "json")
    assert res.exit_code == 0, res.output
    assert ("group(s) 'structured' left out with all their tasks (none among `--tasks`); the other groups share"
            " the weight equally") in flat(res.stderr)
    assert "group 'natural' keeps its weight, shared among the 1 of its 7 tasks" in flat(res.stderr)
    diff = jsonout.records(res.stdout)[0]
    sign = 1 if diff["model_a"] == "Sup-100%" else -1
    assert sign * diff["difference"] == pytest.approx((_accuracy("DTD") + _accuracy("Camelyon")) / 2, abs=1e-12)


def test_task_weight_outside_tasks_is_refused_and_positional_weights_cover_every_task():
    res = run("compare", "--tasks", "DTD,Pets", "--weights", "DTD=1,Camelyon=2")
    assert res.exit_code == 2
    assert "gives task 'Camelyon' a positive weight, but it is not among `--tasks`" in flat(res.output)
    tasks = load_example("vtab").tasks
    every = ",".join("3" if t == "DTD" else "1" if t == "Pets" else "0" for t in tasks)
    res = run("compare", "--tasks", "DTD,Pets", "--weights", every, "--format", "json")
    assert res.exit_code == 0, res.output
    diff = jsonout.records(res.stdout)[0]
    sign = 1 if diff["model_a"] == "Sup-100%" else -1
    assert sign * diff["difference"] == pytest.approx(0.75 * _accuracy("DTD") + 0.25 * _accuracy("Pets"), abs=1e-12)
