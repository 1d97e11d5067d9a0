"""Coverage simulation: Wilson near nominal, Wald under-covering at small n near 0 or 1 (judged with binomtest)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from evalband.estimation import proportion_interval

SETTINGS = [(15, 0.1), (20, 0.1), (30, 0.95), (40, 0.97)]
REPS = 20_000  # simulated datasets per setting


def _coverage(method, n, p, rng):
    correct = rng.binomial(n, p, size=REPS)
    ci = proportion_interval(correct, np.full(REPS, n), method=method).ci
    return int(np.sum((ci.low <= p) & (p <= ci.high)))


@pytest.mark.slow
@pytest.mark.parametrize("n, p", SETTINGS)
def test_wilson_near_nominal_wald_under_covers(n, p):
    rng = np.random.default_rng([20261130, n, int(1000 * p)])
    wilson = _coverage("wilson", n, p, rng)
    wald = _coverage("wald", n, p, rng)
    exact = _coverage("clopper-pearson", n, p, rng)
    # Wilson: coverage between 93% and 98% (both one-sided tests reject the far side at 0.1%)
    assert binomtest(wilson, REPS, 0.93, alternative="greater").pvalue < 1e-3
    assert binomtest(wilson, REPS, 0.98, alternative="less").pvalue < 1e-3
    # Wald: clearly below 93% at these n and p (Brown, Cai & DasGupta 2001)
    assert binomtest(wald, REPS, 0.93, alternative="less").pvalue < 1e-3
    # Clopper-Pearson never under-covers
    assert binomtest(exact, REPS, 0.95, alternative="greater").pvalue < 1e-3


@pytest.mark.slow
def test_mean_coverage_over_p_near_zero():
    # averaged over p ~ Uniform(0.01, 0.15) and n = 25, Wilson's coverage is near 95%, Wald's far below
    rng = np.random.default_rng(11)
    p = rng.uniform(0.01, 0.15, size=REPS)
    correct = rng.binomial(25, p)
    hits = {m: int(proportion_interval(correct, 25, method=m, confidence_level=0.95).ci.contains(p).sum())
            for m in ("wilson", "wald", "jeffreys", "agresti-coull")}
    assert binomtest(hits["wilson"], REPS, 0.93, alternative="greater").pvalue < 1e-3
    assert binomtest(hits["agresti-coull"], REPS, 0.93, alternative="greater").pvalue < 1e-3
    assert binomtest(hits["jeffreys"], REPS, 0.93, alternative="greater").pvalue < 1e-3
    assert binomtest(hits["wald"], REPS, 0.90, alternative="less").pvalue < 1e-3
