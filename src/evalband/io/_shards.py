"""The worker side of the distributed read path (:mod:`evalband.io.distributed_read`): shards listed with fsspec,
each read by the single-machine reader, its labels collected, its cells reduced to sums and counts on the global
codes, partial reductions merged, and the cells of a key range turned into the table's columns.

Every function here runs on a Dask worker (or in the client for listing) and returns plain data: an input error is
carried back as :class:`Failure` (the client raises it), so messages keep their shard, row and column.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.labels import natural_order
from ..data.checks import _COVERAGE_PREFIX
from .._validate import ArgumentTypeError, InputError

__all__ = ["Shard", "list_shards", "is_sharded", "is_url"]

#: suffixes of the shards read (compressed text included); other files in a folder are named in an error
SHARD_SUFFIXES = (".parquet", ".pq", ".csv", ".tsv", ".csv.gz", ".tsv.gz", ".csv.bz2", ".tsv.bz2", ".csv.zst",
                  ".tsv.zst", ".csv.zstd", ".tsv.zstd")
_GLOB = re.compile(r"[*?\[]")
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
#: the label columns of an item-level table (trials are codes there; their labels are read apart)
LABELS = ("model", "task", "item", "cluster", "group")


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
class Failure:
    """An input error raised on a worker, carried back as data (the client raises it)."""

    problem: str
    source: str | None
    row: object
    column: str | None

    def error(self) -> InputError:
        return InputError(self.problem, source=self.source, row=self.row, column=self.column)


def local_copy(shard: Shard, storage_options):
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


def shard_table(shard: Shard, options: dict, storage_options, task_column: bool):
    """The single-machine reader on one shard: (table, trial labels in the shard's natural order), or a
    :class:`Failure` naming the shard; ``'empty'`` or ``'header only'`` for a shard without rows."""
    from ..io.tabular import read_tabular

    local, cleanup = local_copy(shard, storage_options)
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
            return Failure(exc.problem, shard.url, exc.row, exc.column)
        if table.level != "item":
            return Failure("per-task summaries are small: read them with the single-machine reader (no"
                            " --scheduler)", shard.url, None, None)
        trials = _trial_labels(local, table, options) if table.has_trials else ["0"]
        return table, trials
    finally:
        if cleanup is not None:
            os.unlink(cleanup)


def _trial_labels(local: str, table, options: dict) -> list[str]:
    """The trial labels of a shard in its natural order (the table keeps their ranks only): the trial column
    alone, read again and put through the label rule."""
    from ..data.labels import label_column
    from ._frames import load_frame
    from .tabular import _match_case

    df = load_frame(local, file_format=options.get("file_format", "auto"), compact=True)[0]
    col = _match_case(options.get("trial_col") or "trial", [str(c).strip() for c in df.columns], local,
                      "--trial-col", explicit=False)
    df.columns = [str(c).strip() for c in df.columns]
    labels = label_column(df[col], "trial", local)[0]
    return natural_order(labels.cat.categories)


def labels_of(shard: Shard, options: dict, storage_options, task_column: bool, got=None):
    """Pass 1 on a worker: the shard's distinct labels per column, its notes and its kind of scores (``got``: the
    shard already read by :func:`shard_table`, else it is read here)."""
    if got is None:
        got = shard_table(shard, options, storage_options, task_column)
    if isinstance(got, (str, Failure)):
        return {"failure": got if isinstance(got, Failure) else None, "empty": {got: [shard.name]}
                if isinstance(got, str) else {}}
    table, trials = got
    d = table.data
    labels = {c: set(map(str, d[c].cat.categories)) for c in (*LABELS, *table.facets) if c in d.columns}
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
    from ..data.trial_means import score_quantum

    return {"failure": None, "empty": {}, "labels": labels, "odd": odd, "notes": [notes],
            "quantum": score_quantum(d["score"].to_numpy()),
            "kinds": {table.score_kind}, "trials": table.has_trials, "facets": {table.facets},
            "columns": {tuple(d.columns)}, "groups": groups, "rows": len(d), "measures": set(table.measures)}


def merge_labels(*summaries) -> dict:
    """Pass-1 summaries as one (sets united, notes kept in shard order); the first failure wins."""
    out = summaries[0]
    for other in summaries[1:]:
        out = _merge_two(out, other)
    return out


def _merge_two(a: dict, b: dict) -> dict:
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
    quantum = (min(a["quantum"][0], b["quantum"][0]), max(a["quantum"][1], b["quantum"][1]))
    return {"failure": None, "empty": empty, "labels": labels, "odd": odd, "notes": a["notes"] + b["notes"],
            "quantum": quantum,
            "kinds": a["kinds"] | b["kinds"], "trials": a["trials"] or b["trials"], "facets": a["facets"] | b["facets"],
            "columns": a["columns"] | b["columns"], "groups": groups, "rows": a["rows"] + b["rows"],
            "measures": a["measures"] | b["measures"]}


@dataclass(frozen=True)
class Reduced:
    """Cells of one key range of one or more shards, sorted by key: sum of the scores, rows, cluster code (-1:
    none), and the first row behind each cell (shard number, row label); ``dup`` holds the first duplicate found
    (key, shard, row, shard, row), if any."""

    key: np.ndarray
    total: np.ndarray
    count: np.ndarray
    cluster: np.ndarray
    shard: np.ndarray
    row: np.ndarray
    dup: tuple | None = None

    def __len__(self) -> int:
        return len(self.key)

    def take(self, where) -> "Reduced":
        return Reduced(*(getattr(self, f)[where] for f in ("key", "total", "count", "cluster", "shard", "row")),
                       self.dup)


def _codes(values: pd.Series, where: dict) -> np.ndarray:
    """A categorical column's codes on the global codes ``where`` (label -> code)."""
    lookup = np.array([where[str(c)] for c in values.cat.categories], dtype=np.int64)
    return lookup[values.cat.codes.to_numpy()] if lookup.size else np.zeros(len(values), dtype=np.int64)


