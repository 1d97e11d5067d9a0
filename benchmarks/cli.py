"""Benchmark: the commands as a user runs them (issue 27), each beside its baselines in the same run.

Every command runs in a fresh process, CSV in and JSON out, after one warm-up run that fills the file cache,
writes the ``.pyc`` files and the numba cache as an installed package has them (``PYTHONDONTWRITEBYTECODE`` is
unset for the children). For each: the median wall time over ``--repeat`` runs, the child's CPU time (user +
system) and its peak resident memory (``ru_maxrss`` of that child, from ``os.wait4``).

Rows and baselines:

* ``compare`` on W1 (10 models x 19 tasks x 1,000 binary items, the long CSV of ``workloads.py``; the workload
  of ``bootstrap.py``), ``--n-resamples 10000 --seed 1 --format json``, beside

  - the naive loop (``bootstrap.py``'s: per model, replicate and task, ``Generator.choice`` of the task's items),
    timed in a child on ``--naive-replicates`` replicates and extrapolated linearly to B = 10,000 (the issue's
    reference: 38.9 s; target: evalband end to end >= 30x faster);
  - ``scipy.stats.bootstrap`` of the same job (per-model means over tasks and every pairwise difference,
    percentile intervals, paired by task), B = 10,000 (``--scipy-replicates`` fewer, then extrapolated), in a
    child that also reads the CSV with pandas.

  The JSON's SHA-256 is checked against the bytes of the code before issue 27 (same seed, same bytes).
* ``compare`` with ``--threads 1``, and ``rank`` on W1: the engine on one thread; another bootstrapping command.
* Start-up: ``plan --baseline 0.74 --effect 0.04 --n 120 --correlation 0.5`` (typed numbers; target <= 0.6 s) and
  ``summarize --example vtab`` (target <= 1.2 s), beside ``python -c "import typer"`` (a bare interpreter with
  the CLI framework) and ``python -c pass``.
* BLAS oversubscription (``--blas``): each bootstrapping command (compare, rank, frontier, arena, report, variance
  on W1 or a test fixture) with the BLAS library's default threads and with ``OPENBLAS_NUM_THREADS=1``; a ratio near 1
  means the engine's workers no longer oversubscribe the cores.
* Rows added by name in :data:`EXTRA_ROWS` (``--extra``): the REML (``evalband variance``, beside lme4 through
  ``Rscript`` when present, else statsmodels' MixedLM) and Bayesian logistic (``evalband bayes --model
  logistic``, beside NumPyro NUTS) rows of issue 27 are registered there by the work on those models, with the
  same row helpers (:func:`run_row`).

``--before SRC`` adds, beside each compare, start-up and BLAS row, the same command run on another source tree (the
``src`` folder of an earlier commit, put first on ``PYTHONPATH``; e.g. ``git archive 7683b6d src | tar -x -C
/tmp/before``), interleaved with the current code's runs: before and after in one run.

Usage::

    python benchmarks/cli.py                 # compare, start-up (5 runs each)
    python benchmarks/cli.py --before /tmp/before/src   # and the code before issue 27 beside it
    python benchmarks/cli.py --blas          # and the BLAS rows of every bootstrapping command
    python benchmarks/cli.py --repeat 9 --naive-replicates 200 --scipy-replicates 10000

The machine is shared: the load average is printed at start and end; compare the ratios (measured in the same
run), not the seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

#: SHA-256 of ``evalband compare w1.csv --n-resamples 10000 --seed 1 --format json`` (stdout) from the code
#: before issue 27 (commit 7683b6d): the speed work changes no number
W1_COMPARE_SHA256 = "ccdbc897a9e6cb18882e50fa5cc75bbd117bad3baf75c2a264d5aab8c45ab14a"
#: SHA-256 of the W1 CSV the workload writes (so the hash above is about the same input)
W1_CSV_SHA256 = "a07dc9704e7ab09bc69019762ceae14563328db7210416fe88ba0420027e0273"

TARGETS = {"compare-w1": ("naive loop / evalband >= 30x", 30.0), "plan": ("<= 0.6 s", 0.6),
           "summarize": ("<= 1.2 s", 1.2)}


@dataclass
class Run:
    """One child process: wall and CPU seconds, peak resident memory, exit status, standard output."""

    wall: float
    cpu: float
    maxrss_mb: float
    status: int
    stdout: bytes


@dataclass
class Row:
    """A command (``argv`` after the interpreter) and its runs."""

    name: str
    argv: list[str]
    env: dict = field(default_factory=dict)
    runs: list[Run] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return statistics.median(r.wall for r in self.runs)

    @property
    def cpu(self) -> float:
        return statistics.median(r.cpu for r in self.runs)

    @property
    def maxrss_mb(self) -> float:
        return max(r.maxrss_mb for r in self.runs)


def _child_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    env.update(extra or {})
    return {k: v for k, v in env.items() if v is not None}


def run_once(argv: list[str], env: dict | None = None, cwd: Path = ROOT) -> Run:
    """Run ``argv`` in a fresh process; its own rusage (``os.wait4``), not the sum over children."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=_child_env(env), cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read()
        if proc.returncode != 0:
            sys.stderr.write(f"  ! {' '.join(argv[1:])} exited {proc.returncode}: {err.read().decode()[-400:]}\n")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode, stdout)


