"""Benchmark: the exact Beta-Binomial sampler against NUTS on the same model, and the logistic model's cost.

1. VTAB (16 models x 19 tasks, summary counts), 10,000 posterior draws: ``evalband.bayes.beta_binomial`` (exact,
   grid + independent draws) against NumPyro NUTS on the same hierarchy (``nuts_beta_binomial``: 4 chains x
   2,500 draws after 1,000 warm-up, theta sampled explicitly), in the same run. Prints the time ratio (target
   >= 50x) and, per model, how far the posterior mean and the 95% interval ends of the aggregate (unweighted
   mean over tasks) differ, in units of the combined Monte Carlo standard error (ArviZ ``mcse`` for both).
2. Issue 17's targets for the logistic model on MMLU-Pro item-level data (29 models, 14 categories as tasks,
   12,032 questions, 91 sources as clusters), each beside NUTS in the same run:

   a. model, task, model x task and cluster effects (the default fit: exact binomial counts per model x cluster
      cell): the default ``logistic(table)`` (``method='auto'``: HMC over coordinates whitened by the posterior's
      Gaussian approximation, 4 chains x 1000 draws after 400 warm-up), ``method='laplace'`` (no MCMC) and
      ``method='nuts'`` (NumPyro's NUTS, 4 x (1000 + 1000), the library's previous default). Target: converged
      (max R-hat <= 1.01, min bulk ESS >= 400 on every reported quantity, no divergence) in <= 2 min. Each fit is
      also compared with the stored long NUTS run (``tests/bayes/logistic_reference.py``, 4 x 4000 draws):
      largest mean and 95% interval-end differences of theta and of the aggregate, in posterior sds.
   b. with the 12,032 item effects as well: the default HMC beside NUTS at ``--nuts-item-draws`` warm-up and
      draws per chain (default 100, about 15 min; NUTS at its default draws would take about an hour). Target:
      converged in <= 10 min.

   c. NumPyro's NUTS called as a NumPyro user would (``MCMC(NUTS(model)).run``, the same model and data, draws
      only), with the ratios of the default fit and of the Laplace approximation against it (issue 27).
3. With ``--cli``: the issue-27 commands in fresh processes (``bayes --example mmlu-pro --model logistic``, with
   ``--method laplace``, and on three models, where NUTS runs), wall and CPU time, each with an empty JAX
   compilation cache of the run; the default command runs twice on it (the second from JAX's persistent
   compilation cache: what a user's repeated run costs; NUTS's program, with its progress callback, is not
   cached by JAX).

   Wall and CPU time, diagnostics and the time ratios are printed, then the peak memory.

Usage::

    python benchmarks/bayes.py            # full run (about 30 min on 2 cores, most of it the NUTS baselines)
    python benchmarks/bayes.py --quick    # fewer NUTS draws in part 1 (ratios then flatter NUTS)
    python benchmarks/bayes.py --skip-vtab                  # the logistic model only
    python benchmarks/bayes.py --skip-vtab --skip-nuts      # the fast methods only (a few minutes)
    python benchmarks/bayes.py --skip-vtab --skip-items --cli   # issue 27: default, Laplace, NUTS, the commands
    python benchmarks/bayes.py --skip-vtab --skip-nuts --skip-items --check-readme   # the README's timings

At the end the run prints the README's figures of what it measured beside the measurements (the command line's
time, the default fit, with item effects, NUTS / HMC); ``--check-readme`` exits 1 when one disagrees.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time

import numpy as np

SEED = 20261130


def _versions():
    import jax
    import numpyro
    import scipy

    from evalband.bayes.diagnostics import import_arviz

    return (f"numpy {np.__version__}, scipy {scipy.__version__}, numpyro {numpyro.__version__}, jax {jax.__version__},"
            f" arviz {import_arviz().__version__}, Python {platform.python_version()}")


def _mcse(draws, chains, az, kind, prob=None):
    """Monte Carlo standard error per model of (D, M) draws split into ``chains`` chains."""
    x = draws.reshape(chains, -1, draws.shape[1])
    out = []
    for k in range(draws.shape[1]):
        if kind == "mean":
            out.append(float(np.ravel(az.mcse(x[:, :, k], method="mean"))[0]))
        else:
            out.append(float(np.ravel(az.mcse(x[:, :, k], method="quantile", prob=prob))[0]))
    return np.array(out)


def exact_vs_nuts(quick: bool) -> None:
    from evalband import load_example
    from evalband.bayes import beta_binomial
    from evalband.bayes.diagnostics import import_arviz
    from evalband.bayes.numpyro_models import nuts_beta_binomial

    az = import_arviz()
    table = load_example("vtab")
    draws = 10_000
    beta_binomial(table, n_draws=100, rng=0)  # warm imports; the timed run below is complete
    t0 = time.perf_counter()
    exact = beta_binomial(table, n_draws=draws, rng=SEED)
    t_exact = time.perf_counter() - t0
    t0 = time.perf_counter()
    exact.summary()  # predictive draws (made on first use) and every interval, HDI and rank
    t_summary = time.perf_counter() - t0
    warmup, per_chain = (300, 500) if quick else (1000, draws // 4)
    t0 = time.perf_counter()
    nuts = nuts_beta_binomial(table, num_warmup=warmup, num_samples=per_chain, num_chains=4, rng=SEED)
    t_nuts = time.perf_counter() - t0
    ratio = t_nuts / t_exact
    d = nuts.diagnostics
    print(f"VTAB {len(table.models)} models x {len(table.tasks)} tasks, prior {exact.prior}")
    print(f"  exact grid sampler : {t_exact:8.2f} s for {draws:,} independent draws"
          f" (grid {exact.grid.size}x{exact.grid.size}, refinement shift {exact.grid.refinement_shift.max():.1e} sd)")
    print(f"  NUTS (NumPyro)     : {t_nuts:8.2f} s for 4 chains x {per_chain:,} draws after {warmup:,} warm-up"
          f" (compile included); max R-hat {d['r_hat_max'].max():.4f}, min bulk ESS {d['ess_bulk_min'].min():.0f},"
          f" min tail ESS {d['ess_tail_min'].min():.0f}, divergences {d.attrs['divergences']}")
    print(f"  exact summary      : {t_summary:8.2f} s more for predictive draws and all intervals/ranks"
          f" (the same post-processing applies to NUTS draws)")
    print(f"  speed-up exact / NUTS (posterior draws of alpha, beta, theta, aggregate): {ratio:.0f}x (target >= 50x):"
          f" {'PASS' if ratio >= 50 else 'FAIL'}; counting the exact summary too: {t_nuts / (t_exact + t_summary):.0f}x")
    print("  agreement of each model's aggregate (|exact - NUTS| / combined MCSE; |z| < 3 expected):")
    worst = 0.0
    for label, fn, kind, prob in (("mean", lambda a: a.mean(axis=0), "mean", None),
                                  ("2.5% ", lambda a: np.quantile(a, 0.025, axis=0), "quantile", 0.025),
                                  ("97.5%", lambda a: np.quantile(a, 0.975, axis=0), "quantile", 0.975)):
        e, n = fn(exact.aggregate), fn(nuts.aggregate)
        se = np.sqrt(_mcse(exact.aggregate, 4, az, kind, prob) ** 2 + _mcse(nuts.aggregate, 4, az, kind, prob) ** 2)
        z = (e - n) / se
        worst = max(worst, float(np.abs(z).max()))
        print(f"    {label}: max |diff| {np.abs(e - n).max():.2e} (accuracy units), max |z| {np.abs(z).max():.2f},"
              f" |z| > 3 for {int((np.abs(z) > 3).sum())} of {z.size}")
    theta_z = (exact.theta.mean(axis=0) - nuts.theta.mean(axis=0)) / np.sqrt(
        exact.theta.var(axis=0) / draws + nuts.theta.var(axis=0) / np.maximum(
            np.asarray(az.ess(nuts.inference_data, var_names=["theta"])["theta"]).T, 1))
    print(f"    theta_ij means: max |z| {np.abs(theta_z).max():.2f} over {theta_z.size} (|z| > 4: "
          f"{int((np.abs(theta_z) > 4).sum())})")
    print(f"  agreement within Monte Carlo error: {'PASS' if worst < 4 else 'CHECK'}")


def _fit_line(label, res, seconds, cpu):
    d = res.diagnostics
    if "r_hat_max" in d:
        diag = (f"max R-hat {d['r_hat_max'].max():.4f}, min bulk ESS {d['ess_bulk_min'].min():.0f},"
                f" min tail ESS {d['ess_tail_min'].min():.0f}, divergences {d.attrs['divergences']}")
        ok = (d["r_hat_max"].max() <= 1.01 and d["ess_bulk_min"].min() >= 400 and d.attrs["divergences"] == 0)
    else:
        diag, ok = "no chains (" + ", ".join(f"{r.check} {r.value:.3g}" for r in d.itertuples()) + ")", False
    print(f"  {label:44s}: {seconds:7.1f} s wall ({seconds / 60:4.1f} min; CPU {cpu:7.1f} s); {diag}")
    return ok


def _agreement(res, ref):
    """max |mean diff| / sd and max |interval end diff| / sd of theta and the aggregate against a reference
    (a stored long NUTS summary), matched by model and task name."""
    im = [ref["models"].index(m) for m in res.models]
    it = [ref["tasks"].index(t) for t in res.tasks]
    ref = {"theta": {k: np.asarray(v)[im][:, it] for k, v in ref["theta"].items()},
           "aggregate": {k: np.asarray(v)[im] for k, v in ref["aggregate"].items()}}
    out = []
    for key, draws in (("theta", res.theta), ("aggregate", res.aggregate)):
        r = {k: np.array(v) for k, v in ref[key].items()}
        mean = np.abs(draws.mean(0) - r["mean"]) / r["sd"]
        ends = np.maximum(np.abs(np.quantile(draws, 0.025, axis=0) - r["q025"]),
                          np.abs(np.quantile(draws, 0.975, axis=0) - r["q975"])) / r["sd"]
        out.append(f"{key} mean {mean.max():.3f} sd, interval ends {ends.max():.3f} sd")
    return "; ".join(out)


def _timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    res = fn()
    return res, time.perf_counter() - t0, time.process_time() - c0


def _reference():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tests" / "bayes" / "logistic_reference.py"
    spec = importlib.util.spec_from_file_location("logistic_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


def nuts_baseline(table, args, hmc, laplace) -> None:
    """NumPyro's NUTS on the same model and data, called as a NumPyro user would (``MCMC(NUTS(model)).run``, 4
    chains x (1000 + 1000), the chains in parallel where JAX has a device per chain), beside evalband's default
    fit and its Laplace approximation: the issue-27 ratios."""
    import jax
    import jax.numpy as jnp
    from numpyro.infer import MCMC, NUTS

    from evalband.bayes import logistic_model as lm

    m, t = tuple(table.models), tuple(table.tasks)
    obs, _, _, _, info, _ = lm._logistic_data(table, m, t, False, None)
    centred, _ = lm._resolve_centred("auto", info)
    arrays = {k: (jnp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in obs.items()}

    def run():
        method = "parallel" if jax.local_device_count() >= 4 else "sequential"
        mcmc = MCMC(NUTS(lm._logistic_model, max_tree_depth=8), num_warmup=1000, num_samples=1000, num_chains=4,
                    chain_method=method, progress_bar=False)
        mcmc.run(jax.random.PRNGKey(SEED), **dict(arrays, n_models=len(m), n_tasks=len(t), centred=centred))
        return mcmc.get_samples()

    _, t_n, c_n = _timed(run)
    print(f"  {'NumPyro NUTS (plain MCMC.run, 4 x (1000 + 1000))':44s}: {t_n:7.1f} s wall ({t_n / 60:4.1f} min;"
          f" CPU {c_n:7.1f} s); draws only (no theta, no diagnostics)")
    print(f"    ratios against plain NumPyro NUTS: default fit {t_n / hmc[0]:.1f}x faster wall ({c_n / hmc[1]:.1f}x CPU),"
          f" Laplace {t_n / laplace[0]:.1f}x faster wall ({c_n / laplace[1]:.1f}x CPU)")


def _fresh_cache_env():
    """The environment of a fresh process with an empty JAX compilation cache of its own (a first run, as a user
    who never ran the command sees it), and the directory to reuse for a second run."""
    import tempfile

    cache = tempfile.mkdtemp(prefix="evalband-bench-cache-")
    return dict(os.environ, EVALBAND_CACHE_DIR=cache), cache


def cli_runs(measured: dict) -> None:
    """The three commands of issue 27 as a user runs them (fresh process, JSON out), wall and CPU time, beside
    ``python -c "import jax, numpyro"`` (the floor of any command that fits with JAX). The default command runs
    twice on one empty compilation cache: first run (compiles the sampler) and a repeat (JAX's persistent cache)."""
    import shutil
    import subprocess
    import sys

    def timed(args, env=None):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.perf_counter() - t0, (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)

    cli = [sys.executable, "-m", "evalband", "bayes", "--example", "mmlu-pro", "--model", "logistic", "--format",
           "json", "--seed", "1"]
    floor = timed([sys.executable, "-c", "import jax, numpyro"])
    print(f"CLI, fresh processes (issue 27 targets on a quiet 2-core machine: default <= 30 s, laplace <= 5 s);"
          f" import jax, numpyro: {floor[0]:.1f} s wall, {floor[1]:.1f} s CPU; load average"
          f" {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    from evalband import load_example

    three = ",".join(sorted(load_example("mmlu-pro").models)[:3])  # three models: too few for HMC, NUTS runs
    env, cache = _fresh_cache_env()
    try:
        runs = (("bayes --model logistic (default), first run", [], "bayes.cli_logistic_seconds",
                 "bayes.cli_logistic_cpu_seconds"),
                ("  ... repeated (compilation cache)", [], "bayes.cli_logistic_repeat_seconds",
                 "bayes.cli_logistic_repeat_cpu_seconds"),
                ("  ... --method laplace", ["--method", "laplace"], "bayes.cli_laplace_seconds",
                 "bayes.cli_laplace_cpu_seconds"),
                (f"  ... --models {three[:24]}... (NUTS)", ["--models", three], "bayes.cli_nuts3_seconds",
                 "bayes.cli_nuts3_cpu_seconds"))
        for label, extra, key, cpu_key in runs:
            w, c = timed(cli + extra, env)
            print(f"  {label:40s}: {w:7.1f} s wall, {c:7.1f} s CPU")
            # wall time, and the CPU time (near enough what a quiet machine's wall time would be)
            measured[key], measured[cpu_key] = w, c
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def cli_logistic(measured: dict) -> None:
    """``evalband bayes --example mmlu-pro --model logistic`` end to end, as a user runs it the first time
    (start-up, reading, compilation with an empty compilation cache, the fit, the summary); with ``--cli`` the
    README's figure ``bayes.cli_logistic_seconds`` comes from :func:`cli_runs` instead."""
    import shutil
    import subprocess

    command = [sys.executable, "-m", "evalband", "bayes", "--example", "mmlu-pro", "--model", "logistic", "--format",
               "json"]
    env, cache = _fresh_cache_env()
    t0 = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    seconds = time.perf_counter() - t0
    shutil.rmtree(cache, ignore_errors=True)
    measured["bayes.cli_logistic_seconds"] = seconds
    print(f" 0. the command line: {' '.join(command[2:])}: {seconds:.1f} s wall, load average"
          f" {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


def logistic_targets(args, measured: dict) -> None:
    """Issue 17's targets on MMLU-Pro, each method beside NUTS in the same run (module docstring)."""
    from evalband import load_example
    from evalband.bayes.numpyro_models import logistic

    table = load_example("mmlu-pro")
    ref = _reference()
    print(f"MMLU-Pro logistic model: {len(table.models)} models x {len(table.tasks)} tasks, 91 clusters,"
          f" 12,032 questions ({len(table.data):,} scores)")
    print(" 1. model, task, model x task and cluster effects (target: converged in <= 2 min on 2 cores)")
    res_h, t_h, c_h = _timed(lambda: logistic(table, rng=SEED))  # method='auto': HMC here
    ok = _fit_line("HMC, whitened (default, 4 x (400 + 1000))", res_h, t_h, c_h)
    measured["bayes.logistic_seconds"] = t_h
    print(f"    {res_h.notes[0][:150]}...")
    print(f"    against the stored long NUTS run (4 x 4000 draws): {_agreement(res_h, ref['cells_full'])}")
    res_d, t_d, c_d = _timed(lambda: logistic(table, method="laplace", rng=SEED))
    _fit_line("Laplace (default: 4,000 draws, no MCMC)", res_d, t_d, c_d)
    res_l, t_l, c_l = _timed(lambda: logistic(table, method="laplace", num_samples=4000, rng=SEED))
    _fit_line("Laplace (16,000 draws, no MCMC)", res_l, t_l, c_l)
    print(f"    against the stored long NUTS run: {_agreement(res_l, ref['cells_full'])}")
    if not args.skip_nuts:
        res_n, t_n, c_n = _timed(lambda: logistic(table, method="nuts", rng=SEED))
        _fit_line("NUTS (method='nuts', 4 x (1000 + 1000))", res_n, t_n, c_n)
        print(f"    against the stored long NUTS run: {_agreement(res_n, ref['cells_full'])}")
        nuts_baseline(table, args, (t_h, c_h), (t_d, c_d))
        measured["bayes.nuts_ratio"] = t_n / t_h
    print(f"    target (HMC converged in <= 120 s): {'PASS' if ok and t_h <= 120 else 'FAIL'}")
    if args.skip_items:
        return
    print(" 2. with the 12,032 item effects as well (target: converged in <= 10 min on 2 cores)")
    res_h, t_h, c_h = _timed(lambda: logistic(table, item_effects=True, rng=SEED))
    ok = _fit_line("HMC, whitened (default, 4 x (400 + 1000))", res_h, t_h, c_h)
    measured["bayes.logistic_items_minutes"] = t_h / 60
    print(f"    {res_h.notes[0][:150]}...")
    if not args.skip_nuts:
        w = args.nuts_item_draws
        res_n, t_n, c_n = _timed(lambda: logistic(table, item_effects=True, method="nuts", num_warmup=w,
                                                  num_samples=w, rng=SEED))
        _fit_line(f"NUTS (method='nuts', 4 x ({w} + {w}))", res_n, t_n, c_n)
        per_draw_n, per_draw_h = t_n / (2 * w), t_h / 1400
        print(f"    time per iteration (warm-up or draw): NUTS {per_draw_n:.2f} s, HMC {per_draw_h:.3f} s"
              f" ({per_draw_n / per_draw_h:.0f}x)")
    print(f"    target (HMC converged in <= 600 s): {'PASS' if ok and t_h <= 600 else 'FAIL'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer NUTS draws")
    parser.add_argument("--skip-logistic", action="store_true")
    parser.add_argument("--skip-vtab", action="store_true")
    parser.add_argument("--skip-items", action="store_true", help="leave out target 2 (item effects)")
    parser.add_argument("--skip-nuts", action="store_true", help="leave out the NUTS baselines of the logistic model")
    parser.add_argument("--cli", action="store_true", help="also time the three bayes commands of issue 27 in fresh"
                        " processes")
    parser.add_argument("--nuts-item-draws", type=int, default=100,
                        help="warm-up and draws per chain of the NUTS baseline with item effects (default 100: about"
                             " 15 min; the default 1000 would take about an hour)")
    parser.add_argument("--skip-cli", action="store_true", help="leave out the command-line run of the logistic model")
    parser.add_argument("--check-readme", action="store_true",
                        help="exit 1 when a figure the README writes disagrees with this run (readme_claims.py)")
    args = parser.parse_args()
    from evalband.bayes.numpyro_models import require_numpyro

    require_numpyro(4)
    import jax

    print(f"CPUs: {os.cpu_count()}, JAX devices: {jax.local_device_count()}; seed {SEED}")
    print(_versions())
    if not args.skip_vtab:
        exact_vs_nuts(args.quick)
    measured = {}
    if args.cli:  # first: the commands as a user runs them (their first run measured with an empty cache)
        cli_runs(measured)
    if not args.skip_logistic:
        if not args.skip_cli and not args.cli:
            cli_logistic(measured)
        logistic_targets(args, measured)
    print(f"peak memory (max RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    from readme_claims import report

    report(measured, check=args.check_readme)


if __name__ == "__main__":
    main()
