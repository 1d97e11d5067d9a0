"""HELM run folders: ``per_instance_stats.json`` beside ``run_spec.json``.

A HELM run folder (``benchmark_output/runs/<suite>/<run name>/``) holds the run spec (scenario, adapter with the
model, scenario groups) and, per evaluation instance, the statistics every metric computed on it. One run gives
one model on one scenario; a folder of runs gives one table: model ``adapter_spec.model``, task the run name
without its ``model=`` argument (e.g. ``mmlu:subject=philosophy,method=multiple_choice_joint``), group the run's
first scenario group, item ``instance_id``, trial ``train_trial_index``, score the chosen metric's per-instance
mean on the chosen split.
"""

from __future__ import annotations

import re
from pathlib import Path

from .._validate import InputError
from ..data.table import ResultsTable
from .folders import as_label, build_table, check_tabular_unused, field, files_of, load_json, places
from ..display.notes import NoteKind
from .._words import words

__all__ = ["read_helm"]

_MODEL_ARG = re.compile(r"(^|,|:)model=[^,]*")
_DEPLOY_ARG = re.compile(r"(^|,|:)model_deployment=[^,]*")


NOTE_HELM_METRIC_USED_SPLIT = NoteKind('io.helm-metric-used-split', 'info',
                                        'HELM metric used: {value}{how}; split: {value2}')
NOTE_SKIPPED_STATISTICS_PERTURBED_INSTANCES = NoteKind(
    'io.skipped-statistics-perturbed-instances', 'excluded',
    'skipped {n_perturbed:,} statistics on perturbed instances (perturbations=True keeps them)')


