"""Coverage of PPI intervals with few human labels (issue 22: "few human labels in PPI").

At 20 labels the PPI++ normal interval (ppi_py's) covered about 0.90. The interval is now the small-sample t
interval of :func:`evalband.judges.ppi_mean` (each part of the variance over its degrees of freedom, Student's t
on the labelled degrees of freedom). Oracle: coverage simulations judged with a binomial test, every simulation a
row of one vectorized call (4,000 simulations of 1,000 items, a random subset labelled).

Measured (PPI++; normal interval with ppi_py's se -> now):

============  =============  =============  =============
design        20 labels      50 labels      100 labels
============  =============  =============  =============
continuous    0.916 -> 0.939 0.942 -> 0.949 0.947 -> 0.951
binary        0.887 -> 0.913 0.933 -> 0.942 0.945 -> 0.949
============  =============  =============  =============

(classic PPI, binary: 0.909 -> 0.928, 0.945 -> 0.955, 0.947 -> 0.952.) The binary design (0/1 labels, a biased
0/1 judge; the design of ``test_ppi.py``) stays below 0.93 at 20 labels: there even the classical t interval of the
labels alone covers 0.931, because a mean of 20 draws of 0/1 is far from normal. Below 30 labels the output says
so in a note (tested here), as the issue asks where the level is not reached.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.stats import binomtest

from evalband.judges import ppi_mean
from evalband.estimation.ppi import FEW_LABELS, ppi_notes

SIMS, ITEMS = 4000, 1000


def _labelled(gen, y, n_lab):
    labelled = np.argsort(gen.uniform(size=y.shape), axis=1) < n_lab  # a uniform random subset per simulation
    return np.where(labelled, y, np.nan)


def continuous(gen, n_lab):
    """Human scores y ~ N(0, 1); the judge sees y with noise of the same size (truth 0)."""
    y = gen.normal(size=(SIMS, ITEMS))
    return y + gen.normal(size=y.shape), _labelled(gen, y, n_lab), 0.0


def binary(gen, n_lab, p=0.6):
    """Human labels y ~ Bernoulli(0.6); the judge says 1 with probability 0.9 when y = 1, 0.3 when y = 0."""
    y = (gen.uniform(size=(SIMS, ITEMS)) < p).astype(float)
    f = np.where(y == 1, gen.uniform(size=y.shape) < 0.9, gen.uniform(size=y.shape) < 0.3).astype(float)
    return f, _labelled(gen, y, n_lab), p


def _coverage(design, n_lab, method="ppi++", seed=22):
    f, human, truth = design(np.random.default_rng(seed), n_lab)
    res = ppi_mean(f, human, method=method)
    z = stats.norm.ppf(0.975)
    before = int(np.sum(np.abs(res.estimate - truth) <= z * res.se_asymptotic))  # ppi_py's interval
    after = int(np.sum((res.ci.low <= truth) & (truth <= res.ci.high)))
    return before, after, res


@pytest.mark.parametrize("n_lab", [20, 50, 100])
def test_coverage_continuous(n_lab):
    before, after, _ = _coverage(continuous, n_lab)
    assert binomtest(after, SIMS, 0.93, alternative="less").pvalue > 0.01, after / SIMS
    assert binomtest(after, SIMS, 0.95).pvalue > 0.001, after / SIMS
    assert after >= before


@pytest.mark.parametrize("n_lab", [20, 50, 100])
def test_coverage_binary(n_lab):
    before, after, res = _coverage(binary, n_lab)
    assert after > before
    if n_lab >= 50:
        assert binomtest(after, SIMS, 0.93, alternative="less").pvalue > 0.01, after / SIMS
    else:  # not reached at 20 labels (see the module doc): the output says the interval is approximate
        assert after / SIMS > 0.91
        one = ppi_mean(np.full((1, ITEMS), 0.5), np.where(np.arange(ITEMS) < n_lab, 1.0, np.nan)[None])
        notes = ppi_notes(["m"], one)
        assert n_lab < FEW_LABELS and any(f"fewer than {FEW_LABELS} human labels" in n for n in notes)
    classic_before, classic_after, _ = _coverage(binary, n_lab, method="classic")
    assert classic_after >= classic_before
