"""The pairwise comparisons within one task, from the task's slice of the replicate set (``compare(per_task=...)``).

Beside the bootstrap: the analytic paired SE, the exact McNemar p-value of binary items and, on request, the paired
permutation test; binary pairs with few discordant items take the exact test's verdict
(:func:`~evalband.comparison.few_discordant.exact_when_few_discordant`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .exact import mcnemar_exact
from .few_discordant import exact_when_few_discordant
from .pairs import pair_position
from .pairwise import pairwise_differences
from .permutation import paired_permutation_test

__all__ = ["task_comparison"]


def task_comparison(t, task, table, reps, main_reps, paired, summary, rho, per_task_var, permutation,
                    n_permutations, gen, options, strata=None, jk_all=None, binomial=False):
    m = len(reps.models)
    obs = np.asarray(reps.observed[:, t], dtype=np.float64)
    samples = main_reps[:, :, t]
    jk = None if jk_all is None else jk_all[:, :, t]
    info = None if per_task_var is None else per_task_var[t]

    if info is not None:
        def se_fn(ia, ib):
            pos, _ = pair_position(ia, ib, m)
            return np.sqrt(info["vd"][pos])

        def corr_fn(ia, ib):
            pos, _ = pair_position(ia, ib, m)
            return info["corr"][pos]
    elif summary and binomial:
        var = obs * (1 - obs) / float(np.asarray(reps.n_units)[t])

        def se_fn(ia, ib):
            return np.sqrt(np.maximum(var[ia] + var[ib] - 2 * rho * np.sqrt(var[ia] * var[ib]), 0.0))

        def corr_fn(ia, ib):
            return np.full(ia.shape, rho, dtype=float)
    else:
        se_fn = corr_fn = None
    res = pairwise_differences(obs, samples, reps.models, statistic=str(task), scope="task", jackknife=jk,
                               jackknife_strata=strata, n_units=float(np.asarray(reps.n_units)[t]),
                               se_analytic=se_fn, correlation=corr_fn, keep_replicates=False,
                               assumed_correlation=rho if summary else None, **options)
    if info is not None and table is not None:
        scores = info["scores"]
        a, b = scores[res.index_a], scores[res.index_b]
        extra = {}
        if table.binary_items:
            extra["p_mcnemar"] = mcnemar_exact(a, b, alternative=options["alternative"]).p_value.astype(float)
        if permutation:
            perm = paired_permutation_test(a, b, n_resamples=n_permutations, alternative=options["alternative"],
                                           rng=gen)
            extra["p_permutation"] = np.asarray(perm.p_value, dtype=float)
        if extra:
            res = replace(res, **extra)
        if "p_mcnemar" in extra and reps.unit == "item":
            res = exact_when_few_discordant(res, a, b, options)
    return res
