"""compare refuses the 83.4% 'overlap' level: verdicts on differences are not made at 83.4% (QA O4)."""

import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband.comparison import compare
from evalband import load_example


@pytest.mark.parametrize("level", ["overlap", "83.4%", 0.834])
def test_api_refuses_overlap(level):
    with pytest.raises(ValueError, match=r"`confidence_level` 'overlap' \(83.4%\) is for per-model overlap"):
        compare(load_example("vtab"),
                confidence_level=level, n_resamples=10, rng=0)


def test_cli_refuses_overlap_in_one_line():
    res = CliRunner().invoke(app, ["compare", "--example", "vtab", "--models", "Sup-Rotation-100%,Sup-Exemplar-100%",
                                   "--confidence", "overlap", "--n-resamples", "50"])
    assert res.exit_code == 2
    line = res.output.strip()
    assert "\n" not in line and "per-model overlap displays" in line and "0.95" in line


def test_other_levels_still_work():
    res = CliRunner().invoke(app, ["compare", "--example", "vtab", "--models", "Sup-Rotation-100%,Sup-Exemplar-100%",
                                   "--confidence", "90%", "--n-resamples", "200", "--seed", "1"])
    assert res.exit_code == 0 and "90% CI" in res.output
