"""Trials averaged inside each shard's reduction and at every merge (``trials='average'`` with exact sums): the
partials of :mod:`evalband.io._shards` carry one cell per (task, model, item, facet levels), not one per trial.

Each cell carries, beside its sums (the scores' sum and sum of squares, exact in any order:
:func:`evalband.data.trial_means.sums_exact`) and its row count, a bitmask of the trial labels it holds (global
trial codes from the labels' pass, ``ceil(K / 64)`` uint64 words for K trial labels). Merging two partials of a
cell ORs their masks; a trial in both (a nonzero AND) is a repeated (model, task, item, trial): the rows then
outnumber the mask's bits, and ``count - popcount(mask)`` is the cell's number of duplicated rows, as the row
counts of the per-trial partials gave it. The duplicate reported is the one the per-trial partials report (the
first partial's, else the smallest (cell, trial) key found in the merge), and its two rows are found by reading
again, on the workers, the shards under the two partials that hold it (an error path only). Within a shard the
single-machine reader refuses duplicates before reducing.

Above :data:`MAX_MASK_TRIALS` trial labels the masks would outweigh the trials they replace: the partials keep a
row per trial, as before (:class:`evalband.io._shards.Reduced`), and a range's last merge averages them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MAX_MASK_TRIALS", "Cells", "combine_cells", "reduce_cells"]

#: trial labels up to which the partials average the trials (16 words of mask a cell at most)
MAX_MASK_TRIALS = 1024

_FIELDS = ("key", "total", "sumsq", "count", "cluster", "shard", "row", "low", "mask")


@dataclass(frozen=True)
class Cells:
    """Cells of one key range of one or more shards, sorted by cell key (task, model, item, facet levels; no
    trial): the scores' sum and sum of squares, rows, cluster code (-1: none), the first row of the cell (its
    lowest trial: shard number, row label, trial code ``low``), the trial mask (cells x words); ``shards``: the
    first and last shard number under this partial; ``dup``: the first duplicate, ``(key with its trial, (first,
    last) shards of the partial holding its first row, (first, last) of the partial holding its second)``."""

    key: np.ndarray
    total: np.ndarray
    sumsq: np.ndarray
    count: np.ndarray
    cluster: np.ndarray
    shard: np.ndarray
    row: np.ndarray
    low: np.ndarray
    mask: np.ndarray
    shards: tuple
    n_trials: int
    dup: tuple | None = None

    def __len__(self) -> int:
        return len(self.key)

    def take(self, where) -> Cells:
        return Cells(*(getattr(self, f)[where] for f in _FIELDS), self.shards, self.n_trials, self.dup)

    def extra(self) -> np.ndarray:
        """Each cell's duplicated rows: its rows beyond its distinct trials."""
        return self.count - _bits(self.mask)


_BYTE_BITS = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)


def _bits(mask: np.ndarray) -> np.ndarray:
    """The set bits of each row of a mask (cells x words): the trial labels of each cell."""
    if hasattr(np, "bitwise_count"):  # NumPy 2
        return np.bitwise_count(mask).sum(axis=1, dtype=np.int32)
    return _BYTE_BITS[np.ascontiguousarray(mask).view(np.uint8)].sum(axis=1, dtype=np.int32)


