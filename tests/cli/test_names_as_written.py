"""Names the user supplied (models, tasks, files, columns) are printed as written in every command's notes and
errors: they are parameters of the messages' templates, which nothing rewrites (issue 22, "Names printed as
written, everywhere"; issue 23, messages as words)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband._words import words
from evalband.cli._common import note_text
from evalband.cli.main import app
from notes import flat

#: names a rewrite would touch: `name=value` pairs of arguments the messages name, backticks, `--`
MODELS = ["gpt-4o", "lr=3e-4,margin=0.1", "method=joint`x`", "rng"]
TASKS = ["mmlu:subject=law,method=joint", "n_resamples=5", "plain --seed 3"]
#: what the rewriting would have made of them
REWRITTEN = ("--margin 0.1", "--method joint", "--n-resamples 5", "`--method`", "--seed 3,")


def test_names_are_parameters_never_rewritten():
    """A name the user supplied reaches a message as a parameter of its template, so no rewrite can touch it."""
    message = words("{model} vs {task}: give `{arg:rng}`", model="gpt-4o", task="mmlu:subject=law,method=joint")
    assert note_text(message) == "gpt-4o vs mmlu:subject=law,method=joint: give `--seed`"
    message = words("`{arg:models}`: unknown 'x'; available: {names}", names="'lr=3e-4,margin=0.1', \"a=b\"")
    assert note_text(message) == "`--models`: unknown 'x'; available: 'lr=3e-4,margin=0.1', \"a=b\""


def _results(path):
    rng = np.random.default_rng(0)
    rows = [(m, t, i, int(rng.random() < 0.4 + 0.1 * k), float(rng.gamma(2.0, 0.01)))
            for k, m in enumerate(MODELS) for t in TASKS for i in range(30)]
    pd.DataFrame(rows, columns=["model", "task", "item", "score", "cost"]).to_csv(path, index=False)
    return str(path)


def _battles(path):
    rng = np.random.default_rng(1)
    rows = []
    for q in range(40):
        for a in range(len(MODELS)):
            for b in range(a + 1, len(MODELS)):
                rows.append((MODELS[a], MODELS[b], ["model_a", "model_b", "tie"][rng.integers(3)], f"q{q}"))
    pd.DataFrame(rows, columns=["model_a", "model_b", "winner", "question_id"]).to_csv(path, index=False)
    return str(path)


def _check(out, *, expect=()):
    text = flat(out.stdout + out.stderr)
    for bad in REWRITTEN:
        assert bad not in text, (bad, text[:3000])
    for name in expect:
        assert name in text, (name, text[:3000])


QUOTED = '"lr=3e-4,margin=0.1","method=joint`x`",rng'
TASKS_QUOTED = '"mmlu:subject=law,method=joint",n_resamples=5,plain --seed 3'


@pytest.mark.parametrize("args", [
    ["summarize", "--tasks", TASKS_QUOTED],
    ["compare", "--models", QUOTED, "--n-resamples", "200"],
    ["compare", "--models", QUOTED, "--n-resamples", "200", "--weights", '"mmlu:subject=law,method=joint"=1'],
    ["rank", "--n-resamples", "200"],
    ["rank", "--test", "friedman"],
    ["bayes", "--draws", "200", "--pairs"],
    ["frontier", "--n-resamples", "200", "--cost-col", "cost"],
    ["plan", "--effect", "0.05", "--models", '"lr=3e-4,margin=0.1",rng'],
])
def test_commands_print_names_as_written(tmp_path, args):
    path = _results(tmp_path / "a=b,--seed 1.csv")
    out = CliRunner().invoke(app, [args[0], path, *args[1:], *(["--seed", "1"] if args[0] not in ("passk", "plan",
                                                                                                   "summarize") else [])])
    assert out.exit_code == 0, out.output
    _check(out, expect=["lr=3e-4,margin=0.1"] if args[0] not in ("summarize", "passk") else ())


@pytest.mark.parametrize("args, expect", [
    (["compare", "--models", '"lr=3e-4,margin=0.1",nope'], "available: 'gpt-4o', 'lr=3e-4,margin=0.1'"),
    (["summarize", "--tasks", "nope"], "'mmlu:subject=law,method=joint', 'n_resamples=5'"),
    (["rank", "--models", "method=joint`x`"], "method=joint`x`"),
])
def test_errors_print_names_as_written(tmp_path, args, expect):
    out = CliRunner().invoke(app, [args[0], _results(tmp_path / "r.csv"), *args[1:]])
    assert out.exit_code == 2, out.output
    _check(out, expect=[expect])


def test_arena_prints_names_as_written(tmp_path):
    path = _battles(tmp_path / "battles.csv")
    for extra in ([], ["--pairs"]):
        out = CliRunner().invoke(app, ["arena", path, "--n-resamples", "200", "--seed", "1", *extra])
        assert out.exit_code == 0, out.output
        _check(out, expect=["lr=3e-4,margin=0.1"])
    out = CliRunner().invoke(app, ["arena", path, "--baseline", "lr=3e-4,margin=0.2"])
    assert out.exit_code == 2
    _check(out, expect=["lr=3e-4,margin=0.2"])
