"""inspect_ai logs: native .eval archives (zstd members) and JSON logs, against inspect_ai's own stored metrics."""

from __future__ import annotations

import json
import shutil
import zipfile

import numpy as np
import pytest

from evalband._validate import InputError
from evalband.io import read
from evalband.io.inspect import read_eval_archive, read_inspect

from ..conftest import FIXTURES

LOGS = FIXTURES / "harness_logs"
EVAL = LOGS / "inspect_eval"
MODEL1 = EVAL / "2026-11-30T06-58-49-00-00_tiny_G65qe5jx3xquVE9jiCRwgR.eval"


def test_eval_archive_members_are_zstd_and_read_without_inspect_ai():
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    # the archives really use zip method 93 (Zstandard), which zipfile of Python 3.11 cannot open
    methods = {i.compress_type for i in zipfile.ZipFile(MODEL1).infolist()}
    assert methods == {93}
    header, samples = read_eval_archive(MODEL1)
    assert header["eval"]["model"] == "mockllm/model"
    assert len(samples) == 18


def test_eval_logs_reproduce_inspect_accuracy_and_stderrs():
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    table = read(EVAL, cluster_col="metadata.passage")
    assert table.models == ("mockllm/model", "mockllm/model2")
    assert table.tasks == ("tiny",)
    assert table.has_trials and table.has_clusters
    td = table.task_data("tiny")
    assert td.scores.shape == (2, 6)
    assert (td.trials == 3).all()
    # inspect_ai 0.3.285 stored in header.json results (reducer 'mean'): accuracy per model
    np.testing.assert_allclose(td.scores.mean(axis=1), [0.4444444444444445, 0.7777777777777777], rtol=1e-12)
    # inspect_ai stderr() of the epoch-reduced scores for mockllm/model: 0.07027283689263064
    x = td.scores[0]
    np.testing.assert_allclose(np.sqrt(x.var(ddof=1) / x.size), 0.07027283689263064, rtol=1e-12)
    # inspect_ai stderr(cluster="passage") for both models: 0.05555555555555555; it is the cluster-robust
    # sqrt(G/(G-1) * sum_g (sum_{i in g} (x_i - mean))^2) / n, so it checks the cluster codes read here
    assert sorted(td.cluster_labels) == ["p0", "p1", "p2"]
    for row in td.scores:
        r = row - row.mean()
        sums = np.bincount(td.clusters, weights=r)
        g = sums.size
        np.testing.assert_allclose(np.sqrt(g / (g - 1) * (sums ** 2).sum()) / r.size, 0.05555555555555555,
                                   rtol=1e-12)


def test_json_logs_models_tasks_and_letters():
    table = read_inspect(LOGS / "inspect")
    assert set(table.models) == {"ollama/qwen2.5:0.5b", "anthropic/claude-sonnet-4-0", "openai/azure/gpt-4o-mini"}
    assert set(table.tasks) == {"inspect_evals/arc_easy", "inspect_evals/pubmedqa"}
    d = table.data
    means = d.groupby(["model", "task"], observed=True)["score"].mean()
    # results.scores[0].metrics.accuracy stored in each log by inspect_ai
    assert means[("ollama/qwen2.5:0.5b", "inspect_evals/arc_easy")] == pytest.approx(0.3333333333333333)
    assert means[("anthropic/claude-sonnet-4-0", "inspect_evals/arc_easy")] == pytest.approx(1.0)
    assert means[("openai/azure/gpt-4o-mini", "inspect_evals/pubmedqa")] == pytest.approx(1.0)
    assert any("scorer used: choice" in n for n in table.notes)


def _json_log(model, task, samples, scorer="match"):
    return {"version": 2, "status": "success",
            "eval": {"model": model, "task": task, "scorers": [{"name": scorer}]},
            "samples": samples}


def _sample(i, value, epoch=1, **meta):
    return {"id": i, "epoch": epoch, "scores": {"match": {"value": value}}, "metadata": meta}


def test_letters_numbers_missing_scores_and_metadata_subtasks(tmp_path):
    log = _json_log("m", "t", [_sample("a", "C", cat="x"), _sample("b", "I", cat="x"), _sample("c", "P", cat="y"),
                               _sample("d", "N", cat="y"), _sample("e", 0.25, cat="y"),
                               {"id": "f", "epoch": 1, "error": "boom", "metadata": {"cat": "y"}}])
    (tmp_path / "a.json").write_text(json.dumps(log))
    table = read(tmp_path / "a.json")
    assert table.data["score"].tolist() == [1.0, 0.0, 0.5, 0.0, 0.25]
    assert table.score_kind == "bounded"
    assert any("without a 'match' score" in n for n in table.notes)
    split = read(tmp_path / "a.json", group_col="metadata.cat")
    assert split.tasks == ("t/x", "t/y")
    assert set(split.data["group"]) == {"t"}


def test_dict_valued_scorer_needs_a_key(tmp_path):
    log = _json_log("m", "t", [{"id": 1, "epoch": 1, "scores": {"match": {"value": {"acc": 1, "f1": 0.5}}}}])
    (tmp_path / "a.json").write_text(json.dumps(log))
    with pytest.raises(InputError, match="several values"):
        read(tmp_path / "a.json")
    assert read(tmp_path / "a.json", metric="match:f1").data["score"].tolist() == [0.5]


def test_same_model_task_sample_in_two_logs_is_a_conflict(tmp_path):
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    shutil.copy(MODEL1, tmp_path / "one.eval")
    shutil.copy(MODEL1, tmp_path / "two.eval")
    with pytest.raises(InputError, match="appears in two logs"):
        read(tmp_path)


def test_unknown_scorer_skips_everything_with_reason(tmp_path):
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    with pytest.raises(InputError, match="no usable result"):
        read(EVAL, metric="nope")


def test_truncated_archive_is_one_line_error(tmp_path):
    data = MODEL1.read_bytes()
    bad = tmp_path / "cut.eval"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="cut.eval") as err:
        read(bad)
    assert "\n" not in str(err.value)


def test_missing_zstandard_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(ImportError, match=r"pip install 'evalband\[logs\]'"):
        read(MODEL1)
