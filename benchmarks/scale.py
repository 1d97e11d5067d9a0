"""Scale benchmark: 1e8 item-level rows (1,000 models x 100,000 binary items in 20 tasks) on one machine.

Stages, each in its own Python process so that its peak memory (max RSS) is measured alone:

1. ``generate``: write the Parquet file in batches with pyarrow (one model per batch; dictionary-encoded model and
   task, int32 item, int8 score), from a seeded item-response model.
2. ``pandas`` (baseline): a plain ``pandas.read_parquet`` of the same file, then per-(model, task) means with
   ``groupby`` -- what a user would do without evalband, with no interval at all.
3. ``evalband``: the columnar fast path (:func:`evalband.io.arrow.read_score_matrices`, pyarrow record batches,
   no Python object per row), then what ``evalband summarize`` computes (per-task Wilson intervals of every model)
   and a paired bootstrap (B = 1,000, stratified by task, one replicate set) feeding the mean aggregate, the
   pairwise differences of the top 20 models with percentile intervals, and every model's rank interval.
4. ``table`` (only up to ``--table-max-rows``): the same summarize through ``evalband.read`` and the pandas-backed
   ``ResultsTable``, to show where the general path stops scaling.

Usage::

    python benchmarks/scale.py --rows 1e6            # quick (seconds)
    python benchmarks/scale.py                       # the full 1e8 rows (minutes; ~1 GB of Parquet in /tmp)

Prints CPU count, library versions, the seed, wall time and peak memory of each stage, and the ratios against
the pandas baseline.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


# ------------------------------------------------------------------------------------------------ stages
def stage_generate(args) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    t0 = time.perf_counter()
    n_items = args.rows // args.models
    per_task = n_items // args.tasks
    n_items = per_task * args.tasks
    gen = np.random.default_rng(args.seed)
    ability = gen.normal(0.0, 1.0, size=args.models)
    difficulty = gen.normal(-0.5, 1.5, size=n_items)
    task_idx = np.repeat(np.arange(args.tasks, dtype=np.int8), per_task)
    task_dict = pa.array([f"task{t:02d}" for t in range(args.tasks)])
    model_dict = pa.array([f"model{m:04d}" for m in range(args.models)])
    schema = pa.schema([("model", pa.dictionary(pa.int16(), pa.string())),
                        ("task", pa.dictionary(pa.int8(), pa.string())),
                        ("item", pa.int32()), ("score", pa.int8())])
    items = pa.array(np.arange(n_items, dtype=np.int32))
    tasks = pa.DictionaryArray.from_arrays(pa.array(task_idx), task_dict)
    with pq.ParquetWriter(args.path, schema, compression="zstd") as writer:
        for m in range(args.models):
            p = 1.0 / (1.0 + np.exp(-(ability[m] - difficulty)))
            score = (gen.random(n_items) < p).astype(np.int8)
            model = pa.DictionaryArray.from_arrays(pa.array(np.full(n_items, m, dtype=np.int16)), model_dict)
            writer.write_batch(pa.record_batch([model, tasks, items, pa.array(score)], schema=schema),
                               row_group_size=n_items)
    return {"seconds": time.perf_counter() - t0, "rows": args.models * n_items,
            "file_mb": os.path.getsize(args.path) / 2**20}


def stage_pandas(args) -> dict:
    import pandas as pd

    t0 = time.perf_counter()
    df = pd.read_parquet(args.path)
    t_read = time.perf_counter() - t0
    means = df.groupby(["model", "task"], observed=True)["score"].mean()
    return {"seconds": time.perf_counter() - t0, "read_seconds": t_read, "rows": len(df),
            "frame_mb": df.memory_usage(deep=True).sum() / 2**20, "checksum": float(means.sum())}


def stage_evalband(args) -> dict:
    from evalband.aggregate import get_aggregate
    from evalband.estimation import proportion_interval
    from evalband.io.arrow import read_score_matrices
    from evalband.ranking.distribution import marginal_rank_intervals, ranks
    from evalband.resample import ItemColumns, bootstrap, interval

    times = {}
    t0 = time.perf_counter()
    mats = read_score_matrices(args.path, batch_size=args.batch_size)
    times["read_seconds"] = time.perf_counter() - t0

    t1 = time.perf_counter()
    correct, n = mats.counts()
    est = proportion_interval(correct, n, method="wilson", confidence_level=0.95)
    times["summarize_seconds"] = time.perf_counter() - t1
    times["read_and_summarize_seconds"] = time.perf_counter() - t0
    peak_summarize = _peak_mb()

    t2 = time.perf_counter()
    cols = ItemColumns(mats.models, mats.tasks, {t: {"score": mats.scores[t]} for t in mats.tasks},
                       notes=mats.notes, source=mats.source)
    with contextlib.ExitStack() as stack:
        executor = None
        if args.scheduler:
            from evalband.dist import dask_executor

            executor = stack.enter_context(dask_executor(args.scheduler, n_workers=args.workers or None))
        elif args.workers > 1:
            from concurrent.futures import ThreadPoolExecutor

            executor = stack.enter_context(ThreadPoolExecutor(args.workers))
        t2 = time.perf_counter()  # cluster start-up not counted
        reps = bootstrap(cols, n_resamples=args.n_resamples, rng=args.seed, progress=False, executor=executor)
        times["bootstrap_seconds"] = time.perf_counter() - t2
    times["bootstrap_checksum"] = float(reps.replicates.sum())

    t3 = time.perf_counter()
    agg = get_aggregate("mean", tasks=reps.tasks, models=reps.models)
    observed = agg(reps.observed)                      # (M,)
    samples = agg(reps.replicates)                     # (B, M)
    top = np.argsort(-observed)[:20]
    ia, ib = np.triu_indices(top.size, k=1)
    diff_obs = observed[top[ia]] - observed[top[ib]]
    diff_rep = samples[:, top[ia]] - samples[:, top[ib]]
    ci = interval(diff_rep, diff_obs, method="percentile", confidence_level=0.95)
    r = ranks(samples)
    low, high = marginal_rank_intervals(r, confidence_level=0.95)
    times["aggregate_compare_rank_seconds"] = time.perf_counter() - t3
    times["seconds"] = time.perf_counter() - t0
    return {**times, "rows": mats.n_rows, "models": len(mats.models), "tasks": len(mats.tasks),
            "peak_after_summarize_mb": peak_summarize,
            "checksum": float((correct / n).mean()), "wilson_low_mean": float(np.mean(est.ci.low)),
            "n_pairs": int(ia.size), "pairs_excluding_zero": int(((ci.low > 0) | (ci.high < 0)).sum()),
            "best_rank_interval": [int(low[top[0]]), int(high[top[0]])]}


def stage_table(args) -> dict:
    from evalband.estimation import estimate
    from evalband.io import read

    t0 = time.perf_counter()
    table = read(args.path)
    t_read = time.perf_counter() - t0
    est = estimate(table, method="wilson")
    return {"seconds": time.perf_counter() - t0, "read_seconds": t_read, "rows": len(table.data),
            "checksum": float(table.data["score"].mean()), "estimates": len(est.to_frame())}


STAGES = {"generate": stage_generate, "pandas": stage_pandas, "evalband": stage_evalband, "table": stage_table}


# ------------------------------------------------------------------------------------------------ driver
def _run_stage(name: str, args) -> dict:
    cmd = [sys.executable, __file__, "--stage", name, "--path", str(args.path), "--rows", str(args.rows),
           "--models", str(args.models), "--tasks", str(args.tasks), "--seed", str(args.seed),
           "--n-resamples", str(args.n_resamples), "--batch-size", str(args.batch_size),
           "--workers", str(args.workers)] + (["--scheduler", args.scheduler] if args.scheduler else [])
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"stage {name} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _versions() -> str:
    import numpy
    import pandas
    import pyarrow

    import evalband

    try:
        import numba
        nb = numba.__version__
    except ImportError:
        nb = "absent"
    return (f"python {platform.python_version()}, numpy {numpy.__version__}, pandas {pandas.__version__}, "
            f"pyarrow {pyarrow.__version__}, numba {nb}, evalband {evalband.__version__}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=float, default=1e8, help="total rows (models x items); default 1e8")
    p.add_argument("--models", type=int, default=1000)
    p.add_argument("--tasks", type=int, default=20)
    p.add_argument("--n-resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=20261130)
    p.add_argument("--batch-size", type=int, default=1 << 21, help="rows per Arrow record batch")
    p.add_argument("--workers", type=int, default=1, help="threads for the bootstrap (1 = none), or Dask workers")
    p.add_argument("--scheduler", default=None, help="run the bootstrap on Dask: an address, or 'local'")
    p.add_argument("--path", type=Path, default=None, help="Parquet file (default: a temporary file)")
    p.add_argument("--keep", action="store_true", help="keep the generated file")
    p.add_argument("--reuse", action="store_true", help="reuse --path if it exists instead of regenerating")
    p.add_argument("--table-max-rows", type=float, default=2e6,
                   help="also time the pandas-backed ResultsTable path up to this many rows")
    p.add_argument("--stage", choices=sorted(STAGES), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.rows = int(args.rows)
    if args.models > args.rows:
        p.error("--rows must be at least --models")
    if args.path is None:
        args.path = Path(os.environ.get("TMPDIR", "/tmp")) / f"evalband_scale_{args.rows}.parquet"

    if args.stage:
        result = STAGES[args.stage](args)
        result["peak_mb"] = _peak_mb()
        print(json.dumps(result))
        return

    print(f"evalband scale benchmark: {args.rows:,} rows = {args.models:,} models x"
          f" {args.rows // args.models:,} items in {args.tasks} tasks; B = {args.n_resamples:,}; seed {args.seed}")
    print(f"CPU count {os.cpu_count()}; {_versions()}")
    if args.scheduler:
        print(f"bootstrap on Dask ({args.scheduler}, {args.workers} workers); cluster start-up not timed")
    results = {}
    try:
        if args.reuse and args.path.exists():
            print(f"reusing {args.path}")
        else:
            results["generate"] = g = _run_stage("generate", args)
            print(f"generate   {g['seconds']:8.1f} s   peak {g['peak_mb']:8,.0f} MB   file {g['file_mb']:,.0f} MB")
        results["pandas"] = b = _run_stage("pandas", args)
        print(f"pandas     {b['seconds']:8.1f} s   peak {b['peak_mb']:8,.0f} MB   (read {b['read_seconds']:.1f} s,"
              f" frame {b['frame_mb']:,.0f} MB; per-task means only, no intervals)")
        results["evalband"] = e = _run_stage("evalband", args)
        print(f"evalband   {e['seconds']:8.1f} s   peak {e['peak_mb']:8,.0f} MB   (read {e['read_seconds']:.1f} s,"
              f" Wilson intervals {e['summarize_seconds']:.2f} s, peak so far {e['peak_after_summarize_mb']:,.0f} MB;"
              f" bootstrap B={args.n_resamples} {e['bootstrap_seconds']:.1f} s; aggregate + {e['n_pairs']} top-20"
              f" differences + {e['models']} rank intervals {e['aggregate_compare_rank_seconds']:.1f} s)")
        print(f"bootstrap checksum (sum of all replicates; equal for equal seeds on any executor):"
              f" {e['bootstrap_checksum']!r}")
        agree = abs(e["checksum"] - b["checksum"] / (e["models"] * e["tasks"])) < 1e-9
        print(f"per-task accuracies of evalband and pandas agree: {agree}")
        if args.rows <= args.table_max_rows:
            results["table"] = tb = _run_stage("table", args)
            print(f"table path {tb['seconds']:8.1f} s   peak {tb['peak_mb']:8,.0f} MB   (evalband.read + estimate,"
                  f" read {tb['read_seconds']:.1f} s)")
        else:
            print(f"table path skipped above {args.table_max_rows:,.0f} rows (--table-max-rows)")
        print()
        print(f"ratios vs the pandas read: read time {e['read_seconds'] / b['read_seconds']:.2f}x,"
              f" read+summarize time {e['read_and_summarize_seconds'] / b['seconds']:.2f}x,"
              f" peak memory {e['peak_mb'] / b['peak_mb']:.2f}x (evalband / pandas)")
        if "table" in results:
            tb = results["table"]
            print(f"table path vs pandas: time {tb['seconds'] / b['seconds']:.1f}x,"
                  f" peak memory {tb['peak_mb'] / b['peak_mb']:.1f}x")
        target = "under" if e["peak_mb"] < 8 * 1024 else "OVER"
        print(f"evalband peak memory {e['peak_mb'] / 1024:.2f} GB: {target} the 8 GB target")
        print(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "results": results}))
    finally:
        if not args.keep and not args.reuse and args.path.exists():
            args.path.unlink()


if __name__ == "__main__":
    main()
