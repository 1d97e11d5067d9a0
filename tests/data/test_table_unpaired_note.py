"""The table's note "items not shared by every model are left out of paired analyses" only where items can be
paired: rliable runs (``paired_items=False``) never carry it, also after ``select`` (which rebuilt it), and the
note says that independent resampling keeps those items.

Oracle: the coverage counts by hand (items of each model minus the items every model has).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from evalband import bootstrap, read
from evalband.data.table import UNSHARED_NOTE, ResultsTable

ATARI = Path(__file__).resolve().parents[1] / "fixtures" / "atari100k"


def test_rliable_runs_carry_no_unshared_note_after_select():
    table = read(sorted(str(p) for p in ATARI.glob("*.json") if p.name != "reference_scores.json"))
    assert table.paired_items is False
    assert not any(n.startswith(UNSHARED_NOTE) for n in table.notes)
    sub = table.select(tasks=list(table.tasks[:5]))
    assert sub.paired_items is False
    assert not any(n.startswith(UNSHARED_NOTE) for n in sub.notes)
    reps = bootstrap(sub, n_resamples=100, rng=0, progress=False)
    assert reps.resampling == "independent"
    assert not any("left out of paired" in n for n in reps.notes)


def test_paired_items_note_counts_and_says_what_independent_resampling_does():
    rows = [("a", "t", f"i{i}", 1.0) for i in range(10)] + [("b", "t", f"i{i}", 0.0) for i in range(7)]
    table = ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "score"]))
    note = [n for n in table.notes if n.startswith(UNSHARED_NOTE)]
    assert note == [f"{UNSHARED_NOTE} (3 for a); analyses that resample each model independently keep them"]
    assert table.select(models=["a", "b"]).notes == table.notes
