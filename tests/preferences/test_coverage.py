"""Coverage of the clustered bootstrap (slow): battles from a known Bradley-Terry model, correlated within a question.

Each question has, for each pair of models, a consensus outcome drawn from the Bradley-Terry model; each of its
battles copies the consensus with probability ``rho`` and is otherwise an independent Bradley-Terry draw. Every
battle's marginal law is exactly Bradley-Terry with the true strengths (so the maximum-likelihood estimate is
consistent for them), but battles of one question are correlated: the question-clustered 95% interval covers at
about 95%, the interval that resamples battles as if independent (FastChat's, Arena-Hard's) under-covers.
Judged with ``scipy.stats.binomtest``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from evalband.preferences import BattleTable, arena

THETA = np.array([0.4, 0.0, -0.4])  # logits, mean 0: the truth of scale='logit'
N_QUESTIONS, PER_PAIR, RHO = 60, 8, 0.7


def simulate(rng) -> BattleTable:
    pairs = [(0, 1), (0, 2), (1, 2)]
    a = np.repeat(np.tile([p[0] for p in pairs], N_QUESTIONS), PER_PAIR)
    b = np.repeat(np.tile([p[1] for p in pairs], N_QUESTIONS), PER_PAIR)
    q = np.repeat(np.arange(N_QUESTIONS), len(pairs) * PER_PAIR)
    prob = 1 / (1 + np.exp(-(THETA[a] - THETA[b])))
    consensus = np.repeat(rng.random(N_QUESTIONS * len(pairs)) < prob[::PER_PAIR], PER_PAIR)
    own = rng.random(a.size) < prob
    y = np.where(rng.random(a.size) < RHO, consensus, own).astype(float)
    names = np.array(["m0", "m1", "m2"], dtype=object)
    return BattleTable.build(names[a], names[b], y, labels={"question": np.array([f"q{i}" for i in q], dtype=object)})


@pytest.mark.slow
def test_clustered_interval_covers_and_unclustered_undercovers():
    rng = np.random.default_rng(20261201)
    n_sim = 300
    hits = {"question": 0, "none": 0}
    for s in range(n_sim):
        table = simulate(rng)
        for cluster, n_resamples in (("question", 1000), ("none", 400)):
            res = arena(table, scale="logit", cluster=cluster, n_resamples=n_resamples, rng=s)
            frame = res.to_frame().set_index("model")
            hits[cluster] += int(frame.loc["m0", "ci_low"] <= THETA[0] <= frame.loc["m0", "ci_high"])
    # measured: clustered 276 / 300 (0.92), independent battles 188 / 300 (0.63); with another seed 285 and 183
    assert binomtest(hits["question"], n_sim, 0.95).pvalue > 1e-3, hits
    assert binomtest(hits["none"], n_sim, 0.95, alternative="less").pvalue < 1e-10, hits
    assert hits["none"] / n_sim < 0.8
