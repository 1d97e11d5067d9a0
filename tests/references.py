"""Loading the stored reference values that sit beside a test (``nuts_reference.py``, ``logistic_reference.py``
and the scripts that wrote them): the test folders are not packages, so each is loaded from its file."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def load_beside(test_file: str, name: str):
    """The module ``name``.py in the folder of ``test_file`` (pass ``__file__``)."""
    spec = importlib.util.spec_from_file_location(name, Path(test_file).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
