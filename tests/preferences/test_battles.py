"""The battle table: validation with messages naming the row and field, stable model order, compression."""

from __future__ import annotations

import numpy as np
import pytest

from evalband._validate import InputError
from evalband.preferences import BattleTable


def obj(*xs):
    return np.array(xs, dtype=object)


def test_models_sorted_and_codes_independent_of_row_order():
    t = BattleTable.build(obj("zeta", "alpha", "mid"), obj("alpha", "mid", "zeta"), [1.0, 0.0, 0.5])
    assert t.models == ("alpha", "mid", "zeta")
    assert t.tie.tolist() == [False, False, True]
    counts = t.model_counts().set_index("model")
    assert counts.loc["alpha", "n_battles"] == 2 and counts.loc["alpha", "n_wins"] == 0
    assert counts.loc["mid", "n_wins"] == 1 and counts.loc["zeta", "n_wins"] == 1
    assert counts.loc["zeta", "n_ties"] == 1 and counts["n_losses"].sum() == 2


@pytest.mark.parametrize("a, b, y, message, row, column", [
    (["x", "y"], ["y", "y"], [1.0, 0.0], "self-battle", "line 3", "model_b"),
    (["x", "y"], ["y", "z"], [1.0, 1.5], "not a probability", "line 3", "winner"),
    (["x", None], ["y", "z"], [1.0, 1.0], "no model name", "line 3", "model_a"),
    (["x", "y"], ["y", "z"], [np.nan, 1.0], "not a probability", "line 2", "winner"),
])
def test_bad_battles_name_row_and_field(a, b, y, message, row, column):
    with pytest.raises(InputError, match=message) as err:
        BattleTable.build(obj(*a), obj(*b), y, source="battles.csv", rows=[2, 3], row_word="line")
    assert err.value.source == "battles.csv" and err.value.row == row and err.value.column == column
    assert str(err.value).startswith(f"battles.csv, {row}, column '{column}'")


def test_empty_and_bad_weights_and_features_are_refused():
    with pytest.raises(InputError, match="no battles"):
        BattleTable.build(obj(), obj(), [])
    with pytest.raises(InputError, match="weight"):
        BattleTable.build(obj("x"), obj("y"), [1.0], weight=[0.0])
    with pytest.raises(InputError, match="style feature 'length' is not a finite number"):
        BattleTable.build(obj("x", "y"), obj("y", "x"), [1.0, 0.0], features={"length": [[1.0, np.nan], [2, 3]]})
    with pytest.raises(InputError, match="a tie must have outcome 0.5"):
        BattleTable.build(obj("x"), obj("y"), [1.0], tie=[True])
    with pytest.raises(InputError, match="no question label"):
        BattleTable.build(obj("x", "y"), obj("y", "x"), [1.0, 0.0], labels={"question": obj("q1", None)})


def test_pair_sums_count_the_battles():
    t = BattleTable.build(obj("b", "a", "a", "c", "a"), obj("a", "b", "c", "a", "b"), [1.0, 0.5, 0.0, 1.0, 1.0],
                          weight=[1, 1, 2, 1, 1])
    units = np.array([0, 0, 1, 1, 1])
    ps = t.pair_sums(units, 2)
    tot = ps.totals()
    pairs = list(zip(ps.pair_i.tolist(), ps.pair_j.tolist()))
    ab, ac = pairs.index((0, 1)), pairs.index((0, 2))
    # a vs b: b won (a gets 0), a tied (0.5), a won (1): n = 3, a's wins = 1.5
    assert tot["n"][ab] == 3 and tot["s"][ab] == 1.5
    # a vs c: c won with weight 2 (a: 0), then c won again (a: 0): n = 3, s = 0
    assert tot["n"][ac] == 3 and tot["s"][ac] == 0
    ties = t.pair_sums(units, 2, kind="ties").totals()
    assert (ties["w"][ab], ties["t"][ab], ties["l"][ab]) == (1, 1, 1)
    rep = ps.replicate(np.array([[2.0, 0.0], [0.0, 2.0]]))
    assert rep["n"][0, ab] == 4 and rep["n"][1, ab] == 2
    frac = BattleTable.build(obj("x"), obj("y"), [0.7])
    with pytest.raises(ValueError, match="fractional outcome"):
        frac.pair_sums([0], 1, kind="ties")


def test_canonical_order_depends_on_content_only():
    a, b = obj("x", "y", "x", "z", "y"), obj("y", "z", "z", "x", "x")
    y = np.array([1.0, 0.0, 0.5, 1.0, 1.0])
    q = obj("q2", "q1", "q1", "q3", "q2")
    t1 = BattleTable.build(a, b, y, labels={"question": q})
    perm = np.array([3, 0, 4, 1, 2])
    t2 = BattleTable.build(a[perm], b[perm], y[perm], labels={"question": q[perm]})
    f1, f2 = t1.to_frame().iloc[t1.canonical_order()], t2.to_frame().iloc[t2.canonical_order()]
    assert f1.reset_index(drop=True).equals(f2.reset_index(drop=True))


def test_subset_and_repr():
    t = BattleTable.build(obj("x", "y", "x"), obj("y", "z", "z"), [1.0, 0.5, 0.0])
    s = t.subset(~t.tie, note="1 tie left out")
    assert s.n_battles == 2 and s.models == ("x", "y", "z") and s.notes == ("1 tie left out",)
    assert "3 battles, 3 models, 1 ties" in repr(t) and "<table" in t._repr_html_()
