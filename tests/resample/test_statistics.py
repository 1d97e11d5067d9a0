"""Sufficient-column statistics (F1, macro-F1, user statistics) and the item-level path (rliable on runs)."""

import json

import numpy as np
import pandas as pd
import pytest

from evalband.resample import ItemColumns, Statistic, bootstrap, bootstrap_items, interval
from evalband.resample._kernels import block_generator, draw_indices, name_key

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _f1_direct(p, y):
    tp = np.sum(p & y)
    fp = np.sum(p & ~y)
    fn = np.sum(~p & y)
    return 0.0 if 2 * tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)


def _macro_direct(p, y):
    vals = []
    for c in np.union1d(p, y):
        vals.append(_f1_direct(p == c, y == c))
    return np.mean(vals)


def test_f1_by_hand_and_on_each_replicate(rng):
    # by hand: tp = 3, fp = 1, fn = 2 -> F1 = 6 / 9
    pred = np.array([[1, 1, 1, 1, 0, 0, 0]])
    label = np.array([1, 1, 1, 0, 1, 1, 0])
    cols = ItemColumns(["m"], ["t"], {"t": {"prediction": pred, "label": label}})
    reps = bootstrap(cols, statistic="f1", n_resamples=20, rng=1)
    assert reps.observed[0, 0] == pytest.approx(6 / 9)
    # each replicate equals F1 recomputed on the resampled items (the definition)
    n = 200
    y = rng.random(n) < 0.3
    p = np.stack([y ^ (rng.random(n) < 0.2), y ^ (rng.random(n) < 0.4)])
    cols = ItemColumns(["a", "b"], ["t"], {"t": {"prediction": p, "label": y}})
    reps = bootstrap(cols, statistic="f1", n_resamples=30, rng=2)
    idx = draw_indices(block_generator(reps._entropy, (name_key("t"), 0)), n, (30,))
    for r in range(30):
        for m in range(2):
            assert reps.replicates[r, m, 0] == pytest.approx(_f1_direct(p[m, idx[r]], y[idx[r]]), abs=1e-12)


def test_macro_f1_matches_direct_computation(rng):
    # by hand: class a tp=1 fp=1 fn=1 -> 1/2; class b tp=1 fp=1 fn=0 -> 2/3; class c tp=0 fn=1 -> 0; macro 7/18
    pred = np.array([["a", "b", "b", "a"]])
    label = np.array(["a", "b", "a", "c"])
    cols = ItemColumns(["m"], ["t"], {"t": {"prediction": pred, "label": label}})
    assert bootstrap(cols, statistic="macro-f1", n_resamples=10, rng=1).observed[0, 0] == pytest.approx(7 / 18)
    n = 120
    y = rng.integers(0, 4, n)
    p = np.where(rng.random((2, n)) < 0.6, y, rng.integers(0, 4, (2, n)))
    cols = ItemColumns(["a", "b"], ["t"], {"t": {"prediction": p, "label": y}})
    reps = bootstrap(cols, statistic="macro-f1", n_resamples=25, rng=3)
    idx = draw_indices(block_generator(reps._entropy, (name_key("t"), 0)), n, (25,))
    for r in range(25):
        for m in range(2):
            assert reps.replicates[r, m, 0] == pytest.approx(_macro_direct(p[m, idx[r]], y[idx[r]]), abs=1e-12)


def test_user_statistic_matthews_and_from_frame(rng):
    def columns(c):
        p, y = c["prediction"].astype(bool), np.broadcast_to(c["label"].astype(bool), c["prediction"].shape)
        return np.stack([p & y, p & ~y, ~p & y, ~p & ~y], axis=-1).astype(float)

    def finish(s, total):
        tp, fp, fn, tn = np.moveaxis(s, -1, 0)
        den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        return np.divide(tp * tn - fp * fn, den, out=np.zeros_like(den), where=den > 0)

    mcc = Statistic("matthews", ("prediction", "label"), columns, finish)
    n = 300
    y = rng.random(n) < 0.5
    p = y ^ (rng.random(n) < 0.25)
    frame = pd.DataFrame({"model": "m", "task": "t", "item": np.arange(n), "prediction": p.astype(int),
                          "label": y.astype(int)})
    extra = pd.DataFrame({"model": "m2", "task": "t", "item": np.arange(n - 5), "prediction": 1, "label":
                          y[:n - 5].astype(int)})
    cols = ItemColumns.from_frame(pd.concat([frame, extra]), columns=["prediction", "label"])
    assert cols.notes and "m: 5" in cols.notes[0]
    reps = bootstrap(cols, statistic=mcc, n_resamples=500, rng=4, models=["m"])
    # oracle: Pearson correlation of the two 0/1 vectors is the Matthews coefficient
    assert reps.observed[0, 0] == pytest.approx(np.corrcoef(p[:n - 5], y[:n - 5])[0, 1], rel=1e-12)
    with pytest.raises(Exception, match="needs column"):
        bootstrap(cols, statistic="mean")


