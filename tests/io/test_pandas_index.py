"""The CSV that pandas' ``DataFrame.to_csv()`` writes by default (an index column under an empty header cell) is read:
an empty first header over the row numbers 0..n-1 is pandas' index, left out with a note, by the text path and by
the columnar path of large files (checked batch by batch), from a file, a glob and standard input. An empty first
header over anything else stays an error naming the line of the first cell that is no row number. A Parquet file
whose columns pandas restores as an index (``df.set_index('model').to_parquet()``) is read with those columns.

Oracle: the same frame written with ``index=False`` (the same table, the same JSON but the note).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband.io import columnar, read
import jsonout  # noqa: E402


def _frame(n_items=200):
    return pd.DataFrame({"model": np.repeat(["A", "B", "C"], n_items), "task": "t",
                         "item": np.tile(np.arange(n_items).astype(str), 3),
                         "score": (np.arange(3 * n_items) * 7 % 5 < 3).astype(int)})


def _json(args, *, stdin=None):
    res = CliRunner().invoke(app, ["summarize", *args, "--format", "json"], input=stdin)
    assert res.exit_code == 0, res.stderr
    return jsonout.records(res.stdout), " ".join(res.stderr.split())


@pytest.mark.parametrize("columnar_path", [False, True])
@pytest.mark.parametrize("sep", [",", "\t"])
def test_to_csv_default_is_read_with_a_note(tmp_path, monkeypatch, columnar_path, sep):
    monkeypatch.setattr(columnar, "MIN_ROWS", 0 if columnar_path else 10**12)
    monkeypatch.setattr(columnar, "BLOCK_BYTES", 1 << 10)  # several batches: the row numbers run across them
    suffix = ".tsv" if sep == "\t" else ".csv"
    df = _frame()
    df.to_csv(tmp_path / f"indexed{suffix}", sep=sep)
    df.to_csv(tmp_path / f"plain{suffix}", sep=sep, index=False)
    got, said = _json([str(tmp_path / f"indexed{suffix}")])
    want, _ = _json([str(tmp_path / f"plain{suffix}")])
    assert got == want
    assert "holds the row numbers 0 to 599: pandas' index (as DataFrame.to_csv writes it), left out" in said


def test_standard_input_and_globs(tmp_path):
    df = _frame()
    got, said = _json(["-"], stdin=df.to_csv().encode())
    want, _ = _json(["-"], stdin=df.to_csv(index=False).encode())
    assert got == want and "pandas' index" in said
    for k, model in enumerate("AB"):
        df[df.model == model].reset_index(drop=True).to_csv(tmp_path / f"run{k}.csv")
    table = read(str(tmp_path / "run*.csv"))
    assert table.models == ("A", "B") and sum("pandas' index" in n for n in table.notes) == 2


@pytest.mark.parametrize("columnar_path", [False, True])
@pytest.mark.parametrize("index, line, holds", [
    (np.arange(600)[::-1], 2, "'599' where row number 0"),  # reversed
    (np.r_[np.arange(500), np.arange(501, 601)], 502, "'501' where row number 500"),  # a row left out, batch 5
    (np.arange(1, 601), 2, "'1' where row number 0"),  # 1-based
])
def test_other_first_columns_stay_an_error(tmp_path, monkeypatch, columnar_path, index, line, holds):
    monkeypatch.setattr(columnar, "MIN_ROWS", 0 if columnar_path else 10**12)
    monkeypatch.setattr(columnar, "BLOCK_BYTES", 1 << 10)
    _frame().set_axis(index).to_csv(tmp_path / "x.csv")
    res = CliRunner().invoke(app, ["summarize", str(tmp_path / "x.csv")])
    assert res.exit_code == 2
    assert f"x.csv, line {line}: header cell 1 is empty, and the column is no pandas index" in res.stderr
    assert holds in res.stderr


def test_an_empty_header_cell_elsewhere_stays_an_error(tmp_path):
    (tmp_path / "e.csv").write_text(",model,,item,score\n0,A,x,1,1\n1,B,x,1,0\n")
    with pytest.raises(Exception, match="header cell 1 is empty"):
        read(str(tmp_path / "e.csv"))


@pytest.mark.parametrize("columnar_path", [False, True])
def test_parquet_index_columns_are_columns(tmp_path, monkeypatch, columnar_path):
    monkeypatch.setattr(columnar, "MIN_ROWS", 0 if columnar_path else 10**12)
    df = _frame()
    df.set_index("model").to_parquet(tmp_path / "one.parquet")
    df.set_index(["model", "item"]).to_parquet(tmp_path / "two.parquet")
    df.to_parquet(tmp_path / "plain.parquet")
    want = read(str(tmp_path / "plain.parquet")).data.reset_index(drop=True)
    for name in ("one", "two"):
        got = read(str(tmp_path / f"{name}.parquet")).data.reset_index(drop=True)
        pd.testing.assert_frame_equal(got[want.columns], want)


def test_json_of_columns_is_aligned_by_row_key(tmp_path):
    """pandas' to_json() (an object per column, keyed by row): a column written in another key order is aligned by
    key, not shifted; a key one column lacks is an error; keys other than 0..n-1 are named in a note."""
    df = _frame(4)
    df.to_json(tmp_path / "cols.json")
    doc = json.loads((tmp_path / "cols.json").read_text())
    doc["score"] = dict(reversed(list(doc["score"].items())))
    (tmp_path / "shuffled.json").write_text(json.dumps(doc))
    want = read(df).data.reset_index(drop=True)
    for name in ("cols", "shuffled"):
        got = read(str(tmp_path / f"{name}.json"))
        pd.testing.assert_frame_equal(got.data.reset_index(drop=True), want)
        assert not any("keys" in n for n in got.notes)
    df.set_axis(np.arange(12) * 3 + 5).to_json(tmp_path / "keyed.json")
    assert any("the rows are named by keys (5, 8, 11 ...; a pandas index)" in n
               for n in read(str(tmp_path / "keyed.json")).notes)
    del doc["task"]["3"]
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(Exception, match="column 'task' lacks row '3', which column 'model' has"):
        read(str(tmp_path / "bad.json"))
