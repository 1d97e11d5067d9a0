"""The coordinates of the logistic model's Gaussian approximation, its structured Hessian, its mode and the whitening
map (``_coords``, ``_laplace_fit``, ``_whiten``).

Oracles: NumPyro's own log density of the model (``numpyro.infer.util.log_density`` on ``_logistic_model``), JAX's
automatic Hessian of the log density, theory (the gradient vanishes on the constraints' subspace at the mode), and
linear algebra (the whitening map's covariance is the constrained inverse precision, plus the group means' prior).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special

from evalband import ResultsTable

numpyro = pytest.importorskip("numpyro")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from evalband.bayes import _coords as co  # noqa: E402
from evalband.bayes import _laplace_fit as lf  # noqa: E402
from evalband.bayes import _whiten as wh  # noqa: E402
from evalband.bayes import logistic_model as lm  # noqa: E402

CENTRINGS = [
    {"model": True, "task": True, "model_task": True, "cluster": True, "item": True},
    {"model": True, "task": False, "model_task": False, "cluster": True, "item": False},
    {"model": False, "task": False, "model_task": False, "cluster": False, "item": False},
]


def _table(seed=0, n_items=30, lacking=True):
    """4 models x 3 tasks x items in 3 clusters per task; model m3 lacks a few items (zero trials there)."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(3):
        for k in range(n_items):
            p = special.expit(np.array([-0.5, 0.0, 0.4, 1.0]) + 0.3 * t + rng.normal(0, 1))
            y = rng.random(4) < p
            rows += [(f"m{m}", f"t{t}", f"i{k}", f"c{k % 3}", float(y[m])) for m in range(4)
                     if not (lacking and m == 3 and k < 4)]
    return ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "cluster", "score"]))


def _point(lay, rng):
    theta, q = co.initial_point(lay)
    theta = theta + rng.normal(0, 0.2, theta.shape)
    q = None if q is None else q + rng.normal(0, 0.3, q.shape)
    return theta, q


