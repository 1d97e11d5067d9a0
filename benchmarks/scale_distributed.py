"""The ``--distributed`` section of ``benchmarks/scale.py``: sharded input read and compared on a local Dask cluster
beside the single-process path, each stage in its own process (its peak memory alone).

Two modes:

* rows = cells (``--dist-sizes 1e7,1e8``): 1,000 models x items x 20 tasks, one row per (model, task, item); the
  client's table grows with the rows because each row is a cell of its own;
* repeated trials (``--dist-trials 10,100 --dist-cells 1e6``): a fixed set of (model, task, item) cells
  (100 models x 10,000 items in 20 tasks by default) with 10 and 100 trials each (1e7 and 1e8 rows), written
  trial by trial so that an item's trials lie in many shards; compare reads each item's trials averaged on the
  workers (``trials='average'``), so the client's peak should not grow with the trials (target: within 1.5x).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from scale import _cli, _line, _peak_mb, _run_stage, _sums

def _shard_dir(args) -> Path:
    return args.path.with_name(args.path.stem + f"_shards{args.shards}")


def stage_shard(args) -> dict:
    """Split the file into ``--shards`` Parquet shards of uneven sizes (rows in the file's order, shard k of about
    (k % 3 + 1) parts in 2 of the rows), as a harness writing per-job files would."""
    import pyarrow.parquet as pq

    t0 = time.perf_counter()
    out = _shard_dir(args)
    out.mkdir(exist_ok=True)
    for old in out.glob("part*.parquet"):
        old.unlink()
    pf = pq.ParquetFile(args.path)
    n = pf.metadata.num_rows
    weights = np.array([k % 3 + 1 for k in range(args.shards)], dtype=np.float64)
    cuts = np.r_[0, np.round(np.cumsum(weights) / weights.sum() * n).astype(np.int64)]
    table = pf.read()
    for k in range(args.shards):
        pq.write_table(table.slice(int(cuts[k]), int(cuts[k + 1] - cuts[k])), out / f"part{k:03d}.parquet",
                       compression="zstd")
    return {"seconds": time.perf_counter() - t0, "shards": args.shards,
            "shard_rows": [int(cuts[1] - cuts[0]), int(max(np.diff(cuts)))],
            "mb": sum(f.stat().st_size for f in out.glob("*.parquet")) / 2**20}


def stage_cluster(args) -> dict:
    """A LocalCluster of ``--dist-workers`` worker processes (one thread each, ``--worker-memory`` each), in its own
    process: prints its address, serves until its standard input closes, then reports the peak memory of each
    worker process (max RSS) and of its own (the scheduler)."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=args.dist_workers, threads_per_worker=1, processes=True,
                      memory_limit=args.worker_memory, dashboard_address=None) as cluster, Client(cluster) as client:
        print(json.dumps({"address": cluster.scheduler_address}), flush=True)
        sys.stdin.read()
        peaks = client.run(_peak_mb)  # (a worker its nanny restarted reports its new process only)
        return {"workers_mb": sorted(peaks.values()), "n_workers": len(peaks), "seconds": 0.0}


def stage_dist_read(args) -> dict:
    """The distributed read alone (API): the shards read and reduced on the cluster into the table."""
    from distributed import Client

    from evalband.io.distributed_read import read_distributed

    with Client(args.scheduler) as client:
        t0 = time.perf_counter()
        table = read_distributed(str(_shard_dir(args) / "part*.parquet"), client=client,
                                 reread={"on": True, "off": False}.get(args.reread, "auto"),
                                 trials="average" if args.trials > 1 and not args.dist_keep_trials else "keep")
        seconds = time.perf_counter() - t0
    return {"seconds": seconds, **_sums(table)}



def stage_dist_compare(args) -> dict:
    """``evalband compare 'SHARDS/part*.parquet' --scheduler ADDRESS --format json``: read and reduced on the
    workers, the bootstrap there too; the analysis in this process."""
    argv = ["compare", str(_shard_dir(args) / "part*.parquet"), "--scheduler", args.scheduler,
            "--n-resamples", str(args.n_resamples), "--seed", str(args.seed), "--format", "json"]
    if args.compare_models:
        argv += ["--models", ",".join(f"model{m:04d}" for m in range(min(args.compare_models, args.models)))]
    return _cli(argv)




def stage_dist_summarize(args) -> dict:
    """``evalband summarize 'SHARDS/part*.parquet' --scheduler ADDRESS --format json``: the trial variance from
    each item's trials averaged on the workers (their exact count, sum and sum of squares)."""
    return _cli(["summarize", str(_shard_dir(args) / "part*.parquet"), "--scheduler", args.scheduler,
                 "--format", "json"])


