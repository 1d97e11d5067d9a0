"""Benchmark of the bootstrap engine against the naive loop, scipy.stats.bootstrap and the floor (issue 3).

Workloads (binary items, paired and stratified by task):
  W1: 10 models x 19 tasks x 1,000 items, B = 10,000
  W2: 20 models x 50 tasks x 10,000 items, B = 2,000
The full job: per-model intervals of the mean over tasks, all pairwise difference intervals, rank distributions.

Baselines, run in the same process and printed as ratios:
  naive  seed 000's loop: per model, replicate and task, Generator.choice of the task's items, then the mean over
         tasks (models resampled independently, as in the seed). Timed on a subset of replicates and extrapolated
         linearly to B (printed); the differences and ranks on top are negligible and not added.
  scipy  scipy.stats.bootstrap with each task as one (models x items) sample, axis=-1, a vectorized statistic
         returning [per-model means, pairwise differences, ranks], method='percentile' (memory-bounded batches).
         On W2 timed on a subset of replicates and extrapolated (printed).
  floor  the engine's own random draws (raw 64-bit words of the same streams) plus the weighted sums (the count
         matrix times the score matrix, one BLAS product per task and block); no counting, no intervals.

Usage: python benchmarks/bootstrap.py [--workload w1|w2|all] [--repeats 3] [--blas-threads 1] [--quick]
BLAS is limited to --blas-threads threads for every method (set before NumPy loads); --blas-threads 0 leaves the
library's default (a thread per core), as a user's process has it: the engine then limits BLAS to one thread in
its own workers (issue 27), which the line "engine full job on N threads" checks.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def _args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--workload", default="all", choices=["w1", "w2", "all"])
    p.add_argument("--repeats", type=int, default=3, help="timings per method (median reported)")
    p.add_argument("--blas-threads", type=int, default=1, help="0: the BLAS library's default")
    p.add_argument("--seed", type=int, default=20261130)
    p.add_argument("--naive-replicates", type=int, default=None, help="replicates timed for the naive loop")
    p.add_argument("--scipy-replicates", type=int, default=None, help="replicates timed for scipy on W2")
    p.add_argument("--quick", action="store_true", help="smaller baselines subsets (development only)")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


ARGS = _args()
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    if ARGS.blas_threads > 0:
        os.environ[var] = str(ARGS.blas_threads)
    else:
        os.environ.pop(var, None)

import numpy as np  # noqa: E402
import scipy  # noqa: E402
from scipy import stats  # noqa: E402

from evalband.aggregate import get_aggregate  # noqa: E402
from evalband.resample import ItemColumns, bootstrap, interval  # noqa: E402
from evalband.resample import _kernels  # noqa: E402
from workloads import WORKLOADS, make_data, naive_loop, scipy_job  # noqa: E402  (shared with cli.py)


def engine_job(scores, B, seed, executor=None, threads=1):
    """The full job on ``threads`` threads (1, the ratios' setting, unless named; None: every core, the engine's
    default since issue 14)."""
    m, t = scores[0].shape[0], len(scores)
    cols = ItemColumns([f"m{i}" for i in range(m)], [f"t{k}" for k in range(t)],
                       {f"t{k}": {"score": s} for k, s in enumerate(scores)})
    reps = bootstrap(cols, n_resamples=B, rng=seed, progress=False, executor=executor, threads=threads)
    agg = get_aggregate("mean")
    a, obs = agg(reps.replicates), agg(reps.observed)
    ci = interval(a, obs)
    i, j = np.triu_indices(m, 1)
    dci = interval(a[:, i] - a[:, j], obs[i] - obs[j])
    ranks = stats.rankdata(-a, axis=1)
    rank_dist = np.stack([(np.rint(ranks) == r).mean(axis=0) for r in range(1, m + 1)], axis=1)
    return ci, dci, rank_dist, reps


def floor_job(scores, B, seed):
    """The same raw words the engine draws, plus one weighted-sum product per task and block."""
    m = scores[0].shape[0]
    n = scores[0].shape[1]
    bs = _kernels.block_size(n)
    bits = _kernels._word_bits(n)
    x2 = [np.ascontiguousarray(s.T, dtype=np.float32) for s in scores]
    counts = {c: np.ones((c, n), dtype=np.float32) for c in {min(bs, B - b0) for b0 in range(0, B, bs)}}
    entropy = (seed, 1, 2, 3)
    t_draw = t_sum = 0.0
    for k, x in enumerate(x2):
        for b, b0 in enumerate(range(0, B, bs)):
            c = min(bs, B - b0)
            start = time.perf_counter()
            gen = _kernels.block_generator(entropy, (k, b))
            gen.bit_generator.random_raw(_kernels._words_for(c * n, n))  # the same words, drawn by NumPy
            mid = time.perf_counter()
            (counts[c] @ x).astype(np.float64)
            t_draw += mid - start
            t_sum += time.perf_counter() - mid
    return t_draw, t_sum


def timed(fn, *a, **k):
    start = time.perf_counter()
    out = fn(*a, **k)
    return time.perf_counter() - start, out


def versions():
    import platform

    import evalband
    try:
        import numba
        nb = numba.__version__
    except ImportError:
        nb = "not installed"
    return (f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, numba {nb},"
            f" evalband {getattr(evalband, '__version__', '?')}")


def _peak_rss_kb() -> float:
    """This process's peak resident set (VmHWM of /proc/self/status; ru_maxrss would include the parent's
    resident set at spawn time)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return float(line.split()[1])
    except OSError:
        pass
    import resource

    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def child_w2_engine():
    """Run the W2 engine job alone and report time and peak memory (resident set) as JSON."""
    w = WORKLOADS["w2"]
    scores = make_data(w["models"], w["tasks"], w["items"], ARGS.seed)
    base = _peak_rss_kb()
    t, _ = timed(engine_job, scores, w["B"], ARGS.seed)
    peak = _peak_rss_kb()
    traced = None
    if ARGS.trace:
        import tracemalloc

        tracemalloc.start()
        engine_job(scores, w["B"], ARGS.seed)
        traced = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    print(json.dumps({"time": t, "peak_mb": peak / 1024, "data_peak_mb": base / 1024, "job_alloc_mb": traced}))


