"""The ``evalband`` process ends without tearing the interpreter down (issue 27: 0.1-0.3 s of CPU per command),
yet exactly as a normal exit would for the user: every byte of output, the exit status, the exit handlers."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _python(code: str, *args: str):
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300)


def test_output_status_and_messages_as_a_normal_exit():
    res = subprocess.run([sys.executable, "-m", "evalband", "summarize", "--example", "vtab", "--format", "json"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    with gzip.open(HERE / "pinned_outputs.json.gz", "rt", encoding="utf-8") as fh:
        stored = json.load(fh)["summarize-vtab"]["stdout"]
    from evalband.display.notes import json_with_notes  # JSON carries its notes as records (issue 23)

    assert res.stdout == json_with_notes(stored, json.loads(res.stdout)["notes"]) + "\n"  # every byte, flushed
    res = subprocess.run([sys.executable, "-m", "evalband", "compare", "no-such-file.csv"], capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 2 and "no-such-file.csv" in res.stderr and res.stdout == ""


@pytest.mark.parametrize("code, status, stderr", [(None, 0, ""), (3, 3, ""), ("stopped: a message", 1,
                                                                                  "stopped: a message\n")])
def test_exit_handlers_run_and_the_status_is_systemexits(code, status, stderr):
    res = _python("import atexit, sys\n"
                  "atexit.register(lambda: print('handler ran'))\n"
                  "from evalband.cli.main import _exit_now\n"
                  "print('output', end='')\n"
                  f"_exit_now({code!r})\n"
                  "print('not reached')\n")
    assert (res.returncode, res.stdout, res.stderr) == (status, "outputhandler ran\n", stderr)


def test_a_running_thread_leaves_the_usual_way():
    res = _python("import threading, time\n"
                  "from evalband.cli.main import _exit_now\n"
                  "t = threading.Thread(target=time.sleep, args=(0.5,)); t.start()\n"
                  "_exit_now(0)\n"
                  "print('returned')\n")
    assert res.returncode == 0 and res.stdout == "returned\n"
