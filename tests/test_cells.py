"""The cell rule (evalband._cells): a nested value (an object, a list, an array, bytes) in a cell any table reads is
one InputError naming the row and the column, through the Python API as through files (the corpus in
tests/io/test_malformed_corpus.py, class 'nested', covers the readers and the command line)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband._cells import check_cells, describe, nested_cells
from evalband._validate import InputError
from evalband.data.battles import BattleTable
from evalband.data.costs import CostTable
from evalband.io import read
from evalband.data.ratings import RatingsTable
from evalband.data.table import ResultsTable, parse_scores


def test_nested_cells_finds_every_kind_and_only_those():
    values = pd.Series(["a", 1, 2.5, None, {"v": 1}, [1], (1, 2), np.array([1.0]), b"x", True, np.nan],
                       dtype=object)
    assert nested_cells(values).tolist() == [4, 5, 6, 7, 8]
    for plain in (pd.Series(["a", "b"]), pd.Series([1, 2]), pd.Series([0.5, np.nan]), pd.Series([True, False]),
                  pd.Series(["a", None], dtype=object), pd.Series([1, "a"], dtype=object), np.arange(3),
                  pd.Series(pd.Categorical(["x", "y"]))):
        assert nested_cells(plain).size == 0


def test_nested_cells_of_categories_and_2d_arrays():
    cat = pd.Series(pd.Categorical.from_codes([0, 1, 1, 0], categories=pd.Index([("a", 1), "b"], dtype=object)))
    assert nested_cells(cat).tolist() == [0, 3]
    two = np.empty((3, 2), dtype=object)
    two[:] = 1.0
    two[2, 1] = {"v": 1}
    assert nested_cells(two).tolist() == [2]
    assert nested_cells([1, [2], 3]).tolist() == [1]


def test_describe_is_short_and_says_the_kind():
    assert describe({"value": 1}) == "an object {'value': 1}"
    assert describe(np.array([1, 0])) == "a list [1, 0]"
    assert describe(b"ab") == "bytes b'ab'"
    assert len(describe(list(range(100)))) < 60


def test_check_cells_names_the_first_row_and_counts():
    col = pd.Series([1, {"a": 1}, [2]], index=[10, 11, 12], dtype=object)
    with pytest.raises(InputError) as err:
        check_cells(col, "score", source="f.jsonl", where=lambda pos: f"line {col.index[pos]}", expected="a number")
    assert str(err.value).startswith("f.jsonl, line 11, column 'score': score must be a number; got an object")
    assert "2 such rows" in str(err.value)


@pytest.mark.parametrize("role", ["model", "task", "item", "trial", "cluster", "group", "prompt", "score", "cost",
                                  "latency", "human"])
def test_results_frame_every_role(role):
    frame = pd.DataFrame({"model": ["a", "a", "b", "b"], "task": "t", "item": ["1", "2", "1", "2"], "trial": "1",
                          "cluster": "c", "group": "g", "prompt": "p", "score": [1, 0, 1, 1], "cost": 0.1,
                          "latency": 1.0, "human": [1, 0, 1, 1]})
    frame[role] = frame[role].astype(object)
    frame.at[3, role] = {"value": 1}
    with pytest.raises(InputError, match=rf"row 3, column '{role}': {role} must be .*an object"):
        read(frame, facets=["prompt"])


def test_parse_scores_is_guarded():
    with pytest.raises(InputError, match="got a list"):
        parse_scores(pd.Series([1, [0]], dtype=object), source="x")


def test_summary_and_wide_frames():
    summary = pd.DataFrame({"model": ["a", "b"], "task": "t", "n": [10, 10], "correct": [3, [4]]})
    with pytest.raises(InputError, match="column 'correct': correct must be a number; got a list"):
        ResultsTable.from_summary(summary)
    wide = pd.DataFrame({"item": ["1", "2"], "A": [1, {"v": 0}], "B": [0, 1]})
    with pytest.raises(InputError, match="column 'A': score must be .*got an object"):
        read(wide, shape="wide")


def test_battles_arrays_and_frames():
    with pytest.raises(InputError, match="column 'model_b': model_b must be text; got an object"):
        BattleTable.build(["a", "b"], ["b", {"n": "c"}], [1.0, 0.0])
    with pytest.raises(InputError, match="row 1, column 'judge'"):
        BattleTable.build(["a", "b"], ["b", "c"], [1.0, 0.0], labels={"judge": [["j"], "k"]})
    with pytest.raises(InputError, match="column 'length'.*got an object"):
        BattleTable.build(["a", "b"], ["b", "c"], [1.0, 0.0],
                          features={"length": np.array([[1, 2], [3, {"n": 4}]], dtype=object)})
    frame = pd.DataFrame({"model_a": ["a", "b"], "model_b": ["b", "c"], "winner": ["model_a", ["tie"]]})
    with pytest.raises(InputError, match="column 'winner': winner must be .*got a list"):
        read(frame)


def test_battles_pair_of_nested_columns_is_named_not_read():
    """A pair NAME_a / NAME_b of objects only (FastChat's conversations) is no style feature: a note says so."""
    frame = pd.DataFrame({"model_a": ["a", "b"], "model_b": ["b", "c"], "winner": ["model_a", "tie"],
                          "conversation_a": [[{"role": "user"}], [{"role": "user"}]],
                          "conversation_b": [[{"role": "user"}], [{"role": "user"}]]}).rename(
        columns={"conversation_a": "conv_a", "conversation_b": "conv_b"})
    table = read(frame, source="battles")
    assert not table.features
    assert any("conv_a/conv_b hold objects or lists" in n for n in table.notes)
    numeric = frame.assign(len_a=[100, {"n": 1}], len_b=[120, 90])
    with pytest.raises(InputError, match="column 'len_a': style feature must be a number"):
        read(numeric, source="battles")


def test_ratings_and_costs():
    long = pd.DataFrame({"unit": ["u1", "u1", "u2", "u2"], "rater": ["r1", "r2", "r1", "r2"],
                         "value": [1, 2, {"v": 1}, 2]})
    with pytest.raises(InputError, match="row 2, column 'value': rating must be text or a number; got an object"):
        RatingsTable.from_long(long)
    with pytest.raises(InputError, match="column 'rater'"):
        RatingsTable.from_long(long.assign(value=1, rater=["r1", ("r2",), "r1", "r2"]))
    with pytest.raises(InputError, match="column 'cost': cost must be a number; got a list"):
        CostTable.build(["a", "b"], cost=[0.1, [0.2]])
    with pytest.raises(InputError, match="column 'item': item must be text or a number"):
        CostTable.build(["a", "b"], item=["1", {"id": 2}], cost=[0.1, 0.2])
