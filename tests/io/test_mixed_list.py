"""Second QA pass: a table named in a list together with harness logs.

Before the fix, ``read(["scores.csv", "codellama-7b_temp0.2_input.json"])`` returned the CRUXEval model alone:
the CSV that the user named was skipped, with only a note ("skipped 1 (not a log for the cruxeval reader)").
"""

from __future__ import annotations

import json

import pytest

from evalband import InputError, read


def _crux(tmp_path):
    path = tmp_path / "codellama-7b_temp0.2_input.json"
    path.write_text(json.dumps({"raw_scored_generations": {"sample_0": [True, False], "sample_1": [True, True]}}))
    return path


def test_table_listed_with_logs_is_an_error_naming_it(tmp_path):
    table = tmp_path / "scores.csv"
    table.write_text("model,task,item,score\nb,CRUXEval-I,sample_0,1\nb,CRUXEval-I,sample_1,0\n")
    with pytest.raises(InputError, match=r"scores\.csv: is a table, but the other paths are cruxeval logs"):
        read([table, _crux(tmp_path)])


def test_logs_alone_and_folders_with_other_files_still_read(tmp_path):
    crux = _crux(tmp_path)
    table = read([crux])
    assert table.models == ("codellama-7b",) and table.tasks == ("CRUXEval-I",)
    # pass@1 per item (1/2, 2/2) averaged: 0.75, from the booleans above
    assert table.data["score"].mean() == pytest.approx(3 / 4)
    (tmp_path / "notes.csv").write_text("a,b\n1,2\n")  # a table found inside a folder is still only skipped
    folder = read(tmp_path)
    assert folder.models == ("codellama-7b",) and any("skipped 1" in n for n in folder.notes)
