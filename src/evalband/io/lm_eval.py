"""lm-evaluation-harness output folders: ``results_<date>.json`` beside ``samples_<task>_<date>.jsonl``.

Run with ``--log_samples``, lm-evaluation-harness writes, per model, one results file (model name, configuration,
task groups in ``group_subtasks``) and one samples file per task, one JSON record per document and filter with
``doc_id``, ``doc_hash``, ``filter``, ``metrics`` (the metric names) and one key per metric holding the
document's score. A folder of many models' outputs becomes one table: model from the results file, task from
the samples file name, item from ``doc_hash`` (so that documents are paired across models by content) or
``doc_id`` when a file has no hashes, group from the task's parent in ``group_subtasks``.
"""

from __future__ import annotations

import glob

import re
from pathlib import Path

from .._validate import ArgumentError, ArgumentTypeError, InputError
from ..data.table import ResultsTable
from .folders import (as_label, build_table, check_tabular_unused, field, files_of, iter_jsonl, load_json,
                      places)
from ..display.notes import NoteKind
from .._words import words

__all__ = ["read_lm_eval"]

_SAMPLES = re.compile(r"samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.jsonl")
_RESULTS = re.compile(r"results_(?P<stamp>.+)\.json")


NOTE_TASKS_OUTSIDE_ANY_GROUP = NoteKind('io.tasks-outside-any-group', 'info',
                                         'tasks outside any group form a group of their own')


def read_lm_eval(data, *, metric: str | None = None, filter: str | None = None, item_key: str = "auto",
                 cluster_col: str | None = None, group: str = "parent", unbounded: bool = False,
                 **tabular) -> ResultsTable:
    """Read lm-evaluation-harness output (a folder, a glob, a results file, or a list of them) into one table.

    Parameters
    ----------
    data : str, os.PathLike or list
        Output folder(s) of ``lm_eval --output_path ... --log_samples``; searched recursively.
    metric : str, optional
        The per-document metric to use (``acc``, ``acc_norm``, ``exact_match``, ...), or a comma-separated list of
        preferences (each task uses the first it has). Default: each task's first listed metric (noted).
    filter : str, optional
        The filter whose records to use (``none``, ``strict-match``, ``flexible-extract``, ...), or a
        comma-separated list of preferences. Default: ``none`` when present, else the task's first filter (noted).
    item_key : {'auto', 'doc_hash', 'doc_id'}
        How documents are paired across models: 'auto' uses ``doc_hash`` when every record has one.
    cluster_col : str, optional
        A field of the document used as cluster, written ``doc.<field>`` (e.g. ``doc.subject``).
    group : {'parent', 'top', 'none'}
        Task group from ``group_subtasks``: the task's immediate parent group, its top-level group, or none.
    unbounded : bool
        Declare the metric not a proportion (e.g. perplexities).

    Returns
    -------
    ResultsTable
        Item level; ``notes`` list the metric and filter chosen and every file, task or record skipped.

    Notes
    -----
    A task listed in a results file without a samples file (run without ``--log_samples``) is skipped and
    listed. Two results files giving the same model and task are a conflict and raise :class:`InputError`.

    References
    ----------
    EleutherAI lm-evaluation-harness, ``lm_eval/loggers/evaluation_tracker.py`` (file layout and names).
    """
    check_tabular_unused(tabular, "lm-eval")
    if item_key not in ("auto", "doc_hash", "doc_id"):
        raise ArgumentError(f"`item_key` must be one of 'auto', 'doc_hash', 'doc_id'; got {item_key!r}.")
    if group not in ("parent", "top", "none"):
        raise ArgumentError(f"`group` must be one of 'parent', 'top', 'none'; got {group!r}.")
    if cluster_col is not None and not cluster_col.startswith("doc."):
        raise ArgumentError(words("`{arg:cluster_col}` for lm-eval logs must name a document field as 'doc.<field>'; got {cluster_col!r}.", cluster_col=cluster_col))
    metrics_pref = _prefs(metric)
    filters_pref = _prefs(filter)
    source, files, skipped = files_of(data, "lm-eval")
    results_files = [f for f in files if _RESULTS.fullmatch(f.name)]
    sample_files = [f for f in files if _SAMPLES.fullmatch(f.name)]
    for f in results_files:  # a results file named on its own: its samples files are beside it
        stamp = _RESULTS.fullmatch(f.name)["stamp"]
        for beside in sorted(f.parent.glob(f"samples_*_{glob.escape(stamp)}.jsonl")):
            if beside not in sample_files and _SAMPLES.fullmatch(beside.name):
                sample_files.append(beside)
    for f in files:
        if f not in results_files and f not in sample_files:
            if f.name.startswith("samples_") or f.name.startswith("results_"):
                skipped.add(f, "name not of the form results_<date>.json / samples_<task>_<date>.jsonl")
            else:
                skipped.add(f, "not an lm-eval log")
    runs = {}  # (folder, stamp) -> run info
    for f in results_files:
        runs[(f.parent, _RESULTS.fullmatch(f.name)["stamp"])] = _read_results(f)
    notes: list[str] = []
    chosen: dict[str, set] = {"metric": set(), "filter": set()}
    rows = {k: [] for k in ("model", "task", "item", "score", "where", "group", "cluster")}
    owner: dict[tuple, Path] = {}
    seen_tasks: dict[tuple, set] = {}
    for f in sample_files:
        m = _SAMPLES.fullmatch(f.name)
        run = runs.get((f.parent, m["stamp"]))
        beside = f.parent / f"results_{m['stamp']}.json"
        if run is None and beside.is_file():  # a samples file named on its own: its results file is beside it
            run = runs[(f.parent, m["stamp"])] = {**_read_results(beside), "named": False}
        if run is None:
            skipped.add(f, "no results_<date>.json with the same date beside it to name the model")
            continue
        task = m["task"]
        key = (run["model"], task)
        if key in owner:
            raise InputError(f"model '{run['model']}', task '{task}' appears {places(owner[key], f, 'run')}; keep"
                             " one of them", source=source)
        owner[key] = f
        seen_tasks.setdefault((f.parent, m["stamp"]), set()).add(task)
        got = _read_samples(f, task, run, metrics_pref, filters_pref, item_key, cluster_col, group, skipped)
        if got is None:
            continue
        records, used_metric, used_filter, used_key = got
        chosen["metric"].add((task, used_metric))
        chosen["filter"].add((task, used_filter))
        if used_key == "doc_id":
            chosen.setdefault("doc_id", set()).add(task)
        for k in rows:
            rows[k].extend(records[k])
    for (folder, stamp), run in runs.items():
        if not run.get("named", True):
            continue
        missing = sorted(set(run["tasks"]) - seen_tasks.get((folder, stamp), set()) - set(run["groups"]))
        for t in missing:
            skipped.add(f"{run['model']}/{t}", "task in results file but no samples file (run with --log_samples)")
    notes += _choice_notes(chosen, metrics_pref, filters_pref)
    if not rows["cluster"] or all(c is None for c in rows["cluster"]):
        rows["cluster"] = None
    if not rows["group"] or all(g is None for g in rows["group"]):
        rows["group"] = None
    elif any(g is None for g in rows["group"]):
        rows["group"] = [g if g is not None else t for g, t in zip(rows["group"], rows["task"])]
        notes.append(NOTE_TASKS_OUTSIDE_ANY_GROUP())
    return build_table(rows, source=source, notes=notes, skipped=skipped, unbounded=unbounded,
                       what="lm-eval logs")


