"""Second QA pass: compressed standard input.

Before the fix, ``gzip -c results.csv | evalband summarize -`` said "could not be read as csv: 'utf-8' codec can't
decode byte 0x8b", although files named ``results.csv.gz`` are read.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma

import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app

runner = CliRunner()
LONG = "model,task,item,score\na,t,1,1\na,t,2,0\na,t,3,1\nb,t,1,0\nb,t,2,0\nb,t,3,1\n"


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_compressed_stdin_reads_like_the_plain_table(compress):
    plain = runner.invoke(app, ["summarize", "-", "-f", "csv"], input=LONG)
    packed = runner.invoke(app, ["summarize", "-", "-f", "csv"], input=compress(LONG.encode()))
    assert packed.exit_code == 0, packed.output
    assert packed.stdout == plain.stdout
    rows = pd.read_csv(io.StringIO(packed.stdout)).query("task == 't'").set_index("model")["estimate"]
    assert rows.to_dict() == pytest.approx({"a": 2 / 3, "b": 1 / 3})  # pandas: mean of the 0/1 scores


def test_truncated_gzip_on_stdin_is_one_line():
    res = runner.invoke(app, ["summarize", "-"], input=gzip.compress(LONG.encode())[:20])
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.exit_code == 2 and len(lines) == 1
    assert lines[0].startswith("evalband: error: <stdin>: looks gzip-compressed but could not be decompressed")


RECORDS = [dict(zip(("model", "task", "item", "score"), r.split(","))) for r in LONG.splitlines()[1:]]


def _jsonl() -> bytes:
    import json

    return "".join(json.dumps(r) + "\n" for r in RECORDS).encode()


def test_jsonl_with_a_byte_order_mark_on_stdin_and_in_files(tmp_path):
    # PowerShell's `Out-File -Encoding utf8` and Notepad write a UTF-8 BOM; before the fix stdin was taken for
    # CSV ("found '{\"model\":\"a\"'...") and the file was "could not be read as jsonl"
    plain = runner.invoke(app, ["summarize", "-", "-f", "csv"], input=LONG).stdout
    res = runner.invoke(app, ["summarize", "-", "-f", "csv"], input=b"\xef\xbb\xbf" + _jsonl())
    assert res.exit_code == 0, res.output
    assert res.stdout == plain
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + _jsonl())
    from evalband import read

    table = read(path)
    assert table.data.groupby("model", observed=True)["score"].mean().to_dict() == pytest.approx(
        {"a": 2 / 3, "b": 1 / 3})
    import json

    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(RECORDS).encode())
    assert read(tmp_path / "bom.json").models == ("a", "b")


def test_bom_jsonl_keeps_file_line_numbers(tmp_path):
    path = tmp_path / "bad.jsonl"
    lines = _jsonl().decode().splitlines()
    lines[3] = lines[3].replace('"score": "0"', '"score": "x"')
    path.write_bytes(b"\xef\xbb\xbf" + ("\n".join(lines[:2]) + "\n\n" + "\n".join(lines[2:]) + "\n").encode())
    from evalband import InputError, read

    with pytest.raises(InputError, match=r"line 5, column 'score': score 'x'"):
        read(path)


def test_tsv_on_stdin_whose_header_holds_a_comma():
    # a wide TSV with a model named 'gpt-4,2024': before, any comma in the header meant CSV, and the table was
    # "cannot tell the table's shape ... found 'item\tgpt-4', '2024\tclaude'"
    text = "item\tgpt-4,2024\tclaude\n1\t1\t0\n2\t0\t1\n3\t1\t1\n"
    res = runner.invoke(app, ["summarize", "-", "-f", "csv"], input=text)
    assert res.exit_code == 0, res.output
    rows = pd.read_csv(io.StringIO(res.stdout)).query("task == 'stdin'").set_index("model")["estimate"]
    assert rows.to_dict() == pytest.approx({"gpt-4,2024": 2 / 3, "claude": 2 / 3})
    # a CSV whose quoted names hold a tab is still CSV (more commas than tabs)
    csv_text = 'model,task,item,score\n"a\tb",t,1,1\n"a\tb",t,2,0\n'
    res = runner.invoke(app, ["summarize", "-", "-f", "csv"], input=csv_text)
    assert res.exit_code == 0, res.output
