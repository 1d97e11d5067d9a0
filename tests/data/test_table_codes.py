"""The table on integer codes (issue 14, 1e8 rows): coverage, counts, per-task arrays and the canonical sort equal
what pandas group-bys of the same rows give, and what the table gave before it worked on codes.

Oracles: the pandas formulas the table used before (``drop_duplicates`` / ``groupby`` / ``cumcount``), written out
here, on random tables with trials, facets, clusters, items some models lack and shuffled rows; the radix sort
against ``numpy.lexsort``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband.data.codes import combined_key, first_duplicate, int_codes, sorted_same, stable_order
from evalband._validate import InputError
from evalband.data.table import ResultsTable


def _frame(rng, *, trials=False, facets=False, clusters=False, drop=0.1):
    rows = []
    for t in ("t1", "t2", "t10"):
        n = int(rng.integers(5, 30))
        for m in ("m2", "m10", "m1"):
            for i in range(n):
                for k in range(int(rng.integers(1, 4)) if trials else 1):
                    for p in (("p1", "p2") if facets else (None,)):
                        rows.append({"model": m, "task": t, "item": f"q{i}", "trial": str(k), "prompt": p,
                                     "cluster": f"c{i // 4}", "score": float(rng.random() < 0.6)})
    df = pd.DataFrame(rows)
    keep = rng.random(len(df)) > drop
    df = df.loc[keep]
    if not trials:
        df = df.drop(columns="trial")
    if not facets:
        df = df.drop(columns="prompt")
    if not clusters:
        df = df.drop(columns="cluster")
    return df.sample(frac=1.0, random_state=int(rng.integers(1000))).reset_index(drop=True)


def _old_coverage(table):
    d = table.data
    per = (d.drop_duplicates(["model", "task", "item"])
           .groupby(["model", "task"], observed=True).size().rename("items").reset_index())
    shared = d.drop_duplicates(["model", "task", "item"]).groupby(["task", "item"], observed=True).size()
    common = (shared == len(table.models)).groupby(level="task", observed=True).sum().rename("common_items")
    per = per.merge(common.reset_index(), on="task", how="left")
    per["left_out"] = per["items"] - per["common_items"]
    return per


@pytest.mark.parametrize("trials,facets,clusters", [(False, False, False), (True, False, True), (True, True, False),
                                                   (False, True, True)])
def test_views_equal_the_pandas_formulas(trials, facets, clusters, rng):
    for _ in range(3):
        df = _frame(rng, trials=trials, facets=facets, clusters=clusters)
        table = ResultsTable.from_items(df, facets=("prompt",) if facets else ())
        pd.testing.assert_frame_equal(table.coverage(), _old_coverage(table))
        d = table.data
        keys = ["task", "model", "item", *(["prompt"] if facets else []), "trial"]
        codes = [d[c].cat.codes.to_numpy() if c != "trial" else d[c].to_numpy() for c in keys]
        assert np.all(np.diff(np.lexsort(codes[::-1])) == 1)  # canonical order: sorted by the keys
        for task in table.tasks:
            for items in ("common", "all"):
                try:
                    td = table.task_data(task, items=items)
                except InputError:
                    continue
                sub = d.loc[d["task"] == task]
                mean = sub.groupby(["model", "item"], observed=True)["score"].mean()
                for k, m in enumerate(td.models):
                    for j, it in enumerate(td.items):
                        want = mean.get((m, it), np.nan)
                        assert td.scores[k, j] == pytest.approx(want, nan_ok=True)
                if td.trial_scores is not None:  # the trial scores in the order of the rows
                    pos = sub.groupby(["model", "item"], observed=True, sort=False).cumcount()
                    for r, p in zip(sub.itertuples(), pos):
                        if r.item in td.items:
                            j = list(td.items).index(r.item)
                            assert td.trial_scores[td.models.index(r.model), j, p] == r.score
        if not trials and not facets:
            c = table.counts() if table.coverage()["items"].min() > 0 and len(table.coverage()) == 9 else None
            if c is not None:
                g = d.groupby(["model", "task"], observed=False)["score"].agg(["sum", "count"])
                for a, m in enumerate(c.models):
                    for b, t in enumerate(c.tasks):
                        assert c.correct[a, b] == g.loc[(m, t), "sum"] and c.n[a, b] == g.loc[(m, t), "count"]


def test_shuffled_rows_give_the_same_table(rng):
    df = _frame(rng, trials=True, clusters=True, drop=0.0)
    a = ResultsTable.from_items(df)
    b = ResultsTable.from_items(df.sample(frac=1.0, random_state=7))
    pd.testing.assert_frame_equal(a.data.reset_index(drop=True), b.data.reset_index(drop=True))
    assert a.notes == b.notes


def test_radix_sort_equals_lexsort(rng):
    for n, radices in ((1, [3]), (2000, [3, 70000, 5]), (5000, [2, 2]), (3000, [400, 300, 90])):
        codes = [rng.integers(0, r, size=n) for r in radices]
        key = combined_key(codes, radices)
        order = stable_order(key, int(np.prod(radices)))
        want = np.lexsort(codes[::-1])
        got = np.arange(n) if order is None else order
        np.testing.assert_array_equal(got, want)
    assert stable_order(np.arange(10, dtype=np.int64), 10) is None  # sorted already: no permutation
    assert combined_key([np.zeros(3, dtype=np.int64)] * 4, [2**20] * 4) is None  # beyond 63 bits


def test_duplicates_named_in_the_order_of_the_rows():
    keys = [np.array([1, 0, 1, 2, 0, 1])]
    order = stable_order(combined_key(keys, [3]), 3)
    same = sorted_same(keys, order)
    # rows 0, 2, 5 share key 1 and rows 1, 4 key 0: the first row with a twin is row 0, its twin row 2
    assert first_duplicate(same, order) == (0, 2, 5)
    assert first_duplicate(sorted_same([np.arange(4)], None), None) is None


def test_int_codes_dense_and_hashed():
    a = np.array([7, 3, 7, 5], dtype=np.int32)
    codes, uniq = int_codes(a)
    np.testing.assert_array_equal(uniq[codes], a)
    assert list(uniq) == [3, 5, 7]  # a compact range: ascending
    b = np.array([10**15, 3, 10**15], dtype=np.int64)
    codes, uniq = int_codes(b)
    np.testing.assert_array_equal(uniq[codes], b)
    codes, uniq = int_codes(np.array([True, False, True]))
    np.testing.assert_array_equal(uniq[codes].astype(bool), [True, False, True])


def test_run_order_is_the_stable_argsort():
    """The sort of a file written group by group (runs of rows) equals NumPy's stable argsort, in int32."""
    from evalband.data.checks import _run_order

    rng = np.random.default_rng(14)
    for _ in range(300):
        k, n, runs = int(rng.integers(1, 60)), int(rng.integers(2, 4000)), int(rng.integers(1, 50))
        primary = np.repeat(rng.integers(0, k, size=runs), rng.multinomial(n, np.ones(runs) / runs))
        if rng.random() < 0.3:  # many short runs: the radix path
            primary = rng.integers(0, k, size=n)
        primary = primary.astype(np.uint16)
        order = _run_order(primary)
        assert order.dtype == np.int32
        np.testing.assert_array_equal(order, np.argsort(primary, kind="stable"))


