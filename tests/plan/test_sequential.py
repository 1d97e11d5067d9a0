"""Anytime-valid betting confidence sequences: the authors' reference code as oracle, batch invariance,
decisions, and a peeking simulation (type-I error held, a repeated t test not)."""

import numpy as np
import pytest
from scipy import stats

from evalband.plan import SequentialComparison, betting_confidence_sequence

# confseq 0.0.11 (Waudby-Smith & Ramdas' reference code), numpy 2 (np.float_ -> np.float64):
#   x = (np.arange(60) * 7 % 11) / 10.0
#   l, u = confseq.betting.hedged_cs(x, alpha=0.05, breaks=1000, running_intersection=True)
#   [l[i] for i in (0, 4, 9, 19, 39, 59)], [u[i] for i in (0, 4, 9, 19, 39, 59)]
X1 = (np.arange(60) * 7 % 11) / 10.0
IDX1 = [0, 4, 9, 19, 39, 59]
LOW1 = [0.0, 0.066, 0.215, 0.295, 0.357, 0.38]
HIGH1 = [1.0, 0.901, 0.795, 0.6950000000000001, 0.641, 0.614]
#   x = ((np.arange(300) * 13) % 17) / 16.0
#   l, u = confseq.betting.hedged_cs(x, alpha=0.1, breaks=500, running_intersection=True)
X2 = ((np.arange(300) * 13) % 17) / 16.0
IDX2 = [9, 99, 299]
LOW2 = [0.21, 0.41400000000000003, 0.444]
HIGH2 = [0.708, 0.5760000000000001, 0.548]


def test_matches_confseq_hedged_cs():
    cs = betting_confidence_sequence(X1, confidence_level=0.95, grid_size=1000)
    np.testing.assert_allclose(cs.low[IDX1], LOW1, atol=1e-12)
    np.testing.assert_allclose(cs.high[IDX1], HIGH1, atol=1e-12)
    cs = betting_confidence_sequence(X2, confidence_level=0.90, grid_size=500)
    np.testing.assert_allclose(cs.low[IDX2], LOW2, atol=1e-12)
    np.testing.assert_allclose(cs.high[IDX2], HIGH2, atol=1e-12)


def test_paired_sequence_is_the_rescaled_one_sample_sequence(rng):
    a = rng.random(200)
    b = rng.random(200)
    paired = betting_confidence_sequence(a, b)
    one = betting_confidence_sequence((a - b + 1) / 2)
    np.testing.assert_allclose(paired.low, 2 * one.low - 1)
    np.testing.assert_allclose(paired.high, 2 * one.high - 1)


def test_batches_give_the_same_answer_as_one_update(rng):
    a = (rng.random(1500) < 0.7).astype(float)
    b = (rng.random(1500) < 0.65).astype(float)
    whole = SequentialComparison().update(a, b)
    seq = SequentialComparison()
    for start, stop in [(0, 1), (1, 17), (17, 500), (500, 1499), (1499, 1500)]:
        state = seq.update(a[start:stop], b[start:stop])
    assert state.n == whole.n == 1500
    assert state.ci.low == pytest.approx(whole.ci.low, abs=1e-12)
    assert state.ci.high == pytest.approx(whole.ci.high, abs=1e-12)
    path = betting_confidence_sequence(a, b)
    assert path.low[-1] == pytest.approx(whole.ci.low, abs=1e-12)
    assert state.estimate == pytest.approx(np.mean(a - b))


def test_decisions(rng):
    a = (rng.random(2000) < 0.8).astype(float)
    b = (rng.random(2000) < 0.5).astype(float)
    seq = SequentialComparison(names=("new", "old"))
    states = [seq.update(a[i:i + 50], b[i:i + 50]) for i in range(0, 2000, 50)]
    first = next(s for s in states if s.stop)
    assert first.decision == "a_better" and first.ci.low > 0 and first.n < 2000
    assert "new is better than old" in first.message
    assert SequentialComparison().update(b, a).decision == "b_better"
    same = (rng.random(4000) < 0.6).astype(float)
    eq = SequentialComparison(margin=0.1).update(same, same)
    assert eq.decision == "equivalent" and -0.1 < eq.ci.low <= 0 <= eq.ci.high < 0.1
    assert SequentialComparison().update(same[:10], same[:10]).decision == "continue"


