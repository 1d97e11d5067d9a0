"""Second QA pass: ``--weights`` messages under the one weights rule (tasks not named weigh 0).

Before the fix, ``--weights DTD=0`` said "`--weights` must be finite, non-negative and not all zero; got [0.0, 0.0,
... 19 zeros]" (the user gave one finite, non-negative number), and ``--weights =1`` said "names unknown task(s) or
group(s) ['']".
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from evalband.aggregate import parse_weights, resolve_weights
from evalband.cli.main import app


def _line(args):
    res = CliRunner().invoke(app, args)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    return lines[0]


def test_all_named_weights_zero_says_what_happened():
    line = _line(["rank", "--example", "vtab", "--weights", "DTD=0", "--n-resamples", "50"])
    assert "every task weight 0 (the named tasks are 0 and the 18 not named weigh 0)" in line
    with pytest.raises(ValueError, match=r"every task weight 0 \(the named tasks are all 0\)"):
        resolve_weights(2, tasks=["a", "b"], weights={"a": 0, "b": 0})
    # a positive weight still works: DTD alone (the rule the message explains)
    w = resolve_weights(3, tasks=["a", "DTD", "c"], weights={"DTD": 2})
    assert w.tolist() == [0.0, 1.0, 0.0]


def test_empty_name_before_equals():
    with pytest.raises(ValueError, match=r"no name before '=' in '=1'"):
        parse_weights("=1", ["a", "b"])
    assert "no name before '='" in _line(["compare", "--example", "vtab", "--weights", "DTD=1,=2"])


def test_unweighted_aggregate_names_the_option_once():
    # before: "aggregate 'median' is unweighted; `--weights`/`--weights` do not apply." (both API names map to it)
    line = _line(["compare", "--example", "vtab", "--models", "Sup-100%,Sup-Exemplar-100%", "--aggregate",
                  "mean,median", "--weights", "groups", "--n-resamples", "50"])
    assert "aggregate 'median' is unweighted: `--weights` does not apply to it" in line
    assert "`--weights`/`--weights`" not in line


def test_entry_without_equals_is_named(tmp_path):
    # before: "mix of name=weight and bare numbers in '@w.txt'" (which line of the file?)
    path = tmp_path / "w.txt"
    path.write_text("DTD=1\nPets\n")
    with pytest.raises(ValueError, match=r"'Pets' has no '='"):
        parse_weights(f"@{path}", ["DTD", "Pets"])
