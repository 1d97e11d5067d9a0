"""Second QA pass: 'iqm' on run data is not rliable's IQM, and said nothing about it.

``rank atari100k --aggregate iqm`` gives SPR 1173 (raw scores): the 25%-trimmed mean of the 26 per-game means.
rliable's IQM, the statistic its users know by that name, pools all 26 x 100 runs: 972. Before the fix nothing
said which one was shown. Both numbers are checked against ``scipy.stats.trim_mean``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import trim_mean

from evalband import read
from evalband.aggregate import rliable
from evalband.ranking import rank

ATARI = Path(__file__).resolve().parents[1] / "fixtures" / "atari100k"


def _runs(model):
    data = json.loads((ATARI / f"{model}.json").read_text())
    return np.array([data[g] for g in sorted(data)])  # (games, runs)


def test_iqm_is_over_task_scores_and_says_so():
    table = read([ATARI / "SPR.json", ATARI / "SimPLe.json"])
    res = rank(table, aggregate="iqm", rng=1, n_resamples=50)
    est = res.to_frame().set_index("model")["estimate"]
    spr = _runs("SPR")
    assert est["SPR"] == pytest.approx(trim_mean(spr.mean(axis=1), 0.25))       # 1172.78: over game means
    assert rliable.iqm(spr[None]) == pytest.approx(trim_mean(spr.ravel(), 0.25))  # 972.32: rliable's, over runs
    assert abs(est["SPR"] - trim_mean(spr.ravel(), 0.25)) > 100                  # the two really differ here
    assert any("'iqm' is the interquartile (25%-trimmed) mean of the per-task scores" in n
               and "rliable's IQM pools every run" in n for n in res.notes)


def test_mean_has_no_such_note():
    table = read([ATARI / "SPR.json", ATARI / "SimPLe.json"])
    res = rank(table, aggregate="mean", rng=1, n_resamples=50)
    assert not any("rliable's IQM" in n for n in res.notes)
