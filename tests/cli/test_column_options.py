"""Every option that names a column of the input is accepted by every command that reads that input (issue 22:
`report` took no --cost-col although `frontier` did, and `eb.frontier(..., cost_col=...)` was a TypeError)."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest
from typer.testing import CliRunner

import evalband as eb
from evalband.cli._common import COLUMN_INPUT, InputOptions
from evalband.cli.main import app, command_functions
from notes import flat

COLUMN_FLAGS = ["--" + ("cluster" if n == "cluster" else n.replace("_", "-")) for n in COLUMN_INPUT.split()]


def _reads_results(function) -> bool:
    """A command that reads a results table (its signature holds the shared input options)."""
    return "model_col" in inspect.signature(function).parameters


READERS = sorted(name for name, f in command_functions().items() if _reads_results(f))


def test_the_rule_covers_the_commands_that_read_results():
    assert {"summarize", "passk", "bayes", "compare", "rank", "plan", "gate", "variance", "frontier",
            "report"} <= set(READERS)
    fields = {f.name for f in __import__("dataclasses").fields(InputOptions)}
    assert set(COLUMN_INPUT.split()) <= fields
    # every field of the input options that names a column is in the rule
    assert {f for f in fields if f.endswith("_col")} <= set(COLUMN_INPUT.split())


@pytest.mark.parametrize("command", READERS)
def test_every_column_option_is_accepted(command):
    params = inspect.signature(command_functions()[command]).parameters
    missing = [n for n in COLUMN_INPUT.split() if n not in params]
    assert not missing, missing
    shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "250"}).stdout
    assert all(flag in shown for flag in COLUMN_FLAGS), [f for f in COLUMN_FLAGS if f not in shown]


@pytest.fixture(scope="module")
def renamed(tmp_path_factory):
    frame = pd.read_csv("tests/fixtures/frontier/contract.csv").rename(columns={"cost": "cost_usd",
                                                                                 "latency": "seconds"})
    path = tmp_path_factory.mktemp("cols") / "costs.csv"
    frame.to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("command, extra", [("summarize", []), ("compare", ["--n-resamples", "200"]),
                                            ("rank", ["--n-resamples", "200"]), ("variance", [])])
def test_a_named_cost_column_is_read_not_left_over(renamed, command, extra):
    plain = CliRunner().invoke(app, [command, renamed, *extra])
    named = CliRunner().invoke(app, [command, renamed, "--cost-col", "cost_usd", "--latency-col", "seconds",
                                     *extra])
    if command == "variance":  # no facet: refused for that reason alone, whatever the column options
        assert plain.exit_code == named.exit_code == 2 and "cost" not in named.stderr
        return
    assert plain.exit_code == 0 and named.exit_code == 0, named.output
    if command != "rank":
        assert "not used: cost_usd" in flat(plain.output)  # read with no role: said in a note
    assert "cost_usd" not in flat(named.output)  # read as the cost


def test_report_takes_the_cost_column(renamed, tmp_path):
    out = tmp_path / "r.md"
    res = CliRunner().invoke(app, ["report", renamed, "--cost-col", "cost_usd", "--latency-col", "seconds", "-o",
                                   str(out), "--n-resamples", "200", "--seed", "1"])
    assert res.exit_code == 0, res.output
    assert "## Cost and quality" in out.read_text()


def test_frontier_in_python_takes_the_cost_column(renamed):
    res = eb.frontier(renamed, cost_col="cost_usd", latency_col="seconds", rng=0, n_resamples=200)
    same = eb.frontier(eb.select(renamed, cost_col="cost_usd", latency_col="seconds"), rng=0, n_resamples=200)
    pd.testing.assert_frame_equal(res.to_frame(), same.to_frame())
