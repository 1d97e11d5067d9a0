"""BLAS on one thread while evalband's own worker threads run (no oversubscription).

The bootstrap engine splits its work over threads of its own (one per core by default) and each worker calls a
BLAS product. A BLAS library that also starts a thread per core for every product then runs cores x cores
threads, which on a two-core machine made the engine three to four times slower than with one BLAS thread
(issue 27). :func:`single_threaded_blas` limits the BLAS libraries loaded in the process to one thread for the
duration of a ``with`` block, through threadpoolctl, and restores the previous limits when the last block
open in the process ends, so a user's own NumPy code before and after runs with the BLAS threads it had.

The limit is a setting of the BLAS library, hence of the whole process while a block is open: NumPy code that a
user runs in another thread at the same moment also gets one BLAS thread. The block that sets the limit restores
it, in the thread that set it (OpenBLAS ignores a change of its thread count made from another thread): a block
opened while another is open changes nothing, and if the first closes before it, the limit goes with the first
(the later block's products may then use more threads; never a stuck limit). Results do not depend on it:
evalband's products are over integer counts (exact) or split by the library over rows and columns, never over
the summed dimension.
"""

from __future__ import annotations

import contextlib
import sys
import threading

__all__ = ["single_threaded_blas"]

_LOCK = threading.Lock()
_HELD = False        # a block holds the limit (set by it, or found already at one thread)
_LIMITER = None      # threadpoolctl's limiter of that block (restores the limits on exit); None when none was set
_BLAS = None         # (modules imported, threadpoolctl's controller of the BLAS libraries then loaded): listing the
#                      libraries takes a few ms, so it is done again only when modules were imported since


def _blas():
    # Listed again when modules were imported since (SciPy's own OpenBLAS is loaded with scipy.linalg, after
    # NumPy's): the count of imported modules is a cheap sign that a library may have been loaded.
    global _BLAS
    if _BLAS is None or _BLAS[0] != len(sys.modules):
        from threadpoolctl import ThreadpoolController

        _BLAS = (len(sys.modules), ThreadpoolController().select(user_api="blas"))
    return _BLAS[1]


@contextlib.contextmanager
def single_threaded_blas(enabled: bool = True):
    """Limit the process's BLAS libraries to one thread inside the block (a no-op when ``enabled`` is false)."""
    global _HELD, _LIMITER
    owner = False
    if enabled:
        with _LOCK:
            if not _HELD:
                blas = _blas()
                _LIMITER = blas.limit(limits=1) if any(lib.num_threads != 1 for lib in blas.lib_controllers) \
                    else None
                _HELD = owner = True
    try:
        yield
    finally:
        if owner:
            with _LOCK:
                if _LIMITER is not None:
                    _LIMITER.restore_original_limits()
                _HELD, _LIMITER = False, None
