"""lm-evaluation-harness output folders: a real output, and hand-built multi-model folders in its exact layout."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalband._validate import InputError
from evalband.data.labels import natural_order
from evalband.io import read
from evalband.io.lm_eval import read_lm_eval

from ..conftest import FIXTURES

REAL = FIXTURES / "harness_logs" / "lm_eval"
STAMP = "2026-01-21T03-44-18.458309"


def test_real_output_model_task_and_skipped_task():
    table = read(REAL)
    assert table.models == ("RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1",)
    assert table.tasks == ("math_perturbed_full",)
    td = table.task_data("math_perturbed_full")
    assert td.n_items == 10
    # items are the doc_hash values written by lm-eval, in the table's canonical (natural) order
    lines = (REAL / f"samples_math_perturbed_full_{STAMP}.jsonl").read_text().splitlines()
    assert list(td.items) == natural_order(json.loads(line)["doc_hash"] for line in lines)
    # the results file reports exact_match 0.0 on the full task; the 10 logged documents are all 0
    assert td.scores.sum() == 0
    assert any("math_rephrased_full" in n and "no samples file" in n for n in table.notes)
    assert any("metric used: exact_match" in n for n in table.notes)


def _write_run(folder, model, tasks, *, stamp="2025-01-01T00-00-00.000001", groups=None, use_model_args=False):
    """Write one lm-eval run: tasks = {task: [(doc_id, doc_hash, {filter: {metric: value}})]}."""
    folder.mkdir(parents=True, exist_ok=True)
    results = {}
    for task, docs in tasks.items():
        by = {}
        for _, _, per_filter in docs:
            for flt, metrics in per_filter.items():
                for m, v in metrics.items():
                    by.setdefault(f"{m},{flt}", []).append(v)
        results[task] = {"alias": task, **{k: float(np.mean(v)) for k, v in by.items()}}
        with open(folder / f"samples_{task}_{stamp}.jsonl", "w") as fh:
            for doc_id, doc_hash, per_filter in docs:
                for flt, metrics in per_filter.items():
                    rec = {"doc_id": doc_id, "doc": {"subject": f"s{doc_id % 2}"}, "target": "x",
                           "filter": flt, "metrics": list(metrics), **metrics}
                    if doc_hash is not None:
                        rec["doc_hash"] = doc_hash
                    fh.write(json.dumps(rec) + "\n")
    doc = {"results": results, "group_subtasks": groups or {t: [] for t in tasks},
           "config": {"model": "hf", "model_args": f"pretrained={model},dtype=bfloat16"}}
    if not use_model_args:
        doc["model_name"] = model
    (folder / f"results_{stamp}.json").write_text(json.dumps(doc))
    return results


def test_two_models_paired_by_doc_hash_not_doc_id(tmp_path):
    # model B logged the same documents in another order (different doc_id); doc_hash identifies them
    a = [(0, "h0", {"none": {"acc": 1.0, "acc_norm": 0.0}}), (1, "h1", {"none": {"acc": 0.0, "acc_norm": 1.0}}),
         (2, "h2", {"none": {"acc": 1.0, "acc_norm": 1.0}})]
    b = [(0, "h2", {"none": {"acc": 0.0, "acc_norm": 1.0}}), (1, "h0", {"none": {"acc": 1.0, "acc_norm": 1.0}}),
         (2, "h1", {"none": {"acc": 1.0, "acc_norm": 0.0}})]
    groups = {"suite": ["mc"], "mc": []}
    ra = _write_run(tmp_path / "A", "org/A", {"mc": a}, groups=groups)
    rb = _write_run(tmp_path / "B", "org/B", {"mc": b}, groups=groups, use_model_args=True)
    table = read(tmp_path)
    assert table.models == ("org/A", "org/B")
    td = table.task_data("mc")
    order = np.argsort(td.items)
    np.testing.assert_array_equal(td.items[order], ["h0", "h1", "h2"])
    np.testing.assert_array_equal(td.scores[:, order], [[1, 0, 1], [1, 1, 0]])
    # per-model means equal the task accuracy the results file reports (as lm-eval computes it)
    np.testing.assert_allclose(td.scores.mean(axis=1), [ra["mc"]["acc,none"], rb["mc"]["acc,none"]])
    assert set(table.data["group"]) == {"suite"}
    norm = read_lm_eval(tmp_path, metric="acc_norm")
    np.testing.assert_allclose(norm.task_data("mc").scores.mean(axis=1),
                               [ra["mc"]["acc_norm,none"], rb["mc"]["acc_norm,none"]])


def test_filters_choose_one_record_per_document(tmp_path):
    docs = [(i, f"h{i}", {"strict-match": {"exact_match": float(i % 2)},
                          "flexible-extract": {"exact_match": 1.0}}) for i in range(4)]
    _write_run(tmp_path, "m", {"gsm": docs})
    default = read(tmp_path)
    assert default.task_data("gsm").scores.tolist() == [[0, 1, 0, 1]]
    assert any("filter used: strict-match (chosen by default" in n for n in default.notes)
    flex = read(tmp_path, source="lm-eval", filter="flexible-extract")
    assert flex.task_data("gsm").scores.tolist() == [[1, 1, 1, 1]]
    with pytest.raises(InputError, match="no usable result"):
        read(tmp_path, filter="nope")


def test_doc_id_fallback_groups_top_level_and_doc_cluster(tmp_path):
    docs = [(i, None, {"none": {"acc": float(i < 2)}}) for i in range(4)]
    groups = {"mmlu": ["mmlu_stem"], "mmlu_stem": ["algebra"], "algebra": []}
    _write_run(tmp_path, "m", {"algebra": docs}, groups=groups)
    t = read(tmp_path, cluster_col="doc.subject")
    assert t.task_data("algebra").items.tolist() == ["0", "1", "2", "3"]
    assert set(t.data["group"]) == {"mmlu_stem"}
    assert t.task_data("algebra").n_clusters == 2
    assert any("paired by doc_id" in n for n in t.notes)
    top = read_lm_eval(tmp_path, group="top")
    assert set(top.data["group"]) == {"mmlu"}


def test_same_model_and_task_in_two_runs_is_a_conflict(tmp_path):
    docs = [(0, "h0", {"none": {"acc": 1.0}})]
    _write_run(tmp_path / "r1", "m", {"t": docs}, stamp="2025-01-01T00-00-00.1")
    _write_run(tmp_path / "r2", "m", {"t": docs}, stamp="2025-01-02T00-00-00.1")
    with pytest.raises(InputError, match="appears in two runs"):
        read(tmp_path)


def test_corpus_level_metric_is_refused(tmp_path):
    _write_run(tmp_path, "m", {"t": [(0, "h", {"none": {"acc": 1.0}})]})
    path = next(tmp_path.glob("samples_*.jsonl"))
    rec = json.loads(path.read_text())
    rec["bleu"] = ["ref", "pred"]
    rec["metrics"] = ["bleu"]
    path.write_text(json.dumps(rec) + "\n")
    with pytest.raises(InputError, match=r"line 1: metric .bleu. holds a list") as err:
        read(tmp_path)
    assert path.name in str(err.value)


def test_malformed_line_names_file_and_line(tmp_path):
    _write_run(tmp_path, "m", {"t": [(i, f"h{i}", {"none": {"acc": 1.0}}) for i in range(3)]})
    path = next(tmp_path.glob("samples_*.jsonl"))
    lines = path.read_text().splitlines()
    lines[1] = lines[1][:20]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"line 2: malformed JSON line"):
        read(tmp_path)


def test_samples_without_results_file_are_skipped_with_reason(tmp_path):
    _write_run(tmp_path, "m", {"t": [(0, "h", {"none": {"acc": 1.0}})]})
    (tmp_path / "samples_orphan_2030-01-01T00-00-00.1.jsonl").write_text('{"doc_id": 0, "acc": 1}\n')
    table = read(tmp_path)
    assert any("no results_<date>.json" in n and "samples_orphan" in n for n in table.notes)


def test_tabular_options_are_refused_not_ignored():
    with pytest.raises(ValueError, match="score_col"):
        read(REAL, source="lm-eval", score_col="acc")


def test_a_samples_file_named_alone_finds_its_results_file():
    table = read(REAL / f"samples_math_perturbed_full_{STAMP}.jsonl", source="lm-eval")
    assert table.models == ("RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1",)
    assert table.task_data("math_perturbed_full").n_items == 10
    assert not any("no samples file" in n for n in table.notes)
