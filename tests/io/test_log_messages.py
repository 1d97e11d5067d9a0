"""What the harness readers say about the logs they read: a result found twice names one log once ("twice in the same
log", with the two places in it) and two logs by names that tell them apart; hidden files and folders of a log folder
(names starting with '.') are skipped with a note that counts and names them; labels written with combining marks
(decomposed Unicode) are shown in NFC with a note naming the spelling as written, in logs as in tables."""

from __future__ import annotations

import json

import pytest

from evalband._validate import InputError
from evalband.io import read
from evalband.io.folders import places
from evalband.data.table import ResultsTable

import pandas as pd


def _log(model, task, samples):
    return {"version": 2, "status": "success", "eval": {"model": model, "task": task,
                                                         "scorers": [{"name": "match"}]}, "samples": samples}


def _sample(i, value, epoch=1):
    return {"id": i, "epoch": epoch, "scores": {"match": {"value": value}}, "metadata": {}}


def test_places_in_words(tmp_path):
    assert places(tmp_path / "a.json", tmp_path / "a.json", at=("samples[1]", "samples[4]")) == \
        "twice in the same log a.json (samples[1] and samples[4])"
    assert places(tmp_path / "a.json", tmp_path / "b.json") == "in two logs: a.json and b.json"
    assert places(tmp_path / "x" / "a.json", tmp_path / "y" / "a.json", "file") == "in two files: x/a.json and y/a.json"


def test_a_sample_twice_in_one_log_says_so(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(_log("m", "t", [_sample("1", 1), _sample("3", 0), _sample("3", 1)])))
    with pytest.raises(InputError) as err:
        read(tmp_path / "a.json")
    text = str(err.value)
    assert "sample '3', epoch 1 appears twice in the same log a.json (samples[1] and samples[2]); keep one" in text
    assert "two logs" not in text


def test_a_sample_in_two_logs_of_one_name_names_their_folders(tmp_path):
    for sub in ("run1", "run2"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "a.json").write_text(json.dumps(_log("m", "t", [_sample("1", 1)])))
    with pytest.raises(InputError, match="appears in two logs: run1/a.json and run2/a.json"):
        read(tmp_path)


def test_hidden_files_and_folders_are_named_in_notes(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(_log("m", "t", [_sample("1", 1), _sample("2", 0)])))
    (tmp_path / ".a.json.swp").write_text("junk")
    (tmp_path / ".DS_Store").write_bytes(b"\x00\x01")
    (tmp_path / ".old").mkdir()
    (tmp_path / ".old" / "b.json").write_text(json.dumps(_log("m2", "t", [_sample("1", 0)])))
    table = read(tmp_path)
    assert table.models == ("m",)
    notes = " | ".join(table.notes)
    assert "skipped 2 (hidden files: the name starts with '.'): .DS_Store, .a.json.swp" in notes
    assert "skipped 1 (hidden folders, not searched: the name starts with '.'): .old" in notes


def test_a_folder_of_hidden_files_only(tmp_path):
    (tmp_path / ".a.json").write_text(json.dumps(_log("m", "t", [_sample("1", 1)])))
    with pytest.raises(InputError, match=r"the folder holds no file but hidden ones \(.a.json\)"):
        read(tmp_path, source="inspect")


def test_combining_marks_are_named_as_written():
    df = pd.DataFrame({"model": ["cafe\u0301", "nai\u0308ve", "b"], "task": "t", "item": "1", "score": [1, 0, 1]})
    table = ResultsTable.from_items(df)
    assert table.models == ("b", "caf\u00e9", "na\u00efve")
    assert "model 'cafe\\u0301' is written with combining marks (decomposed Unicode, NFD) and shown as 'caf\u00e9'" \
        " (normalized to NFC, the one spelling of labels) (and 1 more model label)" in table.notes


def test_combining_marks_in_logs_get_the_note(tmp_path):
    """Log readers keep ids as written, so that the table says what it normalized (they were normalized silently)."""
    (tmp_path / "a.json").write_text(json.dumps(_log("cafe\u0301", "t", [_sample("e\u0301", 1), _sample("2", 0)]),
                                                ensure_ascii=False))
    table = read(tmp_path / "a.json")
    assert table.models == ("caf\u00e9",)
    said = " | ".join(table.notes)
    assert "model 'cafe\\u0301' is written with combining marks" in said
    assert "item 'e\\u0301' is written with combining marks" in said


def test_battles_and_ratings_follow_the_label_rule():
    """Battle sides and rating units, raters and clusters: one model written in NFC and NFD was two models that look
    alike (silently); now NFC with the note naming the spelling, and two spellings in one file are refused."""
    from evalband.data.battles import BattleTable
    from evalband.data.ratings import RatingsTable
    from evalband._validate import InputError

    table = BattleTable.build(["cafe\u0301", "b"], ["b", "cafe\u0301"], [1.0, 0.5])
    assert table.models == ("b", "caf\u00e9")
    assert any("model 'cafe\\u0301' is written with combining marks" in n for n in table.notes)
    with pytest.raises(InputError, match="differ only in Unicode normalization"):
        BattleTable.build(["cafe\u0301", "b"], ["b", "caf\u00e9"], [1.0, 0.5])
    ratings = RatingsTable.from_long(pd.DataFrame({"unit": ["u1", "u1", "u2", "u2"],
                                                   "rater": ["Zoe\u0308", "ann", "Zoe\u0308", "ann"],
                                                   "value": [1, 2, 2, 2]}))
    assert "Zo\u00eb" in ratings.raters
    assert any("rater 'Zoe\\u0308' is written with combining marks" in n for n in ratings.notes)
