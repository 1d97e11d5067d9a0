"""BLAS on one thread inside the engine's workers, the user's limits before and after (issue 27)."""

import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from evalband._blas import single_threaded_blas
from evalband.resample import ItemColumns, bootstrap
from evalband.resample import engine


def _blas_threads() -> set[int]:
    """Threads of NumPy's BLAS (the library of the engine's products; SciPy's own, loaded later by numba's import,
    is not the engine's)."""
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas" and "numpy" in lib["filepath"]}


@pytest.fixture
def two_blas_threads():
    """The user's setting during the test: two BLAS threads (so that a limit to one is visible)."""
    if not _blas_threads():
        pytest.skip("NumPy's BLAS is not one that threadpoolctl controls (or not a NumPy wheel's)")
    with threadpool_limits(limits=2, user_api="blas"):
        yield


def test_one_blas_thread_inside_and_the_users_limits_after(two_blas_threads):
    assert _blas_threads() == {2}
    with single_threaded_blas():
        assert _blas_threads() == {1}
        with single_threaded_blas():  # nested: the inner block does not restore the outer's limit
            assert _blas_threads() == {1}
        assert _blas_threads() == {1}
    assert _blas_threads() == {2}
    with single_threaded_blas(enabled=False):
        assert _blas_threads() == {2}


def test_a_block_opened_meanwhile_never_leaves_the_limit_behind(two_blas_threads):
    """The block that set the limit restores it, whichever closes last (OpenBLAS ignores a change of its thread
    count made from another thread, so a restore there would leave one thread for good)."""
    for first_closes_first in (True, False):
        entered, release, done = threading.Event(), threading.Event(), threading.Event()

        def other():
            with single_threaded_blas():
                entered.set()
                release.wait(10)
            done.set()

        worker = threading.Thread(target=other)
        with single_threaded_blas():
            worker.start()
            assert entered.wait(10)
            assert _blas_threads() == {1}
            if not first_closes_first:
                release.set()
                assert done.wait(10)
                assert _blas_threads() == {1}  # the first block is still open
        assert _blas_threads() == {2}
        release.set()
        worker.join(10)
        assert _blas_threads() == {2}


def test_the_engines_workers_run_on_one_blas_thread(two_blas_threads, monkeypatch):
    seen = []
    run_job = engine._run_job

    def spy(job):
        seen.append((threading.current_thread().name, frozenset(_blas_threads())))
        return run_job(job)

    gen = np.random.default_rng(0)
    cols = ItemColumns(["a", "b", "c"], ["t0", "t1", "t2"],
                       {f"t{k}": {"score": (gen.random((3, 300)) < 0.6).astype(float)} for k in range(3)})
    bootstrap(cols, n_resamples=10, rng=1, progress=False)  # the kernel's first use loads numba (and SciPy's BLAS)
    monkeypatch.setattr(engine, "_run_job", spy)
    threaded = bootstrap(cols, n_resamples=3000, rng=1, progress=False, threads=2)
    assert {name.startswith("evalband-bootstrap") for name, _ in seen} == {True}
    assert {threads for _, threads in seen} == {frozenset({1})}
    assert _blas_threads() == {2}  # the user's NumPy code after the run: as before
    seen.clear()
    single = bootstrap(cols, n_resamples=3000, rng=1, progress=False, threads=1)
    assert {threads for _, threads in seen} == {frozenset({1})}
    assert threaded.replicates.tobytes() == single.replicates.tobytes()
