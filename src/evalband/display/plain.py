"""Result values as plain JSON: full-precision floats, counts (by name) as integers, NaN and infinities as null.

The values of any result dict (a plan, a gate, nested records) become Python ints, floats, strings, booleans,
None and lists here; :mod:`evalband.display.tables` uses the same rules for frames. Nothing here imports pandas.
"""

from __future__ import annotations

import json
import math
import re
import sys

import numpy as np

__all__ = ["json_dumps"]

#: columns that count things: integers in JSON and CSV, never decimals
_COUNTS = re.compile(r"^(n|k|(.*_)?df\d?|tier|rank|rank_low|rank_high|rank_sim_low|rank_sim_high|tasks|items|"
                     r"left_out|common_items|trials|samples|count|n_.*|.*_count|.*_n|clusters|record_n|rejected|pairs|"
                     r"n_arrangements|wins|losses|ties)$")


def _plain(value):
    """A JSON value: Python int / float / str / bool / None / list; NaN and infinities as None."""
    pd = sys.modules.get("pandas")  # no value is pandas' NA unless pandas is loaded
    if value is None or (pd is not None and value is pd.NA):
        return None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else None
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    return value


def _clean(value, key: str = ""):
    """Nested values as plain JSON: counts (by name) as integers, NaN and infinities as null."""
    if isinstance(value, dict):
        return {str(k): _clean(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):  # arrays too: their counts (by name) as integers
        return [_clean(v, key) for v in value]
    v = _plain(value)
    if isinstance(v, float) and _COUNTS.match(key) and v.is_integer():
        return int(v)
    return v


def json_dumps(obj) -> str:
    """Any result dict as JSON: full-precision floats, counts (by name) as integers, NaN and inf as null.

    Examples
    --------
    >>> from evalband.display import json_dumps
    >>> print(json_dumps({"estimate": 0.781, "se": float("nan"), "n_items": 120.0}))
    {
      "estimate": 0.781,
      "se": null,
      "n_items": 120
    }
    """
    return json.dumps(_clean(obj), indent=2, allow_nan=False)


