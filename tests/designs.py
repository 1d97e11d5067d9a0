"""Simulated designs shared by the facet and resampling tests: items x prompts (x trials), normal or binary.

``crossed_normal`` and ``crossed_binary`` are plain functions; ``normal_design`` and ``binary_design`` are the
fixtures that hand them to a test (a ``conftest.py`` imports them to offer them to its folder)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


def crossed_normal(seed, n_items=12, n_prompts=4, n_trials=3, drop=0.0):
    """Normal scores: item sd 1, prompt sd 0.7, item x prompt sd 0.5, trial sd 0.6; ``drop`` removes cells and
    draws 1..n_trials trials per cell (unbalanced). The same generator produced the statsmodels references."""
    rng = np.random.default_rng(seed)
    a = rng.normal(0, 1, n_items)
    b = rng.normal(0, 0.7, n_prompts)
    ab = rng.normal(0, 0.5, (n_items, n_prompts))
    rows = []
    for i in range(n_items):
        for p in range(n_prompts):
            if drop and rng.random() < drop:
                continue
            nt = n_trials if not drop else rng.integers(1, n_trials + 1)
            for t in range(nt):
                rows.append((f"i{i:02d}", f"p{p}", t, a[i] + b[p] + ab[i, p] + rng.normal(0, 0.6)))
    return pd.DataFrame(rows, columns=["item", "prompt", "trial", "score"])


def crossed_binary(rng, n_items, n_prompts, *, sd_item=1.0, sd_prompt=1.0, n_trials=1, base=0.3, models=("m",),
                   task="t", prompt_prefix=""):
    """0/1 scores from a logit-normal crossed population: logit p = base + item + prompt (+ model shift)."""
    a = rng.normal(0, sd_item, n_items)
    b = rng.normal(0, sd_prompt, n_prompts)
    frames = []
    for k, m in enumerate(models):
        eta = base + 0.2 * k + a[:, None, None] + b[None, :, None]
        y = (rng.random((n_items, n_prompts, n_trials)) < 1 / (1 + np.exp(-eta))).astype(float)
        frames.append(pd.DataFrame({
            "model": m, "task": task, "item": np.repeat(np.arange(n_items), n_prompts * n_trials),
            "prompt": [f"{prompt_prefix}{p}" for p in np.tile(np.repeat(np.arange(n_prompts), n_trials), n_items)],
            "trial": np.tile(np.arange(n_trials), n_items * n_prompts), "score": y.ravel()}))
    return pd.concat(frames, ignore_index=True)


@pytest.fixture
def normal_design():
    return crossed_normal


@pytest.fixture
def binary_design():
    return crossed_binary
