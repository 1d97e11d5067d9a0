"""The column-wise JSON writer gives the bytes of ``json.dumps(json_records(frame), indent=2)``.

Oracle: Python's own encoder on the records (the path every JSON output took before), on frames of every column
kind the results hold: floats with NaN and infinities, counts (by name) stored as floats, integers, booleans,
text with quotes, control characters, non-ASCII and '%', pandas' nullable and string dtypes, categoricals.
"""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalband.display import json_records, to_json
from evalband.display._json import records_json

TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64)


def _reference(frame, **extra):
    records = json_records(frame)
    if extra:
        return json.dumps({**extra, "records": records}, indent=2, allow_nan=False)
    return json.dumps(records, indent=2, allow_nan=False)


@st.composite
def frames(draw):
    n = draw(st.integers(0, 6))
    cols = {}
    cols["difference"] = draw(st.lists(FLOATS, min_size=n, max_size=n))
    cols["n_items"] = [float(v) if v is not None else np.nan
                       for v in draw(st.lists(st.one_of(st.none(), st.integers(0, 10**12)), min_size=n, max_size=n))]
    cols["rank"] = draw(st.lists(st.integers(-2**62, 2**62), min_size=n, max_size=n))
    cols["significant"] = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    cols["model_a"] = draw(st.lists(TEXT, min_size=n, max_size=n))
    cols["note %s \"q\""] = draw(st.lists(st.one_of(st.none(), TEXT, FLOATS, st.integers(-5, 5), st.booleans()),
                                          min_size=n, max_size=n))
    frame = pd.DataFrame(cols)
    frame["n_items"] = frame["n_items"].astype(float)
    frame["significant"] = frame["significant"].astype(bool)
    if draw(st.booleans()):
        frame["model_a"] = frame["model_a"].astype("string")
    if draw(st.booleans()):
        frame["group"] = pd.Categorical(frame["model_a"].astype(object))
    if draw(st.booleans()):
        frame["count"] = pd.array([None if k % 3 == 0 else k for k in range(n)], dtype="Int64")
    return frame


@settings(max_examples=300, deadline=None)
@given(frames())
def test_the_bytes_of_json_dumps(frame):
    assert to_json(frame) == _reference(frame)
    assert to_json(frame, seed=7, notes=["a", "b"]) == _reference(frame, seed=7, notes=["a", "b"])
    json.loads(to_json(frame))  # and valid JSON


def test_full_precision_counts_and_nulls():
    frame = pd.DataFrame({"estimate": [4 / 9, np.nan, np.inf], "n": [9.0, np.nan, 3.0], "model": ["a", None, "é"]})
    out = json.loads(to_json(frame))
    assert out[0] == {"estimate": 0.4444444444444444, "n": 9, "model": "a"}
    assert out[1] == {"estimate": None, "n": None, "model": None}
    assert out[2]["estimate"] is None and out[2]["model"] == "é"
    assert '"n": 9,' in to_json(frame)  # a count, never 9.0


@pytest.mark.parametrize("value", [[1, 2], {"a": 1}, pd.Timestamp("2026-01-01")])
def test_nested_values_go_to_the_general_encoder(value):
    frame = pd.DataFrame({"x": [value, value]})
    assert records_json(frame, set()) is None
    if not isinstance(value, pd.Timestamp):
        assert to_json(frame) == _reference(frame)


def test_extra_fields_around_the_records():
    frame = pd.DataFrame({"a": [1.5]})
    assert to_json(frame, records_note="x", n=3.0) == json.dumps(
        {"records_note": "x", "n": 3, "records": [{"a": 1.5}]}, indent=2)
    assert to_json(frame.iloc[:0], seed=1) == json.dumps({"seed": 1, "records": []}, indent=2)


def test_repeated_floats_keep_their_own_reprs():
    """Columns of few values are encoded once per value, by their bits: -0.0 stays -0.0, NaN stays null."""
    values = [0.0, -0.0, 0.0, -0.0, np.nan, np.nan, 1.5, 1.5, 1 / 3, 1 / 3, np.inf, -np.inf] * 3
    frame = pd.DataFrame({"p_value": values, "n": [3.0, 4.0] * 18})
    assert to_json(frame) == _reference(frame)
    assert '"p_value": -0.0' in to_json(frame)


@pytest.mark.parametrize("frame", [
    pd.DataFrame([[1.0, 2.0]], columns=[1, "1"]),                       # labels that are one key as text
    pd.DataFrame([[1.0, 2.0]], columns=[None, "None"]),
    pd.DataFrame({"c": pd.Categorical([1, 2, None])}),                  # integer categories with a missing value
    pd.DataFrame({"c": pd.Categorical(["a", None, "b"])}),
    pd.DataFrame({"x": np.array([np.int64(3), np.True_, np.float32(0.5), None], dtype=object)}),
])
def test_frames_the_dicts_key_and_iterate_their_own_way(frame):
    assert to_json(frame) == _reference(frame)
