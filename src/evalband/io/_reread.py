"""Whether a sharded read keeps each shard's table on its worker between the two passes or reads it twice
(``reread='auto'``, the default of :func:`evalband.io.distributed_read.read_distributed` and
:func:`evalband.io.distributed_battles.read_battles_distributed`).

Between the labels pass and the reduction a worker holds the tables of every shard it read, about
:data:`HELD_ROW_BYTES` a row: at 1e8 rows on two workers that made their peaks 4.1x those at 1e7 rows. Reading
each shard twice bounds a worker by one shard and one key range, at the price of a second read. The rule:

* the rows a worker would hold are the input's rows over the workers (Parquet: the ``num_rows`` of each shard's
  footer, read without its data; CSV and TSV: the file's bytes over :data:`CSV_ROW_BYTES`, four times that
  for a compressed file), or the largest shard's rows if more;
* their tables would take ``rows x HELD_ROW_BYTES``; the budget is :data:`BUDGET_SHARE` of the smallest
  worker's memory limit (``client.scheduler_info()``), or :data:`ROW_BUDGET` rows when a worker has no limit;
* above the budget each shard is read twice, and the table says so in a note (``io.shards-read-twice``).
"""

from __future__ import annotations

from ..display.notes import NoteKind

__all__ = ["HELD_ROW_BYTES", "BUDGET_SHARE", "ROW_BUDGET", "CSV_ROW_BYTES", "shard_rows", "decide", "check_reread",
           "NOTE_SHARDS_READ_TWICE"]

#: bytes a row of a shard's table takes while it waits on its worker for the reduction (codes and the score)
HELD_ROW_BYTES = 24
#: the share of a worker's memory limit the tables it holds between the passes may take: its peak while reading
#: is a few times the tables it holds (measured: ~60 bytes a row held), and merging the key ranges, the spill
#: threshold of Dask (60 % of the limit) and other work need the rest
BUDGET_SHARE = 1 / 8
#: rows a worker may hold between the passes when it has no memory limit (about 600 MB of tables)
ROW_BUDGET = 25_000_000
#: bytes of a CSV / TSV row taken for the estimate (a short row of codes and a 0/1 score; fewer bytes a row
#: than most files, so that the rows are over-counted, never under-counted)
CSV_ROW_BYTES = 16
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip")

NOTE_SHARDS_READ_TWICE = NoteKind(
    "io.shards-read-twice", "info",
    "each shard was read twice (once for its labels, once for its cells) so that a worker holds one shard at a"
    " time: its share of the {rows:,} rows ({per_worker:,} rows, about {mb:,} MB of tables) would have stayed on"
    " it between the passes, above its budget of {budget_mb:,} MB ({why})")


def shard_rows(shards, storage_options) -> list[int]:
    """The rows of each shard (on a worker): a Parquet footer's ``num_rows``, else an estimate from the bytes."""
    import pyarrow.parquet as pq

    from ._shards import _fs

    out = []
    for shard in shards:
        fs, path = _fs(shard.url, storage_options)
        name = shard.name.lower()
        if name.endswith((".parquet", ".pq")):
            with fs.open(path, "rb") as fh:
                out.append(int(pq.ParquetFile(fh).metadata.num_rows))
            continue
        size = int(fs.size(path) or 0)
        out.append(-(-size * (4 if name.endswith(_COMPRESSED) else 1) // CSV_ROW_BYTES))
    return out


def check_reread(reread):
    """``reread`` checked: True, False or 'auto'."""
    from .._validate import ArgumentError

    if reread is True or reread is False or (isinstance(reread, str) and reread == "auto"):
        return reread
    raise ArgumentError(f"`reread` must be True, False or 'auto'; got {reread!r}.")


def decide(client, shards, storage_options, reread) -> tuple[bool, object]:
    """``(reread, note or None)``: ``reread`` as given when True or False; for ``'auto'`` the rule above, with the
    note that says why the shards are read twice."""
    if reread is True or reread is False:
        return reread, None
    workers = client.scheduler_info().get("workers", {}).values()
    n_workers = max(len(workers), 1)
    limits = [int(w.get("memory_limit") or 0) for w in workers]
    rows = client.submit(shard_rows, shards, storage_options, pure=False).result()
    total = int(sum(rows))
    per_worker = max(-(-total // n_workers), max(rows, default=0))
    if limits and all(limits):
        budget = int(min(limits) * BUDGET_SHARE)
        why = f"an eighth of the smallest worker's memory limit, {min(limits) / 2**20:,.0f} MB"
    else:
        budget = ROW_BUDGET * HELD_ROW_BYTES
        why = f"{ROW_BUDGET:,} rows, as a worker has no memory limit"
    held = per_worker * HELD_ROW_BYTES
    if held <= budget:
        return False, None
    return True, NOTE_SHARDS_READ_TWICE(rows=total, per_worker=per_worker, mb=round(held / 2**20),
                                        budget_mb=round(budget / 2**20), why=why)
