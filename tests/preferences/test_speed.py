"""The speed item of issue 15's contract: 1,000,000 battles, B = 1,000, at least 30x faster than a FastChat-style
refit loop measured in the same run (``benchmarks/arena.py``, which times FastChat's approach on a few replicates
and extrapolates; the baseline is the oracle, timed on this machine beside evalband)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ..conftest import ROOT


@pytest.mark.slow
def test_contract_a_million_battles_at_least_30x_faster_than_fastchats_refit_loop():
    pytest.importorskip("sklearn")  # FastChat's fit is scikit-learn's LogisticRegression
    pytest.importorskip("evalica")  # the second baseline of the benchmark
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "arena.py"), "--fastchat-replicates", "2",
                          "--evalica-replicates", "1"], capture_output=True, text=True, timeout=1800, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["battles"] == 1_000_000 and result["B"] == 1000
    assert result["ratio_fastchat"] >= 30, out.stdout
    assert max(result["peak_rss_mib"], result["peak_traced_mib"]) < 2048, out.stdout
