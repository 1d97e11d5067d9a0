"""Messages printed by the command line name its options, not the library's keywords: a keyword written in
backticks or bare (``unit_col=``, ``split='test'``, ``rng=1``) becomes the option (``--unit-col``, ``--split test``,
``--seed 1``), said once; a library function the command line cannot call becomes the command that does its work."""

import re

import pytest
from typer.testing import CliRunner

from evalband.cli._common import cli_message
from evalband.cli.main import app

runner = CliRunner()
Q4 = "/work/shared/data/judges/hibayes/q4.csv"


@pytest.mark.parametrize("library, cli", [
    ("no unit column 'x'; found 'a' (name it with unit_col=)", "no unit column 'x'; found 'a' (name it with --unit-col)"),
    ("column 'c' (named with `task_col`) is not in the file", "column 'c' (named with `--task-col`) is not in the file"),
    ("column 'c' (named with `cluster_col`)", "column 'c' (named with `--cluster`)"),
    ("keep one split (split='...', --split NAME), or leave the column out (drop_cols=, --drop-cols c)",
     "keep one split (--split NAME), or leave the column out (--drop-cols c)"),
    ("name the model columns (models=..., --models) or", "name the model columns (--models) or"),
    ("choose with --models A,B (models=)", "choose with --models A,B"),
    ("in a random order fixed by the seed (rng=1; a permutation", "in a random order fixed by the seed (--seed 1; a"
     " permutation"),
    ("clusters ignored (clusters='ignore'):", "clusters ignored (--clusters ignore):"),
    ("trials alone are analysed by evalband.estimation.trial_variance.",
     "trials alone are analysed by `evalband summarize` (its var_between and var_within columns) or `evalband plan`."),
])
def test_library_keywords_become_options(library, cli):
    assert cli_message(library) == cli


@pytest.mark.parametrize("text", ["p = 0.5, x=1", "ties='min' here", "F(2, 36) = 12.5", "a=b is an equation",
                                  "https://example.org/?q=1"])
def test_text_that_names_no_argument_is_unchanged(text):
    assert cli_message(text) == text


def no_keyword(text):
    """No library keyword of an option (``name_col=``, ``rng=``, `facets`) left in a CLI message."""
    return not re.search(r"\b\w+_col\b(?!-)|\brng=|`facets`|evalband\.\w+\.\w+", text)


def test_agreement_unit_col_message_names_the_option():
    res = runner.invoke(app, ["agreement", Q4, "--unit-col", "item,LLM"])
    assert res.exit_code == 2
    assert "--unit-col" in res.stderr and no_keyword(res.stderr), res.stderr


def test_gate_notes_name_the_seed_option(tmp_path):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    b = (rng.random(300) < 0.6).astype(int)
    for name, s in (("b.csv", b), ("c.csv", b[::-1])):
        pd.DataFrame({"model": name[0], "task": "t", "item": range(300), "score": s}).to_csv(tmp_path / name,
                                                                                             index=False)
    res = runner.invoke(app, ["gate", str(tmp_path / "b.csv"), str(tmp_path / "c.csv"), "--method", "betting",
                              "--seed", "3"])
    assert "(--seed 3;" in res.stderr and no_keyword(res.stderr), res.stderr
