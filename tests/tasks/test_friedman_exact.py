"""The exact (permutation) p-value of the Friedman test with few tasks (QA finding O18).

Oracles: a hand count (3 models x 3 tasks ranked identically: 6 of the 3!^3 = 216 equally likely arrangements reach
the maximum, p = 6/216); SciPy's exact permutation test (``permutation_test(..., permutation_type='samples',
n_resamples=np.inf)`` enumerates every within-task permutation, an independent implementation); and published
tables of exact critical values of the Friedman statistic.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from evalband.tasks import friedman, run_test
from evalband.tasks._matrix import rank_matrix
from evalband.tasks.friedman_exact import _enumerate, _null_distribution, friedman_permutation_p_value

IDENTICAL_3x3 = np.array([[0.9, 0.8, 0.7], [0.6, 0.5, 0.4], [0.3, 0.2, 0.1]])  # models x tasks, same order


def test_qa_o18_identical_rankings_3_models_3_tasks():
    f = friedman(IDENTICAL_3x3)
    # hand count: 3!^3 = 216 equally likely arrangements, only the 3! that order all tasks alike reach the maximum
    assert f.p_value_exact == pytest.approx(6 / 216, rel=1e-12)
    assert f.statistic == pytest.approx(6.0)
    assert f.p_value == pytest.approx(math.exp(-3.0), rel=1e-12)  # chi2(2) survival at 6: 0.0498
    assert np.isinf(f.iman_davenport) and np.isnan(f.iman_davenport_p_value)
    text = f.summary()
    assert "F(2, 4) infinite (identical rankings)" in text and "inf" not in text.replace("infinite", "")
    assert "p = 0 " not in text and "p = 0.0278" in text
    assert "fewer than 10" in text and any("only 3 tasks" in n for n in f.notes)
    # the enumeration path gives the same answer as the closed form k!/(k!)^N
    r0 = np.tile(np.arange(3)[:, None], (1, 3))
    p, n_arr = _enumerate(r0, int((r0.sum(axis=1) ** 2).sum()))
    assert p == pytest.approx(6 / 216, rel=1e-12) and n_arr == 216


def _scipy_exact(ranks):
    def stat(*samples, axis=-1):
        s = np.stack(samples, axis=0)
        return (s.sum(axis=-1) ** 2).sum(axis=0)

    # scipy 1.17: permutation_test with permutation_type='samples' permutes the k observations of each task
    # among the models; n_resamples=np.inf enumerates all (k!)^N arrangements
    return stats.permutation_test(tuple(ranks), stat, permutation_type="samples", n_resamples=np.inf,
                                  alternative="greater", vectorized=True).pvalue


@pytest.mark.parametrize("k, n, digits", [(3, 4, 0), (4, 3, 0), (3, 6, 1), (2, 7, 0), (4, 4, 1), (5, 2, 0)])
def test_enumeration_matches_scipy_exact_permutation_test(k, n, digits):
    rng = np.random.default_rng(100 * k + n)
    x = np.round(rng.normal(size=(k, n)), digits)  # rounding to 0 digits makes ties: midranks
    ranks = rank_matrix(x)
    got = friedman_permutation_p_value(ranks, method="exact")
    assert got.method == "enumeration" and got.se == 0
    assert got.p_value == pytest.approx(_scipy_exact(ranks), rel=1e-10)


# Exact critical values of Friedman's chi_r^2 (smallest attainable value with P(chi_r^2 >= c) <= alpha), from the
# table "Critical values for the Friedman test" (k = 3..6, n = 2..20; reproduced in Zar, Biostatistical Analysis,
# table B.14, and e.g. https://fr.scribd.com/document/464088360/Tabla-de-Friedman-pdf); None: no such value.
PUBLISHED = {  # (k, n): (5% critical value, 1% critical value)
    (3, 3): (6.000, None), (3, 4): (6.500, 8.000), (3, 5): (6.400, 8.400), (3, 6): (7.000, 9.000),
    (3, 7): (7.143, 8.857), (3, 8): (6.250, 9.000), (3, 9): (6.222, 9.556), (3, 10): (6.200, 9.600),
    (4, 2): (6.000, None), (4, 3): (7.400, 9.000), (4, 4): (7.800, 9.600), (4, 5): (7.800, 9.960),
    (4, 6): (7.600, 10.200), (5, 2): (7.600, 8.000), (5, 3): (8.533, 10.130),
}


def _critical_value(k, n, alpha):
    r0 = np.tile(np.arange(k)[:, None], (1, n))
    stat, prob, _ = _null_distribution(r0)
    values = np.unique(stat)  # attainable values of S0 = sum_j (R_j - n)^2 = sum_j R_j^2 - n^2 k^2
    tail = np.array([prob[stat >= v].sum() for v in values])
    assert tail[0] == pytest.approx(1.0, abs=1e-12)
    ok = values[tail <= alpha]
    if not len(ok):
        return None
    return 12.0 / (n * k * (k + 1)) * (ok.min() + n * n * k * k) - 3.0 * n * (k + 1)  # chi_r^2


@pytest.mark.parametrize("k, n", sorted(PUBLISHED))
def test_critical_values_match_the_published_exact_table(k, n):
    for alpha, published in zip((0.05, 0.01), PUBLISHED[(k, n)]):
        got = _critical_value(k, n, alpha)
        if published is None:
            assert got is None
        else:
            assert got == pytest.approx(published, abs=5e-3)


def test_monte_carlo_agrees_with_enumeration_within_its_error():
    x = np.array([[0.9, 0.7, 0.8, 0.6, 0.55], [0.8, 0.75, 0.6, 0.65, 0.5], [0.7, 0.6, 0.7, 0.5, 0.6],
                  [0.6, 0.65, 0.5, 0.55, 0.45]])
    ranks = rank_matrix(x)
    exact = friedman_permutation_p_value(ranks, method="exact").p_value
    mc = friedman_permutation_p_value(ranks, method="monte-carlo", n_resamples=20_000, rng=3)
    assert mc.method == "monte-carlo" and mc.n_arrangements == 20_000
    assert mc.se == pytest.approx(math.sqrt(mc.p_value * (1 - mc.p_value) / 20_000))
    assert abs(mc.p_value - exact) < 4 * mc.se
    again = friedman_permutation_p_value(ranks, method="monte-carlo", n_resamples=20_000, rng=3)
    assert again.p_value == mc.p_value  # seeded


def test_auto_chooses_and_reports():
    rng = np.random.default_rng(7)
    few = rng.normal(size=(4, 6))
    assert friedman(few).exact_method == "enumeration"
    many_models = rng.normal(size=(8, 6))  # enumeration too large: Monte Carlo, seeded
    f = friedman(many_models, rng=1)
    assert f.exact_method == "monte-carlo" and f.p_value_exact_se > 0
    assert "Monte Carlo" in f.summary() and "MC standard error" in f.summary()
    many_tasks = rng.normal(size=(4, 12))
    g = friedman(many_tasks)
    assert g.exact_method == "" and np.isnan(g.p_value_exact) and "permutation" not in g.summary()
    assert friedman(few, method="asymptotic").exact_method == ""
    assert friedman(many_tasks, method="monte-carlo", rng=0).exact_method == "monte-carlo"
    # identical rankings without ties: closed form k!/(k!)^N, whatever N
    ident = np.tile(np.arange(6.0)[:, None], (1, 15))
    h = friedman(ident)
    assert h.exact_method == "closed-form"
    assert h.p_value_exact == pytest.approx(math.exp(-14 * math.lgamma(7)), rel=1e-9)
    with pytest.raises(ValueError, match="`method`"):
        friedman(few, method="permutation")
    with pytest.raises(ValueError, match="monte-carlo"):
        friedman_permutation_p_value(rank_matrix(many_models), method="exact")


def test_rank_cli_says_infinite_and_exact_p(tmp_path):
    from evalband.cli.main import app

    rows = ["model,task,n,correct"] + [f"m{i},t{j},100,{90 - 10 * i + j}" for i in range(3) for j in range(3)]
    path = tmp_path / "three.csv"
    path.write_text("\n".join(rows) + "\n")
    res = CliRunner().invoke(app, ["rank", str(path), "--test", "friedman"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "infinite (identical rankings)" in out and "= inf" not in out and "p = 0 " not in out
    assert "Exact permutation p = 0.0278" in out


def test_run_test_passes_the_rng_for_monte_carlo():
    x = np.random.default_rng(11).normal(size=(8, 5))
    a = run_test(x, rng=4).omnibus
    b = run_test(x, rng=4).omnibus
    assert a.exact_method == "monte-carlo" and a.p_value_exact == b.p_value_exact


@pytest.mark.parametrize("k", [105, 120, 200])
def test_many_models_over_few_tasks_do_not_overflow(k):
    """Issue 14: 105+ models over < 10 tasks overflowed `float(...) ** (k - 1)`. Oracle: the chi-square
    approximation (SciPy's friedmanchisquare), which many models make good (its error here is far below 0.05)."""
    gen = np.random.default_rng(k)
    x = gen.normal(size=(k, 6)) + np.linspace(0, 0.6, k)[:, None]
    f = friedman(x, rng=1)
    assert f.exact_method == "monte-carlo" and any("exact enumeration out of reach" in n for n in f.notes)
    ref = stats.friedmanchisquare(*x).pvalue
    assert f.p_value == pytest.approx(ref, rel=1e-9)
    assert abs(f.p_value_exact - ref) < 0.05
    with pytest.raises(ValueError, match="exact enumeration is too large"):
        friedman_permutation_p_value(stats.rankdata(x, axis=0), method="exact")


def test_cli_rank_friedman_with_110_models(tmp_path):
    from evalband.cli.main import app

    gen = np.random.default_rng(0)
    rows = [f"m{m},t{t},{i},{int(gen.random() < 0.3 + m / 200)}" for m in range(110) for t in range(4)
            for i in range(8)]
    path = tmp_path / "many.csv"
    path.write_text("model,task,item,score\n" + "\n".join(rows) + "\n")
    res = CliRunner().invoke(app, ["rank", str(path), "--test", "friedman", "--seed", "1", "--format", "json"])
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert res.exit_code == 0, res.stderr
    assert "Monte Carlo" in res.stderr or "monte-carlo" in res.stdout + res.stderr
