"""Random streams and the count kernel of the bootstrap engine.

Every draw is made in NumPy by a :class:`numpy.random.Generator`; only the *counting* of drawn indices (how often
each item or cluster was drawn in each replicate) may run in a compiled numba kernel. Counts are integers, so the
numba and the NumPy paths give bit-identical results for the same seed.

Streams: one :class:`~numpy.random.SeedSequence` entropy per run, and one child stream per (task, block of
replicates[, model]) with ``spawn_key = (crc32(task), block[, crc32(model)])``. Keys follow names, not positions,
so a task's replicates do not depend on which other tasks or models are analysed, and permuting models permutes
the results. Blocks have a fixed size that depends only on the number of units resampled, never on the chunk size
or on the executor, so results do not depend on how the work is split.
"""

from __future__ import annotations

import contextlib
import os
import zlib

import numpy as np

__all__ = ["block_size", "block_generator", "name_key", "draw_indices", "count_indices", "use_backend",
           "backend", "HAVE_NUMBA"]

#: replicates per random block for small tasks; larger tasks use fewer (see :func:`block_size`)
MAX_BLOCK = 1000
#: draws per block (replicates x units) above which the block shrinks, bounding memory (~100 MB per block)
BLOCK_ELEMENTS = 4_000_000

try:  # pragma: no cover - exercised when numba is installed
    import numba as _numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    _numba = None
    HAVE_NUMBA = False

_BACKEND = os.environ.get("EVALBAND_BACKEND", "auto").lower()


def block_size(n_units: int) -> int:
    """Replicates per random block for a task with ``n_units`` resampled units (fixed by ``n_units`` alone)."""
    return int(max(1, min(MAX_BLOCK, BLOCK_ELEMENTS // max(1, int(n_units)))))


def name_key(name: str) -> int:
    """A stable 32-bit key for a task or model name (CRC-32 of its UTF-8 bytes)."""
    return zlib.crc32(str(name).encode("utf-8"))


def block_generator(entropy, key: tuple[int, ...]) -> np.random.Generator:
    """The Generator of one block: ``PCG64(SeedSequence(entropy, spawn_key=key))``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=tuple(key))))


def _index_dtype(n_units: int):
    if n_units <= 1 << 16:
        return np.uint16
    if n_units <= 1 << 32:
        return np.uint32
    return np.int64


def draw_indices(gen: np.random.Generator, n_units: int, shape: tuple[int, ...]) -> np.ndarray:
    """Uniform indices in ``[0, n_units)`` of the given shape (+ a last axis of length ``n_units``)."""
    return gen.integers(0, n_units, size=(*shape, n_units), dtype=_index_dtype(n_units))


def backend() -> str:
    """The count kernel in use: 'numba' or 'numpy'."""
    if _BACKEND == "numpy" or not HAVE_NUMBA:
        return "numpy"
    return "numba"


@contextlib.contextmanager
def use_backend(name: str):
    """Temporarily force the count kernel ('numba', 'numpy' or 'auto'); used by tests and benchmarks."""
    global _BACKEND
    if name not in ("numba", "numpy", "auto"):
        raise ValueError(f"`name` must be 'numba', 'numpy' or 'auto'; got {name!r}.")
    if name == "numba" and not HAVE_NUMBA:
        raise ImportError("the numba kernel needs numba: pip install 'evalband[fast]'")
    old, _BACKEND = _BACKEND, name
    try:
        yield
    finally:
        _BACKEND = old


def _count_numpy(idx: np.ndarray, n_units: int) -> np.ndarray:
    rows = idx.reshape(-1, idx.shape[-1])
    offsets = np.arange(rows.shape[0], dtype=np.int64)[:, None] * n_units
    flat = (rows + offsets).ravel()
    counts = np.bincount(flat, minlength=rows.shape[0] * n_units)
    return counts.reshape(*idx.shape[:-1], n_units).astype(np.float64)


_numba_kernel = None


def _get_numba_kernel():
    global _numba_kernel
    if _numba_kernel is None:
        @_numba.njit(nogil=True, cache=True)
        def _count(rows, out):  # pragma: no cover - compiled
            r, n = rows.shape
            for c in range(r):
                for i in range(n):
                    out[c, rows[c, i]] += 1.0

        _numba_kernel = _count
    return _numba_kernel


def count_indices(idx: np.ndarray, n_units: int) -> np.ndarray:
    """How often each unit was drawn: ``idx`` (..., n) -> float64 counts (..., n_units).

    Uses the numba kernel when available (install ``evalband[fast]``), else ``numpy.bincount``; both give the same
    integers.
    """
    if backend() == "numba":
        rows = np.ascontiguousarray(idx.reshape(-1, idx.shape[-1]))
        out = np.zeros((rows.shape[0], n_units), dtype=np.float64)
        _get_numba_kernel()(rows, out)
        return out.reshape(*idx.shape[:-1], n_units)
    return _count_numpy(idx, n_units)
