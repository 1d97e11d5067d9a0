"""Sharded results read and reduced on a Dask cluster: the table is built from per-cell sums, never from rows.

A folder, glob or list of Parquet / CSV / TSV shards, local or behind an fsspec URL (``file://``, ``memory://``,
``s3://``, ``gs://``, ...), is read in three steps, each shard by one worker task (:mod:`evalband.io._shards`):

1. **labels**: each worker reads its shard with the single-machine reader (:func:`evalband.io.tabular.read_tabular`
   on that one file: strict headers, labels as written, look-alike labels, duplicates, non-finite and
   out-of-range scores, clusters constant within an item; an error names the shard and its line or row) and
   returns the distinct labels of each label column; the sets are united in a tree on the workers, so the client
   receives each distinct label once;
2. **canonical codes** (client): every label column's labels in natural order (:func:`evalband.data.labels.natural_order`,
   the order of the single-machine table), so that a code means the same label on every worker; look-alike labels
   of different shards, groups that change within a task and shards of other columns are refused here;
3. **reduction**: each worker reads its shard again and reduces it to the sufficient statistics of its cells, a
   cell being one (task, model, item, facet levels, trial) on the global codes: sorted cell keys, sums of the
   scores and row counts (plus the cell's cluster and its first row, for messages), cut into key ranges. The
   partial reductions of each range are merged pairwise in a tree on the workers (equal keys add up; a count above
   one is a duplicate, reported naming both rows), and turned into the table's columns there. With
   ``trials='average'`` (exact sums, up to 1,024 trial labels) a cell is one (task, model, item, facet levels)
   already in each shard's reduction, carrying a bitmask of its trial labels that the merges OR together
   (:mod:`evalband.io._trial_cells`): a worker then holds a partial per item, not per trial.

The client fetches the ranges one at a time into the columns of the very :class:`~evalband.data.table.ResultsTable` the
single-machine reader builds (rows in the canonical order, categoricals in natural order, the same notes), so
compare, rank, summarize and every other analysis run unchanged and print the same bytes for the same seed
(``tests/io/test_distributed_read.py``). Rows never travel to the client: it holds the table of cells (about 18
bytes a cell for binary scores with clusters) and one key range in transit.

Memory: a worker holds one shard as the single-machine reader holds one file (about 20 bytes a row once read) and
its share of the reduced ranges; the client the table of cells. See ``docs/distributed.md`` for sizing.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd

from ..data.labels import _skeleton, natural_order, shown
from ..data.codes import small_int
from ..data.trial_means import count_dtype, sums_exact
from .._validate import ArgumentError, ArgumentTypeError, InputError, check_choice, require_extra
from ._frames import NOTE_FILE_WITHOUT_ROWS_LEFT
from ._reread import check_reread, decide
from .tabular import NOTE_NO_COLUMN_EACH_FILE
from ._shards import (Failure, Shard, cells, combine, is_sharded, is_url, labels_of, list_shards, local_copy,
                      locate, merge_labels, part, reduce_shard, shard_table, tree)
from ._trial_cells import MAX_MASK_TRIALS
from .._words import words

__all__ = ["read_distributed", "list_shards", "is_sharded", "is_url", "Shard", "RANGE_CELLS"]

#: options of the single-machine reader the distributed path does not take (per-row measures need the rows)
_MEASURE_OPTIONS = ("cost_col", "latency_col", "human_col")
#: cells per key range (about): each range is merged in its own tree and fetched by the client on its own, so a
#: worker merges and the client receives at most about this many cells at a time (36 bytes each in transit)
RANGE_CELLS = 4_000_000
#: cells the client fetches at a time (the table's columns only, about 16-20 bytes a cell in transit)
FETCH_CELLS = 1_000_000


# ------------------------------------------------------------------------------------------ on the client
def _client_of(client, executor):
    if client is not None and executor is not None:
        raise ArgumentError("give `client` or `executor`, not both")
    if executor is not None:
        client = getattr(executor, "client", None)
        if client is None:
            raise ArgumentTypeError("`executor` must be an evalband.resample.distributed.DaskExecutor (distributed reading runs on"
                                    f" a Dask cluster); got {type(executor).__name__}.")
    if client is None:
        distributed = require_extra("distributed", extra="dist", what="running on a Dask cluster",
                                    name="dask.distributed")
        try:
            client = distributed.get_client()
        except ValueError:
            raise ArgumentError("distributed reading needs a Dask cluster: pass `client=` or `executor=`"
                                " (evalband.resample.distributed.dask_executor), or --scheduler on the command line") from None
    return client


def _gather(future):
    out = future.result()
    if isinstance(out, Failure):
        raise out.error()
    if isinstance(out, dict) and out.get("failure") is not None:
        raise out["failure"].error()
    return out


def _check_lookalikes(odd: dict, labels: dict, source: str) -> None:
    """Labels of different shards that look alike (the label rule across shards; within a shard the reader
    refuses them with the row)."""
    for col, spellings in odd.items():
        if not spellings:
            continue
        by_skeleton = {}
        for text in spellings:
            by_skeleton.setdefault(_skeleton(text), []).append(text)
        plain = {_skeleton(t): t for t in labels.get(col, ()) if t.isascii() and t.isprintable() and t == t.strip()}
        for s, texts in by_skeleton.items():
            if s in plain:
                texts = texts + [plain[s]]
            if len(texts) > 1:
                a, b = sorted(texts, key=lambda t: (t == s, t))[:2]
                where = ", ".join(f"{shown(t)} in {spellings[t]}" for t in (a, b) if t in spellings)
                raise InputError(f"{col} {shown(a)} and {shown(b)} look alike but differ ({where}); they would"
                                 f" count as two different {col}s (write the names the same way)", source=source,
                                 column=col)


def read_distributed(data, *, client=None, executor=None, storage_options: dict | None = None, reread="auto",
                     trials: str = "keep", **options):
    """Read sharded item-level results on a Dask cluster into the table the single-machine reader builds.

    Parameters
    ----------
    data : str, os.PathLike or list
        Parquet, CSV or TSV shards: a folder, a glob (``'runs/*.parquet'``, ``'s3://bucket/evals/*.parquet'``),
        an fsspec URL of a file or folder (``file://``, ``memory://``, ``s3://``, ``gs://``, ...) or a list of
        them. Every shard needs the same columns.
    client : distributed.Client, optional
        The cluster's client. Default: the client of ``executor``, else the current client
        (``distributed.get_client()``).
    executor : evalband.resample.distributed.DaskExecutor, optional
        The executor of ``--scheduler`` (:func:`evalband.resample.distributed.dask_executor`): its client reads.
    storage_options : dict, optional
        Passed to fsspec (credentials, endpoint, ...); the workers open the shards with them.
    reread : {'auto', True, False}
        True: read each shard twice (once for its labels, once for its cells), so that a worker holds one shard
        and one key range at a time. False: each shard is read once and its table stays on its worker until its
        cells are reduced (a worker then holds its shards' tables, about 24 bytes a row, between the two passes).
        'auto' (default): True when the rows a worker would hold (the Parquet footers' row counts, or the CSV
        files' sizes, over the workers) would take more than an eighth of its memory limit (25 million rows
        without a limit), with a note saying so (:mod:`evalband.io._reread`). With ``trials='average'``
        rereading bounds a worker by about one shard and one key range's item cells (``docs/distributed.md``,
        *Sizing*).
    trials : {'keep', 'average'}
        'keep': one row per trial, as the single-machine table. 'average': for analyses that read no single
        trial (compare, rank, summarize), the workers reduce each item's trials to their mean and count, so that
        the client holds one row per (model, task, item) whatever the number of trials
        (:func:`evalband.data.trial_means.average_trials`, the same table the single-machine reader gives with
        ``trials='average'``; with facets, a row per item and facet levels). Each shard's reduction and every
        merge already hold a cell per item with a bitmask of its trial labels (a trial in two shards is named
        as with 'keep'), so a worker's partials follow the items too; past 1,024 trial labels the partials keep
        a row per trial up to a range's last merge. The trials are kept all the same when a sum of scores could
        depend on its order (scores such as 0.1: :func:`evalband.data.trial_means.sums_exact`).
    **options
        The options of :func:`evalband.io.tabular.read_tabular` (``model_col=``, ``unbounded=``, ``facets=``,
        ``cluster_col=``, ...), applied to every shard as to one file.

    Returns
    -------
    ResultsTable
        The table :func:`evalband.read` builds from the same rows (same labels, order, notes and numbers), built
        from the reduced cells: its index numbers the cells, not the source's rows.

    Raises
    ------
    InputError
        Any input error of the single-machine reader, naming the shard and its line (CSV, TSV) or row
        (Parquet); a (model, task, item, trial) present in two shards, naming both; columns that differ between
        shards; look-alike labels in different shards.

    Notes
    -----
    Workers need evalband, pyarrow and fsspec (with the filesystem's package, e.g. ``s3fs``); a ``memory://``
    filesystem is seen only by workers in the client's process (``processes=False``). Per-row measures (cost,
    latency, human labels) are read by the single-machine reader only.

    Examples
    --------
    >>> from evalband.resample.distributed import dask_executor                                         # doctest: +SKIP
    >>> from evalband.io.distributed_read import read_distributed                       # doctest: +SKIP
    >>> with dask_executor("tcp://10.0.0.5:8786") as ex:                                # doctest: +SKIP
    ...     table = read_distributed("s3://bucket/evals/*.parquet", executor=ex)
    ...     result = evalband.compare(table, rng=1, executor=ex)
    """
    trials = check_choice(trials, ("keep", "average"), "trials")
    reread = check_reread(reread)
    client = _client_of(client, executor)
    for name in _MEASURE_OPTIONS:
        if options.get(name) is not None and name in options:
            raise ArgumentError(words('`{arg:{name}}`: per-row measures need the rows; read them with the single-machine reader (no --scheduler)', name=name))
    if options.get("file_format") == "auto":
        del options["file_format"]
    source, shards = list_shards(data, storage_options=storage_options)
    # (on a worker: the client reads no shard)
    task_column = client.submit(_has_task_column, shards[0], options, storage_options, pure=False).result()
    reread, twice = decide(client, shards, storage_options, reread)
    read = [None] * len(shards) if reread else \
        [client.submit(shard_table, s, options, storage_options, task_column, pure=False) for s in shards]
    first = [client.submit(labels_of, s, options, storage_options, task_column, t, pure=False)
             for s, t in zip(shards, read)]
    summary = _gather(tree(client, first, merge_labels))
    del first
    notes = _notes(summary, source, options, shards, task_column) + ([twice] if twice is not None else [])
    labels = summary["labels"]
    columns = summary["columns"]
    if len(columns) > 1:
        a, b = sorted(columns)[:2]
        raise InputError(f"shards differ in their columns ({', '.join(a)} vs {', '.join(b)}); tables read together"
                         " need the same columns", source=source)
    (facets,) = summary["facets"] if len(summary["facets"]) == 1 else (None,)
    if facets is None:
        raise InputError("shards differ in their facet columns", source=source)
    if summary["measures"]:
        raise InputError(f"column{'s' if len(summary['measures']) > 1 else ''} {', '.join(sorted(summary['measures']))}"
                         " hold per-row measures (cost, latency, human labels), which need the rows: read them"
                         " without --scheduler, or leave them out with --drop-cols", source=source)
    _check_lookalikes(summary["odd"], labels, source)
    for task, groups in summary["groups"].items():
        if len(groups) > 1:
            (g1, s1), (g2, s2) = sorted(groups.items())[:2]
            raise InputError(f"group changes within task '{task}' ('{g1}' in {s1}, '{g2}' in {s2})", source=source,
                             column="group")
    codes = {c: {t: k for k, t in enumerate(natural_order(v))} for c, v in labels.items()}
    keys = ("task", "model", "item", *facets, "trial")
    radices = [max(len(codes[c]), 1) for c in keys]
    if math.prod(radices) >= 2 ** 63:
        raise InputError("too many distinct labels for one 64-bit cell key (tasks x models x items x facet levels"
                         " x trials); read the tasks apart", source=source)
    # key ranges on whole (task, model) prefixes, about RANGE_CELLS cells each
    prefixes, stride = radices[0] * radices[1], math.prod(radices[2:])
    n_trials = len(codes["trial"])
    average = trials == "average" and bool(summary["trials"]) and sums_exact(*summary["quantum"], n_trials)
    # with the trials averaged in the partials (up to MAX_MASK_TRIALS labels) a range's cells are its items
    masks = average and n_trials <= MAX_MASK_TRIALS
    cells_at_most = min(summary["rows"], math.prod(radices[:-1])) if masks else summary["rows"]
    n_ranges = max(1, min(prefixes, -(-cells_at_most // RANGE_CELLS)))
    bounds = [round(k * prefixes / n_ranges) * stride for k in range(n_ranges + 1)]
    # (a list: a dict would be scattered value by value under its own keys, shared between calls)
    (plan,) = client.scatter([{"keys": keys, "radices": radices, "codes": codes, "bounds": bounds,
                               "average": n_trials if average else 0, "masks": masks}],
                             broadcast=True, hash=False)
    second = [client.submit(reduce_shard, k, s, options, storage_options, task_column, plan, t, pure=False)
              for k, (s, t) in enumerate(zip(shards, read))]
    del read  # each shard's table is released once its cells are reduced
    ranges = [client.submit(cells, tree(client, [client.submit(part, f, r, pure=False) for f in second], combine),
                            plan, pure=False) for r in range(n_ranges)]
    del second

    def rows_of(dup):  # a duplicate found by the trial masks: its two rows, from the shards under each partial
        key, first, second = dup
        found = []
        for lo, hi in (first, second):
            got = client.gather([client.submit(locate, shards[k], options, storage_options, task_column, plan, key,
                                               pure=False) for k in range(lo, hi + 1)])
            k = next(k for k, r in enumerate(got) if r is not None)
            found += [lo + k, got[k]]
        return (key, *found)

    return _table(client, ranges, summary, keys, facets, notes, source, shards, n_trials if average else 0,
                  rows_of)

def _has_task_column(shard: Shard, options: dict, storage_options) -> bool:
    """Whether the shards carry a task column (else each shard is one task, as with several files)."""
    if options.get("task") is not None:
        return True
    local, cleanup = local_copy(shard, storage_options)
    try:
        import pyarrow.parquet as pq

        with open(local, "rb") as fh:
            head = fh.read(4)
        if head == b"PAR1":
            names = pq.ParquetFile(local).schema_arrow.names
        else:
            from ._frames import load_frame

            names = list(load_frame(local, file_format=options.get("file_format", "auto"), compact=True)[0].columns)
    finally:
        if cleanup is not None:
            os.unlink(cleanup)
    want = str(options.get("task_col") or "task").casefold()
    return any(str(n).strip().casefold() == want for n in names)


def _notes(summary: dict, source: str, options: dict, shards: list, task_column: bool) -> list[str]:
    """The notes of the single-machine reader of all shards: each shard's reading notes once, in shard order,
    and the notes of several files (shards without rows; each shard one task)."""
    notes: list[str] = []
    empty = summary["empty"]
    skipped = [n for k in ("empty", "header only") for n in sorted(empty.get(k, []))]
    if skipped:
        if "labels" not in summary:
            parts = [f"{len(v)} {k} ({', '.join(sorted(v)[:5])}{' ...' if len(v) > 5 else ''})"
                     for k, v in empty.items() if v]
            raise InputError(f"every file is empty or holds only a header: {'; '.join(parts)}", source=source)
    if not task_column:
        task_col = options.get("task_col") or "task"
        stems = [s.stem for s in shards]
        notes.append(NOTE_NO_COLUMN_EACH_FILE(task_col=task_col, value=', '.join(stems[:8]),
                                              value2=' ...' if len(stems) > 8 else ''))
    for shard_notes in summary["notes"]:
        for n in shard_notes:
            if n not in notes:
                notes.append(n)
    if skipped:
        parts = [f"{len(v)} {k} ({', '.join(sorted(v)[:5])}{' ...' if len(v) > 5 else ''})"
                 for k, v in ((k, empty.get(k, [])) for k in ("empty", "header only")) if v]
        notes.insert(0, NOTE_FILE_WITHOUT_ROWS_LEFT(value='s' if len(skipped) > 1 else '', value2='; '.join(parts)))
    return notes


def _row_word(shard: Shard) -> str:
    """How the reader names a shard's rows: 'row' in Parquet, the file 'line' in CSV and TSV."""
    return "row" if shard.name.lower().endswith((".parquet", ".pq")) else "line"




def _piece(got: dict, start: int, stop: int, columns: tuple) -> dict:
    """Cells ``start:stop`` of a reduced range: the table's columns only (on a worker)."""
    return {c: got[c][start:stop] for c in columns}


def _origin(got: dict, k: int) -> tuple[int, int]:
    """The shard and row of cell ``k`` of a reduced range (for a message; on a worker)."""
    return int(got["cluster_shard"][k]), int(got["cluster_row"][k])


def _size(got):
    """The number of cells of a fetched range (a failure or a duplicate passes through)."""
    if got is None:
        return 0
    if isinstance(got, Failure) or "dup" in got:
        return got
    return len(got["score"])


def _table(client, ranges, summary, keys, facets, notes, source, shards, averaged: int = 0, rows_of=None):
    """The results table from the reduced ranges, fetched one at a time into preallocated columns (rows in the
    canonical order, as ``ResultsTable.from_items`` leaves them)."""
    from ..data.table import ResultsTable
    from ._shards import code_dtype

    labels = {c: natural_order(v) for c, v in summary["labels"].items()}
    sizes = client.gather([client.submit(_size, f, pure=False) for f in ranges])
    for got in sizes:
        if isinstance(got, Failure):
            raise got.error()
        if isinstance(got, dict):
            if len(got["dup"]) == 3:  # (key, shards of the first row's partial, of the second's): find the rows
                got = {**got, "dup": rows_of(got["dup"])}
            _duplicate(got, labels, keys, facets, summary["trials"], shards)
    n = int(sum(sizes))
    has_clusters = "cluster" in labels
    columns = {c: np.empty(n, dtype=code_dtype(len(labels[c]))) for c in keys if not (averaged and c == "trial")}
    columns["score"] = np.empty(n, dtype=np.float64)
    if averaged:  # each item's trials as one row: their mean (score), count, sum and sum of squares
        columns["trials"] = np.empty(n, dtype=count_dtype(averaged))
        columns["score_sum"] = np.empty(n, dtype=np.float64)
        columns["score_sumsq"] = np.empty(n, dtype=np.float64)
    if has_clusters:
        columns["cluster"] = np.empty(n, dtype=code_dtype(len(labels["cluster"])))
        check = _ClusterCheck(len(labels["task"]), len(labels["item"]), labels, shards)
    start = 0
    for k, future in enumerate(ranges):
        size = sizes[k]
        for a in range(0, size, FETCH_CELLS):  # a piece at a time: the client holds one piece in transit
            b = min(size, a + FETCH_CELLS)
            got = client.submit(_piece, future, a, b, tuple(columns), pure=False).result()
            for c in columns:
                columns[c][start + a:start + b] = got[c]
            if has_clusters:
                check.add(got, lambda j, future=future, a=a: client.submit(_origin, future, a + j, pure=False).result())
            del got
        ranges[k] = None  # released on the workers once fetched
        future.release()
        start += size
    if has_clusters:
        check.done(columns, source)
    out = {}  # the columns, then one frame over them (copy=False: setting a column would copy its array)
    for col in ("model", "task", "item"):
        out[col] = pd.Categorical.from_codes(columns.pop(col), categories=labels[col], validate=False)
    if not averaged:
        out["trial"] = small_int(columns.pop("trial"))
    if has_clusters:
        out["cluster"] = pd.Categorical.from_codes(columns.pop("cluster"), categories=labels["cluster"],
                                                   validate=False)
    if "group" in labels:
        task_group = {t: next(iter(g)) for t, g in summary["groups"].items()}
        gcode = {g: k for k, g in enumerate(labels["group"])}
        per_task = np.array([gcode[task_group[t]] for t in labels["task"]], dtype=code_dtype(len(labels["group"])))
        out["group"] = pd.Categorical.from_codes(per_task[out["task"].codes],
                                                 categories=labels["group"], validate=False)
    for f in facets:
        out[f] = pd.Categorical.from_codes(columns.pop(f), categories=labels[f], validate=False)
    out["score"] = columns.pop("score")
    if averaged:
        for c in ("trials", "score_sum", "score_sumsq"):
            out[c] = columns.pop(c)
    out = pd.DataFrame(out, index=pd.RangeIndex(n), copy=False)
    kinds = summary["kinds"]
    kind = "unbounded" if "unbounded" in kinds else "binary" if kinds == {"binary"} else "bounded"
    # (every label column is built on its labels in natural order: the single reader's natural_labels is a no-op)
    table = ResultsTable(out, "item", kind, source, tuple(notes), None, bool(summary["trials"]), True,
                         tuple(facets), averaged)
    return table._with_coverage_notes()


def _duplicate(got: dict, labels, keys, facets, has_trials, shards):
    """The first cell with more than one row, named by its labels and both rows."""
    key, s1, r1, s2, r2 = got["dup"]
    radices = [max(len(labels[c]), 1) for c in keys]
    code, rest = {}, key
    for col, radix in zip(reversed(keys), reversed(radices)):
        code[col], rest = rest % radix, rest // radix
    what = f"model '{labels['model'][code['model']]}', task '{labels['task'][code['task']]}', item" \
           f" '{labels['item'][code['item']]}'"
    what += "".join(f", {f} '{labels[f][code[f]]}'" for f in facets)
    if has_trials:
        what += f", trial '{labels['trial'][code['trial']]}'"
    # the rows that have a twin, as the single-machine reader counts them (evalband.data.codes.first_duplicate)
    count = max(int(got["count"][got["count"] > 1].sum()), 2)
    raise InputError(f"duplicate result for {what} (also {shards[s2].url} {_row_word(shards[s2])} {r2}; {count}"
                     " duplicated rows)"
                     + ("" if has_trials else "; repeated trials need a trial column"),
                     source=shards[s1].url, row=f"{_row_word(shards[s1])} {r1}")


class _ClusterCheck:
    """Clusters are constant within an item (the rule of the single-machine table), across shards too: the cluster
    code of each (task, item) seen so far, checked and updated range by range; on a (task x item) table when it is
    small, else by the single-machine check on the finished columns."""

    #: (task, item) entries up to which the check keeps a table of them (int32 each)
    MAX_ENTRIES = 100_000_000

    def __init__(self, n_tasks: int, n_items: int, labels, shards):
        self.n_items, self.labels, self.shards = n_items, labels, shards
        self.dense = n_tasks * n_items <= self.MAX_ENTRIES
        if self.dense:
            self.seen = np.full(n_tasks * n_items, -1, dtype=np.int32)

    def add(self, got: dict, origin) -> None:
        """Check the cells of one piece; ``origin(k)`` gives the (shard, row) of its cell ``k`` for a message."""
        if not self.dense:
            return
        where = got["task"].astype(np.int64) * self.n_items + got["item"]
        c = got["cluster"].astype(np.int32)
        before = self.seen[where]
        bad = np.flatnonzero((before >= 0) & (before != c))  # against the ranges before
        if not bad.size:
            self.seen[where] = c  # within the range: one of its clusters per item is kept, the others differ
            bad = np.flatnonzero(self.seen[where] != c)
            before = self.seen[where]
        if bad.size:
            k = int(bad[0])
            t, i, a, b = int(got["task"][k]), int(got["item"][k]), int(before[k]), int(c[k])
            s, row = origin(k)
            shard = self.shards[s]
            raise InputError(f"cluster changes within item '{self.labels['item'][i]}' of task"
                             f" '{self.labels['task'][t]}' ('{self.labels['cluster'][a]}' and"
                             f" '{self.labels['cluster'][b]}'); an item belongs to one cluster", source=shard.url,
                             row=f"{_row_word(shard)} {row}", column="cluster")

    def done(self, columns: dict, source: str) -> None:
        if self.dense:
            return
        from ..data.checks import _constant_within

        frame = pd.DataFrame({c: pd.Categorical.from_codes(columns[c], categories=self.labels[c], validate=False)
                              for c in ("task", "item", "cluster")})
        _constant_within(frame, "cluster", ["task", "item"], "item", source, "cell")
