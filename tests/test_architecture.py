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


# --- the layer order (issue 23): LAYERS in tests/layers.py, every import of the source checked against it ---

import layers  # noqa: E402  (tests/ is on the path: pyproject's pythonpath)


def _hint() -> str:
    return ("\n(the layer order is LAYERS in tests/layers.py; `python tests/layers.py` prints every violation and the"
            " cycles between rooms)")


def test_every_module_is_in_a_room_of_the_layers():
    missing = layers.unplaced()
    assert not missing, f"modules in no room of LAYERS (add their room to a layer): {missing}" + _hint()


def test_no_new_import_reaches_a_later_layer_or_closes_a_cycle():
    new, _ = layers.new_and_stale(layers.violations(layers.scan()))
    assert not new, ("imports against the layer order, beyond the allow-list:\n"
                     + "\n".join(f"  {kind}: {imp}" for imp, kind in new) + _hint())


def test_the_allow_list_only_shrinks():
    _, stale = layers.new_and_stale(layers.violations(layers.scan()))
    assert not stale, ("these allowed violations no longer occur: delete them from ALLOWED in tests/layers.py\n"
                       + "\n".join(f"  {key}: {n} fewer" for key, n in stale.items()))


def test_no_cycle_between_rooms_beyond_the_allowed_imports():
    allowed = set(layers.ALLOWED)
    imports = [i for i in layers.scan() if i.key() not in allowed]
    components = layers.strongly_connected(layers.room_graph(imports))
    assert not components, f"rooms that import each other (directly or through others): {components}" + _hint()


def test_the_architecture_page_shows_the_layers():
    shown = layers.doc_table()
    assert shown is not None, "docs/dev/architecture.md lacks the markers of the generated layer table"
    assert shown == layers.layer_table(), ("docs/dev/architecture.md's layer table differs from LAYERS: run"
                                           " `python tests/layers.py --write-docs`")


# --- the scanner itself, on a planted package: it finds what it must and fails where it must ---

_PLANTED = {
    "__init__.py": '_LAZY = {"top": "pkg.high.top"}\n',
    "_validate.py": "",
    "low/__init__.py": "from .core import base\n",
    "low/core.py": (
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "from .._validate import *\n"                       # down: fine
        "if TYPE_CHECKING:\n"
        "    from ..high.top import Top\n"                  # never runs: skipped
        "else:\n"
        "    pass\n"
        "def base():\n"
        "    from ..high import top\n"                      # 9: upward, in a function, relative
        "    import pkg.high.top\n"                         # 10: upward, absolute
        "    from pkg import top as t\n"                    # 11: upward, through the root's lazy table
        "    return 'pkg.high.top:Top'\n"),                 # 12: upward, a registry string
    "high/__init__.py": "",
    "high/top.py": "from ..low.core import base\nclass Top: pass\n",
    "peer_a.py": "from . import peer_b\n",
    "peer_b.py": "def f():\n    from . import peer_a\n",
}
_PLANTED_LAYERS = (("helpers", ("__init__", "_validate"), ""), ("low", ("low", "peer_a", "peer_b"), ""),
                   ("high", ("high",), ""))


@pytest.fixture
def planted(tmp_path):
    src = tmp_path / "pkg"
    for rel, text in _PLANTED.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    return src


def test_the_scanner_reports_every_kind_of_upward_import(planted):
    imports = layers.scan(planted)
    found = layers.violations(imports, _PLANTED_LAYERS)
    upward = sorted((i.file, i.line, i.target, i.in_function, i.kind) for i, kind in found if kind == "upward")
    assert upward == [("low/core.py", 9, "high.top", True, "static"), ("low/core.py", 10, "high.top", True, "static"),
                      ("low/core.py", 11, "high.top", True, "static"),
                      ("low/core.py", 12, "high.top", True, "dynamic")]
    assert [(i.file, i.target) for i, kind in found if kind == "cycle"] == [("peer_b.py", "peer_a")]
    assert layers.strongly_connected(layers.room_graph(imports, _PLANTED_LAYERS)) == [["high", "low"],
                                                                                     ["peer_a", "peer_b"]]


def test_a_planted_upward_import_fails_and_a_removed_one_is_stale(planted):
    found = layers.violations(layers.scan(planted), _PLANTED_LAYERS)
    allowed = layers.allow_list(found)
    assert layers.new_and_stale(found, allowed) == ([], {})
    extra = planted / "low" / "more.py"
    extra.write_text("def g():\n    from ..high.top import Top\n")
    new, _ = layers.new_and_stale(layers.violations(layers.scan(planted), _PLANTED_LAYERS), allowed)
    assert [(i.file, i.line, kind) for i, kind in new] == [("low/more.py", 2, "upward")]
    assert "low/more.py:2 imports high.top (in a function)" in str(new[0][0])
    extra.unlink()
    (planted / "peer_b.py").write_text("")
    _, stale = layers.new_and_stale(layers.violations(layers.scan(planted), _PLANTED_LAYERS), allowed)
    assert stale == {"peer_b.py -> peer_a": 1}


def test_no_module_shadows_a_name_its_package_exports():
    """A subpackage's exported name is the object it exports even after every module of the package is imported:
    importing a submodule sets the package's attribute of that name to the module, so a submodule named as a name
    the package loads lazily (``evalband.judges.ppi_compare`` once, a function and a module) would hand users the
    module, depending on what ran before. Checked in a fresh interpreter that imports every module first."""
    import subprocess
    import sys

    code = """
import importlib, inspect, pkgutil, types
import evalband
for info in pkgutil.walk_packages(evalband.__path__, "evalband."):
    try:
        importlib.import_module(info.name)
    except ImportError:  # a module of an optional extra that is not installed
        pass
bad = []
for info in pkgutil.iter_modules(evalband.__path__, "evalband."):
    if not info.ispkg:
        continue
    package = importlib.import_module(info.name)
    names = {m.name for m in pkgutil.iter_modules(package.__path__)}
    lazy = getattr(package, "_LAZY", {})
    for name in getattr(package, "__all__", ()):
        value = getattr(package, name)
        if name in names and isinstance(value, types.ModuleType) and name in lazy:
            bad.append(f"{info.name}.{name}")
print(",".join(bad))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"exported names shadowed by a submodule: {out.stdout.strip()}"
