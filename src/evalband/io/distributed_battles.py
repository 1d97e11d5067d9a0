"""Sharded pairwise battles read and counted on a Dask cluster: the leaderboard is fitted from counts, never rows.

A folder, glob, list or fsspec URL of battle shards (Parquet, CSV, TSV in a column layout: ``model_a``,
``model_b``, ``winner`` and the optional ``question_id``, ``judge``, ``cluster``, ``turn``, ``weight``) is read in
two passes, each shard by one worker task (:mod:`evalband.io._battle_shards`):

1. **labels**: each worker reads its shard with the single-file battle reader
   (:func:`evalband.io.battles.read_battles`: column roles, winner values, blank names, self-battles, outcomes,
   weights; an error names the shard, its line or row and the column) and returns its distinct models and
   labels; the sets are united in a tree on the workers;
2. **counts**: models and labels get their global codes (sorted by name, as
   :class:`~evalband.data.battles.BattleTable` sorts them, so a code means the same model on every worker); each
   worker counts its battles per distinct (labels, model_a, model_b, outcome, weight), which is, per question and
   ordered pair of models, the win, tie and loss counts; the partial counts are merged in a tree on the workers.

The client receives the merged counts as a :class:`~evalband.data.battle_counts.BattleCounts`, the very object the
single-machine :func:`~evalband.preferences.arena` fits from (it compresses its battles the same way), so the
bootstrap resamples questions with their counts and ``arena`` prints the same bytes for the same seed
(``tests/io/test_distributed_battles.py``). Fits that need single battles (online Elo, style and length control,
independent battles) are refused for counted battles, with a message saying so.
"""

from __future__ import annotations

import re

import numpy as np

from .._validate import ArgumentError, InputError
from ..data.battle_counts import BattleCounts
from ._battle_shards import battle_labels, battle_table, combine_counts, count_shard, holds_battles, \
    merge_battle_labels
from ._shards import list_shards, tree
from ._reread import check_reread, decide
from .distributed_read import _client_of, _gather
from .._words import words
from ..display.notes import NoteKind

__all__ = ["read_battles_distributed", "shards_hold_battles", "merge_notes"]

#: options of the column-layout battle reader that apply to every shard
_OPTIONS = ("model_a_col", "model_b_col", "winner_col", "question_col", "judge_col", "turn_col", "cluster_col",
            "weight_col", "style_cols", "file_format")
_COUNTED = re.compile(r"^(\d[\d,]*) (.+)$", re.S)


def shards_hold_battles(data, *, client=None, executor=None, storage_options: dict | None = None) -> bool:
    """Whether sharded ``data`` holds battles (its first shard's columns, read on a worker).

    Examples
    --------
    >>> shards_hold_battles("s3://bucket/battles/*.parquet", client=client)  # doctest: +SKIP
    True
    """
    client = _client_of(client, executor)
    _, shards = list_shards(data, storage_options=storage_options)
    return bool(client.submit(holds_battles, shards[0], storage_options, pure=False).result())


def merge_notes(per_shard: list) -> list[str]:
    """The notes of every shard as those of one file: a note each shard gives once; notes that differ only in a
    leading count (``'3 'tie (bothbad)' battles counted as ties'``) once, their counts added; in the order the
    shards agree on.

    Examples
    --------
    >>> merge_notes([["style features: length"], ["2 battles left out", "style features: length"],
    ...              ["1,000 battles left out"]])
    ['1,002 battles left out', 'style features: length']
    """
    totals, lists, kinds = {}, [], {}
    for notes in per_shard:
        keys = []
        for note in notes:
            count = _count_parameter(note)
            if count is not None:  # a note as data that opens with a count: one note, the counts added
                key = (note.code, tuple(sorted((k, repr(v)) for k, v in note.params.items() if k != count)))
                kinds[key] = (note, count)
                totals[key] = totals.get(key, 0) + int(note.params[count])
            else:
                m = _COUNTED.match(note)
                key = m.group(2) if m else note
                if m:
                    totals[key] = totals.get(key, 0) + int(m.group(1).replace(",", ""))
                else:
                    totals.setdefault(key, None)
            if key not in keys:
                keys.append(key)
        lists.append(keys)
    placed, out = set(), []
    pending = list(totals)  # first appearance
    while pending:  # a merge of the shards' orders: a note goes once every note before it in any shard has
        ready = next((k for k in pending if all(p in placed for keys in lists if k in keys
                                                 for p in keys[:keys.index(k)])), pending[0])
        pending.remove(ready)
        placed.add(ready)
        if ready in kinds:
            note, count = kinds[ready]
            out.append(note.kind(**{**note.params, count: totals[ready]}))
        else:
            out.append(ready if totals[ready] is None else f"{totals[ready]:,} {ready}")
    return out


def _count_parameter(note) -> str | None:
    """The parameter a note as data opens with when it is a count (``{bothbad:,} ... battles``), else None."""
    from ..display.notes import Note

    if not isinstance(note, Note):
        return None
    m = re.match(r"\{(\w+)(?::,?d?)?\}", note.kind.template)
    if m and isinstance(note.params.get(m.group(1)), (int, np.integer)) and not isinstance(
            note.params.get(m.group(1)), bool):
        return m.group(1)
    return None


NOTE_NO_BATTLES = NoteKind("io.files-without-battles", "excluded", "file{s} without battles left out: {parts}")


