"""Sharded results read and reduced on a Dask cluster: the table is built from per-cell sums, never from rows.

A folder, glob or list of Parquet / CSV / TSV shards, local or behind an fsspec URL (``file://``, ``memory://``,
``s3://``, ``gs://``, ...), is read in three steps, each shard by one worker task:

1. **labels** (:func:`_labels_of`): each worker reads its shard with the single-machine reader
   (:func:`evalband.io.tabular.read_tabular` on that one file: strict headers, labels as written, look-alike labels,
   duplicates, non-finite and out-of-range scores, clusters constant within an item; an error names the shard and
   its line or row) and returns the distinct labels of each label column; the sets are united in a tree on the
   workers, so the client receives each distinct label once;
2. **canonical codes** (client): every label column's labels in natural order (:func:`evalband._labels.natural_order`,
   the order of the single-machine table), so that a code means the same label on every worker; look-alike labels
   of different shards are refused here;
3. **reduction** (:func:`_reduce_shard`, :func:`_combine`): each worker reads its shard again and reduces it to
   the sufficient statistics of its cells, a cell being one (task, model, item, facet levels, trial) on the global
   codes: sorted cell keys, sums of the scores and row counts (plus the cell's cluster and the first row behind it,
   for messages). Partial reductions are merged pairwise in a tree on the workers (equal keys add up; a count above
   one is a duplicate, reported naming both rows); the client receives one reduced set.

The client then builds the very :class:`~evalband.table.ResultsTable` the single-machine reader builds (rows in
the canonical order, categoricals in natural order, the same notes), so compare, rank, summarize and every other
analysis run unchanged and print the same bytes for the same seed (``tests/io/test_distributed_read.py``). Rows
never travel to the client: it holds the reduced cells (about 36 bytes each) and the table built from them.

Memory: a worker holds one shard as the single-machine reader holds one file (about 20 bytes a row once read) and
the partial reductions it merges; the client the reduced cells. See ``docs/distributed.md`` for sizing.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._labels import _skeleton, natural_order, shown
from .._table_checks import _COVERAGE_PREFIX, natural_labels
from .._table_codes import small_int
from .._validate import ArgumentError, ArgumentTypeError, InputError

__all__ = ["read_distributed", "list_shards", "Shard", "is_sharded", "is_url"]

#: suffixes of the shards read (compressed text included); other files in a folder are named in an error
SHARD_SUFFIXES = (".parquet", ".pq", ".csv", ".tsv", ".csv.gz", ".tsv.gz", ".csv.bz2", ".tsv.bz2", ".csv.zst",
                  ".tsv.zst", ".csv.zstd", ".tsv.zstd")
_GLOB = re.compile(r"[*?\[]")
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
#: the label columns of an item-level table (trials are codes there; their labels are read apart)
_LABELS = ("model", "task", "item", "cluster", "group")
#: options of the single-machine reader the distributed path does not take (per-row measures need the rows)
_MEASURE_OPTIONS = ("cost_col", "latency_col", "human_col")


@dataclass(frozen=True)
class Shard:
    """One file of a sharded input: its fsspec URL (or local path), the name messages give it, and the task it
    names when the table has no task column (its name without suffixes, as the single-machine reader names it)."""

    url: str
    name: str
    stem: str
    local: bool


def is_url(text) -> bool:
    """Whether ``text`` is an fsspec URL (``s3://...``, ``file://...``, ``memory://...``)."""
    return isinstance(text, str) and bool(_URL.match(text))


def is_sharded(data) -> bool:
    """Whether ``data`` names shards the distributed reader takes: an fsspec URL, a glob, a folder or a list."""
    if isinstance(data, (list, tuple)):
        return bool(data) and all(isinstance(d, (str, os.PathLike)) for d in data)
    if not isinstance(data, (str, os.PathLike)):
        return False
    text = os.fspath(data)
    return bool(_URL.match(text)) or (bool(_GLOB.search(text)) and not os.path.exists(text)) or os.path.isdir(text)


def _fs(url: str, storage_options: dict | None):
    import fsspec

    fs, path = fsspec.core.url_to_fs(url, **(storage_options or {}))
    return fs, path


def _shown_url(fs, path: str, given: str) -> str:
    if not _URL.match(given):
        return path
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return path if protocol in ("file", "local") and not given.startswith("file://") else fs.unstrip_protocol(path)


def list_shards(data, *, storage_options: dict | None = None) -> tuple[str, list[Shard]]:
    """The shards named by ``data`` (a URL, path, glob, folder, or a list of them), sorted by name: ``(source,
    shards)``, ``source`` naming the input in messages as given. Hidden files (``.name``) in a folder are not read."""
    from ._frames import task_names

    if isinstance(data, (list, tuple)):
        shards = []
        for entry in data:
            shards += list_shards(entry, storage_options=storage_options)[1]
        seen, unique = set(), []
        for s in shards:
            if s.url not in seen:
                seen.add(s.url)
                unique.append(s)
        source, shards = f"{len(data)} paths", sorted(unique, key=lambda s: s.url)
    else:
        if not isinstance(data, (str, os.PathLike)):
            raise ArgumentTypeError(f"`data` must be a path, a glob, a folder, a URL or a list of them; got"
                                    f" {type(data).__name__}.")
        source = os.fspath(data)
        fs, path = _fs(source, storage_options)
        if _GLOB.search(path) and not fs.exists(path):
            found = [p for p in fs.glob(path) if not fs.isdir(p)]
            if not found:
                raise InputError("the pattern matches no file", source=source)
        elif fs.isdir(path):
            found = [p for p in fs.find(path) if not any(part.startswith(".") for part in
                                                         p[len(path.rstrip("/")):].split("/"))]
            other = [p for p in found if not p.lower().endswith(SHARD_SUFFIXES)]
            if other:
                raise InputError(f"the folder holds {len(other)} file(s) that are no Parquet, CSV or TSV shard"
                                 f" ({', '.join(p.rsplit('/', 1)[-1] for p in other[:3])}); name the shards with a"
                                 " glob such as 'folder/*.parquet'", source=source)
            if not found:
                raise InputError("the folder holds no file", source=source)
        elif fs.exists(path):
            found = [path]
        else:
            raise InputError("no such file, folder or pattern", source=source)
        local = "file" in ((fs.protocol,) if isinstance(fs.protocol, str) else fs.protocol)
        found = sorted(found)
        shards = [Shard(_shown_url(fs, p, source) if not local or _URL.match(source) else p,
                        p.rsplit("/", 1)[-1], "", local) for p in found]
    names = [s.name for s in shards]
    if len(set(names)) < len(names):  # the same name in two folders: messages give the paths
        shards = [Shard(s.url, s.url, s.stem, s.local) for s in shards]
    from pathlib import PurePosixPath

    stems = task_names([PurePosixPath(s.url.split("://", 1)[-1]) for s in shards])
    return source, [Shard(s.url, s.name, t, s.local) for s, t in zip(shards, stems)]


# ------------------------------------------------------------------------------------------ on the workers
@dataclass(frozen=True)
class _Failure:
    """An input error raised on a worker, carried back as data (the client raises it)."""

    problem: str
    source: str | None
    row: object
    column: str | None

    def error(self) -> InputError:
        return InputError(self.problem, source=self.source, row=self.row, column=self.column)


def _local_copy(shard: Shard, storage_options):
    """(path, cleanup): the shard as a local file (a remote one copied to a temporary file on the worker)."""
    if shard.local:
        return shard.url.split("://", 1)[-1] if shard.url.startswith("file://") else shard.url, None
    fs, path = _fs(shard.url, storage_options)
    suffix = "".join(s for s in SHARD_SUFFIXES if shard.name.lower().endswith(s))[-12:] or ".csv"
    for s in sorted(SHARD_SUFFIXES, key=len, reverse=True):
        if shard.name.lower().endswith(s):
            suffix = s
            break
    handle, local = tempfile.mkstemp(suffix=suffix, prefix="evalband-shard-")
    os.close(handle)
    fs.get_file(path, local)
    return local, local


def _shard_table(shard: Shard, options: dict, storage_options, task_column: bool):
    """The single-machine reader on one shard: (table, trial labels in the shard's natural order), or a
    :class:`_Failure` naming the shard; ``'empty'`` or ``'header only'`` for a shard without rows."""
    from ..io.tabular import read_tabular

    local, cleanup = _local_copy(shard, storage_options)
    try:
        opts = dict(options)
        if not task_column and opts.get("task") is None:
            opts["task"] = shard.stem  # several files without a task column: each file is one task
        try:
            table = read_tabular(local, **opts)
        except InputError as exc:
            if str(exc.problem).startswith("is empty"):
                return "empty"
            if str(exc.problem).startswith("no rows to analyse"):
                return "header only"
            return _Failure(exc.problem, shard.url, exc.row, exc.column)
        if table.level != "item":
            return _Failure("per-task summaries are small: read them with the single-machine reader (no"
                            " --scheduler)", shard.url, None, None)
        trials = _trial_labels(local, table, options) if table.has_trials else ["0"]
        return table, trials
    finally:
        if cleanup is not None:
            os.unlink(cleanup)


def _trial_labels(local: str, table, options: dict) -> list[str]:
    """The trial labels of a shard in its natural order (the table keeps their ranks only): the trial column
    alone, read again and put through the label rule."""
    from .._labels import label_column
    from ._frames import load_frame
    from .tabular import _match_case

    df = load_frame(local, file_format=options.get("file_format", "auto"), compact=True)[0]
    col = _match_case(options.get("trial_col") or "trial", [str(c).strip() for c in df.columns], local,
                      "--trial-col", explicit=False)
    df.columns = [str(c).strip() for c in df.columns]
    labels = label_column(df[col], "trial", local)[0]
    return natural_order(labels.cat.categories)


def _labels_of(shard: Shard, options: dict, storage_options, task_column: bool):
    """Pass 1 on a worker: the shard's distinct labels per column, its notes and its kind of scores."""
    got = _shard_table(shard, options, storage_options, task_column)
    if isinstance(got, (str, _Failure)):
        return {"failure": got if isinstance(got, _Failure) else None, "empty": {got: [shard.name]}
                if isinstance(got, str) else {}}
    table, trials = got
    d = table.data
    labels = {c: set(map(str, d[c].cat.categories)) for c in (*_LABELS, *table.facets) if c in d.columns}
    labels["trial"] = set(trials)
    odd = {c: {u: shard.name for u in v if not (u.isascii() and u.isprintable() and u == u.strip())}
           for c, v in labels.items()}
    groups = {}
    if table.has_groups:
        groups = {t: {g: shard.url} for t, g in table.task_groups.items()}
    notes = [n for n in table.notes if not n.startswith(_COVERAGE_PREFIX)]
    if not task_column:
        one_task = f"no '{options.get('task_col') or 'task'}' column: one task named"
        notes = [n for n in notes if not n.startswith(one_task)]
    return {"failure": None, "empty": {}, "labels": labels, "odd": odd, "notes": [notes],
            "kinds": {table.score_kind}, "trials": table.has_trials, "facets": {table.facets},
            "columns": {tuple(d.columns)}, "groups": groups, "rows": len(d)}


def _merge_labels(a: dict, b: dict) -> dict:
    """Two pass-1 summaries as one (sets united, notes kept in shard order); the first failure wins."""
    if a.get("failure") is not None:
        return a
    if b.get("failure") is not None:
        return b
    empty = {k: a["empty"].get(k, []) + b["empty"].get(k, []) for k in {*a["empty"], *b["empty"]}}
    if "labels" not in a or "labels" not in b:
        out = dict(a if "labels" in a else b)
        out["empty"] = empty
        return out
    labels = {c: a["labels"].get(c, set()) | b["labels"].get(c, set()) for c in {*a["labels"], *b["labels"]}}
    odd = {}
    for c in {*a["odd"], *b["odd"]}:
        odd[c] = {**b["odd"].get(c, {}), **a["odd"].get(c, {})}
    groups = {t: {**b["groups"].get(t, {}), **a["groups"].get(t, {})} for t in {*a["groups"], *b["groups"]}}
    return {"failure": None, "empty": empty, "labels": labels, "odd": odd, "notes": a["notes"] + b["notes"],
            "kinds": a["kinds"] | b["kinds"], "trials": a["trials"] or b["trials"], "facets": a["facets"] | b["facets"],
            "columns": a["columns"] | b["columns"], "groups": groups, "rows": a["rows"] + b["rows"]}


@dataclass(frozen=True)
class _Reduced:
    """Cells of one or more shards, sorted by key: sum of the scores, rows, cluster code (-1: none), and the first
    row behind each cell (shard number, row label); ``dup`` holds the first duplicate found, if any."""

    key: np.ndarray
    total: np.ndarray
    count: np.ndarray
    cluster: np.ndarray
    shard: np.ndarray
    row: np.ndarray
    dup: tuple | None = None

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.key, self.total, self.count, self.cluster, self.shard, self.row))


