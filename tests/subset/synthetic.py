"""Item-level data for the tests of evalband.subset: reference models and a new model from a 2PL model."""

import numpy as np
import pandas as pd


def synthetic(n_ref=12, n_items=600, n_tasks=3, seed=0):
    """Reference models and one new model from a 2PL model; the new model answers every item."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_ref + 1)
    b, a = rng.normal(size=n_items), rng.uniform(0.5, 2, size=n_items)
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b)))
    y = (rng.random(p.shape) < p).astype(float)
    tasks = np.repeat([f"t{k}" for k in range(n_tasks)], n_items // n_tasks)
    rows = [(f"m{m}" if m < n_ref else "new", tasks[i], f"q{i}", y[m, i]) for m in range(n_ref + 1)
            for i in range(n_items)]
    d = pd.DataFrame(rows, columns=["model", "task", "item", "score"])
    return d[d["model"] != "new"].reset_index(drop=True), d[d["model"] == "new"].reset_index(drop=True)


def on_items(new, picked):
    keys = set(zip(picked["task"], picked["item"]))
    return new[[k in keys for k in zip(new["task"], new["item"])]]