def test_input_checks():
    with pytest.raises(ValueError, match="`a`"):
        SequentialComparison().update([0.5, 1.5], [0, 0])
    with pytest.raises(ValueError, match="paired"):
        SequentialComparison().update([0.5, 0.5], [0])
    with pytest.raises(ValueError, match="`margin`"):
        SequentialComparison(margin=-0.1)
    with pytest.raises(ValueError, match="no items"):
        SequentialComparison().update([], [])


@pytest.mark.slow
def test_peeking_keeps_the_error_rate_while_a_repeated_t_test_does_not(rng):
    # Two models of equal accuracy (0.6, per-item correlation 0.3), 400 paired items per run, looked at after
    # every batch of 10 (40 looks); a "decision" is any look at which the comparison stops (or p < alpha).
    reps, n, batch, alpha = 300, 400, 10, 0.05
    p, rho = 0.6, 0.3
    both = p * p + rho * p * (1 - p)
    cells = rng.choice(4, size=(reps, n), p=[both, p - both, p - both, 1 - 2 * p + both])
    a = np.isin(cells, (0, 1)).astype(float)
    b = np.isin(cells, (0, 2)).astype(float)

    cs_errors = 0
    for r in range(reps):  # one stream per replicate; each update is vectorised over its batch
        seq = SequentialComparison(confidence_level=1 - alpha, grid_size=200)  # coarse grid: still valid
        cs_errors += any(seq.update(a[r, i:i + batch], b[r, i:i + batch]).stop for i in range(0, n, batch))

    d = a - b
    looks = np.arange(batch, n + 1, batch)
    s1 = np.cumsum(d, axis=1)[:, looks - 1]
    s2 = np.cumsum(d * d, axis=1)[:, looks - 1]
    mean = s1 / looks
    var = (s2 - looks * mean ** 2) / (looks - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(var > 0, mean / np.sqrt(var / looks), 0.0)
    naive_errors = int(np.sum(np.any(np.abs(t) > stats.t.isf(alpha / 2, looks - 1), axis=1)))

    print(f"type-I error under peeking: betting CS {cs_errors / reps:.3f}, repeated t test {naive_errors / reps:.3f}")
    assert cs_errors / reps <= alpha
    assert stats.binomtest(cs_errors, reps, alpha, alternative="greater").pvalue > 0.05
    assert naive_errors / reps > 2 * alpha
    assert stats.binomtest(naive_errors, reps, alpha, alternative="greater").pvalue < 1e-4


# sampling without replacement from a population of N = 150 (confseq 0.0.11, built against pybind11 >= 2.11):
#   x = ((np.arange(90) * 7) % 10 < 6).astype(float)
#   l, u = confseq.betting.hedged_cs(x, alpha=0.05, N=150, breaks=1000, running_intersection=True)
#   [l[i] for i in (0, 9, 29, 59, 89)], [u[i] for i in (0, 9, 29, 59, 89)]
X3 = ((np.arange(90) * 7) % 10 < 6).astype(float)
IDX3 = [0, 9, 29, 59, 89]
LOW3 = [0.006666666666666667, 0.213, 0.369, 0.445, 0.484]
HIGH3 = [1.0, 0.9450000000000001, 0.8270000000000001, 0.76, 0.724]


def test_without_replacement_matches_confseq_hedged_cs_with_N():
    cs = betting_confidence_sequence(X3, confidence_level=0.95, grid_size=1000, population_size=150)
    np.testing.assert_allclose(cs.low[IDX3], LOW3, atol=1e-12)
    np.testing.assert_allclose(cs.high[IDX3], HIGH3, atol=1e-12)


def _wor_hedged_loop(x, N, alpha, breaks):
    """Sampling without replacement, written out as confseq 0.0.11 writes it (betting_mart with N, theta = 1/2,
    trunc_scale = 1/2, predictable-mixture bets, max of the two capital processes, the logical CS, running
    intersection): one candidate mean at a time, one item at a time (an independent transcription, not the
    vectorised code under test)."""
    grid = np.arange(0, 1 + 1 / breaks, 1 / breaks)[: breaks + 1]
    T = len(x)
    inside = np.zeros((len(grid), T), dtype=bool)
    # the bets: lambda_predmix_eb(x, alpha * theta), prior mean 1/2, prior variance 1/4, one fake observation
    mu_hat, sig2 = np.empty(T), np.empty(T)
    for t in range(T):
        mu_hat[t] = (0.5 + x[: t + 1].sum()) / (t + 2)
        sig2[t] = (0.25 + np.sum((x[: t + 1] - mu_hat[: t + 1]) ** 2)) / (t + 2)
    sig2_prev = np.concatenate(([0.25], sig2[:-1]))
    tt = np.arange(1, T + 1)
    lam = np.sqrt(2 * np.log(1 / (alpha / 2)) / (sig2_prev * tt * np.log(1 + tt)))
    for g, m in enumerate(grid):
        kp = kn = 1.0
        s = 0.0
        for t in range(T):
            mu_t = (N * m - s) / (N - t)
            if mu_t < 0 or mu_t > 1:
                inside[g, t:] = False
                break
            lp = min(lam[t], 0.5 / mu_t) if mu_t > 0 else lam[t]
            ln = min(lam[t], 0.5 / (1 - mu_t)) if mu_t < 1 else lam[t]
            kp *= 1 + lp * (x[t] - mu_t)
            kn *= 1 - ln * (x[t] - mu_t)
            inside[g, t] = max(0.5 * kp, 0.5 * kn) <= 1 / alpha
            s += x[t]
    low, high = np.zeros(T), np.ones(T)
    for t in range(T):
        idx = np.flatnonzero(inside[:, t])
        if idx.size:
            low[t], high[t] = max(0.0, grid[idx[0]] - 1 / breaks), min(1.0, grid[idx[-1]] + 1 / breaks)
        S = x[: t + 1].sum()
        low[t], high[t] = max(low[t], S / N), min(high[t], 1 - (t + 1 - S) / N)
    return np.maximum.accumulate(low), np.minimum.accumulate(high)


def test_without_replacement_matches_the_written_out_procedure():
    rng = np.random.default_rng(5)
    population = np.concatenate([np.ones(70), np.zeros(40), np.full(10, 0.5)])
    x = population[rng.permutation(120)][:100]
    cs = betting_confidence_sequence(x, confidence_level=0.95, grid_size=200, population_size=120)
    low, high = _wor_hedged_loop(x, 120, 0.05, 200)
    np.testing.assert_allclose(cs.low, low, atol=1e-12)
    np.testing.assert_allclose(cs.high, high, atol=1e-12)


def test_without_replacement_ends_at_the_population_mean_and_is_narrower_late(rng):
    population = (rng.random(500) < 0.62).astype(float)
    x = population[rng.permutation(500)]
    wor = betting_confidence_sequence(x, population_size=500)
    wr = betting_confidence_sequence(x)
    assert wor.low[-1] == pytest.approx(population.mean()) and wor.high[-1] == pytest.approx(population.mean())
    assert (wor.high - wor.low)[399] < 0.8 * (wr.high - wr.low)[399]
    assert np.all(wor.high - wor.low <= wr.high - wr.low + 2e-3)
    # the paired form is the rescaled one-sample form on (a - b + 1) / 2
    b = population[::-1].copy()
    pw = betting_confidence_sequence(x, b[:500], population_size=500)
    one = betting_confidence_sequence((x - b + 1) / 2, population_size=500)
    np.testing.assert_allclose(pw.low, 2 * one.low - 1)
    with pytest.raises(ValueError, match="`population_size` 10 is smaller than the 500 items"):
        betting_confidence_sequence(x, population_size=10)


@pytest.mark.slow
def test_without_replacement_covers_the_population_mean_at_every_time():
    """1,000 random orders of a fixed population of 300 items (0, 1 and 0.5 scores): the sequence covers the
    population's mean at every one of the 300 times in >= 95% of the orders (binomial test)."""
    rng = np.random.default_rng(11)
    population = np.concatenate([np.ones(150), np.zeros(120), np.full(30, 0.5)])
    mu = population.mean()
    miss = 0
    for _ in range(1000):
        cs = betting_confidence_sequence(population[rng.permutation(300)], grid_size=300, population_size=300)
        miss += bool(np.any((cs.low > mu + 1e-12) | (cs.high < mu - 1e-12)))
    assert stats.binomtest(miss, 1000, 0.05, alternative="greater").pvalue > 0.01, miss / 1000