def run_w1():
    w = WORKLOADS["w1"]
    M, T, N, B = w["models"], w["tasks"], w["items"], w["B"]
    print(f"\nW1: {M} models x {T} tasks x {N:,} binary items, B = {B:,} (data seed {ARGS.seed}, bootstrap seed"
          f" {ARGS.seed})")
    scores = make_data(M, T, N, ARGS.seed)
    engine_job([s[:, :50] for s in scores[:2]], 100, 1)  # compile the numba kernel (cached afterwards)
    # engine runs are interleaved with the baselines (before and after each) so that load changes on a shared
    # machine hit both sides of every ratio alike
    eng, flo = [], []
    for _ in range(ARGS.repeats):
        eng.append(timed(engine_job, scores, B, ARGS.seed)[0])
        td, ts = floor_job(scores, B, ARGS.seed)
        flo.append(td + ts)
    with _kernels.use_backend("numpy"):
        t_np = timed(engine_job, scores, B, ARGS.seed)[0]
    n_naive = ARGS.naive_replicates or (20 if ARGS.quick else 100)
    t_nv, _ = timed(naive_loop, scores, n_naive, ARGS.seed)
    eng.append(timed(engine_job, scores, B, ARGS.seed)[0])
    t_naive = t_nv * B / n_naive
    b_scipy = B if not ARGS.quick else 1000
    t_sc, _ = timed(scipy_job, scores, b_scipy, ARGS.seed, 250)
    eng.append(timed(engine_job, scores, B, ARGS.seed)[0])
    t_scipy = t_sc * B / b_scipy
    from evalband.resample import available_cores

    cores = available_cores()
    thr = []  # the default (every core), interleaved with one-thread runs so that load hits both alike
    one = []
    cpu_thr, cpu_one = [], []  # CPU seconds of the process (every thread): BLAS threads spinning would show here
    for _ in range(ARGS.repeats):
        c0 = time.process_time()
        thr.append(timed(engine_job, scores, B, ARGS.seed, None, None)[0])
        c1 = time.process_time()
        one.append(timed(engine_job, scores, B, ARGS.seed)[0])
        cpu_thr.append(c1 - c0)
        cpu_one.append(time.process_time() - c1)
    same = engine_job(scores, B, ARGS.seed, None, None)[3].replicates.tobytes() == \
        engine_job(scores, B, ARGS.seed)[3].replicates.tobytes()
    t_thr, t_one = float(np.median(thr)), float(np.median(one))
    eng += one
    t_eng, t_floor = float(np.median(eng)), float(np.median(flo))
    print(f"  engine full job ({_kernels.backend()} counts): median {t_eng:.3f} s over {len(eng)} runs"
          f" {np.round(eng, 3).tolist()}")
    print(f"  engine full job (pure-NumPy fallback):  {t_np:.3f} s")
    print(f"  engine full job on {cores} threads (the default): median {t_thr:.3f} s vs {t_one:.3f} s on one"
          f" thread in the same loop: {t_one / t_thr:.2f}x; CPU {np.median(cpu_thr):.3f} s vs {np.median(cpu_one):.3f} s;"
          f" byte-identical replicates: {same} (threads are not used for the ratios below)")
    print(f"  floor (draws {td:.3f} s + weighted sums {ts:.3f} s, last run): median {t_floor:.3f} s over"
          f" {len(flo)} runs")
    print(f"  naive loop: {t_nv:.2f} s for {n_naive} replicates -> {t_naive:.1f} s extrapolated to B = {B:,}")
    print(f"  scipy.stats.bootstrap: {t_sc:.2f} s for B = {b_scipy:,}" + (f" -> {t_scipy:.1f} s extrapolated"
                                                                         if b_scipy != B else ""))
    # agreement of the engine with scipy (same design, different random numbers): interval ends within MC error
    ci, dci, rank_dist, reps = engine_job(scores, B, ARGS.seed)
    res, _ = scipy_job(scores, 2000, ARGS.seed, 250)
    gap = np.max(np.abs(ci.low - res.confidence_interval.low[:M]))
    print(f"  max |engine - scipy| lower end of per-model 95% intervals: {gap:.5f} (bootstrap SD ~"
          f" {reps.replicates.mean(axis=2).std(axis=0).mean():.5f})")
    r_naive, r_scipy, r_floor = t_naive / t_eng, t_scipy / t_eng, t_eng / t_floor
    print(f"  ratios: naive/engine {r_naive:.0f}x (target >= 150x: {'met' if r_naive >= 150 else 'NOT met'}),"
          f" scipy/engine {r_scipy:.0f}x (target >= 30x: {'met' if r_scipy >= 30 else 'NOT met'}),"
          f" engine/floor {r_floor:.2f}x (target <= 2x: {'met' if r_floor <= 2 else 'NOT met'})")
    print(f"  bounds for any engine built on these draws: naive/floor {t_naive / t_floor:.0f}x,"
          f" scipy/floor {t_scipy / t_floor:.0f}x")


