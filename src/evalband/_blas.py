"""BLAS on one thread while evalband's own worker threads run (no oversubscription).

The bootstrap engine splits its work over threads of its own (one per core by default) and each worker calls a
BLAS product. A BLAS library that also starts a thread per core for every product then runs cores x cores
threads, which on a two-core machine made the engine three to four times slower than with one BLAS thread
(issue 27). :func:`single_threaded_blas` limits the BLAS libraries loaded in the process to one thread for the
duration of a ``with`` block, through threadpoolctl, and restores the previous limits when the last block
open in the process ends, so a user's own NumPy code before and after runs with the BLAS threads it had.

The limit is a setting of the BLAS library, hence of the whole process while a block is open: NumPy code that a
user runs in another thread at the same moment also gets one BLAS thread. Nested and concurrent blocks are
counted, so limits are restored once, by the last block to close, to what they were before the first.
Results do not depend on it: evalband's products are over integer counts (exact) or split by the library over
rows and columns, never over the summed dimension.
"""

from __future__ import annotations

import contextlib
import threading

__all__ = ["single_threaded_blas"]

_LOCK = threading.Lock()
_OPEN = 0            # blocks open in the process
_LIMITER = None      # threadpoolctl's limiter of the first open block (restores the limits on exit)


@contextlib.contextmanager
def single_threaded_blas(enabled: bool = True):
    """Limit the process's BLAS libraries to one thread inside the block (a no-op when ``enabled`` is false)."""
    global _OPEN, _LIMITER
    if not enabled:
        yield
        return
    with _LOCK:
        if _OPEN == 0:  # the libraries loaded now (inspecting them takes about a millisecond)
            from threadpoolctl import ThreadpoolController

            blas = ThreadpoolController().select(user_api="blas")
            _LIMITER = blas.limit(limits=1) if any(lib.num_threads != 1 for lib in blas.lib_controllers) else None
        _OPEN += 1
    try:
        yield
    finally:
        with _LOCK:
            _OPEN -= 1
            if _OPEN == 0 and _LIMITER is not None:
                _LIMITER.restore_original_limits()
                _LIMITER = None
