"""Bootstrap engine: exactness against the definition, reproducibility, analytic standard errors."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

from evalband._validate import InputError
from evalband.resample import ItemColumns, Replicates, bootstrap
from evalband.resample._kernels import (HAVE_NUMBA, block_generator, block_size, draw_indices, name_key,
                                        use_backend)
from evalband.data.table import ResultsTable


def _long(scores: dict, clusters=None) -> pd.DataFrame:
    """scores: task -> (M, n) array -> long item-level frame."""
    rows = []
    for task, mat in scores.items():
        for m in range(mat.shape[0]):
            for i in range(mat.shape[1]):
                row = {"model": f"m{m}", "task": task, "item": f"{task}-{i}", "score": mat[m, i]}
                if clusters is not None:
                    row["cluster"] = f"c{clusters[task][i]}"
                rows.append(row)
    return pd.DataFrame(rows)


@pytest.fixture
def small_table(rng):
    scores = {"a": (rng.random((3, 40)) < 0.7).astype(float), "b": (rng.random((3, 25)) < 0.4).astype(float)}
    return ResultsTable.from_items(_long(scores)), scores


def test_replicates_equal_the_definition(small_table):
    """Each replicate is the item mean over indices drawn from the documented stream (paired: same for all)."""
    table, scores = small_table
    reps = bootstrap(table, n_resamples=50, rng=7)
    assert isinstance(reps, Replicates) and reps.replicates.shape == (50, 3, 2)
    entropy = reps._entropy
    for t, task in enumerate(table.tasks):
        n = scores[task].shape[1]
        assert block_size(n) >= 50
        idx = draw_indices(block_generator(entropy, (name_key(task), 0)), n, (50,))
        expected = scores[task][:, idx].mean(axis=2).T  # (B, M)
        np.testing.assert_allclose(reps.replicates[:, :, t], expected, rtol=0, atol=1e-14)
    np.testing.assert_allclose(reps.observed, np.stack([scores[t].mean(axis=1) for t in table.tasks], axis=1))


def test_same_seed_same_numbers_whatever_the_chunking(small_table):
    table, _ = small_table
    base = bootstrap(table, n_resamples=3000, rng=42)
    again = bootstrap(table, n_resamples=3000, rng=42)
    np.testing.assert_array_equal(base.replicates, again.replicates)
    chunked = bootstrap(table, n_resamples=3000, rng=42, chunk_size=1)
    np.testing.assert_array_equal(base.replicates, chunked.replicates)
    with ThreadPoolExecutor(2) as pool:
        threaded = bootstrap(table, n_resamples=3000, rng=42, executor=pool, chunk_size=700)
    np.testing.assert_array_equal(base.replicates, threaded.replicates)
    other = bootstrap(table, n_resamples=3000, rng=43)
    assert not np.array_equal(base.replicates, other.replicates)
    # a Generator works too, and its state advances
    gen = np.random.default_rng(5)
    r1, r2 = bootstrap(table, n_resamples=100, rng=gen), bootstrap(table, n_resamples=100, rng=gen)
    assert not np.array_equal(r1.replicates, r2.replicates)


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")
def test_numba_and_numpy_paths_identical(small_table):
    table, _ = small_table
    with use_backend("numpy"):
        a = bootstrap(table, n_resamples=1500, rng=3)
        ai = bootstrap(table, n_resamples=500, rng=3, resampling="independent")
    with use_backend("numba"):
        b = bootstrap(table, n_resamples=1500, rng=3)
        bi = bootstrap(table, n_resamples=500, rng=3, resampling="independent")
    np.testing.assert_array_equal(a.replicates, b.replicates)
    np.testing.assert_array_equal(ai.replicates, bi.replicates)


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")
@pytest.mark.parametrize("n_units,rows", [(7, 5), (1000, 3), (3 * 2**20 + 1, 3)])
def test_kernel_reproduces_the_reference_draws(n_units, rows):
    """The numba kernel (SFC64 re-implemented) counts exactly the indices of the NumPy reference definition,
    including skipped (rejected) chunks: 3 * 2**20 + 1 units reject about 1 chunk in 4,000."""
    from evalband.resample._kernels import draw_counts

    key = (n_units, rows)
    idx = draw_indices(block_generator((1, 2, 3, 4), key), n_units, (rows,))
    expected = np.stack([np.bincount(r, minlength=n_units) for r in idx]).astype(np.float32)
    with use_backend("numba"):
        got = draw_counts(block_generator((1, 2, 3, 4), key), n_units, rows, np.float32)
    with use_backend("numpy"):
        ref = draw_counts(block_generator((1, 2, 3, 4), key), n_units, rows, np.float32)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(ref, expected)
    # the stream is NumPy's SFC64: the first draws follow from random_raw by hand (Lemire, low half first)
    if n_units == 7:
        words = block_generator((1, 2, 3, 4), key).bit_generator.random_raw(4)
        chunks = np.array([w & 0xFFFFFFFF if h == 0 else w >> 32 for w in map(int, words) for h in (0, 1)])
        first = [(c * 7) >> 32 for c in chunks if (c * 7) % 2**32 >= 2**32 % 7]
        assert idx.ravel()[:len(first)].tolist() == first


@pytest.mark.parametrize("resampling", ["paired", "independent"])
def test_permuting_models_permutes_results(small_table, resampling):
    table, _ = small_table
    order = ["m2", "m0", "m1"]
    a = bootstrap(table, n_resamples=400, rng=9, resampling=resampling)
    b = bootstrap(table, n_resamples=400, rng=9, resampling=resampling, models=order)
    perm = [a.models.index(m) for m in order]
    assert b.models == tuple(order)
    np.testing.assert_allclose(b.replicates, a.replicates[:, perm, :], rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(b.observed, a.observed[perm])
    # a task's replicates do not depend on which other tasks are analysed
    c = bootstrap(table, n_resamples=400, rng=9, resampling=resampling, tasks=["b"])
    np.testing.assert_allclose(c.replicates[:, :, 0], a.replicates[:, :, 1], rtol=1e-15, atol=1e-15)


def test_bootstrap_sd_matches_analytic_se(rng):
    """Theory: the bootstrap variance of a mean is the plug-in variance / n (paired difference: of d_i)."""
    n, b = 400, 20_000
    x = rng.normal(size=(2, n)) + np.array([[0.0], [0.5]])
    x[1] += 0.8 * x[0]
    cols = ItemColumns(["a", "b"], ["t"], {"t": {"score": x}})
    reps = bootstrap(cols, statistic="mean", n_resamples=b, rng=1)
    sd = reps.replicates[:, :, 0].std(axis=0, ddof=1)
    theory = x.std(axis=1, ddof=0) / np.sqrt(n)
    mc = theory / np.sqrt(2 * (b - 1))  # Monte Carlo SD of a sample SD
    assert np.all(np.abs(sd - theory) < 4 * mc)
    diff = reps.replicates[:, 0, 0] - reps.replicates[:, 1, 0]
    theory_d = (x[0] - x[1]).std(ddof=0) / np.sqrt(n)
    assert abs(diff.std(ddof=1) - theory_d) < 4 * theory_d / np.sqrt(2 * (b - 1))
    # paired difference is far more precise than treating models as independent
    assert theory_d < 0.7 * np.sqrt((theory ** 2).sum())


def test_cluster_bootstrap_sd_matches_cluster_theory(rng):
    """Equal cluster sizes: the replicate mean is a mean of K resampled cluster means: SD = sd_plugin(cm)/sqrt(K)."""
    k, m, b = 60, 4, 20_000
    cm = rng.normal(size=k)
    x = (cm[:, None] + 0.3 * rng.normal(size=(k, m))).reshape(1, -1)
    cols = ItemColumns(["a"], ["t"], {"t": {"score": x}}, clusters={"t": np.repeat(np.arange(k), m)})
    reps = bootstrap(cols, n_resamples=b, rng=2)
    assert reps.unit == "cluster" and reps.n_units.tolist() == [k]
    theory = x.reshape(k, m).mean(axis=1).std(ddof=0) / np.sqrt(k)
    assert abs(reps.replicates[:, 0, 0].std(ddof=1) - theory) < 4 * theory / np.sqrt(2 * (b - 1))


def test_binomial_summary_sd_matches_binomial_se():
    df = pd.DataFrame({"model": ["a", "a", "b", "b"], "task": ["x", "y", "x", "y"], "n": [200, 50, 200, 50],
                       "correct": [150, 10, 100, 45]})
    reps = bootstrap(ResultsTable.from_summary(df), n_resamples=20_000, rng=4)
    assert reps.resampling == "binomial"
    assert any("necessarily treated as independent" in n for n in reps.notes)
    p = np.array([[0.75, 0.2], [0.5, 0.9]])
    theory = np.sqrt(p * (1 - p) / np.array([200, 50]))
    sd = reps.replicates.std(axis=0, ddof=1)
    assert np.all(np.abs(sd - theory) < 4 * theory / np.sqrt(2 * 19_999))
    np.testing.assert_allclose(reps.observed, p)
    with pytest.raises(InputError, match="paired resampling needs item-level"):
        bootstrap(ResultsTable.from_summary(df), resampling="paired")


def test_statistical_equivalence_with_the_naive_loop(rng):
    """Seed 000's loop (per model, replicate and task, choice of items) gives the same bootstrap SDs."""
    m, t, n, b = 3, 4, 60, 2000
    scores = {f"t{k}": (rng.random((m, n)) < rng.uniform(0.3, 0.9, size=(m, 1))).astype(float) for k in range(t)}
    table = ResultsTable.from_items(_long(scores))
    reps = bootstrap(table, n_resamples=b, rng=5)
    engine_sd = reps.replicates.mean(axis=2).std(axis=0, ddof=1)
    gen = np.random.default_rng(6)
    naive = np.empty((m, b))
    for i in range(m):
        for r in range(b):
            naive[i, r] = np.mean([np.mean(gen.choice(scores[k][i], size=n, replace=True)) for k in scores])
    naive_sd = naive.std(axis=1, ddof=1)
    # two independent SD estimates, each with Monte Carlo SD about sd / sqrt(2 (B - 1))
    z = (engine_sd - naive_sd) / (np.sqrt(2) * naive_sd / np.sqrt(2 * (b - 1)))
    assert np.all(np.abs(z) < 4), z
    np.testing.assert_allclose(reps.observed.mean(axis=1), [np.mean([scores[k][i].mean() for k in scores])
                                                             for i in range(m)])


