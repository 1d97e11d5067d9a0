"""pass@k and pass^k against their definitions and the published CRUXEval and tau-bench figures."""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb

import numpy as np
import pandas as pd
import pytest

from evalband import read
from evalband.estimation import pass_at_k, pass_hat_k, passk, passk_interval
from evalband.data.table import ResultsTable

FIXTURES = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures"
CRUX = FIXTURES / "cruxeval" / "sample_scored_codellama-7b_temp0.2_input.json"
TAU = FIXTURES / "tau_bench" / "gpt-4o-airline_rewards.csv"


def cruxeval_table() -> tuple[ResultsTable, dict]:
    raw = json.loads(CRUX.read_text())
    scored = raw["raw_scored_generations"]
    rows = [{"model": "codellama-7b", "task": "input", "item": item, "trial": j, "score": bool(v)}
            for item, values in scored.items() for j, v in enumerate(values)]
    return ResultsTable.from_items(pd.DataFrame(rows)), raw


def test_cruxeval_known_answer():
    table, raw = cruxeval_table()
    res = passk(table, k=(1, 5))
    at = res.pass_at_k.estimate[0, 0]
    # published: pass@1 = 35.95, pass@5 = 44.99 (stored in the file as 35.94999999999998, 44.991071428571416)
    assert round(100 * at[0], 2) == 35.95 and round(100 * at[1], 2) == 44.99
    assert 100 * at[0] == pytest.approx(raw["pass_at_1"], abs=1e-9)
    assert 100 * at[1] == pytest.approx(raw["pass_at_5"], abs=1e-9)
    assert res.pass_at_k.n[0, 0, 0] == 800 and res.samples[0, 0] == 10


def test_tau_bench_known_answer():
    table = read(TAU, item_col="task_id", score_col="reward")
    assert table.has_trials and table.is_binary
    res = passk(table, k=(1, 2, 3, 4))
    # tau-bench README, gpt-4o airline: pass^1..4 = 0.420, 0.273, 0.220, 0.200
    assert np.round(res.pass_hat_k.estimate[0, 0], 3).tolist() == [0.420, 0.273, 0.220, 0.200]
    # pass@1 = pass^1 = mean success rate
    assert res.pass_at_k.estimate[0, 0, 0] == pytest.approx(res.pass_hat_k.estimate[0, 0, 0])
    frame = res.to_frame()
    assert len(frame) == 8 and set(frame["metric"]) == {"pass@k", "pass^k"}


@pytest.mark.parametrize("n, c, k", [(10, 3, 1), (10, 3, 5), (10, 7, 4), (10, 0, 3), (10, 10, 10), (200, 13, 50),
                                     (500, 3, 100), (7, 7, 1)])
def test_pass_at_k_matches_binomial_definition(n, c, k):
    exact = 1 - Fraction(comb(n - c, k), comb(n, k))  # the definition, in exact rationals
    assert pass_at_k(n, c, k) == pytest.approx(float(exact), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("n, c, k", [(10, 3, 1), (10, 3, 3), (10, 3, 4), (4, 4, 4), (500, 480, 100)])
def test_pass_hat_k_matches_binomial_definition(n, c, k):
    exact = Fraction(comb(c, k), comb(n, k))
    assert pass_hat_k(n, c, k) == pytest.approx(float(exact), rel=1e-12, abs=1e-15)


def test_vectorized_over_items():
    n = np.array([10, 10, 20, 5])
    c = np.array([0, 3, 20, 2])
    got = pass_at_k(n, c, 2)
    assert got.tolist() == pytest.approx([1 - Fraction(comb(a - b, 2), comb(a, 2)) for a, b in zip(n, c)])


def test_standard_error_is_across_items():
    n = np.array([4, 4, 4, 4, 4])
    c = np.array([0, 1, 2, 4, 4])
    res = passk_interval(n, c, 2, metric="pass^k", confidence_level=0.9)
    per_item = np.array([comb(int(x), 2) / comb(4, 2) for x in c])
    assert res.estimate == pytest.approx(per_item.mean())
    assert res.se == pytest.approx(per_item.std(ddof=1) / np.sqrt(5))
    assert res.df == 4 and 0.0 <= res.ci.low <= res.ci.high <= 1.0


def test_k_larger_than_samples_names_the_item():
    with pytest.raises(ValueError, match="exceeds the number of samples of item 'b'"):
        pass_at_k(np.array([5, 3]), np.array([1, 1]), 4, items=np.array(["a", "b"]))
    table = read(TAU, item_col="task_id", score_col="reward")
    with pytest.raises(ValueError, match="k = 5 exceeds the 4 sample\\(s\\) of item '0'"):
        passk(table, k=(1, 5))


def test_passk_needs_trials_and_binary_scores():
    df = pd.DataFrame({"model": "m", "task": "t", "item": [1, 2], "score": [1, 0]})
    with pytest.raises(ValueError, match="needs item-level data with several samples per item"):
        passk(ResultsTable.from_items(df))
    df = pd.DataFrame({"model": "m", "task": "t", "item": [1, 1], "trial": [0, 1], "score": [0.5, 1]})
    with pytest.raises(ValueError, match="pass@k needs 0/1 scores; these are bounded"):
        passk(ResultsTable.from_items(df))
