"""Run the bootstrap engine's blocks of work on a Dask cluster (the ``dist`` extra).

The engine (:func:`evalband.resample.bootstrap`) splits its work into jobs, one or more blocks of replicates of
one task, and hands them to any ``executor`` with a ``map(fn, jobs)`` method. Each block draws from its own random
stream, ``SeedSequence(entropy, spawn_key=(task, block[, model]))``, with a block size fixed by the task's size, so
the replicates are identical whichever machine, process or thread computes a block and in whatever order: the
same seed gives the same numbers on a laptop and on a cluster of any size.

:class:`DaskExecutor` is that executor for Dask distributed. It sends each task's data to the cluster once
(``Client.scatter``), submits one job per chunk of blocks, and yields results as they complete.

>>> from evalband.resample.distributed import dask_executor                                         # doctest: +SKIP
>>> from evalband.resample import bootstrap                                         # doctest: +SKIP
>>> with dask_executor("tcp://scheduler:8786") as ex:                                # doctest: +SKIP
...     reps = bootstrap("results.parquet", n_resamples=10_000, rng=1, executor=ex)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator

import numpy as np
from .._validate import ArgumentError, ArgumentTypeError, require_extra

__all__ = ["DaskExecutor", "dask_executor", "require_distributed"]

#: job elements at least this large (bytes) are scattered once and shared by reference
SCATTER_MIN_BYTES = 64 * 1024


def require_distributed():
    """Import :mod:`distributed` or say which extra installs it."""
    return require_extra("distributed", extra="dist", what="running on a Dask cluster", name="dask.distributed")


class DaskExecutor:
    """An executor for :func:`evalband.resample.bootstrap` that runs its jobs on a Dask ``Client``.

    Parameters
    ----------
    client : distributed.Client
        A connected client.
    scatter : bool
        Send large job inputs (a task's score matrix) to the workers once and pass references, rather than
        pickling them into every job.

    Notes
    -----
    ``map`` yields results in completion order, not submission order; the engine places each result by the task
    and replicate numbers it carries, so the outcome does not depend on the order (nor on the number of
    workers). Jobs are submitted with ``pure=False`` so that Dask never merges two of them.
    """

    def __init__(self, client, *, scatter: bool = True):
        self.client = client
        self.scatter = scatter

    def map(self, fn: Callable, jobs: Iterable) -> Iterator:
        distributed = require_distributed()
        jobs = list(jobs)
        shared: dict[int, object] = {}
        futures = []
        for job in jobs:
            if self.scatter and isinstance(job, tuple):
                job = tuple(self._share(x, shared) for x in job)
            futures.append(self.client.submit(fn, job, pure=False))
        try:
            for future in distributed.as_completed(futures):
                result = future.result()
                future.release()
                yield result
        finally:
            for f in futures:
                f.cancel()
            for f in shared.values():
                f.release()

    def _share(self, value, shared: dict):
        if _nbytes(value) < SCATTER_MIN_BYTES:
            return value
        key = id(value)
        if key not in shared:
            # broadcast: every worker computes blocks of every task, so each gets one copy up front
            shared[key] = self.client.scatter(value, broadcast=True, hash=False)
        return shared[key]


def _nbytes(value) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
        return sum(_nbytes(getattr(value, f, None)) for f in value.__dataclass_fields__)
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value)
    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values())
    return 0


@contextlib.contextmanager
def dask_executor(scheduler: str = "local", *, n_workers: int | None = None, processes: bool = True,
                  scatter: bool = True):
    """Connect to a Dask scheduler (or start a local cluster) and yield a :class:`DaskExecutor`.

    Parameters
    ----------
    scheduler : str
        A scheduler address such as ``'tcp://10.0.0.5:8786'`` (a running cluster: ``dask scheduler`` and
        ``dask worker`` processes, a ``dask-jobqueue`` or Kubernetes cluster...), a path to a scheduler file
        (``--scheduler-file`` of ``dask scheduler``), or ``'local'`` to start a ``LocalCluster`` on this machine
        for the duration of the block.
    n_workers : int, optional
        ``'local'`` only: number of workers (default: one per CPU core).
    processes : bool
        ``'local'`` only: workers in separate processes (True) or threads of this process (False).
    scatter : bool
        See :class:`DaskExecutor`.

    Yields
    ------
    DaskExecutor
        Closed (client, and the local cluster if one was started) when the block ends.
    """
    distributed = require_distributed()
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise ArgumentTypeError(f"`scheduler` must be an address such as 'tcp://host:8786' or 'local'; got {scheduler!r}.")
    scheduler = scheduler.strip()
    with contextlib.ExitStack() as stack:
        if scheduler == "local":
            workers = n_workers or os.cpu_count() or 1
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=processes, dashboard_address=None))
            client = stack.enter_context(distributed.Client(cluster))
        elif os.path.isfile(scheduler):
            client = stack.enter_context(distributed.Client(scheduler_file=scheduler))
        else:
            try:
                client = stack.enter_context(distributed.Client(scheduler, timeout="20s"))
            except OSError as exc:
                raise ArgumentError(f"`scheduler`: cannot reach a Dask scheduler at {scheduler!r} ({exc}).") from None
        yield DaskExecutor(client, scatter=scatter)
