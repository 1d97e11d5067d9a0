"""The logistic model's terms: its effect levels, the per-group zero-sum maps, and its NumPyro form (fitted by NUTS
with ``logistic(..., method='nuts')``). The model itself is described in :mod:`evalband.bayes.logistic_model`."""

from __future__ import annotations

import numpy as np

__all__ = ["LEVELS", "CENTRED_MIN_RATIO", "ragged_zero_sum_index", "ragged_zero_sum"]

#: A level is sampled centred when the data's precision for its median effect times the effects' variance is at
#: least this (see :mod:`evalband.bayes.logistic_model`).
CENTRED_MIN_RATIO = 1.0

#: The effect levels: name of the posterior variable, prior scale of its standard deviation.
LEVELS = {"model": ("model_effect", 1.0), "task": ("task_effect", 1.0), "model_task": ("model_task_effect", 0.5),
          "cluster": ("cluster_effect", 1.0), "item": ("item_effect", 1.0)}


# --------------------------------------------------------------------------------------------- zero-sum maps
def ragged_zero_sum_index(group, n_groups):
    """Index arrays for the orthonormal map from free values to effects that sum to zero within each group.

    ``group`` (K,) gives each unit's group. A group of n units has n - 1 free values (its units in order, but the
    last); the map is PyMC's ``ZeroSumTransform`` applied group by group.
    """
    group = np.asarray(group, dtype=np.int64)
    order = np.argsort(group, kind="stable")
    sorted_g = group[order]
    is_last = np.r_[sorted_g[1:] != sorted_g[:-1], True]
    size = np.bincount(group, minlength=n_groups).astype(np.float64)
    return {"free": order[~is_last], "free_group": sorted_g[~is_last], "last": order[is_last],
            "last_group": sorted_g[is_last], "size": size, "n_units": group.shape[0], "n_groups": int(n_groups)}


def ragged_zero_sum(u, index, xp=None):
    """Effects (K,) from free values (F,) with :func:`ragged_zero_sum_index`; JAX by default, or NumPy with
    ``xp=numpy`` (used by the tests to check that the map is orthonormal)."""
    if xp is np:
        total = np.bincount(index["free_group"], weights=u, minlength=index["n_groups"])
        out = np.zeros(index["n_units"])
    else:
        import jax
        import jax.numpy as xp

        total = jax.ops.segment_sum(u, index["free_group"], num_segments=index["n_groups"])
        out = xp.zeros(index["n_units"], dtype=u.dtype)
    n = np.maximum(index["size"], 1.0)
    norm = total / (np.sqrt(n) + n)
    fill = norm - total / np.sqrt(n)
    if xp is np:
        out[index["free"]] = u - norm[index["free_group"]]
        out[index["last"]] = (fill - norm)[index["last_group"]]
        return out
    out = out.at[index["free"]].set(u - norm[index["free_group"]])
    return out.at[index["last"]].set((fill - norm)[index["last_group"]])


# --------------------------------------------------------------------------------------------- the model
def _effect(level, scale, centred, n, index=None):
    """Sample one level's effects: ZeroSumNormal over ``n`` (a tuple: the zero-sum axes), or per group of a ragged
    ``index``; centred or not. Records the effect as the deterministic (or sampled) site ``LEVELS[level][0]``."""
    import numpyro
    import numpyro.distributions as dist

    name = LEVELS[level][0]
    if index is not None:
        n_free = index["free"].shape[0]
        with numpyro.plate(f"{level}_free", n_free):
            u = numpyro.sample(f"{name}_free", dist.Normal(0.0, scale if centred else 1.0))
        eff = ragged_zero_sum(u, index) * (1.0 if centred else scale)
        return numpyro.deterministic(name, eff)
    if min(n) < 2:  # one model or one task: nothing varies at this level
        import jax.numpy as jnp
        return numpyro.deterministic(name, jnp.zeros(n))
    if centred:
        return numpyro.sample(name, dist.ZeroSumNormal(scale, event_shape=n))
    z = numpyro.sample(f"{name}_z", dist.ZeroSumNormal(1.0, event_shape=n))
    return numpyro.deterministic(name, scale * z)


def _logistic_model(model_idx, task_idx, cluster_idx, successes, trials, item_task, cluster_index, item_index,
                    n_models, n_tasks, centred):
    """Rows form (``item_index`` None): one binomial row per (model, task[, cluster]) cell. Dense form:
    ``successes`` and ``trials`` shaped (models, items) with zero trials where a model lacks an item, one effect
    per item: gathers over items, not over rows, which keeps the gradient cheap."""
    import numpyro
    import numpyro.distributions as dist

    mu = numpyro.sample("intercept", dist.Normal(0.0, 2.5))
    sigma = {}
    for level in ("model", "task", "model_task") + (("cluster",) if cluster_index is not None else ()) + (
            ("item",) if item_index is not None else ()):
        sigma[level] = numpyro.sample(f"sigma_{level}", dist.HalfNormal(LEVELS[level][1]))
    a = _effect("model", sigma["model"], centred["model"], (n_models,))
    b = _effect("task", sigma["task"], centred["task"], (n_tasks,))
    c = _effect("model_task", sigma["model_task"], centred["model_task"], (n_models, n_tasks))
    e = None
    if cluster_index is not None:
        e = _effect("cluster", sigma["cluster"], centred["cluster"], None, cluster_index)
    if item_index is None:
        eta = mu + a[model_idx] + b[task_idx] + c[model_idx, task_idx]
        if e is not None:
            eta = eta + e[cluster_idx]
        with numpyro.plate("obs", model_idx.shape[0]):
            numpyro.sample("y", dist.Binomial(trials, logits=eta), obs=successes)
        return
    d = _effect("item", sigma["item"], centred["item"], None, item_index)
    per_item = b[item_task] + d + (e[cluster_idx] if e is not None else 0.0)  # (K,); cluster_idx is per item here
    eta = mu + a[:, None] + c[:, item_task] + per_item[None, :]  # (M, K)
    numpyro.sample("y", dist.Binomial(trials, logits=eta).to_event(2), obs=successes)
