"""`evalband ability` and `evalband items` through typer's CliRunner, as a user runs them.

Oracles: the contract of issue 24 (JSON fields of abilities, predictions, the held-out check and items), and the
library on the same seed (the command prints what :func:`evalband.ability` / :func:`evalband.items` return).
"""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import evalband as eb
from evalband.cli.main import app

runner = CliRunner()
EPOCH = Path(__file__).resolve().parents[1] / "fixtures" / "epoch" / "scores.csv"
ABILITY_FIELDS = ["model", "ability", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "p_best", "n_tasks"]
PREDICT_FIELDS = ["model", "task", "predicted", "pi_low", "pi_high"]
ITEM_FIELDS = ["task", "item", "difficulty", "difficulty_ci_low", "difficulty_ci_high", "discrimination",
               "discrimination_ci_low", "discrimination_ci_high", "flag"]


def run(*args):
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return res


def sparse_counts(tmp_path, n_models=12, n_tasks=6, missing=0.4, seed=0):
    rng = np.random.default_rng(seed)
    C, D = rng.normal(size=n_models), rng.normal(size=n_tasks)
    rows = []
    for m in range(n_models):
        for t in range(n_tasks):
            if t != m % n_tasks and t != 0 and rng.random() < missing:
                continue
            p = 1 / (1 + np.exp(-(C[m] - D[t])))
            rows.append((f"model {m:02d}", f"task {t}", 200, int(rng.binomial(200, p))))
    path = tmp_path / "sparse.csv"
    pd.DataFrame(rows, columns=["model", "task", "n", "correct"]).to_csv(path, index=False)
    return path


def item_file(tmp_path, n_models=25, n_tasks=3, n_items=30, seed=1):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_models)
    a = rng.lognormal(0, 0.3, size=n_tasks * n_items)
    d = rng.normal(size=n_tasks * n_items)
    a[4] = -2.5  # a miskeyed item
    rows = []
    for m in range(n_models):
        for i in range(n_tasks * n_items):
            if rng.random() < 0.2:
                continue
            p = 1 / (1 + np.exp(-(a[i] * theta[m] + d[i])))
            rows.append((f"m{m:02d}", f"t{i // n_items}", f"i{i:03d}", int(rng.random() < p)))
    rows.append(("m00", "t0", "always", 1))
    rows += [(f"m{m:02d}", "t0", "always", 1) for m in range(1, n_models)]
    path = tmp_path / "items.csv"
    pd.DataFrame(rows, columns=["model", "task", "item", "score"]).to_csv(path, index=False)
    return path


def test_ability_json_contract_on_cell_scores_equals_the_library():
    res = run("ability", EPOCH, "--anchor", "Winogrande", "--n-resamples", 50, "--format", "json")
    out = json.loads(res.stdout)
    records = out["records"]
    assert all(list(r)[:len(ABILITY_FIELDS)] == ABILITY_FIELDS[:2] + ["se"] + ABILITY_FIELDS[2:]
               or set(ABILITY_FIELDS) <= set(r) for r in records)
    assert len(records) == 179 and out["latent_model"] == "sigmoid"
    lib = eb.ability(pd.read_csv(EPOCH)[["model", "task", "score"]], anchor="Winogrande", n_resamples=50, rng=0)
    frame = lib.to_frame()
    assert [r["model"] for r in records] == frame["model"].tolist()
    np.testing.assert_allclose([r["ability"] for r in records], frame["ability"], rtol=1e-12)
    np.testing.assert_allclose([r["ci_high"] for r in records], frame["ci_high"], rtol=1e-12)
    assert [r["rank_high"] for r in records] == frame["rank_high"].tolist()
    assert {t["task"] for t in out["tasks"]} == set(lib.tasks)
    assert "predictions" not in out and "holdout_coverage" not in out


