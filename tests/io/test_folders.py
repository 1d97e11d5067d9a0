"""Many logs -> one table: detection by content, globs and lists, mixed sources, skipped files listed."""

from __future__ import annotations

import shutil

import pytest

from evalband._validate import InputError
from evalband.io import SOURCES, read
from evalband.io.folders import classify, detect, expand

from ..conftest import FIXTURES

LOGS = FIXTURES / "harness_logs"


def test_every_source_is_registered():
    assert {"lm-eval", "inspect", "helm", "rliable"} <= set(SOURCES)


@pytest.mark.parametrize("sub, kind", [("lm_eval", "lm-eval"), ("inspect", "inspect"), ("inspect_eval", "inspect"),
                                       ("helm", "helm")])
def test_detect_by_content(sub, kind):
    assert detect(LOGS / sub) == kind


def test_rliable_and_tabular_files_are_told_apart(tmp_path):
    assert classify(FIXTURES / "atari100k" / "SPR.json") == "rliable"
    (tmp_path / "t.json").write_text('[{"model": "a", "task": "t", "item": 1, "score": 1}]')
    assert classify(tmp_path / "t.json") is None
    table = read(tmp_path / "t.json")  # still the tabular reader
    assert table.models == ("a",)


def test_mixed_folder_is_a_clear_error_and_source_picks_one():
    with pytest.raises(InputError, match="mixes logs of different tools: helm.*inspect.*lm-eval"):
        read(LOGS)
    table = read(LOGS, source="helm")
    assert any("not read by the helm reader" in n for n in table.notes)
    assert any("LICENSE_every_eval_ever_MIT.txt" in n for n in table.notes)


def test_glob_and_list_of_paths_make_one_table():
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    one = read(str(LOGS / "inspect_eval" / "*.eval"))
    assert one.models == ("mockllm/model", "mockllm/model2")
    files = sorted((LOGS / "inspect_eval").glob("*.eval"))
    two = read([str(f) for f in files], source="inspect")
    assert two.data["score"].tolist() == one.data["score"].tolist()
    _, listed = expand(str(LOGS / "**" / "*.json"))
    assert all(p.suffix == ".json" for p in listed)


def test_inspect_json_and_eval_logs_together(tmp_path):
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    for f in (LOGS / "inspect").glob("*.json"):
        shutil.copy(f, tmp_path)
    for f in (LOGS / "inspect_eval").glob("*.eval"):
        shutil.copy(f, tmp_path)
    table = read(tmp_path)
    assert len(table.models) == 5


def test_missing_path_and_empty_pattern():
    with pytest.raises(InputError, match="no such file"):
        read(LOGS / "nope", source="inspect")
    with pytest.raises(InputError, match="matches no file"):
        read(str(LOGS / "*.nothing"), source="inspect")


def test_a_folder_of_table_shards_reads_as_its_glob(tmp_path):
    """QA pass: `evalband compare shards/ --scheduler ...` read a folder of Parquet/CSV shards, while the same
    command without --scheduler refused the folder ("a folder without harness logs"): a folder holding only
    table shards (hidden files aside) reads as the glob of its files, on one machine too; any other file keeps
    the folder refused, as on the cluster."""
    import pandas as pd

    rows = pd.DataFrame({"model": ["a", "b"] * 6, "task": "t", "item": [i // 2 for i in range(12)],
                         "score": [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1]})
    folder = tmp_path / "shards"
    (folder / "sub").mkdir(parents=True)
    rows.iloc[:5].to_parquet(folder / "part-0.parquet", index=False)
    rows.iloc[5:9].to_csv(folder / "part-1.csv", index=False)
    rows.iloc[9:].to_csv(folder / "sub" / "part-2.csv", index=False)
    (folder / ".DS_Store").write_text("hidden")
    whole = read(folder)
    globbed = read(str(folder / "**" / "*"))
    assert whole.data.equals(globbed.data) and len(whole.data) == 12
    (folder / "readme.txt").write_text("notes")
    with pytest.raises(InputError, match="folder without harness logs"):
        read(folder)
