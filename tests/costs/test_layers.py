"""The costs package keeps to the layers (docs/dev/architecture.md): it reads nothing itself (every input goes
through ``evalband.select``) and its Examples run as written."""

import ast
import doctest
import importlib
from pathlib import Path

import pytest

import evalband

SRC = Path(evalband.__file__).parent
MODULES = ["evalband.costs.frontier", "evalband.costs.decision", "evalband.costs.joint", "evalband.costs.measures",
           "evalband.costs.latency", "evalband.costs.differences", "evalband.costs._inputs", "evalband.costs._pareto",
           "evalband.io.costs"]


def _reader_imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [a.name for a in node.names]
            if module.split(".")[0] == "io" or module.startswith("evalband.io") or (
                    node.level == 2 and not module and ("io" in names or "read" in names)):
                yield node.lineno


@pytest.mark.parametrize("path", sorted((SRC / "costs").glob("*.py")) + [SRC / "data/costs.py"],
                         ids=lambda p: p.name)
def test_costs_import_no_reader(path):
    assert not list(_reader_imports(path)), f"{path.name} imports the readers"


@pytest.mark.parametrize("name", MODULES)
def test_examples(name):
    failed, tried = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failed == 0
