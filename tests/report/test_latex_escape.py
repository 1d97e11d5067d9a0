"""QA regression: LaTeX output escapes every special character, so a table pastes into a paper and compiles.
Before the fix `pass^k` (the passk metric column) and names with ~ { } were emitted raw ('^' outside math mode is
a LaTeX error)."""

from __future__ import annotations

import pandas as pd

from evalband.display import render


def test_all_latex_specials_are_escaped():
    df = pd.DataFrame({"model": ["a_b&c#d$e%f", "x^y~z{w}\\v"], "metric": ["pass@k", "pass^k"],
                       "estimate": [0.5, 0.25], "se": [0.1, 0.05]})
    body = render(df, "latex").splitlines()[4:6]
    assert body[0].startswith(r"a\_b\&c\#d\$e\%f & pass@k & ")
    assert body[1].startswith(r"x\textasciicircum{}y\textasciitilde{}z\{w\}\textbackslash{}v & "
                              r"pass\textasciicircum{}k & ")


def test_markdown_cells_escape_the_pipe():
    # a model named 'gpt|mini' split its row into an extra column
    df = pd.DataFrame({"model": ["gpt|mini"], "estimate": [0.5], "se": [0.1]})
    row = render(df, "markdown").splitlines()[2]
    assert row == r"| gpt\|mini | 0.50 | 0.10 |"  # SE 0.1 to two significant figures is 0.10: two decimals
