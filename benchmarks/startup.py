"""Benchmark: start-up time of the ``evalband`` command (issue 13), against a bare Python with typer, same run.

Target: ``evalband --version`` within 1.5x the time of ``python -c "import typer"`` (a bare interpreter plus the
CLI framework: what any typer command costs before doing anything), and ``evalband --help``,
``evalband --version`` and ``evalband COMMAND --help`` load none of NumPy, pandas, SciPy or matplotlib.

Each command runs ``--repeat`` times in a fresh subprocess (after one warm-up run that fills the file cache); the
median wall time is printed beside the baselines' and the ratio. The heavy modules loaded are read from
``sys.modules`` at exit of a child that runs the CLI in-process.

Usage::

    python benchmarks/startup.py             # 15 runs of each
    python benchmarks/startup.py --repeat 40
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

HEAVY = ("numpy", "pandas", "scipy", "matplotlib")

BASELINES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python + typer": [sys.executable, "-c", "import typer"],
}

COMMANDS = {
    "evalband --version": ["--version"],
    "evalband --help": ["--help"],
    "evalband compare --help": ["compare", "--help"],
    "evalband report --help": ["report", "--help"],
}

# runs the CLI in-process and prints the heavy modules it loaded
PROBE = r"""
import sys
from evalband.cli.main import app
try:
    app(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
print("LOADED", ",".join(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[0].split(',')))))
"""


def _time(argv, repeat: int) -> float:
    subprocess.run(argv, capture_output=True, check=False)  # warm-up: file cache, .pyc files
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _loaded(args) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.replace("sys.argv[0]", repr(",".join(HEAVY))), *args],
                         capture_output=True, text=True, check=False).stdout
    line = [x for x in out.splitlines() if x.startswith("LOADED")]
    return [m for m in line[-1].split(" ", 1)[1].split(",") if m] if line else ["?"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "evalband"]
    base = {name: _time(argv, args.repeat) for name, argv in BASELINES.items()}
    print(f"{'command':28s} {'median s':>9s} {'x typer':>8s}  heavy modules loaded")
    for name, t in base.items():
        print(f"{name:28s} {t:9.3f} {t / base['python + typer']:8.2f}")
    ok = True
    for name, extra in COMMANDS.items():
        t = _time(cli + extra, args.repeat)
        loaded = _loaded(extra)
        ratio = t / base["python + typer"]
        print(f"{name:28s} {t:9.3f} {ratio:8.2f}  {', '.join(loaded) or 'none'}")
        ok &= not loaded
        if name == "evalband --version":
            ok &= ratio <= 1.5
    print("target (--version <= 1.5x python + typer; no heavy module):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
