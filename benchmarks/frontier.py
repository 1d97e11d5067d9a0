"""Benchmark of the quality-cost frontier (issue 18) against named baselines, in the same run, with ratios.

Workload F1: 20 models x 10 tasks x 1,000 items (binary scores, lognormal costs sharing an item effect, latencies),
B = 2,000. (--large: 20 models x 20 tasks x 5,000 items.)

Methods, each in its own process (time and peak resident memory, VmHWM):
  frontier      evalband.costs.frontier(table, latency=False): quality and BCa cost from one joint engine run,
                intervals, Pareto set and the 380 ordered-pair domination tests with Holm.
  two-runs      the same per-task statistics from two separate engine runs (quality: evalband.bootstrap; cost sums
                and counts: a second bootstrap of an ItemColumns), without intervals or tests: what the joint
                run replaces.
  quality-only  evalband.bootstrap(table) and the mean over tasks: the floor of any frontier on this engine.
  scipy         scipy.stats.bootstrap(method='BCa') of each model's pooled mean cost per item (the 10 tasks as 10
                samples, i.e. stratified), one call per model: per-model cost intervals only, no pairing, no quality.
                Timed on 3 models and extrapolated to 20 (printed).
  latency       evalband.costs.latency_quantiles (median, p95, paired): each replicate's quantiles from the sorted
                items and the cumulative draw counts.
  latency-items the same quantiles through the engine's item path, evalband.resample.bootstrap_items (paired, the
                same draws) with a NaN-aware quantile of every replicate's drawn items: the baseline of 'latency'
                (round 1's implementation); both print a checksum of their replicates, which must agree.

Usage: python benchmarks/frontier.py [--large] [--repeats 1] [--blas-threads 1]
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
    p.add_argument("--large", action="store_true")
    p.add_argument("--repeats", type=int, default=1, help="runs per method (median reported)")
    p.add_argument("--blas-threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=20261201)
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


ARGS = _args()
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(ARGS.blas_threads)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

SIZES = dict(models=20, tasks=20, items=5000, B=2000) if ARGS.large else dict(models=20, tasks=10, items=1000,
                                                                               B=2000)
SCIPY_MODELS = 3


def make_frame(models, tasks, items, seed):
    gen = np.random.default_rng(seed)
    parts = []
    ability = gen.normal(0.5, 0.6, size=models)
    scale = gen.lognormal(0, 1.0, size=models)
    for t in range(tasks):
        difficulty = gen.normal(0, 1, size=items)
        item_cost = gen.lognormal(0, 0.8, size=items)
        p = 1 / (1 + np.exp(-(ability[:, None] - difficulty[None, :])))
        score = (gen.random((models, items)) < p).astype(np.float64)
        cost = scale[:, None] * item_cost[None, :] * gen.lognormal(0, 0.3, size=(models, items))
        latency = gen.lognormal(np.log1p(scale)[:, None], 0.4, size=(models, items))
        parts.append(pd.DataFrame({"model": np.repeat([f"m{k:02d}" for k in range(models)], items),
                                   "task": f"t{t:02d}", "item": np.tile(np.arange(items), models),
                                   "score": score.ravel(), "cost": cost.ravel(), "latency": latency.ravel()}))
    return pd.concat(parts, ignore_index=True)


def _peak_rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return float(line.split()[1]) / 1024
    return float("nan")


def run_child(name: str):
    import evalband as eb
    from evalband.aggregate import get_aggregate
    from evalband.costs import frontier, latency_quantiles
    from evalband.resample import ItemColumns, Statistic, bootstrap

    s = SIZES
    table = eb.read(make_frame(s["models"], s["tasks"], s["items"], ARGS.seed))
    b = s["B"]
    bootstrap(table.select(tasks=list(table.tasks[:1])), n_resamples=20, rng=0, progress=False)  # compile kernel
    base = _peak_rss_mb()
    start = time.perf_counter()
    if name == "frontier":
        res = frontier(table, latency=False, n_resamples=b, rng=ARGS.seed)
        extra = {"dominated": int(sum(bool(d) for d in res.dominated_by)), "on_frontier": int(res.on_frontier.sum())}
    elif name == "quality-only":
        reps = bootstrap(table, n_resamples=b, rng=ARGS.seed, progress=False)
        get_aggregate("mean")(reps.replicates)
        extra = {}
    elif name == "two-runs":
        bootstrap(table, n_resamples=b, rng=ARGS.seed, progress=False)
        data = {}
        for t in table.tasks:
            sub = table.data[table.data["task"] == t]
            wide = sub.pivot(index="item", columns="model", values="cost").to_numpy().T
            data[t] = {"cost": wide}
        cols = ItemColumns(table.models, table.tasks, data)
        stat = Statistic("cost", ("cost",), lambda c: np.stack([c["cost"], np.ones_like(c["cost"])], axis=-1),
                         lambda sums, total: sums[..., 0] / sums[..., 1])
        bootstrap(cols, statistic=stat, n_resamples=b, rng=ARGS.seed, progress=False)
        extra = {}
    elif name == "scipy":
        from scipy import stats

        def pooled(*samples, axis=-1):
            return sum(x.sum(axis=axis) for x in samples) / sum(x.shape[axis] for x in samples)

        for m in table.models[:SCIPY_MODELS]:
            sub = table.data[table.data["model"] == m]
            samples = tuple(sub.loc[sub["task"] == t, "cost"].to_numpy() for t in table.tasks)
            stats.bootstrap(samples, pooled, n_resamples=b, method="BCa", vectorized=True,
                            rng=np.random.default_rng(ARGS.seed))
        extra = {"models_timed": SCIPY_MODELS}
    elif name == "latency":
        lat = latency_quantiles(table, n_resamples=b, rng=ARGS.seed)
        extra = {"checksum": float(np.sum(lat.samples))}
    elif name == "latency-items":
        from evalband.costs.latency import nan_quantiles
        from evalband.resample import bootstrap_items

        arrays = np.full((len(table.models), s["items"], len(table.tasks)), np.nan)
        for t, task in enumerate(table.tasks):
            sub = table.data[table.data["task"] == task]
            arrays[:, :, t] = sub.pivot(index="item", columns="model", values="latency").to_numpy().T

        def pooled(scores):  # (c, M, T, n) -> (c, M, Q)
            return nan_quantiles(scores.reshape(scores.shape[0], scores.shape[1], -1), (0.5, 0.95))

        reps = bootstrap_items({m: arrays[k] for k, m in enumerate(table.models)}, pooled, resampling="paired",
                               n_resamples=b, rng=ARGS.seed, tasks=table.tasks, progress=False)
        extra = {"checksum": float(np.sum(reps.replicates))}
    else:
        raise SystemExit(f"unknown child {name!r}")
    elapsed = time.perf_counter() - start
    print(json.dumps({"time": elapsed, "peak_mb": _peak_rss_mb(), "data_mb": base, **extra}))


def child(name: str) -> dict:
    cmd = [sys.executable, __file__, "--child", name, "--seed", str(ARGS.seed), "--blas-threads",
           str(ARGS.blas_threads)] + (["--large"] if ARGS.large else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    if ARGS.child:
        run_child(ARGS.child)
        return
    import platform

    import scipy

    s = SIZES
    print(f"frontier benchmark: {s['models']} models x {s['tasks']} tasks x {s['items']:,} items, B = {s['B']:,};"
          f" python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__},"
          f" BLAS threads {ARGS.blas_threads}")
    results = {}
    order = ["frontier", "quality-only", "two-runs", "scipy", "latency", "latency-items", "frontier"]
    for name in order:
        for _ in range(ARGS.repeats):
            results.setdefault(name, []).append(child(name))
    med = {k: float(np.median([r["time"] for r in v])) for k, v in results.items()}
    peak = {k: max(r["peak_mb"] - r["data_mb"] for r in v) for k, v in results.items()}
    scipy_full = med["scipy"] * s["models"] / SCIPY_MODELS
    for name in ["frontier", "quality-only", "two-runs", "latency", "latency-items"]:
        print(f"  {name:13s} {med[name]:8.2f} s   peak memory above the data {peak[name]:8.1f} MB")
    print(f"  {'scipy':13s} {med['scipy']:8.2f} s for {SCIPY_MODELS} models -> {scipy_full:.1f} s extrapolated to"
          f" {s['models']}   peak above the data {peak['scipy']:.1f} MB")
    fr = results["frontier"][-1]
    print(f"  frontier result: {fr['on_frontier']} models on the frontier, {fr['dominated']} dominated with"
          " confidence")
    print(f"  ratios: frontier / quality-only {med['frontier'] / med['quality-only']:.2f}x,"
          f" frontier / two-runs {med['frontier'] / med['two-runs']:.2f}x,"
          f" scipy (cost intervals only) / frontier {scipy_full / med['frontier']:.1f}x,"
          f" latency-items / latency {med['latency-items'] / med['latency']:.1f}x")
    a, b = results["latency"][-1]["checksum"], results["latency-items"][-1]["checksum"]
    print(f"  latency replicates equal to the item path's: {abs(a - b) <= 1e-9 * abs(b)} (checksums {a:.6g},"
          f" {b:.6g})")


if __name__ == "__main__":
    main()
