"""Facet and measure columns of the results table (prompt, judge, ...; cost, latency, human).

Oracle: the values themselves (what was read is what is stored), and the per-item average over facet levels
computed by hand with pandas.
"""

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband import InputError


def _frame():
    rows = []
    for m in ("A", "B"):
        for i in range(6):
            for p in ("p0", "p1"):
                rows.append(dict(model=m, task="t", item=i, prompt=p, score=float((i + (p == "p1") + (m == "A")) % 2),
                                 cost=0.5 + i, latency=np.nan if i == 2 else 1.0, human=1.0 if i < 2 else np.nan))
    return pd.DataFrame(rows)


def test_facets_and_measures_are_kept():
    table = eb.read(_frame())
    assert table.facets == ("prompt",)
    assert table.measures == ("cost", "latency", "human")
    assert not table.binary_items  # two rows per item
    assert np.isnan(table.data["latency"]).sum() == 4
    assert any("latency: 4 of 24 rows have none" in n for n in table.notes)
    td = table.task_data("t")
    by_hand = _frame().groupby(["model", "item"])["score"].mean().unstack().to_numpy()
    np.testing.assert_allclose(td.scores, by_hand)


def test_facet_rows_are_part_of_the_key():
    df = _frame()
    df.loc[1, "prompt"] = "p0"  # now two rows for (A, t, 0, p0)
    with pytest.raises(InputError, match="duplicate result for model 'A', task 't', item '0', prompt 'p0'"):
        eb.read(df)


def test_facets_option_and_bad_measures(tmp_path):
    df = _frame().rename(columns={"prompt": "template_id"})
    table = eb.read(df, facets=["template_id"])
    assert table.facets == ("template_id",)
    with pytest.raises(InputError, match="duplicate result"):  # without the facet, its rows are duplicates
        eb.read(_frame(), facets=[])
    bad = _frame()
    bad.loc[3, "cost"] = -1.0
    with pytest.raises(InputError, match="cost -1.0 must be a finite number >= 0"):
        eb.read(bad)
    path = tmp_path / "r.csv"
    frame = _frame().rename(columns={"cost": "usd"})
    frame.to_csv(path, index=False)
    assert eb.read(path, cost_col="usd").measures == ("cost", "latency", "human")
    with pytest.raises(InputError, match=r"column 'judge' \(named with `facets`\) is not in the file"):
        eb.read(path, facets=["judge"])