@pytest.mark.parametrize("items", [False, True])
@pytest.mark.parametrize("centred", CENTRINGS)
def test_log_density_is_numpyros_model_density(items, centred):
    from numpyro.infer.util import log_density

    table = _table()
    obs, *_ = lm._logistic_data(table, table.models, table.tasks, items, None)
    centred = {lv: c for lv, c in centred.items() if items or lv != "item"}
    lay = co.layout(obs, 4, 3, centred)
    rng = np.random.default_rng(1)
    arrays = {k: (jnp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in obs.items()}
    kwargs = dict(arrays, n_models=4, n_tasks=3, centred=centred)
    mine, theirs = [], []
    with jax.enable_x64(True):
        for _ in range(3):  # differences between points: the constants cancel, every sigma-dependence stays
            theta, q = _point(lay, rng)
            eff = co.split_effects(lay, theta, q, xp=np)
            params = {"intercept": eff["intercept"]}
            for lv in lay.levels:
                params[f"sigma_{lv}"] = eff["sigma"][lv]
                name = lm.LEVELS[lv][0]
                u = theta[lay.slices[lv]] if lv != "item" else None
                if lv in ("model", "task", "model_task"):
                    value = eff[lv] if centred[lv] else eff[lv] / eff["sigma"][lv]
                    params[name if centred[lv] else f"{name}_z"] = value
                elif lv == "cluster":
                    params[f"{name}_free"] = u
                else:  # items: NumPyro's free values are the ragged map's coordinates of the centred q
                    qc = co.centre(q, lay)
                    jac = np.stack([lm.ragged_zero_sum(r, obs["item_index"], xp=np)
                                    for r in np.eye(obs["item_index"]["free"].shape[0])])
                    params[f"{name}_free"] = jac @ qc
            lp_np, _ = log_density(lm._logistic_model, (), kwargs, {k: jnp.asarray(v) for k, v in params.items()})
            lam = theta[lay.slices["log_sigma"]]
            extra = lam.sum()  # our density is over log sigma: its Jacobian
            if items:  # our ambient item values carry their group means, with their prior
                sizes = co.group_sizes(lay)
                gm = co.group_mean(q, lay)
                s_item = eff["sigma"]["item"]
                i = lay.levels.index("item")
                used = sizes > 0
                if centred["item"]:
                    extra += -used.sum() * lam[i] - 0.5 * np.sum(sizes * gm ** 2) / s_item ** 2
                else:
                    extra += -0.5 * np.sum(sizes * gm ** 2)
            mine.append(float(co.log_density(lay, jnp.asarray(theta), None if q is None else jnp.asarray(q))))
            theirs.append(float(lp_np) + extra)
    np.testing.assert_allclose(np.diff(mine), np.diff(theirs), rtol=1e-9, atol=1e-8)
    assert np.ptp(mine) > 1  # the points differ: the comparison is not trivial


@pytest.mark.parametrize("centred", CENTRINGS)
def test_structured_hessian_equals_autodiff(centred):
    table = _table(seed=2)
    obs, *_ = lm._logistic_data(table, table.models, table.tasks, True, None)
    lay = co.layout(obs, 4, 3, centred)
    theta, q = _point(lay, np.random.default_rng(3))
    q = co.centre(q, lay)
    ng = lay.n_global
    with jax.enable_x64(True):
        f = lambda x: co.log_density(lay, x[:ng], x[ng:], group_means=False)
        full = -np.asarray(jax.hessian(f)(jnp.asarray(np.r_[theta, q])))
        glob, coupling, diag = lf.precision(lay, theta, q, lf._jax_fns(lay))
    np.testing.assert_allclose(glob, full[:ng, :ng], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(coupling.dense(lay.item_cell), full[:ng, ng:], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(diag, np.diag(full[ng:, ng:]), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(full[ng:, ng:], np.diag(np.diag(full[ng:, ng:])), atol=1e-12)  # an arrowhead


def test_mode_has_zero_gradient_on_the_constraints():
    table = _table(seed=4, n_items=60)
    obs, _, _, _, info, _ = lm._logistic_data(table, table.models, table.tasks, True, None)
    centred = dict.fromkeys(info, False) | {"model": True}
    lay, theta, q, prec, steps, val, switched = lf.mode_and_precision(obs, 4, 3, centred)
    assert switched == () and steps < 30
    np.testing.assert_allclose(co.group_sum(q, lay), 0.0, atol=1e-10)  # items sum to zero in each cluster
    with jax.enable_x64(True):
        g_t, g_q = jax.grad(lambda t, x: co.log_density(lay, t, x, group_means=False), argnums=(0, 1))(
            jnp.asarray(theta), jnp.asarray(q))
    g_t, g_q = np.asarray(g_t), co.centre(np.asarray(g_q), lay)  # the gradient on the constraints' subspace
    assert np.abs(g_t).max() < 1e-3 and np.abs(g_q).max() < 1e-3
    # the Newton decrement g' P^-1 g: the mode is within ~0.001 posterior sd of the returned point
    s_t, s_q = prec.constrained_solve(g_t, g_q, lay.item_cell, lay.n_cells)
    assert g_t @ s_t + g_q @ s_q < 1e-5
    assert val > float(co.log_density(lay, jnp.asarray(theta + 0.01), jnp.asarray(q), group_means=False))


def test_collapsing_centred_levels_are_switched_to_non_centred():
    # 3 clusters per task and 30 scores per item pair: centred cluster and item densities have no interior mode
    table = _table(seed=0)
    obs, *_ = lm._logistic_data(table, table.models, table.tasks, True, None)
    centred = dict.fromkeys(("model", "task", "model_task", "cluster", "item"), True)
    lay, *_, switched = lf.mode_and_precision(obs, 4, 3, centred)
    assert set(switched) <= {"cluster", "item", "model_task", "task"} and switched
    assert all(not lay.centred[lv] for lv in switched)
    with pytest.raises(lf.ModeNotFound) as err:
        lf.find_mode(co.layout(obs, 4, 3, centred))
    assert err.value.levels and "collapsed" in str(err.value)


@pytest.mark.parametrize("block", [False, True])
def test_whitening_maps_standard_normals_to_the_gaussian_approximation(block):
    table = _table(seed=5, n_items=20)
    obs, *_ = lm._logistic_data(table, table.models, table.tasks, True, None)
    centred = {"model": True, "task": False, "model_task": False, "cluster": False, "item": False}
    lay, theta, q, prec, *_ = lf.mode_and_precision(obs, 4, 3, centred)
    make = wh.block_whitening if block else wh.whitening
    w = make(lay, theta, q, prec, dtype=np.float64)
    ng, K, G = lay.n_global, lay.n_items, lay.n_cells
    t0, q0 = w(np.zeros((1, w.dim)), xp=np)
    np.testing.assert_allclose(t0[0], theta, atol=1e-12) and np.testing.assert_allclose(q0[0], q, atol=1e-12)
    tt, qq = w(np.eye(w.dim), xp=np)  # the rows of the map's linear part
    lin = np.c_[tt - theta, qq - q]
    assert np.linalg.matrix_rank(lin) == w.dim  # invertible: a change of variables, the target is unchanged
    cov = lin.T @ lin
    # the Gaussian approximation: N(mode, P^-1) conditioned on the group sums (kriging), plus the group means
    p_full = np.block([[prec.glob, prec.cross], [prec.cross.T, np.diag(prec.diag)]])
    a = np.zeros((G, ng + K))
    a[lay.item_cell, ng + np.arange(K)] = 1.0
    p_inv = np.linalg.inv(p_full)
    sigma = p_inv - p_inv @ a.T @ np.linalg.solve(a @ p_inv @ a.T, a @ p_inv)
    sizes = co.group_sizes(lay)
    b = np.zeros((ng + K, G))
    b[ng + np.arange(K), lay.item_cell] = 1.0
    sigma = sigma + b @ np.diag(1.0 / sizes) @ b.T  # non-centred items: group means N(0, 1 / n)
    if not block:
        np.testing.assert_allclose(cov, sigma, atol=1e-10)
    else:  # the block map keeps the global marginal and the items' conditional, without their coupling
        np.testing.assert_allclose(cov[:ng, :ng], sigma[:ng, :ng], atol=1e-10)
        np.testing.assert_allclose(cov[:ng, ng:], 0.0, atol=1e-12)
        d_inv, a_d = np.diag(1.0 / prec.diag), a[:, ng:]
        items = d_inv - d_inv @ a_d.T @ np.linalg.solve(a_d @ d_inv @ a_d.T, a_d @ d_inv)
        items = items + b[ng:] @ np.diag(1.0 / sizes) @ b[ng:].T
        np.testing.assert_allclose(cov[ng:, ng:], items, atol=1e-10)


def test_marginal_mode_of_the_scales_solves_their_laplace_score():
    # the table whose centred joint mode collapses (test above): the scales' marginal mode exists
    from evalband.bayes import _laplace_marginal as lmg

    table = _table(seed=0)
    obs, *_ = lm._logistic_data(table, table.models, table.tasks, True, None)
    centred = dict.fromkeys(("model", "task", "model_task", "cluster", "item"), True)
    lay, theta, q, prec, iterations, val, switched = lmg.marginal_mode_and_precision(obs, 4, 3, centred)
    assert switched == () and iterations < 100
    sigma = np.exp(theta[lay.slices["log_sigma"]])
    assert sigma.min() > 0.01  # nothing collapsed
    with jax.enable_x64(True):
        fns = lf._jax_fns(lay)
        theta, q, cprec, _, _ = lmg.conditional_mode(lay, theta, q, fns)
    _, score = lmg._scores(lay, theta, q, lmg.level_traces(lay, cprec))
    assert max(abs(v) for v in score.values()) < 1e-2, score  # d log p(log s | y) / d log s = 0 (Laplace)
    # the traces are those of the conditional covariance: compare with the dense inverse
    ng, L = lay.n_global, lay.slices["log_sigma"].stop
    p = np.block([[cprec.glob, cprec.cross], [cprec.cross.T, np.diag(cprec.diag)]])
    a = np.zeros((lay.n_cells, p.shape[0]))
    a[lay.item_cell, ng - L + np.arange(lay.n_items)] = 1.0
    p_inv = np.linalg.inv(p)
    sigma_c = p_inv - p_inv @ a.T @ np.linalg.solve(a @ p_inv @ a.T, a @ p_inv)
    traces = lmg.level_traces(lay, cprec)
    np.testing.assert_allclose(traces["item"], np.trace(sigma_c[ng - L:, ng - L:]), rtol=1e-8)
    sl = lay.slices["model_task"]
    np.testing.assert_allclose(traces["model_task"], np.trace(sigma_c[sl.start - L:sl.stop - L,
                                                                      sl.start - L:sl.stop - L]), rtol=1e-8)
    # the returned precision's log-scale marginal is the curvature found, and it is positive definite
    cov = np.linalg.inv(np.block([[prec.glob, prec.cross], [prec.cross.T, np.diag(prec.diag)]]))
    assert np.all(np.linalg.eigvalsh(prec.glob - (prec.cross / prec.diag) @ prec.cross.T) > 0)
    assert np.all(np.diag(cov)[:L] > 0)
