"""Scale benchmark: 1e8 item-level rows (1,000 models x 100,000 binary items in 20 tasks) on one machine.

Stages, each in its own Python process so that its peak memory (max RSS) is measured alone:

1. ``generate``: write the Parquet file in batches with pyarrow (one model per batch; dictionary-encoded model and
   task, int32 item, int8 score), from a seeded item-response model.
2. ``pandas`` (baseline): a plain ``pandas.read_parquet`` of the same file, then per-(model, task) means with
   ``groupby`` -- what a user would do without evalband, with no interval at all.
3. ``evalband``: the columnar fast path (:func:`evalband.io.read_score_matrices`, pyarrow record batches,
   no Python object per row), then what ``evalband summarize`` computes (per-task Wilson intervals of every model)
   and a paired bootstrap (B = 1,000, stratified by task, one replicate set) feeding the mean aggregate, the
   pairwise differences of the top 20 models with percentile intervals, and every model's rank interval.
4. ``table`` (only up to ``--table-max-rows``): the same summarize through ``evalband.read`` and the pandas-backed
   ``ResultsTable``, to show where the general path stops scaling.
5. ``cli-compare``: ``evalband compare FILE --n-resamples B --format json`` as a user runs it (the command picks
   the columnar reader by itself; the bootstrap runs on every core): every pair of the 1,000 models (499,500
   pairs, each with its interval, p-value, verdict and reading in the JSON), or of the first
   ``--compare-models`` models; ``cli-summarize``: ``evalband summarize`` on a 1e7-row file (10 models x 10 tasks
   x 100,000 items).

Stage 3 (the API path) runs only with ``--api``. The file has a cluster column (``--cluster-size`` items per
cluster) unless ``--no-clusters``.

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
    n_items = args.rows // args.trials // args.models  # (with --trials, rows = cells x trials)
    per_task = n_items // args.tasks
    n_items = per_task * args.tasks
    gen = np.random.default_rng(args.seed)
    ability = gen.normal(0.0, 1.0, size=args.models)
    difficulty = gen.normal(-0.5, 1.5, size=n_items)
    task_idx = np.repeat(np.arange(args.tasks, dtype=np.int8), per_task)
    task_dict = pa.array([f"task{t:02d}" for t in range(args.tasks)])
    model_dict = pa.array([f"model{m:04d}" for m in range(args.models)])
    fields = [("model", pa.dictionary(pa.int16(), pa.string())), ("task", pa.dictionary(pa.int8(), pa.string())),
              ("item", pa.int32())] + ([("cluster", pa.int32())] if args.clusters else []) + [("score", pa.int8())]
    schema = pa.schema(fields)
    items = pa.array(np.arange(n_items, dtype=np.int32))
    clusters = pa.array(np.arange(n_items, dtype=np.int32) // args.cluster_size)  # nested in tasks
    tasks = pa.DictionaryArray.from_arrays(pa.array(task_idx), task_dict)
    if args.trials > 1:
        return _generate_trials(args, gen, ability, difficulty, task_idx, task_dict, model_dict, n_items)
    with pq.ParquetWriter(args.path, schema, compression="zstd") as writer:
        for m in range(args.models):
            p = 1.0 / (1.0 + np.exp(-(ability[m] - difficulty)))
            score = (gen.random(n_items) < p).astype(np.int8)
            model = pa.DictionaryArray.from_arrays(pa.array(np.full(n_items, m, dtype=np.int16)), model_dict)
            cols = [model, tasks, items] + ([clusters] if args.clusters else []) + [pa.array(score)]
            writer.write_batch(pa.record_batch(cols, schema=schema), row_group_size=n_items)
    return {"seconds": time.perf_counter() - t0, "rows": args.models * n_items,
            "file_mb": os.path.getsize(args.path) / 2**20}


def _generate_trials(args, gen, ability, difficulty, task_idx, task_dict, model_dict, n_items) -> dict:
    """``--trials K``: every (model, task, item) cell K times (a ``trial`` column), written trial by trial (one
    batch of every model's items per trial), so that shards cut from the file hold an item's trials apart."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    t0 = time.perf_counter()
    fields = [("model", pa.dictionary(pa.int16(), pa.string())), ("task", pa.dictionary(pa.int8(), pa.string())),
              ("item", pa.int32()), ("trial", pa.int16())] + ([("cluster", pa.int32())] if args.clusters else []) \
        + [("score", pa.int8())]
    schema = pa.schema(fields)
    p = 1.0 / (1.0 + np.exp(-(ability[:, None] - difficulty[None, :])))  # (models, items)
    model = pa.DictionaryArray.from_arrays(pa.array(np.repeat(np.arange(args.models, dtype=np.int16), n_items)),
                                           model_dict)
    tasks = pa.DictionaryArray.from_arrays(pa.array(np.tile(task_idx, args.models)), task_dict)
    items = pa.array(np.tile(np.arange(n_items, dtype=np.int32), args.models))
    clusters = pa.array(np.tile(np.arange(n_items, dtype=np.int32) // args.cluster_size, args.models))
    with pq.ParquetWriter(args.path, schema, compression="zstd") as writer:
        for k in range(args.trials):
            score = (gen.random(p.shape) < p).astype(np.int8).ravel()
            trial = pa.array(np.full(score.size, k, dtype=np.int16))
            cols = [model, tasks, items, trial] + ([clusters] if args.clusters else []) + [pa.array(score)]
            writer.write_batch(pa.record_batch(cols, schema=schema), row_group_size=1 << 20)
    return {"seconds": time.perf_counter() - t0, "rows": args.models * n_items * args.trials,
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
    from evalband.io import read_score_matrices
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
            from evalband.resample.distributed import dask_executor

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


def _cli(argv: list) -> dict:
    """The command line in this process (its output thrown away): wall time; the peak is the process's."""
    from evalband.cli.main import app

    t0 = time.perf_counter()
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        try:
            app(argv, standalone_mode=False)
        except SystemExit as exc:  # pragma: no cover
            if exc.code:
                raise
    return {"seconds": time.perf_counter() - t0}


def stage_cli_summarize(args) -> dict:
    """``evalband summarize FILE --format json``: the path the command chooses by itself (columnar above 1e6
    rows)."""
    return _cli(["summarize", str(args.path), "--format", "json"])


def stage_cli_compare(args) -> dict:
    """``evalband compare FILE --n-resamples B --format json``: read, select, the paired (cluster) bootstrap on
    ``--workers`` threads (0: every core, the default), every pair of models."""
    argv = ["compare", str(args.path), "--n-resamples", str(args.n_resamples), "--seed", str(args.seed),
            "--format", "json"]
    if args.compare_models:  # every row is read; the pairs are those of the first K models
        argv += ["--models", ",".join(f"model{m:04d}" for m in range(min(args.compare_models, args.models)))]
    if args.workers:
        argv += ["--threads", str(args.workers)]
    return _cli(argv)


def stage_read(args) -> dict:
    """The single-process read alone: ``evalband.read`` of the one file (the columnar reader above 1e6 rows)."""
    from evalband.io import read

    t0 = time.perf_counter()
    table = read(str(args.path))
    return {"seconds": time.perf_counter() - t0, **_sums(table)}


def _sums(table) -> dict:
    """Rows (the trial rows behind averaged ones), cells and the sum of the scores: equal on both paths."""
    d = table.data
    if table.averaged_trials:
        return {"rows": int(d["trials"].sum()), "cells": len(d), "checksum": float(d["score_sum"].sum())}
    return {"rows": len(d), "cells": int(table._cells[0].size), "checksum": float(d["score"].sum())}


STAGES = {"generate": stage_generate, "read": stage_read, "pandas": stage_pandas, "evalband": stage_evalband,
          "table": stage_table, "cli-summarize": stage_cli_summarize, "cli-compare": stage_cli_compare}


# ------------------------------------------------------------------------------------------------ driver
def _run_stage(name: str, args) -> dict:
    cmd = [sys.executable, __file__, "--stage", name, "--path", str(args.path), "--rows", str(args.rows),
           "--models", str(args.models), "--tasks", str(args.tasks), "--seed", str(args.seed),
           "--n-resamples", str(args.n_resamples), "--batch-size", str(args.batch_size),
           "--workers", str(args.workers), "--cluster-size", str(args.cluster_size),
           "--compare-models", str(args.compare_models), "--trials", str(args.trials)]
    cmd += (["--scheduler", args.scheduler] if args.scheduler else []) + ([] if args.clusters else ["--no-clusters"])
    cmd += ["--shards", str(args.shards), "--dist-workers", str(args.dist_workers), "--worker-memory",
            args.worker_memory, "--reread", args.reread] \
        + (["--dist-keep-trials"] if args.dist_keep_trials else [])
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


def _line(name: str, r: dict, extra: str = "") -> str:
    return f"{name:<16}{r['seconds']:8.1f} s   peak {r['peak_mb']:8,.0f} MB" + (f"   ({extra})" if extra else "")


def _summarize_section(args) -> dict:
    """The 1e7-row target: ``evalband summarize`` of 10 models x 10 tasks x 100,000 items in under 1 GB."""
    small = argparse.Namespace(**vars(args))
    small.rows, small.models, small.tasks, small.clusters = args.summarize_rows, 10, 10, False
    small.path = args.path.with_name(f"evalband_scale_summarize_{small.rows}.parquet")
    out = {}
    try:
        if not (args.reuse and small.path.exists()):
            out["generate"] = _run_stage("generate", small)
        out["pandas"] = b = _run_stage("pandas", small)
        out["cli-summarize"] = c = _run_stage("cli-summarize", small)
        print(f"\nsummarize: {small.rows:,} rows = 10 models x 10 tasks x {small.rows // 100:,} items")
        print(_line("pandas", b, "read_parquet + groupby means; no interval"))
        print(_line("evalband CLI", c, "evalband summarize --format json (Wilson intervals, notes)"))
        print(f"ratios (evalband / pandas): time {c['seconds'] / b['seconds']:.2f}x, peak memory"
              f" {c['peak_mb'] / b['peak_mb']:.2f}x; peak {c['peak_mb'] / 1024:.2f} GB:"
              f" {'under' if c['peak_mb'] < 1024 else 'OVER'} the 1 GB target")
    finally:
        if not args.keep and not args.reuse and small.path.exists():
            small.path.unlink()
    return out


#: the --distributed stages (benchmarks/scale_distributed.py), looked up by name when a stage process runs
DIST_STAGES = dict.fromkeys(("shard", "cluster", "dist-read", "dist-compare", "dist-summarize"))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=float, default=1e8, help="total rows (models x items); default 1e8")
    p.add_argument("--models", type=int, default=1000)
    p.add_argument("--tasks", type=int, default=20)
    p.add_argument("--n-resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=20261130)
    p.add_argument("--batch-size", type=int, default=1 << 21, help="rows per Arrow record batch")
    p.add_argument("--workers", type=int, default=0,
                   help="threads for the bootstrap (0 = every core, the default), or Dask workers")
    p.add_argument("--scheduler", default=None, help="API stage: run the bootstrap on Dask (an address, or 'local')")
    p.add_argument("--cluster-size", type=int, default=10, help="items per cluster (the cluster column)")
    p.add_argument("--no-clusters", dest="clusters", action="store_false", help="no cluster column")
    p.add_argument("--compare-models", type=int, default=0,
                   help="compare the first K models only (every row is still read); 0, the default: every model"
                        " (all 499,500 pairs of 1,000 models, each in the JSON)")
    p.add_argument("--summarize-rows", type=float, default=1e7,
                   help="also time evalband summarize on a file of this many rows (10 models x 10 tasks); 0: skip")
    p.add_argument("--api", action="store_true",
                   help="also time the API fast path (evalband.io.read_score_matrices + bootstrap)")
    p.add_argument("--path", type=Path, default=None, help="Parquet file (default: a temporary file)")
    p.add_argument("--keep", action="store_true", help="keep the generated file")
    p.add_argument("--reuse", action="store_true", help="reuse --path if it exists instead of regenerating")
    p.add_argument("--table-max-rows", type=float, default=2e6,
                   help="also time the pandas-backed ResultsTable path up to this many rows")
    p.add_argument("--check-readme", action="store_true",
                   help="exit 1 when a figure the README writes disagrees with this run (readme_claims.py)")
    p.add_argument("--distributed", action="store_true",
                   help="instead of the default run: the sharded input read and compared on a local Dask cluster"
                        " beside the single-process path (--dist-sizes, --shards, --dist-workers, --worker-memory)")
    p.add_argument("--dist-sizes", default="1e7,1e8", help="--distributed: row counts, comma-separated")
    p.add_argument("--shards", type=int, default=64, help="--distributed: shards per file")
    p.add_argument("--reread", choices=("auto", "on", "off"), nargs="?", const="on", default="auto",
                   help="--distributed: whether the API read reads each shard twice (a worker then holds one shard"
                        " at a time): 'on' (the flag alone), 'off', or 'auto' (the library's default: when the rows"
                        " a worker would hold exceed its budget); default auto")
    p.add_argument("--no-dist-compare", dest="dist_compare", action="store_false",
                   help="--distributed: the reads only (no compare stages)")
    p.add_argument("--dist-workers", type=int, default=2, help="--distributed: worker processes")
    p.add_argument("--worker-memory", default="6GB", help="--distributed: memory limit of each worker")
    p.add_argument("--dist-trials", default=None,
                   help="--distributed: repeated-trials mode, trials per cell, comma-separated (e.g. 10,100) at a"
                        " fixed --dist-cells")
    p.add_argument("--dist-cells", type=float, default=1e6,
                   help="--dist-trials: (model, task, item) cells; --models of them (default 100 then)")
    p.add_argument("--single-max-rows", type=float, default=2e7,
                   help="--dist-trials: the single-process read and compare run up to this many rows")
    p.add_argument("--dist-keep-trials", action="store_true",
                   help="--dist-trials: the distributed read keeps a row per trial (trials='keep', the path before"
                        " trials were averaged on the workers), for the before/after figures")
    p.add_argument("--dist-summarize", action="store_true",
                   help="--dist-trials: also evalband summarize on the cluster (the trial variance from the trials"
                        " averaged on the workers)")
    p.add_argument("--trials", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--stage", choices=sorted(STAGES) + sorted(DIST_STAGES), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.rows = int(args.rows)
    args.summarize_rows = int(args.summarize_rows)
    if args.models > args.rows:
        p.error("--rows must be at least --models")
    if args.path is None:
        args.path = Path(os.environ.get("TMPDIR", "/tmp")) / f"evalband_scale_{args.rows}.parquet"

    if args.stage:
        if args.stage in DIST_STAGES:
            import scale_distributed

            DIST_STAGES.update(scale_distributed.STAGES)
        result = {**STAGES, **DIST_STAGES}[args.stage](args)
        result["peak_mb"] = _peak_mb()
        print(json.dumps(result))
        return

    from evalband.resample import available_cores

    threads = args.workers or available_cores()
    print(f"evalband scale benchmark: {args.rows:,} rows = {args.models:,} models x"
          f" {args.rows // args.models:,} items in {args.tasks} tasks" if not args.dist_trials else
          f"evalband scale benchmark, repeated trials: {args.models:,} models in {args.tasks} tasks"
          f"{f', clusters of {args.cluster_size} items' if args.clusters else ''}; B = {args.n_resamples:,};"
          f" seed {args.seed}")
    print(f"CPU count {os.cpu_count()} (this process may use {available_cores()}); bootstrap threads {threads};"
          f" load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(_versions())
    if args.distributed:
        from scale_distributed import distributed, distributed_trials

        result = distributed_trials(args) if args.dist_trials else distributed(args)
        print(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "distributed": result}))
        return
    results = {}
    if args.summarize_rows:
        results["summarize"] = _summarize_section(args)
    try:
        if args.reuse and args.path.exists():
            print(f"\nreusing {args.path}")
        else:
            results["generate"] = g = _run_stage("generate", args)
            print(f"\ngenerate {g['rows']:,} rows: {g['seconds']:.1f} s, file {g['file_mb']:,.0f} MB")
        print(f"\ncompare: {args.rows:,} rows")
        results["pandas"] = b = _run_stage("pandas", args)
        print(_line("pandas", b, f"read {b['read_seconds']:.1f} s, frame {b['frame_mb']:,.0f} MB;"
                                 " per-task means only, no intervals"))
        results["cli-compare"] = c = _run_stage("cli-compare", args)
        k = min(args.compare_models or args.models, args.models)
        print(_line("evalband CLI", c, f"evalband compare --n-resamples {args.n_resamples} --format json"
                                       f"{f' --models <{k} models>' if args.compare_models else ''}: read"
                                       f" {args.rows:,} rows, {'cluster ' if args.clusters else ''}bootstrap on"
                                       f" {threads} thread(s), {k * (k - 1) // 2:,} pairs"))
        if args.api:
            results["evalband"] = e = _run_stage("evalband", args)
            print(_line("evalband API", e, f"read_score_matrices {e['read_seconds']:.1f} s, bootstrap"
                                           f" {e['bootstrap_seconds']:.1f} s, top-20 pairs and rank intervals"
                                           f" {e['aggregate_compare_rank_seconds']:.1f} s"))
        if args.rows <= args.table_max_rows:
            results["table"] = tb = _run_stage("table", args)
            print(_line("table path", tb, f"evalband.read + estimate, read {tb['read_seconds']:.1f} s"))
        print(f"ratios (evalband compare / pandas): time {c['seconds'] / b['seconds']:.2f}x,"
              f" peak memory {c['peak_mb'] / b['peak_mb']:.2f}x")
        print(f"evalband compare: {c['seconds']:.0f} s ({'under' if c['seconds'] <= 120 else 'OVER'} the 2 min"
              f" target), peak {c['peak_mb'] / 1024:.2f} GB ({'under' if c['peak_mb'] <= 8 * 1024 else 'OVER'}"
              " the 8 GB target)")
        print(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "results": results}))
        measured = {}
        if args.summarize_rows == 10**7 and "cli-summarize" in results.get("summarize", {}):
            measured["scale.summarize_1e7_gb"] = results["summarize"]["cli-summarize"]["peak_mb"] / 1024
        if args.rows == 10**8 and args.models == 1000 and not args.compare_models:
            measured["scale.compare_1e8_seconds"] = c["seconds"]
            measured["scale.compare_1e8_gb"] = c["peak_mb"] / 1024
        from readme_claims import report

        report(measured, check=args.check_readme)
    finally:
        if not args.keep and not args.reuse and args.path.exists():
            args.path.unlink()


if __name__ == "__main__":
    main()
