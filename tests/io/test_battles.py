"""Battle readers: column layouts, winner values, errors naming file, line and field; the detector."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from evalband._validate import InputError
from evalband.io.battles import battles_from_frame, looks_like_battles, read_battles

from ..conftest import FIXTURES

LLMFAO = FIXTURES / "llmfao" / "crowd-comparisons.csv"


def test_llmfao_left_right_layout():
    t = read_battles(LLMFAO)
    assert t.n_battles == 8931 and t.n_models == 59
    assert set(t.labels) == {"question", "judge"}  # prompt -> question, worker -> judge
    assert t.row_word == "line" and t.rows[0] == 2
    df = pd.read_csv(LLMFAO)
    assert int(t.tie.sum()) == int((df.winner == "tie").sum())
    names = np.asarray(t.models, dtype=object)
    assert (names[t.model_a] == df["left"].to_numpy()).all()


@pytest.mark.parametrize("winner, expected", [
    (["model_a", "model_b", "tie", "tie (bothbad)"], [1.0, 0.0, 0.5, 0.5]),
    (["A", "b", "Tie", "draw"], [1.0, 0.0, 0.5, 0.5]),
    (["left", "right", "tie", "LEFT"], [1.0, 0.0, 0.5, 1.0]),
    (["x", "z", "y", "tie"], [1.0, 0.0, 0.0, 0.5]),            # the winning model's name
    (["1", "0", "0.5", "0.75"], [1.0, 0.0, 0.5, 0.75]),        # probabilities as text
    ([1.0, 0.0, 0.5, 0.25], [1.0, 0.0, 0.5, 0.25]),            # probabilities as numbers
])
def test_winner_values(winner, expected):
    frame = pd.DataFrame({"model_a": ["x", "y", "x", "z"], "model_b": ["y", "z", "y", "x"], "winner": winner})
    t = read_battles(frame)
    assert t.outcome.tolist() == expected
    assert t.tie.tolist() == [e == 0.5 for e in expected]


def test_bothbad_is_counted_in_notes():
    frame = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "x"], "winner": ["tie (bothbad)", "model_a"]})
    assert any("1 'tie (bothbad)' battles counted as ties" in n for n in read_battles(frame).notes)


def write(tmp_path, text, name="battles.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_unknown_winner_names_file_line_and_column(tmp_path):
    path = write(tmp_path, "model_a,model_b,winner\nx,y,model_a\nx,z,maybe\ny,z,maybe\n")
    with pytest.raises(InputError) as err:
        read_battles(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}, line 3, column 'winner': winner 'maybe' is none of model_a, model_b, tie")
    assert "(2 such rows)" in msg


@pytest.mark.parametrize("body, line, column, words", [
    ("x,x,model_a\n", 2, "model_b", "self-battle"),
    ("x,y,model_a\n,y,tie\n", 3, "model_a", "no model name"),
    ("x,y,\n", 2, "winner", "a blank winner"),
    ("x,y,1.5\n", 2, "winner", r"winner 1.5 is not a probability in \[0, 1\]"),
    ("x,y,model_a\nx,z,1.5\n", 3, "winner", "winner '1.5' is none of"),
])
def test_bad_rows_are_refused_with_their_line(tmp_path, body, line, column, words):
    path = write(tmp_path, "model_a,model_b,winner\n" + body)
    with pytest.raises(InputError, match=words) as err:
        read_battles(path)
    assert err.value.row == f"line {line}" and err.value.column == column


def test_empty_and_missing_columns(tmp_path):
    with pytest.raises(InputError, match="holds no battles"):
        read_battles(write(tmp_path, "model_a,model_b,winner\n"))
    with pytest.raises(InputError, match="not a battle table: no winner column"):
        read_battles(write(tmp_path, "model_a,model_b,result\nx,y,1\n"))
    with pytest.raises(InputError, match="no column 'verdict'"):
        read_battles(write(tmp_path, "model_a,model_b,winner\nx,y,tie\n"), winner_col="verdict")


def test_numeric_winner_out_of_range(tmp_path):
    path = write(tmp_path, "model_a,model_b,winner\nx,y,1\nx,y,2\n")
    with pytest.raises(InputError, match=r"winner 2.0 is not a probability in \[0, 1\]") as err:
        read_battles(path)
    assert err.value.row == "line 3"


def test_mapped_columns_labels_weights_and_style(tmp_path):
    path = write(tmp_path, "A,B,Who,q,rater,w,len_a,len_b,diff\n"
                           "x,y,A,q1,r1,1,10,20,0.5\nx,z,B,q1,r2,3,5,5,-1\ny,z,tie,q2,r1,1,7,3,2\n")
    t = read_battles(path, model_a_col="A", model_b_col="B", winner_col="Who", question_col="q",
                     judge_col="rater", weight_col="w", style_cols=["diff"])
    assert t.outcome.tolist() == [1.0, 0.0, 0.5]
    assert t.weight.tolist() == [1.0, 3.0, 1.0]
    assert t.labels["question"].tolist() == ["q1", "q1", "q2"] and t.labels["judge"].tolist() == ["r1", "r2", "r1"]
    assert t.features["len"].tolist() == [[10, 20], [5, 5], [7, 3]]
    assert t.features["diff"].tolist() == [0.5, -1.0, 2.0]
    assert any("style features: len (len_a/len_b), diff (diff)" in n for n in t.notes)


@pytest.mark.parametrize("fmt", ["tsv", "jsonl", "parquet"])
def test_other_file_formats(tmp_path, fmt):
    frame = pd.DataFrame({"model_a": ["x", "y", "z"], "model_b": ["y", "z", "x"], "winner": ["a", "b", "tie"],
                          "question_id": ["q1", "q2", "q2"]})
    path = tmp_path / f"b.{fmt}"
    if fmt == "tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif fmt == "jsonl":
        path.write_text("\n".join(json.dumps(r) for r in frame.to_dict("records")) + "\n")
    else:
        frame.to_parquet(path)
    t = read_battles(path)
    assert t.outcome.tolist() == [1.0, 0.0, 0.5] and t.labels["question"].tolist() == ["q1", "q2", "q2"]
    assert looks_like_battles(path)


def test_standard_input(monkeypatch):
    data = b"left,right,winner\nx,y,left\ny,x,tie\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    t = read_battles("-")
    assert t.source == "<stdin>" and t.outcome.tolist() == [1.0, 0.5]


def test_looks_like_battles_is_cheap_and_never_raises(tmp_path):
    assert looks_like_battles(LLMFAO)
    assert not looks_like_battles(FIXTURES / "tau_bench" / "gpt-4o-airline_rewards.csv")
    assert not looks_like_battles(tmp_path / "missing.csv")
    assert not looks_like_battles(write(tmp_path, "\x00\x01garbage", name="x.parquet"))
    assert looks_like_battles(pd.DataFrame({"left": [], "right": [], "winner": []}))
    assert not looks_like_battles(pd.DataFrame({"model": [], "task": [], "item": [], "score": []}))
    assert not looks_like_battles(42)


def test_battles_from_frame_row_labels():
    frame = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "y"], "winner": ["a", "b"]}, index=[10, 11])
    with pytest.raises(InputError) as err:
        battles_from_frame(frame, source="f.csv", row_word="line")
    assert err.value.row == "line 11"
    with pytest.raises(TypeError, match="must be a path"):
        read_battles(3.5)
    with pytest.raises(ValueError, match="`source` must be one of 'auto', 'columns'"):
        read_battles(frame, source="lmsys")
