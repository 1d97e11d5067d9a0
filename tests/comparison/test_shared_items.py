"""No item shared by every model, while pairs share items (a sparse design): compare compares each pair on the items
both models have, with the counts (n_units) and a note; analyses that need every model on the same items (rank) say
which pairs share items.

Oracles: each pair's row is the comparison of that pair alone (its difference, n_units, analytic SE and correlation
computed by hand from the shared items; the bootstrap numbers identical whatever other models are compared, since
the pair's random stream is keyed by the two names); the family's adjusted p-values are Holm's over the pairs
(statsmodels' multipletests is checked against adjust_p_values in test_multiplicity.py).
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import evalband as eb
from evalband.cli.main import app
from evalband.comparison.multiplicity import adjust_p_values
from evalband.comparison.shared import PairReplicateSets
from evalband._validate import InputError
import jsonout  # noqa: E402

#: which pair of models each block of 30 items was run on (no item has all of A, B, C; D shares with A only)
BLOCKS = {"t1": [("A", "B"), ("B", "C"), ("A", "C")], "t2": [("A", "B"), ("B", "C"), ("A", "D")]}
RATES = {"A": 0.5, "B": 0.62, "C": 0.8, "D": 0.55}


def _frame(models=("A", "B", "C")) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    rows = []
    for task, blocks in BLOCKS.items():
        for k, pair in enumerate(blocks):
            for i in range(30):
                item = f"{task}-{k}-{i}"
                for m in pair:
                    if m in models:
                        rows.append((m, task, item, int(rng.random() < RATES[m])))
    return pd.DataFrame(rows, columns=["model", "task", "item", "score"])


def _rows(res):
    frame = res.to_frame()
    return {(a, b): r for (a, b), r in zip(zip(frame.model_a, frame.model_b), frame.to_dict("records"))}


def test_each_pair_on_its_shared_items_with_counts_and_a_note():
    df = _frame()
    res = eb.compare(df, rng=3, n_resamples=2000)
    assert res.on_shared_items and isinstance(res.replicates, PairReplicateSets)
    rows = _rows(res)
    assert set(rows) == {("B", "A"), ("C", "A"), ("C", "B")}
    for (a, b), r in rows.items():
        # by hand: the items both models have, on every task (t1 and t2 for A-B and B-C, t1 only for A-C)
        per_task = []
        for task in ("t1", "t2"):
            sa = df[(df.model == a) & (df.task == task)].set_index("item").score
            sb = df[(df.model == b) & (df.task == task)].set_index("item").score
            both = sa.index.intersection(sb.index)
            if len(both):
                per_task.append((sa[both].mean() - sb[both].mean(), len(both)))
        assert r["n_units"] == sum(n for _, n in per_task)
        np.testing.assert_allclose(r["difference"], np.mean([d for d, _ in per_task]), rtol=1e-12)
        alone = eb.compare(df, models=[a, b], rng=3, n_resamples=2000).to_frame().iloc[0]
        for col in ("difference", "se_analytic", "correlation", "n_units"):
            np.testing.assert_allclose(r[col], alone[col], rtol=1e-12)
    assert "no item is shared by all 3 models: each pair is compared on the items both have" in res.notes[0]
    assert "aggregates of 1 pair are over the tasks on which both models have items: A vs C (1 of 2)" \
        in " ".join(res.notes)
    assert not any(n.startswith("coverage: items not shared") for n in res.notes)


def test_a_pairs_numbers_do_not_depend_on_the_other_models_or_their_order():
    small = _rows(eb.compare(_frame(), rng=11, n_resamples=1000))
    big = eb.compare(_frame(("A", "B", "C", "D")), rng=11, n_resamples=1000, models=["D", "C", "B", "A"])
    rows = _rows(big)
    for pair, r in small.items():
        for col in ("difference", "se", "ci_low", "ci_high", "p_value"):
            assert r[col] == rows[pair][col], (pair, col)
    assert ("D", "A") in rows or ("A", "D") in rows
    assert "not compared, no item in common: D vs C and D vs B" in " ".join(big.notes)


def test_the_family_correction_over_the_pairs():
    res = eb.compare(_frame(), rng=2, n_resamples=2000, correction="holm")
    pc = res.aggregates[0]
    np.testing.assert_allclose(pc.p_adjusted, adjust_p_values(pc.p_value, method="holm"), rtol=1e-12)
    assert pc.interval_level == pytest.approx(1 - 0.05 / 3)
    assert all("Holm-corrected CI" in r for r in pc.readings)
    # Bonferroni intervals of a pair alone at the family's level are the family's intervals
    alone = eb.compare(_frame(), models=["C", "A"], rng=2, n_resamples=2000, confidence_level=1 - 0.05 / 3)
    k = list(zip(pc.model_a, pc.model_b)).index(("C", "A"))
    assert pc.ci.low[k] == pytest.approx(alone.aggregates[0].ci.low[0], abs=0.08)  # other random stream
    maxt = eb.compare(_frame(), rng=2, n_resamples=500, correction="max-t")
    assert maxt.aggregates[0].correction == "bonferroni"
    assert any("Bonferroni is used instead" in n for n in maxt.notes)


def test_per_task_tables_hold_the_pairs_sharing_items_on_the_task():
    res = eb.compare(_frame(), rng=1, n_resamples=500, per_task=True, correction="bonferroni")
    by_task = {pc.statistic: pc for pc in res.tasks}
    assert set(by_task) == {"t1", "t2"}
    assert len(by_task["t1"].verdict) == 3 and len(by_task["t2"].verdict) == 2
    assert by_task["t2"].interval_level == pytest.approx(1 - 0.05 / 2)
    assert (by_task["t1"].n_units == 30).all()


def test_pairs_without_any_shared_item_refuse():
    df = pd.DataFrame({"model": ["A", "B", "C"], "task": "t", "item": ["1", "2", "3"], "score": [1, 0, 1]})
    with pytest.raises(InputError, match="no two of the 3 selected models share an item on any task"):
        eb.compare(df)


def test_command_line_shows_the_counts_and_rank_names_the_pairs(tmp_path):
    path = tmp_path / "sparse.csv"
    _frame().to_csv(path, index=False)
    res = CliRunner().invoke(app, ["compare", str(path), "--seed", "1", "--n-resamples", "500"])
    assert res.exit_code == 0, res.stderr
    header = res.stdout.splitlines()[1]
    assert "n_units" in header and "no item is shared by all 3 models" in " ".join(res.output.split())
    out = CliRunner().invoke(app, ["compare", str(path), "--seed", "1", "--n-resamples", "500", "--format", "json"])
    records = jsonout.records(out.stdout)
    assert {r["n_units"] for r in records} == {60, 30}
    rank = CliRunner().invoke(app, ["rank", str(path), "--seed", "1", "--n-resamples", "200"])
    assert rank.exit_code == 2
    assert "pairs sharing items: A vs B (60 items), A vs C (30 items), B vs C (60 items)" in rank.stderr
