"""Messages printed by the command line name its options, not the library's keywords: a keyword written in
backticks or bare (``unit_col=``, ``split='test'``, ``rng=1``) becomes the option (``--unit-col``, ``--split test``,
``--seed 1``), said once; a library function the command line cannot call becomes the command that does its work."""

import re

import pytest
from typer.testing import CliRunner

from evalband._validate import ArgumentError
from evalband._words import words
from evalband.cli._common import error_text, note_text
from evalband.cli.main import app

runner = CliRunner()
Q4 = "/work/shared/data/judges/hibayes/q4.csv"


@pytest.mark.parametrize("template, python, cli", [
    ("no unit column 'x'; found 'a' (name it with {arg:unit_col=})",
     "no unit column 'x'; found 'a' (name it with unit_col=)", "no unit column 'x'; found 'a' (name it with --unit-col)"),
    ("column 'c' (named with `{arg:task_col}`) is not in the file",
     "column 'c' (named with `task_col`) is not in the file", "column 'c' (named with `--task-col`) is not in the file"),
    ("column 'c' (named with `{arg:cluster_col}`)", "column 'c' (named with `cluster_col`)",
     "column 'c' (named with `--cluster`)"),
    ("keep one split ({py:split='...', }--split NAME), or leave the column out ({py:drop_cols=, }--drop-cols c)",
     "keep one split (split='...', --split NAME), or leave the column out (drop_cols=, --drop-cols c)",
     "keep one split (--split NAME), or leave the column out (--drop-cols c)"),
    ("choose with --models A,B{py: (models=)}", "choose with --models A,B (models=)", "choose with --models A,B"),
    ("in a random order fixed by the seed ({arg:rng={seed}}; a permutation",
     "in a random order fixed by the seed (rng=1; a permutation", "in a random order fixed by the seed (--seed 1; a"
     " permutation"),
    ("clusters ignored ({arg:clusters='ignore'}):", "clusters ignored (clusters='ignore'):",
     "clusters ignored (--clusters ignore):"),
    ("clusters ignored ({arg:cluster=False})", "clusters ignored (cluster=False)", "clusters ignored (--cluster none)"),
    ("trials alone are analysed by {fn:evalband.estimation.trial_variance}.",
     "trials alone are analysed by evalband.estimation.trial_variance.",
     "trials alone are analysed by `evalband summarize` (its var_between and var_within columns) or `evalband plan`."),
])
def test_library_keywords_become_options(template, python, cli):
    """A message written once in the template language (evalband._words) reads with the library's keywords in
    Python and with the options that set them on the command line."""
    message = words(template, seed=1) if "{seed}" in template else words(template)
    assert str(message) == python
    assert note_text(message) == cli
    assert error_text(ArgumentError(message)) == cli


@pytest.mark.parametrize("text", ["p = 0.5, x=1", "ties='min' here", "F(2, 36) = 12.5", "a=b is an equation",
                                  "https://example.org/?q=1", "no unit column 'x'; name it with unit_col="])
def test_plain_text_is_printed_as_written(text):
    """Plain text (a message not written as words) is never rewritten: nothing guesses at prose."""
    assert note_text(text) == text
    assert error_text(ArgumentError(text)) == text


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