def evalband(*args: str) -> list[str]:
    return [sys.executable, "-m", "evalband", *args]


def run_row(row: Row, repeat: int, *, warm: bool = True) -> Row:
    """A warm-up run (file cache, .pyc, numba cache), then ``repeat`` timed runs."""
    if warm:
        run_once(row.argv, row.env)
    row.runs = [run_once(row.argv, row.env) for _ in range(repeat)]
    return row


def interleaved(rows: list[Row], repeat: int) -> list[Row]:
    """Rows timed in turn (a, b, c, a, b, c, ...), so that load changes on a shared machine hit each alike."""
    for row in rows:
        run_once(row.argv, row.env)
    for _ in range(repeat):
        for row in rows:
            row.runs.append(run_once(row.argv, row.env))
    return rows


def show(row: Row, *, base: Row | None = None, note: str = "") -> None:
    ratio = f"{row.wall / base.wall:7.2f}x {base.name}" if base is not None else ""
    print(f"  {row.name:34s} wall {row.wall:7.3f} s  cpu {row.cpu:7.3f} s  peak {row.maxrss_mb:7.0f} MB"
          f"  {ratio}{note}")


# --- baselines of compare: children that read the CSV as a user's script would -------------------------------

def child_baseline(kind: str, path: str, replicates: int, seed: int) -> None:
    """Child: read ``path`` with pandas, then the naive loop or scipy.stats.bootstrap; prints JSON timings."""
    t0 = time.perf_counter()
    import numpy as np
    import pandas as pd

    frame = pd.read_csv(path)
    tasks = sorted(frame["task"].unique(), key=lambda t: int(t[1:]))
    scores = []
    for task in tasks:
        wide = frame[frame["task"] == task].pivot(index="model", columns="item", values="score")
        wide = wide.loc[sorted(wide.index, key=lambda m: int(m[1:]))]
        scores.append(wide.to_numpy(dtype=np.float64))
    t_read = time.perf_counter() - t0
    if kind == "naive":
        from workloads import naive_loop

        t1 = time.perf_counter()
        naive_loop(scores, replicates, seed)
    else:
        from workloads import scipy_job

        t1 = time.perf_counter()
        scipy_job(scores, replicates, seed, 250)
    print(json.dumps({"read": t_read, "work": time.perf_counter() - t1, "replicates": replicates}))


def baseline(kind: str, path: Path, replicates: int, seed: int) -> tuple[dict, Run]:
    run = run_once([sys.executable, __file__, "--child", kind, "--csv", str(path), "--replicates",
                    str(replicates), "--seed", str(seed)])
    return json.loads(run.stdout.decode().strip().splitlines()[-1]), run


# --- the groups of rows ----------------------------------------------------------------------------------------

def before(row: Row, args) -> list[Row]:
    """``row`` run on the ``--before`` source tree (none without the option)."""
    if not args.before:
        return []
    return [Row(f"{row.name} [before]", row.argv, env={**row.env, "PYTHONPATH": str(Path(args.before).resolve())})]


#: the quantities this run measured that the README quotes (benchmarks/readme_claims.py)
MEASURED: dict[str, float] = {}


