"""Binary paired scores with few discordant items: the exact McNemar test decides the verdict of a pair.

Used by :func:`evalband.compare` for the aggregate of a single task and for the comparisons within each task.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .pairwise import adjusted, interval_label
from .verdict import MIN_DISCORDANT, reading, verdict_detail

__all__ = ["exact_when_few_discordant"]


def exact_when_few_discordant(res, a, b, options):
    """Binary paired scores with fewer than MIN_DISCORDANT discordant items, or a bootstrap that never varies (every
    discordant item favours one model): exact McNemar p-value and verdict.

    Only discordant items carry information about a difference in accuracy; with few of them the bootstrap
    distribution of the difference is coarse (all 3 discordant items favouring A give the interval (100, 100)),
    while McNemar's test is exact for any number. The verdict is 'A better'/'B better' when the (corrected)
    McNemar p-value is at most ``1 - confidence_level`` and the margin is 0; McNemar's test says nothing about a
    margin, so with a margin the pair stays 'not yet decided'. The interval shown is still the bootstrap one.
    """
    disc = np.sum(np.asarray(a) != np.asarray(b), axis=-1)
    flat = ~(np.isfinite(res.ci.low) & np.isfinite(res.ci.high)) & np.isfinite(res.difference) & (
        np.asarray(res.verdict_basis) == "degenerate interval")  # every item discordant the same way, say
    use = (disc < MIN_DISCORDANT) | flat
    if not use.any():
        return res
    p = res.p_value.copy()
    p[use] = res.p_mcnemar[use]
    correction = options["correction"]
    if correction in ("bonferroni", "holm", "bh"):
        p_adj = adjusted(p, correction, options.get("family"))
    elif correction == "max-t":  # Bonferroni for the exact p-values (max-t needs replicates)
        p_adj = res.p_adjusted.copy()
        p_adj[use] = np.minimum(1.0, p[use] * p.size)
    else:
        p_adj = p.copy()
    alpha = 1 - options["confidence_level"]
    verdicts = res.verdict.copy()
    basis = list(res.verdict_basis)
    readings = list(res.readings)
    details = list(res.verdict_detail) if res.verdict_detail is not None else None
    label = interval_label(correction)
    for k in np.flatnonzero(use):
        decided = p_adj[k] <= alpha and options["margin"] == 0 and res.difference[k] != 0
        verdicts[k] = ("A better" if res.difference[k] > 0 else "B better") if decided else "not yet decided"
        basis[k] = "exact McNemar"
        reason = (f"with fewer than {MIN_DISCORDANT} the bootstrap is unreliable" if disc[k] < MIN_DISCORDANT
                  else "every discordant item favours one model (the bootstrap never varies)")
        why = (f"(exact McNemar p = {p[k]:.2g} on {int(disc[k])} discordant item{'s' if disc[k] != 1 else ''}:"
               f" {reason}, so the verdict follows the exact test"
               f"{'; it does not test a margin' if options['margin'] > 0 else ''})")
        readings[k] = reading(res.model_a[k], res.model_b[k], res.difference[k], res.ci.low[k], res.ci.high[k],
                              verdicts[k], se=res.se[k], confidence_level=res.interval_level, scale=res.scale,
                              unit="points", label=label, extra=why)
        if details is not None:  # the exact test decides at a zero margin only: the verdict's words, no more
            details[k] = verdict_detail(verdicts[k], res.ci.low[k], res.ci.high[k], model_a=res.model_a[k],
                                        model_b=res.model_b[k])
    return replace(res, p_value=p, p_adjusted=p_adj, verdict=verdicts, verdict_basis=tuple(basis),
                   readings=tuple(readings), verdict_detail=None if details is None else tuple(details))