def read_helm(data, *, metric: str | None = None, split: str = "auto", perturbations: bool = False,
              unbounded: bool = False, **tabular) -> ResultsTable:
    """Read HELM run folders (a run folder, a suite folder, a glob or a list) into one table.

    Parameters
    ----------
    data : str, os.PathLike or list
    metric : str, optional
        The per-instance statistic to use (``exact_match``, ``quasi_exact_match``, ``f1_score``, ``rouge_l``...),
        or a comma-separated list of preferences. Default ``exact_match`` (noted).
    split : str
        'auto' (``test`` when a run has test instances, else ``valid``), or a split name.
    perturbations : bool
        Keep statistics computed on perturbed instances (robustness, fairness) as separate tasks; by default
        they are skipped (and counted).
    unbounded : bool
        Declare the metric not a proportion.

    Returns
    -------
    ResultsTable

    Notes
    -----
    HELM's own per-run mean of a metric (``stats.json``) is the mean of these per-instance values, so the
    table's per-task means reproduce HELM's numbers (checked in the tests).

    References
    ----------
    Liang et al. (2023), Holistic Evaluation of Language Models, TMLR; ``helm/benchmark/runner.py`` (file layout).
    """
    check_tabular_unused(tabular, "HELM")
    prefs = [m.strip() for m in metric.split(",") if m.strip()] if metric else ["exact_match"]
    source, files, skipped = files_of(data, "helm")
    stats_files = [f for f in files if f.name == "per_instance_stats.json"]
    runs_without = {f.parent for f in files if f.name == "run_spec.json"} - {f.parent for f in stats_files}
    for folder in sorted(runs_without):
        skipped.add(folder, "run folder without per_instance_stats.json")
    if not stats_files:
        raise InputError("holds no HELM per_instance_stats.json (with run_spec.json beside it)", source=source)
    rows = {k: [] for k in ("model", "task", "item", "trial", "score", "where", "group")}
    owner: dict[tuple, Path] = {}
    used_metrics: set = set()
    used_splits: set = set()
    n_perturbed = 0
    for path in stats_files:
        spec_path = path.parent / "run_spec.json"
        if not spec_path.exists():
            skipped.add(path, "no run_spec.json beside it")
            continue
        spec = load_json(spec_path)
        ssrc = str(spec_path)
        if not isinstance(spec, dict):
            raise InputError("run_spec.json must hold a JSON object", source=ssrc)
        run_name = field(spec, "name", str, source=ssrc)
        adapter = field(spec, "adapter_spec", dict, source=ssrc)
        model = adapter.get("model")
        if not isinstance(model, str) or not model:
            found = re.search(r"model=([^,]+)", run_name)
            if not found:
                raise InputError(words("missing key 'adapter_spec.model' (and no {arg:model=} in the run name)"), source=ssrc)
            model = found.group(1)
        task = _task_name(run_name)
        groups = spec.get("groups")
        group = groups[0] if isinstance(groups, list) and groups and isinstance(groups[0], str) else None
        key = (model, task)
        if key in owner:
            raise InputError(f"model '{model}', task '{task}' appears {places(owner[key].parent, path.parent, 'run')};"
                             " keep one", source=source)
        owner[key] = path
        stats = load_json(path)
        src = str(path)
        if not isinstance(stats, list):
            raise InputError("per_instance_stats.json must hold a list of instances", source=src)
        per = []  # (instance, trial, perturbation, split, {metric: value})
        splits_seen = set()
        metrics_seen = set()
        for pos, inst in enumerate(stats):
            loc = f"[{pos}]"
            iid = as_label(field(inst, "instance_id", (str, int), source=src, row=f"instance {pos}", path=loc),
                           what=f"'{loc}.instance_id'", source=src)
            trial = field(inst, "train_trial_index", int, source=src, path=loc, default=0)
            pert = inst.get("perturbation")
            pert_name = pert.get("name") if isinstance(pert, dict) else None
            entries = field(inst, "stats", list, source=src, path=loc)
            values: dict[tuple, float] = {}
            for j, st in enumerate(entries):
                sloc = f"{loc}.stats[{j}]"
                name = field(st, "name", dict, source=src, path=sloc)
                mname = field(name, "name", str, source=src, path=f"{sloc}.name")
                msplit = field(name, "split", str, source=src, path=f"{sloc}.name", default="test")
                spert = name.get("perturbation")
                spert_name = spert.get("name") if isinstance(spert, dict) else pert_name
                count = field(st, "count", (int, float), source=src, path=sloc, default=0)
                if not count:
                    continue
                if "mean" in st and st["mean"] is not None:
                    mean = field(st, "mean", (int, float), source=src, path=sloc)
                else:
                    mean = field(st, "sum", (int, float), source=src, path=sloc) / count
                values[(mname, msplit, spert_name)] = float(mean)
                splits_seen.add(msplit)
                metrics_seen.add(mname)
            per.append((iid, trial, values))
        use_metric = next((m for m in prefs if m in metrics_seen), None)
        if use_metric is None:
            skipped.add(path.parent, f"no metric {', '.join(prefs)} (has {', '.join(sorted(metrics_seen))[:300]})")
            continue
        use_split = split
        if split == "auto":
            use_split = "test" if "test" in splits_seen else ("valid" if "valid" in splits_seen else
                                                              sorted(splits_seen)[0])
        elif split not in splits_seen:
            skipped.add(path.parent, f"no split '{split}' (has {', '.join(sorted(splits_seen))})")
            continue
        used_metrics.add(use_metric)
        used_splits.add(use_split)
        for iid, trial, values in per:
            for (mname, msplit, pname), value in values.items():
                if mname != use_metric or msplit != use_split:
                    continue
                if pname is not None and not perturbations:
                    n_perturbed += 1
                    continue
                rows["model"].append(model)
                rows["task"].append(task if pname is None else f"{task}|{pname}")
                rows["item"].append(iid)
                rows["trial"].append(trial)
                rows["score"].append(value)
                rows["where"].append(f"{path.parent.name}/per_instance_stats.json:{iid}")
                rows["group"].append(group if group is not None else task)
    notes = []
    if used_metrics:
        how = "" if metric else " (default; choose with --metric)"
        notes.append(NOTE_HELM_METRIC_USED_SPLIT(value=', '.join(sorted(used_metrics)), how=how, value2=', '.join(sorted(used_splits))))
    if n_perturbed:
        notes.append(NOTE_SKIPPED_STATISTICS_PERTURBED_INSTANCES(n_perturbed=n_perturbed))
    return build_table(rows, source=source, notes=notes, skipped=skipped, unbounded=unbounded, what="HELM runs")


def _task_name(run_name: str) -> str:
    """The run name without its ``model=`` and ``model_deployment=`` arguments."""
    task = _DEPLOY_ARG.sub(r"\1", _MODEL_ARG.sub(r"\1", run_name))
    task = re.sub(r",{2,}", ",", task).replace(":,", ":").strip(",:")
    return task or run_name