def _prefs(text):
    if text is None:
        return None
    if not isinstance(text, str):
        raise ArgumentTypeError(f"expected a name or a comma-separated list of names; got {text!r}.")
    out = [t.strip() for t in text.split(",") if t.strip()]
    return out or None


def _read_results(path: Path) -> dict:
    doc = load_json(path)
    src = str(path)
    if not isinstance(doc, dict):
        raise InputError("a results file must hold a JSON object", source=src)
    results = field(doc, "results", dict, source=src)
    config = field(doc, "config", dict, source=src, default={})
    model = doc.get("model_name")
    if not isinstance(model, str) or not model.strip():
        args = config.get("model_args")
        model = None
        if isinstance(args, dict):
            model = args.get("pretrained") or args.get("model")
        elif isinstance(args, str):
            parts = dict(p.split("=", 1) for p in args.split(",") if "=" in p)
            model = parts.get("pretrained") or parts.get("model") or parts.get("engine")
        if not model:
            model = config.get("model") if isinstance(config.get("model"), str) else None
    if not model:
        raise InputError("cannot tell the model: no 'model_name' and no 'pretrained=' in 'config.model_args'",
                         source=src)
    groups = field(doc, "group_subtasks", dict, source=src, default={})
    parent = {}
    for g, subs in groups.items():
        if not isinstance(subs, list):
            raise InputError(f"'group_subtasks.{g}' must be a list; got {type(subs).__name__}", source=src)
        for s in subs:
            parent[str(s)] = str(g)
    group_names = {g for g, subs in groups.items() if subs}
    return {"model": str(model), "tasks": list(results), "parent": parent, "groups": group_names, "path": path}


def _group_of(task: str, parent: dict, how: str):
    if how == "none" or task not in parent:
        return None
    if how == "parent":
        return parent[task]
    g, seen = parent[task], {task}
    while g in parent and g not in seen:
        seen.add(g)
        g = parent[g]
    return g


