"""Columnar fast path: the per-task matrices equal what the validated table gives, from any row order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalband._validate import InputError
from evalband.io import read
from evalband.io.arrow import read_score_matrices


@pytest.fixture
def frame(rng):
    rows = []
    for t, n in (("t1", 57), ("t2", 130), ("t3", 9)):
        for m in ("alpha", "beta", "gamma", "delta"):
            rows.append(pd.DataFrame({"model": m, "task": t, "item": [f"{t}-q{i}" for i in range(n)],
                                      "score": (rng.random(n) < 0.6).astype(np.int8), "group": t[:2]}))
    df = pd.concat(rows, ignore_index=True)
    drop = rng.choice(len(df), size=11, replace=False)  # some models miss some items
    return df.drop(index=drop).sample(frac=1.0, random_state=3).reset_index(drop=True)


def test_matrices_equal_table_task_data(frame, tmp_path):
    path = tmp_path / "x.parquet"
    frame.to_parquet(path, row_group_size=100)
    mats = read_score_matrices(path, batch_size=77, group_col="group")
    table = read(frame)
    assert set(mats.models) == set(table.models) and set(mats.tasks) == set(table.tasks)
    for task in table.tasks:
        td = table.task_data(task, models=list(mats.models))
        order_t = np.argsort(td.items)
        order_m = np.argsort(mats.items[task].astype(str))
        np.testing.assert_array_equal(mats.items[task][order_m].astype(str), td.items[order_t])
        np.testing.assert_array_equal(mats.scores[task][:, order_m], td.scores[:, order_t])
    assert mats.task_groups == {"t1": "t1", "t2": "t2", "t3": "t3"}
    assert mats.score_kind == "binary"
    lost = sum(int(v) for v in table.coverage()["left_out"])
    assert ("left out" in " ".join(mats.notes)) == (lost > 0)


def test_dictionary_columns_and_errors(tmp_path):
    tab = pa.table({"model": pa.array(["a", "a", "b", "b"]).dictionary_encode(),
                    "task": pa.array(["t"] * 4).dictionary_encode(),
                    "item": pa.array([1, 2, 1, 2], pa.int32()), "score": pa.array([1, 0, 0, 1], pa.int8())})
    pq.write_table(tab, tmp_path / "ok.parquet")
    mats = read_score_matrices(tmp_path / "ok.parquet")
    np.testing.assert_array_equal(mats.scores["t"], [[1, 0], [0, 1]])
    correct, n = mats.counts()
    np.testing.assert_array_equal(correct, [[1], [1]])
    np.testing.assert_array_equal(n, [[2], [2]])

    dup = tab.set_column(2, "item", pa.array([1, 1, 1, 2], pa.int32()))
    pq.write_table(dup, tmp_path / "dup.parquet")
    with pytest.raises(InputError, match="has item '1' of task 't' 2 times"):
        read_score_matrices(tmp_path / "dup.parquet")
    bad = tab.set_column(3, "score", pa.array([1, None, 0, 1], pa.float64()))
    pq.write_table(bad, tmp_path / "bad.parquet")
    with pytest.raises(InputError, match="row 2, column 'score': missing score"):
        read_score_matrices(tmp_path / "bad.parquet")
    big = tab.set_column(3, "score", pa.array([1, 3.5, 0, 1], pa.float64()))
    pq.write_table(big, tmp_path / "big.parquet")
    with pytest.raises(InputError, match="outside"):
        read_score_matrices(tmp_path / "big.parquet")
    assert read_score_matrices(tmp_path / "big.parquet", unbounded=True).score_kind == "unbounded"
    with pytest.raises(InputError, match="missing column 'points'"):
        read_score_matrices(tmp_path / "ok.parquet", score_col="points")


def test_not_parquet(tmp_path):
    (tmp_path / "x.parquet").write_text("hello")
    with pytest.raises(InputError, match="cannot be read as Parquet"):
        read_score_matrices(tmp_path / "x.parquet")


@pytest.mark.parametrize("layout", ["folder", "file"])
def test_same_bootstrap_as_the_table_path(frame, tmp_path, monkeypatch, layout):
    """Items keep their order of first appearance, so the engine draws the same replicates from either path.

    A folder (dataset) takes the hash path for (task, item) pairs; a single file with integer items and Parquet
    statistics takes the bitmap path.
    """
    monkeypatch.setattr("evalband.io.arrow._MERGE_ROWS", 1)  # merge the pair lists after every batch
    from evalband.resample import ItemColumns, bootstrap

    frame = frame.assign(item=frame["item"].str.split("q").str[1].astype(int))
    if layout == "folder":
        target = tmp_path / "ds"
        target.mkdir()
        half = len(frame) // 2
        frame.iloc[:half].to_parquet(target / "part-0.parquet")
        frame.iloc[half:].to_parquet(target / "part-1.parquet")
    else:
        target = tmp_path / "one.parquet"
        frame.to_parquet(target, row_group_size=120)
    mats = read_score_matrices(target, batch_size=50)
    table = read(frame)
    order = [mats.models.index(m) for m in table.models]
    cols = ItemColumns(table.models, mats.tasks, {t: {"score": mats.scores[t][order]} for t in mats.tasks})
    for task in table.tasks:
        np.testing.assert_array_equal(mats.items[task].astype(str), table.task_data(task).items)
    a = bootstrap(cols, n_resamples=300, rng=11)
    b = bootstrap(table, n_resamples=300, rng=11, tasks=list(mats.tasks))
    np.testing.assert_array_equal(a.replicates, b.replicates)