def _spr_normalized():
    scores = json.loads((FIXTURES / "atari100k" / "SPR.json").read_text())
    ref = json.loads((FIXTURES / "atari100k" / "reference_scores.json").read_text())
    games = sorted(scores)
    mat = np.stack([(np.array(scores[g]) - ref["random"][g]) / (ref["human"][g] - ref["random"][g]) for g in games],
                   axis=1)
    return games, mat  # (runs, games), rliable's convention


def test_item_path_on_atari_spr_known_answers():
    games, mat = _spr_normalized()
    # rliable notebook output (data README): SPR median 0.39562938291779215, mean 0.6157957428691673
    med = bootstrap_items({"SPR": mat}, "median", tasks=games, n_resamples=200, rng=1)
    mean = bootstrap_items({"SPR": mat}, "mean", tasks=games, n_resamples=200, rng=1)
    assert med.observed[0] == pytest.approx(0.39562938291779215, abs=1e-15)
    assert mean.observed[0] == pytest.approx(0.6157957428691673, abs=1e-15)
    iqm = bootstrap_items({"SPR": mat}, "iqm", tasks=games, n_resamples=1000, rng=2)
    from scipy.stats import trim_mean
    assert iqm.observed[0] == pytest.approx(trim_mean(mat.ravel(), 0.25), rel=1e-12)
    ci = interval(iqm.replicates, iqm.observed)
    assert ci.low[0] < iqm.observed[0] < ci.high[0]
    # the stratified bootstrap SD of the mean of run means equals its analytic value (independent runs per task)
    b = 4000
    mean = bootstrap_items({"SPR": mat}, "mean", tasks=games, n_resamples=b, rng=3)
    theory = np.sqrt((mat.var(axis=0, ddof=0) / mat.shape[0]).sum()) / len(games)
    assert abs(mean.replicates[:, 0].std(ddof=1) - theory) < 4 * theory / np.sqrt(2 * (b - 1))


def test_item_path_reproducible_ragged_and_jackknife(rng):
    from concurrent.futures import ThreadPoolExecutor

    from evalband.aggregate.rliable import iqm

    a = rng.normal(size=(10, 3))
    b = rng.normal(size=(6, 3)) + 0.5  # fewer runs
    data = {"A": a, "B": b}
    r1 = bootstrap_items(data, iqm, n_resamples=1500, rng=5)
    with ThreadPoolExecutor(2) as pool:
        r2 = bootstrap_items(data, iqm, n_resamples=1500, rng=5, executor=pool)
    np.testing.assert_array_equal(r1.replicates, r2.replicates)
    assert r1.n_units.tolist() == [[10, 10, 10], [6, 6, 6]]
    swapped = bootstrap_items({"B": b, "A": a}, iqm, n_resamples=1500, rng=5)
    np.testing.assert_array_equal(swapped.replicates[:, ::-1], r1.replicates)
    jack = r1.jackknife()
    assert jack.shape == (30, 2)
    from scipy.stats import trim_mean
    np.testing.assert_allclose(jack[0, 0], trim_mean(np.delete(a.T.ravel(), 0), 0.25))
    ci = interval(r1.replicates, r1.observed, method="bca", jackknife=jack, jackknife_strata=r1.jackknife_strata())
    assert np.all(ci.low < r1.observed) and np.all(r1.observed < ci.high)
    paired = bootstrap_items(data, iqm, n_resamples=100, rng=5, resampling="paired")
    assert paired.n_units.tolist() == [[6, 6, 6], [6, 6, 6]]


def test_item_path_probability_of_improvement(rng):
    from scipy.stats import mannwhitneyu

    from evalband.aggregate.rliable import probability_of_improvement

    a = rng.normal(0.3, 1, size=(8, 4))
    b = rng.normal(0.0, 1, size=(5, 4))
    reps = bootstrap_items({"A": a, "B": b}, lambda x: probability_of_improvement(x, x[:, 1:2]),
                           n_resamples=300, rng=2)
    # oracle: mean over tasks of Mann-Whitney U / (n m) (scipy), A over B; B over itself is 1/2
    expected = np.mean([mannwhitneyu(a[:, t], b[:, t]).statistic / (8 * 5) for t in range(4)])
    np.testing.assert_allclose(reps.observed, [expected, 0.5])
    assert reps.replicates.shape == (300, 2)
    assert np.all(reps.replicates[:, 1] == 0.5)
