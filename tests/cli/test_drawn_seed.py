"""One seed rule in every command (issue 22, superseding QA O11's drawn seeds): without --seed every command uses
seed 0 and says so, so the same command on the same data prints the same numbers, and --seed S draws other
replicates."""

import re

import pytest
from typer.testing import CliRunner

from evalband.cli.main import app

ARGS = {
    "compare": ["--models", "Sup-Rotation-100%,Sup-Exemplar-100%,Sup-100%", "--n-resamples", "300"],
    "rank": ["--n-resamples", "300"],
    "bayes": ["--draws", "500"],
}


@pytest.mark.parametrize("command", ["compare", "rank", "bayes"])
def test_default_seed_is_zero_and_said(command):
    runner = CliRunner()
    first = runner.invoke(app, [command, "--example", "vtab", *ARGS[command], "-f", "markdown"])
    assert first.exit_code == 0, first.output
    assert re.search(r"\bseed 0\b", first.stdout) and "drawn" not in first.stdout
    again = runner.invoke(app, [command, "--example", "vtab", *ARGS[command], "-f", "markdown", "--seed", "0"])
    assert again.stdout == first.stdout  # the default is seed 0, exactly
    other = runner.invoke(app, [command, "--example", "vtab", *ARGS[command], "-f", "markdown", "--seed", "5"])
    assert "seed 5" in other.stdout and other.stdout.replace("seed 5", "seed 0") != first.stdout


def test_json_output_names_the_seed_on_stderr():
    res = CliRunner().invoke(app, ["bayes", "--example", "vtab", "--draws", "200", "-f", "json"])
    assert res.exit_code == 0 and re.search(r"note: seed 0\b", res.stderr)