def _codes(values: pd.Series, where: dict) -> np.ndarray:
    """A categorical column's codes on the global codes ``where`` (label -> code)."""
    lookup = np.array([where[str(c)] for c in values.cat.categories], dtype=np.int64)
    return lookup[values.cat.codes.to_numpy()] if lookup.size else np.zeros(len(values), dtype=np.int64)


def _reduce_shard(index: int, shard: Shard, options: dict, storage_options, task_column: bool, plan: dict):
    """Pass 2 on a worker: the shard's cells on the global codes (``plan``: label -> code per column, the key
    columns and their radices)."""
    got = _shard_table(shard, options, storage_options, task_column)
    if isinstance(got, str):
        return None
    if isinstance(got, _Failure):
        return got
    table, trials = got
    d = table.data
    key = np.zeros(len(d), dtype=np.int64)
    for col, radix in zip(plan["keys"], plan["radices"]):
        if col == "trial":
            rank = np.array([plan["codes"]["trial"][t] for t in trials], dtype=np.int64)
            code = rank[d["trial"].to_numpy()]
        else:
            code = _codes(d[col], plan["codes"][col])
        key *= radix
        key += code
    cluster = _codes(d["cluster"], plan["codes"]["cluster"]) if "cluster" in d.columns else \
        np.full(len(d), -1, dtype=np.int64)
    order = np.argsort(key, kind="stable")
    labels = d.index.to_numpy()
    rows = labels.astype(np.int64) if np.issubdtype(labels.dtype, np.integer) else np.arange(1, len(d) + 1)
    return _Reduced(key[order], d["score"].to_numpy(np.float64)[order], np.ones(len(d), dtype=np.int32),
                    cluster[order].astype(np.int32), np.full(len(d), index, dtype=np.int32), rows[order])


