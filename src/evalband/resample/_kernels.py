"""Random streams and the count kernel of the bootstrap engine.

Every random word comes from NumPy's SFC64 bit generator of a :class:`numpy.random.Generator` (``random_raw``);
the words are cut into 32-bit chunks and turned into exactly uniform indices by Lemire's multiply-shift with
rejection (:func:`draw_indices` is the reference definition). A compiled numba kernel reproduces the same SFC64
stream from a copy of the generator's state and maps and counts the chunks in one pass (how often each item or
cluster was drawn in each replicate); the NumPy path materializes the indices and counts them with ``bincount``.
Counts are integers, so both paths give bit-identical results for the same seed.

Streams: one :class:`~numpy.random.SeedSequence` entropy per run, and one child stream per (task, block of
replicates[, model]) with ``spawn_key = (crc32(task), block[, crc32(model)])``. Keys follow names, not positions,
so a task's replicates do not depend on which other tasks or models are analysed, and permuting models permutes
the results. Blocks have a fixed size that depends only on the number of units resampled, never on the chunk size
or on the executor, so results do not depend on how the work is split.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import threading

import numpy as np

from .._random import block_generator, name_key  # noqa: F401  (re-exported: the engine's streams)
from .._validate import ArgumentError, MissingExtraError
from .._words import words

__all__ = ["block_size", "block_generator", "name_key", "draw_indices", "draw_counts", "use_backend",
           "backend", "HAVE_NUMBA"]

#: replicates per random block for small tasks; larger tasks use fewer (see :func:`block_size`)
MAX_BLOCK = 1000
#: draws per block (replicates x units) above which the block shrinks, bounding memory (~100 MB per block)
BLOCK_ELEMENTS = 4_000_000

#: whether numba is installed (it is imported when the kernel is first compiled or loaded from its cache, so
#: commands that draw no bootstrap do not pay its import)
HAVE_NUMBA = importlib.util.find_spec("numba") is not None

_BACKEND = os.environ.get("EVALBAND_BACKEND", "auto").lower()


def block_size(n_units: int) -> int:
    """Replicates per random block for a task with ``n_units`` resampled units (fixed by ``n_units`` alone)."""
    return int(max(1, min(MAX_BLOCK, BLOCK_ELEMENTS // max(1, int(n_units)))))


def _word_bits(n_units: int) -> int | None:
    """Bits of random word per index: 32 for up to 2**32 units, else None (``Generator.integers`` on int64)."""
    return 32 if n_units <= 1 << 32 else None


def _words_for(remaining: int, n_units: int, bits: int = 32) -> int:
    """64-bit words to draw for ``remaining`` indices: two 32-bit chunks per word, rejections are rare."""
    return (remaining + 1) // 2


def _chunks(words: np.ndarray) -> np.ndarray:
    """The 32-bit chunks of raw 64-bit words, low half first (little-endian order on every platform)."""
    return words.astype("<u8", copy=False).view("<u4")


def _accepted_indices(chunks: np.ndarray, n_units: int) -> np.ndarray:
    """Lemire's exact multiply-shift: chunk ``w`` gives ``(w * n) >> 32`` unless ``(w * n) mod 2**32`` falls
    below ``2**32 mod n`` (probability below ``n / 2**32``), in which case the chunk is skipped."""
    m = chunks.astype(np.uint64) * np.uint64(n_units)
    keep = (m & np.uint64(0xFFFFFFFF)) >= np.uint64((1 << 32) % n_units)
    return (m[keep] >> np.uint64(32)).astype(np.int64)


def draw_indices(gen: np.random.Generator, n_units: int, shape: tuple[int, ...]) -> np.ndarray:
    """Uniform indices in ``[0, n_units)``, shaped ``(*shape, n_units)`` (one bootstrap sample per row).

    Reference definition of the draws: the raw 64-bit stream of ``gen``'s bit generator (``random_raw``) is cut
    into 32-bit chunks, low half first, and each chunk is mapped to ``[0, n_units)`` by Lemire's multiply-shift
    with rejection, which is exactly uniform; the first ``prod(shape) * n_units`` accepted chunks, in stream
    order, fill the rows. The numba kernel consumes the same stream in the same order.

    References
    ----------
    Lemire, D. (2019). Fast random integer generation in an interval. ACM TOMACS 29(1), 3.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.resample import draw_indices
    >>> draw_indices(np.random.default_rng(0), 5, (3,))
    array([[4, 3, 2, 1, 1],
           [0, 0, 0, 0, 4],
           [3, 4, 2, 3, 4]])
    """
    need = int(np.prod(shape, dtype=np.int64)) * n_units
    if _word_bits(n_units) is None:
        return gen.integers(0, n_units, size=(*shape, n_units), dtype=np.int64)
    parts, have = [], 0
    while have < need:
        got = _accepted_indices(_chunks(gen.bit_generator.random_raw(_words_for(need - have, n_units))), n_units)
        parts.append(got)
        have += got.size
    return np.concatenate(parts)[:need].reshape(*shape, n_units)


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
        raise ArgumentError(words("`{arg:name}` must be 'numba', 'numpy' or 'auto'; got {name!r}.", name=name))
    if name == "numba" and not HAVE_NUMBA:
        raise MissingExtraError("the numba kernel needs numba: pip install 'evalband[fast]'")
    old, _BACKEND = _BACKEND, name
    try:
        yield
    finally:
        _BACKEND = old


_numba_kernel = None
_KERNEL_LOCK = threading.Lock()  # the engine's threads may ask for the kernel at once: it is built once


def _get_numba_kernel():
    global _numba_kernel
    if _numba_kernel is not None:
        return _numba_kernel
    with _KERNEL_LOCK:
        if _numba_kernel is not None:
            return _numba_kernel
        import numba as _numba

        @_numba.njit(nogil=True, cache=True)
        def _sfc_count(state, n_units, out):  # pragma: no cover - compiled
            """NumPy's SFC64 stream from ``state``, cut into 32-bit chunks (low half first), mapped by Lemire's
            multiply-shift with rejection (a rejected chunk is skipped) and counted row by row into ``out``."""
            a, b, c, w = state[0], state[1], state[2], state[3]
            one, s11, s3 = np.uint64(1), np.uint64(11), np.uint64(3)
            s24, s40, s32 = np.uint64(24), np.uint64(40), np.uint64(32)
            low = np.uint64(0xFFFFFFFF)
            nn = np.uint64(n_units)
            thresh = np.uint64((1 << 32) % n_units)
            rows, n = out.shape
            word = np.uint64(0)
            have = False
            for row in range(rows):
                r = out[row]
                col = 0
                while col < n:
                    if not have:
                        word = a + b + w
                        w += one
                        a = b ^ (b >> s11)
                        b = c + (c << s3)
                        c = ((c << s24) | (c >> s40)) + word
                        m = (word & low) * nn
                        have = True
                    else:
                        m = (word >> s32) * nn
                        have = False
                    if (m & low) >= thresh:
                        r[np.uint32(m >> s32)] += 1
                        col += 1

        _numba_kernel = _sfc_count
    return _numba_kernel


def draw_counts(gen: np.random.Generator, n_units: int, n_rows: int, dtype=np.float64, *,
                buffer: np.ndarray | None = None) -> np.ndarray:
    """Bootstrap counts: how often each of ``n_units`` units is drawn in each of ``n_rows`` samples of size
    ``n_units`` -> ``(n_rows, n_units)`` array of ``dtype``.

    Equal to counting :func:`draw_indices` row by row. With numba (``evalband[fast]``) and an SFC64 generator, a
    compiled kernel steps a copy of the generator's state through NumPy's SFC64 algorithm, maps (skipping the
    rare rejected chunk, probability below ``n / 2**32``) and counts in one pass. Otherwise the indices are
    drawn by :func:`draw_indices` and counted with ``numpy.bincount``. Both give the same integers for the same generator state. The generator's own state is
    not advanced by the kernel (each block uses its own generator). ``buffer`` (at least ``n_rows * n_units``
    elements of ``dtype``) is reused for the result when given, saving an allocation per block.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.resample import draw_counts
    >>> counts = draw_counts(np.random.default_rng(0), 5, 3)
    >>> counts
    array([[0., 2., 1., 1., 1.],
           [4., 0., 0., 0., 1.],
           [0., 0., 1., 2., 2.]])
    >>> counts.sum(axis=1)
    array([5., 5., 5.])
    """
    need = n_rows * n_units
    if (backend() == "numba" and _word_bits(n_units) is not None
            and isinstance(gen.bit_generator, np.random.SFC64)):
        st = gen.bit_generator.state
        if not st.get("has_uint32", 0):
            state = np.array(st["state"]["state"], dtype=np.uint64)
            if buffer is not None and buffer.dtype == dtype and buffer.size >= need:
                out = buffer.ravel()[:need].reshape(n_rows, n_units)
                out.fill(0)
            else:
                out = np.zeros((n_rows, n_units), dtype=dtype)
            _get_numba_kernel()(state, n_units, out)
            return out
    idx = draw_indices(gen, n_units, (n_rows,))
    offsets = np.arange(n_rows, dtype=np.int64)[:, None] * n_units
    counts = np.bincount((idx + offsets).ravel(), minlength=need)
    return counts.reshape(n_rows, n_units).astype(dtype)
