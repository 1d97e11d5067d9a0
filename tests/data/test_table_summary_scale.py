"""QA regressions: a summary table whose accuracy column mixes fractions and percent must not be read as percent.

Before the fix one fraction above 1 (a typo such as 1.7) or one model reported in percent made the whole column
'percent', silently dividing every other model's fractions by 100.
"""

from __future__ import annotations

import pandas as pd
import pytest

from evalband import InputError, read
from evalband.cli.main import app
from typer.testing import CliRunner

SIZES = {"Caltech101": 6084, "CIFAR-100": 10000, "DTD": 1880, "Flowers102": 6149}


def _summary(acc_by_model):
    rows = [{"model": m, "task": t, "n": n, "accuracy": a}
            for m, accs in acc_by_model.items() for (t, n), a in zip(SIZES.items(), accs)]
    return pd.DataFrame(rows)


def test_one_fraction_above_one_is_an_error_naming_the_row(tmp_path):
    df = _summary({"A": [0.62, 0.21, 0.38, 0.60], "B": [0.70, 1.7, 0.49, 0.70]})
    with pytest.raises(InputError) as err:
        read(df)
    msg = str(err.value)
    assert "row 5" in msg and "'accuracy'" in msg and "1.7" in msg and "fraction" in msg


def test_one_model_in_percent_among_fractions_is_an_error(tmp_path):
    df = _summary({"A": [62.1, 21.1, 38.5, 60.0], "B": [0.70, 0.11, 0.49, 0.70], "C": [0.5, 0.4, 0.3, 0.2]})
    path = tmp_path / "mixed.csv"
    df.to_csv(path, index=False)
    res = CliRunner().invoke(app, ["summarize", str(path), "-f", "json"])
    assert res.exit_code == 2
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(path) in lines[0] and "'accuracy'" in lines[0]
    assert "percent" in lines[0] and "fraction" in lines[0]


def test_all_percent_and_all_fraction_still_read():
    pct = read(_summary({"A": [62.1, 21.1, 38.5, 60.0], "B": [70.0, 11.0, 49.0, 70.0]}))
    frac = read(_summary({"A": [0.621, 0.211, 0.385, 0.600], "B": [0.700, 0.110, 0.490, 0.700]}))
    assert pct.counts().correct.tolist() == frac.counts().correct.tolist()
    assert any("percent" in n for n in pct.notes)


def test_percent_table_with_a_task_below_one_percent_is_still_percent():
    # a genuine percent table where one model scores 0.5% on one task: values <= 1 are a small minority
    pct = read(_summary({"A": [62.1, 21.1, 38.5, 0.5], "B": [70.0, 11.0, 49.0, 70.0]}))
    counts = pct.counts()
    assert counts.correct[0, 3] == 30  # floor(6149 * 0.005)


def test_one_fraction_model_among_percent_models_is_an_error():
    df = _summary({"A": [62.1, 21.1, 38.5, 60.0], "B": [70.0, 11.0, 49.0, 70.0], "C": [0.7, 0.11, 0.49, 0.7]})
    with pytest.raises(InputError, match=r"row 8, column 'accuracy': model 'C' has every accuracy at most 1"):
        read(df)