def run_w2():
    w = WORKLOADS["w2"]
    M, T, N, B = w["models"], w["tasks"], w["items"], w["B"]
    print(f"\nW2: {M} models x {T} tasks x {N:,} binary items, B = {B:,} (seed {ARGS.seed})")
    def child(trace):
        out = subprocess.run([sys.executable, __file__, "--child", "w2", "--seed", str(ARGS.seed),
                              "--blas-threads", str(ARGS.blas_threads)] + (["--trace"] if trace else []),
                             capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    # engine runs before and after the baselines, so that load changes hit both sides of the ratios alike
    runs = [child(trace=True)] + [child(trace=False) for _ in range(max(0, ARGS.repeats - 2))]
    scores = make_data(M, T, N, ARGS.seed)
    td, ts = floor_job(scores, B, ARGS.seed)
    b_scipy = ARGS.scipy_replicates or (50 if ARGS.quick else 200)
    t_sc, _ = timed(scipy_job, scores, b_scipy, ARGS.seed, 50)
    t_scipy = t_sc * B / b_scipy
    n_naive = ARGS.naive_replicates or (2 if ARGS.quick else 5)
    t_nv, _ = timed(naive_loop, scores, n_naive, ARGS.seed)
    runs.append(child(trace=False))
    t_eng = float(np.median([r["time"] for r in runs]))
    peak = max(r["peak_mb"] for r in runs)
    print(f"  engine full job: median {t_eng:.2f} s over {len(runs)} runs {[round(r['time'], 2) for r in runs]};"
          f" peak resident memory {peak:.0f} MB (data and imports alone {runs[0]['data_peak_mb']:.0f} MB; the job's"
          f" own NumPy allocations peak at {runs[0]['job_alloc_mb']:.0f} MB, tracemalloc)")
    print(f"  floor: draws {td:.2f} s + weighted sums {ts:.2f} s = {td + ts:.2f} s")
    print(f"  scipy.stats.bootstrap: {t_sc:.2f} s for {b_scipy} replicates -> {t_scipy:.1f} s extrapolated to"
          f" B = {B:,}")
    print(f"  naive loop: {t_nv:.2f} s for {n_naive} replicates -> {t_nv * B / n_naive:.0f} s extrapolated")
    r_scipy = t_scipy / t_eng
    print(f"  ratios: scipy/engine {r_scipy:.0f}x (target >= 90x: {'met' if r_scipy >= 90 else 'NOT met'}),"
          f" naive/engine {t_nv * B / n_naive / t_eng:.0f}x, engine/floor {t_eng / (td + ts):.2f}x;"
          f" peak memory {peak:.0f} MB (target < 2048 MB: {'met' if peak < 2048 else 'NOT met'})")
    print(f"  bound for any engine built on these draws: scipy/floor {t_scipy / (td + ts):.0f}x")


def main():
    if ARGS.child == "w2":
        child_w2_engine()
        return
    blas = ARGS.blas_threads or "library default"
    print(f"evalband bootstrap benchmark; CPUs: {os.cpu_count()}; BLAS threads: {blas};"
          f" count kernel: {_kernels.backend()}")
    print(f"versions: {versions()}")
    print(f"seeds: data and bootstrap {ARGS.seed}; repeats {ARGS.repeats} (medians); load average at start"
          f" {os.getloadavg()[0]:.2f}")
    if ARGS.workload in ("w1", "all"):
        run_w1()
    if ARGS.workload in ("w2", "all"):
        run_w2()
    print(f"\nload average at end {os.getloadavg()[0]:.2f} (the machine is shared: compare ratios, not seconds)")


if __name__ == "__main__":
    main()
