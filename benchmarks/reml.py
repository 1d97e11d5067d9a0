"""Benchmark: REML variance components of unbalanced crossed designs (issue 27) beside lme4, same run.

Workloads (binary scores from a logit-normal population: item sd 1.2, prompt 0.3, seed 0.1, item x prompt 0.6,
item x seed 0.3; a model shift of 0.3; each model misses 15% of its cells at random, so the two models' cells
differ and the pair's difference has its own cells):
  R1:  60 items x 6 prompts x 3 seeds, 2 models, about 1,840 rows (the issue's design)
  R10: 600 items x 6 prompts x 3 seeds, 2 models, about 18,400 rows (10x)
Each workload is fitted three times, as ``evalband variance`` does: each model and the pair's difference.

Timed in the same run (CPU and wall; the machine may be shared, so compare the ratios):
  evalband   ``variance_components(table, facets=('prompt', 'seed'), method='reml')``: the three fits with their
             intervals (median of --repeats), and one model alone (``differences=False``)
  lme4       ``lmer(score ~ 1 + (1|item) + (1|prompt) + (1|seed) + (1|item:prompt) + (1|item:seed) +
             (1|prompt:seed), REML = TRUE)`` on the same three data sets via ``Rscript`` (each fit timed inside R
             with ``system.time``); when R or lme4 is missing, statsmodels ``MixedLM`` (one group, the six terms
             as variance components; R1 only: it works with dense q x q matrices)
  end to end ``evalband variance FILE --facets prompt,seed --format json`` in a fresh process beside ``Rscript``
             reading the same CSV, loading lme4 and fitting the three models
Agreement, with lme4's default fit and with lme4 restarted at its optimum to bobyqa's rhoend 1e-12 (not timed): the
largest relative difference among components above 1e-4 of the total, the largest difference as a share of the
total, and the REML criterion of evalband's estimates minus lme4's own, both from lme4's deviance function
(negative: ours is the better optimum; lme4's default optimizer stops a little early on flat directions).

Usage::

    python benchmarks/reml.py                 # R1 and R10, 3 repeats
    python benchmarks/reml.py --quick         # R1 only
    python benchmarks/reml.py --write DIR     # write the workloads' CSVs to DIR and exit
    python benchmarks/reml.py --quick --write tests/fixtures/facets   # the R1 fixture of tests/facets/test_reml.py
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

FORMULA = "score ~ 1 + (1|item) + (1|prompt) + (1|seed) + (1|item:prompt) + (1|item:seed) + (1|prompt:seed)"
# evalband's component names -> lme4's groups
GROUPS = {"item": "item", "prompt": "prompt", "seed": "seed", "item x prompt": "item:prompt",
          "item x seed": "item:seed", "prompt x seed": "prompt:seed", "item x prompt x seed, residual": "Residual"}
WORKLOADS = {"R1": 60, "R10": 600}

R_SCRIPT = r"""
suppressMessages(library(lme4))
args <- commandArgs(TRUE)
d <- read.csv(args[1])
ours <- if (length(args) > 1) read.csv(args[2]) else NULL
f <- FORMULA
entities <- list()
models <- sort(unique(d$model))
for (m in models) entities[[m]] <- d[d$model == m, c("item", "prompt", "seed", "score")]
if (length(models) == 2) {
  a <- entities[[models[1]]]; b <- entities[[models[2]]]
  e <- merge(a, b, by = c("item", "prompt", "seed"))
  e$score <- e$score.x - e$score.y
  entities[[paste(models[1], "-", models[2])]] <- e[, c("item", "prompt", "seed", "score")]
}
for (name in names(entities)) {
  e <- entities[[name]]
  for (v in c("item", "prompt", "seed")) e[[v]] <- factor(e[[v]])
  t <- system.time(m <- suppressMessages(lmer(f, data = e, REML = TRUE)))
  cat("FIT", name, "|", t[["user.self"]] + t[["sys.self"]], t[["elapsed"]], format(REMLcrit(m), digits = 17), "\n",
      sep = "\t")
  vc <- as.data.frame(VarCorr(m))
  for (k in seq_len(nrow(vc))) cat("VC", name, "|", vc$grp[k], format(vc$vcov[k], digits = 17), "\n", sep = "\t")
  if (!is.null(ours)) {
    # lme4 to the limit of precision (not timed): bobyqa restarted at its optimum with rhoend 1e-12
    tight <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhobeg = 1e-3, rhoend = 1e-12, maxfun = 1e5),
                         calc.derivs = FALSE)
    m2 <- suppressMessages(lmer(f, data = e, REML = TRUE, start = getME(m, "theta"), control = tight))
    vc <- as.data.frame(VarCorr(m2))
    for (k in seq_len(nrow(vc))) cat("TVC", name, "|", vc$grp[k], format(vc$vcov[k], digits = 17), "\n", sep = "\t")
    cat("TCRIT", name, "|", format(REMLcrit(m2), digits = 17), "\n", sep = "\t")
    o <- ours[ours$entity == name, ]
    v <- setNames(o$variance, o$group)
    th <- sqrt(pmax(v[sub("\\.\\(Intercept\\)$", "", names(getME(m, "theta")))], 0) / v[["Residual"]])
    dev <- lmer(f, data = e, REML = TRUE, devFunOnly = TRUE)
    cat("OURS", name, "|", format(dev(unname(th)), digits = 17), "\n", sep = "\t")
  }
}
""".replace("FORMULA", FORMULA)


def design(seed: int, n_items: int = 60, n_prompts: int = 6, n_seeds: int = 3, n_models: int = 2,
           drop: float = 0.15) -> pd.DataFrame:
    """Binary scores of ``n_models`` models on items x prompts x seeds, each model missing ``drop`` of its cells."""
    rng = np.random.default_rng(seed)
    a = rng.normal(0, 1.2, n_items)
    b = rng.normal(0, 0.3, n_prompts)
    c = rng.normal(0, 0.1, n_seeds)
    ab = rng.normal(0, 0.6, (n_items, n_prompts))
    ac = rng.normal(0, 0.3, (n_items, n_seeds))
    i, p, s = (x.ravel() for x in np.meshgrid(np.arange(n_items), np.arange(n_prompts), np.arange(n_seeds),
                                              indexing="ij"))
    frames = []
    for m in range(n_models):
        eta = 0.3 * m + a[i] + b[p] + c[s] + ab[i, p] + ac[i, s]
        y = (rng.random(i.size) < 1 / (1 + np.exp(-eta))).astype(float)
        keep = rng.random(i.size) >= drop
        frames.append(pd.DataFrame({"model": f"m{m}", "task": "t", "item": i[keep], "prompt": p[keep],
                                    "seed": s[keep], "score": y[keep]}))
    return pd.concat(frames, ignore_index=True)


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(argv) -> tuple[float, float, subprocess.CompletedProcess]:
    c0, w0 = _cpu_children(), time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, check=False)
    return _cpu_children() - c0, time.perf_counter() - w0, out


def _timed(fn, repeats: int):
    cpu, wall, result = [], [], None
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        result = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall), result


def _ours(vc) -> pd.DataFrame:
    """evalband's components per entity, named as lme4's groups."""
    rows = []
    for f, label in ((vc.to_frame(), lambda r: r["model"]),
                     (vc.difference_frame(), lambda r: f"{r['model_a']} - {r['model_b']}")):
        for _, r in f.iterrows():
            rows.append({"entity": label(r), "group": GROUPS[r["component"]], "variance": r["variance"]})
    return pd.DataFrame(rows)


def _lme4(csv: Path, ours_csv: Path | None, rscript: str):
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as fh:
        fh.write(R_SCRIPT)
    argv = [rscript, fh.name, str(csv)] + ([str(ours_csv)] if ours_csv else [])
    cpu, wall, out = _run(argv)
    os.unlink(fh.name)
    if out.returncode:
        raise RuntimeError(f"Rscript failed: {out.stderr.strip()[-500:]}")
    fits, comps, tight, crit = {}, [], [], {}
    for line in out.stdout.splitlines():
        kind, name, _, *rest = line.rstrip("\t").split("\t")
        if kind == "FIT":
            fits[name] = (float(rest[0]), float(rest[1]), float(rest[2]))
        elif kind in ("VC", "TVC"):
            (comps if kind == "VC" else tight).append({"entity": name, "group": rest[0], "variance": float(rest[1])})
        elif kind in ("OURS", "TCRIT"):
            crit[(kind, name)] = float(rest[0])
    return cpu, wall, fits, pd.DataFrame(comps), pd.DataFrame(tight), crit


def _statsmodels(df: pd.DataFrame):
    import statsmodels.api as sm

    fits, comps = {}, []
    models = sorted(df["model"].unique())
    ents = {m: df[df["model"] == m] for m in models}
    if len(models) == 2:
        e = ents[models[0]].merge(ents[models[1]], on=["item", "prompt", "seed"])
        ents[f"{models[0]} - {models[1]}"] = e.assign(score=e["score_x"] - e["score_y"])
    vcf = {"item": "0+C(item)", "prompt": "0+C(prompt)", "seed": "0+C(seed)", "item:prompt": "0+C(item):C(prompt)",
           "item:seed": "0+C(item):C(seed)", "prompt:seed": "0+C(prompt):C(seed)"}
    for name, e in ents.items():
        c0, w0 = time.process_time(), time.perf_counter()
        md = sm.MixedLM.from_formula("score ~ 1", groups="g", re_formula="0", vc_formula=vcf,
                                     data=e[["item", "prompt", "seed", "score"]].assign(g=1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = md.fit(reml=True, method=["lbfgs"])
        fits[name] = (time.process_time() - c0, time.perf_counter() - w0, np.nan)
        comps += [{"entity": name, "group": g, "variance": v} for g, v in zip(md.exog_vc.names, r.vcomp)]
        comps.append({"entity": name, "group": "Residual", "variance": r.scale})
    return fits, pd.DataFrame(comps)


def _agreement(ours: pd.DataFrame, ref: pd.DataFrame) -> tuple[float, float]:
    """Largest relative difference among components above 1e-4 of the entity's total, and largest difference as
    a share of the total (components at or near 0)."""
    m = ours.merge(ref, on=["entity", "group"], suffixes=("", "_ref"))
    total = m.groupby("entity")["variance_ref"].transform("sum")
    diff = np.abs(m["variance"] - m["variance_ref"])
    big = m["variance_ref"] > 1e-4 * total
    return float((diff[big] / m["variance_ref"][big]).max()), float((diff / total).max())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="R1 only")
    p.add_argument("--seed", type=int, default=27)
    p.add_argument("--write", type=Path, help="write the workloads as CSV files to this folder and exit")
    args = p.parse_args(argv)
    if args.write:
        args.write.mkdir(parents=True, exist_ok=True)
        for name, n_items in list(WORKLOADS.items())[:1 if args.quick else None]:
            path = args.write / f"reml_{name.lower()}.csv"
            design(args.seed, n_items).to_csv(path, index=False)
            print(f"wrote {path}")
        return
    from evalband.facets import variance_components
    from evalband.io import read

    rscript = shutil.which("Rscript")
    if rscript and subprocess.run([rscript, "-e", "library(lme4)"], capture_output=True, check=False).returncode:
        rscript = None
    baseline = "lme4" if rscript else "statsmodels"
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; baseline {baseline}"
          + ("" if rscript else " (Rscript with lme4 not found)"))
    evalband_cli = [sys.executable, "-m", "evalband"]
    rows = []
    tmp = Path(tempfile.mkdtemp())
    for name, n_items in list(WORKLOADS.items())[:1 if args.quick else None]:
        df = design(args.seed, n_items)
        csv = tmp / f"{name}.csv"
        df.to_csv(csv, index=False)
        table = read(df, facets=["prompt", "seed"])
        one = read(df[df["model"] == "m0"], facets=["prompt", "seed"])
        kw = {"facets": ("prompt", "seed"), "method": "reml", "n_resamples": 2000, "rng": 1}
        cpu, wall, vc = _timed(lambda t=table, kw=kw: variance_components(t, **kw), args.repeats)
        cpu1, wall1, _ = _timed(lambda t=one, kw=kw: variance_components(t, differences=False, **kw), args.repeats)
        ours = _ours(vc)
        label = f"{name} ({len(df):,} rows)"
        if rscript:
            ours_csv = tmp / f"{name}_ours.csv"
            ours.to_csv(ours_csv, index=False)
            r_cpu, r_wall, fits, ref, _, _ = _lme4(csv, None, rscript)
            _, _, _, _, tight, crit = _lme4(csv, ours_csv, rscript)
            d_crit = max(crit[("OURS", e)] - fits[e][2] for e in fits)
            d_tight = max(crit[("OURS", e)] - crit[("TCRIT", e)] for e in fits)
            agree_tight = _agreement(ours, tight)
        else:
            if n_items > 100:
                print(f"{label}: statsmodels MixedLM skipped (dense q x q algebra: too large)")
                continue
            fits, ref = _statsmodels(df)
            r_cpu = r_wall = d_crit = d_tight = np.nan
            agree_tight = (np.nan, np.nan)
        b_cpu = sum(f[0] for f in fits.values())
        b_wall = sum(f[1] for f in fits.values())
        m0_cpu, m0_wall = fits["m0"][0], fits["m0"][1]
        rows.append((label, "3 fits (m0, m1, m0 - m1)", cpu, wall, b_cpu, b_wall))
        rows.append((label, "1 fit (m0 alone)", cpu1, wall1, m0_cpu, m0_wall))
        agree = _agreement(ours, ref)
        c_cpu, c_wall, out = _run(evalband_cli + ["variance", str(csv), "--facets", "prompt,seed", "--seed", "1",
                                                  "--format", "json"])
        if out.returncode:
            print(f"{label}: evalband variance failed: {out.stderr.strip()[-300:]}")
        elif rscript:
            rows.append((label, "end to end: CLI vs Rscript", c_cpu, c_wall, r_cpu, r_wall))
        print(f"{label}: components vs {baseline} (default optimizer / to rhoend 1e-12): largest relative difference"
              f" {agree[0]:.1e} / {agree_tight[0]:.1e}, largest difference as a share of the total {agree[1]:.1e} /"
              f" {agree_tight[1]:.1e}; REML criterion of evalband's estimates minus {baseline}'s {d_crit:+.1e} /"
              f" {d_tight:+.1e}")
    print(f"\n{'workload':20} {'what':28} {'evalband cpu':>12} {'wall':>8} {baseline + ' cpu':>12} {'wall':>8}"
          f" {'ratio cpu':>9} {'ratio wall':>10}")
    for label, what, c, w, bc, bw in rows:
        print(f"{label:20} {what:28} {c:12.3f} {w:8.3f} {bc:12.3f} {bw:8.3f} {c / bc:9.2f} {w / bw:10.2f}")


if __name__ == "__main__":
    main()
