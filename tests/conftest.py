"""Shared fixtures. Reference values live beside the tests that use them, with the call that produced them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: real results of real tools (read-only), beside the repository: used where a fixture was not bundled
SHARED_DATA = Path(os.environ.get("EVALBAND_SHARED_DATA", ROOT.parent / "shared" / "data"))
FIXTURES = Path(__file__).resolve().parent / "fixtures"

try:  # unit tests never assert on time: Hypothesis's per-example deadline failed tests on a loaded machine
    from hypothesis import settings as _settings

    _settings.register_profile("evalband", deadline=None)
    _settings.load_profile("evalband")
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    pass


@pytest.fixture
def rng():
    import numpy as np

    return np.random.default_rng(20261130)
