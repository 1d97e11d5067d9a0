"""Trials averaged in the partials of a sharded read (io/_trial_cells.py): the cells, their first rows and the
duplicate named are those of the per-trial partials (io/_shards.py ``Reduced``), for any tree of merges."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband.io._shards import FAN_IN, cells, combine, part

distributed = pytest.importorskip("distributed")


def _shards(gen, n_shards, n_cells, n_trials, dups=()):
    """Each (cell, trial) in one random shard (some left out), rows shuffled; ``dups``: (full key, shard) added."""
    full = np.arange(n_cells * n_trials)
    full = np.union1d(full[gen.random(full.size) < 0.8], [k for k, _ in dups])
    where = gen.integers(0, n_shards, full.size)
    for k, t in dups:  # the first row of a duplicate in another shard
        i = np.searchsorted(full, k)
        where[i] = (t + 1) % n_shards if where[i] == t else where[i]
    out = []
    for s in range(n_shards):
        key = full[where == s]
        key = np.r_[key, [k for k, t in dups if t == s]].astype(np.int64)
        key = key[gen.permutation(key.size)]
        score = gen.integers(0, 5, key.size) / 4
        cluster = (key // n_trials) % 7
        rows = np.arange(2, key.size + 2) * 3 + s
        out.append((key, score, cluster, rows))
    return out


def _tree(partials):
    while len(partials) > 1:
        partials = [combine(*partials[k:k + FAN_IN]) if len(partials[k:k + FAN_IN]) > 1 else partials[k]
                    for k in range(0, len(partials), FAN_IN)]
    return partials[0]


def _reduce(shards, plan, masks):
    from evalband.io._shards import Reduced
    from evalband.io._trial_cells import reduce_cells

    out = []
    for s, (key, score, cluster, rows) in enumerate(shards):
        if masks:
            out.append(reduce_cells(s, key, score, cluster, rows, plan["average"], plan["bounds"]))
            continue
        order = np.argsort(key, kind="stable")
        r = Reduced(key[order], score[order], np.ones(key.size, dtype=np.int32), cluster[order].astype(np.int32),
                    np.full(key.size, s, dtype=np.int32), rows[order])
        cuts = np.searchsorted(r.key, plan["bounds"])
        out.append([r.take(slice(int(a), int(b))) if b > a else None for a, b in zip(cuts[:-1], cuts[1:])])
    return out


def _resolve(dup, shards):
    """What read_distributed's rows_of does: the row of the key in the one shard of each partial holding it."""
    key, first, second = dup
    found = []
    for lo, hi in (first, second):
        s = next(s for s in range(lo, hi + 1) if (shards[s][0] == key).any())
        found += [s, int(shards[s][3][np.flatnonzero(shards[s][0] == key)[0]])]
    return (key, *found)


@pytest.mark.parametrize("n_trials, n_shards, dups", [
    (4, 3, ()), (10, 20, ()), (130, 11, ()), (70, 64, ()),
    (4, 20, ((4 * 37 + 2, 19),)),  # a trial again in the last shard: found at the second level of the tree
    (10, 20, ((10 * 5 + 7, 3), (10 * 5 + 7, 17), (10 * 40 + 1, 9))),  # in three shards; a second duplicate
    (130, 30, ((130 * 3 + 100, 12), (130 * 2 + 129, 29))),  # past the first mask words
])
def test_cells_and_duplicates_as_the_per_trial_partials(n_trials, n_shards, dups):
    gen = np.random.default_rng(n_trials * 100 + n_shards)
    n_cells = 60
    shards = _shards(gen, n_shards, n_cells, n_trials, dups)
    for key, _, _, _ in shards:  # a shard holds each (cell, trial) once: the reader refuses the others
        assert np.unique(key).size == key.size
    radices = [3, n_cells // 3, n_trials]
    codes = {"task": dict.fromkeys(range(3)), "item": dict.fromkeys(range(n_cells // 3)),
             "trial": dict.fromkeys(range(n_trials)), "cluster": dict.fromkeys(range(7))}
    bounds = [0, 2 * 20 * n_trials, 3 * 20 * n_trials]
    plan = {"keys": ("task", "item", "trial"), "radices": radices, "codes": codes, "bounds": bounds,
            "average": n_trials}
    before = _reduce(shards, plan, masks=False)
    after = _reduce(shards, {**plan, "masks": True}, masks=True)
    assert all(len(x.mask[0]) == -(-n_trials // 64) for p in after for x in p if x is not None)
    for r in range(len(bounds) - 1):
        want = cells(_tree([part(p, r) for p in before]), plan)
        got = cells(_tree([part(p, r) for p in after]), {**plan, "masks": True})
        if "dup" in want:
            assert "dup" in got and _resolve(got["dup"], shards) == want["dup"]
            n_dup = lambda c: int((c["count"][c["count"] > 1] - 1).sum())
            assert n_dup(got) == n_dup(want) >= 1
            continue
        assert "dup" not in got and set(got) == set(want)
        for c in want:
            np.testing.assert_array_equal(got[c], want[c], err_msg=c)
            assert got[c].dtype == want[c].dtype, c
    assert bool(dups) == any("dup" in cells(_tree([part(p, r) for p in after]), plan) for r in range(2))


def test_reduced_cells_bytes():
    """A partial carries a cell of an item's trials in 46 bytes and its mask, not 36 bytes a trial."""
    from evalband.io._trial_cells import reduce_cells

    key = np.arange(1000 * 10, dtype=np.int64)
    (c,) = reduce_cells(0, key, np.ones(key.size), np.zeros(key.size, dtype=np.int64), key, 10, [0, key.size])
    assert len(c) == 1000 and sum(getattr(c, f).nbytes for f in ("key", "total", "sumsq", "count", "cluster",
                                                                  "shard", "row", "low", "mask")) == 1000 * 54


def test_many_trial_labels_keep_a_row_per_trial_in_the_partials(tmp_path, monkeypatch):
    """Past MAX_MASK_TRIALS trial labels the partials keep a row per trial (the range's last merge averages
    them): the same table, and a duplicate named the same way."""
    from evalband._validate import InputError
    from evalband.io import read
    from evalband.io.distributed_read import read_distributed

    from .test_distributed_read import _trial_rows, _write

    df = _trial_rows(seed=12)
    pattern = _write(df, str(tmp_path / "ok"), [100, 101, 700, 1500])
    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        single = read(pattern, trials="average")
        masked = read_distributed(pattern, client=client, trials="average")
        bad = pd.concat([df, df.iloc[[5]], df.iloc[[9]]], ignore_index=True)
        bad_pattern = _write(bad, str(tmp_path / "bad"), [50, 300, 301, 900, 1400, 1800, 2000, 2100, 2200])
        messages = []
        for limit in (1024, 0):
            monkeypatch.setattr("evalband.io.distributed_read.MAX_MASK_TRIALS", limit)
            pd.testing.assert_frame_equal(read_distributed(pattern, client=client, trials="average").data,
                                          masked.data)
            with pytest.raises(InputError) as err:
                read_distributed(bad_pattern, client=client, trials="average")
            messages.append(str(err.value))
        with pytest.raises(InputError) as kept:
            read_distributed(bad_pattern, client=client)
    pd.testing.assert_frame_equal(masked.data.reset_index(drop=True), single.data.reset_index(drop=True))
    # two repeated rows: four rows have a twin, as the single-machine reader counts them
    assert messages[0] == messages[1] == str(kept.value) and "4 duplicated rows" in messages[0], messages
