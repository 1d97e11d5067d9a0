"""Coverage of the design-based and prediction-assisted intervals, judged with a binomial test (slow).

Populations drawn from a 2PL model; reference models from the same model (good predictions) or unrelated to the
new model (poor predictions: the interval must still keep its level). Simple random and stratified samples. The
estimators are called through the functions :func:`evalband.subset.estimate` uses (the design functions and the
cross-fitted predictions), many times over one population, the new model's full mean being the truth.
"""

import numpy as np
import pytest
from scipy.stats import binomtest

from evalband._distributions import t_ppf
from evalband.subset.choose import _stratum_sd
from evalband.subset.design import difficulty_strata, draw, neyman_allocation, regression_mean, stratified_mean
from evalband.subset.predict import cross_fitted

pytestmark = pytest.mark.slow


def population(seed, useless):
    rng = np.random.default_rng(seed)
    M, N = 20, 2000
    theta = rng.normal(size=M + 1)
    b, a = rng.normal(size=N), rng.uniform(0.5, 2.5, size=N)
    y = (rng.random((M + 1, N)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(float)
    ref, new = y[:M], y[M]
    if useless:
        ref = (rng.random(ref.shape) < 0.5).astype(float)
    return ref, new, np.repeat(np.arange(4), N // 4)


@pytest.mark.parametrize("design", ["random", "stratified"])
@pytest.mark.parametrize("useless", [False, True])
def test_intervals_keep_their_level(design, useless):
    ref, new, tasks = population(11, useless)
    N, n, reps = len(new), 100, 600
    truth = new.mean()
    if design == "random":
        strata, n_h = np.zeros(N, dtype=np.int64), np.array([n])
    else:
        strata = difficulty_strata(tasks, ref.mean(axis=0), 3)
        H = strata.max() + 1
        n_h = neyman_allocation(np.bincount(strata), _stratum_sd(ref, strata, H), n)
    N_h = np.bincount(strata).astype(float)
    rng = np.random.default_rng(2)
    hits = {"design": 0, "pa": 0}
    widths = {"design": [], "pa": []}
    for _ in range(reps):
        pos = np.sort(draw(strata, n_h, rng))
        y, h = new[pos], strata[pos]
        fs, fm, _ = cross_fitted(ref, pos, y, bounded=True, rng=rng)
        for key, (est, var, df) in (("design", stratified_mean(y, h, N_h)),
                                    ("pa", regression_mean(y, fs, h, N_h, fm)[:3])):
            half = float(t_ppf(0.975, df)) * np.sqrt(var)
            hits[key] += abs(est - truth) <= half
            widths[key].append(2 * half)
    for key in hits:  # coverage not below 0.95 (one-sided binomial test at 1%)
        assert binomtest(int(hits[key]), reps, 0.95, alternative="less").pvalue > 0.01, (key, hits[key] / reps)
    ratio = np.mean(widths["pa"]) / np.mean(widths["design"])
    if useless or design == "stratified":  # strata on reference difficulty already hold most of what it predicts
        assert ratio < 1.05
    else:
        assert ratio < 0.95
