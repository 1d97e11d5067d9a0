"""Old module paths of the move (issue 23) import for one release, each with a DeprecationWarning naming the new
path, and give the new module's names."""

from __future__ import annotations

import importlib
import sys
import warnings

import pytest

from evalband._moved import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_imports_with_a_warning_naming_the_new_one(old):
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            module = importlib.import_module(old)
        except ImportError as exc:  # a module of an optional extra that is not installed
            pytest.skip(f"{old}: {exc}")
    said = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert any(f"{old} moved to {MOVED[old]}" in s for s in said), said
    new = importlib.import_module(MOVED[old])
    public = [n for n in getattr(new, "__all__", ()) if hasattr(new, n)]
    assert all(getattr(module, n) is getattr(new, n) for n in public[:5])
