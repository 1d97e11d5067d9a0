"""The report's sample-size advice comes from the D-study when the data have random facets (issue 22: the findings
said "about 18 times as many test items would be needed" while the D-study put the variance in the prompts).

Oracle: :func:`evalband.facets.plan_design` on the same variance components (the pair's), and theory: a facet's
own variance does not shrink with items, so when it alone exceeds the target no number of items reaches it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special

from evalband.facets import facet_summary, plan_design
from evalband.report.build import build_report


def _facet_data(sd_prompt, items=200, prompts=3, seed=5, shift=0.05):
    gen = np.random.default_rng(seed)
    a = gen.normal(0, 1, items)
    rows = []
    for m, s in (("m0", 0.0), ("m1", shift)):
        b = gen.normal(0, sd_prompt, prompts)
        y = (gen.uniform(size=(items, prompts)) < special.expit(a[:, None] + b[None, :] + s)).astype(int)
        rows += [(m, "t", i, f"p{p}", int(y[i, p])) for i in range(items) for p in range(prompts)]
    return pd.DataFrame(rows, columns=["model", "task", "item", "prompt", "score"])


def _lead(rep):
    return next(f for f in rep.findings if "has the highest" in f)


def _check(data):
    rep = build_report(data, n_resamples=300, rng=1, bayes=False, timestamp="T")
    lead = _lead(rep)
    assert "not yet decided" in lead and "times as many test items" not in lead
    # the oracle: the D-study of the pair's components, for the observed gap
    vc = facet_summary(data, n_resamples=300, rng=1).components
    means = data.groupby("model")["score"].mean()
    plan = plan_design(vc, effect=float(abs(means["m1"] - means["m0"])), model=("m0", "m1"))
    same = plan.designs[plan.designs["prompt"] == 3]
    if same.empty:  # the prompts' own variance exceeds the target: no number of items reaches it
        fewest = int(plan.designs["prompt"].min())
        assert "By the D-study of the variance components, more items alone would not do it" in lead
        assert f"it takes {fewest} prompts" in lead
    else:
        n = int(same.iloc[0]["item"])
        assert f"({n:,} with the same 3 prompts)" in lead or f"({n:,} items with the same 3 prompts would)" in lead
    return same.empty


def test_prompts_dominate_no_items_advice():
    assert _check(_facet_data(0.5, seed=1, shift=0.0))


def test_items_dominate_the_advice_counts_items_at_the_same_prompts():
    assert not _check(_facet_data(0.0, items=60, shift=0.2, seed=7))