def reduce_shard(index: int, shard: Shard, options: dict, storage_options, task_column: bool, plan: dict,
                 got=None):
    """Pass 2 on a worker: the shard's cells on the global codes, split into the key ranges of ``plan`` (a list
    of :class:`Reduced`, one per range; None for a shard without rows). ``plan``: label -> code per column, the
    key columns, their radices and the range bounds; ``got``: the shard as pass 1 read it, else read again."""
    if got is None:
        got = shard_table(shard, options, storage_options, task_column)
    if isinstance(got, str):
        return None
    if isinstance(got, Failure):
        return got
    key, score, cluster, rows = _keyed(got, plan)
    del got
    if plan.get("masks"):  # the trials of each cell as one, with a mask of their labels (:mod:`._trial_cells`)
        from ._trial_cells import reduce_cells

        return reduce_cells(index, key, score, cluster, rows, plan["average"], plan["bounds"])
    order = np.argsort(key, kind="stable")
    out = Reduced(key[order], score[order], np.ones(len(key), dtype=np.int32),
                  cluster[order].astype(np.int32), np.full(len(key), index, dtype=np.int32), rows[order])
    del key, cluster, rows
    cuts = np.searchsorted(out.key, plan["bounds"])
    return [out.take(slice(int(a), int(b))) if b > a else None for a, b in zip(cuts[:-1], cuts[1:])]


def _keyed(got, plan: dict):
    """A shard's rows as (full cell keys on the global codes, scores, cluster codes or -1, row labels)."""
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
    labels = d.index.to_numpy()
    rows = labels.astype(np.int64) if np.issubdtype(labels.dtype, np.integer) else np.arange(1, len(d) + 1)
    return key, d["score"].to_numpy(np.float64), cluster, rows


def locate(shard: Shard, options: dict, storage_options, task_column: bool, plan: dict, full_key: int):
    """The row label of the cell ``full_key`` in a shard, or None (a duplicate's rows, read again)."""
    got = shard_table(shard, options, storage_options, task_column)
    if isinstance(got, (str, Failure)):
        return None
    key, _, _, rows = _keyed(got, plan)
    hit = np.flatnonzero(key == full_key)
    return int(rows[hit[0]]) if hit.size else None


def part(parts, k: int):
    """Range ``k`` of a shard's reduction (None or a failure pass through)."""
    return parts if parts is None or isinstance(parts, Failure) else parts[k]


def settled(partials):
    """What merging ``partials`` gives without a merge: the first :class:`Failure`, the one partial that is not
    None, or None; ``(partials,)`` (those not None) when two or more are left to merge."""
    for x in partials:
        if isinstance(x, Failure):
            return x
    partials = [x for x in partials if x is not None]
    if len(partials) <= 1:
        return partials[0] if partials else None
    return (partials,)


def combine(*partials):
    """Partial reductions of one key range as one: cells of equal key add their sums and counts (a count above
    one is a duplicate; the first one is kept for the message). The partials are sorted runs: one stable sort of
    their concatenation merges them."""
    done = settled(partials)
    if not isinstance(done, tuple):
        return done
    (partials,) = done
    if not isinstance(partials[0], Reduced):
        from ._trial_cells import combine_cells

        return combine_cells(partials)
    dup = next((x.dup for x in partials if x.dup is not None), None)
    key = np.concatenate([x.key for x in partials])
    order = np.argsort(key, kind="stable")
    key = key[order]
    parts = {f: np.concatenate([getattr(x, f) for x in partials])[order]
             for f in ("total", "count", "cluster", "shard", "row")}
    del order, partials
    start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    if start.size == key.size:
        return Reduced(key, parts["total"], parts["count"], parts["cluster"], parts["shard"], parts["row"], dup)
    if dup is None:
        first = int(np.flatnonzero(key[1:] == key[:-1])[0])
        dup = (int(key[first]), int(parts["shard"][first]), int(parts["row"][first]),
               int(parts["shard"][first + 1]), int(parts["row"][first + 1]))
    return Reduced(key[start], np.add.reduceat(parts["total"], start), np.add.reduceat(parts["count"], start),
                   parts["cluster"][start], parts["shard"][start], parts["row"][start], dup)


