"""Progress lines: drawn on a terminal only, once the work has run THRESHOLD_SECONDS, nested lines share one
display (a bootstrap bar inside a report section), and nothing is left or printed when stderr is not a
terminal."""

import os
import re
import select
import subprocess
import sys

import pytest

from evalband import _progress

SCRIPT = r"""
import time
from evalband import _progress
_progress.THRESHOLD_SECONDS = 0.05
with _progress.status("reading slow.csv"):
    time.sleep(0.4)
    for _ in _progress.track(iter(range(4)), 4, description="bootstrap"):
        time.sleep(0.15)
with _progress.status("quick step"):
    pass
assert _progress._display is None
print("done", flush=True)
"""


def _run_on_a_terminal(code: str) -> tuple[int, str]:
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=slave, env={**os.environ, "TERM": "xterm", "COLUMNS": "80"})
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            out += data
        elif proc.poll() is not None:
            break
    proc.wait(timeout=60)
    os.close(master)
    return proc.returncode, re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", out.decode("utf8", "replace"))


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_lines_appear_on_a_terminal_after_the_threshold_and_nest():
    code, text = _run_on_a_terminal(SCRIPT)
    assert code == 0
    assert "reading slow.csv" in text and "bootstrap" in text and ("3/4" in text or "4/4" in text)
    assert "quick step" not in text  # it ended before the threshold


def test_nothing_is_drawn_when_stderr_is_not_a_terminal():
    res = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and res.stdout.strip() == "done" and res.stderr == ""


def test_forced_progress_stops_its_display():
    for _ in _progress.track(iter(range(3)), 3, progress=True):
        with _progress.status("inner", progress=True):
            pass
    assert _progress._display is None and _progress._users == 0