def _combine(a, b):
    """Two partial reductions as one: cells of equal key add their sums and counts (a count above one is a
    duplicate; the first one is kept for the message)."""
    for x in (a, b):
        if isinstance(x, _Failure):
            return x
    if a is None or b is None:
        return b if a is None else a
    key = np.concatenate([a.key, b.key])
    order = np.argsort(key, kind="stable")
    key = key[order]
    parts = {f: np.concatenate([getattr(a, f), getattr(b, f)])[order] for f in ("total", "count", "cluster",
                                                                                 "shard", "row")}
    start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    dup = a.dup or b.dup
    if start.size == key.size:
        return _Reduced(key, parts["total"], parts["count"], parts["cluster"], parts["shard"], parts["row"], dup)
    if dup is None:
        first = int(np.flatnonzero(key[1:] == key[:-1])[0])
        dup = (int(key[first]), int(parts["shard"][first]), int(parts["row"][first]),
               int(parts["shard"][first + 1]), int(parts["row"][first + 1]))
    return _Reduced(key[start], np.add.reduceat(parts["total"], start), np.add.reduceat(parts["count"], start),
                    parts["cluster"][start], parts["shard"][start], parts["row"][start], dup)


def _tree(client, futures: list, combine):
    """Combine futures pairwise on the workers until one is left (a binary tree, depth log2 of the shards)."""
    while len(futures) > 1:
        nxt = [client.submit(combine, futures[k], futures[k + 1], pure=False) for k in range(0, len(futures) - 1, 2)]
        if len(futures) % 2:
            nxt.append(futures[-1])
        futures = nxt
    return futures[0]


