"""Benchmark of evalband.ability and evalband.items against Epoch AI's fit.py approach (issue 24).

Workloads:

  summary   500 models x 60 benchmarks, 70% of cells missing at random (each model on >= 3 benchmarks), scores
            from ``sigmoid(alpha_b (C_m - D_b))`` with binomial noise of n = 500 items; B = 1,000 bootstrap
            refits. ``evalband.ability(df, n_resamples=B)`` is the whole job: the fit, B refits (binomial
            counts redrawn within cells, warm starts, batched Newton steps), ranks with marginal and simultaneous
            rank intervals, P(best), all 124,750 pairwise differences with max-t, predictions with predictive
            intervals of every one of the 30,000 cells. Target: <= 30 s on 2 cores.
  epoch     Epoch AI's approach on the same cells: scipy ``least_squares`` ('trf', finite-difference Jacobian)
            from a cold start (C = D = 0, slopes 0.05) per replicate (``fit_statistical_model`` of fit.py,
            transcribed in tests/latent/make_epoch_reference.py). Timed on ``--epoch-replicates`` replicates and
            extrapolated linearly to B.
  items     100 models x 20,000 items (20 tasks of 1,000) 2PL with intervals: ``evalband.items(df)`` (item
            parameters) and ``evalband.ability(df, model='2pl')`` (abilities, ranks, pairs, predictions; the
            information draws that 'auto' picks at this size), and ``model='rasch'`` (marginal ML items,
            posterior draws). Target: <= 60 s each, reading included.

Prints the times and the ratios. BLAS is limited to ``--blas-threads`` threads for every method (on a machine
shared with other jobs, OpenBLAS with 2 threads can be 100x slower than with 1: note ``uptime``).

Usage: python benchmarks/ability.py [--replicates 1000] [--epoch-replicates 2] [--blas-threads 1] [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def _args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", type=int, default=500)
    p.add_argument("--tasks", type=int, default=60)
    p.add_argument("--missing", type=float, default=0.7)
    p.add_argument("--replicates", type=int, default=1000)
    p.add_argument("--epoch-replicates", type=int, default=2)
    p.add_argument("--item-models", type=int, default=100)
    p.add_argument("--items", type=int, default=20_000)
    p.add_argument("--blas-threads", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="a small run (100 models x 20 tasks, B = 100, 2,000 items)")
    return p.parse_args(argv)


ARGS = _args()
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(ARGS.blas_threads)
if ARGS.quick:
    ARGS.models, ARGS.tasks, ARGS.replicates, ARGS.items, ARGS.epoch_replicates = 100, 20, 100, 2000, 1

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "latent"))
from make_epoch_reference import epoch_fit  # noqa: E402


def summary_cells(seed=0):
    rng = np.random.default_rng(seed)
    m_, t_ = ARGS.models, ARGS.tasks
    C, D = rng.normal(size=m_), rng.normal(0, 1.2, size=t_)
    alpha = rng.lognormal(0.3, 0.3, size=t_)
    keep = rng.random((m_, t_)) >= ARGS.missing
    for k in range(m_):  # every model on at least 3 benchmarks
        keep[k, rng.choice(t_, 3, replace=False)] = True
    m, t = np.nonzero(keep)
    p = 1 / (1 + np.exp(-alpha[t] * (C[m] - D[t])))
    return pd.DataFrame({"model": [f"m{k:03d}" for k in m], "task": [f"b{k:02d}" for k in t], "n": 500,
                         "correct": rng.binomial(500, p)})


def item_responses(seed=1):
    rng = np.random.default_rng(seed)
    m_, i_ = ARGS.item_models, ARGS.items
    theta, a, b = rng.normal(size=m_), rng.lognormal(0, 0.3, size=i_), rng.normal(size=i_)
    y = (rng.random((m_, i_)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(np.int8)
    tasks = np.repeat([f"t{k:02d}" for k in range(20)], -(-i_ // 20))[:i_]
    return pd.DataFrame({"model": np.repeat([f"m{k:03d}" for k in range(m_)], i_), "task": np.tile(tasks, m_),
                         "item": np.tile(np.arange(i_), m_), "score": y.ravel()})


def main():
    import evalband as eb

    print(f"load: {os.getloadavg()[0]:.1f} (1-minute average) on {os.cpu_count()} cores; BLAS threads"
          f" {ARGS.blas_threads}")
    df = summary_cells()
    print(f"summary: {ARGS.models} models x {ARGS.tasks} tasks, {len(df):,} cells"
          f" ({1 - len(df) / (ARGS.models * ARGS.tasks):.0%} missing), B = {ARGS.replicates:,}")
    eb.ability(df.iloc[:200], n_resamples=2, rng=0)  # imports and first calls out of the timing
    t0 = time.perf_counter()
    res = eb.ability(df, n_resamples=ARGS.replicates, rng=0)
    t_ours = time.perf_counter() - t0
    print(f"  evalband.ability: {t_ours:.1f} s (fit, {ARGS.replicates:,} refits, ranks, "
          f"{len(res.comparisons.difference):,} pairs, {len(res.cells):,} cell predictions)")
    models = list(pd.unique(df["model"]))
    tasks = list(pd.unique(df["task"]))
    m = df["model"].map({k: i for i, k in enumerate(models)}).to_numpy()
    t = df["task"].map({k: i for i, k in enumerate(tasks)}).to_numpy()
    rng = np.random.default_rng(5)
    y = df["correct"].to_numpy() / 500
    t0 = time.perf_counter()
    for _ in range(ARGS.epoch_replicates):
        yb = rng.binomial(500, y) / 500
        epoch_fit(m, t, yb, len(models), len(tasks), 0)
    per = (time.perf_counter() - t0) / ARGS.epoch_replicates
    t_epoch = per * ARGS.replicates
    print(f"  Epoch's least_squares from a cold start: {per:.1f} s per fit; x {ARGS.replicates:,} replicates ="
          f" {t_epoch:,.0f} s (extrapolated from {ARGS.epoch_replicates})")
    print(f"  ratio Epoch / evalband: {t_epoch / t_ours:,.0f}x; target <= 30 s: {'met' if t_ours <= 30 else 'MISSED'}")
    items = item_responses()
    print(f"items: {ARGS.item_models} models x {ARGS.items:,} items, 2PL with intervals")
    t0 = time.perf_counter()
    table = eb.read(items)
    t_read = time.perf_counter() - t0
    t0 = time.perf_counter()
    r = eb.items(table, rng=0)
    t_items = time.perf_counter() - t0
    print(f"  reading {t_read:.1f} s; evalband.items: {t_items:.1f} s ({len(r.frame):,} items, converged"
          f" {r.converged}); target <= 60 s: {'met' if t_read + t_items <= 60 else 'MISSED'}")
    t0 = time.perf_counter()
    a = eb.ability(table, model="2pl", n_resamples=ARGS.replicates, rng=0)
    t_ab = time.perf_counter() - t0
    print(f"  evalband.ability(model='2pl'): {t_ab:.1f} s (abilities from every response, uncertainty"
          f" '{a.uncertainty}', {ARGS.replicates:,} draws, ranks, pairs, cell predictions); target <= 60 s:"
          f" {'met' if t_read + t_ab <= 60 else 'MISSED'}")
    t0 = time.perf_counter()
    eb.ability(table, model="rasch", n_resamples=ARGS.replicates, rng=0)
    t_r = time.perf_counter() - t0
    print(f"  evalband.ability(model='rasch'): {t_r:.1f} s (marginal ML items, {ARGS.replicates:,} posterior draws,"
          f" ranks, pairs, cell predictions; the 2PL responses fitted by the Rasch model); target <= 60 s:"
          f" {'met' if t_read + t_r <= 60 else 'MISSED'}; Rasch / 2PL {t_r / t_ab:.2f}x")


if __name__ == "__main__":
    main()
