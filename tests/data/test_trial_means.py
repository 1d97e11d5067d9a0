"""Trials averaged per item (evalband.data.trial_means): exact sums only, and the paired analyses unchanged.

The oracle is the table of trial rows itself: compare and rank on the averaged table must give the very numbers
(bit for bit) they give on the trial rows, on the engine's bootstrap, the small-sample wild cluster bootstrap
(few clusters) and independent resampling, with uneven trial counts and models or tasks selected.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband._validate import InputError
from evalband.data.trial_means import average_trials, score_quantum, sums_exact


def test_score_quantum_is_the_largest_power_of_two_dividing_every_score():
    assert score_quantum([0, 1, 1, 0]) == (0, 1.0)
    assert score_quantum([0.5, 0.75, 2.0]) == (-2, 2.0)
    assert score_quantum([-3.0, 6.0]) == (0, 6.0)
    assert score_quantum([0.0, 0.0]) == (1100, 0.0)
    e, _ = score_quantum([0.1])
    assert 0.1 % 2.0 ** e == 0 and 0.1 % 2.0 ** (e + 1) != 0  # theory: 0.1 = m * 2**e with m odd


def test_sums_exact_exactly_when_no_partial_sum_rounds():
    assert sums_exact(0, 1.0, 10_000) and sums_exact(-2, 1.0, 1000)
    assert not sums_exact(*score_quantum([0.1, 0.3]), 2)
    # integers up to 2**24 with 2**5 trials: the sums of squares need 2 * 24 + 5 bits, beyond 52
    assert sums_exact(0, 2.0 ** 24, 2 ** 5) is False and sums_exact(0, 2.0 ** 24, 1) is True
    # the rule is the theory's: at the bound, a sum of the scores in another order changes
    x = np.array([2.0 ** 53, 1.0, 1.0])
    assert not sums_exact(*score_quantum(x), 3) and (x[0] + x[1]) + x[2] != x[0] + (x[1] + x[2])


def _frame(seed=0, clusters=True, scores="binary", trials=5):
    gen = np.random.default_rng(seed)
    parts = []
    for t, n in (("t1", 40), ("t2", 24)):
        p = gen.uniform(0.1, 0.9, n)
        for m in ("a", "b", "c"):
            for k in range(trials):
                s = (gen.random(n) < p).astype(float)
                if scores == "quarters":
                    s = gen.integers(0, 5, n) / 4
                parts.append(pd.DataFrame({"model": m, "task": t, "item": np.arange(n), "trial": f"r{k}",
                                           "score": s, "cluster": np.arange(n) // (4 if clusters else 1)}))
    df = pd.concat(parts, ignore_index=True)
    df = df.drop(index=df.index[gen.random(len(df)) < 0.1])  # uneven trial counts
    if not clusters:
        df = df.drop(columns="cluster")
    return df.sample(frac=1, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize("clusters,scores,options", [
    (True, "binary", {}),                                   # few clusters: the small-sample wild bootstrap
    (False, "binary", {}),                                  # the engine's paired bootstrap, analytic SEs
    (False, "quarters", {"resampling": "independent"}),
    (False, "binary", {"models": ["c", "a"]}),
    (True, "quarters", {"tasks": ["t2"]}),
])
def test_compare_and_rank_same_numbers_on_averaged_trials(clusters, scores, options):
    df = _frame(clusters=clusters, scores=scores)
    rows, averaged = eb.read(df), eb.read(df, trials="average")
    assert averaged.averaged_trials == 5 and len(averaged.data) < len(rows.data)
    select = {k: options.pop(k) for k in ("models", "tasks") if k in options}
    a, b = eb.select(rows, **select), eb.select(averaged, **select)
    ca, cb = eb.compare(a, n_resamples=200, rng=3, **options), eb.compare(b, n_resamples=200, rng=3, **options)
    pd.testing.assert_frame_equal(ca.to_frame(), cb.to_frame(), check_exact=True)
    assert list(ca.notes) == list(cb.notes)
    ra, rb = eb.rank(a, n_resamples=200, rng=3, **options), eb.rank(b, n_resamples=200, rng=3, **options)
    pd.testing.assert_frame_equal(ra.to_frame(), rb.to_frame(), check_exact=True)
    assert list(ra.notes) == list(rb.notes)


def test_averaged_table_counts_what_it_averaged():
    df = _frame()
    rows, averaged = eb.read(df), eb.read(df, trials="average")
    d = averaged.data
    assert int(d["trials"].sum()) == len(rows.data) and "trial" not in d.columns
    g = rows.data.groupby(["task", "model", "item"], observed=True)["score"]
    assert np.array_equal(d["score_sum"].to_numpy(), g.sum().to_numpy())
    assert np.array_equal(d["trials"].to_numpy(), g.size().to_numpy())
    assert averaged.describe() == rows.describe() and averaged.notes == rows.notes
    pd.testing.assert_frame_equal(averaged.coverage(), rows.coverage())


def test_trials_kept_where_a_sum_could_round_or_a_trial_is_read():
    df = _frame()
    df["score"] = df["score"] * 0.1  # sums of tenths depend on their order
    assert eb.read(df, trials="average").averaged_trials == 0
    costs = _frame().assign(cost=0.5)  # per-row measures need the rows
    assert eb.read(costs, trials="average").averaged_trials == 0
    averaged = eb.read(_frame(), trials="average")
    with pytest.raises(InputError, match="pass@k needs each trial's score"):
        eb.passk(averaged, k=1)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("method", ["t", "cluster"])
def test_trial_variance_from_the_sums_of_averaged_trials_same_bits(method):
    """summarize's trial variance (var_within, var_between, k_enough) reads each item's exact count, sum and sum
    of squares: the same bits from a table of averaged trials as from its rows, whatever their order."""
    rows = eb.read(_frame().sample(frac=1, random_state=3))
    averaged = eb.read(_frame(), trials="average")
    assert averaged.averaged_trials
    a, b = eb.estimate(averaged, method=method), eb.estimate(rows, method=method)
    pd.testing.assert_frame_equal(a.to_frame(pooled=True), b.to_frame(pooled=True), check_exact=True)
    assert a.notes == b.notes and set(a.extras) >= {"var_within", "var_between", "k_enough"}
    td = averaged.task_data("t1", items="all")
    assert td.trial_scores is None and td.score_sums is not None
    assert np.array_equal(td.score_sums, np.nansum(rows.task_data("t1", items="all").trial_scores, axis=-1))


@pytest.mark.parametrize("fixed", [None, "prompt"])
def test_trials_averaged_within_facet_levels_same_numbers(fixed):
    """With a facet, the trials of each (item, prompt) become one row; the crossed bootstrap over items and
    prompts (random prompts) and the engine's (fixed prompts) read the same sums, counts and sums of squares."""
    df = _frame(clusters=False)
    gen = np.random.default_rng(5)
    df = pd.concat([df.assign(prompt="p1"), df.assign(prompt="p2", score=1 - df["score"]), df.assign(prompt="p3")],
                   ignore_index=True)
    df = df.drop(index=df.index[gen.random(len(df)) < 0.05]).sample(frac=1, random_state=2)
    rows, averaged = eb.read(df, facets=["prompt"]), eb.read(df, facets=["prompt"], trials="average")
    assert averaged.averaged_trials == 5 and len(averaged.data) == 64 * 3 * 3 and averaged.facets == ("prompt",)
    assert averaged.describe() == rows.describe() and averaged.notes == rows.notes
    for run in (eb.compare, eb.rank):
        a, b = run(rows, n_resamples=150, rng=4, fixed=fixed), run(averaged, n_resamples=150, rng=4, fixed=fixed)
        pd.testing.assert_frame_equal(a.to_frame(), b.to_frame(), check_exact=True)
        assert list(a.notes) == list(b.notes)
