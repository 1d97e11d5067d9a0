"""Benchmark: the exact Beta-Binomial sampler against NUTS on the same model, and the logistic model's cost.

1. VTAB (16 models x 19 tasks, summary counts), 10,000 posterior draws: ``evalband.bayes.beta_binomial`` (exact,
   grid + independent draws) against NumPyro NUTS on the same hierarchy (``nuts_beta_binomial``: 4 chains x
   2,500 draws after 1,000 warm-up, theta sampled explicitly), in the same run. Prints the time ratio (target
   >= 50x) and, per model, how far the posterior mean and the 95% interval ends of the aggregate (unweighted
   mean over tasks) differ, in units of the combined Monte Carlo standard error (ArviZ ``mcse`` for both).
2. The logistic model (model, task, model x task and cluster effects) on MMLU-Pro item-level data
   (29 models, 14 categories as tasks, 12,032 questions, 91 sources as clusters), with the library default
   (12,032 items exceed ``ITEM_EFFECTS_MAX_ITEMS``: no item effects, exact binomial counts per model x cluster
   cell), 4 chains x 1000 draws after 1000 warm-up (the library default), model, task, interaction and cluster
   effects centred by the automatic choice: wall and CPU time and diagnostics (R-hat, ESS, divergences).
   ``--item-effects`` forces the 12,032 item effects (``--logistic-draws 300``: 24 min on 2 busy cores, R-hat
   1.035; the default draws would take about an hour).

Usage::

    python benchmarks/bayes.py            # full run (several minutes on 2 cores)
    python benchmarks/bayes.py --quick    # fewer NUTS draws (ratios then flatter NUTS)
    python benchmarks/bayes.py --skip-vtab                  # the logistic model only
"""

from __future__ import annotations

import argparse
import os
import platform
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


def logistic_mmlu(quick: bool, draws: int | None = None, item_effects: bool | None = None) -> None:
    from evalband import load_example
    from evalband.bayes.numpyro_models import logistic

    table = load_example("mmlu-pro")
    warmup, samples = (150, 150) if quick else (1000, 1000)
    if draws is not None:
        warmup = samples = draws
    t0, c0 = time.perf_counter(), time.process_time()
    res = logistic(table, num_warmup=warmup, num_samples=samples, num_chains=4, item_effects=item_effects, rng=SEED)
    t, cpu = time.perf_counter() - t0, time.process_time() - c0
    d = res.diagnostics
    sizes = d.set_index("variable")["size"]
    print(f"MMLU-Pro logistic model: {len(table.models)} models x {len(table.tasks)} tasks,"
          f" {int(sizes.get('item_effect', 0)):,} item effects, {int(sizes.get('cluster_effect', 0))} cluster effects")
    print(f"  NUTS 4 chains x {samples} draws after {warmup} warm-up: {t:.1f} s ({t / 60:.1f} min;"
          f" CPU {cpu:.1f} s across threads),"
          f" {len(res.inference_data.posterior.data_vars)} variables")
    for note in res.notes:
        if note.startswith(("item effects left out", "parametrisation")):
            print(f"  note: {note}")
    print(f"  max R-hat {d['r_hat_max'].max():.4f}, min bulk ESS {d['ess_bulk_min'].min():.0f},"
          f" min tail ESS {d['ess_tail_min'].min():.0f}, divergences {d.attrs['divergences']}")
    for w in res.warnings:
        print(f"  warning: {w}")
    s = res.summary().sort_values("posterior_mean", ascending=False).head(5)
    print("  top 5 by posterior mean accuracy (theta averaged over the category's questions, unweighted over"
          " categories):")
    for r in s.itertuples():
        print(f"    {r.model:40s} observed {r.observed:.4f}  posterior {r.posterior_mean:.4f}"
              f" [{r.ci_low:.4f}, {r.ci_high:.4f}]  pred [{r.pred_low:.4f}, {r.pred_high:.4f}]  P(best) {r.p_best:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer NUTS draws")
    parser.add_argument("--skip-logistic", action="store_true")
    parser.add_argument("--skip-vtab", action="store_true")
    parser.add_argument("--logistic-draws", type=int, default=None,
                        help="warm-up and draws per chain of the logistic model (default 1000, --quick 150)")
    parser.add_argument("--item-effects", action="store_true", default=None,
                        help="force the logistic model's item effects (default: the library's automatic choice)")
    args = parser.parse_args()
    from evalband.bayes.numpyro_models import require_numpyro

    require_numpyro(4)
    import jax

    print(f"CPUs: {os.cpu_count()}, JAX devices: {jax.local_device_count()}; seed {SEED}")
    print(_versions())
    if not args.skip_vtab:
        exact_vs_nuts(args.quick)
    if not args.skip_logistic:
        logistic_mmlu(args.quick, args.logistic_draws, args.item_effects)


if __name__ == "__main__":
    main()
