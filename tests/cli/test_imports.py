"""Each command imports what it needs when it needs it (issue 27): a plan from typed numbers loads neither pandas
nor scipy.stats, a summary no numba, a comparison of item data neither scipy.stats nor scipy.special. Run in a
fresh interpreter each, as a user runs the command; the modules loaded are read from ``sys.modules`` at exit."""

import subprocess
import sys

import pytest

PROBE = r"""
import contextlib, io, sys
from evalband.cli.main import app
with contextlib.redirect_stdout(io.StringIO()):
    try:
        app(sys.argv[1:], standalone_mode=False)
    except SystemExit:
        pass
watched = ("pandas", "numba", "scipy.stats", "scipy.special", "scipy.optimize", "scipy.sparse", "matplotlib")
print("LOADED", ",".join(m for m in watched if m in sys.modules))
"""

TYPED = ["plan", "--baseline", "0.74", "--effect", "0.04", "--n", "120", "--correlation", "0.5"]


def _loaded(args) -> set[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, *map(str, args)], capture_output=True, text=True)
    line = [x for x in out.stdout.splitlines() if x.startswith("LOADED")]
    assert line, out.stderr[-2000:]
    return {m for m in line[-1].split(" ", 1)[1].split(",") if m}


@pytest.fixture(scope="module")
def items_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("imports") / "items.csv"
    rows = ["model,task,item,score"] + [f"m{m},t{t},i{i},{(m * 7 + t * 3 + i * 5) % 3 == 0:d}"
                                         for m in range(3) for t in range(2) for i in range(40)]
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_a_plan_from_typed_numbers_loads_no_pandas_and_no_scipy_stats(fmt):
    loaded = _loaded(TYPED + ["--format", fmt])
    assert not loaded & {"pandas", "numba", "scipy.stats", "matplotlib"}, loaded  # (scipy.optimize loads sparse)


def test_summarize_loads_no_numba_and_no_scipy_stats():
    loaded = _loaded(["summarize", "--example", "vtab"])
    assert "pandas" in loaded  # the summary is a frame
    assert not loaded & {"numba", "scipy.stats", "scipy.optimize", "scipy.sparse", "matplotlib"}, loaded


@pytest.mark.parametrize("command", ["compare", "rank"])
def test_bootstrapping_item_data_loads_no_scipy_stats_special_or_sparse(command, items_csv):
    loaded = _loaded([command, items_csv, "--n-resamples", "200", "--seed", "1", "--format", "json"])
    assert "numba" in loaded  # the count kernel
    assert not loaded & {"scipy.stats", "scipy.special", "scipy.optimize", "scipy.sparse", "matplotlib"}, loaded
