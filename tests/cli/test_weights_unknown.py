"""`--weights` names only the unknown names (QA O7)."""

import pytest
from typer.testing import CliRunner

from evalband.cli.main import app


@pytest.mark.parametrize("command", ["compare", "rank"])
def test_only_the_unknown_name_is_listed(command):
    res = CliRunner().invoke(app, [command, "--example", "vtab", "--weights", "natural=1,bogus=2",
                                   "--n-resamples", "20"])
    assert res.exit_code == 2
    assert "['bogus']" in res.output and "'natural'" not in res.output.split("groups are")[0]


def test_groups_and_tasks_mixed_are_refused():
    res = CliRunner().invoke(app, ["compare", "--example", "vtab", "--weights", "natural=1,DTD=2",
                                   "--n-resamples", "20"])
    assert res.exit_code == 2 and "mixes group names ['natural'] with task names" in res.output