def code_dtype(n: int):
    """The dtype pandas gives the codes of a categorical of ``n`` categories (so the client copies nothing)."""
    return np.int8 if n < 127 else np.int16 if n < 32767 else np.int32 if n < 2147483647 else np.int64


def cells(reduced, plan: dict):
    """The cells of one key range as the table's columns (codes in the dtypes of the table, the score), with the
    first row of each (for messages); a failure or a duplicate comes back as such."""
    if reduced is None or isinstance(reduced, Failure):
        return reduced
    if not isinstance(reduced, Reduced):
        return _cell_columns(reduced, plan)
    if reduced.dup is not None:
        return {"dup": reduced.dup, "key": reduced.key, "count": reduced.count}
    out = {}
    rest = reduced.key
    for col, radix in zip(reversed(plan["keys"]), reversed(plan["radices"])):
        n = len(plan["codes"][col])
        out[col] = (rest % radix).astype(code_dtype(n))
        rest = rest // radix
    del rest
    out["score"] = reduced.total
    if plan.get("average"):
        out = _averaged(reduced, out, plan["average"])
        reduced = reduced.take(out.pop("first"))
    if (reduced.cluster >= 0).any():
        out["cluster"] = reduced.cluster.astype(code_dtype(len(plan["codes"]["cluster"])))
        out["cluster_shard"], out["cluster_row"] = reduced.shard, reduced.row
    return out


def _cell_columns(reduced, plan: dict) -> dict:
    """:func:`cells` of a range whose partials averaged the trials (:class:`._trial_cells.Cells`)."""
    from ..data.trial_means import count_dtype

    if reduced.dup is not None:  # the rows beyond each cell's distinct trials, as the per-trial counts give them
        return {"dup": reduced.dup, "key": reduced.key, "count": reduced.extra() + 1}
    out, rest = {}, reduced.key
    for col, radix in zip(reversed(plan["keys"][:-1]), reversed(plan["radices"][:-1])):
        out[col] = (rest % radix).astype(code_dtype(len(plan["codes"][col])))
        rest = rest // radix
    del rest
    out["score"] = reduced.total / reduced.count
    out["trials"] = reduced.count.astype(count_dtype(plan["average"]))
    out["score_sum"], out["score_sumsq"] = reduced.total, reduced.sumsq
    if (reduced.cluster >= 0).any():
        out["cluster"] = reduced.cluster.astype(code_dtype(len(plan["codes"]["cluster"])))
        out["cluster_shard"], out["cluster_row"] = reduced.shard, reduced.row
    return out


def _averaged(reduced: Reduced, out: dict, n_trials: int) -> dict:
    """The cells of a range with each item's trials as one: the trial digit of the key dropped, the mean of the
    trials' scores (their sum is exact in any order: :func:`evalband.data.trial_means.sums_exact`), their count
    (``trials``), sum and sum of squares; ``first``: the first trial cell of each."""
    from ..data.trial_means import count_dtype

    cell = reduced.key // n_trials
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if cell.size else np.zeros(0, dtype=np.int64)
    del cell
    counts = np.diff(np.r_[starts, reduced.key.size])
    averaged = {c: v[starts] for c, v in out.items() if c not in ("trial", "score")}
    total = np.add.reduceat(reduced.total, starts) if starts.size else reduced.total
    averaged["score"] = total / counts
    averaged["trials"] = counts.astype(count_dtype(n_trials))
    averaged["score_sum"] = total
    averaged["score_sumsq"] = np.add.reduceat(reduced.total * reduced.total, starts) if starts.size else total
    averaged["first"] = starts
    return averaged


#: partial results merged by one task of the tree (a wide tree: few levels, each partial moved once or twice)
FAN_IN = 8


def tree(client, futures: list, merge, *, fan_in: int = FAN_IN):
    """Merge futures on the workers, ``fan_in`` at a time, until one is left (a tree of depth log_fan_in of the
    shards; ``merge`` takes the partials as positional arguments)."""
    if not futures:
        return None
    while len(futures) > 1:
        futures = [client.submit(merge, *futures[k:k + fan_in], pure=False) if len(futures[k:k + fan_in]) > 1
                   else futures[k] for k in range(0, len(futures), fan_in)]
    return futures[0]