def read_battles_distributed(data, *, client=None, executor=None, storage_options: dict | None = None,
                             reread="auto", source: str = "auto", **options) -> BattleCounts:
    """Read sharded battles on a Dask cluster into counts per question and ordered pair of models.

    Parameters
    ----------
    data : str, os.PathLike or list
        Battle shards in a column layout (Parquet, CSV, TSV): a folder, a glob, an fsspec URL (``file://``,
        ``memory://``, ``s3://``, ``gs://``, ...) or a list of them. Every shard needs the same columns.
    client, executor
        The cluster (as :func:`evalband.io.distributed_read.read_distributed` takes them).
    storage_options : dict, optional
        Passed to fsspec on the workers.
    reread : {'auto', True, False}
        True: read each shard twice (labels, then counts) so that a worker holds one shard at a time. False:
        each shard is read once and kept on its worker between the passes. 'auto' (default): True when the rows
        a worker would hold exceed its budget, as :func:`evalband.io.distributed_read.read_distributed` decides
        (:mod:`evalband.io._reread`), with a note.
    source : {'auto', 'battles', 'columns'}
        Only column layouts are read on a cluster.
    **options
        The column options of :func:`evalband.io.battles.read_battles` (``model_a_col=``, ``winner_col=``,
        ``question_col=``, ``weight_col=``, ...), applied to every shard as to one file.

    Returns
    -------
    BattleCounts
        The counts :meth:`BattleTable.counted` gives for the same battles read as one file (same models, labels,
        counts and notes).

    Raises
    ------
    InputError
        Any input error of the single-file reader, naming the shard, its line (CSV, TSV) or row (Parquet) and
        the column; shards with different columns; no battle in any shard.

    Examples
    --------
    >>> from evalband.resample.distributed import dask_executor                               # doctest: +SKIP
    >>> with dask_executor("tcp://10.0.0.5:8786") as ex:                                    # doctest: +SKIP
    ...     counts = read_battles_distributed("s3://bucket/battles/*.parquet", executor=ex)
    ...     board = evalband.arena(counts, rng=1)
    """
    reread = check_reread(reread)
    client = _client_of(client, executor)
    if source not in ("auto", "battles", "columns"):
        raise ArgumentError(words('`{arg:source}`: only battles in a column layout (Parquet, CSV, TSV shards) are read on a cluster; got {source!r} (read that format without --scheduler)', source=source))
    unknown = sorted(k for k, v in options.items() if v is not None and k not in _OPTIONS and k != "baseline")
    if unknown:
        raise ArgumentError(f"{', '.join(unknown)}: not an option of battles read on a cluster (valid:"
                            f" {', '.join(_OPTIONS)})")
    options = {k: v for k, v in options.items() if v is not None and k in _OPTIONS}
    if options.get("file_format") == "auto":
        del options["file_format"]
    where, shards = list_shards(data, storage_options=storage_options)
    reread, twice = decide(client, shards, storage_options, reread)
    read = [None] * len(shards) if reread else \
        [client.submit(battle_table, s, options, storage_options, pure=False) for s in shards]
    first = [client.submit(battle_labels, s, options, storage_options, t, pure=False) for s, t in zip(shards, read)]
    summary = _gather(tree(client, first, merge_battle_labels))
    del first
    empty = summary["empty"]
    if "models" not in summary:
        parts = [f"{len(v)} {k} ({', '.join(sorted(v)[:5])}{' ...' if len(v) > 5 else ''})" for k, v in empty.items()]
        raise InputError(f"holds no battles: every shard is empty or holds only a header ({'; '.join(parts)})",
                         source=where)
    if len(summary["columns"]) > 1:
        (a, sa), (b, sb) = sorted(summary["columns"].items())[:2]
        raise InputError(f"shards differ in their columns ({_columns(a)} in {sa}; {_columns(b)} in {sb});"
                         " battles read together need the same columns", source=where)
    notes = merge_notes(summary["notes"]) + ([twice] if twice is not None else [])
    skipped = [(k, sorted(empty.get(k, []))) for k in ("empty", "header only") if empty.get(k)]
    if skipped:
        parts = [f"{len(v)} {k} ({', '.join(v[:5])}{' ...' if len(v) > 5 else ''})" for k, v in skipped]
        notes.insert(0, NOTE_NO_BATTLES(s="s" if sum(len(v) for _, v in skipped) > 1 else "",
                                        parts="; ".join(parts)))
    models = sorted(summary["models"])
    names = {k: sorted(v) for k, v in summary["labels"].items()}
    plan = {"models": {m: k for k, m in enumerate(models)},
            "labels": {c: {t: k for k, t in enumerate(v)} for c, v in names.items()}}
    (plan,) = client.scatter([plan], broadcast=True, hash=False)
    second = [client.submit(count_shard, s, options, storage_options, plan, t, pure=False)
              for s, t in zip(shards, read)]
    del read
    got = _gather(tree(client, second, combine_counts))
    del second
    labels = {k: got[k] for k in names}
    return BattleCounts(tuple(models), got["model_a"], got["model_b"], got["outcome"], got["weight"], got["count"],
                        labels, {k: np.asarray(v, dtype=object) for k, v in names.items()}, where, tuple(notes))


def _columns(columns) -> str:
    labels, features = columns
    return ", ".join([*labels, *(f"style {f}" for f in features)]) or "no label column"
