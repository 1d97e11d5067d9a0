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


@pytest.mark.slow
def test_looking_after_every_batch_keeps_the_error_rate_under_a_null_difference():
    """1,000 evaluations of 400 items (a look after every 20) of two models with the same full-benchmark mean."""
    rng = np.random.default_rng(0)
    N = 5000
    p = rng.uniform(0.1, 0.9, size=N)
    a = (rng.random(N) < p).astype(float)
    b = a.copy()  # 750 items a right and b wrong, 750 the other way: the same mean over the benchmark
    b[rng.choice(np.flatnonzero(a == 1), 750, replace=False)] = 0
    b[rng.choice(np.flatnonzero(a == 0), 750, replace=False)] = 1
    assert b.mean() == a.mean()
    declared = 0
    for _ in range(1000):
        order = rng.permutation(N)[:400]
        cs = betting_confidence_sequence(a[order], b[order], confidence_level=0.95)
        looks = np.arange(19, 400, 20)
        declared += any(verdict([cs.low[t]], [cs.high[t]])[0] != "not yet decided" for t in looks)
    assert binomtest(declared, 1000, 0.05, alternative="greater").pvalue > 0.01, declared / 1000
