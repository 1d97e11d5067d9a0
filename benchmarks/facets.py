"""Benchmark of the facets package (issue 17) against named baselines, run in the same process.

Workloads (binary scores from a logit-normal items x prompts population, 2 trials per cell):
  F1: 10 models x 5 tasks x 500 items x 5 prompts x 2 trials (250,000 rows), B = 2,000
  F2: one model, 100 items x 5 prompts x 1-2 trials, 10% of the cells missing (unbalanced)

Timed (median of --repeats), with peak traced memory (tracemalloc) of one run:
  F1 baseline  evalband.resample.bootstrap: the paired item bootstrap (items only; what compare/rank use today)
  F1 wild      evalband.facets.crossed_bootstrap, method='wild' (items and prompts, small-sample corrected)
  F1 pigeon    evalband.facets.crossed_bootstrap, method='pigeonhole' (Owen 2007)
  F1 anova     evalband.facets.variance_components (balanced: expected mean squares, all 45 pairs too)
  F2 reml      evalband.facets.variance_components, method='reml' (one model, no pairs)
  F2 statsmodels  statsmodels MixedLM REML (one group, vc_formula item, prompt, item:prompt), the oracle's fit

Usage: python benchmarks/facets.py [--repeats 3] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd


def _data(rng, n_models, n_tasks, n_items, n_prompts, n_trials, drop=0.0):
    frames = []
    for t in range(n_tasks):
        a = rng.normal(0, 1, n_items)
        b = rng.normal(0, 0.7, n_prompts)
        for m in range(n_models):
            eta = 0.1 * m + a[:, None, None] + b[None, :, None]
            y = (rng.random((n_items, n_prompts, n_trials)) < 1 / (1 + np.exp(-eta))).astype(float)
            frames.append(pd.DataFrame({
                "model": f"m{m}", "task": f"t{t}", "item": np.repeat(np.arange(n_items), n_prompts * n_trials),
                "prompt": np.tile(np.repeat(np.arange(n_prompts), n_trials), n_items),
                "trial": np.tile(np.arange(n_trials), n_items * n_prompts), "score": y.ravel()}))
    df = pd.concat(frames, ignore_index=True)
    if drop:
        cell = df.groupby(["model", "task", "item", "prompt"]).ngroup().to_numpy()
        gone = rng.random(cell.max() + 1) < drop
        extra = rng.random(len(df)) < 0.3  # some second trials missing too
        df = df[~gone[cell] & ~((df["trial"] == 1).to_numpy() & extra)]
    return df


def _time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return statistics.median(times), peak / 2 ** 20


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="smaller F1 (development only)")
    args = p.parse_args(argv)
    from evalband.facets import crossed_bootstrap, variance_components
    from evalband.io import read
    from evalband.resample import bootstrap

    rng = np.random.default_rng(20261201)
    f1 = read(_data(rng, 10, 2 if args.quick else 5, 500, 5, 2))
    b = 2000
    rows = []
    base, base_mem = _time(lambda: bootstrap(f1, n_resamples=b, rng=1), args.repeats)
    rows.append(("F1", "baseline: resample.bootstrap (items only)", base, base_mem, 1.0))
    for name, kw in (("crossed_bootstrap wild", {}), ("crossed_bootstrap pigeonhole", {"method": "pigeonhole"})):
        t, mem = _time(lambda kw=kw: crossed_bootstrap(f1, n_resamples=b, rng=1, **kw), args.repeats)
        rows.append(("F1", name, t, mem, t / base))
    t, mem = _time(lambda: variance_components(f1, n_resamples=2000, rng=1), args.repeats)
    rows.append(("F1", "variance_components anova (+45 pairs)", t, mem, t / base))

    f2_df = _data(rng, 1, 1, 100, 5, 2, drop=0.1)
    f2 = read(f2_df)
    ours, ours_mem = _time(lambda: variance_components(f2, method="reml", differences=False, n_resamples=2000, rng=1),
                           args.repeats)
    try:
        import statsmodels.api as sm

        d = f2_df.assign(g=1)
        md = sm.MixedLM.from_formula("score ~ 1", groups="g", re_formula="0", data=d,
                                     vc_formula={"item": "0+C(item)", "prompt": "0+C(prompt)",
                                                 "ip": "0+C(item):C(prompt)"})

        def fit():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return md.fit(reml=True, method=["lbfgs"])

        sm_t, sm_mem = _time(fit, args.repeats)
        rows.append(("F2", "baseline: statsmodels MixedLM REML", sm_t, sm_mem, 1.0))
        rows.append(("F2", "variance_components reml (+ pivots, se, G)", ours, ours_mem, ours / sm_t))
    except ImportError:
        rows.append(("F2", "variance_components reml (statsmodels missing)", ours, ours_mem, float("nan")))
    print(f"{'workload':8} {'method':46} {'seconds':>9} {'peak MiB':>9} {'ratio':>7}")
    for w, name, t, mem, ratio in rows:
        print(f"{w:8} {name:46} {t:9.3f} {mem:9.1f} {ratio:7.2f}")


if __name__ == "__main__":
    main()