@pytest.mark.parametrize("radices", [[7, 9], [300, 300], [70_000, 40_000], [2**31, 3]])
def test_compact_combined_key_equals_int64(radices):
    rng = np.random.default_rng(sum(radices))
    codes = [rng.integers(0, r, size=500) for r in radices]
    wide, compact = combined_key(codes, radices), combined_key(codes, radices, compact=True)
    np.testing.assert_array_equal(compact.astype(np.int64), wide)
    total = int(np.prod(radices, dtype=object))
    assert compact.dtype == (np.uint16 if total <= 2**16 else np.int32 if total < 2**31 else np.int64)


def test_row_positions_equal_groupby_cumcount_in_any_row_order():
    """Oracle: pandas' cumcount, for cells whose rows are together (runs) and for cells scattered over the rows."""
    import pandas as pd

    from evalband.data.codes import row_positions

    gen = np.random.default_rng(4)
    for shuffled in (False, True):
        cell = np.repeat(np.arange(50), gen.integers(1, 5, size=50))
        if shuffled:
            cell = gen.permutation(cell)
        count = np.bincount(cell, minlength=50)
        expected = pd.Series(cell).groupby(cell, sort=False).cumcount().to_numpy()
        np.testing.assert_array_equal(row_positions(cell, count), expected)
