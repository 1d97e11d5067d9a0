"""Cluster-robust intervals in chunks of models: the numbers of one pass (oracle: the unchunked call)."""

import numpy as np


def test_rows_in_chunks_give_the_numbers_of_one_pass(monkeypatch):
    """The pooled estimate over 1e8 items runs the models in chunks; each model's numbers are its own."""
    from evalband.estimation import cluster as cl

    gen = np.random.default_rng(5)
    scores = (gen.random((7, 300)) < 0.6).astype(float)
    scores[2, :40] = np.nan
    clusters = np.repeat(np.arange(30), 10)
    for layout in (np.ascontiguousarray, np.asfortranarray):  # C and Fortran order (the table's arrays)
        x = layout(scores)
        monkeypatch.setattr(cl, "CHUNK_VALUES", 1 << 23)
        whole = cl.cluster_interval(x, clusters)
        for chunk in (1, 2, 3):  # 1 model a time asked: chunks of 2 rows at least, never a lone last row
            monkeypatch.setattr(cl, "CHUNK_VALUES", chunk * 300)
            split = cl.cluster_interval(x, clusters)
            for f in ("estimate", "se"):
                np.testing.assert_array_equal(getattr(split, f), getattr(whole, f))
            np.testing.assert_array_equal(split.ci.low, whole.ci.low)
            for k in ("n_clusters", "icc", "design_effect"):
                np.testing.assert_array_equal(split.extras[k], whole.extras[k])
