"""Pairs of proportions at 0 or 1 (issue 22: zero-width intervals): where two models are both right (or both
wrong, or one always right and the other always wrong) on every item of a task, their paired differences do not
vary, and a bootstrap of them is a point. No command may show such a point as an interval or a standard error of
0: ``compare``, ``rank`` (JSON) and ``report`` (Markdown), on every task alone and together, with each interval
method and correction, with a prompt facet, and with repeated trials.
"""

from __future__ import annotations

import itertools

import pytest
from typer.testing import CliRunner

from evalband.cli.main import app

from .test_json_edges import _check_json, _check_markdown

runner = CliRunner()

_ITEMS = 14


def _score(model, task, i, extra=0):
    if task == "easy":  # a and b right on every item, c on half
        return 1 if model in ("a", "b") else (i + extra) % 2
    if task == "hard":  # a and b wrong on every item
        return 0 if model in ("a", "b") else (i + extra) % 2
    if task == "split":  # a always right, b always wrong: their difference is 1 on every item
        return {"a": 1, "b": 0}.get(model, (i + extra) % 2)
    return int((i * 7 + ord(model) + extra) % 3 == 0)  # mixed


def _files(tmp_path):
    tasks, models = ("easy", "hard", "split", "mixed"), ("a", "b", "c")
    rows = [f"{m},{t},{i},{_score(m, t, i)}" for m, t, i in itertools.product(models, tasks, range(_ITEMS))]
    (tmp_path / "r.csv").write_text("model,task,item,score\n" + "\n".join(rows) + "\n")
    rows = [f"{m},{t},{i},p{p},{_score(m, t, i, p)}" for m, t, i, p in itertools.product(models, tasks,
                                                                                         range(_ITEMS), range(3))]
    (tmp_path / "f.csv").write_text("model,task,item,prompt,score\n" + "\n".join(rows) + "\n")
    rows = [f"{m},{t},{i},{k},{_score(m, t, i, k)}" for m, t, i, k in itertools.product(models, tasks,
                                                                                        range(_ITEMS), (1, 2))]
    (tmp_path / "k.csv").write_text("model,task,item,trial,score\n" + "\n".join(rows) + "\n")


CASES = [
    [file, *extra]
    for file in ("r.csv", "f.csv", "k.csv")
    for extra in ([], ["--tasks", "easy"], ["--tasks", "hard"], ["--tasks", "split"],
                  ["--tasks", "easy", "--models", "a,b"])
]
OPTIONS = {"compare": [[], ["--interval", "bca", "--correction", "max-t"],
                       ["--interval", "basic", "--correction", "holm"]],
           "rank": [[]]}


@pytest.mark.parametrize("case", CASES, ids=lambda c: " ".join(c))
@pytest.mark.parametrize("command", ["compare", "rank"])
def test_no_point_intervals_of_pairs_in_json(command, case, tmp_path, monkeypatch):
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    for opts in OPTIONS[command]:
        args = [command, *case, *opts, "--format", "json", "--n-resamples", "200", "--seed", "3"]
        res = runner.invoke(app, args)
        where = " ".join(args)
        assert "internal error" not in res.stderr, f"{where}: {res.stderr}"
        if res.exit_code == 2:  # a one-line user error (e.g. one model left)
            assert res.stderr.strip().startswith("evalband: error: "), f"{where}: {res.stderr}"
            continue
        assert res.exit_code == 0, f"{where}: {res.stderr}"
        _check_json(res.stdout, where)


@pytest.mark.parametrize("case", [["r.csv"], ["r.csv", "--tasks", "easy,split"], ["f.csv", "--tasks", "easy"],
                                  ["k.csv", "--tasks", "hard,split"]], ids=lambda c: " ".join(c))
def test_no_point_intervals_of_pairs_in_the_report(case, tmp_path, monkeypatch):
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["report", *case, "-o", "out.md", "--format", "markdown", "--n-resamples", "200", "--seed", "3"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0 and "internal error" not in res.stderr, res.stderr
    _check_markdown((tmp_path / "out.md").read_text(), " ".join(args))
