"""Random streams keyed by names: one entropy per run, one child stream per (name key, block, ...).

Every random draw of evalband that must not depend on row order, chunking or executor comes from
:func:`block_generator` with a key built from :func:`name_key` of the names involved (task, model, question, ...),
never from positions and never from NumPy's global state.
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["name_key", "block_generator", "run_entropy"]


def run_entropy(gen: np.random.Generator) -> tuple[int, ...]:
    """The run's entropy: four 63-bit words drawn once from the run's Generator."""
    return tuple(int(v) for v in gen.integers(0, 2**63, size=4))


def name_key(name: str) -> int:
    """A stable 32-bit key for a task or model name (CRC-32 of its UTF-8 bytes)."""
    return zlib.crc32(str(name).encode("utf-8"))


def block_generator(entropy, key: tuple[int, ...]) -> np.random.Generator:
    """The Generator of one block: ``Generator(SFC64(SeedSequence(entropy, spawn_key=key)))``.

    SFC64 (Chris Doty-Humphrey's Small Fast Chaotic generator, shipped with NumPy) is used because its 64-bit
    step is simple enough for the numba kernel to reproduce NumPy's stream exactly.
    """
    return np.random.Generator(np.random.SFC64(np.random.SeedSequence(entropy, spawn_key=tuple(key))))


