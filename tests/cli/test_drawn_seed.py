"""Without --seed, compare/rank/bayes print the seed they drew, and that seed reproduces the run (QA O11)."""

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
def test_drawn_seed_is_printed_and_reproduces(command):
    runner = CliRunner()
    first = runner.invoke(app, [command, "--example", "vtab", *ARGS[command], "-f", "markdown"])
    assert first.exit_code == 0, first.output
    found = re.search(r"seed (\d+) \(drawn; add --seed (\d+) to reproduce\)", first.stdout)
    assert found and found.group(1) == found.group(2)
    seed = found.group(1)
    again = runner.invoke(app, [command, "--example", "vtab", *ARGS[command], "-f", "markdown", "--seed", seed])
    assert again.exit_code == 0
    # same numbers; only the seed note differs ("seed N" instead of "seed N (drawn; ...)")
    strip = lambda text: re.sub(r"seed \d+( \(drawn; add --seed \d+ to reproduce\))?", "seed", text)  # noqa: E731
    assert strip(again.stdout) == strip(first.stdout)


def test_json_output_names_the_drawn_seed_on_stderr():
    res = CliRunner().invoke(app, ["bayes", "--example", "vtab", "--draws", "200", "-f", "json"])
    assert res.exit_code == 0 and re.search(r"note: seed \d+ \(drawn", res.stderr)
