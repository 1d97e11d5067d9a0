"""The selection layer (evalband.select): which models, tasks and weights count, and what was left out.

Oracles: the weights by hand (VTAB's groups: natural 7 tasks, specialized 4, structured 8, so equal group weights
give each natural task 1/21, each specialized 1/12, each structured 1/24); the tasks a model lacks counted with
pandas; the weighted aggregate of compare equal to the hand-weighted mean of per-task accuracy differences.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband import InputError


def _lacking_frame():
    rows = []
    for m in "ABC":
        for t in ("t1", "t2", "t3"):
            if m == "C" and t == "t3":
                continue  # C lacks t3
            for i in range(12):
                rows.append(dict(model=m, task=t, item=i, score=float((i + ord(m) + len(t)) % 3 == 0)))
    return pd.DataFrame(rows)


def test_equal_group_weights_by_hand():
    sel = eb.select("example:vtab", weights="groups")
    groups = sel.task_groups
    size = pd.Series(groups).value_counts()
    by_hand = np.array([1 / (3 * size[groups[t]]) for t in sel.tasks])
    np.testing.assert_allclose(sel.weights, by_hand, rtol=0, atol=1e-15)
    assert size.to_dict() == {"structured": 8, "natural": 7, "specialized": 4}
    # the same from group_weights='equal', and from a Selection passed again (idempotent)
    np.testing.assert_array_equal(eb.select("example:vtab", group_weights="equal").weights, sel.weights)
    assert eb.select(sel) is sel


def test_tasks_a_model_lacks_are_left_out_with_notes_and_counted():
    frame = _lacking_frame()
    sel = eb.select(frame, complete=True)
    assert sel.tasks == ("t1", "t2") and sel.tasks_left_out == {"t3": ("C",)}
    assert sel.left_out.counts == {"models_not_selected": 0, "tasks_not_selected": 0, "tasks_lacking": 1}
    assert "task 't3' left out: C has no results on it" in sel.notes
    assert any("over the 2 tasks every selected model has (1 of 3 left out" in n for n in sel.notes)
    # without C, nothing is lacking; a task named in `tasks` that a model lacks is an error
    assert eb.select(frame, models=["A", "B"], complete=True).tasks == ("t1", "t2", "t3")
    with pytest.raises(InputError, match="task 't3' \\(in `tasks`\\): C has no results on it"):
        eb.select(frame, tasks=["t1", "t3"], complete=True)


def test_weights_on_left_out_tasks_follow_the_one_rule():
    frame = _lacking_frame()
    with pytest.raises(InputError, match="gives task 't3' a positive weight, but C has no results on it"):
        eb.select(frame, weights={"t1": 1, "t3": 2}, complete=True)
    sel = eb.select(frame, weights={"t1": 1, "t2": 3, "t3": 0}, complete=True)
    np.testing.assert_allclose(sel.weights, [0.25, 0.75])
    sel = eb.select(frame, weights="t1=1", complete=True)
    np.testing.assert_allclose(sel.weights, [1.0, 0.0])
    assert any("not named in `weights`" in n and "'t2'" in n for n in sel.notes)
    with pytest.raises(ValueError, match="names unknown task"):
        eb.select(frame, weights={"nope": 1})


def test_compare_uses_the_selection_weights():
    vtab = eb.load_example("vtab")
    models = ["Sup-100%", "Sup-Exemplar-100%"]
    sel = eb.select(vtab, models=models, weights={"DTD": 2, "Pets": 1})
    res = eb.compare(sel, n_resamples=200, rng=1, per_task=False)
    d = vtab.data.set_index(["model", "task"])
    acc = lambda m, t: d.loc[(m, t), "correct"] / d.loc[(m, t), "n"]  # noqa: E731
    diff = (2 * (acc(*models[:1], "DTD") - acc(models[1], "DTD")) + (acc(models[0], "Pets") - acc(models[1], "Pets"))) / 3
    pc = res.aggregates[0]
    sign = 1 if pc.model_a[0] == models[0] else -1
    assert sign * pc.difference[0] == pytest.approx(diff, abs=1e-12)
    assert res.selection.source is sel.source and res.selection.tasks == sel.tasks  # the one read, completed


def test_selection_of_replicates_and_narrowing():
    reps = eb.bootstrap("example:vtab", n_resamples=50, rng=0)
    res = eb.compare(reps, models=["Sup-100%", "Sup-Rotation-100%"], tasks=["DTD", "Pets"], n_resamples=50)
    assert res.replicates.replicates.shape == (50, 2, 2)
    sel = eb.select("example:vtab")
    narrow = eb.select(sel, models=["Sup-100%", "Sup-Rotation-100%"])
    assert narrow.models == ("Sup-100%", "Sup-Rotation-100%") and narrow.source is sel.source
    assert len(repr(narrow)) < 500 and "27" not in repr(narrow)
