"""The layering rules of docs/dev/architecture.md, checked on the source (issue 12's contract).

* Only ``io/``, ``selection`` and ``cli/`` import the readers (``read``, ``evalband.io``); everything below the
  selection layer takes a Selection.
* No module imports a private module (``_name``) of another subpackage; root-level private helpers
  (``evalband._validate``, ``_random``, ``_ranks``, ...) are shared.
* No public function shadows a subpackage: ``getattr(evalband, p)`` is the module ``p`` (or absent).
* The command line and the report never turn ``TypeError`` into a message (a bug must not look like a usage
  error).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import evalband

SRC = Path(evalband.__file__).parent
FILES = sorted(SRC.rglob("*.py"))


def _package(path: Path) -> str:
    rel = path.relative_to(SRC).parts
    return rel[0] if len(rel) > 1 else ""  # '' for root-level modules


def _imports(path: Path):
    """(level, module, names) of every import in the file, resolved to evalband-relative parts."""
    tree = ast.parse(path.read_text())
    rel = path.relative_to(SRC).with_suffix("").parts
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel[:-1]) if rel[-1] != "__init__" else list(rel[:-1])
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                parts = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.startswith("evalband"):
                parts = node.module.split(".")[1:]
            else:
                continue
            yield parts, [a.name for a in node.names], node.lineno
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("evalband."):
                    yield a.name.split(".")[1:], [], node.lineno


def test_only_io_selection_and_cli_import_the_readers():
    bad = []
    for f in FILES:
        pkg = _package(f)
        if pkg in ("io", "cli") or f.stem == "selection" or pkg == "selection":
            continue
        for parts, names, line in _imports(f):
            if parts[:1] == ["io"] or (parts == [] and "io" in names) or ("read" in names and parts == []):
                bad.append(f"{f.relative_to(SRC)}:{line}")
    assert not bad, f"modules below the selection layer import the readers: {bad}"


def test_no_private_module_of_another_subpackage_is_imported():
    bad = []
    for f in FILES:
        own = _package(f)
        for parts, names, line in _imports(f):
            if not parts:
                continue
            pkg, rest = parts[0], parts[1:]
            private = any(p.startswith("_") for p in rest) or (len(parts) == 1 and any(
                n.startswith("_") and not n.startswith("__") for n in names) and (SRC / pkg).is_dir())
            if (SRC / pkg).is_dir() and pkg != own and private:
                bad.append(f"{f.relative_to(SRC)}:{line} imports {'.'.join(parts)} {names}")
    assert not bad, "private modules imported across subpackages:\n" + "\n".join(bad)


def test_no_public_name_shadows_a_subpackage():
    for info in pkgutil.iter_modules(evalband.__path__):
        if not info.ispkg:
            continue
        try:
            value = getattr(evalband, info.name)
        except AttributeError:
            continue
        assert value is importlib.import_module(f"evalband.{info.name}"), info.name


def _catches_type_error(handler: ast.ExceptHandler) -> bool:
    t = handler.type
    names = [t] if not isinstance(t, ast.Tuple) else list(t.elts)
    return any(isinstance(n, ast.Name) and n.id == "TypeError" for n in names)


@pytest.mark.parametrize("package", ["cli", "report", "analysis"])
def test_type_errors_are_never_turned_into_messages(package):
    bad = []
    for f in sorted((SRC / package).rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ExceptHandler) and node.type is not None and _catches_type_error(node):
                bad.append(f"{f.relative_to(SRC)}:{node.lineno}")
    assert not bad, f"`except TypeError` in {package}: {bad}"


def test_import_evalband_loads_nothing_heavy():
    code = ("import evalband, sys; heavy = {'pandas', 'scipy', 'matplotlib', 'numpy'} & set(sys.modules);"
            " print(sorted(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
