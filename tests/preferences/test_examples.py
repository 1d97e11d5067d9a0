"""The Examples sections of the preferences package and its readers run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["evalband.data.battles", "evalband.preferences.bradley_terry", "evalband.preferences.core",
           "evalband.preferences.elo", "evalband.resample.battles", "evalband.preferences.scales",
           "evalband.preferences.style", "evalband.preferences.winrate", "evalband.io.battles"]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name):
    module = importlib.import_module(name)
    failed, tried = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failed == 0
