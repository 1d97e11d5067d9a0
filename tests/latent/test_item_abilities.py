"""evalband.latent.item_abilities: the scale correction (theory) and the cells' curves on their grid (the exact
curve of every replicate)."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from evalband.latent.irt_fit import standardize
from evalband.latent.item_abilities import _onehot, cell_curves, scale_correction


def test_scale_correction_is_the_shrinkage_of_standardized_noise():
    """Standardizing ``theta + e`` (noise variance s^2 on abilities of variance 1) shrinks it by 1 / sqrt(1 + s^2)
    (theory); a fit that spreads the abilities out by a factor k is found as k; the factor is capped at 2."""
    rng = np.random.default_rng(0)
    theta = rng.normal(size=400)
    theta = (theta - theta.mean()) / theta.std()
    s = 0.5
    noisy = theta + s * rng.normal(size=(300, 400))
    z, _, _ = standardize(noisy, np.zeros_like(noisy), np.zeros_like(noisy))
    assert abs(scale_correction(theta, z) - 1 / np.sqrt(1 + s * s)) < 0.01
    assert abs(scale_correction(theta, 1.1 * theta + 0.3 * rng.normal(size=(300, 400))) - 1.1) < 0.01
    assert scale_correction(theta, -theta[None]) == 0.5 and scale_correction(theta, 5 * theta[None]) == 2.0
    assert scale_correction(np.zeros(3), rng.normal(size=(5, 3))) == 1.0


def test_cell_curves_on_the_grid_are_the_exact_curves():
    """Each replicate's expected cell score from the grid agrees with the mean of its items' curves at that
    replicate's ability (to 1e-3), for cells on the items a model answered and for cells on every item."""
    rng = np.random.default_rng(1)
    m, n_items, n_t, b = 6, 40, 3, 50
    item_task = np.sort(rng.integers(0, n_t, size=n_items))
    a, d = rng.lognormal(0.3, 0.5, size=n_items), rng.normal(0, 2, size=n_items)
    theta = rng.normal(size=m)
    samples = theta + 0.8 * rng.standard_t(4, size=(b, m))
    use = (rng.random((m, n_items)) < 0.6).astype(float)
    use[0] = 1.0
    onehot = _onehot(item_task, n_t)
    model, task = np.repeat(np.arange(m), n_t), np.tile(np.arange(n_t), m)
    ok = (use @ onehot)[model, task] > 0
    model, task = model[ok], task[ok]
    got = cell_curves(theta, samples, a, d, use, onehot, model, task)
    for k, (mm, tt) in enumerate(zip(model, task)):
        w = use[mm] * (item_task == tt)
        exact = (expit(samples[:, mm, None] * a + d) * w).sum(axis=1) / w.sum()
        assert np.max(np.abs(got[:, k] - exact)) < 1e-3
