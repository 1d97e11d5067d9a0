"""Reader options (--metric, --filter, --split, --baselines) and --scheduler reach the library from every command.

Oracles: the known Atari 100k answer (SPR's median human-normalized score over games, 0.39562938291779215,
rliable notebook) through `rank --baselines`; Dask results equal in-process results (the engine's streams do not
depend on the executor).
"""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from evalband.cli.main import app

from ..conftest import FIXTURES
import jsonout  # noqa: E402

runner = CliRunner()
ATARI = FIXTURES / "atari100k"


@pytest.fixture
def atari(tmp_path):
    for name in ("SPR.json", "SimPLe.json"):
        shutil.copy(ATARI / name, tmp_path / name)
    return tmp_path


def test_baselines_option_normalizes_rliable_scores(atari):
    result = runner.invoke(app, ["rank", str(atari), "--source", "rliable", "--baselines",
                                 str(ATARI / "atari_100k_baselines.csv"), "--aggregate", "median",
                                 "--n-resamples", "200", "--seed", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    records = {r["model"]: r for r in jsonout.records(result.stdout)}
    assert records["SPR"]["estimate"] == pytest.approx(0.39562938291779215, abs=1e-12)


@pytest.mark.parametrize("command", ["summarize", "passk", "compare", "rank", "bayes", "report", "plan"])
def test_every_reading_command_offers_the_reader_options(command):
    result = runner.invoke(app, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0
    for option in ("--metric", "--filter", "--split", "--baselines"):
        assert option in result.output, (command, option)


def test_metric_reaches_the_inspect_reader():
    logs = FIXTURES / "harness_logs" / "inspect"
    result = runner.invoke(app, ["summarize", str(logs), "--source", "inspect", "--metric", "no_such_scorer"])
    assert result.exit_code == 2
    assert "no_such_scorer" in result.output


def test_scheduler_gives_the_same_numbers(atari):
    pytest.importorskip("distributed")
    args = ["compare", str(atari), "--source", "rliable", "--n-resamples", "300", "--seed", "3", "--format", "json"]
    plain = runner.invoke(app, args)
    dask = runner.invoke(app, args + ["--scheduler", "local"])
    assert plain.exit_code == 0, plain.output
    assert dask.exit_code == 0, dask.output
    assert jsonout.records(plain.stdout) == jsonout.records(dask.stdout)
