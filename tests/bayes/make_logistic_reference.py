"""Produce the long NUTS reference posteriors of the logistic model stored in ``tests/bayes/logistic_reference.py``.

Run from the repository root (about an hour on 2 shared cores)::

    python tests/bayes/make_logistic_reference.py > tests/bayes/logistic_reference.py

Each case is fitted with NumPyro's NUTS in the model's own coordinates (``logistic(..., method='nuts')``, the
model of :mod:`evalband.bayes.logistic_model` and nothing of the fast methods), 4 chains with long runs. For theta
(every model x task), each model's aggregate (unweighted mean over tasks) and every scale, it prints the posterior
mean, sd and 2.5% / 97.5% quantiles with their Monte Carlo standard errors (ArviZ ``mcse``), the diagnostics and
the versions used. The HMC and Laplace tests compare against these numbers.
"""

from __future__ import annotations

import platform
import sys
import time

import numpy as np

SEED = 20261201
SMALL_TASKS = ("history", "computer science", "philosophy", "biology", "business", "psychology", "health",
               "economics", "other", "engineering")  # the 10 smallest MMLU-Pro categories
CASES = {
    # name: (description, logistic() options, warm-up, draws per chain)
    "cells_sub": ("MMLU-Pro, first 12 models (by name) x 10 smallest categories, cluster effects, no item effects",
                  {"item_effects": False}, 1000, 4000),
    "items_sub": ("MMLU-Pro, first 10 models (by name) x 10 smallest categories x the 60 first questions of each"
                  " (by id),"
                  " cluster and item effects", {"item_effects": True}, 1000, 3000),
    "items_cells_sub": ("MMLU-Pro, first 12 models x 10 smallest categories (7,149 questions), cluster and item"
                        " effects (every level informative: the automatic choice centres them all)",
                        {"item_effects": True}, 1000, 2000),
    "cells_full": ("MMLU-Pro, all 29 models x 14 categories, cluster effects, no item effects (the default fit)",
                   {"item_effects": False}, 1000, 4000),
    "vtab": ("VTAB-1k summary counts, 16 models x 19 tasks (no clusters, no items)", {}, 1000, 3000),
}


def case_data(name):
    """The data of a case (a ResultsTable)."""
    import pandas as pd

    from evalband import ResultsTable, load_example

    if name == "vtab":
        return load_example("vtab")
    table = load_example("mmlu-pro")
    if name == "cells_full":
        return table
    d = table.data
    n_models = 10 if name == "items_sub" else 12
    # the first models by name (Python's order, capitals first: the table's order when the references were made;
    # the table's own order has changed since)
    keep = d["model"].isin(sorted(table.models)[:n_models]) & d["task"].isin(SMALL_TASKS)
    d = d.loc[keep]
    if name == "items_sub":
        first = (d[["task", "item"]].drop_duplicates().assign(item=lambda x: x["item"].astype(str))
                 .sort_values(["task", "item"]).groupby("task", observed=True).head(60))
        d = d.loc[(d["task"].astype(str) + "\x00" + d["item"].astype(str)).isin(
            first["task"].astype(str) + "\x00" + first["item"])]
    cols = ["model", "task", "item", "cluster", "score"]
    return ResultsTable.from_items(pd.DataFrame({c: d[c].astype(str) if c != "score" else d[c] for c in cols}))


def in_order(ref, models, tasks):
    """The stored summaries of theta (M, T) and of the aggregate (M,) with their model and task axes in the order
    of ``models`` and ``tasks`` (a fit's; the stored order is that of the table when the reference was made), the
    scales' as they are."""
    im = [ref["models"].index(m) for m in models]
    it = [ref["tasks"].index(t) for t in tasks]
    out = dict(ref, models=list(models), tasks=list(tasks))
    out["theta"] = {k: np.asarray(v)[im][:, it].tolist() for k, v in ref["theta"].items()}
    out["aggregate"] = {k: np.asarray(v)[im].tolist() for k, v in ref["aggregate"].items()}
    return out


def summarise(draws, nc, az):
    """mean, sd, q025, q975 and the MCSEs of mean and quantiles, per element of draws (D, ...)."""
    shape = draws.shape[1:]
    flat = draws.reshape(nc, -1, int(np.prod(shape)) if shape else 1)
    out = {k: [] for k in ("mean", "sd", "mcse_mean", "q025", "mcse_q025", "q975", "mcse_q975")}
    for j in range(flat.shape[2]):
        x = flat[:, :, j]
        out["mean"].append(float(x.mean()))
        out["sd"].append(float(x.std(ddof=1)))
        out["mcse_mean"].append(float(np.ravel(az.mcse(x, method="mean"))[0]))
        for q, key in ((0.025, "q025"), (0.975, "q975")):
            out[key].append(float(np.quantile(x, q)))
            out["mcse_" + key].append(float(np.ravel(az.mcse(x, method="quantile", prob=q))[0]))
    return {k: np.round(np.array(v).reshape(shape), 7).tolist() for k, v in out.items()}


def main(names):
    import jax
    import numpyro

    from evalband.bayes import logistic
    from evalband.bayes.diagnostics import import_arviz

    az = import_arviz()
    print('"""Long NUTS reference posteriors of the logistic model. Generated by')
    print("    python tests/bayes/make_logistic_reference.py > tests/bayes/logistic_reference.py")
    print(f"with numpyro {numpyro.__version__}, jax {jax.__version__}, arviz {az.__version__},"
          f" numpy {np.__version__}, Python {platform.python_version()}; do not edit by hand.\"\"\"")
    print()
    print("CASES = {}")
    for name in names:
        what, options, warmup, draws = CASES[name]
        table = case_data(name)
        t0 = time.perf_counter()
        res = logistic(table, method="nuts", num_warmup=warmup, num_samples=draws, num_chains=4, rng=SEED, **options)
        seconds = time.perf_counter() - t0
        d = res.diagnostics
        post = res.inference_data.posterior
        nc = post.sizes["chain"]
        out = {"what": what, "models": list(res.models), "tasks": list(res.tasks), "options": options,
               "theta": summarise(res.theta, nc, az), "aggregate": summarise(res.aggregate, nc, az),
               "warnings": list(res.warnings), "seed": SEED, "seconds": round(seconds, 1)}
        for var in post.data_vars:
            if var.startswith("sigma_"):
                out[var] = summarise(np.asarray(post[var]).reshape(-1), nc, az)
        call = (f"logistic(case_data({name!r}), method='nuts', num_warmup={warmup}, num_samples={draws},"
                f" num_chains=4, rng={SEED}" + "".join(f", {k}={v!r}" for k, v in options.items()) + ")")
        print(f"# {name}: {call}")
        print(f"# diagnostics: max R-hat {d['r_hat_max'].max():.4f}, min bulk ESS {d['ess_bulk_min'].min():.0f},"
              f" min tail ESS {d['ess_tail_min'].min():.0f}, divergences {d.attrs['divergences']};"
              f" {seconds:.0f} s")
        print(f"CASES[{name!r}] = {out!r}")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:] or list(CASES))
