"""QA regression: unbounded scores (Atari returns, rewards) were multiplied by 100 and called 'points' in
compare/rank tables and readings: `compare atari100k --models SPR,DrQ --aggregate median` printed '+17804 points'
for a raw difference of 178."""

from __future__ import annotations

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from evalband.cli.main import app


def _file(tmp_path):
    rng = np.random.default_rng(3)
    rows = [{"model": m, "task": t, "item": i, "score": float(base + rng.normal(0, 5))}
            for m, base in (("A", 120.0), ("B", 100.0)) for t in ("g1", "g2") for i in range(30)]
    path = tmp_path / "returns.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path, pd.DataFrame(rows)


def test_unbounded_difference_is_shown_on_its_own_scale(tmp_path):
    path, df = _file(tmp_path)
    res = CliRunner().invoke(app, ["compare", str(path), "--unbounded", "--n-resamples", "200", "--seed", "1"])
    assert res.exit_code == 0, res.output
    means = df.groupby(["model", "task"])["score"].mean().groupby("model").mean()
    diff = means["A"] - means["B"]  # about 20 (not 2000)
    row = next(line for line in res.stdout.splitlines() if line.split()[:3] == ["mean", "A", "B"])
    shown = float(row.split()[3])  # aggregate, model_a, model_b, difference
    assert abs(shown - diff) < 0.5
    assert "points" not in res.stdout and "x100" not in res.stdout


def test_unbounded_rank_estimates_are_not_scaled(tmp_path):
    path, df = _file(tmp_path)
    res = CliRunner().invoke(app, ["rank", str(path), "--unbounded", "--n-resamples", "200", "--seed", "1"])
    assert res.exit_code == 0, res.output
    row = next(line for line in res.stdout.splitlines() if line.split()[:1] == ["A"])
    assert abs(float(row.split()[1]) - df[df.model == "A"].groupby("task")["score"].mean().mean()) < 0.5
