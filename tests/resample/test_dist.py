"""Dask glue: the engine's replicates are identical whatever the number of workers (and without Dask)."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")

from evalband.resample.distributed import DaskExecutor, dask_executor  # noqa: E402
from evalband.io import read  # noqa: E402
from evalband.resample import bootstrap  # noqa: E402


@pytest.fixture(scope="module")
def table():
    gen = np.random.default_rng(5)
    rows = []
    for t, n in (("a", 300), ("b", 40), ("c", 1200)):
        p = gen.uniform(0.2, 0.9, size=n)
        for m in range(4):
            hit = gen.random(n) < p
            rows.append(pd.DataFrame({"model": f"m{m}", "task": t, "item": np.arange(n), "score": hit.astype(int),
                                      "cluster": np.arange(n) // 10}))
    return read(pd.concat(rows, ignore_index=True))


@pytest.fixture(scope="module")
def reference(table):
    return bootstrap(table, n_resamples=2500, rng=2026)


@pytest.mark.parametrize("workers", [1, 2])
def test_same_seed_same_replicates_whatever_the_workers(table, reference, workers, monkeypatch):
    monkeypatch.setattr("evalband.resample.distributed.SCATTER_MIN_BYTES", 0)  # every task's data scattered once, by reference
    with dask_executor("local", n_workers=workers, processes=False) as ex:
        assert isinstance(ex, DaskExecutor)
        assert len(ex.client.scheduler_info()["workers"]) == workers
        reps = bootstrap(table, n_resamples=2500, rng=2026, executor=ex, chunk_size=300)
    np.testing.assert_array_equal(reps.replicates, reference.replicates)
    np.testing.assert_array_equal(reps.observed, reference.observed)
    assert reps.unit == reference.unit == "cluster"


def test_independent_resampling_and_no_scatter(table):
    ref = bootstrap(table, n_resamples=500, rng=3, resampling="independent", cluster=False)
    with dask_executor("local", n_workers=2, processes=False, scatter=False) as ex:
        reps = bootstrap(table, n_resamples=500, rng=3, resampling="independent", cluster=False, executor=ex)
    np.testing.assert_array_equal(reps.replicates, ref.replicates)


def test_missing_extra_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"pip install 'evalband\[dist\]'"):
        with dask_executor("local"):
            pass


def test_scheduler_argument_checked():
    with pytest.raises(TypeError, match="`scheduler`"):
        with dask_executor(""):
            pass


def test_cli_helper_without_scheduler_gives_no_executor():
    from evalband.cli._common import executor_for

    with executor_for(None) as ex:
        assert ex is None
