"""QA regressions for CSV line numbers: a blank line shifted every later line number by one (pandas skips blank
lines), so the error pointed at the wrong line; and a file cut off mid-line blamed a 'missing cluster' instead of
saying the last line is incomplete."""

from __future__ import annotations

import pytest

from evalband import InputError, read


def test_line_numbers_count_blank_lines(tmp_path):
    path = tmp_path / "blank.csv"
    path.write_text("model,task,item,score\nA,t,1,1\n\nA,t,2,0\nA,t,3,7\nB,t,1,1\nB,t,2,1\nB,t,3,0\n")
    with pytest.raises(InputError, match=r"blank.csv, line 5, column 'score': score 7"):
        read(path)


def test_blank_lines_are_still_skipped(tmp_path):
    path = tmp_path / "blank.csv"
    path.write_text("model,task,item,score\nA,t,1,1\n\nA,t,2,0\n\n\nB,t,1,1\nB,t,2,0\n\n")
    assert read(path).counts().n.tolist() == [[2], [2]]


def test_truncated_last_line_is_named(tmp_path):
    path = tmp_path / "cut.csv"
    path.write_text("model,task,item,cluster,score\nA,t,1,c1,1\nA,t,2,c1,0\nB,t,1,c1,1\nB,t,2")
    with pytest.raises(InputError, match=r"cut.csv, line 5: the last line has 3 of 5 fields"):
        read(path)


def test_complete_file_without_final_newline_is_fine(tmp_path):
    path = tmp_path / "ok.csv"
    path.write_text('model,task,item,score\nA,t,1,1\nA,t,2,0\nB,t,1,1\n"B",t,2,0')
    assert read(path).counts().n.tolist() == [[2], [2]]


def test_compressed_csv_is_not_mistaken_for_truncated(tmp_path):
    import gzip

    path = tmp_path / "ok.csv.gz"
    path.write_bytes(gzip.compress(b"model,task,item,score\nA,t,1,1\nA,t,2,0\nB,t,1,1\nB,t,2,0\n"))
    assert read(path).counts().n.tolist() == [[2], [2]]


def test_jsonl_line_numbers_count_blank_lines(tmp_path):
    path = tmp_path / "blank.jsonl"
    rec = '{{"model": "{m}", "task": "t", "item": {i}, "score": {s}}}'
    lines = [rec.format(m="A", i=1, s=1), "", rec.format(m="A", i=2, s=5), rec.format(m="B", i=1, s=1),
             rec.format(m="B", i=2, s=0)]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"blank.jsonl, line 3, column 'score': score 5"):
        read(path)
