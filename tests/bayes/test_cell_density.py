"""The NumPy log density of the logistic model without item effects (``evalband.bayes._cell_density``), which the
mode search and the Laplace draws use instead of JAX.

Oracle: the JAX form of the same density (``_coords.log_density``, itself checked against NumPyro's model density
in ``test_logistic_coords.py``), its automatic gradient and its automatic Hessian, at points away from the mode,
with and without clusters, for centred, mixed and non-centred levels.
"""

from __future__ import annotations

import numpy as np
import pytest
from references import load_beside

pytest.importorskip("numpyro")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from evalband.bayes import _coords as co  # noqa: E402
from evalband.bayes import _laplace_fit as lf  # noqa: E402
from evalband.bayes import logistic_model as lm  # noqa: E402
from evalband.bayes._cell_density import CellDensity  # noqa: E402

COORDS = load_beside(__file__, "test_logistic_coords")


def _layout(clusters, centred):
    table = COORDS._table(seed=2)
    obs, *_ = lm._logistic_data(table, table.models, table.tasks, False, clusters)
    centred = {lv: c for lv, c in centred.items() if lv != "item" and (clusters or lv != "cluster")}
    return co.layout(obs, 4, 3, centred)


@pytest.mark.parametrize("clusters", [True, False])
@pytest.mark.parametrize("centred", COORDS.CENTRINGS)
def test_value_gradient_and_precision_equal_jax_autodiff(clusters, centred):
    lay = _layout(clusters, centred)
    cells = CellDensity(lay)
    rng = np.random.default_rng(3)
    points = np.stack([COORDS._point(lay, rng)[0] for _ in range(3)])
    with jax.enable_x64(True):
        f = lambda x: co.log_density(lay, x, None, group_means=False)
        value = np.asarray(jax.jit(jax.vmap(f))(jnp.asarray(points)))
        grad = np.asarray(jax.jit(jax.vmap(jax.grad(f)))(jnp.asarray(points)))
        hess = -np.asarray(jax.jit(jax.vmap(jax.hessian(f)))(jnp.asarray(points)))  # jitted: one compilation
    mine, my_grad = cells.value_and_grad(points)
    np.testing.assert_allclose(mine, value, rtol=1e-12)
    np.testing.assert_allclose(cells.value(points), value, rtol=1e-12)
    np.testing.assert_allclose(my_grad, grad, rtol=1e-10, atol=1e-10)
    for p, h in zip(points, hess):
        np.testing.assert_allclose(cells.precision(p), h, rtol=1e-10, atol=1e-10)
    assert np.ptp(value) > 1 and np.abs(grad).max() > 1  # the points differ and are not at the mode


def test_mode_search_without_items_is_jax_free_and_finds_the_jax_mode():
    lay = _layout(True, COORDS.CENTRINGS[2])  # non-centred: a mode exists on this small table
    fns = lf.density_fns(lay)
    assert isinstance(fns[1], CellDensity)
    theta, _, prec, _, val = lf.find_mode(lay)
    with jax.enable_x64(True):
        f = lambda x: co.log_density(lay, x, None, group_means=False)
        g = np.asarray(jax.jit(jax.grad(f))(jnp.asarray(theta)))
        h = -np.asarray(jax.jit(jax.hessian(f))(jnp.asarray(theta)))
    assert np.abs(g).max() < 1e-3
    np.testing.assert_allclose(prec.glob, h, rtol=1e-8, atol=1e-8)


def test_cell_density_refuses_item_effects():
    table = COORDS._table(seed=2)
    obs, *_ = lm._logistic_data(table, table.models, table.tasks, True, None)
    lay = co.layout(obs, 4, 3, COORDS.CENTRINGS[0])
    with pytest.raises(ValueError, match="without item effects"):
        CellDensity(lay)


@pytest.mark.parametrize("centred", [COORDS.CENTRINGS[0], COORDS.CENTRINGS[2]])
def test_numpy_potential_equals_the_samplers_jax_potential(centred):
    # the HMC chains start from the NumPy potential and gradient: they must be the compiled sampler's own
    from evalband.bayes import _laplace_marginal as lmg
    from evalband.bayes import _whiten as wh
    from evalband.bayes.whitened_hmc import potential_fn, potential_numpy

    table = COORDS._table(seed=2)
    obs, *_ = lm._logistic_data(table, table.models, table.tasks, False, True)
    centred = {lv: c for lv, c in centred.items() if lv != "item"}
    lay, theta, _, prec, *_ = lmg.marginal_mode_and_precision(obs, 4, 3, centred)
    mapping = wh.whitening(lay, theta, None, prec)  # float32, as the sampler's
    z = np.random.default_rng(5).normal(scale=1.5, size=(4, mapping.dim)).astype(np.float32)
    u, g = potential_numpy(lay, mapping, z)
    potential = potential_fn(lay, mapping)
    u_jax, pullback = jax.vjp(potential, jnp.asarray(z))
    g_jax = pullback(jnp.ones_like(u_jax))[0]
    np.testing.assert_allclose(u, np.asarray(u_jax), rtol=1e-4, atol=1e-3)  # float32 against float64
    np.testing.assert_allclose(g, np.asarray(g_jax), rtol=1e-3, atol=1e-3 * np.abs(g).max())
    assert np.abs(u).max() > 1 and np.abs(g).max() > 1  # away from the mode: not a trivial comparison
