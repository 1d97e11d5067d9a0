"""rliable-style score files: for each task, the final scores of independent runs (seeds) of one algorithm.

The data of Agarwal et al. (2021) and most RL papers since come as one JSON file per algorithm,
``{"Alien": [run scores...], "Amidar": [...], ...}``; the file's stem names the algorithm (the model). A file may
also hold several algorithms, ``{"DQN": {"Alien": [...]}, ...}``. Runs play the role of items: run ``i`` of one
algorithm has nothing to do with run ``i`` of another, so analyses of these tables resample runs independently
per model and task (the rliable stratified bootstrap), never paired.

Scores are unbounded (game returns). Normalization baselines, a small table of a ``random`` and a ``human``
(or ``low`` and ``high``) score per task, turn them into (score - random) / (human - random), the human-normalized
score; normalized scores are still unbounded (above 1 beats the human reference).
"""

from __future__ import annotations

import dataclasses

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from .._validate import ArgumentTypeError, InputError
from ..data.table import ResultsTable
from ._frames import load_frame
from .folders import build_table, check_tabular_unused, files_of, load_json, places
from ..display.notes import NoteKind
from .._words import words

__all__ = ["read_rliable", "read_baselines"]


NOTE_SKIPPED_MISSING_RUN_SCORES = NoteKind('io.skipped-missing-run-scores', 'excluded',
                                            'skipped {n_missing:,} missing run scores (null or NaN)')
NOTE_SCORES_NORMALIZED_SCORE_RANDOM = NoteKind(
    'io.scores-normalized-score-random', 'info',
    'scores normalized as (score - random) / (human - random) with baselines from {value}')


def read_rliable(data, *, baselines=None, unbounded: bool = True, **tabular) -> ResultsTable:
    """Read rliable-style score files (a file, a folder, a glob or a list) into one item-level table.

    Parameters
    ----------
    data : str, os.PathLike or list
        JSON files ``{task: [run scores]}`` (model = file stem) or ``{model: {task: [run scores]}}``.
    baselines : str, os.PathLike, pandas.DataFrame or dict, optional
        Per-task reference scores for normalization: a CSV/JSON table with columns ``task`` and ``random`` and
        ``human`` (or ``low`` and ``high``), or a dict ``{task: (random, human)}``. Every task needs a row.
    unbounded : bool
        Always True in effect: returns and normalized scores are not proportions.

    Returns
    -------
    ResultsTable
        Item level; items are run indices ``0 .. k-1`` within each model and task.

    Notes
    -----
    Runs of different algorithms are independent: resample them independently per model and task, as
    :func:`evalband.resample.bootstrap_items` does by default (rliable's stratified bootstrap, for IQM, optimality
    gap, probability of improvement). Missing runs (``NaN`` or ``null``) are skipped and counted.

    References
    ----------
    Agarwal, Schwarzer, Castro, Courville & Bellemare (2021), Deep Reinforcement Learning at the Edge of the
    Statistical Precipice, NeurIPS; google-research/rliable (data layout).
    """
    check_tabular_unused(tabular, "rliable")
    source, files, skipped = files_of(data, "rliable")
    rows = {k: [] for k in ("model", "task", "item", "score", "where")}
    owner: dict[tuple, Path] = {}
    n_missing = 0
    for path in files:
        doc = load_json(path)
        src = str(path)
        if not isinstance(doc, dict) or not doc:
            if len(files) > 1:
                skipped.add(path, "not a {task: [run scores]} object")
                continue
            raise InputError("must hold a JSON object {task: [run scores]} or {model: {task: [run scores]}}",
                             source=src)
        nested = all(isinstance(v, dict) for v in doc.values())
        per_model = doc if nested else {path.stem: doc}
        for model, tasks in per_model.items():
            for task, runs in tasks.items():
                where = f"{model}.{task}" if nested else str(task)
                if not isinstance(runs, list):
                    if len(files) > 1 and not nested:
                        skipped.add(path, "not a {task: [run scores]} object")
                        break
                    raise InputError(f"'{where}' must be a list of run scores; got {type(runs).__name__}",
                                     source=src)
                key = (str(model), str(task))
                if key in owner:
                    raise InputError(f"model '{model}', task '{task}' appears {places(owner[key], path, 'file')};"
                                     " keep one", source=source)
                owner[key] = path
                for i, v in enumerate(runs):
                    if isinstance(v, bool) or not isinstance(v, (int, float)) and v is not None:
                        raise InputError(f"'{where}[{i}]' must be a number; got {v!r}"[:200], source=src)
                    if v is None or (isinstance(v, float) and math.isnan(v)):
                        n_missing += 1
                        continue
                    if not math.isfinite(v):
                        raise InputError(f"'{where}[{i}]' is not finite ({v!r})", source=src)
                    rows["model"].append(str(model))
                    rows["task"].append(str(task))
                    rows["item"].append(str(i))
                    rows["score"].append(float(v))
                    rows["where"].append(f"{path.name}:{where}[{i}]")
    notes = ["runs are items; runs of different models are independent, so they are resampled independently per"
             " model and task (rliable's stratified bootstrap), never paired"]
    if n_missing:
        notes.append(NOTE_SKIPPED_MISSING_RUN_SCORES(n_missing=n_missing))
    if baselines is not None and rows["score"]:
        table = read_baselines(baselines)
        tasks = pd.unique(pd.Series(rows["task"]))
        missing = [t for t in tasks if t not in table.index]
        if missing:
            raise InputError(f"no baseline for task{'s' if len(missing) > 1 else ''} "
                             f"{', '.join(map(repr, missing[:8]))}{' ...' if len(missing) > 8 else ''}",
                             source=_name(baselines))
        lo = table.loc[rows["task"], "low"].to_numpy()
        hi = table.loc[rows["task"], "high"].to_numpy()
        rows["score"] = list((np.asarray(rows["score"]) - lo) / (hi - lo))
        notes.append(NOTE_SCORES_NORMALIZED_SCORE_RANDOM(value=_name(baselines)))
    table = build_table(rows, source=source, notes=notes, skipped=skipped, unbounded=True, what="score files")
    # runs are never paired, so the table's note about items left out of paired analyses does not apply
    from ..data.table import COVERAGE_UNSHARED

    notes = tuple(n for n in table.notes if getattr(n, "code", None) != COVERAGE_UNSHARED.code)
    return dataclasses.replace(table, paired_items=False, notes=notes)


