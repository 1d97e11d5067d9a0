"""The worker side of the distributed battle read (:mod:`evalband.io.distributed_battles`): each shard read by the
single-file battle reader, its distinct models and labels collected, its battles counted on the global codes, and
partial counts merged.

Every function here runs on a Dask worker and returns plain data: an input error comes back as a
:class:`~evalband.io._shards.Failure` naming the shard, its row or line and the column (the client raises it).
"""

from __future__ import annotations

import os

import numpy as np

from .._validate import InputError
from ..data.battle_counts import KEY, group_rows
from ..data.battles import LABELS
from ._shards import Failure, Shard, local_copy, settled

__all__ = ["battle_table", "battle_labels", "merge_battle_labels", "count_shard", "combine_counts", "holds_battles"]

#: problems of the single-file reader that mean a shard without rows (left out with a note, as empty files are)
_EMPTY = {"is empty": "empty", "holds no battles": "header only", "has only a header": "header only"}


def holds_battles(shard: Shard, storage_options) -> bool:
    """Whether a shard's columns are those of battles (``model_a``/``model_b`` or ``left``/``right`` and
    ``winner``), told from its Parquet schema or its header line (read through fsspec: a remote shard is not
    copied for it)."""
    import csv
    import io

    import fsspec

    from .battles import _kind_of_keys

    url = shard.url.split("://", 1)[-1] if shard.local and shard.url.startswith("file://") else shard.url
    try:
        if shard.name.lower().endswith((".parquet", ".pq")):
            import pyarrow.parquet as pq

            with fsspec.open(url, "rb", **(storage_options or {})) as fh:
                names = pq.read_schema(fh).names
        else:
            with fsspec.open(url, "rb", compression="infer", **(storage_options or {})) as fh:
                header = io.TextIOWrapper(fh, encoding="utf-8-sig", errors="ignore").readline()
            sep = "\t" if ".tsv" in shard.name.lower() else ","
            names = [n.strip() for n in next(csv.reader([header], delimiter=sep), [])]
    except Exception:  # a detector never raises: the results reader then says what is wrong with the shard
        return False
    return _kind_of_keys(names) in ("columns", "fastchat")


def battle_table(shard: Shard, options: dict, storage_options):
    """The single-file battle reader on one shard: a BattleTable, a :class:`Failure` naming the shard, or
    ``'empty'`` / ``'header only'`` for a shard without battles."""
    from .battles import read_battles

    local, cleanup = local_copy(shard, storage_options)
    try:
        try:
            table = read_battles(local, source="columns", **options)
        except InputError as exc:
            problem = str(exc.problem)
            for start, kind in _EMPTY.items():
                if problem.startswith(start):
                    return kind
            return Failure(exc.problem, shard.url, exc.row, exc.column)
        return table
    finally:
        if cleanup is not None:
            os.unlink(cleanup)


def battle_labels(shard: Shard, options: dict, storage_options, got=None) -> dict:
    """Pass 1: the shard's models, its distinct labels per label column, its notes, which columns it has (and,
    for messages, its name); ``got``: the shard as :func:`battle_table` read it, else read here."""
    if got is None:
        got = battle_table(shard, options, storage_options)
    if isinstance(got, (str, Failure)):
        return {"failure": got if isinstance(got, Failure) else None,
                "empty": {got: [shard.name]} if isinstance(got, str) else {}}
    labels = {k: set(map(str, got.label_codes(k)[1])) for k in LABELS if k in got.labels}
    columns = (tuple(k for k in LABELS if k in got.labels), tuple(sorted(got.features)))
    return {"failure": None, "empty": {}, "models": set(got.models), "labels": labels, "notes": [list(got.notes)],
            "columns": {columns: shard.name}, "battles": got.n_battles}


def merge_battle_labels(*summaries) -> dict:
    """Pass-1 summaries as one (sets united, notes kept in shard order); the first failure wins."""
    out = summaries[0]
    for b in summaries[1:]:
        a = out
        if a.get("failure") is not None:
            break
        if b.get("failure") is not None:
            out = b
            break
        empty = {k: a["empty"].get(k, []) + b["empty"].get(k, []) for k in {*a["empty"], *b["empty"]}}
        if "models" not in a or "models" not in b:
            out = dict(a if "models" in a else b, empty=empty)
            continue
        out = {"failure": None, "empty": empty, "models": a["models"] | b["models"],
               "labels": {k: a["labels"].get(k, set()) | b["labels"].get(k, set())
                          for k in {*a["labels"], *b["labels"]}},
               "notes": a["notes"] + b["notes"], "columns": {**b["columns"], **a["columns"]},
               "battles": a["battles"] + b["battles"]}
    return out


def count_shard(shard: Shard, options: dict, storage_options, plan: dict, got=None):
    """Pass 2: the shard's battles counted on the global codes of ``plan`` (model -> code, label column -> label
    -> code): a dict of the key columns and counts, grouped and sorted (None for a shard without battles)."""
    if got is None:
        got = battle_table(shard, options, storage_options)
    if isinstance(got, str):
        return None
    if isinstance(got, Failure):
        return got
    counted = got.counted()
    del got
    models = np.array([plan["models"][m] for m in counted.models], dtype=np.int64)
    columns = {}
    for k, codes in counted.labels.items():
        lookup = np.array([plan["labels"][k][str(t)] for t in counted.label_names[k]], dtype=np.int64)
        columns[k] = lookup[codes]
    columns.update(model_a=models[counted.model_a], model_b=models[counted.model_b], outcome=counted.outcome,
                   weight=counted.weight)
    return _grouped(columns, counted.count)


def _grouped(columns: dict, count) -> dict:
    names = [k for k in LABELS if k in columns] + list(KEY)
    cols, n = group_rows([columns[k] for k in names], count)
    return {**dict(zip(names, cols)), "count": n}


def combine_counts(*partials):
    """Partial counts as one: rows of equal key add their counts (a failure passes through)."""
    done = settled(partials)
    if not isinstance(done, tuple):
        return done
    (partials,) = done
    names = [k for k in partials[0] if k != "count"]
    return _grouped({k: np.concatenate([x[k] for x in partials]) for k in names},
                    np.concatenate([x["count"] for x in partials]))
