"""The benchmark workloads shared by ``bootstrap.py`` and ``cli.py``: binary item scores of correlated models.

W1 is 10 models x 19 tasks x 1,000 items, made by :func:`make_data` with the seed 20261130 (``bootstrap.py``'s
default); ``cli.py`` writes it as the long CSV a user would have (``model,task,item,score``).
"""

from __future__ import annotations

import numpy as np

WORKLOADS = {"w1": dict(models=10, tasks=19, items=1000, B=10_000),
             "w2": dict(models=20, tasks=50, items=10_000, B=2_000)}
SEED = 20261130


def make_data(models, tasks, items, seed):
    """Binary scores with shared item difficulty (so models are correlated, as real ones are): one (models,
    items) array per task."""
    from scipy.special import ndtr

    rng = np.random.default_rng(seed)
    ability = rng.normal(0.5, 0.6, size=(models, tasks))
    out = []
    for t in range(tasks):
        difficulty = rng.normal(0.0, 1.0, size=items)
        p = ndtr(ability[:, t:t + 1] - difficulty[None, :])  # scipy.stats.norm.cdf, the same numbers
        out.append((rng.random((models, items)) < p).astype(np.float64))
    return out


def write_long_csv(scores, path) -> None:
    """``model,task,item,score`` rows (models m0.., tasks t0.., items i0..), task by task, model by model."""
    with open(path, "w") as fh:
        fh.write("model,task,item,score\n")
        for k, s in enumerate(scores):
            items = [f"i{i}" for i in range(s.shape[1])]
            for m in range(s.shape[0]):
                fh.write("".join(f"m{m},t{k},{item},{int(v)}\n" for item, v in zip(items, s[m])))


def scipy_job(scores, B, seed, batch):
    """scipy.stats.bootstrap with each task as one (models x items) sample, axis=-1, a vectorized statistic
    returning [per-model means, pairwise differences, ranks], method='percentile' (memory-bounded batches)."""
    from scipy import stats

    m = scores[0].shape[0]
    i, j = np.triu_indices(m, 1)

    def statistic(*samples, axis=-1):
        means = np.mean([s.mean(axis=axis) for s in samples], axis=0)  # (M, batch)
        ranks = stats.rankdata(-means, axis=0)
        return np.concatenate([means, means[i] - means[j], ranks], axis=0)

    res = stats.bootstrap(tuple(scores), statistic, n_resamples=B, method="percentile", axis=-1,
                          vectorized=True, batch=batch, rng=seed)
    ranks = res.bootstrap_distribution[-m:]
    rank_dist = np.stack([(np.rint(ranks) == r).mean(axis=1) for r in range(1, m + 1)], axis=1)
    return res, rank_dist


def naive_loop(scores, n_rep, seed):
    """Seed 000's loop: per model, replicate and task, Generator.choice of the task's items, then the mean over
    tasks (models resampled independently): (models, n_rep) replicates of the mean over tasks."""
    gen = np.random.default_rng(seed)
    m = scores[0].shape[0]
    out = np.empty((m, n_rep))
    for model in range(m):
        for r in range(n_rep):
            task_scores = []
            for s in scores:
                sample = gen.choice(s[model], size=s.shape[1], replace=True)
                task_scores.append(np.mean(sample))
            out[model, r] = np.mean(task_scores)
    return out
