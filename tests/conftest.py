"""Shared fixtures. Reference values live beside the tests that use them, with the call that produced them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: real results of real tools (read-only), beside the repository: used where a fixture was not bundled
SHARED_DATA = Path(os.environ.get("EVALBAND_SHARED_DATA", ROOT.parent / "shared" / "data"))
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def rng():
    import numpy as np

    return np.random.default_rng(20261130)
