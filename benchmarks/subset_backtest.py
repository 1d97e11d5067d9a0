"""Subset evaluation on a real benchmark, leave one model out: the table of docs/subset.md (issue 25).

Each model of the data in turn is the "new" model, the others the reference; for each budget, ``--repeats``
random samples per model give the design-based and the prediction-assisted 95% intervals of its full-benchmark
score and of its difference from the reference model nearest in full score (:func:`evalband.subset.backtest`,
the functions ``evalband subset estimate`` runs). Baselines in the same run: the design-based interval (the
prediction-assisted width is given as a ratio to it) and tinyBenchmarks-style anchor points (k-means anchors
with cluster weights, and anchor + 2PL IRT; point estimates, no interval), whose error is shown beside the
intervals' estimates.

``--sequential`` adds the evaluate-until-decided figures on MMLU-Pro: for every pair of models whose
full-benchmark accuracies differ by 2.5 to 3.5 points, ``--orders`` random orders of the benchmark's items,
a look after every 20 items, stop when the 95% anytime-valid confidence sequence of the difference excludes 0:
the items evaluated at the decision, for the sequence made for sampling without replacement (the one ``subset
next`` uses) and the one for independent draws.

Usage:
    python benchmarks/subset_backtest.py [--data mmlu-pro|vtab-style] [--repeats 10] [--budgets 50 100 200 400]
                                         [--method random|stratified] [--no-anchors] [--seed 0]
                                         [--sequential [--orders 20] [--skip-backtest]]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import pandas as pd
from scipy.stats import binomtest

import evalband as eb
from evalband.comparison.verdict import verdict
from evalband.plan.sequential import betting_confidence_sequence
from evalband.subset import backtest
from evalband.subset.population import population_of


def _args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default="mmlu-pro", choices=["mmlu-pro", "vtab-style"])
    p.add_argument("--budgets", type=int, nargs="+", default=[50, 100, 200, 400])
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--method", default="random", choices=["random", "stratified"])
    p.add_argument("--no-anchors", action="store_true")
    p.add_argument("--sequential", action="store_true")
    p.add_argument("--skip-backtest", action="store_true", help="only the --sequential figures")
    p.add_argument("--orders", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def _data(name):
    if name == "mmlu-pro":
        return eb.load_example("mmlu-pro")
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
    from subset.synthetic import vtab_style

    return vtab_style(items_per_task=100, seed=0)


def _pct(x, digits=1):
    return "" if pd.isna(x) else f"{100 * x:.{digits}f}"


def table(bt) -> str:
    s = bt.to_frame().set_index(["budget", "quantity", "method"])
    lines = ["| items (share) | score: coverage design / PA | score: width design / PA (ratio) | difference: coverage"
             " design / PA | difference: width design / PA (ratio) | score RMSE: design / PA / anchor points /"
             " anchor IRT | PA effective n |",
             "|---|---|---|---|---|---|---|"]
    for b in sorted({k[0] for k in s.index}):
        row = [f"{b} ({_pct(b / bt.n_items)}%)"]
        for q in ("score", "difference"):
            if (b, q, "design") not in s.index:
                row += ["", ""]
                continue
            d, p = s.loc[(b, q, "design")], s.loc[(b, q, "prediction-assisted")]
            row.append(f"{d['coverage']:.3f} / {p['coverage']:.3f} (n = {int(d['n'])})")
            row.append(f"{_pct(d['mean_width'])} / {_pct(p['mean_width'])} ({p['width_ratio']:.2f})")
        rm = [_pct(s.loc[(b, "score", m), "rmse"], 2) if (b, "score", m) in s.index else "-"
              for m in ("design", "prediction-assisted", "anchor points", "anchor IRT")]
        row.append(" / ".join(rm))
        row.append(f"{s.loc[(b, 'score', 'prediction-assisted'), 'effective_n']:.0f}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def coverage_tests(bt) -> list[str]:
    out = []
    f = bt.to_frame()
    for _, r in f[f["coverage"].notna()].iterrows():
        hits = int(round(r["coverage"] * r["n"]))
        pv = binomtest(hits, int(r["n"]), 0.95, alternative="less").pvalue
        out.append(f"{r['quantity']:<10} {r['method']:<20} budget {int(r['budget']):>4}: {hits}/{int(r['n'])}"
                   f" covered ({r['coverage']:.3f}), one-sided binomial p (coverage < 0.95) = {pv:.3f}")
    return out


def _decision_time(a, b, N, look, population_size):
    """Items evaluated at the first look where the CS of mean(a - b) excludes 0 (None: never), and its sign."""
    L = min(2000, N)
    while True:
        cs = betting_confidence_sequence(a[:L], b[:L], population_size=population_size)
        looks = np.arange(look - 1, L, look)
        words = verdict(cs.low[looks], cs.high[looks])
        hit = np.flatnonzero(words != "not yet decided")
        if hit.size:
            return int(looks[hit[0]] + 1), str(words[hit[0]])
        if L == N:
            return None, None
        L = min(2 * L, N)


def sequential(orders, seed, look=20):
    pop = population_of(eb.load_example("mmlu-pro"))
    S = pop.scores
    complete = np.isfinite(S).all(axis=0)
    full = S[:, complete].mean(axis=1)
    S = S[:, complete]
    N = S.shape[1]
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(len(full)):
        for j in range(len(full)):
            d = full[i] - full[j]
            if not 0.025 <= d <= 0.035:
                continue
            for k in range(orders):
                order = rng.permutation(N)
                a, b = S[i, order], S[j, order]
                for kind, size in (("without replacement", N), ("independent draws", None)):
                    n, word = _decision_time(a, b, N, look, size)
                    rows.append({"pair": f"{pop.models[i]} - {pop.models[j]}", "difference": d, "cs": kind,
                                 "items": n if n is not None else N, "decided": n is not None,
                                 "right": word == "A better"})
    return pd.DataFrame(rows), N


def main(argv=None):
    args = _args(argv)
    if not args.skip_backtest:
        data = _data(args.data)
        t0 = time.perf_counter()
        bt = backtest(data, args.budgets, method=args.method, n_repeats=args.repeats, anchors=not args.no_anchors,
                      rng=args.seed, progress=None)
        print(f"# {args.data}: {bt.headline()} ({time.perf_counter() - t0:.0f} s)")
        for n in bt.notes:
            print(f"# note: {n}")
        print()
        print(table(bt))
        print()
        print("\n".join(coverage_tests(bt)), flush=True)
    if args.sequential:
        t0 = time.perf_counter()
        runs, N = sequential(args.orders, args.seed)
        print(f"\n# evaluate until decided: {runs['pair'].nunique()} MMLU-Pro pairs 2.5-3.5 points apart, {args.orders}"
              f" orders each, a look every 20 items, {N:,} items ({time.perf_counter() - t0:.0f} s)")
        g = runs.groupby("cs")
        summary = pd.DataFrame({"mean items": g["items"].mean().round(0),
                                "median items": g["items"].median(),
                                "share of the benchmark": (g["items"].mean() / N).round(3),
                                "decided": g["decided"].mean().round(3),
                                "wrong direction": (g["decided"].sum() - g["right"].sum()) / g.size()})
        print("| CS | " + " | ".join(summary.columns) + " |")
        print("|" + "---|" * (len(summary.columns) + 1))
        for kind, r in summary.iterrows():
            print(f"| {kind} | " + " | ".join(f"{v:g}" for v in r) + " |")


if __name__ == "__main__":
    main()
