"""Threads in the bootstrap (issue 14): every core by default, ``threads=`` / ``use_threads`` / ``--threads`` to
choose, and byte-identical replicates for 1 and 2 threads.

Oracle: the one-thread run (``threads=1``: every block drawn in the calling thread, in order), which
tests/resample/test_engine.py checks against the definition of each replicate. The threaded runs must equal it
byte for byte: paired items, whole clusters (MMLU-Pro categories' sources), independent resampling of models with
different items, and binomial draws of summary counts.
"""

from __future__ import annotations

import json
import threading

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband._validate import ArgumentError
from evalband.cli.main import app
from evalband.resample import available_cores, bootstrap, engine, use_threads
from evalband.data.table import ResultsTable


def _items(seed: int, *, clusters: bool = False, ragged: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for t, n in (("t1", 300), ("t2", 120), ("t3", 40)):
        for m in range(4):
            for i in range(n):
                if ragged and m == 0 and i % 3 == 0:
                    continue
                rows.append({"model": f"m{m}", "task": t, "item": f"{t}-{i}", "cluster": f"c{i // 6}",
                             "score": float(rng.random() < 0.4 + 0.1 * m)})
    df = pd.DataFrame(rows)
    return df if clusters else df.drop(columns="cluster")


CASES = {
    "paired": lambda: dict(data=ResultsTable.from_items(_items(1))),
    "clusters": lambda: dict(data=ResultsTable.from_items(_items(2, clusters=True))),
    "independent": lambda: dict(data=ResultsTable.from_items(_items(3, ragged=True)), resampling="independent"),
    "summary": lambda: dict(data=pd.DataFrame({"model": ["a", "b", "a", "b"], "task": ["x", "x", "y", "y"],
                                               "correct": [70, 55, 300, 310], "n": [100, 100, 500, 500]})),
}


@pytest.mark.parametrize("case", list(CASES))
def test_one_and_two_threads_give_the_same_bytes(case):
    kwargs = CASES[case]()
    one = bootstrap(**kwargs, n_resamples=3001, rng=11, threads=1, progress=False)
    two = bootstrap(**kwargs, n_resamples=3001, rng=11, threads=2, progress=False)
    assert one.replicates.tobytes() == two.replicates.tobytes()
    assert one.observed.tobytes() == two.observed.tobytes()
    assert one.unit == two.unit and one.notes == two.notes


def test_threads_do_the_work(monkeypatch):
    """With 2 threads the blocks run on the pool's threads, in more units than tasks; with 1, in this thread."""
    seen = []
    run = engine._run_job

    def spy(job):
        seen.append((threading.current_thread().name, job[1], job[2]))
        return run(job)

    monkeypatch.setattr(engine, "_run_job", spy)
    table = ResultsTable.from_items(_items(4))
    bootstrap(table, n_resamples=5000, rng=1, threads=2, progress=False)
    assert {name.split("_")[0] for name, _, _ in seen} == {"evalband-bootstrap"}
    assert len(seen) > 3  # 3 tasks split into smaller units so both threads stay busy
    seen.clear()
    bootstrap(table, n_resamples=5000, rng=1, threads=1, progress=False)
    assert {name for name, _, _ in seen} == {threading.current_thread().name} and len(seen) == 3


def test_default_is_every_core_and_use_threads_sets_it(monkeypatch):
    assert available_cores() >= 1
    assert engine.thread_count(None) == available_cores()
    with use_threads(1):
        assert engine.thread_count(None) == 1
        assert engine.thread_count(3) == 3  # a call's own threads= wins
    assert engine.thread_count(None) == available_cores()
    with pytest.raises(ArgumentError, match="`threads`"):
        bootstrap(ResultsTable.from_items(_items(5)), n_resamples=10, threads=0)
    with pytest.raises(ArgumentError, match="`threads`"):
        with use_threads(0):
            pass


@pytest.mark.parametrize("command", ["compare", "rank"])
def test_cli_threads_same_json(command, tmp_path):
    path = tmp_path / "r.csv"
    _items(6, clusters=True).to_csv(path, index=False)
    out = {}
    for threads in ("1", "2"):
        res = CliRunner().invoke(app, [command, str(path), "--n-resamples", "500", "--seed", "3", "--threads",
                                       threads, "--format", "json"])
        assert res.exit_code == 0, res.stderr
        out[threads] = res.stdout
    assert out["1"] == out["2"]
    json.loads(out["1"])
    res = CliRunner().invoke(app, [command, str(path), "--threads", "0"])
    assert res.exit_code == 2 and "--threads" in res.stderr
