"""The tabular reader: shapes, sources, column mapping, and messages naming file, line and column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband import InputError, read
from evalband.io.tabular import read_tabular


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_long_csv_error_names_file_line_and_column(tmp_path):
    path = write(tmp_path, "r.csv", "model,task,item,score\na,t,1,1\na,t,2,abc\nb,t,1,0\n")
    with pytest.raises(InputError, match=r"r\.csv, line 3, column 'score': score 'abc' is not a number"):
        read(path)


def test_long_csv_out_of_range_and_blank(tmp_path):
    path = write(tmp_path, "r.csv", "model,task,item,score\na,t,1,1\na,t,2,\nb,t,1,7\n")
    with pytest.raises(InputError, match=r"line 3, column 'score': missing score \(NaN or blank; 1 such row\)"):
        read(path)
    path = write(tmp_path, "s.csv", "model,task,item,score\na,t,1,1\na,t,2,0\nb,t,1,7\n")
    with pytest.raises(InputError, match=r"s\.csv, line 4, column 'score': score 7.0 lies outside \[0, 1\]"):
        read(path)
    assert read(path, unbounded=True).score_kind == "unbounded"


def test_duplicate_rows_in_a_file_name_both_lines(tmp_path):
    path = write(tmp_path, "d.tsv", "model\ttask\titem\tscore\na\tt\t1\t1\nb\tt\t1\t0\na\tt\t1\t0\n")
    with pytest.raises(InputError, match=r"d\.tsv, line 2: duplicate result for model 'a', task 't', item '1' \(also"
                                         r" at line 4; 2 duplicated rows\)"):
        read(path)


def test_missing_columns_suggest_mapping(tmp_path):
    path = write(tmp_path, "m.csv", "name,task,score\na,t,1\n")
    with pytest.raises(InputError, match=r"m\.csv: missing columns 'model', 'item'; found 'name', 'task', 'score'"
                                         r" \(map names with model_col"):  # the Python keyword (the CLI says --model-col)
        read(path)
    path = write(tmp_path, "m.csv", "name,task,item,score\na,t,1,1\n")
    with pytest.raises(InputError, match=r"m\.csv: column 'who' \(named with `model_col`\) is not in the file; its"
                                         r" columns: 'name', 'task', 'item', 'score'"):
        read(path, model_col="who")
    # without a model column the file is one model's results, named after the file, and the note says so
    assert "no 'model' column: one model named 'm'" in read(path).notes
    assert read(path, model_col="name").models == ("a",)


def test_unknown_shape_is_explained(tmp_path):
    path = write(tmp_path, "x.csv", "a,b\n1,2\n")
    with pytest.raises(InputError, match="cannot tell the table's shape: no 'score' column"):
        read(path)
    with pytest.raises(InputError, match="no such file"):
        read(tmp_path / "absent.csv")


def test_wide_blanks_counted_per_model(tmp_path):
    path = write(tmp_path, "w.csv", "item,task,A,B,C\n1,t,1,,0\n2,t,0,1,\n3,u,1,0,\n4,u,0,1,1\n")
    table = read(path)
    assert table.models == ("A", "B", "C") and table.tasks == ("t", "u")
    assert "blank cells read as 'no result' and left out (C: 2, B: 1)" in table.notes
    assert len(table.data) == 12 - 3
    cov = table.coverage().set_index(["model", "task"])["left_out"]
    assert cov[("A", "t")] == 2 and cov[("A", "u")] == 1 and cov[("C", "u")] == 0


def test_wide_task_with_every_cell_blank_is_an_error(tmp_path):
    path = write(tmp_path, "w.csv", "item,task,A,B\n1,t,1,0\n2,u,,\n")
    with pytest.raises(InputError, match="column 'task': task 'u' has no result at all"):
        read(path)


def test_wide_text_columns_are_named():
    with pytest.raises(InputError, match="column 'A' holds text, not scores; name the model columns"):
        read(pd.DataFrame({"item": [1, 2], "A": ["x", "y"], "B": ["C", "I"]}))
    table = read(pd.DataFrame({"item": [1, 2], "A": ["x", "y"], "B": ["C", "I"]}), models=["B"])
    assert table.models == ("B",) and table.data["score"].tolist() == [1.0, 0.0]


def test_summary_csv_percent_detected(tmp_path):
    path = write(tmp_path, "s.csv", "model,task,n,accuracy\na,t,1000,45.67\nb,t,1000,50\n")
    table = read(path)
    assert table.level == "summary" and table.data["correct"].tolist() == [456, 500]
    assert any("accuracy read as percent" in n for n in table.notes)
    assert read(path, count_rule="round").data["correct"].tolist() == [457, 500]
    bad = write(tmp_path, "b.csv", "model,task,n,accuracy\na,t,1000,45.67\nb,t,x,50\n")
    with pytest.raises(InputError, match=r"b\.csv, line 3, column 'n': n 'x' is not a number"):
        read(bad)


def test_parquet_and_jsonl_sources(tmp_path):
    df = pd.DataFrame({"m": ["a", "a", "b", "b"], "q": [1, 2, 1, 2], "s": [1.0, 0.0, 1.0, 1.0]})
    df.to_parquet(tmp_path / "r.parquet")
    df.to_json(tmp_path / "r.jsonl", orient="records", lines=True)
    for name in ("r.parquet", "r.jsonl"):
        table = read(tmp_path / name, model_col="m", item_col="q", score_col="s", task="demo")
        assert table.models == ("a", "b") and table.tasks == ("demo",)
        assert table.data["score"].tolist() == [1.0, 0.0, 1.0, 1.0]
        assert "no 'task' column: one task named 'demo'" in table.notes


def test_single_model_log_without_model_column(tmp_path):
    path = write(tmp_path, "gpt-4o-airline.csv", "task_id,trial,reward\n0,0,1\n0,1,0\n1,0,1\n1,1,1\n")
    table = read(path, item_col="task_id", score_col="reward")
    assert table.models == ("gpt-4o-airline",) and table.has_trials
    assert "no 'model' column: one model named 'gpt-4o-airline'" in table.notes


def test_cluster_column_mapping_and_check(tmp_path):
    path = write(tmp_path, "c.csv", "model,task,item,passage,score\na,t,1,p,1\na,t,2,p,0\na,t,3,q,1\n")
    table = read(path, cluster_col="passage")
    assert table.has_clusters and table.data["cluster"].astype(str).tolist() == ["p", "p", "q"]
    with pytest.raises(InputError, match="column 'doc' \\(named with `cluster_col`\\) is not in the file"):
        read(path, cluster_col="doc")


def test_dataframe_and_dispatcher_round_trip():
    df = pd.DataFrame({"model": ["a", "b"], "task": "t", "item": [1, 1], "score": [True, False]})
    table = read(df)
    assert read(table) is table
    assert table.source == "<DataFrame>" and table.score_kind == "binary"
    with pytest.raises(ValueError, match="`shape` must be one of"):
        read_tabular(df, shape="tall")
    assert np.array_equal(read("example:vtab").counts().n.shape, (16, 19))
