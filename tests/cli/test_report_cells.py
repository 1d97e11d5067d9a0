"""QA pass: ``evalband report`` on a file of cell scores (model, task, score; no items or counts) was refused with
"missing column 'item'", although such sparse data have a report section of their own. Now the report shows what
those data support: the data summary and the sparse-leaderboard section (ability forest, coverage map, held-out
check), with a note naming the sections that need item-level data."""

from __future__ import annotations

import re

import pandas as pd
from typer.testing import CliRunner

from evalband.cli.main import app

runner = CliRunner()


def test_report_of_the_bundled_cell_scores_is_the_sparse_leaderboard(tmp_path):
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", "--example", "epoch", "-o", str(out), "--n-resamples", "50"])
    assert res.exit_code == 0, res.stderr
    html = out.read_text()
    assert "Sparse leaderboard" in html and "Held-out check" in html
    assert "need item-level results" in html  # the note: which sections need items
    assert not re.search(r"""<(?:script|link)\b|src=["']https?:""", html)  # self-contained: images inline
    assert html.count("data:image/") >= 3  # ability forest, coverage map, held-out check
    assert "evalband report --example epoch" in html  # the reproducing command


def test_report_of_a_cell_scores_file_with_a_column_map(tmp_path):
    df = pd.DataFrame({"m": [f"m{i}" for i in range(6) for _ in range(5)],
                       "bench": [f"t{j}" for _ in range(6) for j in range(5)],
                       "acc": [round(0.2 + 0.1 * i + 0.05 * j, 3) for i in range(6) for j in range(5)]})
    df = df[[(k % 7) != 3 for k in range(len(df))]]  # a few cells not measured
    df.to_csv(tmp_path / "cells.csv", index=False)
    out = tmp_path / "r.md"
    res = runner.invoke(app, ["report", str(tmp_path / "cells.csv"), "--model-col", "m", "--task-col", "bench",
                              "--score-col", "acc", "-o", str(out), "--n-resamples", "50"])
    assert res.exit_code == 0, res.stderr
    text = out.read_text()
    assert "## Sparse leaderboard" in text and "## Data" in text and "6 models on 5 tasks" in text
