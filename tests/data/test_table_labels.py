"""The one label rule (evalband.data.labels) and the canonical order of a table's labels.

Oracles: the rule as specified (text as written, typed numbers by value, NFC, look-alikes refused), checked on
every reader: a CSV, a TSV, a JSON Lines file, a Parquet file and a DataFrame holding the same ids give the same
labels; the natural order is checked against orders written out by hand.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalband import read
from evalband.data.labels import JSONFloat, label_column, label_text, natural_key, natural_order, shown
from evalband._validate import InputError
from evalband.data.table import ResultsTable


# ---------------------------------------------------------------------------------------------- the scalar rule
@pytest.mark.parametrize("value,text", [
    ("1.10", "1.10"), ("1.1", "1.1"), ("2", "2"), ("007", "007"), ("NA", "NA"), ("None", "None"), ("nan", "nan"),
    (2, "2"), (np.int64(2**60), str(2**60)), (2**70, str(2**70)), (2.0, "2"), (0.1, "0.1"),
    (1e20, "100000000000000000000"),
    (JSONFloat("1.0"), "1.0"), (JSONFloat("2.50"), "2.50"), (True, "True"), ("cafe\u0301", "caf\u00e9"),
])
def test_label_text(value, text):
    assert label_text(value) == text


@pytest.mark.parametrize("value", [None, float("nan"), pd.NA])
def test_missing_values_are_none(value):
    assert label_text(value) is None


@pytest.mark.parametrize("value", [float("inf"), {"a": 1}, [1, 2]])
def test_values_that_are_no_label(value):
    with pytest.raises(TypeError):
        label_text(value)


def test_json_numbers_keep_their_spelling():
    doc = json.loads('[1, 1.0, 1.10, 2.5e3]', parse_float=JSONFloat)
    assert [label_text(v) for v in doc] == ["1", "1.0", "1.10", "2.5e3"]
    assert doc[1] == 1.0 and isinstance(doc[1], float)  # still a number where a number is read


def test_a_column_of_mixed_json_values_keeps_1_and_1_0_apart():
    col = pd.Series([1, JSONFloat("1.0"), "x", 1], dtype=object, index=[2, 3, 4, 5])
    out, notes = label_column(col, "item", "f.jsonl", "line")
    assert out.tolist() == ["1", "1.0", "x", "1"] and notes == []


def test_a_float_column_gives_integers_without_a_point():
    out, _ = label_column(pd.Series([1.0, 2.0, 2.5]), "item")
    assert out.tolist() == ["1", "2", "2.5"]


# ---------------------------------------------------------------------------------------------- every reader
def _rows(ids):
    return [(m, "t", i, k % 2) for m in ("A", "B") for k, i in enumerate(ids)]


IDS = ["1.1", "1.10", "2", "007", "7", str(2**53 + 1), str(2**53 + 2), "NA", "null"]


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "jsonl-numbers", "parquet", "frame"])
def test_every_reader_gives_the_same_item_labels(fmt, tmp_path):
    rows = _rows(IDS)
    frame = pd.DataFrame(rows, columns=["model", "task", "item", "score"])
    if fmt == "csv":
        frame.to_csv(path := tmp_path / "r.csv", index=False)
    elif fmt == "tsv":
        frame.to_csv(path := tmp_path / "r.tsv", sep="\t", index=False)
    elif fmt.startswith("jsonl"):
        path = tmp_path / "r.jsonl"
        def item(i):  # noqa: E306 - JSON numbers written as spelled, where they are numbers
            return i if fmt == "jsonl-numbers" and i.replace(".", "").isdigit() and not i.startswith("0") else \
                json.dumps(i)
        path.write_text("".join(f'{{"model": "{m}", "task": "{t}", "item": {item(i)}, "score": {s}}}\n'
                                for m, t, i, s in rows))
    elif fmt == "parquet":
        frame.to_parquet(path := tmp_path / "r.parquet")
    else:
        path = frame
    table = read(path)
    td = table.task_data("t")
    assert sorted(td.items) == sorted(IDS) and td.n_items == len(IDS)
    assert table.models == ("A", "B")


def test_empty_cells_are_the_only_missing_labels(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("model,task,item,score\nNA,t,1,1\nNone,t,1,0\n,t,2,1\n")
    with pytest.raises(InputError, match=r"r.csv, line 4, column 'model': missing model"):
        read(path)


def test_json_empty_string_is_missing(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"model": "A", "task": "t", "item": "1", "score": 1}\n{"model": "", "task": "t", "item": "1",'
                    ' "score": 1}\n')
    with pytest.raises(InputError, match=r"line 2, column 'model': missing model"):
        read(path)


# ---------------------------------------------------------------------------------------------- look-alikes
@pytest.mark.parametrize("a,b,why", [
    ("gpt\u200b-4", "gpt-4", "invisible characters (U+200B ZERO WIDTH SPACE)"),
    ("gpt-4\u200e", "gpt-4", "invisible characters (U+200E LEFT-TO-RIGHT MARK)"),
    ("cafe\u0301", "caf\u00e9", "Unicode normalization"),
    ("gpt-4 ", "gpt-4", "surrounding spaces"),
    ("gpt\u00a04", "gpt 4", "kind of space"),
])
def test_labels_that_look_alike_are_one_error_naming_both(a, b, why):
    df = pd.DataFrame({"model": [b, b, a], "task": "t", "item": ["1", "2", "3"], "score": [1, 0, 1]},
                      index=[10, 11, 12])
    with pytest.raises(InputError) as err:
        ResultsTable.from_items(df)
    text = str(err.value)
    assert "row 12, column 'model'" in text and why in text
    assert shown(a) in text and shown(b) in text and "\n" not in text


def test_invisible_characters_without_a_twin_are_kept_with_a_note():
    df = pd.DataFrame({"model": ["gpt\u200b-4", "b"], "task": "t", "item": "1", "score": [1, 0]})
    table = ResultsTable.from_items(df)
    assert table.models == ("b", "gpt\u200b-4")
    assert any("'gpt\\u200b-4' holds invisible characters" in n for n in table.notes)


def test_nfd_labels_are_normalized_with_a_note():
    df = pd.DataFrame({"model": ["cafe\u0301", "b"], "task": "t", "item": "1", "score": [1, 0]})
    table = ResultsTable.from_items(df)
    assert table.models == ("b", "caf\u00e9")
    assert any("normalized to NFC" in n for n in table.notes)


# ---------------------------------------------------------------------------------------------- natural order
def test_natural_order_by_hand():
    assert natural_order(["task10", "task2", "Task1", "task1"]) == ["Task1", "task1", "task2", "task10"]
    assert natural_order(["10", "9", "007", "7", "100"]) == ["007", "7", "9", "10", "100"]
    assert natural_order(["b", "A", "a", "B"]) == ["A", "a", "B", "b"]
    assert natural_order(["x1.10", "x1.9", "x1.1"]) == ["x1.1", "x1.9", "x1.10"]
    assert natural_order(["1" * 5000, "2"]) == ["2", "1" * 5000]  # no int() of long digit runs


def test_natural_key_is_a_total_order():
    labels = ["a01", "a1", "a001", "A1", "1a", "a", ""]
    keys = [natural_key(x) for x in labels]
    assert len(set(keys)) == len(labels)
    assert natural_order(labels) == sorted(labels, key=natural_key)


def test_the_table_orders_every_label_set_naturally():
    gen = np.random.default_rng(3)
    rows = [(f"m{m}", f"task{t}", f"q{i}", f"c{i // 3}", f"g{t // 10}", int(gen.random() < 0.5))
            for m in (10, 2, 1) for t in (11, 3) for i in (12, 1, 5, 30, 2, 4)]
    gen.shuffle(rows)
    table = ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "cluster", "group",
                                                                "score"]))
    assert table.models == ("m1", "m2", "m10") and table.tasks == ("task3", "task11")
    assert table.groups == ("g0", "g1")
    td = table.task_data("task3")
    assert list(td.items) == ["q1", "q2", "q4", "q5", "q12", "q30"]
    assert td.cluster_labels == ("c0", "c1", "c4", "c10")
    # the rows themselves are in the canonical order; their index still names the source rows
    assert list(table.data["model"].iloc[:2]) == ["m1", "m1"] and not table.data.index.is_monotonic_increasing


def test_trials_are_ordered_naturally():
    rows = [("a", "t", "1", trial, s) for trial, s in (("10", 1), ("2", 0), ("1", 1))]
    table = ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "trial", "score"]))
    td = table.task_data("t")
    np.testing.assert_array_equal(td.trial_scores[0, 0], [1, 0, 1])  # trials 1, 2, 10