def compare_rows(args, w1: Path) -> None:
    print(f"\ncompare on W1 ({w1.name}: 10 models x 19 tasks x 1,000 items; B = 10,000)")
    cmd = Row("evalband compare (default)", evalband("compare", str(w1), "--n-resamples", "10000", "--seed", "1",
                                                     "--format", "json"))
    one = Row("evalband compare --threads 1", cmd.argv + ["--threads", "1"])
    rank = Row("evalband rank", evalband("rank", str(w1), "--n-resamples", "10000", "--seed", "1", "--format",
                                         "json"))
    old = before(cmd, args)
    interleaved([cmd, one, rank, *old], args.repeat)
    naive, naive_run = baseline("naive", w1, args.naive_replicates, 1)
    t_naive = naive["work"] * 10_000 / naive["replicates"]
    scipy_b = args.scipy_replicates
    sc, sc_run = baseline("scipy", w1, scipy_b, 1)
    t_scipy = sc["read"] + sc["work"] * 10_000 / scipy_b
    run_row(cmd, 2, warm=False)  # engine runs after the baselines too: load changes hit both sides
    same = {hashlib.sha256(r.stdout).hexdigest() for r in cmd.runs + one.runs}
    show(cmd)
    show(one, base=cmd)
    show(rank, base=cmd)
    for row in old:
        show(row, base=cmd)
    print(f"  naive loop: {naive['work']:.2f} s for {naive['replicates']} replicates -> {t_naive:.1f} s at"
          f" B = 10,000 (reading the CSV with pandas: {naive['read']:.2f} s; child peak {naive_run.maxrss_mb:.0f} MB)")
    print(f"  scipy.stats.bootstrap: reading {sc['read']:.2f} s + {sc['work']:.2f} s for B = {scipy_b:,}"
          + (f" -> {t_scipy:.1f} s at B = 10,000" if scipy_b != 10_000 else f" = {t_scipy:.1f} s")
          + f" (child peak {sc_run.maxrss_mb:.0f} MB)")
    r_naive, r_scipy = t_naive / cmd.wall, t_scipy / cmd.wall
    target = TARGETS["compare-w1"][1]
    print(f"  ratios, end to end: naive loop / evalband {r_naive:.1f}x (target >= {target:.0f}x:"
          f" {'met' if r_naive >= target else 'NOT met'}), scipy.stats.bootstrap / evalband {r_scipy:.1f}x;"
          f" CPU naive / evalband {t_naive / cmd.cpu:.1f}x")
    if old:
        t_old = old[0].wall
        print(f"  before: naive loop / evalband {t_naive / t_old:.1f}x end to end; after / before: {cmd.wall / t_old:.2f}"
              f" wall, {cmd.cpu / old[0].cpu:.2f} CPU")
        same |= {hashlib.sha256(r.stdout).hexdigest() for r in old[0].runs}
    MEASURED.update({"cli.compare_w1_seconds": cmd.wall, "cli.compare_naive_ratio": r_naive,
                     "cli.compare_scipy_ratio": r_scipy, "cli.compare_threads_ratio": one.wall / cmd.wall})
    if old:
        MEASURED["cli.compare_before_seconds"] = old[0].wall
    ok = same == {W1_COMPARE_SHA256}
    print(f"  JSON bytes identical to the code before issue 27 (sha256 {W1_COMPARE_SHA256[:12]}...), with and"
          f" without --threads 1: {'yes' if ok else 'NO: ' + ', '.join(sorted(same))}")


def startup_rows(args) -> None:
    print("\nstart-up (fresh process; typed numbers and a bundled example)")
    rows = [Row("python -c pass", [sys.executable, "-c", "pass"]),
            Row("python -c 'import typer'", [sys.executable, "-c", "import typer"]),
            Row("evalband plan (typed numbers)", evalband("plan", "--baseline", "0.74", "--effect", "0.04", "--n",
                                                          "120", "--correlation", "0.5")),
            Row("evalband plan --format json", evalband("plan", "--baseline", "0.74", "--effect", "0.04", "--n",
                                                        "120", "--correlation", "0.5", "--format", "json")),
            Row("evalband summarize --example vtab", evalband("summarize", "--example", "vtab")),
            Row("evalband summarize vtab --format json", evalband("summarize", "--example", "vtab", "--format",
                                                                  "json"))]
    plan, summarize = rows[2], rows[4]
    old = {key: before(row, args) for key, row in (("plan", plan), ("summarize", summarize))}
    interleaved(rows + old["plan"] + old["summarize"], args.repeat)
    typer_row = rows[1]
    for row in rows + old["plan"] + old["summarize"]:
        show(row, base=typer_row if row is not typer_row else None)
    for key, row in (("plan", plan), ("summarize", summarize)):
        text, limit = TARGETS[key]
        was = f"; before {old[key][0].wall:.3f} s (CPU {old[key][0].cpu:.3f} s)" if old[key] else ""
        print(f"  target {row.name} {text}: {row.wall:.3f} s {'met' if row.wall <= limit else 'NOT met'}"
              f" (CPU {row.cpu:.3f} s){was}")
        MEASURED[{"plan": "cli.plan_seconds", "summarize": "cli.summarize_seconds"}[key]] = row.wall
        if old[key]:
            MEASURED[{"plan": "cli.plan_before_seconds", "summarize": "cli.summarize_before_seconds"}[key]] = \
                old[key][0].wall


