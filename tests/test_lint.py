"""Pyflakes' checks (ruff's F rules: undefined names, unused imports, redefinitions) over the package: an
undefined name in a rarely taken branch is a bug that only a user would find."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import evalband


def test_the_package_passes_pyflakes():
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    src = Path(evalband.__file__).parent
    res = subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "F", "--no-cache", "--quiet", str(src)], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stdout + res.stderr
