"""The betting gate takes the items in a canonical seeded order (issue 14: shuffled rows flipped FAIL to UNDECIDED).

Oracles: the documented rule recomputed by hand (paired items in natural (task, item) order, permuted by the stream
keyed by the seed and 'gate-betting', fed to SequentialComparison); the unshuffled rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband import read
from evalband.data.labels import natural_order
from evalband._random import block_generator, name_key, run_entropy
from evalband.plan import SequentialComparison, release_gate


def _runs(seed=0, n=400):
    gen = np.random.default_rng(seed)
    items = [f"q{i}" for i in range(n)]
    base = pd.DataFrame({"model": "base", "task": "t", "item": items, "score": (gen.random(n) < 0.70).astype(int)})
    cand = pd.DataFrame({"model": "cand", "task": "t", "item": items, "score": (gen.random(n) < 0.66).astype(int)})
    return base, cand


def test_shuffled_rows_give_the_same_betting_result():
    base, cand = _runs()
    ref = release_gate(read(base), read(cand), method="betting", margin=0.02)
    for s in range(3):
        got = release_gate(read(base.sample(frac=1, random_state=s)), read(cand.sample(frac=1, random_state=s + 5)),
                           method="betting", margin=0.02)
        assert got.decision == ref.decision and (got.ci.low, got.ci.high) == (ref.ci.low, ref.ci.high)
    assert any("random order fixed by the seed (rng=0" in n for n in ref.notes)


@pytest.mark.parametrize("rng", [0, 11])
def test_the_order_is_the_documented_permutation_of_the_canonical_order(rng):
    base, cand = _runs(1)
    res = release_gate(read(base), read(cand), method="betting", margin=0.02, rng=rng)
    order = natural_order(base["item"])
    b = base.set_index("item").loc[order, "score"].to_numpy(float)
    c = cand.set_index("item").loc[order, "score"].to_numpy(float)
    perm = block_generator(run_entropy(np.random.default_rng(rng)), (name_key("gate-betting"),)).permutation(b.size)
    state = SequentialComparison(confidence_level=0.95, names=("candidate", "baseline")).update(c[perm], b[perm])
    assert (res.ci.low, res.ci.high) == (float(state.ci.low), float(state.ci.high))


def test_the_t_gate_does_not_use_the_order():
    base, cand = _runs(2)
    a = release_gate(read(base), read(cand), method="t", rng=0)
    b = release_gate(read(base), read(cand), method="t", rng=5)
    assert (a.ci.low, a.ci.high, a.decision) == (b.ci.low, b.ci.high, b.decision)
    assert not any("random order" in n for n in a.notes)
