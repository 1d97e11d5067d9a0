"""Battles compressed to counts (issue 26, item 5): the same sufficient statistics as the battles one by one."""

from __future__ import annotations

import numpy as np
import pytest

from evalband.data.battle_counts import BattleCounts, group_rows
from evalband.data.battles import BattleTable
from evalband.resample.battles import resampling_units


def _table(seed=0, n=400, fractional=False):
    gen = np.random.default_rng(seed)
    names = np.array(["a", "b", "c", "d"], dtype=object)
    a = gen.integers(0, 4, n)
    b = (a + gen.integers(1, 4, n)) % 4
    y = np.round(gen.uniform(0, 1, n), 2) if fractional else gen.choice([0.0, 0.5, 1.0], n)
    w = gen.choice([1.0, 3.0], n) if fractional else None
    labels = {"question": np.array([f"q{k}" for k in gen.integers(0, 25, n)], dtype=object),
              "judge": np.array([f"j{k}" for k in gen.integers(0, 6, n)], dtype=object)}
    return BattleTable.build(names[a], names[b], y, weight=w, labels=labels)


def test_counts_stand_for_every_battle():
    t = _table()
    c = t.counted()
    assert isinstance(c, BattleCounts) and c.n_battles == t.n_battles and c.n_rows < t.n_battles
    assert c.models == t.models
    assert c.model_counts().equals(t.model_counts())
    assert c.battles(c.tie) == int(t.tie.sum())
    # rows sorted by their key and distinct
    key = list(zip(c.labels["question"], c.labels["judge"], c.model_a, c.model_b, c.outcome, c.weight))
    assert all(x < y for x, y in zip(key, key[1:]))


@pytest.mark.parametrize("cluster", ["question", "judge"])
def test_pair_sums_equal_those_of_single_battles(cluster):
    t = _table()
    c = t.counted()
    ut, uc = resampling_units(t, cluster), resampling_units(c, cluster)
    assert ut.n_units == uc.n_units and ut.notes == uc.notes
    for kind in ("half", "ties"):
        a = t.pair_sums(ut.codes, ut.n_units, kind=kind)
        b = c.pair_sums(uc.codes, uc.n_units, kind=kind)
        np.testing.assert_array_equal(a.pair_i, b.pair_i)
        for k in a.sums:  # exact: outcomes 0, 0.5, 1 and unit weights
            np.testing.assert_array_equal(a.sums[k].toarray(), b.sums[k].toarray())


def test_fractional_sums_agree_to_rounding():
    t = _table(seed=1, fractional=True)
    c = t.counted()
    u = resampling_units(t, "question")
    a = t.pair_sums(u.codes, u.n_units).totals()
    b = c.pair_sums(resampling_units(c, "question").codes, u.n_units).totals()
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-13)


def test_subset_recodes_models_and_labels():
    t = _table()
    keep_t = (t.model_a != 0) & (t.model_b != 0)
    c = t.counted()
    keep_c = (c.model_a != 0) & (c.model_b != 0)
    st, sc = t.subset(keep_t), c.subset(keep_c, note="left out")
    assert sc.models == st.models == ("b", "c", "d") and sc.notes[-1] == "left out"
    assert sc.model_counts().equals(st.model_counts())
    for name in ("question", "judge"):
        np.testing.assert_array_equal(sc.label_codes(name)[1], st.label_codes(name)[1])
    assert sc.n_battles == int(keep_t.sum())


def test_group_rows_adds_counts_of_equal_rows():
    cols, n = group_rows([np.array([2, 1, 2, 1]), np.array([0.5, 0.5, 0.5, 1.0])], np.array([1, 2, 3, 4]))
    assert [c.tolist() for c in cols] == [[1, 1, 2], [0.5, 1.0, 0.5]] and n.tolist() == [2, 4, 4]
    empty, none = group_rows([np.array([], dtype=int)], np.array([], dtype=int))
    assert none.size == 0 and empty[0].size == 0


def test_counted_battles_refuse_single_battle_views():
    c = _table().counted()
    with pytest.raises(Exception, match="order of battles"):
        c.canonical_order()
    assert c.features == {} and "distinct rows" in repr(c)
    frame = c.to_frame()
    assert list(frame.columns) == ["question", "judge", "model_a", "model_b", "outcome", "weight", "count"]
    assert frame["count"].sum() == c.n_battles


def test_tie_models_count_battles_with_a_fractional_outcome():
    c = BattleCounts.build(("a", "b"), [0, 0, 1], [1, 1, 0], [0.3, 0.3, 1.0], [1.0, 1.0, 1.0], [2, 3, 1], {}, {})
    with pytest.raises(ValueError, match="but 5 battles have a fractional outcome"):
        c.pair_sums(np.zeros(c.n_rows, dtype=int), 1, kind="ties")
