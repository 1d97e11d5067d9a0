"""QA regressions: one-line error messages name the file, row and column in plain words (no numpy reprs)."""

from __future__ import annotations

import pandas as pd
import pytest

from evalband import InputError, read


def test_blank_summary_cell_says_missing_not_numpy_repr(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("model,task,n,accuracy\nA,x,100,0.5\nA,y,,0.4\nB,x,100,0.6\nB,y,200,0.3\n")
    with pytest.raises(InputError) as err:
        read(path)
    msg = str(err.value)
    assert "line 3" in msg and "column 'n'" in msg and "missing" in msg
    assert "np.float64" not in msg and "nan" not in msg.lower().replace("nan or blank", "")


def test_text_in_a_number_column_is_quoted_as_written():
    df = pd.DataFrame({"model": ["A", "B"], "task": ["x", "x"], "n": [100, "lots"], "correct": [5, 6]})
    with pytest.raises(InputError, match=r"row 1, column 'n': n 'lots' is not a number"):
        read(df)


def test_negative_seed_says_non_negative():
    from typer.testing import CliRunner

    from evalband.cli.main import app

    res = CliRunner().invoke(app, ["compare", "--example", "vtab", "--seed", "-1", "--n-resamples", "100"])
    assert res.exit_code == 2
    # before: "`rng` must be an integer seed, a Generator or None; got -1." although -1 is an integer
    assert "non-negative integer; got -1" in res.stderr


def test_labels_differing_only_by_spaces_are_an_error(tmp_path):
    # 'Meta-Llama-3-70B ' (trailing space) and 'Meta-Llama-3-70B' looked like one model in every table but were two,
    # sharing no item: every paired analysis silently lost all of that model's items
    path = tmp_path / "spaces.csv"
    path.write_text("model,task,item,score\nA,t,1,1\nA,t,2,0\nA ,t,3,1\nB,t,1,0\nB,t,2,1\nB,t,3,1\n")
    with pytest.raises(InputError) as err:
        read(path)
    msg = str(err.value)
    assert "line 4" in msg and "column 'model'" in msg and "'A '" in msg and "'A'" in msg and "spaces" in msg


def test_a_label_of_spaces_only_is_missing():
    df = pd.DataFrame({"model": ["A", "A", "B", "B"], "task": ["t", "  ", "t", "t"], "item": [1, 2, 1, 2],
                       "score": [1, 0, 1, 1]})
    with pytest.raises(InputError, match=r"row 1, column 'task': missing task"):
        read(df)


def test_names_with_inner_or_consistent_spaces_are_kept():
    df = pd.DataFrame({"model": ["my model", "my model", "B ", "B "], "task": ["t"] * 4, "item": [1, 2, 1, 2],
                       "score": [1, 0, 1, 1]})
    assert read(df).models == ("B ", "my model")  # natural order


def test_messages_name_the_cli_option_as_well_as_the_argument(tmp_path):
    # before: "give source_format= one of ..." (no such argument anywhere) and "choose with models=" (the CLI
    # option is --models)
    from typer.testing import CliRunner

    from evalband.cli.main import app

    path = tmp_path / "results"
    path.write_text("model,task,item,score\nA,t,1,1\nB,t,1,0\nC,t,1,1\nA,t,2,0\nB,t,2,0\nC,t,2,1\n")
    res = CliRunner().invoke(app, ["summarize", str(path)])
    assert res.exit_code == 2 and "--source" in res.stderr and "source_format" not in res.stderr
    csv = tmp_path / "results.csv"
    rows = [f"{m},t,{i},{(i * (k + 2)) % 3 % 2}" for k, m in enumerate("ABC") for i in range(12)]
    csv.write_text("model,task,item,score\n" + "\n".join(rows) + "\n")
    res = CliRunner().invoke(app, ["plan", str(csv), "--effect", "0.05"])
    assert res.exit_code == 0 and "--models" in res.output
