"""The clustered bootstrap of battles: units, keyed streams, and independence from row order."""

from __future__ import annotations

import numpy as np
import pytest

from evalband.preferences import BattleTable, ClusterBootstrap, resampling_units
from evalband.resample.battles import block_size


def table(order=None):
    a = np.array(["x", "y", "x", "z", "y", "z"] * 4, dtype=object)
    b = np.array(["y", "z", "z", "x", "x", "y"] * 4, dtype=object)
    y = np.tile([1.0, 0.0, 0.5, 1.0, 0.0, 1.0], 4)
    q = np.array([f"q{i // 3}" for i in range(24)], dtype=object)
    j = np.array([f"j{i % 5}" for i in range(24)], dtype=object)
    if order is not None:
        a, b, y, q, j = a[order], b[order], y[order], q[order], j[order]
    return BattleTable.build(a, b, y, labels={"question": q, "judge": j})


def test_units_auto_none_and_named():
    t = table()
    assert resampling_units(t).column == "question" and resampling_units(t).n_units == 8
    assert resampling_units(t, None).column is None and resampling_units(t, "none").n_units == 24
    assert resampling_units(t, "judge").n_units == 5 and resampling_units(t, "worker").column == "judge"
    assert any("fewer than about 20 clusters" in n for n in resampling_units(t).notes)
    with pytest.raises(ValueError, match="no 'session' labels; valid: 'auto', 'none', 'question', 'judge'"):
        resampling_units(t, "session")
    plain = BattleTable.build(np.array(["x"], dtype=object), np.array(["y"], dtype=object), [1.0])
    assert resampling_units(plain).column is None
    assert any("as if independent" in n for n in resampling_units(plain).notes)


def test_counts_are_bootstrap_draws_keyed_by_block():
    units = resampling_units(table())
    boot = ClusterBootstrap(units, 2500, (11, 22, 33, 44))
    assert boot.block == block_size(8) == 1000 and boot.n_blocks == 3
    blocks = list(boot.blocks())
    assert [s for s, _ in blocks] == [0, 1000, 2000] and blocks[-1][1].shape == (500, 8)
    allc = np.concatenate([c for _, c in blocks])
    np.testing.assert_array_equal(allc.sum(axis=1), 8)
    np.testing.assert_array_equal(boot.counts(1), blocks[1][1])  # a block is reproducible on its own
    # multinomial(8, 1/8) moments: mean 1, variance 7/8
    assert allc.mean() == pytest.approx(1.0) and allc.var() == pytest.approx(7 / 8, rel=0.05)


def test_unit_codes_do_not_depend_on_row_order():
    perm = np.random.default_rng(1).permutation(24)
    for cluster in ("question", "none"):
        u1, u2 = resampling_units(table(), cluster), resampling_units(table(perm), cluster)
        # the unit of each battle, followed through the permutation
        np.testing.assert_array_equal(u1.codes[perm], u2.codes)