def reduce_cells(index: int, key, score, cluster, rows, n_trials: int, bounds) -> list:
    """A shard's rows (full keys with the trial digit last, scores, cluster codes, row labels) as one
    :class:`Cells` per key range of ``bounds`` (full-key bounds, multiples of ``n_trials``; None for an empty
    range). The shard holds each (cell, trial) once (the reader refuses duplicates)."""
    order = np.argsort(key, kind="stable")
    key = key[order]
    score = np.asarray(score, dtype=np.float64)[order]
    cell, trial = np.divmod(key, n_trials)
    del key
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if cell.size else np.zeros(0, dtype=np.int64)
    words = -(-n_trials // 64)
    mask = np.zeros((starts.size, words), dtype=np.uint64)
    bit = np.left_shift(np.uint64(1), (trial % 64).astype(np.uint64))
    word = trial // 64
    if starts.size:
        for w in range(words):  # a cell holds each trial once: the sum of its bits is their OR
            mask[:, w] = np.add.reduceat(np.where(word == w, bit, np.uint64(0)), starts)
    del bit, word
    first = order[starts]
    out = Cells(cell[starts], np.add.reduceat(score, starts) if starts.size else score[:0],
                np.add.reduceat(score * score, starts) if starts.size else score[:0],
                np.diff(np.r_[starts, cell.size]).astype(np.int32), cluster[first].astype(np.int32),
                np.full(starts.size, index, dtype=np.int32), rows[first], trial[starts].astype(np.int16), mask,
                (index, index), n_trials)
    cuts = np.searchsorted(out.key, np.asarray(bounds, dtype=np.int64) // n_trials)
    return [out.take(slice(int(a), int(b))) if b > a else None for a, b in zip(cuts[:-1], cuts[1:])]


def combine_cells(partials: list) -> Cells:
    """Partials (two or more, in shard order) of one key range as one: cells of equal key add their sums and
    counts and OR their masks; the cell's first row is that of its lowest trial (the earlier partial's on a tie).
    A trial in two partials is a duplicate (the first partial's duplicate is kept, else the smallest key)."""
    dup = next((x.dup for x in partials if x.dup is not None), None)
    n_trials = partials[0].n_trials
    sizes = np.array([len(x) for x in partials])
    cat = {f: np.concatenate([getattr(x, f) for x in partials]) for f in _FIELDS}
    # by cell, then its lowest trial, then partial (stable): each group's first entry is the merged cell's first row
    order = np.argsort(cat["key"] * n_trials + cat["low"], kind="stable")
    for f in _FIELDS:
        cat[f] = cat[f][order]
    key = cat["key"]
    start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    shards = (min(x.shards[0] for x in partials), max(x.shards[1] for x in partials))
    if start.size == key.size:
        return Cells(*(cat[f] for f in _FIELDS), shards, n_trials, dup)
    before = np.add.reduceat(cat["count"] - _bits(cat["mask"]), start)
    mask = np.bitwise_or.reduceat(cat["mask"], start, axis=0)
    count = np.add.reduceat(cat["count"], start)
    merged = Cells(key[start], np.add.reduceat(cat["total"], start), np.add.reduceat(cat["sumsq"], start), count,
                   cat["cluster"][start], cat["shard"][start], cat["row"][start], cat["low"][start], mask, shards,
                   n_trials)
    if dup is None:
        new = np.flatnonzero(merged.extra() > before)
        if new.size:
            dup = _first_duplicate(int(new[0]), start, order, sizes, cat, merged, partials, n_trials)
    return Cells(*(getattr(merged, f) for f in _FIELDS), shards, n_trials, dup)


def _first_duplicate(c: int, start, order, sizes, cat, merged, partials, n_trials) -> tuple:
    """The smallest trial of merged cell ``c`` held by two of the partials, and those two partials' shards."""
    stop = start[c + 1] if c + 1 < start.size else len(order)
    source = np.searchsorted(np.cumsum(sizes), order[start[c]:stop], side="right")
    members = np.argsort(source, kind="stable")
    seen = np.zeros(cat["mask"].shape[1], dtype=np.uint64)
    twice = np.zeros_like(seen)
    for m in members:
        twice |= seen & cat["mask"][start[c] + m]
        seen |= cat["mask"][start[c] + m]
    w = int(np.flatnonzero(twice)[0])
    word = int(twice[w])
    trial = w * 64 + (word & -word).bit_length() - 1
    holding = [int(source[m]) for m in members if int(cat["mask"][start[c] + m][w]) >> (trial % 64) & 1]
    return (int(merged.key[c]) * n_trials + trial, partials[holding[0]].shards, partials[holding[1]].shards)

