"""QA regression: whole-number float columns (degrees of freedom, effective n) display as integers, not in
scientific notation (the pooled row of CRUXEval showed df = 1.6e+03 for 1599)."""

from __future__ import annotations

import pandas as pd

from evalband.report.format import render


def test_integral_floats_show_as_integers_and_others_keep_three_figures():
    df = pd.DataFrame({"model": ["a", "b"], "estimate": [0.351, 0.36], "se": [0.011, 0.016],
                       "df": [1599.0, 799.0], "icc": [0.0123456, 12345.678]})
    md = render(df, "markdown")
    assert "| 1599 |" in md and "| 799 |" in md and "e+03" not in md.split("\n")[2]
    assert "| 0.0123 |" in md  # three significant figures as before
