"""The mixed-model system behind REML (facets/_mixed.py) against the dense formulas it replaces."""

import itertools

import numpy as np
import pytest

from evalband.facets._mixed import MixedSystem


def _codes(factors, subset):
    """Level of the combination of ``subset`` of the factor columns in each cell, coded 0..L-1."""
    return np.unique(factors[:, list(subset)], axis=0, return_inverse=True)[1].reshape(-1)


def _crossed(rng, shape=(12, 4, 3), drop=0.2):
    """Cells of a crossed design with missing cells; terms: every combination but the cell itself."""
    cells = np.array(list(itertools.product(*map(range, shape))))
    cells = cells[rng.random(len(cells)) >= drop]
    k = cells.shape[1]
    terms = [s for r in range(1, k) for s in itertools.combinations(range(k), r)]
    return [_codes(cells, t) for t in terms]


def _nested(rng):
    """Items in clusters, crossed with prompts: cluster, item (within cluster), prompt, cluster x prompt."""
    item = np.repeat(np.arange(18), 4)
    prompt = np.tile(np.arange(4), 18)
    cluster = item // 6
    keep = rng.random(item.size) >= 0.15
    f = np.column_stack([cluster, item, prompt])[keep]
    return [_codes(f, (0,)), _codes(f, (1,)), _codes(f, (2,)), _codes(f, (0, 2))]


def _judges(rng):
    """Judges nested within items (3 of 9 per item), crossed with 3 prompts: item, prompt, item x prompt,
    judge within item (the judge code numbered within item)."""
    rows = []
    for i in range(15):
        for j in rng.choice(9, 3, replace=False):
            for p in range(3):
                if rng.random() > 0.1:
                    rows.append((i, j, p))
    f = np.array(rows)
    return [_codes(f, (0,)), _codes(f, (2,)), _codes(f, (0, 2)), _codes(f, (0, 1))]


DESIGNS = {"crossed": _crossed, "nested": _nested, "judges": _judges,
           "one term": lambda rng: [rng.integers(0, 7, 40)], "no terms": lambda rng: []}


def _lams(rng, n):
    """Standard deviations of the terms: all positive, then the first at 0."""
    lam = rng.uniform(0.2, 2.0, n)
    return [lam, np.r_[0.0, lam[1:]]] if n else [lam]


def _dense(y, codes, lam, w):
    """log|A|, r'A^-1 r, intercept, and P y, diag P, tr(Z_T'PZ_T), ||Z_T'Py||^2 from V = Z L^2 Z' + W^-1."""
    c = y.size
    zs = [np.eye(k.max() + 1)[k] for k in codes]
    z = np.hstack(zs) if zs else np.zeros((c, 0))
    lam_c = np.concatenate([np.full(zz.shape[1], s) for zz, s in zip(zs, lam)]) if zs else np.zeros(0)
    x = np.column_stack([z * lam_c, np.ones(c)])
    a = x.T @ (w[:, None] * x) + np.diag(np.r_[np.ones(z.shape[1]), 0.0])
    r = x.T @ (w * y)
    sol = np.linalg.solve(a, r)
    v = (z * lam_c ** 2) @ z.T + np.diag(1 / w)
    vi = np.linalg.inv(v)
    one = np.ones(c)
    p = vi - np.outer(vi @ one, one @ vi) / (one @ vi @ one)
    py = p @ y
    return {"logdet": np.linalg.slogdet(a)[1], "quad": r @ sol, "beta": sol[-1], "py": py, "p_diag": np.diag(p),
            "trace": np.array([np.trace(zz.T @ p @ zz) for zz in zs]),
            "ztpy2": np.array([np.sum((zz.T @ py) ** 2) for zz in zs])}


@pytest.mark.parametrize("name", list(DESIGNS))
@pytest.mark.parametrize("layout", ["block", "sparse"])
def test_solve_equals_the_dense_mixed_model_equations(name, layout):
    rng = np.random.default_rng(3)
    codes = DESIGNS[name](rng)
    c = codes[0].size if codes else 30
    y = rng.normal(size=c)
    w = rng.uniform(0.5, 2.0, c)
    system = MixedSystem(y, codes, layout=layout)
    for lam in _lams(rng, len(codes)):
        got = system.solve(lam, w)
        ref = _dense(y, codes, lam, w)
        assert got == pytest.approx((ref["logdet"], ref["quad"], ref["beta"]), rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("name", list(DESIGNS))
def test_derivatives_equal_the_dense_traces(name):
    rng = np.random.default_rng(4)
    codes = DESIGNS[name](rng)
    c = codes[0].size if codes else 30
    y = rng.normal(size=c)
    w = rng.uniform(0.5, 2.0, c)
    system = MixedSystem(y, codes, layout="block")
    # a term at 0 too: the traces must hold on the boundary (no division by the standard deviation)
    for lam in _lams(rng, len(codes)):
        got = system.derivatives(lam, w)
        ref = _dense(y, codes, lam, w)
        for key, value in ref.items():
            np.testing.assert_allclose(got[key], value, rtol=1e-9, atol=1e-10, err_msg=key)


def test_the_sparse_layout_has_no_analytic_derivatives():
    rng = np.random.default_rng(5)
    codes = _crossed(rng)
    assert MixedSystem(rng.normal(size=codes[0].size), codes, layout="sparse").derivatives(
        np.ones(len(codes)), np.ones(codes[0].size)) is None


def test_items_group_the_levels_of_an_items_x_prompts_x_seeds_design():
    # the cheapest grouping keeps item, item x prompt, item x seed in per-item blocks (1 + 6 + 3 levels) and the
    # 6 prompts, 3 seeds, 18 prompt x seed levels and the intercept global
    rng = np.random.default_rng(6)
    codes = _crossed(rng, shape=(60, 6, 3), drop=0.15)
    system = MixedSystem(rng.normal(size=codes[0].size), codes)
    assert system.layout == "block"
    assert (system.n_groups, system.b, system.g) == (60, 10, 28)


def test_unknown_layout_is_an_error():
    with pytest.raises(ValueError, match="`layout`"):
        MixedSystem(np.zeros(3), [np.array([0, 1, 1])], layout="dense")
