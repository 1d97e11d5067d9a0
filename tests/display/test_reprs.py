"""evalband.display.reprs: result objects have a short repr, notebook HTML, and ``str()`` as the CLI's table.

Oracles: the repr limit of issue 13 (at most 2,000 characters); the command line's own table for the same data
and seed (``print(result)`` must read as ``evalband rank`` prints); exact strings for a small result class.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import evalband as eb
from evalband.display import displayed
from evalband.display.reprs import REPR_LIMIT, short_repr, summary_of


@pytest.fixture(scope="module")
def vtab():
    return eb.load_example("vtab")


@pytest.fixture(scope="module")
def results(vtab):
    return {"compare": eb.compare(vtab, rng=0, n_resamples=2000), "rank": eb.rank(vtab, rng=0),
            "estimate": eb.estimate(vtab)}


@pytest.mark.parametrize("kind", ["compare", "rank", "estimate"])
def test_real_results_have_a_short_repr_notebook_html_and_a_table(results, kind, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    result = results[kind]
    text = repr(result)
    assert len(text) <= REPR_LIMIT == 2000
    assert text.startswith(type(result).__name__ + "(") and "\n" in text
    assert "array(" not in text.replace("=array(", "")  # arrays by shape, never their values
    page = result._repr_html_()
    assert "<table" in page and "</table>" in page and f"<code>{type(result).__name__}</code>" in page
    table = str(result)
    lines = table.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert any(set(line) == {"─"} for line in lines)  # the rule under the header: a terminal table
    assert "Sup-Rotation-100%" in table


def test_compare_repr_says_what_is_decided(results):
    text = repr(results["compare"])
    assert text.splitlines()[-1] == "mean: 117 of 120 pairs decided"
    assert "models=('Cond-BigGAN', 'Exemplar', 'From-Scratch', ...; 16)" in text


def _table_lines(text):
    return [line for line in text.splitlines() if line and not line.startswith(("note:", "      "))]


def _cli_table(*args):
    from evalband.cli.main import app

    res = CliRunner().invoke(app, list(args), env={"COLUMNS": "100"})
    assert res.exit_code == 0, res.output
    return _table_lines(res.stdout)


def test_print_of_a_ranking_is_the_command_lines_table(results, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert _table_lines(str(results["rank"])) == _cli_table("rank", "--example", "vtab", "--seed", "0")


def test_print_of_task_estimates_is_the_command_lines_table(results, monkeypatch):
    # the command line adds a '(pooled)' row per model (which widens its columns): the cells of the others agree
    monkeypatch.setenv("COLUMNS", "100")
    cli = [line.split() for line in _cli_table("summarize", "--example", "vtab") if "(pooled)" not in line]
    cli = [cells for cells in cli if set(cells[0]) != {"─"}]
    mine = [line.split() for line in _table_lines(str(results["estimate"])) if set(line) != {"─"}]
    assert mine[1] == ["model", "task", "estimate", "se", "95%", "CI", "n"]
    assert mine == cli


def test_print_of_a_comparison_shows_p_values_at_the_floor_as_below_it(results, monkeypatch):
    # 2,000 resamples: two-sided bootstrap p-values are at least 2 / 2001; the CLI prints '<0.001'
    monkeypatch.setenv("COLUMNS", "100")
    table = str(results["compare"])
    header = table.splitlines()[1].split()
    assert header[:3] == ["model_a", "model_b", "difference"] and "95%" in header
    p = [line.split()[-3] for line in table.splitlines()[3:] if line.endswith("A better")]
    assert p.count("<0.001") > 50 and "0.001" not in p  # the floor 2/2001 as a value would read '0.001'
    assert results["compare"].p_floor == 2 / 2001


def test_the_html_of_a_result_escapes_names():
    @displayed
    @dataclasses.dataclass(frozen=True)
    class R:
        names: tuple

        def to_frame(self):
            return pd.DataFrame({"model": list(self.names), "estimate": [0.5] * len(self.names)})

    page = R(("<script>alert(1)</script>", "a&b"))._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "a&amp;b" in page


def test_a_small_result_class_exactly():
    @displayed
    @dataclasses.dataclass(frozen=True)
    class Small:
        models: tuple
        estimate: np.ndarray
        samples: np.ndarray
        method: str = "wilson"
        notes: tuple = ()
        _private: int = 0

        def headline(self):
            return f"best: {self.models[int(np.argmax(self.estimate))]}"

        def to_frame(self):
            return pd.DataFrame({"model": list(self.models), "estimate": self.estimate,
                                 "se": [0.0123, 0.01], "ci_low": self.estimate - 0.02, "ci_high": self.estimate + 0.02})

    r = Small(("a", "b"), np.array([0.7812, 0.7]), np.zeros((10_000, 2)), notes=("x", "y"))
    assert repr(r) == ("Small(\n    models=('a', 'b'; 2), estimate=[0.7812, 0.7   ], samples=array(10000, 2) float64,"
                       " method='wilson',\n    notes=2\n)\nbest: a")
    assert str(r) == ("model  estimate   se            CI\n──────────────────────────────────\n"
                      "a          78.1  1.2  (76.1, 80.1)\nb          70.0  1.0  (68.0, 72.0)")
    page = r._repr_html_()
    assert page.startswith("<p><code>Small</code></p><table") and "more rows" not in page


def test_long_frames_show_their_head_in_html_and_the_rest_counted():
    @displayed
    @dataclasses.dataclass(frozen=True)
    class Long:
        n: int

        def to_frame(self):
            return pd.DataFrame({"model": [f"m{i}" for i in range(self.n)], "estimate": np.linspace(0, 1, self.n)})

    page = Long(1234)._repr_html_()
    assert page.count("<tr") == 21 and "1,214 more rows: <code>.to_frame()</code>" in page


def test_repr_never_raises_and_never_exceeds_the_limit():
    @displayed
    @dataclasses.dataclass(frozen=True)
    class Broken:
        names: tuple

        def headline(self):
            raise ZeroDivisionError

    r = Broken(tuple(f"model-{i}" for i in range(5000)))
    assert repr(r).endswith("(headline unavailable: ZeroDivisionError)")
    wide = Broken(tuple([{"k": 1}] * 3))  # a non-string sequence
    assert "names=[dict(1), dict(1), ...] (3)" in repr(wide)

    @displayed
    @dataclasses.dataclass(frozen=True)
    class Many:
        a: str
        b: str
        c: str
        d: str
        e: str
        f: str
        g: str
        h: str
        i: str
        j: str
        k: str
        m: str
        n: str
        o: str
        p: str
        q: str
        r: str
        s: str
        t: str
        u: str
        v: str
        w: str
        x: str
        y: str
        z: str
        aa: str
        bb: str
        cc: str
        dd: str
        ee: str
        ff: str
        gg: str
        hh: str
        ii: str
        jj: str

    text = repr(Many(*["y" * 100] * 35))
    assert len(text) == REPR_LIMIT and text.endswith(" ...)")


def test_a_class_with_its_own_repr_keeps_it_and_classes_without_a_frame_get_a_pre_block():
    @displayed
    @dataclasses.dataclass(frozen=True, repr=False)
    class Own:
        x: int

        def __repr__(self):
            return "Own!"

    assert repr(Own(1)) == "Own!"
    assert Own(1)._repr_html_() == "<p><code>Own</code></p><pre>Own!</pre>"
    assert str(Own(1)) == "Own!"  # no to_frame: str() is the repr


def test_summary_of():
    assert summary_of(np.arange(3)) == "[0, 1, 2]"
    assert summary_of(np.zeros((4, 5))) == "array(4, 5) float64"
    assert summary_of(pd.DataFrame({"a": [1, 2]})) == "DataFrame(2 rows x 1 columns)"
    assert summary_of(()) == "()" and summary_of([]) == "[]"
    assert summary_of(("a" * 50, "b")) == f"('{'a' * 40}', 'b'; 2)"
    assert summary_of(1 / 3) == "0.333333"
    assert summary_of("z" * 80) == repr("z" * 57 + "...")
    assert summary_of({"a": 1}) == "dict(1)"
    assert re.fullmatch(r"object\(\)|<object object at 0x[0-9a-f]+>", summary_of(object()))
    assert short_repr(3).startswith("int(")