def test_ability_predict_and_holdout_json(tmp_path):
    path = sparse_counts(tmp_path)
    res = run("ability", path, "--predict", "--holdout", "0.1", "--n-resamples", 100, "-f", "json", "--seed", 3)
    out = json.loads(res.stdout)
    table = pd.read_csv(path)
    measured = set(zip(table["model"], table["task"]))
    preds = out["predictions"]
    assert len(preds) == 12 * 6 - len(measured)
    assert all(set(PREDICT_FIELDS) <= set(p) for p in preds)
    assert not measured & {(p["model"], p["task"]) for p in preds}
    assert all(0 <= p["pi_low"] <= p["predicted"] <= p["pi_high"] <= 1 for p in preds)
    assert 0 <= out["holdout_coverage"] <= 1 and out["holdout_rmse"] > 0 and out["holdout_cells"] >= 1
    # the same seed, the same numbers; the rows of the file in any order
    shuffled = tmp_path / "shuffled.csv"
    table.sample(frac=1, random_state=1).to_csv(shuffled, index=False)
    again = json.loads(run("ability", shuffled, "--predict", "--holdout", "0.1", "--n-resamples", 100, "-f",
                           "json", "--seed", 3).stdout)
    assert again["records"] == out["records"] and again["predictions"] == out["predictions"]
    assert again["holdout_coverage"] == out["holdout_coverage"]


@pytest.mark.parametrize("fmt", ["table", "table-wide", "markdown", "csv", "latex"])
def test_ability_every_format(tmp_path, fmt):
    path = sparse_counts(tmp_path)
    res = run("ability", path, "--n-resamples", 50, "--format", fmt, "--predict", "--task-table", "--pairs")
    if fmt == "csv":  # CSV of the predictions (the abilities are in the other formats and JSON)
        assert res.stdout.splitlines()[0].startswith("model,task,predicted,pi_low,pi_high")
    else:
        assert "model 00" in res.stdout


def test_ability_anchor_forms_and_models(tmp_path):
    path = sparse_counts(tmp_path)
    a = json.loads(run("ability", path, "--anchor", "task 1", "--n-resamples", 30, "-f", "json").stdout)
    b = json.loads(run("ability", path, "--anchor", "task=task 1,difficulty=0,slope=1", "--n-resamples", 30, "-f",
                       "json").stdout)
    assert a["records"] == b["records"]
    t1 = next(t for t in a["tasks"] if t["task"] == "task 1")
    assert t1["difficulty"] == 0 and t1["slope"] == pytest.approx(1)
    c = json.loads(run("ability", path, "--anchor", "task=task 1,difficulty=2,slope=0.5", "--n-resamples", 30,
                       "-f", "json").stdout)
    t1 = next(t for t in c["tasks"] if t["task"] == "task 1")
    assert t1["difficulty"] == 2 and t1["slope"] == pytest.approx(0.5)
    r = json.loads(run("ability", path, "--model", "rasch", "--n-resamples", 30, "-f", "json").stdout)
    assert r["latent_model"] == "rasch" and all(t["slope"] == pytest.approx(1) for t in r["tasks"])


def test_ability_example_epoch_names_its_source():
    res = run("ability", "--example", "epoch", "--n-resamples", 30, "--models",
              "gpt-4o-2024-11-20,claude-3-5-sonnet-20241022,LLaMA-7B,phi-2")
    assert "Epoch AI" in res.output and "LLaMA-7B" in res.stdout
    # other commands name the command that reads it
    bad = runner.invoke(app, ["rank", "--example", "epoch"])
    assert bad.exit_code == 2 and "evalband ability --example epoch" in bad.output


def test_ability_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("model,task,score\na,x,0.5\nb,x,1.7\n")
    res = runner.invoke(app, ["ability", str(bad)])
    assert res.exit_code == 2
    line = res.output.strip().splitlines()
    assert len(line) == 1 and "bad.csv" in line[0] and "line 3" in line[0] and "score" in line[0]
    split = tmp_path / "split.csv"
    split.write_text("model,task,score\na,x,0.5\nb,x,0.7\nc,y,0.5\nd,y,0.2\n")
    res = runner.invoke(app, ["ability", str(split)])
    assert res.exit_code == 2 and "components that share no task" in res.output
    res = runner.invoke(app, ["ability", str(sparse_counts(tmp_path)), "--anchor", "task 9"])
    assert res.exit_code == 2 and "task 9" in res.output and "--anchor" in res.output


