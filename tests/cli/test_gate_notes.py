"""`evalband gate` prints its notes on stderr below the one line (as every command does), says which estimator
its difference is, words the betting method's item count as the rough fixed-sample figure it is, and takes
--margin as compare does ('1%')."""

import json
import re

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()


def write(path, frame):
    frame.to_csv(path, index=False)
    return str(path)


def two_tasks(rng, n=400, drop=0):
    """Baseline and candidate on two tasks of different sizes; ``drop`` items only in the baseline."""
    task = np.where(np.arange(n) < n // 4, "small", "large")
    b = (rng.random(n) < 0.7).astype(int)
    c = np.where(rng.random(n) < 0.1, 1 - b, b)
    base = pd.DataFrame({"model": "base", "task": task, "item": np.arange(n), "score": b})
    cand = pd.DataFrame({"model": "cand", "task": task, "item": np.arange(n), "score": c}).iloc[drop:]
    return base, cand


def test_notes_go_to_stderr_below_the_line(tmp_path, rng):
    base, cand = two_tasks(rng, drop=20)
    res = runner.invoke(app, ["gate", write(tmp_path / "b.csv", base), write(tmp_path / "c.csv", cand),
                              "--margin", "0.05"])
    assert res.stdout.count("\n") == 1 and res.stdout.startswith(("PASS", "FAIL", "UNDECIDED"))
    assert "20 only in the baseline" in res.stderr  # what was left out
    # which estimator: the item-pooled mean, not compare's mean over tasks
    assert re.search(r"pooled", res.stderr) and "mean over tasks" in res.stderr
    # JSON: notes stay in the JSON and are also printed on stderr (as show() does for every command)
    res = runner.invoke(app, ["gate", str(tmp_path / "b.csv"), str(tmp_path / "c.csv"), "--margin", "0.05",
                              "-f", "json"])
    assert any("pooled" in n for n in jsonout.note_texts(res.stdout)) and "20 only in the baseline" in res.stderr


def test_pooled_difference_note_names_the_estimator_and_its_value(tmp_path, rng):
    base, cand = two_tasks(rng)
    res = runner.invoke(app, ["gate", write(tmp_path / "b.csv", base), write(tmp_path / "c.csv", cand),
                              "--margin", "0.05", "-f", "json"])
    rec = jsonout.records(res.stdout)
    d = cand["score"].to_numpy() - base["score"].to_numpy()
    assert rec["difference"] == np.mean(d)  # item-pooled (theory: the mean of the paired differences)
    per_task = pd.Series(d).groupby(base["task"].to_numpy()).mean().mean()
    assert per_task != np.mean(d)  # the two estimators differ on these data, so the note matters
    note = next(n for n in jsonout.note_texts(res.stdout) if "pooled" in n)
    assert "400 paired items" in note and "2 tasks" in note


def test_one_task_needs_no_pooling_note(tmp_path, rng):
    base, cand = two_tasks(rng)
    base["task"] = cand["task"] = "t"
    res = runner.invoke(app, ["gate", write(tmp_path / "b.csv", base), write(tmp_path / "c.csv", cand),
                              "--margin", "0.05", "-f", "json"])
    assert not any("pooled" in n for n in jsonout.note_texts(res.stdout))


def test_margin_accepts_percent_like_compare(tmp_path, rng):
    base, cand = two_tasks(rng)
    pb, pc = write(tmp_path / "b.csv", base), write(tmp_path / "c.csv", cand)
    pct = runner.invoke(app, ["gate", pb, pc, "--margin", "5%", "-f", "json"])
    frac = runner.invoke(app, ["gate", pb, pc, "--margin", "0.05", "-f", "json"])
    assert pct.exit_code == frac.exit_code and pct.exit_code in (0, 1, 3), pct.output
    assert json.loads(pct.stdout)["margin"] == json.loads(frac.stdout)["margin"] == 0.05
    bad = runner.invoke(app, ["gate", pb, pc, "--margin", "five"])
    assert bad.exit_code == 2 and bad.stderr.startswith("evalband: error:") and "--margin" in bad.stderr


def test_betting_item_count_is_worded_as_the_rough_fixed_sample_figure(tmp_path, rng):
    n = 3000
    b = (rng.random(n) < 0.6).astype(int)
    c = np.where(rng.random(n) < 0.3, (rng.random(n) < 0.6).astype(int), b)
    base = pd.DataFrame({"model": "base", "task": "t", "item": np.arange(n), "score": b})
    cand = base.assign(model="cand", score=c)
    pb, pc = write(tmp_path / "b.csv", base), write(tmp_path / "c.csv", cand)
    res = runner.invoke(app, ["gate", pb, pc, "--margin", "0.01", "--method", "betting", "-f", "json"])
    rec = jsonout.records(res.stdout)
    assert rec["decision"] == "undecided", rec
    line = rec["message"]
    assert "about" not in line and "would decide it" not in line  # no precise-looking count
    assert "fixed-sample" in line and "rough" in line
    assert rec["more_items_basis"] == "fixed-sample normal formula (rough for the betting interval)"
    # the count printed has at most 2 significant figures
    shown = re.search(r"roughly ([\d,]+) more", line).group(1).replace(",", "")
    assert len(shown.rstrip("0")) <= 2
    t = json.loads(runner.invoke(app, ["gate", pb, pc, "--margin", "0.01", "-f", "json"]).stdout)
    if t["decision"] == "undecided":
        assert "about" in t["message"] and "would decide it" in t["message"]  # t keeps its power-based count
        assert t["more_items_basis"] == "fixed-sample t formula"
