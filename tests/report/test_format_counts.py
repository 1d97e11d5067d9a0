"""QA regression: whole-number float columns (degrees of freedom, effective n) display as integers, not in
scientific notation (the pooled row of CRUXEval showed df = 1.6e+03 for 1599)."""

from __future__ import annotations

import pandas as pd

from evalband.display import render


def test_integral_floats_show_as_integers_and_others_keep_three_figures():
    df = pd.DataFrame({"model": ["a", "b"], "estimate": [0.351, 0.36], "se": [0.011, 0.016],
                       "df": [1599.0, 799.0], "icc": [0.0123456, 12345.678]})
    md = render(df, "markdown")
    assert "| 1,599 |" in md and "| 799 |" in md and "e+03" not in md.split("\n")[2]  # counts, thousands marked
    assert "| 0.0123 |" in md  # three significant figures as before


def test_long_names_are_never_cut_in_the_terminal_table():
    # two lm-eval model names that differ only at the end both showed as 'RylanSchaeffer/mem_Qwen3-93M_mine…'
    stem = "RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0_epoch_3_lr_1e-4_"
    df = pd.DataFrame({"model_a": [stem + "variant_A"], "model_b": [stem + "variant_B"], "difference": [0.2],
                       "se": [0.02], "ci_low": [0.16], "ci_high": [0.24], "p_value": [0.01], "verdict": ["A better"]})
    text = render(df, "table")
    assert "…" not in text
    flat = "".join(ch for ch in text if ch not in "│ \n")
    assert "variant_A" in flat and "variant_B" in flat
