"""Constructed item-level results with costs and latencies for the tests of evalband.costs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


def make_results(specs, *, n_items=200, tasks=("t",), seed=0, cost_sd=0.3, item_sd=0.8, clusters=None,
                 latency=True):
    """Long results: ``specs`` maps model -> (accuracy, cost scale); costs share an item effect (lognormal), so
    models' costs are correlated by item as real ones are; latencies are lognormal around the cost scale."""
    gen = np.random.default_rng(seed)
    rows = []
    for task in tasks:
        item_cost = gen.lognormal(0.0, item_sd, size=n_items)
        difficulty = gen.normal(0.0, 1.0, size=n_items)
        for model, (acc, scale) in specs.items():
            logit = np.log(acc / (1 - acc)) - difficulty * 0.8
            score = (gen.random(n_items) < 1 / (1 + np.exp(-logit))).astype(float)
            cost = scale * item_cost * gen.lognormal(0.0, cost_sd, size=n_items)
            for i in range(n_items):
                row = dict(model=model, task=task, item=f"{task}-{i}", score=score[i], cost=cost[i])
                if latency:
                    row["latency"] = float(gen.lognormal(np.log(1 + scale), 0.4))
                if clusters:
                    row["cluster"] = f"{task}-c{i % clusters}"
                rows.append(row)
    return pd.DataFrame(rows)


@pytest.fixture
def results():
    return make_results({"A": (0.80, 1.0), "B": (0.70, 0.4), "C": (0.55, 2.0)}, n_items=150, tasks=("t1", "t2"))


@pytest.fixture
def make():
    """The builder itself, for tests that need other models, sizes or seeds."""
    return make_results
