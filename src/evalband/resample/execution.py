"""Where the bootstrap engine runs, and in what units of work: the executor and thread count a ``with`` block sets
for every :func:`~evalband.resample.bootstrap` inside it (how the command line's ``--scheduler`` and ``--threads``
reach the engine), the cores this process may use, and the split of each task's blocks of replicates into jobs.
Results never depend on any of it: every block draws from its own random stream.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os

from .._validate import ArgumentTypeError, check_positive_int

__all__ = ["available_cores", "default_executor", "split_work", "thread_count", "use_executor", "use_threads"]


#: executor used by :func:`bootstrap` when none is passed (set with :func:`use_executor`); None runs in process.
_DEFAULT_EXECUTOR: contextvars.ContextVar = contextvars.ContextVar("evalband_executor", default=None)


@contextlib.contextmanager


def use_executor(executor):
    """Run every :func:`bootstrap` inside the ``with`` block on ``executor`` unless a call names its own.

    This is how the command line's ``--scheduler`` reaches the engine through compare, rank, weights and the
    report without each of them passing an executor along. Results do not depend on the executor.

    Examples
    --------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> import numpy as np
    >>> from evalband.resample import bootstrap, use_executor
    >>> plain = bootstrap("example:vtab", models=["Rotation", "VAE"], n_resamples=200, rng=0)
    >>> with ThreadPoolExecutor(2) as pool, use_executor(pool):
    ...     pooled = bootstrap("example:vtab", models=["Rotation", "VAE"], n_resamples=200, rng=0)
    >>> bool(np.array_equal(plain.replicates, pooled.replicates))
    True
    """
    if executor is not None and not callable(getattr(executor, "map", None)):
        raise ArgumentTypeError("`executor` must have a map(fn, iterable) method (e.g. a concurrent.futures executor).")
    token = _DEFAULT_EXECUTOR.set(executor)
    try:
        yield executor
    finally:
        _DEFAULT_EXECUTOR.reset(token)


def default_executor():
    """The executor :func:`use_executor` set for the calls inside its ``with`` block (None: run in process)."""
    return _DEFAULT_EXECUTOR.get()



#: threads used by :func:`bootstrap` when a call names neither ``threads`` nor an executor (set with
#: :func:`use_threads`); None: every core this process may use.
_DEFAULT_THREADS: contextvars.ContextVar = contextvars.ContextVar("evalband_threads", default=None)


def available_cores() -> int:
    """The number of cores this process may run on (its CPU affinity; ``os.cpu_count()`` where unknown).

    Examples
    --------
    >>> from evalband.resample import available_cores
    >>> available_cores() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@contextlib.contextmanager


def use_threads(threads: int | None):
    """Run every :func:`bootstrap` inside the ``with`` block on ``threads`` threads unless a call names its own
    (None: every core). This is how the command line's ``--threads`` reaches the engine. Results do not depend on
    the number of threads.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.resample import bootstrap, use_threads
    >>> with use_threads(1):
    ...     reps = bootstrap("example:vtab", models=["Rotation", "VAE"], n_resamples=200, rng=0)
    >>> reps.replicates.shape
    (200, 2, 19)
    """
    if threads is not None:
        threads = check_positive_int(threads, "threads")
    token = _DEFAULT_THREADS.set(threads)
    try:
        yield threads
    finally:
        _DEFAULT_THREADS.reset(token)


def thread_count(threads=None) -> int:
    """The threads a call runs on: ``threads`` when given, else the count :func:`use_threads` set, else every core
    this process may use (:func:`available_cores`).

    Examples
    --------
    >>> with use_threads(1):
    ...     thread_count()
    1
    """
    if threads is None:
        threads = _DEFAULT_THREADS.get()
    if threads is None:
        return available_cores()
    return check_positive_int(threads, "threads")


def split_work(specs: list, n_resamples: int, chunk_size, executor: bool, n_threads: int) -> list:
    """The units of work: (spec, first block, end block). A given executor gets one block per unit; threads get
    units of about a quarter of each thread's share (so that tasks of unequal size balance); one thread, one unit
    per task. Every block draws from its own stream, so the split changes no number."""
    if chunk_size is None and not executor and n_threads > 1:
        total = sum(math.ceil(n_resamples / spec.block) for spec in specs)
        share = max(1, math.ceil(total / (4 * n_threads)))
    jobs = []
    for spec in specs:
        n_blocks = math.ceil(n_resamples / spec.block)
        if chunk_size is not None:
            per_job = math.ceil(chunk_size / spec.block)
        elif executor:
            per_job = 1
        elif n_threads > 1:
            per_job = min(n_blocks, share)
        else:
            per_job = n_blocks
        jobs.extend((spec, b0, min(b0 + per_job, n_blocks)) for b0 in range(0, n_blocks, per_job))
    return jobs
