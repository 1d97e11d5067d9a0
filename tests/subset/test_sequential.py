"""``evalband.subset.Subset``: items in a seeded order, a look after every batch, an anytime-valid stop.

Oracles: theory (under a null difference the chance of ever declaring one over many looks stays <= alpha, judged
with a binomial test over 1,000 simulated evaluations with a look after every 20 items, as issue 25 asks; the
order is a simple random sample drawn one item at a time) and behaviour (same seed, same order; a gap in the
order is an error naming the item).
"""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

import evalband as eb
from evalband._validate import InputError
from evalband.comparison.verdict import verdict
from evalband.plan.sequential import betting_confidence_sequence

from subset.synthetic import synthetic


def test_subset_runs_in_a_seeded_order_and_stops_when_decided():
    ref, new = synthetic(seed=3)
    run = eb.Subset(ref, target_se=0.04, batch=25, rng=7)
    assert run.next_items().equals(eb.Subset(ref, target_se=0.04, batch=25, rng=7).next_items())
    done = pd.DataFrame(columns=["task", "item"])
    for _ in range(40):
        done = pd.concat([done, run.next_items()[["task", "item"]]])
        dec = run.update(new.merge(done))
        if dec.stop:
            break
    assert dec.stop and "standard error" in dec.reason
    assert dec.to_frame()["se"].iloc[0] <= 0.04 and dec.next_items.empty
    assert "stop" in repr(dec)


def test_a_gap_in_the_order_is_an_error_naming_the_item():
    ref, new = synthetic(seed=3)
    run = eb.Subset(ref, against="m0", rng=1)
    todo = run.next_items()
    with pytest.raises(InputError, match=r"not the first 19 of the order: task 't\d', item 'q\d+' \(number 1\)"):
        run.update(new.merge(todo.iloc[1:][["task", "item"]]))


def test_the_difference_uses_the_sequence_for_sampling_without_replacement():
    ref, new = synthetic(seed=3)
    run = eb.Subset(ref, against="m0", batch=40, rng=2)
    todo = run.items_frame(0, 60)
    dec = run.update(new.merge(todo[["task", "item"]]))
    keyed = todo.merge(new, on=["task", "item"]).merge(ref[ref["model"] == "m0"], on=["task", "item"])
    cs = betting_confidence_sequence(keyed["score_x"].to_numpy(), keyed["score_y"].to_numpy(),
                                     population_size=600)
    assert dec.difference["cs_low"] == cs.low[-1] and dec.difference["cs_high"] == cs.high[-1]
    wr = betting_confidence_sequence(keyed["score_x"].to_numpy(), keyed["score_y"].to_numpy())
    assert dec.difference["cs_high"] - dec.difference["cs_low"] <= wr.high[-1] - wr.low[-1]


def _pair(N, flips_down, flips_up, rng):
    """Two models' 0/1 results on N items: b is a with ``flips_down`` of a's right answers wrong and
    ``flips_up`` of its wrong answers right (a - b over the benchmark: (flips_down - flips_up) / N)."""
    p = rng.uniform(0.1, 0.9, size=N)
    a = (rng.random(N) < p).astype(float)
    b = a.copy()
    b[rng.choice(np.flatnonzero(a == 1), flips_down, replace=False)] = 0
    b[rng.choice(np.flatnonzero(a == 0), flips_up, replace=False)] = 1
    return a, b


def _first_decision(a, b, N, look=20, grid_size=500):
    # a coarser grid than Subset's 1,000 (the interval is widened by one grid step: still valid), for time
    cs = betting_confidence_sequence(a, b, confidence_level=0.95, population_size=N, grid_size=grid_size)
    looks = np.arange(look - 1, len(a), look)
    words = verdict(cs.low[looks], cs.high[looks])
    hit = np.flatnonzero(np.isin(words, ["A better", "B better"]))
    return (int(looks[hit[0]]) + 1, str(words[hit[0]])) if hit.size else (None, None)


@pytest.mark.slow
def test_looking_after_every_batch_keeps_the_error_rate_under_a_null_difference():
    """1,000 evaluations of a whole benchmark of 1,000 items, a look after every 20 (50 looks, the last on every
    item), two models with the same mean over the benchmark: a difference is declared in <= 5% of them."""
    rng = np.random.default_rng(0)
    N = 1000
    a, b = _pair(N, 150, 150, rng)  # 150 items a right and b wrong, 150 the other way
    assert b.mean() == a.mean()
    declared = sum(_first_decision(a[o], b[o], N)[0] is not None for o in (rng.permutation(N) for _ in range(1000)))
    assert binomtest(declared, 1000, 0.05, alternative="greater").pvalue > 0.01, declared / 1000


@pytest.mark.slow
def test_items_to_a_decision_at_a_true_difference_of_3_points():
    """A difference of 3 points (5,000 items, 28% of them answered differently, as MMLU-Pro's pairs 3 points
    apart), 100 evaluations with a look every 20 items: decided on fewer items than the whole benchmark, in the
    wrong direction in at most alpha / 2 of them (the hedged sequence spends alpha / 2 on each side; binomial
    test), and the sequence for sampling without replacement needs fewer items than the one for independent
    draws."""
    rng = np.random.default_rng(1)
    N = 5000
    a, b = _pair(N, 775, 625, rng)  # a - b = 150 / 5000 = 3 points; 1,400 of 5,000 items differ
    assert a.mean() - b.mean() == pytest.approx(0.03)
    n_wor, n_wr, wrong = [], [], 0
    looks = np.arange(19, N, 20)
    for _ in range(100):
        o = rng.permutation(N)
        n, word = _first_decision(a[o], b[o], N)
        wrong += word == "B better"
        n_wor.append(N if n is None else n)
        cs = betting_confidence_sequence(a[o], b[o], grid_size=500)
        n_wr.append(next((t + 1 for t in looks if cs.low[t] > 0 or cs.high[t] < 0), N))
    assert binomtest(wrong, 100, 0.025, alternative="greater").pvalue > 0.01, wrong
    assert np.mean(n_wor) < 0.9 * N and np.mean(n_wor) < np.mean(n_wr)
    print(f"items to a decision at 3 points (N = {N}): without replacement mean {np.mean(n_wor):.0f},"
          f" median {np.median(n_wor):.0f}; independent-draws CS mean {np.mean(n_wr):.0f}; wrong direction {wrong}")