def test_items_json_contract_and_flags(tmp_path):
    path = item_file(tmp_path)
    out = json.loads(run("items", path, "-f", "json", "--n-resamples", 200).stdout)
    records = out["records"]
    assert all(set(ITEM_FIELDS) <= set(r) for r in records)
    by = {r["item"]: r for r in records}
    assert by["always"]["flag"].startswith("saturated")
    assert "negative discrimination" in by["i004"]["flag"]
    assert any(r["flag"] == "" for r in records)
    lib = eb.items(str(path), n_draws=200, rng=0).to_frame()
    assert [r["item"] for r in records] == lib["item"].astype(str).tolist()
    # a saturated item has no discrimination (null in JSON, NaN in the library)
    np.testing.assert_allclose([np.nan if r["discrimination"] is None else r["discrimination"] for r in records],
                               lib["discrimination"], rtol=1e-12)
    flagged = [r["flag"] != "" for r in records]
    assert flagged == sorted(flagged, reverse=True)  # flagged items first
    assert {t["task"] for t in out["tasks"]} == {"t0", "t1", "t2"} and len(out["abilities"]) == 25


def test_items_saturated_difficulty_is_one_sided(tmp_path):
    """An item every model got right (or wrong) has no difficulty estimate (the fit's is the prior's: before, an
    interval like (-32, 26)): JSON gives difficulty and discrimination null and the one-sided statement, the
    difficulty below the lowest (above the highest) ability measured, as difficulty_ci_high (ci_low) with
    difficulty_bound 'below' ('above'); the table says it as '< x' / '> x'."""
    path = item_file(tmp_path)
    out = json.loads(run("items", path, "-f", "json", "--n-resamples", 50).stdout)
    abilities = [a["ability"] for a in out["abilities"]]
    by = {r["item"]: r for r in out["records"]}
    right = by["always"]
    assert right["flag"] == "saturated: every model right" and right["difficulty_bound"] == "below"
    assert right["difficulty"] is None and right["discrimination"] is None and right["difficulty_ci_low"] is None
    assert right["difficulty_ci_high"] == pytest.approx(min(abilities))
    assert all(r["difficulty_bound"] is None and r["difficulty"] is not None for r in out["records"]
               if not r["flag"].startswith("saturated"))
    assert "latent.saturated-difficulty-bounds" in {n["code"] for n in out["notes"]}
    table = run("items", path, "--flagged").stdout
    row = next(line for line in table.splitlines() if " always " in f" {line} ")
    assert "< " in row and "(-" not in row.split("saturated")[0].split("always")[1]


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv"])
def test_items_formats(tmp_path, fmt):
    res = run("items", item_file(tmp_path), "-f", fmt, "--flagged", "--task-table")
    assert "i004" in res.stdout


def test_a_file_of_cell_scores_in_rank_points_to_the_latent_model(tmp_path):
    """A file of one score per (model, task), without items or counts, is not a results table: rank says how to
    read it (evalband ability, or --missing ability) in the command line's words."""
    path = tmp_path / "cells.csv"
    path.write_text("model,task,score,source\na,t1,0.5,x\nb,t1,0.7,x\na,t2,0.4,x\nc,t2,0.9,x\n")
    res = CliRunner().invoke(app, ["rank", str(path)])
    assert res.exit_code == 2
    assert "read it as latent abilities with `evalband ability FILE` or `--missing ability`" in res.output
    assert "--item-col" in res.output and "item_col" not in res.output


def test_items_table_lists_flagged_items_first(tmp_path):
    """The terminal table of `evalband items` shows the flagged items first, by flag (as its help and the report
    say); JSON keeps every item in the data's order."""
    rng = np.random.default_rng(0)
    theta = rng.normal(size=20)
    rows = []
    for i in range(30):
        b = rng.normal()
        for m in range(20):
            p = 1 / (1 + np.exp(-(theta[m] - b)))
            y = int(rng.random() < p) if i not in (3, 17) else int(theta[m] < 0)  # items 3 and 17: a wrong key
            rows.append((f"m{m:02d}", "t", f"q{i:02d}", y))
    path = tmp_path / "items.csv"
    pd.DataFrame(rows, columns=["model", "task", "item", "score"]).to_csv(path, index=False)
    res = CliRunner().invoke(app, ["items", str(path), "--n-resamples", "50", "-f", "csv"])
    assert res.exit_code == 0, res.output
    table = CliRunner().invoke(app, ["items", str(path), "--n-resamples", "50", "--wide"])
    lines = [ln for ln in table.stdout.splitlines() if ln.startswith("t ")]
    first = lines[0]
    assert "q03" in first or "q17" in first, table.stdout[:800]


