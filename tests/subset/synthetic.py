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


def vtab_style(items_per_task=100, seed=0):
    """VTAB-style item data: the 16 models' published VTAB-1k accuracies on the 19 tasks (the bundled ``vtab``
    example), each task given ``items_per_task`` items from a 2PL model (difficulty ~ N(0, 1.5^2), discrimination
    ~ U(0.5, 2.5)) and each model a per-task ability solved so that its expected accuracy on the task's items is
    the published one; the 0/1 results drawn from it. The items are shared by the models (the correlation that
    makes a prediction from reference models useful); the tasks differ as VTAB's do."""
    from scipy.optimize import brentq

    import evalband as eb

    d = eb.load_example("vtab").data
    acc = d.assign(accuracy=d["correct"] / d["n"]).pivot_table(index="model", columns="task", values="accuracy")
    rng = np.random.default_rng(seed)
    rows = []
    for task in acc.columns:
        b = rng.normal(0, 1.5, size=items_per_task)
        a = rng.uniform(0.5, 2.5, size=items_per_task)
        u = rng.random((len(acc.index), items_per_task))
        for m, model in enumerate(acc.index):
            target = float(np.clip(acc.loc[model, task], 0.005, 0.995))
            theta = brentq(lambda t: np.mean(1 / (1 + np.exp(-a * (t - b)))) - target, -30, 30)
            y = (u[m] < 1 / (1 + np.exp(-a * (theta - b)))).astype(float)
            rows += [(model, task, f"{task}-{i}", y[i]) for i in range(items_per_task)]
    return pd.DataFrame(rows, columns=["model", "task", "item", "score"])
