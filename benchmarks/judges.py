"""Benchmark: the judges package's vectorized cores against the per-replicate / per-model loops they replace.

1. Bootstrap of Krippendorff's alpha over units: ``evalband.judges.agreement`` (one matrix product of unit draw
   counts per block, every coefficient at once) against a Python loop over replicates that resamples the units
   and calls ``krippendorff.alpha`` on each replicate (the baseline a user would write), same B, same data
   (LLMFAO crowd: 124 workers x 2,139 pairs, nominal; and a 5-point ordinal set of 10 raters x 2,000 units).
2. PPI++ for many models: ``evalband.judges.ppi_mean`` on a (models, items) array against a loop over models
   calling ``ppi_py.ppi_mean_ci`` (and a check that the intervals agree).
3. The PPI replicate set (``evalband.resample.bootstrap`` on a table with human labels: four summed columns per
   item, lambda fixed) against the same engine on the judge's scores alone (``ppi='none'``, one column), same
   table, same B: what the human-scale replicates cost over the judge-only ones.

Prints wall times, the ratio (baseline / evalband) and peak Python memory (tracemalloc) of each side.

Usage::

    python benchmarks/judges.py           # B = 2,000 for evalband; the baseline loop on 200 replicates, scaled
    python benchmarks/judges.py --quick
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20261201
ROOT = Path(__file__).resolve().parents[1]


def timed(fn):
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, dt, peak


def bench_alpha(name, table, level, b, b_loop):
    import krippendorff

    import evalband.judges as ej

    data = table.reliability_data()
    _, t_ours, m_ours = timed(lambda: ej.agreement(table, level=level, n_resamples=b, pairs=None, rng=SEED))
    rng = np.random.default_rng(SEED)

    def loop():
        vals = []
        for _ in range(b_loop):
            cols = rng.integers(0, data.shape[1], data.shape[1])
            vals.append(krippendorff.alpha(reliability_data=data[:, cols], level_of_measurement=level))
        return vals

    _, t_loop, m_loop = timed(loop)
    t_loop_b = t_loop * b / b_loop
    print(f"alpha bootstrap, {name} ({table.n_raters} raters x {table.n_units:,} units, {level}), B={b:,}:"
          f" evalband {t_ours:.2f} s (all coefficients, peak {m_ours:.0f} MiB); loop over replicates with"
          f" krippendorff.alpha {t_loop_b:.1f} s (measured on {b_loop} replicates, peak {m_loop:.0f} MiB);"
          f" ratio x{t_loop_b / t_ours:.0f}")


def bench_ppi(m, n, big_n):
    from ppi_py import ppi_mean_ci

    from evalband.judges import ppi_mean

    rng = np.random.default_rng(SEED)
    f = rng.uniform(size=(m, n + big_n))
    y = (rng.uniform(size=f.shape) < 0.1 + 0.8 * f).astype(float)
    human = np.where(np.arange(n + big_n) < n, y, np.nan)
    res, t_ours, m_ours = timed(lambda: ppi_mean(f, human))
    out, t_loop, m_loop = timed(lambda: [ppi_mean_ci(y[k, :n], f[k, :n], f[k, n:], alpha=0.05) for k in range(m)])
    low = np.array([o[0][0] for o in out])
    err = float(np.max(np.abs(low - res.ci.low)))
    print(f"PPI++, {m} models x {n:,} labelled + {big_n:,} unlabelled items: evalband {t_ours * 1000:.0f} ms"
          f" (peak {m_ours:.0f} MiB); loop over models with ppi_py.ppi_mean_ci {t_loop * 1000:.0f} ms"
          f" (peak {m_loop:.0f} MiB); ratio x{t_loop / t_ours:.1f}; max |ci_low difference| {err:.1e}")


def bench_ppi_replicates(m, n, n_lab, b):
    import evalband as eb

    rng = np.random.default_rng(SEED)
    lab = rng.permutation(n) < n_lab
    frames = []
    for k in range(m):
        y = (rng.uniform(size=n) < 0.4 + 0.01 * k).astype(float)
        f = np.where(rng.uniform(size=n) < 0.8, y, 1.0)
        frames.append(pd.DataFrame({"model": f"m{k:02d}", "task": "t", "item": np.arange(n), "score": f,
                                    "human": np.where(lab, y, np.nan)}))
    table = eb.read(pd.concat(frames, ignore_index=True))
    eb.resample.bootstrap(table, n_resamples=20, rng=0)  # warm up
    _, t_ppi, m_ppi = timed(lambda: eb.resample.bootstrap(table, n_resamples=b, rng=1, progress=False))
    _, t_plain, m_plain = timed(lambda: eb.resample.bootstrap(table, n_resamples=b, rng=1, progress=False,
                                                              ppi="none"))
    print(f"PPI replicates, {m} models x {n:,} items ({n_lab:,} labelled), B={b:,}: {t_ppi:.2f} s (peak"
          f" {m_ppi:.0f} MiB); the judge-only bootstrap of the same table {t_plain:.2f} s (peak {m_plain:.0f} MiB);"
          f" ratio x{t_ppi / t_plain:.1f}")


def main():
    import evalband.judges as ej

    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    b, b_loop = (500, 50) if args.quick else (2000, 200)
    ej.agreement(ej.RatingsTable.from_reliability_data(np.ones((2, 3))), n_resamples=2, rng=0)  # warm up
    crowd = pd.read_csv(ROOT / "tests" / "fixtures" / "llmfao" / "crowd-comparisons.csv")
    table = ej.read_ratings(crowd, unit_col="id", rater_col="worker", value_col="winner", level="nominal")
    bench_alpha("LLMFAO crowd", table, "nominal", b, b_loop)
    rng = np.random.default_rng(SEED)
    truth = rng.integers(1, 6, 2000)
    ratings = np.clip(truth + rng.integers(-1, 2, (10, 2000)), 1, 5).astype(float)
    ratings[rng.uniform(size=ratings.shape) < 0.1] = np.nan
    bench_alpha("synthetic", ej.RatingsTable.from_reliability_data(ratings), "ordinal", b, b_loop)
    bench_ppi(50, 200, 5000)
    bench_ppi_replicates(20, 5000, 500, b)


if __name__ == "__main__":
    main()
