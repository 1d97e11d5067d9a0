"""QA regressions O20, O21, O25, O26: header case, globs of tables, standard input, names with commas or '='.

Before the fixes: headers ``Model,Task,Item,Score`` were "missing column 'model'"; ``read("runs/*.csv")`` was
"no such file"; ``evalband summarize -`` was "-: no such file"; and ``--models``/``--weights`` split every comma,
so HELM task names (``mmlu:subject=philosophy,method=multiple_choice_joint``) could not be named.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband import InputError, read
from evalband._lists import split_names
from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()
LONG = "model,task,item,score\na,t,1,1\na,t,2,0\na,t,3,1\nb,t,1,0\nb,t,2,0\nb,t,3,1\n"


def _err(res) -> str:
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    return lines[0]


# ------------------------------------------------------------------------------------------------ O20 header case
def test_capitalized_headers_are_matched(tmp_path):
    path = tmp_path / "caps.csv"
    path.write_text(LONG.replace("model,task,item,score", "Model,Task,ITEM,Score"))
    table = read(path)
    assert table.models == ("a", "b") and table.tasks == ("t",)
    assert table.data.groupby("model", observed=True)["score"].mean().tolist() == pytest.approx([2 / 3, 1 / 3])


def test_capitalized_summary_headers_and_cluster_column():
    summary = read(pd.DataFrame({"Model": ["a", "b"], "Task": ["t", "t"], "N": [10, 10], "Correct": [7, 4]}))
    assert summary.level == "summary" and summary.counts().correct.tolist() == [[7], [4]]
    items = read(pd.DataFrame({"MODEL": ["a"] * 4, "Item": [1, 2, 3, 4], "Score": [1, 0, 1, 1],
                               "Cluster": ["x", "x", "y", "y"]}))
    assert items.has_clusters


def test_columns_differing_only_by_case_are_one_error_naming_both(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("model,Model,task,item,score\na,A,t,1,1\n")
    with pytest.raises(InputError, match=r"columns 'model' and 'Model' differ only by case; rename one, or name the"
                                         r" one to use with `model_col`"):  # the argument in Python
        read(path)
    assert read(path, model_col="Model").models == ("A",)  # named exactly: no ambiguity
    res = runner.invoke(app, ["summarize", str(path)])
    assert "differ only by case; rename one, or name the one to use with `--model-col`" in _err(res)  # the option


# ------------------------------------------------------------------------------------------------ O21 globs
def _two_files(tmp_path, second_score="1"):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "math.csv").write_text("model,item,score\na,1,1\na,2,0\nb,1,0\nb,2,0\n")
    (tmp_path / "runs" / "code.csv").write_text(f"model,item,score\na,1,1\na,2,1\nb,1,0\nb,2,{second_score}\n")
    return str(tmp_path / "runs" / "*.csv")


def test_glob_of_csv_files_is_one_table_with_a_task_per_file(tmp_path):
    pattern = _two_files(tmp_path)
    table = read(pattern)
    assert table.tasks == ("code", "math") and table.models == ("a", "b")
    means = table.data.groupby(["model", "task"], observed=True)["score"].mean()
    assert means[("a", "code")] == 1.0 and means[("b", "code")] == 0.5 and means[("a", "math")] == 0.5
    assert any("each file is one task" in n for n in table.notes)
    listed = read([tmp_path / "runs" / "math.csv", tmp_path / "runs" / "code.csv"])
    assert listed.tasks == ("code", "math")  # a list of paths is read the same way
    res = runner.invoke(app, ["summarize", pattern, "-f", "csv"])
    assert res.exit_code == 0, res.output
    assert {"code", "math"} <= set(pd.read_csv(__import__("io").StringIO(res.stdout))["task"])


def test_a_bad_row_in_a_glob_names_the_file_and_line(tmp_path):
    pattern = _two_files(tmp_path, second_score="oops")
    with pytest.raises(InputError, match=r"\*\.csv, at code\.csv line 5, column 'score': score 'oops'"):
        read(pattern)


def test_files_with_different_columns_are_refused(tmp_path):
    pattern = _two_files(tmp_path)
    (tmp_path / "runs" / "extra.csv").write_text("model,item,score,trial\na,1,1,0\n")
    with pytest.raises(InputError, match=r"extra\.csv: has columns .*'trial' but code\.csv has"):
        read(pattern)


def test_folder_message_no_longer_says_harness_folders_need_source(tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    res = runner.invoke(app, ["summarize", str(tmp_path)])
    line = _err(res)
    assert "need --source" not in line and "glob such as 'folder/*.csv'" in line


# ------------------------------------------------------------------------------------------------ O25 stdin
@pytest.mark.parametrize("text", [LONG, LONG.replace(",", "\t"),
                                  "".join(json.dumps(dict(zip(("model", "task", "item", "score"), r.split(","))))
                                          + "\n" for r in LONG.splitlines()[1:])])
def test_stdin_csv_tsv_and_jsonl(text):
    res = runner.invoke(app, ["summarize", "-", "-f", "csv"], input=text)
    assert res.exit_code == 0, res.output
    frame = pd.read_csv(__import__("io").StringIO(res.stdout))
    rows = frame[frame["task"] == "t"].set_index("model")["estimate"]
    assert rows.to_dict() == pytest.approx({"a": 2 / 3, "b": 1 / 3})


def test_stdin_errors_name_stdin():
    res = runner.invoke(app, ["summarize", "-"], input=LONG.replace("b,t,2,0", "b,t,2,x"))
    assert _err(res).startswith("evalband: error: <stdin>, line 6, column 'score'")
    assert "is empty" in _err(runner.invoke(app, ["summarize", "-"], input=""))
    assert "standard input" in _err(runner.invoke(app, ["summarize", "-", "--source", "inspect"], input=LONG))


def test_stdin_without_task_column_names_the_task_stdin():
    res = runner.invoke(app, ["summarize", "-", "-f", "csv"], input="model,item,score\na,1,1\na,2,0\n")
    assert res.exit_code == 0, res.output
    assert "stdin" in set(pd.read_csv(__import__("io").StringIO(res.stdout))["task"])


# ------------------------------------------------------------------------------------------------ O26 names
@pytest.mark.parametrize("text, names", [
    ("a, b,,c", ["a", "b", "c"]),
    ('"x,y",c', ["x,y", "c"]),
    ('"mmlu:subject=philosophy,method=mc"=2,x=1', ["mmlu:subject=philosophy,method=mc=2", "x=1"]),
    ('"say ""hi""",b', ['say "hi"', "b"]),
    ('a"b,c', ['a"b', "c"]),
])
def test_split_names(text, names):
    assert split_names(text) == names