def _read_samples(path, task, run, metrics_pref, filters_pref, item_key, cluster_col, group_how, skipped):
    src = str(path)
    records = list(iter_jsonl(path))
    if not records:
        skipped.add(path, "empty samples file")
        return None
    filters = []
    metric_names = []
    for lineno, r in records:
        flt = r.get("filter", "none")
        if not isinstance(flt, str):
            raise InputError("'filter' must be a string", source=src, row=f"line {lineno}")
        if flt not in filters:
            filters.append(flt)
        names = r.get("metrics")
        if names is None:
            names = [k for k in r if k not in _NON_METRIC]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError("'metrics' must be a list of metric names", source=src, row=f"line {lineno}")
        for n in names:
            if n not in metric_names:
                metric_names.append(n)
    used_filter = _choose(filters_pref, filters, default=("none" if "none" in filters else filters[0]))
    if used_filter is None:
        skipped.add(path, f"no filter {', '.join(filters_pref)} (has {', '.join(filters)})")
        return None
    used_metric = _choose(metrics_pref, metric_names, default=metric_names[0] if metric_names else None)
    if used_metric is None:
        have = ", ".join(metric_names) or "none"
        skipped.add(path, f"no metric {', '.join(metrics_pref) if metrics_pref else ''} (has {have})")
        return None
    chosen = [(ln, r) for ln, r in records if r.get("filter", "none") == used_filter]
    if item_key == "auto":
        used_key = "doc_hash" if all(isinstance(r.get("doc_hash"), str) and r["doc_hash"] for _, r in chosen) \
            else "doc_id"
    else:
        used_key = item_key
    group = _group_of(task, run["parent"], group_how)
    out = {k: [] for k in ("model", "task", "item", "score", "where", "group", "cluster")}
    name = path.name
    for lineno, r in chosen:
        where = f"line {lineno}"
        item = as_label(field(r, used_key, (str, int, float), source=src, row=where), what=f"'{used_key}'",
                        source=src, row=where)
        if used_metric not in r:
            raise InputError(f"missing metric '{used_metric}' (this line has"
                             f" {', '.join(k for k in r if k not in _NON_METRIC) or 'none'})",
                             source=src, row=where)
        value = r[used_metric]
        if isinstance(value, list):
            raise InputError(f"metric '{used_metric}' holds a list, not a per-document score (a corpus-level"
                             " metric such as BLEU); choose another with --metric", source=src, row=where)
        if isinstance(value, bool):
            value = float(value)
        if not isinstance(value, (int, float)):
            raise InputError(f"metric '{used_metric}' must be a number; got {value!r}"[:200], source=src, row=where)
        cluster = None
        if cluster_col is not None:
            doc = field(r, "doc", dict, source=src, row=where)
            cluster = as_label(field(doc, cluster_col[4:], (str, int, float), source=src, row=where, path="doc"),
                               what=f"'{cluster_col}'", source=src, row=where)
        out["model"].append(run["model"])
        out["task"].append(task)
        out["item"].append(item)
        out["score"].append(float(value))
        out["where"].append(f"{name}:{lineno}")
        out["group"].append(group)
        out["cluster"].append(cluster)
    return out, used_metric, used_filter, used_key


_NON_METRIC = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics", "doc_hash",
               "prompt_hash", "target_hash"}


def _choose(prefs, available, *, default):
    if prefs is None:
        return default
    for p in prefs:
        if p in available:
            return p
    return None


NOTE_LM_EVAL_USED_CHOSEN = NoteKind('io.lm-eval-used-chosen', 'info',
                                     'lm-eval {what} used: {value} (chosen by default; set another with {flag})')
NOTE_LM_EVAL_USED = NoteKind('io.lm-eval-used', 'info',
                              'lm-eval {what} used: {value}')


NOTE_PAIRED_BY_DOC_ID = NoteKind("io.lm-eval-paired-by-doc-id", "info", "documents paired by doc_id (no doc_hash) in {tasks}")


def _choice_notes(chosen, metrics_pref, filters_pref) -> list[str]:
    notes = []
    for what, prefs, flag in (("metric", metrics_pref, "--metric"), ("filter", filters_pref, "--filter")):
        used = sorted({v for _, v in chosen[what]})
        if not used:
            continue
        if prefs is None:
            notes.append(NOTE_LM_EVAL_USED_CHOSEN(what=what, value=', '.join(used), flag=flag))
        else:
            notes.append(NOTE_LM_EVAL_USED(what=what, value=', '.join(used)))
    if chosen.get("doc_id"):
        notes.append(NOTE_PAIRED_BY_DOC_ID(tasks=", ".join(sorted(chosen["doc_id"]))))
    return notes
