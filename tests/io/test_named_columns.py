"""A column named for a role that the file does not have is said to be missing, with the closest column and the
list of columns: one rule (``evalband._lists.check_named_columns``) for every reader's column mapping."""

import re

import pandas as pd
import pytest

from evalband._lists import closest_name
from evalband._validate import InputError
from evalband.io import read

LONG = "model,task,item,score,cluster,prompt\na,t,1,1,p,x\na,t,2,0,p,y\nb,t,1,1,p,x\nb,t,2,1,p,y\n"
WIDE = "question_id,category,A,B\n1,math,1,0\n2,math,0,1\n"


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("argument, typo, meant", [
    ("model_col", "modl", "model"), ("task_col", "tsk", "task"), ("item_col", "itme", "item"),
    ("score_col", "scor", "score"), ("trial_col", "trail", None), ("group_col", "grp", None),
    ("cluster_col", "clustr", "cluster"), ("human_col", "humn", None), ("cost_col", "cots", None),
    ("latency_col", "latncy", None), ("facets", "promt", "prompt"), ("drop_cols", "prmpt", "prompt")])
def test_every_named_column_must_exist(tmp_path, argument, typo, meant):
    path = write(tmp_path, "r.csv", LONG)
    with pytest.raises(InputError) as err:
        read(path, **{argument: [typo] if argument in ("facets", "drop_cols") else typo})
    text = str(err.value)
    assert f"column '{typo}' (named with `{argument}`) is not in the file" in text
    assert "'model', 'task', 'item', 'score', 'cluster', 'prompt'" in text  # the columns, listed
    if meant:
        assert f"did you mean '{meant}'?" in text
    else:
        assert "did you mean" not in text


def test_a_misspelt_task_column_of_a_wide_table_is_not_read_as_a_text_model(tmp_path):
    # the QA report: --task-col categroy said "column 'category' holds text, not scores"
    path = write(tmp_path, "w.csv", WIDE)
    with pytest.raises(InputError, match=r"column 'categroy' \(named with `task_col`\) is not in the file; did you"
                                         r" mean 'category'\?"):
        read(path, shape="wide", item_col="question_id", task_col="categroy")
    assert read(path, shape="wide", item_col="question_id", task_col="category").tasks == ("math",)


def test_defaults_need_no_column(tmp_path):
    # a role left at its default name is optional (no 'trial', 'group', 'cost' column here): nothing refused
    table = read(write(tmp_path, "r.csv", LONG))
    assert table.models == ("a", "b")


def test_ratings_costs_and_battles_share_the_rule(tmp_path):
    ratings = write(tmp_path, "q.csv", "item,grader,score\na,h,1\na,j,2\n")
    with pytest.raises(InputError, match=r"column 'itme' \(named with `unit_col`\) is not in the file; did you mean"
                                         r" 'item'\?"):
        read(ratings, source="ratings", unit_col="itme", rater_col="grader", value_col="score")
    battles = write(tmp_path, "b.csv", "model_a,model_b,winner\nx,y,tie\n")
    with pytest.raises(InputError, match=r"column 'winnr' \(named with `winner_col`\) is not in the file; did you"
                                         r" mean 'winner'\?"):
        read(battles, source="battles", winner_col="winnr")


def test_closest_name_oracle():
    # difflib's ratio (the oracle: SequenceMatcher), case first
    assert closest_name("categroy", ["question_id", "category", "src"]) == "category"
    assert closest_name("MODEL", ["model", "models"]) == "model"
    assert closest_name("zzz", ["model", "task"]) is None


def test_many_columns_are_listed_with_a_count(tmp_path):
    frame = pd.DataFrame({f"m{i}": [1, 0] for i in range(40)}).assign(item=[1, 2])
    with pytest.raises(InputError) as err:
        read(frame, shape="wide", task_col="tsk")
    assert re.search(r"and 21 more$", str(err.value))


def test_unknown_models_and_tasks_suggest_the_closest_name():
    # the QA report: "Typos get no 'did you mean' (--tasks SVNH)"; the one name check of select()
    from evalband import load_example, select
    from evalband._validate import ArgumentError

    with pytest.raises(ArgumentError, match=r"`tasks`: unknown 'SVNH' \(did you mean 'SVHN'\?\); available:"):
        select(load_example("vtab"), tasks=["SVNH"])
    with pytest.raises(ArgumentError, match=r"unknown 'VEA', 'Rotaton' \(did you mean 'VAE', 'Rotation'\?\)"):
        select(load_example("vtab"), models=["VEA", "Rotaton"])
    with pytest.raises(ArgumentError) as err:
        select(load_example("vtab"), models=["zzzz"])
    assert "did you mean" not in str(err.value)
