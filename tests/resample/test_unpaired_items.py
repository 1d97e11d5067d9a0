"""Items that are not the same test item across models (runs of independent seeds) are never paired.

Oracle: theory. Resampling each model on its own n_m runs gives a bootstrap SD of the mean equal to the plug-in
SD / sqrt(n_m) within Monte Carlo error; before the fix, 'independent' silently used only the runs every model
shared (5 of 100 for SPR beside SimPLe).
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband._validate import InputError
from evalband.data.table import ResultsTable

from ..conftest import FIXTURES


def _unpaired_table(rng):
    rows = []
    for model, n, mu in (("A", 100, 1.0), ("B", 5, 2.0)):
        for task in ("t1", "t2"):
            rows += [dict(model=model, task=task, item=str(i), score=rng.normal(mu, 1.0)) for i in range(n)]
    table = ResultsTable.from_items(pd.DataFrame(rows), unbounded=True)
    return dataclasses.replace(table, paired_items=False), pd.DataFrame(rows)


def test_each_model_resampled_on_all_its_own_runs(rng):
    table, frame = _unpaired_table(rng)
    reps = eb.bootstrap(table, n_resamples=4000, rng=1)
    assert reps.resampling == "independent"
    stats = frame.groupby(["model", "task"], sort=True)["score"]
    mean = stats.mean().to_numpy().reshape(2, 2)
    plug_in_se = stats.agg(lambda x: x.std(ddof=0) / np.sqrt(len(x))).to_numpy().reshape(2, 2)
    np.testing.assert_allclose(reps.observed, mean, rtol=1e-12)
    sd = reps.replicates.std(axis=0, ddof=1)
    # Monte Carlo SE of a bootstrap SD with B = 4000 is about SD / sqrt(2 B) ~ 1.1%; allow 5 of them
    np.testing.assert_allclose(sd, plug_in_se, rtol=0.06)
    assert any("own items" in n for n in reps.notes)
    # same seed, other chunking: identical
    again = eb.bootstrap(table, n_resamples=4000, rng=1, chunk_size=700)
    np.testing.assert_array_equal(reps.replicates, again.replicates)


def test_pairing_unpaired_items_is_refused(rng):
    table, _ = _unpaired_table(rng)
    with pytest.raises(InputError, match="cannot be paired"):
        eb.bootstrap(table, resampling="paired")


def test_rliable_files_are_unpaired(tmp_path):
    spr = json.loads((FIXTURES / "atari100k" / "SPR.json").read_text())
    simple = json.loads((FIXTURES / "atari100k" / "SimPLe.json").read_text())
    (tmp_path / "SPR.json").write_text(json.dumps(spr))
    (tmp_path / "SimPLe.json").write_text(json.dumps(simple))
    table = eb.read(tmp_path, source="rliable")
    assert table.paired_items is False
    reps = eb.bootstrap(table, n_resamples=200, rng=0)
    assert reps.resampling == "independent"
    spr_means = np.array([np.mean(spr[t]) for t in reps.tasks])
    np.testing.assert_allclose(reps.observed[reps.models.index("SPR")], spr_means, rtol=1e-12)
