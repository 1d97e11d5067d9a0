"""Second QA pass: the report's "reproducing command" left out input options.

``--drop-cols``, ``--accuracy-scale``, ``--metric``, ``--filter``, ``--split`` and ``--baselines`` (and any input
option added later) were not repeated, so the printed command could read the data differently. Now every input
option that differs from its default is repeated. Oracle: running the printed command writes the same report
(up to the time stamp line).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from evalband.cli.main import app

runner = CliRunner()
LM_EVAL = Path(__file__).resolve().parents[1] / "fixtures" / "harness_logs" / "lm_eval"


def _command(text: str) -> str:
    return re.search(r"```\n(evalband report .*?)\n```", text, re.S).group(1)


def _body(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("Generated "))


def test_reader_options_are_repeated_and_the_command_reproduces(tmp_path):
    out = tmp_path / "lm.md"
    res = runner.invoke(app, ["report", str(LM_EVAL), "-o", str(out), "--seed", "3", "--n-resamples", "200",
                              "--no-bayes", "--metric", "exact_match", "--filter", "none"])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    command = _command(text)
    assert "--metric exact_match" in command and "--filter none" in command
    args = shlex.split(command)
    assert args[:2] == ["evalband", "report"]
    again = runner.invoke(app, args[1:])
    assert again.exit_code == 0, again.output
    assert _body(out.read_text()) == _body(text)


def test_table_options_are_repeated(tmp_path):
    # a summary table in percent with a flag column that is not data: --drop-cols and --accuracy-scale matter
    rows = [("A", "t1", 71.0, 200), ("B", "t1", 64.5, 200), ("A", "t2", 55.0, 120), ("B", "t2", 58.0, 120)]
    frame = pd.DataFrame(rows, columns=["model", "task", "accuracy", "n"]).assign(flag=1)
    path = tmp_path / "summary.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "s.md"
    res = runner.invoke(app, ["report", str(path), "-o", str(out), "--seed", "2", "--n-resamples", "200",
                              "--no-bayes", "--drop-cols", "flag", "--accuracy-scale", "percent",
                              "--models", "A,B"])
    assert res.exit_code == 0, res.output
    command = _command(out.read_text())
    assert "--drop-cols flag" in command and "--accuracy-scale percent" in command and "--models A,B" in command
