"""``evalband.bayes._psis.psislw`` (the Laplace fit's importance weights without ArviZ).

Oracle: ArviZ's ``psislw`` on the same log weights (normal, heavy-tailed, light-tailed, a short tail, reff below 1).
"""

from __future__ import annotations

import numpy as np
import pytest

from evalband.bayes._psis import psislw

az = pytest.importorskip("arviz")


def _cases():
    rng = np.random.default_rng(11)
    yield rng.standard_normal(4000), 1.0  # light tail: k well below 0.5
    yield rng.standard_t(2, 4000) * 3, 1.0  # heavy tail: k near or above 0.5
    yield np.log(rng.pareto(0.8, 2000) + 1e-3), 1.0  # k near 1.25
    yield -rng.exponential(size=500) + 200.0, 0.6  # bounded above, shifted, reff < 1
    yield np.r_[np.zeros(100), np.linspace(-1, 0, 30)], 1.0  # ties at the maximum


@pytest.mark.parametrize("case", range(5))
def test_psislw_equals_arviz(case):
    lw, reff = list(_cases())[case]
    mine, k = psislw(lw, reff)
    theirs, k_az = az.psislw(lw.copy(), reff)
    np.testing.assert_allclose(mine, np.asarray(theirs), rtol=1e-12, atol=1e-12)
    assert k == pytest.approx(float(k_az), rel=1e-12, abs=1e-14) or (np.isinf(k) and np.isinf(k_az))


def test_psislw_short_tail_has_infinite_k():
    lw, k = psislw(np.array([0.0, -1.0, -2.0, -3.0, -4.0, -5.0]))
    assert np.isinf(k) and np.exp(lw).sum() == pytest.approx(1.0)