# ------------------------------------------------------------------------------------------ on the client
def _client_of(client, executor):
    if client is not None and executor is not None:
        raise ArgumentError("give `client` or `executor`, not both")
    if executor is not None:
        client = getattr(executor, "client", None)
        if client is None:
            raise ArgumentTypeError("`executor` must be an evalband.dist.DaskExecutor (distributed reading runs on"
                                    f" a Dask cluster); got {type(executor).__name__}.")
    if client is None:
        from ..dist import require_distributed

        distributed = require_distributed()
        try:
            client = distributed.get_client()
        except ValueError:
            raise ArgumentError("distributed reading needs a Dask cluster: pass `client=` or `executor=`"
                                " (evalband.dist.dask_executor), or --scheduler on the command line") from None
    return client


def _gather(future):
    out = future.result()
    if isinstance(out, _Failure):
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


def read_distributed(data, *, client=None, executor=None, storage_options: dict | None = None, **options):
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
    executor : evalband.dist.DaskExecutor, optional
        The executor of ``--scheduler`` (:func:`evalband.dist.dask_executor`): its client reads.
    storage_options : dict, optional
        Passed to fsspec (credentials, endpoint, ...); the workers open the shards with them.
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
    >>> from evalband.dist import dask_executor                                         # doctest: +SKIP
    >>> from evalband.io.distributed_read import read_distributed                       # doctest: +SKIP
    >>> with dask_executor("tcp://10.0.0.5:8786") as ex:                                # doctest: +SKIP
    ...     table = read_distributed("s3://bucket/evals/*.parquet", executor=ex)
    ...     result = evalband.compare(table, rng=1, executor=ex)
    """
    from ..table import ResultsTable

    client = _client_of(client, executor)
    for name in _MEASURE_OPTIONS:
        if options.get(name) is not None and name in options:
            raise ArgumentError(f"`{name}`: per-row measures need the rows; read them with the single-machine"
                                " reader (no --scheduler)")
    for name in _MEASURE_OPTIONS:
        options[name] = None
    options.pop("file_format", None) if options.get("file_format") == "auto" else None
    source, shards = list_shards(data, storage_options=storage_options)
    task_column = _has_task_column(shards[0], options, storage_options)
    first = [client.submit(_labels_of, s, options, storage_options, task_column, pure=False) for s in shards]
    summary = _gather(_tree(client, first, _merge_labels))
    del first
    notes = _notes(summary, source, options, shards, task_column)
    labels = summary["labels"]
    columns = summary["columns"]
    if len(columns) > 1:
        a, b = sorted(columns)[:2]
        raise InputError(f"shards differ in their columns ({', '.join(a)} vs {', '.join(b)}); tables read together"
                         " need the same columns", source=source)
    (facets,) = summary["facets"] if len(summary["facets"]) == 1 else (None,)
    if facets is None:
        raise InputError("shards differ in their facet columns", source=source)
    _check_lookalikes(summary["odd"], labels, source)
    for task, groups in summary["groups"].items():
        if len(groups) > 1:
            (g1, s1), (g2, s2) = sorted(groups.items())[:2]
            raise InputError(f"group changes within task '{task}' ('{g1}' in {s1}, '{g2}' in {s2})", source=source,
                             column="group")
    codes = {c: {t: k for k, t in enumerate(natural_order(v))} for c, v in labels.items()}
    keys = ("task", "model", "item", *facets, "trial")
    radices = [max(len(codes[c]), 1) for c in keys]
    if float(np.prod(np.array(radices, dtype=np.float64))) >= 2.0 ** 63:
        raise InputError("too many distinct labels for one 64-bit cell key (tasks x models x items x facet levels"
                         " x trials); read the tasks apart", source=source)
    # (a list: a dict would be scattered value by value under its own keys, shared between calls)
    (plan,) = client.scatter([{"keys": keys, "radices": radices, "codes": codes}], broadcast=True, hash=False)
    second = [client.submit(_reduce_shard, k, s, options, storage_options, task_column, plan, pure=False)
              for k, s in enumerate(shards)]
    reduced = _gather(_tree(client, second, _combine))
    del second
    return _table(reduced, summary, codes, keys, radices, facets, notes, source, shards, options, ResultsTable)


def _has_task_column(shard: Shard, options: dict, storage_options) -> bool:
    """Whether the shards carry a task column (else each shard is one task, as with several files)."""
    if options.get("task") is not None:
        return True
    local, cleanup = _local_copy(shard, storage_options)
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
        notes.append(f"no '{task_col}' column: each file is one task, named after the file"
                     f" ({', '.join(stems[:8])}{' ...' if len(stems) > 8 else ''})")
    for part in summary["notes"]:
        for n in part:
            if n not in notes:
                notes.append(n)
    if skipped:
        parts = [f"{len(v)} {k} ({', '.join(sorted(v)[:5])}{' ...' if len(v) > 5 else ''})"
                 for k, v in ((k, empty.get(k, [])) for k in ("empty", "header only")) if v]
        notes.insert(0, f"file{'s' if len(skipped) > 1 else ''} without rows left out: {'; '.join(parts)}")
    return notes


def _table(reduced: _Reduced, summary, codes, keys, radices, facets, notes, source, shards, options, cls):
    """The results table from the reduced cells (rows in the canonical order, as ``ResultsTable.from_items``
    leaves them)."""
    labels = {c: natural_order(v) for c, v in summary["labels"].items()}
    # decode the keys into the columns' codes (the last key column varies fastest)
    rest = reduced.key
    parts = {}
    for col, radix in zip(reversed(keys), reversed(radices)):
        parts[col] = rest % radix
        rest = rest // radix
    del rest
    if reduced.dup is not None or (reduced.count > 1).any():
        _duplicate(reduced, parts, labels, facets, summary["trials"], source, shards)
    out = pd.DataFrame(index=pd.RangeIndex(len(reduced.key)))
    for col in ("model", "task", "item"):
        out[col] = pd.Categorical.from_codes(parts[col], categories=labels[col], validate=False)
    out["trial"] = small_int(parts["trial"])
    if "cluster" in labels and (reduced.cluster >= 0).any():
        _cluster_constant(reduced.cluster, parts, labels, source, shards, reduced)
        out["cluster"] = pd.Categorical.from_codes(reduced.cluster, categories=labels["cluster"], validate=False)
    if "group" in labels:
        task_group = {t: next(iter(g)) for t, g in summary["groups"].items()}
        gcode = {g: k for k, g in enumerate(labels["group"])}
        per_task = np.array([gcode[task_group[t]] for t in labels["task"]], dtype=np.int64)
        out["group"] = pd.Categorical.from_codes(per_task[parts["task"]], categories=labels["group"], validate=False)
    for f in facets:
        out[f] = pd.Categorical.from_codes(parts[f], categories=labels[f], validate=False)
    out["score"] = reduced.total
    kinds = summary["kinds"]
    kind = "unbounded" if "unbounded" in kinds else "binary" if kinds == {"binary"} else "bounded"
    out = natural_labels(out, keys, ("cluster", "group"))
    table = cls(out, "item", kind, source, tuple(notes), None, bool(summary["trials"]), True, tuple(facets))
    return table._with_coverage_notes()


def _row_word(shard: Shard) -> str:
    """How the reader names a shard's rows: 'row' in Parquet, the file 'line' in CSV and TSV."""
    return "row" if shard.name.lower().endswith((".parquet", ".pq")) else "line"


