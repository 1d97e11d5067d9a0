"""Every module's examples run (issue 23, item 6): one test per module of ``src/evalband`` that has ``>>>``
examples, run with doctest (whitespace normalized, ``...`` matching anything). A module whose import needs an absent
optional extra is skipped with the reason; ``# doctest: +SKIP`` marks examples that read files the reader does not
have.

``FAILING`` lists the modules whose examples do not pass today, with why; each is a strict xfail, so that the fix
must delete its entry (the list only shrinks).
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import evalband

#: module -> why its examples fail today (strict xfail: delete the entry with the fix)
FAILING: dict[str, str] = {}

SRC = Path(evalband.__file__).parent
#: every module whose source holds an example (found by reading the files, so collecting imports nothing)
MODULES = sorted(".".join(("evalband",) + p.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
                 for p in SRC.rglob("*.py") if ">>>" in p.read_text())


def _examples(module):
    return [t for t in doctest.DocTestFinder(exclude_empty=True).find(module) if t.examples]


@pytest.mark.parametrize("name", [pytest.param(m, marks=pytest.mark.xfail(reason=FAILING[m], strict=True))
                                  if m in FAILING else m for m in MODULES])
def test_examples_run(name):
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # a module of an optional extra (MissingExtraError is an ImportError too)
        pytest.skip(f"{name} needs what is not installed: {exc}")
    tests = _examples(module)
    assert tests, f"{name} has '>>>' in its source but doctest finds no example in it"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    failures = []
    for test in tests:
        runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)


def test_examples_are_found_in_every_module_that_has_them():
    assert len(MODULES) >= 59  # 59 modules had examples when this test was written
    assert set(FAILING) <= set(MODULES)


#: curated functions (of ``evalband.__all__`` and each subpackage's ``__all__``) that have no Examples section yet;
#: the list only shrinks: a function given one must leave it (test below)
LACKING = frozenset()


def _curated():
    """``(name, function)`` of every function a curated ``__all__`` exports (the root and each subpackage)."""
    import inspect
    import pkgutil

    for module_name in ["evalband"] + [f"evalband.{m.name}" for m in pkgutil.iter_modules(evalband.__path__)
                                       if m.ispkg]:
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # a subpackage of an absent optional extra
            continue
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield f"{module_name}.{name}", obj


def _has_examples(function) -> bool:
    import inspect

    doc = inspect.getdoc(function) or ""
    return "Examples\n--------" in doc and ">>>" in doc


def test_every_curated_function_has_examples():
    """Every curated public function has a numpydoc Examples section (run by test_examples_run with its
    module), except those still in LACKING; a function in LACKING that has one now must leave the list."""
    found = dict(_curated())
    missing = sorted(name for name, f in found.items() if not _has_examples(f) and name not in LACKING)
    assert not missing, f"curated functions without an Examples section: {missing}"
    done = sorted(name for name in LACKING if name in found and _has_examples(found[name]))
    assert not done, f"these have an Examples section now; delete them from LACKING: {done}"
    assert LACKING <= set(found), f"not curated functions any more: {sorted(LACKING - set(found))}"