def blas_rows(args, w1: Path) -> None:
    print("\nBLAS oversubscription: each bootstrapping command with the BLAS library's default threads and with"
          " OPENBLAS_NUM_THREADS=1 (ratio near 1: no oversubscription)")
    fixtures = ROOT / "tests" / "fixtures"
    commands = {
        "compare": ("compare", str(w1), "--n-resamples", "10000", "--seed", "1", "--format", "json"),
        "rank": ("rank", str(w1), "--n-resamples", "10000", "--seed", "1", "--format", "json"),
        "frontier": ("frontier", str(fixtures / "frontier" / "contract.csv"), "--n-resamples", "10000", "--seed",
                     "1", "--format", "json"),
        "arena": ("arena", str(fixtures / "llmfao" / "crowd-comparisons.csv"), "--n-resamples", "1000", "--seed",
                  "1", "--format", "json"),
        "report": ("report", str(w1), "--n-resamples", "2000", "--seed", "1", "--output", "{tmp}/report.html"),
        "variance": ("variance", str(fixtures / "facets" / "prompts_trials.csv"), "--differences", "--seed", "1",
                     "--format", "json"),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, argv in commands.items():
            argv = [a.replace("{tmp}", tmp) for a in argv]
            default = Row(f"{name} (BLAS default)", evalband(*argv))
            single = Row(f"{name} (OPENBLAS_NUM_THREADS=1)", evalband(*argv),
                         env={"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
            old = [r for row in (default, single) for r in before(row, args)]
            interleaved([default, single, *old], max(1, args.repeat // 2))
            same = len({r.stdout for r in default.runs + single.runs}) == 1
            show(default)
            show(single, base=default, note=f"; same output: {'yes' if same else 'NO'}")
            if old:
                show(old[0], base=default)
                show(old[1], base=old[0])


#: name -> function(args, w1_path) printing rows beside their baselines: the REML (``evalband variance`` beside
#: lme4 via Rscript, else statsmodels MixedLM) and logistic-model (``evalband bayes --model logistic`` beside
#: NumPyro NUTS) rows of issue 27 register here, built from :func:`run_row`, :func:`interleaved` and :func:`show`
EXTRA_ROWS: dict = {}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each command (median shown)")
    parser.add_argument("--naive-replicates", type=int, default=100)
    parser.add_argument("--scipy-replicates", type=int, default=2000)
    parser.add_argument("--blas", action="store_true", help="also the BLAS rows of every bootstrapping command")
    parser.add_argument("--only", default="compare,startup", help="groups: compare, startup")
    parser.add_argument("--before", default=None, help="source tree (a src folder) of the code to compare with")
    parser.add_argument("--extra", default="", help=f"rows of {', '.join(EXTRA_ROWS) or 'none registered'}")
    parser.add_argument("--check-readme", action="store_true", help="exit 1 when a README figure disagrees")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--csv", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--replicates", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child_baseline(args.child, args.csv, args.replicates, args.seed)
        return 0
    import platform

    import numpy
    import scipy

    from workloads import SEED, WORKLOADS, make_data, write_long_csv

    print(f"evalband command-line benchmark; CPUs: {os.cpu_count()}; python {platform.python_version()}, numpy"
          f" {numpy.__version__}, scipy {scipy.__version__}; load average at start {os.getloadavg()[0]:.2f}")
    groups = {g.strip() for g in args.only.split(",") if g.strip()}
    with tempfile.TemporaryDirectory() as tmp:
        w1 = Path(tmp) / "w1.csv"
        w = WORKLOADS["w1"]
        write_long_csv(make_data(w["models"], w["tasks"], w["items"], SEED), w1)
        digest = hashlib.sha256(w1.read_bytes()).hexdigest()
        if digest != W1_CSV_SHA256:
            print(f"  note: the W1 CSV differs from the one the stored JSON hash was made from ({digest[:12]}...)")
        if "startup" in groups:
            startup_rows(args)
        if "compare" in groups:
            compare_rows(args, w1)
        if args.blas:
            blas_rows(args, w1)
        for name in (e.strip() for e in args.extra.split(",") if e.strip()):
            if name not in EXTRA_ROWS:
                raise SystemExit(f"--extra: no rows named {name!r}; registered: {', '.join(EXTRA_ROWS) or 'none'}")
            EXTRA_ROWS[name](args, w1)
    print(f"\nload average at end {os.getloadavg()[0]:.2f} (the machine is shared: compare ratios, not seconds)")
    from readme_claims import report

    report(MEASURED, check=args.check_readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
