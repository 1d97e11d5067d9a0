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