def _on_cluster(name: str, args) -> tuple[dict, dict]:
    """Run stage ``name`` as a client of a fresh cluster (its own process): (stage result, cluster result with the
    workers' peaks)."""
    cmd = [sys.executable, str(Path(__file__).with_name("scale.py")), "--stage", "cluster", "--dist-workers", str(args.dist_workers),
           "--worker-memory", args.worker_memory, "--path", str(args.path)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        address = json.loads(proc.stdout.readline())["address"]
        client_args = argparse.Namespace(**vars(args))
        client_args.scheduler = address
        result = _run_stage(name, client_args)
    finally:
        proc.stdin.close()
    cluster = json.loads(proc.stdout.read().strip().splitlines()[-1])
    proc.wait()
    return result, cluster


def distributed(args) -> dict:
    """``--distributed``: for each size of ``--dist-sizes``, the file split into ``--shards`` shards; the
    single-process read and compare beside the distributed read and compare on a LocalCluster of
    ``--dist-workers`` processes (``--worker-memory`` each), each stage in its own process and each distributed
    stage on a fresh cluster; the client's and every worker's peak memory; then the client's peak across sizes."""
    out = {}
    sizes = [int(float(x)) for x in args.dist_sizes.split(",")]
    print(f"\ndistributed: {args.shards} shards, LocalCluster of {args.dist_workers} worker processes x 1 thread,"
          f" memory limit {args.worker_memory} each; B = {args.n_resamples:,}")
    base = args.path
    for rows in sizes:
        a = argparse.Namespace(**vars(args))
        a.rows = rows
        a.path = base.with_name(f"evalband_scale_dist_{rows}.parquet")
        r = out[rows] = {}
        try:
            if not (args.reuse and a.path.exists()):
                r["generate"] = _run_stage("generate", a)
            r["shard"] = sh = _run_stage("shard", a)
            k = min(a.compare_models or a.models, a.models)
            print(f"\n{rows:,} rows = {a.models:,} models x {rows // a.models:,} items in {a.tasks} tasks; {k * (k - 1) // 2:,}"
                  f" pairs; {sh['shards']} shards of {sh['shard_rows'][0]:,} to {sh['shard_rows'][1]:,} rows"
                  f" ({sh['mb']:,.0f} MB)")
            r["read"] = rd = _run_stage("read", a)
            print(_line("single read", rd, "evalband.read of the one file"))
            r["dist-read"], r["dist-read-cluster"] = dr, drc = _on_cluster("dist-read", a)
            print(_line("dist read", dr, f"client; workers' peaks {', '.join(f'{x:,.0f}' for x in drc['workers_mb'])}"
                                         " MB"))
            if dr["checksum"] != rd["checksum"] or dr["rows"] != rd["rows"]:
                raise SystemExit("the distributed table differs from the single-process one")
            if not args.dist_compare:
                print(f"read cost on the workers {dr['seconds'] * args.dist_workers / rows * 1e6:.2f} worker-seconds"
                      f" per million rows; client peak {dr['peak_mb'] / rd['peak_mb']:.2f}x the single read's")
                continue
            r["cli-compare"] = c = _run_stage("cli-compare", a)
            print(_line("single compare", c, "evalband compare FILE --format json"))
            r["dist-compare"], r["dist-compare-cluster"] = dc, dcc = _on_cluster("dist-compare", a)
            print(_line("dist compare", dc, "evalband compare 'SHARDS/*' --scheduler ADDR --format json: client;"
                                            f" workers' peaks {', '.join(f'{x:,.0f}' for x in dcc['workers_mb'])} MB"))
            print(f"ratios (distributed / single process): read time {dr['seconds'] / rd['seconds']:.2f}x, client"
                  f" peak {dr['peak_mb'] / rd['peak_mb']:.2f}x; compare time {dc['seconds'] / c['seconds']:.2f}x,"
                  f" client peak {dc['peak_mb'] / c['peak_mb']:.2f}x; read cost on the workers"
                  f" {dr['seconds'] * args.dist_workers / rows * 1e6:.2f} worker-seconds per million rows")
        finally:
            if not args.keep and not args.reuse:
                for f in list(_shard_dir(a).glob("*.parquet")) + [a.path]:
                    if f.exists():
                        f.unlink()
    if len(sizes) > 1:
        lo, hi = sizes[0], sizes[-1]
        for stage in ("dist-read", "dist-compare") if args.dist_compare else ("dist-read",):
            ratio = out[hi][stage]["peak_mb"] / out[lo][stage]["peak_mb"]
            single = {"dist-read": "read", "dist-compare": "cli-compare"}[stage]
            ratio1 = out[hi][single]["peak_mb"] / out[lo][single]["peak_mb"]
            print(f"client peak of {stage}, {hi:,} vs {lo:,} rows: {ratio:.2f}x"
                  f" ({'within' if ratio <= 1.5 else 'OVER'} the 1.5x target); single process {ratio1:.2f}x")
    return out




def distributed_trials(args) -> dict:
    """``--dist-trials K1,K2``: ``--dist-cells`` (model, task, item) cells of ``--models`` models, each with K
    trials (rows = cells x K), split into ``--shards`` shards; the single-process read and compare (up to
    ``--single-max-rows``) beside the distributed ones on a fresh cluster each; then the client's peak across the
    trial counts (the target: within 1.5x from 10 to 100 trials, i.e. 1e7 to 1e8 rows)."""
    out = {}
    ks = [int(x) for x in args.dist_trials.split(",")]
    cells = int(args.dist_cells)
    print(f"\ndistributed, repeated trials: {cells:,} cells = {args.models:,} models x {cells // args.models:,} items"
          f" in {args.tasks} tasks; {args.shards} shards; LocalCluster of {args.dist_workers} worker processes x 1"
          f" thread, memory limit {args.worker_memory} each; B = {args.n_resamples:,}")
    base = args.path
    for k in ks:
        a = argparse.Namespace(**vars(args))
        a.trials, a.rows = k, cells * k
        a.path = base.with_name(f"evalband_scale_trials_{cells}x{k}.parquet")
        r = out[k] = {}
        try:
            if not (args.reuse and a.path.exists()):
                r["generate"] = _run_stage("generate", a)
            r["shard"] = sh = _run_stage("shard", a)
            print(f"\n{a.rows:,} rows = {cells:,} cells x {k} trials; {sh['shards']} shards of {sh['shard_rows'][0]:,}"
                  f" to {sh['shard_rows'][1]:,} rows ({sh['mb']:,.0f} MB)")
            single = a.rows <= args.single_max_rows
            if single:
                r["read"] = rd = _run_stage("read", a)
                print(_line("single read", rd, "evalband.read of the one file: a row per trial"))
            r["dist-read"], r["dist-read-cluster"] = dr, drc = _on_cluster("dist-read", a)
            kept = ("a row per trial (--dist-keep-trials)" if args.dist_keep_trials
                    else f"a row per item ({dr['cells']:,})")
            print(_line("dist read", dr, f"client, {kept}; workers' peaks"
                                         f" {', '.join(f'{x:,.0f}' for x in drc['workers_mb'])} MB"))
            if dr["rows"] != a.rows or dr["cells"] != cells or (single and dr["checksum"] != rd["checksum"]):
                raise SystemExit("the distributed table differs from the single-process one")
            if single and args.dist_compare:
                r["cli-compare"] = c = _run_stage("cli-compare", a)
                print(_line("single compare", c, "evalband compare FILE --format json"))
            if args.dist_compare:
                r["dist-compare"], r["dist-compare-cluster"] = dc, dcc = _on_cluster("dist-compare", a)
                print(_line("dist compare", dc, "evalband compare 'SHARDS/*' --scheduler ADDR --format json: client;"
                                                f" workers' peaks {', '.join(f'{x:,.0f}' for x in dcc['workers_mb'])}"
                                                " MB"))
            if args.dist_summarize:
                r["dist-summarize"], r["dist-summarize-cluster"] = ds, dsc = _on_cluster("dist-summarize", a)
                peaks = ", ".join(f"{x:,.0f}" for x in dsc["workers_mb"])
                print(_line("dist summarize", ds, "evalband summarize 'SHARDS/*' --scheduler ADDR --format json:"
                                                  f" client; workers' peaks {peaks} MB"))
            if not single:
                print(f"single process skipped above --single-max-rows {args.single_max_rows:,.0f}")
            print(f"read cost on the workers {dr['seconds'] * args.dist_workers / a.rows * 1e6:.2f} worker-seconds"
                  " per million rows")
        finally:
            if not args.keep and not args.reuse:
                for f in list(_shard_dir(a).glob("*.parquet")) + [a.path]:
                    if f.exists():
                        f.unlink()
    if len(ks) > 1:
        lo, hi = ks[0], ks[-1]
        stages = ("dist-read",) + (("dist-compare",) if args.dist_compare else ()) \
            + (("dist-summarize",) if args.dist_summarize else ())
        for stage in stages:
            ratio = out[hi][stage]["peak_mb"] / out[lo][stage]["peak_mb"]
            workers = max(out[hi][stage + "-cluster"]["workers_mb"]) / max(out[lo][stage + "-cluster"]["workers_mb"])
            print(f"{stage}, {hi} vs {lo} trials ({cells * hi:,} vs {cells * lo:,} rows): client peak {ratio:.2f}x"
                  f" ({'within' if ratio <= 1.5 else 'OVER'} the 1.5x target), largest worker peak {workers:.2f}x")
    return out


STAGES = {"shard": stage_shard, "cluster": stage_cluster, "dist-read": stage_dist_read,
          "dist-compare": stage_dist_compare, "dist-summarize": stage_dist_summarize}