def test_jackknife_closed_form_and_clusters(rng):
    x = rng.random((2, 30))
    cols = ItemColumns(["a", "b"], ["t", "u"], {"t": {"score": x}, "u": {"score": x[:, :10]}})
    reps = bootstrap(cols, n_resamples=10, rng=1)
    jack = reps.jackknife()
    assert jack.shape == (40, 2, 2)
    np.testing.assert_allclose(jack[:30, :, 0], ((30 * x.mean(axis=1))[:, None] - x).T / 29)
    np.testing.assert_allclose(jack[:30, :, 1], np.broadcast_to(reps.observed[:, 1], (30, 2)))
    np.testing.assert_array_equal(reps.jackknife_strata(), np.repeat([0, 1], [30, 10]))
    codes = np.repeat(np.arange(6), 5)
    cl = ItemColumns(["a", "b"], ["t"], {"t": {"score": x}}, clusters={"t": codes})
    jc = bootstrap(cl, n_resamples=10, rng=1).jackknife()
    assert jc.shape == (6, 2, 1)
    for c in range(6):
        np.testing.assert_allclose(jc[c, :, 0], x[:, codes != c].mean(axis=1))


def test_table_clusters_trials_and_notes():
    rows = []
    for model, base in (("a", 0.8), ("b", 0.4)):
        for item in range(12):
            for trial in range(3):
                rows.append({"model": model, "task": "t", "item": item, "trial": trial, "cluster": item // 3,
                             "score": float((item + trial) % 5 < 5 * base)})
    table = ResultsTable.from_items(pd.DataFrame(rows))
    reps = bootstrap(table, n_resamples=200, rng=1)
    assert reps.unit == "cluster" and reps.n_units.tolist() == [4]
    assert any("trials stay with their item" in n for n in reps.notes)
    assert any("few clusters" in n for n in reps.notes)
    td = table.task_data("t")
    np.testing.assert_allclose(reps.observed[:, 0], td.scores.mean(axis=1))
    items = bootstrap(table, n_resamples=200, rng=1, cluster=False)
    assert items.unit == "item" and items.n_units.tolist() == [12]
    with pytest.raises(InputError, match="no cluster column"):
        bootstrap(ResultsTable.from_items(pd.DataFrame(rows).drop(columns="cluster")), cluster=True)


