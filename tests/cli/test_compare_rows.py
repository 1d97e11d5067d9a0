"""Which pairs the default `compare` table shows: every pair when few, else neighbours in the ranking and open
pairs, at most ROWS_SHOWN of them from the top of the ranking; JSON always has every pair."""

import re

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from evalband.cli.compare import ROWS_SHOWN
from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()


def _file(tmp_path, n_models, n_items, spread, seed=0):
    gen = np.random.default_rng(seed)
    p = 0.6 + spread * np.linspace(-1, 1, n_models)
    rows = [(f"m{m:02d}", "t", f"i{i:03d}", int(gen.random() < p[m])) for m in range(n_models) for i in range(n_items)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["model", "task", "item", "score"]).to_csv(path, index=False)
    return path


def _rows(stdout):
    return [line for line in stdout.splitlines() if re.match(r"m\d\d +m\d\d ", line)]


def test_many_open_pairs_are_capped_from_the_top(tmp_path):
    path = _file(tmp_path, 40, 50, 0.05)  # 780 pairs, nearly all open
    out = runner.invoke(app, ["compare", str(path), "--n-resamples", "400", "--seed", "1"], env={"COLUMNS": "120"})
    assert out.exit_code == 0, out.output
    rows = _rows(out.stdout)
    assert len(rows) == ROWS_SHOWN
    text = " ".join(out.stdout.split())
    assert f"mean: {ROWS_SHOWN} of 780 pairs shown" in text and "from the top of the ranking" in text
    records = jsonout.records(runner.invoke(app, ["compare", str(path), "--n-resamples", "400", "--seed", "1",
                                             "--format", "json"]).stdout)
    assert len(records) == 780
    best = records[0]["model_a"]  # the pairs of the model at the top come first
    assert rows[0].split()[0] == best
    full = runner.invoke(app, ["compare", str(path), "--n-resamples", "400", "--seed", "1", "--all-pairs"],
                         env={"COLUMNS": "120"})
    assert len(_rows(full.stdout)) == 780


def test_few_open_pairs_show_every_neighbour(tmp_path):
    path = _file(tmp_path, 12, 400, 0.35, seed=2)  # 66 pairs, well apart: neighbours and a few open pairs
    out = runner.invoke(app, ["compare", str(path), "--n-resamples", "400", "--seed", "1"], env={"COLUMNS": "120"})
    assert out.exit_code == 0, out.output
    rows = _rows(out.stdout)
    assert 11 <= len(rows) < 66
    text = " ".join(out.stdout.split())
    assert f"{len(rows)} of 66 pairs shown" in text and "from the top of the ranking" not in text
