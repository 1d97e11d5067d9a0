"""Second QA pass: ``--source`` naming the wrong kind of input.

Before the fix, ``summarize rewards.csv --source cruxeval`` (or rliable) said "line 1: malformed JSON (Expecting
value, column 1); is the file truncated?" about an intact CSV, and ``summarize cruxeval/ --source csv`` said the
folder had no harness logs evalband recognizes, although it holds CRUXEval logs.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from evalband.cli.main import app

runner = CliRunner()


def _line(args):
    res = runner.invoke(app, args)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    return lines[0]


def test_table_given_to_a_json_log_reader(tmp_path):
    path = tmp_path / "rewards.csv"
    path.write_text("model,task,item,score\na,t,1,1\n")
    for source in ("cruxeval", "rliable"):
        line = _line(["summarize", str(path), "--source", source])
        assert "is a table, not a JSON log" in line and "truncated" not in line
    broken = tmp_path / "log.json"
    broken.write_text('{"raw_scored_generations": {"s": [true')
    assert "is the file truncated?" in _line(["summarize", str(broken), "--source", "cruxeval"])


def test_log_folder_given_as_a_table(tmp_path):
    scored = {"raw_scored_generations": {"sample_0": [True, False]}}
    (tmp_path / "m_temp0.2_input.json").write_text(json.dumps(scored))
    line = _line(["summarize", str(tmp_path), "--source", "csv"])
    assert "is a folder of cruxeval logs, not a table" in line and "--source cruxeval" in line
    res = runner.invoke(app, ["summarize", str(tmp_path), "-f", "csv"])  # auto still reads it
    assert res.exit_code == 0 and "CRUXEval-I" in res.stdout
