"""Second QA pass: ``rank --margin`` changed the tiers without a word in the output.

VTAB, Sup-Rotation-100% / Sup-Exemplar-100% / Sup-100%: with no margin Sup-100% is in tier 2 (its mean is 1.6 and
1.3 points below the other two, intervals about +-0.35); with a 5-point margin no difference lies beyond the
margin, so all three share tier 1. Before the fix nothing said that the margin was applied.
"""

from __future__ import annotations

from evalband import load_example
from evalband.ranking import rank

MODELS = ["Sup-Rotation-100%", "Sup-Exemplar-100%", "Sup-100%"]


def _tiers(res):
    frame = res.to_frame()
    return dict(zip(frame["model"], frame["tier"]))


def test_margin_is_said_and_changes_tiers():
    table = load_example("vtab")
    plain = rank(table, models=MODELS, rng=1, n_resamples=500)
    wide = rank(table, models=MODELS, rng=1, n_resamples=500, margin=0.05)
    assert _tiers(plain)["Sup-100%"] == 2 and set(_tiers(wide).values()) == {1}
    assert not any("margin" in n for n in plain.notes)
    assert any(n.startswith("with the 5-point margin: a model counts as better than another") for n in wide.notes)
