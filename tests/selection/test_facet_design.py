"""Designs: crossed and nested factors, missing cells, facets left out; LLMFAO's judges (REML vs statsmodels)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalband.facets import facet_design, variance_components
from evalband.io import read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _frame(items, prompts, **extra):
    return pd.DataFrame({"model": "m", "task": "t", "item": items, "prompt": prompts, "score": 1.0, **extra})


def test_crossed_balanced_and_missing_cells():
    d = facet_design(_frame(np.repeat([1, 2, 3], 2), ["a", "b"] * 3))["t"]
    assert d.factors == ("item", "prompt") and d.balanced and d.terms == ((0,), (1,), (0, 1))
    assert d.parents == (frozenset(), frozenset())
    d2 = facet_design(_frame([1, 1, 2, 3, 3], ["a", "b", "a", "a", "b"]))
    t = d2["t"]
    assert not t.balanced and int(t.missing_cells[0]) == 1 and t.full_cells == 6
    assert any("missing cells" in n for n in d2.notes)


def test_nested_detected_and_declared():
    # workers w0..w5 each judge one item: nested in items
    d = facet_design(pd.DataFrame({"model": "m", "task": "t", "item": np.repeat([1, 2, 3], 2),
                                   "judge": [f"w{k}" for k in range(6)], "score": 1.0}), facets="judge")["t"]
    assert d.parents[1] == frozenset({0}) and d.terms == ((0,), (0, 1)) and d.balanced
    # run labels reused across items but declared nested: read within each item
    df = pd.DataFrame({"model": "m", "task": "t", "item": np.repeat([1, 2, 3], 2), "run": [0, 1] * 3,
                       "score": 1.0})
    crossed = facet_design(df, facets="run")["t"]
    assert crossed.parents[1] == frozenset()
    nested = facet_design(df, facets="run", nested="run")["t"]
    assert nested.parents[1] == frozenset({0}) and list(nested.levels[1][:2]) == ["1/0", "1/1"]


def test_items_nested_in_prompts():
    # each item asked under one prompt only (LLMFAO's pairs within prompts)
    d = facet_design(_frame([1, 2, 3, 4], ["a", "a", "b", "b"]))["t"]
    assert d.parents[0] == frozenset({1}) and d.terms == ((1,), (0, 1))


def test_single_level_and_relabelling_facets_are_left_out():
    one = facet_design(_frame([1, 2, 3], ["a", "a", "a"]))
    assert one["t"].factors == ("item",) and any("single level" in n for n in one.notes)
    same = facet_design(_frame([1, 2, 3], ["a", "b", "c"]))
    assert same["t"].factors == ("item",) and any("relabels" in n for n in same.notes)


def test_items_not_shared_are_left_out_and_counted():
    df = pd.concat([_frame([1, 1, 2, 2], ["a", "b"] * 2), _frame([1, 1, 3, 3], ["a", "b"] * 2).assign(model="n")])
    d = facet_design(df)
    assert d["t"].n_items == 1 and d["t"].left_out == {"m": 2, "n": 2}
    assert any("not shared" in n for n in d.notes)
    assert "FacetDesign" in repr(d) and "<table" in d._repr_html_()


def test_errors():
    t = read(_frame([1, 2], ["a", "b"]))
    with pytest.raises(ValueError, match="`facets`"):
        facet_design(t, facets="judge")
    with pytest.raises(ValueError, match="`nested`"):
        facet_design(t, nested="judge")


# statsmodels 0.15, LLMFAO judged_wins.csv, model 'Dolly v2 (12B)' (13 prompts x 3 judges, 1 to 90 judgments):
# a = d[d.model == 'Dolly v2 (12B)'].assign(g=1)
# sm.MixedLM.from_formula('score ~ 1', groups='g', re_formula='0', data=a, vc_formula={'item': '0+C(item)',
#     'judge': '0+C(judge)', 'ij': '0+C(item):C(judge)'}).fit(reml=True, method=['nm'])
# -> vcomp ij 0.02139511929364213, item 0.03477223372967094, judge 0.01080538978484436; scale 0.11183059361198128
LLMFAO_REML = {"item": 0.03477223372967094, "judge": 0.01080538978484436, "item x judge": 0.02139511929364213,
               "trial": 0.11183059361198128}


def test_llmfao_judges_reml_matches_statsmodels():
    t = read(FIXTURES / "llmfao" / "judged_wins.csv", facets=["judge"], drop_cols=["pair"])
    vc = variance_components(t, models=["Dolly v2 (12B)"], rng=0, n_resamples=300)
    assert vc.method == {"llmfao": "reml"}
    got = vc.components("Dolly v2 (12B)")
    for k, ref in LLMFAO_REML.items():
        assert got[k] == pytest.approx(ref, rel=1e-3), k
    # three judges: the judge term has a wide interval, and generalizing over judges widens the standard error
    f = vc.to_frame().set_index("component")
    assert f.loc["judge", "ci_high"] > 10 * f.loc["judge", "variance"]
    assert vc.se_random[0, 0] > vc.se_fixed[0, 0]
