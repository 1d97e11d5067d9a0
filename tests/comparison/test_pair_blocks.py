"""Pairs in blocks: the numbers of ``pairwise_differences`` do not depend on how the family is split.

Oracle: the same call with one block (the whole (B, P) array at once, as before blocks existed), and for max-t
the brute-force count of the maxima over a (B, P) comparison.
"""

import numpy as np
import pytest

from evalband.comparison import pairwise as pw
from evalband.comparison.multiplicity import max_t_intervals
from evalband.comparison.pairwise import pairwise_differences


def _samples(m=9, b=400, seed=0):
    gen = np.random.default_rng(seed)
    obs = gen.uniform(0.4, 0.8, size=m)
    obs[3] = obs[4]  # a tie
    shared = gen.normal(0, 0.01, size=(b, 1))
    s = obs + shared + gen.normal(0, 0.015, size=(b, m))
    s[:, 5] = s[:, 6] + (obs[5] - obs[6])  # a pair with no spread in its difference
    jack = obs + gen.normal(0, 0.002, size=(30, m))
    return obs, s, jack


FIELDS = ("difference", "se", "p_value", "p_adjusted", "replicate_correlation")


@pytest.mark.parametrize("correction", ["none", "bonferroni", "holm", "bh", "max-t"])
@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_blocks_give_the_numbers_of_one_pass(monkeypatch, correction, method, alternative):
    obs, s, jack = _samples()
    kw = dict(correction=correction, method=method, alternative=alternative, jackknife=jack,
              jackknife_strata=np.zeros(30, dtype=int), keep_replicates=True)
    whole = pairwise_differences(obs, s, [f"m{k}" for k in range(obs.size)], **kw)
    monkeypatch.setattr(pw, "BLOCK_ELEMENTS", 3 * (s.shape[0] + 30))  # 3 pairs per block: 12 blocks of 36 pairs
    assert len(pw._blocks(whole.difference.size, s.shape[0] + 30)) == 12
    split = pairwise_differences(obs, s, [f"m{k}" for k in range(obs.size)], **kw)
    for f in FIELDS:
        np.testing.assert_array_equal(getattr(split, f), getattr(whole, f), err_msg=f)
    np.testing.assert_array_equal(split.ci.low, whole.ci.low)
    np.testing.assert_array_equal(split.ci.high, whole.ci.high)
    np.testing.assert_array_equal(split.replicates, whole.replicates)
    assert split.verdict.tolist() == whole.verdict.tolist() and split.readings == whole.readings
    assert split.interval_level == whole.interval_level


def test_replicates_kept_only_when_small(monkeypatch):
    obs, s, _ = _samples()
    names = [f"m{k}" for k in range(obs.size)]
    assert pairwise_differences(obs, s, names, keep_replicates="auto").replicates.shape == (400, 36)
    monkeypatch.setattr(pw, "KEEP_REPLICATES_MAX", 400 * 36 - 1)
    pc = pairwise_differences(obs, s, names, keep_replicates="auto")
    assert pc.replicates is None
    k = 7  # what the docstring promises: the differences are recomputed from the model replicates
    d = s[:, pc.index_a[k]] - s[:, pc.index_b[k]]
    assert d.std(ddof=1) == pytest.approx(pc.se[k], rel=1e-12)
    assert pairwise_differences(obs, s, names, keep_replicates=False).replicates is None


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_max_t_p_values_equal_the_brute_force_count(alternative):
    obs, s, _ = _samples(m=12, b=300, seed=3)
    ia, ib = np.triu_indices(12, k=1)
    d, reps = obs[ia] - obs[ib], s[:, ia] - s[:, ib]
    sim = max_t_intervals(reps, d, alternative=alternative)
    se = reps.std(axis=0, ddof=1)
    live = se > 0
    t = d / np.where(live, se, 1.0)
    stat = np.abs(t) if alternative == "two-sided" else t if alternative == "greater" else -t
    counts = (sim.max_t[:, None] >= stat[None, :]).sum(axis=0)  # the (B, P) count the sorted maxima replace
    brute = np.where(live, np.minimum(1.0, (counts + 1.0) / (reps.shape[0] + 1.0)), np.where(d == 0, 1.0, 0.0))
    np.testing.assert_array_equal(sim.p_value, brute)
    assert not live.all()  # the pair without spread is in the family


def test_a_pairs_numbers_do_not_depend_on_the_other_models():
    """Every per-pair number, the replicate correlation included, is the same in a family of 3 or of 9 models."""
    obs, s, _ = _samples()
    names = [f"m{k}" for k in range(obs.size)]
    big = pairwise_differences(obs, s, names).to_frame().set_index(["model_a", "model_b"])
    keep = [0, 1, 7]
    small = pairwise_differences(obs[keep], s[:, keep], [names[k] for k in keep]).to_frame()
    small = small.set_index(["model_a", "model_b"])
    for col in ("difference", "se", "ci_low", "ci_high", "p_value", "replicate_correlation"):
        np.testing.assert_array_equal(small[col].to_numpy(), big.loc[small.index, col].to_numpy(), err_msg=col)


@pytest.mark.parametrize("keep", [True, np.True_, 1])
def test_keep_replicates_by_truth(keep):
    obs, s, _ = _samples()
    assert pairwise_differences(obs, s, [f"m{k}" for k in range(obs.size)], keep_replicates=keep).replicates \
        is not None
