"""HELM run folders: per-task means must equal HELM's own per-run means in stats.json."""

from __future__ import annotations

import json
import shutil

import pytest

from evalband._validate import InputError
from evalband.io import read
from evalband.io.helm import read_helm

from ..conftest import FIXTURES

HELM = FIXTURES / "harness_logs" / "helm"
RUNS = sorted(p for p in HELM.iterdir() if p.is_dir())


def _helm_mean(run, metric, split):
    """HELM's own aggregate (stats.json, no perturbation) for a metric and split."""
    for s in json.loads((run / "stats.json").read_text()):
        name = s["name"]
        if name["name"] == metric and name.get("split") == split and "perturbation" not in name:
            return s["mean"]
    raise KeyError(metric)


@pytest.mark.parametrize("metric", ["exact_match", "quasi_exact_match"])
def test_task_means_equal_helm_stats(metric):
    table = read(HELM, metric=metric)
    assert set(table.models) == {"eleutherai/pythia-1b-v0", "openai/gpt2"}
    means = table.data.groupby(["model", "task"], observed=True)["score"].mean()
    for run in RUNS:
        spec = json.loads((run / "run_spec.json").read_text())
        model = spec["adapter_spec"]["model"]
        task = next(t for (m, t) in means.index if m == model and t.split(":")[0] == spec["name"].split(":")[0])
        split = "test" if "mmlu" in task or "narrative" in task else "valid"
        assert means[(model, task)] == pytest.approx(_helm_mean(run, metric, split), rel=1e-12)
    assert "mmlu:subject=philosophy,method=multiple_choice_joint" in table.tasks
    assert set(table.data["group"]) == {"hellaswag", "mmlu", "narrative_qa"}


def test_f1_on_narrative_qa_and_split_choice():
    run = HELM / "narrative_qa-model=openai_gpt2"
    t = read_helm(run, metric="f1_score")
    assert t.data["score"].mean() == pytest.approx(_helm_mean(run, "f1_score", "test"), rel=1e-12)
    assert t.score_kind == "bounded"
    valid = read_helm(run, metric="f1_score", split="valid")
    assert valid.data["score"].mean() == pytest.approx(_helm_mean(run, "f1_score", "valid"), rel=1e-12)


def test_perturbations_skipped_and_counted_or_kept_as_tasks(tmp_path):
    run = tmp_path / "r"
    shutil.copytree(HELM / "narrative_qa-model=openai_gpt2", run)
    stats = json.loads((run / "per_instance_stats.json").read_text())
    for inst in stats:  # HELM writes robustness statistics with a perturbation in the stat name
        inst["stats"].append({"name": {"name": "exact_match", "split": "test",
                                       "perturbation": {"name": "robustness", "robustness": True}},
                              "count": 1, "sum": 1.0, "mean": 1.0})
    (run / "per_instance_stats.json").write_text(json.dumps(stats))
    plain = read(run, source="helm")
    assert plain.tasks == ("narrative_qa",)
    assert any("skipped 5 statistics on perturbed instances" in n for n in plain.notes)
    kept = read_helm(run, perturbations=True)
    assert kept.tasks == ("narrative_qa", "narrative_qa|robustness")
    assert kept.task_data("narrative_qa|robustness").scores.mean() == 1.0


def test_missing_run_spec_and_conflicts(tmp_path):
    src = HELM / "narrative_qa-model=openai_gpt2"
    shutil.copytree(src, tmp_path / "a")
    shutil.copytree(src, tmp_path / "b")
    with pytest.raises(InputError, match="appears in two runs"):
        read(tmp_path, source="helm")
    (tmp_path / "b" / "run_spec.json").unlink()
    t = read(tmp_path, source="helm")
    assert t.models == ("openai/gpt2",)


def test_wrong_types_name_the_file(tmp_path):
    run = tmp_path / "r"
    shutil.copytree(HELM / "narrative_qa-model=openai_gpt2", run)
    stats = json.loads((run / "per_instance_stats.json").read_text())
    stats[2]["stats"][0]["name"] = "exact_match"
    (run / "per_instance_stats.json").write_text(json.dumps(stats))
    with pytest.raises(InputError, match=r"per_instance_stats.json: '\[2\].stats\[0\].name' must be an object"):
        read(run, source="helm")


@pytest.mark.parametrize("run, task", [
    ("mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2",
     "mmlu:subject=philosophy,method=multiple_choice_joint"),
    ("narrative_qa:model=openai_gpt2", "narrative_qa"),
    ("mmlu:model=x,max_train_instances=0", "mmlu:max_train_instances=0"),
    ("a:b=1,model=m,model_deployment=d,c=2", "a:b=1,c=2"),
])
def test_task_is_the_run_name_without_the_model(run, task):
    from evalband.io.helm import _task_name

    assert _task_name(run) == task
