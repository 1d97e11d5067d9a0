"""``--help`` and ``--version``: nothing heavy is loaded, extras print in brackets, no ``<bool>`` metavars, and the
text is reflowed to the terminal (no hard line breaks inside sentences, no line wider than COLUMNS)."""

import os
import subprocess
import sys

import pytest

COMMANDS = ["summarize", "passk", "bayes", "compare", "rank", "plan", "gate", "report"]

PROBE = r"""
import sys
from evalband.cli.main import app
try:
    app(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
heavy = {m.split('.')[0] for m in sys.modules} & {'numpy', 'pandas', 'scipy', 'matplotlib'}
print('HEAVY', sorted(heavy))
"""


def _run(*args, columns=100):
    env = {**os.environ, "COLUMNS": str(columns)}
    res = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.mark.parametrize("args", [["--version"], ["--help"], *[[c, "--help"] for c in COMMANDS]])
def test_help_and_version_load_nothing_heavy(args):
    out = _run(*args)
    assert out.strip().splitlines()[-1] == "HEAVY []"


def test_help_shows_extras_in_brackets_and_no_bool_metavars():
    out = _run("rank", "--help")
    assert "evalband[dist]" in out
    assert "<bool>" not in out
    bayes = _run("bayes", "--help")
    assert "evalband[bayes]" in bayes


@pytest.mark.parametrize("columns", [80, 100])
@pytest.mark.parametrize("command", ["compare", "report"])
def test_help_fits_the_terminal_and_reflows_sentences(command, columns):
    lines = _run(command, "--help", columns=columns).splitlines()[:-1]
    assert max(map(len, lines)) <= columns
    # the description (between the usage line and the first panel) is reflowed: within a paragraph every line
    # but the last fills the width (a docstring's own line break would leave a short line mid-paragraph)
    start = next(i for i, line in enumerate(lines) if line.startswith("Usage:")) + 1
    end = next(i for i, line in enumerate(lines) if line.rstrip().endswith(":") and not line.startswith(" "))
    paragraphs, current = [], []
    for line in lines[start:end] + [""]:
        if line.strip():
            current.append(line)
        elif current:
            paragraphs.append(current)
            current = []
    assert paragraphs
    short = [line for p in paragraphs for line in p[:-1] if len(line) < min(columns, 120) - 20]
    assert not short, short