def test_to_frame_and_argument_errors(small_table):
    table, _ = small_table
    reps = bootstrap(table, n_resamples=100, rng=1)
    frame = reps.to_frame()
    assert list(frame.columns) == ["model", "task", "estimate", "se", "n"]
    assert len(frame) == 6 and frame["n"].tolist() == [40, 25] * 3
    with pytest.raises(ValueError, match="'paired', 'independent'"):
        bootstrap(table, resampling="pairs")
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap(table, n_resamples=1)
    with pytest.raises(TypeError, match="executor"):
        bootstrap(table, executor=object())
    with pytest.raises(ValueError, match="`statistic` must be one of 'mean', 'f1', 'macro-f1'"):
        bootstrap(table, statistic="median")


def test_progress_is_silent_off_terminal(small_table, capsys):
    table, _ = small_table
    bootstrap(table, n_resamples=5000, rng=1)
    out = capsys.readouterr()
    assert out.err == "" and out.out == ""


def test_summary_jackknife_is_the_virtual_item_jackknife():
    df = pd.DataFrame({"model": ["a", "b"], "task": ["x", "x"], "n": [10, 10], "correct": [7, 2]})
    reps = bootstrap(ResultsTable.from_summary(df), n_resamples=50, rng=1)
    jack = reps.jackknife()
    assert jack.shape == (10, 2, 1)
    # deleting one of k correct items gives (k - 1) / 9, one of the n - k wrong ones k / 9
    assert sorted(jack[:, 0, 0].tolist()) == [6 / 9] * 7 + [7 / 9] * 3
    assert sorted(jack[:, 1, 0].tolist()) == [1 / 9] * 2 + [2 / 9] * 8
    unequal = pd.DataFrame({"model": ["a", "b"], "task": ["x", "x"], "n": [10, 12], "correct": [7, 2]})
    r2 = bootstrap(ResultsTable.from_summary(unequal), n_resamples=50, rng=1)
    assert r2.jackknife() is None and any("jackknife" in n for n in r2.notes)


def test_progress_bar_forced_passes_results_through():
    from evalband._progress import track

    assert list(track(iter(range(5)), 5, progress=True)) == list(range(5))
    assert list(track(iter(range(5)), 5, progress=False)) == list(range(5))
