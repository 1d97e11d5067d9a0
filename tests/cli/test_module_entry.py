"""QA regression: ``python -m evalband.cli.main --help`` (the form given in the docs and briefs) and
``python -m evalband`` run the CLI; before the fix the first printed nothing and the second did not exist."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["evalband.cli.main", "evalband"])
def test_python_dash_m_runs_the_cli(module):
    res = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "summarize" in res.stdout and "compare" in res.stdout
