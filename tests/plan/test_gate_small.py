"""The release gate never decides from 1 to 9 paired items or a zero-width interval (QA O31)."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband.plan import release_gate


def write(path, scores):
    pd.DataFrame({"item": np.arange(len(scores)), "score": scores}).to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("method", ["t", "betting"])
def test_three_items_all_regressed_are_undecided(tmp_path, method):
    base, cand = write(tmp_path / "b.csv", [1, 1, 1]), write(tmp_path / "c.csv", [0, 0, 0])
    res = CliRunner().invoke(app, ["gate", base, cand, "--method", method])
    assert res.exit_code == 3, res.output
    assert res.stdout.startswith("UNDECIDED") and "sits on the margin" not in res.stdout
    assert "only 3 paired items" in res.stdout and "at least 7 more" in res.stdout
    rec = json.loads(CliRunner().invoke(app, ["gate", base, cand, "--method", method, "-f", "json"]).stdout)
    assert rec["decision"] == "undecided" and rec["reason"] == "too few units" and rec["more_items"] == 7


def test_zero_spread_regression_on_many_items_fails_with_an_exact_bound():
    # 40 items all right in the baseline and wrong in the candidate: d = -1 on every item. The interval is the
    # exact bound [-1, -1 + 2 s], s = 1 - 0.025 ** (1 / 40) = 0.08810 (scipy.stats.binomtest(0, 40)
    # .proportion_ci(0.95).high), not the zero-width t interval
    b = pd.DataFrame({"model": "m", "task": "t", "item": np.arange(40), "score": 1.0})
    c = b.assign(score=0.0)
    res = release_gate(b, c, margin=0.01)
    assert res.decision == "fail" and res.ci.high == pytest.approx(-1 + 2 * 0.08810, abs=1e-4)
