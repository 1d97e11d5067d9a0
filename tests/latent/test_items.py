"""evalband.latent.items: girth's marginal-ML 2PL as the oracle (stored), the truth, and the flags."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

import evalband as eb
from evalband._validate import InputError
from references import load_beside


def frame(y, tasks=None):
    m, i = y.shape
    task = np.asarray(tasks) if tasks is not None else np.full(i, "t")
    return pd.DataFrame({"model": np.repeat([f"m{k:03d}" for k in range(m)], i), "task": np.tile(task, m),
                         "item": np.tile([f"i{k:03d}" for k in range(i)], m), "score": y.ravel()})


@pytest.fixture(scope="module")
def simulated():
    make = load_beside(__file__, "make_girth_reference")
    theta, a, b, y = make.simulate()
    res = eb.items(frame(y, np.where(np.arange(y.shape[1]) < 200, "t1", "t2")), rng=0)
    f = res.to_frame().set_index("item").loc[[f"i{k:03d}" for k in range(y.shape[1])]]
    return theta, a, b, res, f


def test_girth_marginal_ml_agrees(simulated):
    """girth.twopl_mml (stored by make_girth_reference.py) and evalband's joint MAP on 300 models x 400 items."""
    ref = load_beside(__file__, "girth_reference")
    _, _, _, _, f = simulated
    a_g, b_g = np.array(ref.DISCRIMINATION), np.array(ref.DIFFICULTY)
    assert spearmanr(f["discrimination"], a_g)[0] >= 0.97
    assert spearmanr(f["difficulty"], b_g)[0] >= 0.99
    se_a = (f["discrimination_ci_high"] - f["discrimination_ci_low"]) / (2 * 1.96)
    # the two estimators differ by much less than the sampling error of either
    assert np.median(np.abs(f["discrimination"] - a_g) / se_a) < 0.5


def test_truth_within_sampling_error(simulated):
    theta, a, b, res, f = simulated
    covered_a = ((f["discrimination_ci_low"] <= a) & (a <= f["discrimination_ci_high"])).mean()
    covered_b = ((f["difficulty_ci_low"] <= b) & (b <= f["difficulty_ci_high"])).mean()
    assert covered_a >= 0.9 and covered_b >= 0.9
    ab = res.abilities_frame().set_index("model").loc[list(res.models)]
    assert np.corrcoef(ab["ability"], theta)[0, 1] >= 0.97
    assert (f["flag"] == "").mean() > 0.9


def test_flags_find_broken_items():
    rng = np.random.default_rng(5)
    theta, b = rng.normal(size=40), rng.normal(size=120)
    b[0] = 0.0  # the miskeyed item sits where the models are
    y = (rng.random((40, 120)) < 1 / (1 + np.exp(-1.5 * (theta[:, None] - b)))).astype(float)
    y[:, 0] = 1 - y[:, 0]  # miskeyed
    y[:, 1] = 1.0  # saturated
    y[:, 2] = y[:, 50]  # a copy
    res = eb.items(frame(y), rng=0)
    f = res.to_frame().set_index("item")
    assert f.loc["i000", "flag"] == "negative discrimination: likely a wrong answer key"
    assert f.loc["i001", "flag"] == "saturated: every model right"
    assert "near-duplicate response pattern" in f.loc["i050", "flag"] or "near-duplicate" in f.loc["i002", "flag"]
    assert list(res.to_frame()["flag"].iloc[:3] != "") == [True, True, True]  # flagged first
    info = res.tasks_frame()
    assert info.loc[0, "n_items"] == 120 and -2 < info.loc[0, "peak_ability"] < 2


def test_rasch_and_errors():
    rng = np.random.default_rng(2)
    theta, b = rng.normal(size=100), rng.normal(size=60)
    y = (rng.random((100, 60)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(float)
    res = eb.items(frame(y), model="rasch", rng=0)
    assert np.allclose(res.to_frame()["discrimination"], 1.0)
    assert spearmanr(res.to_frame().set_index("item").loc[[f"i{k:03d}" for k in range(60)], "difficulty"], b)[0] > 0.9
    with pytest.raises(InputError, match="item-level"):
        eb.items("example:vtab")


def test_clusters_the_item_model_does_not_use_are_said():
    """Nothing given is dropped silently: item data with clusters get a caveat that the item-level latent model
    treats items as independent."""
    rng = np.random.default_rng(0)
    rows = [(f"m{m}", "t", f"q{i}", f"c{i // 5}", int(rng.random() < 0.5)) for m in range(8) for i in range(40)]
    df = pd.DataFrame(rows, columns=["model", "task", "item", "cluster", "score"])
    assert any(getattr(n, "code", None) == "latent.clusters-not-used" for n in eb.items(df, n_draws=50, rng=0).notes)
    plain = df.drop(columns="cluster")
    assert not any(getattr(n, "code", None) == "latent.clusters-not-used"
                   for n in eb.items(plain, n_draws=50, rng=0).notes)


def test_flag_counts_are_items_and_agree_between_the_note_and_the_report():
    """The flag summary counts items: every near-duplicate pattern is one kind (before, each pattern was its own
    line, 'same as item i050 (1)', 'same as item i060 (1)', ...), and an item with several flags is counted under
    each, said beside the number of items flagged; the items command's note and the report's items section give
    the same numbers (before, the note counted each item's first flag and the report every flag: 3,279 vs 3,291
    on MMLU-Pro)."""
    import re

    from evalband.latent.diagnostics import flag_counts
    from evalband.report.sections.items import _findings

    rng = np.random.default_rng(5)
    theta, b = rng.normal(size=40), rng.normal(size=120)
    y = (rng.random((40, 120)) < 1 / (1 + np.exp(-1.5 * (theta[:, None] - b)))).astype(float)
    for k, src in ((2, 50), (3, 60), (4, 70), (5, 80)):  # four copies of four different items
        y[:, k] = y[:, src]
    y[:, 6] = 1 - y[:, 90]  # miskeyed, and so with a pattern of its own
    y[:, 7] = y[:, 6]  # a copy of the miskeyed item: two flags
    res = eb.items(frame(y), rng=0)
    f = res.to_frame()
    n, several, counts = flag_counts(f["flag"])
    assert n == int((f["flag"] != "").sum()) and several >= 1
    dup = int(f["flag"].str.contains("near-duplicate").sum())
    assert counts["near-duplicate response pattern"] == dup >= 5
    assert sum(counts.values()) == n + several + sum(f["flag"].str.count("; ") > 1)
    note = next(x for x in res.notes if x.code == "latent.items-flagged")
    assert f"near-duplicate response pattern ({dup:,})" in note and "same as item" not in note
    assert note.startswith(f"{n:,} items flagged ({several:,} with more than one flag, counted under each)")
    line = next(x for x in _findings(res) if x.startswith("Items per flag"))
    assert re.findall(r"\(([\d,]+)\)", line.split("): ", 1)[1]) == re.findall(r"\(([\d,]+)\)", note.split(
        "items per flag: ")[1])
