"""Second QA pass: several tables read as one (a glob or a list of files).

Before the fixes, each file's task was ``name.split(".")[0]``: ``run.v1.csv`` and ``run.v2.csv`` both became task
``run`` and were silently merged into one task (4 items instead of 2 + 2), and ``mmlu/results.csv`` with
``gsm8k/results.csv`` were both task ``results`` (a "duplicate result" error naming the wrong line).
"""

from __future__ import annotations

import pandas as pd
import pytest

from evalband import read

ROWS = "model,item,score\na,1,1\na,2,0\nb,1,0\nb,2,{}\n"


def _means(table):
    return table.data.groupby(["model", "task"], observed=True)["score"].mean().to_dict()


def test_dotted_file_names_are_distinct_tasks(tmp_path):
    (tmp_path / "run.v1.csv").write_text(ROWS.format(0))
    (tmp_path / "run.v2.csv").write_text(ROWS.format(1))
    table = read(str(tmp_path / "run.*.csv"))
    assert table.tasks == ("run.v1", "run.v2")
    assert table.counts().n.tolist() == [[2, 2], [2, 2]]  # not one task of 4 items
    # pandas, file by file: the independent answer
    want = {(m, stem): v for stem in ("run.v1", "run.v2")
            for m, v in pd.read_csv(tmp_path / f"{stem}.csv").groupby("model")["score"].mean().items()}
    assert _means(table) == pytest.approx(want)


def test_same_file_name_in_two_folders_is_named_by_folder(tmp_path):
    for folder, last in (("mmlu", 0), ("gsm8k", 1)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "results.csv").write_text(ROWS.format(last))
    table = read(str(tmp_path / "*" / "results.csv"))
    assert table.tasks == ("gsm8k/results", "mmlu/results")
    assert _means(table)[("b", "gsm8k/results")] == 0.5 and _means(table)[("b", "mmlu/results")] == 0.0
    assert any("gsm8k/results, mmlu/results" in n for n in table.notes)


def test_compressed_suffix_is_stripped_too(tmp_path):
    import gzip

    (tmp_path / "code.csv.gz").write_bytes(gzip.compress(ROWS.format(1).encode()))
    (tmp_path / "math.csv").write_text(ROWS.format(0))
    assert read([tmp_path / "code.csv.gz", tmp_path / "math.csv"]).tasks == ("code", "math")


def test_headers_differing_only_by_case_across_files_are_one_table(tmp_path):
    # one file's header as one tool writes it, the other's in capitals: one file alone reads either (O20)
    (tmp_path / "a.csv").write_text("model,task,item,score\nA,t,1,1\nA,t,2,0\nB,t,1,1\nB,t,2,1\n")
    (tmp_path / "b.csv").write_text("Model,Task,Item,Score\nA,u,1,1\nA,u,2,0\nB,u,1,0\nB,u,2,1\n")
    table = read(str(tmp_path / "*.csv"))
    assert table.tasks == ("t", "u") and table.models == ("A", "B")
    frames = [pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv").rename(columns=str.lower)]
    want = pd.concat(frames).groupby(["model", "task"])["score"].mean().to_dict()
    assert _means(table) == pytest.approx(want)
    # columns that really differ are still refused
    (tmp_path / "c.csv").write_text("model,task,item,score,trial\nA,v,1,1,0\n")
    with pytest.raises(Exception, match="tables read together need the same columns"):
        read(str(tmp_path / "*.csv"))


def test_file_named_twice_in_a_list_is_read_once_with_a_note(tmp_path):
    # before: read([a, a]) silently gave the table of one copy, with nothing said
    path = tmp_path / "a.csv"
    path.write_text("model,task,item,score\nA,t,1,1\nA,t,2,0\nB,t,1,1\nB,t,2,1\n")
    table = read([path, path])
    assert table.counts().n.tolist() == [[2], [2]]  # each item once
    assert f"1 file named more than once in the list was read once: {path}" in table.notes
    assert not any("more than once" in n for n in read(str(tmp_path / "*.csv")).notes)


def test_symlinked_files_are_named_by_their_own_folder(tmp_path):
    # both links point into one folder; resolving them would name both tasks after that folder
    store = tmp_path / "store"
    store.mkdir()
    (store / "a.csv").write_text(ROWS.format(0))
    (store / "b.csv").write_text(ROWS.format(1))
    for folder, target in (("mmlu", "a.csv"), ("gsm8k", "b.csv")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "results.csv").symlink_to(store / target)
    table = read([tmp_path / "mmlu" / "results.csv", tmp_path / "gsm8k" / "results.csv"])
    assert table.tasks == ("gsm8k/results", "mmlu/results")
    assert _means(table)[("b", "gsm8k/results")] == 0.5 and _means(table)[("b", "mmlu/results")] == 0.0
