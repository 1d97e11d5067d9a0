"""A missing input path is reported before any heavy import (QA: 5.5 s under load to say the file is missing):
the one input place of the command line (``reads_input``, and gate's two runs) checks the path first."""

import subprocess
import sys
import os

import pytest

COMMANDS = ["summarize", "compare", "rank", "bayes", "passk", "plan", "variance", "report", "frontier", "agreement",
            "arena"]
PROBE = """
import sys
from evalband.cli.main import app as main  # the command line in this process (run() would end it)
sys.argv = ["evalband", *{args!r}]
try:
    main()
except SystemExit as e:
    code = e.code
heavy = sorted(m for m in ("numpy", "pandas", "scipy", "matplotlib") if m in sys.modules)
print("HEAVY", heavy, "CODE", code)
"""


def probe(*args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-c", PROBE.format(args=list(args))], capture_output=True, text=True,
                         env=env, timeout=120)
    return out.stdout, out.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_missing_file_is_reported_without_heavy_imports(command, tmp_path):
    missing = str(tmp_path / "nope.csv")
    extra = ["-o", str(tmp_path / "r.html")] if command == "report" else []
    stdout, stderr = probe(command, missing, *extra)
    assert "HEAVY [] CODE 2" in stdout, (stdout, stderr)
    assert stderr.startswith("evalband: error:") and "nope.csv" in stderr and "no such file" in stderr


def test_glob_matching_nothing_and_gate(tmp_path):
    stdout, stderr = probe("summarize", str(tmp_path / "runs" / "*.csv"))
    assert "HEAVY [] CODE 2" in stdout and "matches no file" in stderr, (stdout, stderr)
    real = tmp_path / "b.csv"
    real.write_text("model,task,item,score\na,t,1,1\n")
    stdout, stderr = probe("gate", str(real), str(tmp_path / "cand.csv"))
    assert "HEAVY [] CODE 2" in stdout and "cand.csv" in stderr and "no such file" in stderr, (stdout, stderr)


def test_existing_inputs_still_read(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("model,task,item,score\na,t,1,1\na,t,2,0\nb,t,1,1\nb,t,2,1\n")
    stdout, stderr = probe("summarize", str(path), "-f", "json")
    assert "CODE 0" in stdout or "CODE None" in stdout, (stdout, stderr)
