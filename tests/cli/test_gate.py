"""`evalband gate` through CliRunner: exit codes 0 pass, 1 fail, 3 undecided, 2 usage/input error."""


import numpy as np
import pandas as pd
from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()


def write(path, scores, model="m", extra=None):
    df = pd.DataFrame({"model": model, "task": "t", "item": np.arange(len(scores)), "score": scores})
    for k, v in (extra or {}).items():
        df[k] = v
    df.to_csv(path, index=False)
    return str(path)


def test_exit_codes(tmp_path, rng):
    n = 3000
    base = (rng.random(n) < 0.7).astype(int)
    same = base.copy()
    same[:15] = 1 - same[:15]
    worse = np.where(rng.random(n) < 0.2, 0, base)
    pb = write(tmp_path / "base.csv", base)
    res = runner.invoke(app, ["gate", pb, write(tmp_path / "same.csv", same), "--margin", "0.02"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("PASS") and res.stdout.count("\n") == 1
    res = runner.invoke(app, ["gate", pb, write(tmp_path / "worse.csv", worse), "--margin", "0.02"])
    assert res.exit_code == 1 and res.stdout.startswith("FAIL")
    small_b = (np.arange(150) % 10 < 7).astype(int)
    small_c = small_b.copy()
    small_c[np.flatnonzero(small_b == 1)[:6]] = 0  # six items lost, six gained: no change, wide interval
    small_c[np.flatnonzero(small_b == 0)[:6]] = 1
    res = runner.invoke(app, ["gate", write(tmp_path / "b.csv", small_b), write(tmp_path / "c.csv", small_c),
                              "--margin", "0.01"])
    assert res.exit_code == 3 and res.stdout.startswith("UNDECIDED") and "more paired items" in res.stdout


def test_json_and_metric_column(tmp_path, rng):
    n = 500
    acc = (rng.random(n) < 0.6).astype(int)
    f1 = rng.random(n)
    pb = write(tmp_path / "b.csv", acc, extra={"f1": f1})
    pc = write(tmp_path / "c.csv", acc, extra={"f1": np.clip(f1 - 0.2, 0, 1)})
    res = runner.invoke(app, ["gate", pb, pc, "--metric", "f1", "--margin", "0.05", "--format", "json"])
    assert res.exit_code == 1, res.output
    rec = jsonout.records(res.stdout)
    assert rec["decision"] == "fail" and rec["exit_code"] == 1 and rec["ci_high"] < -0.05
    res = runner.invoke(app, ["gate", pb, pc, "--margin", "0.01", "--confidence", "90%"])
    assert res.exit_code == 0 and "90% CI (" in res.stdout  # accuracy column 'score' is identical


def test_usage_and_input_errors_exit_2(tmp_path):
    pb = write(tmp_path / "b.csv", [1, 0, 1, 1])
    res = runner.invoke(app, ["gate", pb, str(tmp_path / "missing.csv")])
    assert res.exit_code == 2
    res = runner.invoke(app, ["gate", pb, pb, "--margin", "-1"])
    assert res.exit_code == 2 and "margin" in res.output
    two = tmp_path / "two.csv"
    pd.DataFrame({"model": ["x", "x", "y", "y"], "task": "t", "item": [0, 1, 0, 1],
                  "score": [1, 0, 1, 1]}).to_csv(two, index=False)
    res = runner.invoke(app, ["gate", str(two), pb])
    assert res.exit_code == 2 and "--model" in res.output
    res = runner.invoke(app, ["gate", str(two), str(two), "--model", "x,y", "--margin", "0.5"])
    assert res.exit_code in (0, 3)