def _name(baselines) -> str:
    return os.fspath(baselines) if isinstance(baselines, (str, os.PathLike)) else f"<{type(baselines).__name__}>"


def read_baselines(baselines) -> pd.DataFrame:
    """Normalization baselines as a frame indexed by task with float columns ``low`` (random) and ``high`` (human).

    Accepts a CSV/TSV/JSON path, a DataFrame with columns ``task`` and ``random``/``human`` (or ``low``/``high``,
    or ``min``/``max``), or a dict ``{task: (random, human)}``.
    """
    src = _name(baselines)
    if isinstance(baselines, dict):
        try:
            frame = pd.DataFrame([(str(t), *map(float, v)) for t, v in baselines.items()],
                                 columns=["task", "low", "high"])
        except (TypeError, ValueError):
            raise InputError("baselines dict must map task -> (random, human) numbers", source=src) from None
    else:
        if isinstance(baselines, pd.DataFrame):
            frame = baselines.copy()
        elif isinstance(baselines, (str, os.PathLike)):
            path = Path(baselines)
            if not path.is_file():
                raise InputError("no such baselines file", source=src)
            try:
                if path.suffix.lower() == ".json":
                    doc = load_json(path)
                    if isinstance(doc, dict):
                        return read_baselines({t: (v["random"], v["human"]) if isinstance(v, dict) else v
                                               for t, v in doc.items()})
                    frame = pd.DataFrame(doc)
                else:  # the tabular readers' rules: text as written, encodings, strict header, line numbers
                    frame = load_frame(path, file_format="tsv" if path.suffix.lower() in (".tsv", ".tab")
                                       else "csv")[0]
            except InputError:
                raise
            except (ValueError, KeyError, TypeError, pd.errors.ParserError, UnicodeDecodeError) as exc:
                raise InputError(f"cannot be read as a baselines table ({str(exc).splitlines()[0][:120]})",
                                 source=src) from None
        else:
            raise ArgumentTypeError(words('`{arg:baselines}` must be a path, a DataFrame or a dict; got {name}.', name=type(baselines).__name__))
        cols = {c.lower().strip(): c for c in map(str, frame.columns)}
        low = next((cols[c] for c in ("random", "low", "min") if c in cols), None)
        high = next((cols[c] for c in ("human", "high", "max") if c in cols), None)
        task = next((cols[c] for c in ("task", "game", "env") if c in cols), None)
        if low is None or high is None or task is None:
            raise InputError("baselines need columns task, random and human (or low and high); found"
                             f" {', '.join(map(str, frame.columns))}", source=src)
        frame = pd.DataFrame({"task": frame[task].astype(str),
                              "low": pd.to_numeric(frame[low], errors="coerce"),
                              "high": pd.to_numeric(frame[high], errors="coerce")})
    bad = ~(np.isfinite(frame["low"].to_numpy(float)) & np.isfinite(frame["high"].to_numpy(float)))
    if bad.any():
        raise InputError(f"baseline for task '{frame.loc[bad, 'task'].iloc[0]}' is not a number", source=src)
    same = frame["low"] == frame["high"]
    if same.any():
        raise InputError(f"baseline for task '{frame.loc[same, 'task'].iloc[0]}' has random = human; cannot"
                         " normalize", source=src)
    if frame["task"].duplicated().any():
        raise InputError(f"task '{frame.loc[frame['task'].duplicated(), 'task'].iloc[0]}' appears twice",
                         source=src)
    return frame.set_index("task")[["low", "high"]].astype(float)
