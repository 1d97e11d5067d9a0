"""Wide tables: columns that are not models can be left out (`drop_cols=`, `--drop-cols`), and `--models` with
`--shape wide` chooses the model columns when the file is read (QA O5)."""

from notes import flat  # noqa: F401

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband._validate import InputError
from evalband.cli.main import app
from evalband.io.tabular import read_tabular
import jsonout  # noqa: E402


def _wide():
    # MMLU-Pro layout: id columns, a 0/1 flag that is not a model, then one 0/1 column per model; C has blanks
    rng = np.random.default_rng(5)
    n = 40
    return pd.DataFrame({
        "question_id": np.arange(n), "category": np.repeat(["law", "math"], n // 2),
        "answer_key_varies": rng.integers(0, 2, n),
        "A": rng.integers(0, 2, n), "B": rng.integers(0, 2, n),
        "C": np.where(np.arange(n) < 5, np.nan, rng.integers(0, 2, n)),
    })


def test_flag_column_is_a_model_without_drop_cols():
    table = read_tabular(_wide(), shape="wide", item_col="question_id", task_col="category")
    assert "answer_key_varies" in table.models  # the reported flaw: why the option is needed


def test_drop_cols_leaves_the_flag_out_and_says_so():
    df = _wide()
    table = read_tabular(df, shape="wide", item_col="question_id", task_col="category",
                         drop_cols=["answer_key_varies"])
    assert list(table.models) == ["A", "B", "C"]
    assert any("answer_key_varies" in n and "left out" in n for n in table.notes)
    # the models' scores are untouched: A's mean on law equals the column mean over the law rows
    law = df[df.category == "law"]
    assert table.task_data("law", models=["A"]).scores.mean() == pytest.approx(law["A"].mean())


def test_drop_cols_unknown_column_is_an_input_error():
    with pytest.raises(InputError, match="column 'nope' \\(named with `drop_cols`\\) is not in the file"):
        read_tabular(_wide(), shape="wide", item_col="question_id", task_col="category", drop_cols="nope")


def test_models_choose_columns_at_read_time_with_a_note():
    table = read_tabular(_wide(), shape="wide", item_col="question_id", task_col="category", models=["A", "B"])
    assert list(table.models) == ["A", "B"]
    note = next(n for n in table.notes if "not read as models" in n)
    assert "answer_key_varies" in note and "C" in note
    # C's blank cells are not counted: it was never read
    assert not any("blank cells" in n for n in table.notes)


def _run(args):
    return CliRunner().invoke(app, args)


def test_cli_drop_cols_and_wide_models(tmp_path):
    path = tmp_path / "wide.csv"
    _wide().to_csv(path, index=False)
    base = ["summarize", str(path), "--shape", "wide", "--item-col", "question_id", "--task-col", "category",
            "-f", "json"]
    out = _run(base + ["--drop-cols", "answer_key_varies"])
    assert out.exit_code == 0, out.output
    models = {r["model"] for r in jsonout.records(out.stdout)}
    assert models == {"A", "B", "C"}
    assert "left out as asked (--drop-cols): answer_key_varies" in flat(out.stderr)

    out = _run(base + ["--models", "A,B"])
    assert out.exit_code == 0, out.output
    assert {r["model"] for r in jsonout.records(out.stdout)} == {"A", "B"}
    assert "not read as models (not in --models): answer_key_varies, C" in flat(out.stderr)
    assert "blank cells" not in out.stderr  # C's blanks would only concern a model that was not chosen

    out = _run(base + ["--drop-cols", "missing_col"])
    assert out.exit_code == 2 and "column 'missing_col' (named with `--drop-cols`) is not in the file" in flat(out.stderr)
