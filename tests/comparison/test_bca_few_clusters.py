"""BCa intervals need the jackknife of an ordinary bootstrap: with few clusters compare and rank use the cluster
bootstrap and say that the small-cluster correction is not applied; with random facets they refuse, naming the
ways out (percentile intervals, or the facets fixed)."""

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband._validate import ArgumentError
from evalband.resample.dispatch import BCA_FEW_CLUSTERS_NOTE


def _table(prompts=False):
    rng = np.random.default_rng(3)
    rows = []
    for m, skill in (("a", 0.2), ("b", 0.0)):
        for i in range(60):
            for p in (("p1", "p2") if prompts else (None,)):
                row = dict(model=m, task="t", item=i, cluster=f"c{i % 6}", score=int(rng.random() < 0.5 + skill))
                if p:
                    row["prompt"] = p
                rows.append(row)
    return eb.read(pd.DataFrame(rows))


def test_bca_with_few_clusters_uses_the_cluster_bootstrap_and_says_so():
    table = _table()
    c = eb.compare(table, method="bca", n_resamples=300, rng=0, per_task=False)
    assert BCA_FEW_CLUSTERS_NOTE in c.notes
    r = eb.rank(table, method="bca", n_resamples=300, rng=0)
    assert BCA_FEW_CLUSTERS_NOTE in r.notes
    default = eb.compare(table, n_resamples=300, rng=0, per_task=False)
    assert BCA_FEW_CLUSTERS_NOTE not in default.notes  # percentile: the corrected wild replicates


def test_bca_with_random_facets_is_refused_with_the_ways_out():
    with pytest.raises(ArgumentError, match="jackknife.*percentile intervals.*`fixed`"):
        eb.compare(_table(prompts=True), method="bca", n_resamples=200, rng=0)
    ok = eb.compare(_table(prompts=True), method="bca", n_resamples=200, rng=0, fixed="prompt", per_task=False)
    assert ok.aggregates[0].ci.low.shape == (1,)