def test_interval_headers_say_their_level_and_estimates_stay(tmp_path):
    """QA pass: the abilities' interval was headed 'CI' (ability, rank --missing ability), the task table showed
    the difficulty and slope intervals in place of their estimates, the items' interval read 'difficulty ci'."""
    path = sparse_counts(tmp_path)
    env = {"COLUMNS": "160"}
    res = runner.invoke(app, ["ability", str(path), "--n-resamples", "30", "--task-table", "--confidence", "0.9"],
                        env=env)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    heads = [lines[i - 1].split() for i, line in enumerate(lines) if line.startswith("─")]  # the line above a rule
    assert heads[0][:5] == ["model", "ability", "se", "90%", "CI"], heads
    assert heads[1][:7] == ["task", "difficulty", "difficulty", "90%", "CI", "slope", "slope"], heads
    doc = json.loads(run("ability", path, "--n-resamples", 30, "--task-table", "-f", "json", "--confidence",
                         "0.9").stdout)
    task = doc["tasks"][0]
    first = next(line for line in lines if line.startswith(task["task"] + " "))
    cells = re.split(r"\s{2,}", first.strip())  # task, difficulty, its interval, slope, its interval, ...
    assert float(cells[1]) == pytest.approx(task["difficulty"], abs=0.06) and cells[2].startswith("("), cells
    assert float(cells[3]) == pytest.approx(task["slope"], abs=0.06) and cells[4].startswith("("), cells
    rank = runner.invoke(app, ["rank", str(path), "--missing", "ability", "--n-resamples", "30"], env=env)
    assert rank.exit_code == 0, rank.output
    assert "95% CI" in rank.stdout.splitlines()[1]  # (title, header, rule, ...)
    items = runner.invoke(app, ["items", str(item_file(tmp_path))], env=env)
    assert items.exit_code == 0, items.output
    assert "difficulty 95% CI" in items.stdout.splitlines()[1]


def test_the_uncertainty_note_names_the_loss_as_its_option(tmp_path):
    """QA pass: the note ended '...each started from the full-data fit; loss fraction', which reads as a
    truncated sentence; it names the option and its value ('--loss fraction', in Python loss='fraction')."""
    path = sparse_counts(tmp_path)
    res = runner.invoke(app, ["ability", str(path), "--n-resamples", "30", "-f", "json"])
    (note,) = [n for n in json.loads(res.stdout)["notes"] if n["code"] == "latent.bootstrap-refits"]
    assert note["text"].endswith("; --loss binomial") and note["params"]["loss"] == "binomial", note
    assert any(str(n).endswith("; loss='binomial'") for n in eb.ability(str(path), n_resamples=30, rng=0).notes)


def test_predictions_and_task_table_digits_follow_their_intervals(tmp_path):
    """QA pass: predictions and held-out cells were printed with three decimals in points ('13.941 (3.228,
    30.971)') under a 'pi' header, and the task table showed a column 'se' that was the difficulty interval's
    width / 3.92 (no standard error of anything); the digits now follow each interval's width, the header says
    '95% PI', and no made-up column is shown."""
    path = sparse_counts(tmp_path)
    res = runner.invoke(app, ["ability", str(path), "--n-resamples", "30", "--task-table", "--predict", "--holdout",
                              "0.2"], env={"COLUMNS": "160"})
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    heads = {lines[i - 2] if lines[i - 2] else lines[i - 1]: lines[i - 1].split()
             for i, line in enumerate(lines) if line.startswith("─")}
    tasks = next(h for h in heads.values() if h[0] == "task" and "difficulty" in h)
    assert "se" not in tasks, tasks
    preds = next(h for t, h in heads.items() if t.startswith("predictions"))
    assert preds[preds.index("PI") - 1] == "95%", preds
    rows = lines[lines.index(next(t for t in heads if t.startswith("predictions"))) + 3:]
    for row in rows[:5]:
        for number in re.findall(r"-?\d+\.\d+", row):
            assert len(number.split(".")[1]) <= 2, row  # SEs of several points: at most two decimals
