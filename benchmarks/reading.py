"""Benchmark: reading item-level text tables with the strict text rules (issue 14), against pandas in the same run.

What the text rules cost: every cell is read as text (labels as written), headers and line numbers are checked,
labels get the one label rule (NFC, look-alikes) and the canonical natural order, scores are parsed once.
Baselines, timed in the same run on the same files:

* CSV: ``pandas.read_csv(path)`` with type inference (what the reader called before, plus its own checks);
* JSON Lines: ``pandas.read_json(path, lines=True)``.

Each measurement runs in a fresh subprocess, so the peak resident memory (``ru_maxrss``) is its own. Prints
wall time, the ratio to the baseline, and peak memory.

Usage::

    python benchmarks/reading.py              # 1e6-row CSV (20 models x 5 tasks x 10,000 items), 2e5-row JSONL
    python benchmarks/reading.py --rows 1e7   # a 1e7-row CSV too (about 250 MB)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, resource, sys, time
kind, path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if kind == "evalband":
    import evalband
    table = evalband.read(path)
    n = len(table.data)
elif kind == "pandas-csv":
    import pandas as pd
    n = len(pd.read_csv(path))
elif kind == "pandas-jsonl":
    import pandas as pd
    n = len(pd.read_json(path, lines=True))
print(json.dumps({"seconds": time.perf_counter() - t0, "rows": n,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _write_csv(path, models, tasks, items):
    import numpy as np

    gen = np.random.default_rng(0)
    with open(path, "w") as fh:
        fh.write("model,task,item,score\n")
        for m in range(models):
            for t in range(tasks):
                scores = (gen.random(items) < 0.6).astype(int)
                fh.write("".join(f"model-{m},task{t},q_{i:06d},{s}\n" for i, s in enumerate(scores)))


def _write_jsonl(path, models, tasks, items):
    with open(path, "w") as fh:
        for m in range(models):
            for t in range(tasks):
                fh.write("".join(json.dumps({"model": f"model-{m}", "task": f"task{t}", "item": i,
                                             "score": (i * 7 + m) % 3 // 2}) + "\n" for i in range(items)))


def _run(kind, path):
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", CHILD, kind, path], capture_output=True, text=True, env=env)
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _report(title, ours, base, base_name):
    print(f"{title}: {ours['rows']:,} rows")
    print(f"  evalband.read   {ours['seconds']:7.2f} s   peak {ours['peak_mb']:7.0f} MB")
    print(f"  {base_name:<15} {base['seconds']:7.2f} s   peak {base['peak_mb']:7.0f} MB")
    print(f"  ratio (evalband / {base_name}): time {ours['seconds'] / base['seconds']:.2f}x,"
          f" peak memory {ours['peak_mb'] / base['peak_mb']:.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6, help="CSV rows (20 models x 5 tasks x rows/100 items)")
    args = parser.parse_args()
    items = int(args.rows) // 100
    with tempfile.TemporaryDirectory() as folder:
        csv_path = os.path.join(folder, "long.csv")
        t0 = time.perf_counter()
        _write_csv(csv_path, 20, 5, items)
        print(f"wrote {csv_path} ({os.path.getsize(csv_path) / 2**20:,.0f} MiB) in {time.perf_counter() - t0:.1f} s")
        _report("CSV", _run("evalband", csv_path), _run("pandas-csv", csv_path), "pandas.read_csv")
        jsonl_path = os.path.join(folder, "long.jsonl")
        _write_jsonl(jsonl_path, 20, 5, 2000)
        _report("JSON Lines", _run("evalband", jsonl_path), _run("pandas-jsonl", jsonl_path), "pandas.read_json")


if __name__ == "__main__":
    main()
