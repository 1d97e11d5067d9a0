"""QA pass, minor: the ability headline gives P(best) as the table does (a percent); the refusal of a cell-score
file by a results-table command is one sentence without two parentheses in a row; the blank-cells note of a wide
file names only the models --models chose; the held-out table says covered in words, not True/False."""

from __future__ import annotations

import json
import re

import numpy as np
from typer.testing import CliRunner

import evalband as eb
from evalband.cli.main import app

runner = CliRunner()


def _cells(path):
    rows = ["model,task,score"] + [f"m{i},t{j},{0.2 + 0.1 * i + 0.05 * j:.3f}" for i in range(6) for j in range(5)
                                   if (i * 5 + j) % 7 != 3]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_headline_gives_p_best_as_a_percent(tmp_path):
    res = eb.ability(str(_cells(tmp_path / "c.csv")), n_resamples=50, rng=0)
    head = str(res.headline())
    assert re.search(r"P\(best\) (<1|>99|\d{1,3})%", head), head
    assert res.headline().params["p_best"] == res.ranking.p_best[np.argmin(res.ranking.rank_mean)]


def test_cell_scores_refused_in_one_sentence(tmp_path):
    res = runner.invoke(app, ["rank", str(_cells(tmp_path / "c.csv")), "--missing", "common"])
    assert res.exit_code == 2
    line = res.stderr.strip()
    assert ") (" not in line and "--missing ability" in line and "evalband ability FILE" in line, line


def test_blank_cells_note_names_only_the_chosen_models(tmp_path):
    rng = np.random.default_rng(0)
    rows = ["item,task," + ",".join(f"m{k}" for k in range(5))]
    for t in range(4):
        for i in range(20):
            rows.append(f"{i},t{t}," + ",".join("" if (k == 4 and i < 3) else str(int(rng.random() < 0.3 + 0.1 * k))
                                                  for k in range(5)))
    (tmp_path / "w.csv").write_text("\n".join(rows) + "\n")

    def blank(models):
        res = runner.invoke(app, ["ability", str(tmp_path / "w.csv"), "--shape", "wide", "--models", models,
                                  "--n-resamples", "30", "--format", "json"])
        assert res.exit_code == 0, res.stderr
        return [n for n in json.loads(res.stdout)["notes"] if n["code"] == "io.blank-cells-left-out"]

    assert blank("m0,m1") == []
    shown = blank("m0,m4")
    assert len(shown) == 1 and "m4: 12" in shown[0]["text"]


def test_holdout_table_says_covered_in_words(tmp_path):
    path = _cells(tmp_path / "c.csv")
    res = runner.invoke(app, ["ability", str(path), "--holdout", "0.3", "--n-resamples", "30"])
    assert res.exit_code == 0, res.stderr
    assert "True" not in res.stdout and "False" not in res.stdout
    assert re.search(r"covered:?\s+(yes|no)\b", res.stdout) or re.search(r"\b(yes|no)\s*$", res.stdout, re.M)
    js = runner.invoke(app, ["ability", str(path), "--holdout", "0.3", "--n-resamples", "30", "--format", "json"])
    assert isinstance(json.loads(js.stdout)["holdout"][0]["covered"], bool)
