"""Second QA pass: ``bayes --format json/csv`` printed only the seed note to stderr.

Notes such as "18 tasks not named in `--weights` get weight 0" or "task 't2' left out: B has no results on it"
were invisible in JSON and CSV, while ``compare`` and ``rank`` print every note to stderr there. Now bayes prints
the same notes as below its table (in command-line words), and stdout stays pure JSON/CSV.
"""

from __future__ import annotations

from notes import flat, notes_of  # noqa: F401
import io

import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
import json  # noqa: E402
import jsonout  # noqa: E402

runner = CliRunner()


def _notes(res):
    return notes_of(res.stderr)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_weight_zero_note_reaches_stderr(fmt):
    res = runner.invoke(app, ["bayes", "--example", "vtab", "--weights", "DTD=1", "--draws", "300", "--seed", "1",
                              "--format", fmt])
    assert res.exit_code == 0, res.output
    notes = _notes(res)
    assert any(n.startswith("18 tasks not named in `--weights` get weight 0") for n in notes)
    assert "seed 1" in notes and any(n.startswith("data: example 'vtab'") for n in notes)
    table = pd.DataFrame(jsonout.records(res.stdout)) if fmt == "json" else pd.read_csv(io.StringIO(res.stdout))
    assert len(table) == 16 and "note" not in (res.stdout if fmt != "json" else json.dumps(jsonout.records(res.stdout)))
    text = runner.invoke(app, ["bayes", "--example", "vtab", "--weights", "DTD=1", "--draws", "300", "--seed",
                               "1"])
    assert all(n[:30] in text.stdout for n in notes)  # the same notes as under the table


def test_task_left_out_note_reaches_stderr(tmp_path):
    rows = [dict(model=m, task=t, item=f"{t}{i}", score=int((i * 7 + len(m)) % 3 > 0))
            for m in ("A", "B") for t in ("t1", "t2") for i in range(30) if not (m == "B" and t == "t2")]
    path = tmp_path / "lacking.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    res = runner.invoke(app, ["bayes", str(path), "--draws", "300", "--seed", "1", "--format", "json"])
    assert res.exit_code == 0, res.output
    notes = _notes(res)
    assert "task 't2' left out: B has no results on it" in notes
    assert any("choose with `--tasks` or `--models`" in n for n in notes)