def test_split_names_reads_at_file_and_refuses_an_unbalanced_quote(tmp_path):
    path = tmp_path / "names.txt"
    path.write_text("mmlu:subject=philosophy,method=mc=2\n\n x=1 \n")
    assert split_names(f"@{path}") == ["mmlu:subject=philosophy,method=mc=2", "x=1"]
    with pytest.raises(ValueError, match="`models`: unbalanced quote"):
        split_names('"a,b', name="models")
    with pytest.raises(ValueError, match="cannot read the list file"):
        split_names(f"@{tmp_path / 'none.txt'}")


HELM_TASK = "mmlu:subject=philosophy,method=multiple_choice_joint"


@pytest.fixture
def helm_csv(tmp_path):
    rows = ["model,task,item,score"]
    for model, phil, other in (("m1", (1, 0), (1, 1)), ("m2", (0, 1), (0, 0)), ("m,3", (1, 1), (0, 1))):
        rows += [f'"{model}","{HELM_TASK}",{i},{s}' for i, s in enumerate(phil)]
        rows += [f'"{model}",x,{i},{s}' for i, s in enumerate(other)]
    path = tmp_path / "helm.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_models_with_commas_by_quoting_and_at_file(helm_csv, tmp_path):
    res = runner.invoke(app, ["summarize", str(helm_csv), "--models", '"m,3",m1', "-f", "csv"])
    assert res.exit_code == 0, res.output
    assert set(pd.read_csv(__import__("io").StringIO(res.stdout))["model"]) == {"m,3", "m1"}
    (tmp_path / "models.txt").write_text("m,3\nm2\n")
    res = runner.invoke(app, ["summarize", str(helm_csv), "--models", f"@{tmp_path / 'models.txt'}", "-f", "csv"])
    assert res.exit_code == 0, res.output
    assert set(pd.read_csv(__import__("io").StringIO(res.stdout))["model"]) == {"m,3", "m2"}


@pytest.mark.parametrize("how", ["quoted", "file"])
def test_weights_name_a_task_with_commas_and_equals(helm_csv, tmp_path, how):
    if how == "quoted":
        weights = f'"{HELM_TASK}"=3,x=1'
    else:
        (tmp_path / "w.txt").write_text(f"{HELM_TASK}=3\nx=1\n")
        weights = f"@{tmp_path / 'w.txt'}"
    res = runner.invoke(app, ["compare", str(helm_csv), "--models", "m1,m2", "--weights", weights, "--seed", "1",
                              "--n-resamples", "50", "-f", "json"])
    assert res.exit_code == 0, res.output
    row = pd.DataFrame(jsonout.records(res.stdout)).iloc[0]
    # by hand: m1 = (3 * 0.5 + 1 * 1.0) / 4 = 0.625, m2 = (3 * 0.5 + 0) / 4 = 0.375 (equal weights would give 0.5)
    assert (row["model_a"], row["model_b"]) == ("m1", "m2")
    assert row["difference"] == pytest.approx(0.25)
    res = runner.invoke(app, ["bayes", str(helm_csv), "--models", "m1,m2", "--weights", weights, "--seed", "1",
                              "-f", "json"])
    assert res.exit_code == 0, res.output
    records = [r for r in jsonout.records(res.stdout) if r.get("record", "model") == "model"]
    assert {r["model"]: r["observed"] for r in records} == pytest.approx({"m1": 0.625, "m2": 0.375})