def _duplicate(reduced, parts, labels, facets, has_trials, source, shards):
    """The first cell with more than one row, named by its labels and both rows."""
    if reduced.dup is not None:
        key, s1, r1, s2, r2 = reduced.dup
        pos = int(np.searchsorted(reduced.key, key))
    else:  # pragma: no cover - a duplicate within a shard is refused by the shard's reader
        pos = int(np.flatnonzero(reduced.count > 1)[0])
        s1, r1, s2, r2 = int(reduced.shard[pos]), int(reduced.row[pos]), -1, -1
    what = f"model '{labels['model'][parts['model'][pos]]}', task '{labels['task'][parts['task'][pos]]}', item" \
           f" '{labels['item'][parts['item'][pos]]}'"
    what += "".join(f", {f} '{labels[f][parts[f][pos]]}'" for f in facets)
    if has_trials:
        what += f", trial '{labels['trial'][parts['trial'][pos]]}'"
    count = max(int((reduced.count[reduced.count > 1] - 1).sum()), 1)
    also = f"also {shards[s2].url} {_row_word(shards[s2])} {r2}; " if s2 >= 0 else ""
    raise InputError(f"duplicate result for {what} ({also}{count} duplicated row{'s' if count > 1 else ''})"
                     + ("" if has_trials else "; repeated trials need a trial column"),
                     source=shards[s1].url, row=f"{_row_word(shards[s1])} {r1}")


def _cluster_constant(cluster, parts, labels, source, shards, reduced):
    """Clusters are constant within an item (the rule of the single-machine table), across shards too."""
    n_i = len(labels["item"])
    ti = parts["task"] * n_i + parts["item"]
    order = np.argsort(ti, kind="stable")
    ti_s, c_s = ti[order], cluster[order]
    bad = np.flatnonzero((ti_s[1:] == ti_s[:-1]) & (c_s[1:] != c_s[:-1]))
    if bad.size:
        a, b = order[bad[0]], order[bad[0] + 1]
        raise InputError(f"cluster changes within item '{labels['item'][parts['item'][a]]}' of task"
                         f" '{labels['task'][parts['task'][a]]}' ('{labels['cluster'][cluster[a]]}' in"
                         f" {shards[reduced.shard[a]].url}, '{labels['cluster'][cluster[b]]}' in"
                         f" {shards[reduced.shard[b]].url}); an item belongs to one cluster", source=source,
                         row=f"{_row_word(shards[reduced.shard[b]])} {int(reduced.row[b])}", column="cluster")
