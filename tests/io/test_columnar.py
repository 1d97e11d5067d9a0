"""The columnar reader (issue 14, 1e8 rows through the CLI): a file read in record batches into a compact frame
gives the same table, the same notes and byte-identical JSON as the general (text) path.

Oracle: the general path itself, on the same files. Small files are forced through the columnar path by setting
``evalband.io.columnar.MIN_ROWS`` to 0 (the private switch); real data with clusters (MMLU-Pro, categories as
clusters) and with trials (tau-bench, 4 trials per task), as CSV, gzip-compressed CSV, TSV and Parquet.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband.io import columnar

DATA = Path("/work/shared/data")


def _mmlu_long() -> pd.DataFrame:
    wide = pd.read_csv(DATA / "mmlu_pro" / "mmlu_pro_correct_29models.csv", dtype=str, keep_default_na=False)
    wide = wide[wide["category"].isin(["law", "math", "business"])]
    models = ["Yi-6B", "gemma-7b", "Meta-Llama-3-8B", "Mistral-7B-v0.1"]
    long = wide.melt(id_vars=["question_id", "category", "src"], value_vars=models, var_name="model",
                     value_name="score")
    long = long.rename(columns={"question_id": "item", "category": "task", "src": "cluster"})
    return long.sample(frac=1.0, random_state=3).reset_index(drop=True)


def _tau() -> pd.DataFrame:
    df = pd.read_csv(DATA / "tau_bench" / "gpt-4o-airline_rewards.csv", dtype=str, keep_default_na=False)
    return df


def _write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".parquet":
        frame.to_parquet(path)
    elif path.suffix == ".gz":
        path.write_bytes(gzip.compress(frame.to_csv(index=False).encode()))
    elif path.suffix == ".tsv":
        frame.to_csv(path, index=False, sep="\t")
    else:
        frame.to_csv(path, index=False)
    return path


def _run(args, monkeypatch, *, columnar_path: bool):
    monkeypatch.setattr(columnar, "MIN_ROWS", 0 if columnar_path else 10**12)
    res = CliRunner().invoke(app, [*args, "--format", "json"])
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".tsv", ".parquet"])
@pytest.mark.parametrize("command", [["summarize"], ["compare", "--n-resamples", "200", "--seed", "7"],
                                     ["rank", "--n-resamples", "200", "--seed", "7"]])
def test_clusters_same_json(suffix, command, tmp_path, monkeypatch):
    path = _write(_mmlu_long(), tmp_path / f"mmlu{suffix}")
    args = [command[0], str(path), *command[1:]]
    general = _run(args, monkeypatch, columnar_path=False)
    fast = _run(args, monkeypatch, columnar_path=True)
    assert general[0] == 0, general[2]
    assert fast == general


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("command", ["summarize", "passk"])
def test_trials_same_json(suffix, command, tmp_path, monkeypatch):
    path = _write(_tau(), tmp_path / f"tau{suffix}")
    args = [command, str(path), "--item-col", "task_id", "--score-col", "reward", "--trial-col", "trial"]
    general = _run(args, monkeypatch, columnar_path=False)
    fast = _run(args, monkeypatch, columnar_path=True)
    assert general[0] == 0, general[2]
    assert fast == general


def test_the_columnar_frame_is_compact(tmp_path, monkeypatch):
    """Text cells become categoricals (each distinct text once); a Parquet integer column keeps its dtype."""
    monkeypatch.setattr(columnar, "MIN_ROWS", 0)
    frame = _mmlu_long()
    frame["score"] = frame["score"].astype("int8")
    path = _write(frame, tmp_path / "m.parquet")
    assert columnar.wanted(path, "parquet")
    out, row_word, notes = columnar.load_columnar(path, "parquet", str(path))
    assert row_word == "row" and notes == []
    assert out["score"].dtype == "int8"
    assert isinstance(out["model"].dtype, pd.CategoricalDtype)
    assert sorted(out["model"].cat.categories) == sorted(frame["model"].unique())
    assert out["model"].astype(str).tolist() == frame["model"].tolist()
    assert list(out.index[:3]) == [1, 2, 3]


def test_threshold_reads_small_files_by_the_text_path(tmp_path, monkeypatch):
    monkeypatch.setattr(columnar, "MIN_ROWS", 1_000_000)
    path = _write(_mmlu_long(), tmp_path / "m.csv")
    assert not columnar.wanted(path, "csv")
    monkeypatch.setattr(columnar, "MIN_ROWS", 1_000)
    assert columnar.wanted(path, "csv")  # 7,000 rows, estimated from the size of the first lines


def test_errors_name_the_line_on_the_columnar_path(tmp_path, monkeypatch):
    rows = _mmlu_long().head(50)
    text = rows.to_csv(index=False).splitlines()
    text[20] = text[20] + ",extra"
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(text) + "\n")
    code, _, err = _run(["summarize", str(path)], monkeypatch, columnar_path=True)
    assert code == 2
    assert "line 21" in err and "bad.csv" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_reading_reports_progress_by_batches(suffix, tmp_path, monkeypatch):
    """Reading goes through the shared progress display (a bar on a terminal once it has run a second): one
    step per record batch (Parquet) or block (CSV), named after the file."""
    import evalband._progress as progress

    calls = []
    real = progress.track

    def spy(results, total, **kwargs):
        calls.append((total, kwargs.get("description")))
        yield from real(results, total, **kwargs)

    monkeypatch.setattr(progress, "track", spy)
    monkeypatch.setattr(columnar, "BATCH_ROWS", 500)
    monkeypatch.setattr(columnar, "BLOCK_BYTES", 1 << 12)
    path = _write(_mmlu_long(), tmp_path / f"m{suffix}")
    columnar.load_columnar(path, suffix.lstrip("."), str(path))
    assert len(calls) == 1
    total, description = calls[0]
    assert description == f"reading m{suffix}" and total > 5


def test_quoted_line_breaks_keep_physical_lines(tmp_path, monkeypatch):
    """A value holding a line break makes the file's lines differ from its records: the error still names the
    physical line (the text path's oracle: the same message)."""
    text = "model,task,item,score\nA,t,\"two\nlines\",1\nA,t,q2,0\nB,t,\"two\nlines\",1\nB,t,q2,x\n"
    path = tmp_path / "q.csv"
    path.write_text(text)
    general = _run(["summarize", str(path)], monkeypatch, columnar_path=False)
    fast = _run(["summarize", str(path)], monkeypatch, columnar_path=True)
    assert fast == general
    assert fast[0] == 2 and "line 7" in fast[2]
