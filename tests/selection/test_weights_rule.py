"""QA O32: `--weights DTD=1` worked in `bayes` (other tasks weigh 0) but `compare`/`rank` demanded a weight for
every task. One rule now, in the shared weights code (`evalband.aggregate.resolve_weights`, used by `compare`,
`rank` and `bayes.make_aggregator`; text read by `evalband.aggregate.parse_weights`): tasks or groups not named
get weight 0 and a note lists them; an unknown name is an error listing only the unknown names.

Oracle: with all weight on DTD, the aggregate of every model is its DTD accuracy (correct / n of the bundled
VTAB counts), in compare, rank and the Bayesian aggregator alike.
"""

from __future__ import annotations

from notes import flat, notes_of  # noqa: F401

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband import compare, rank
from evalband.aggregate import get_aggregate, parse_weights, resolve_weights, weights_and_notes
from evalband.bayes.posterior import make_aggregator
from evalband.cli.main import app
from evalband import load_example
import jsonout  # noqa: E402

TASKS = ["a", "b", "c", "d"]
GROUPS = {"a": "g1", "b": "g1", "c": "g2", "d": "g3"}


def test_tasks_not_named_weigh_zero_with_a_note():
    w, notes = weights_and_notes(4, tasks=TASKS, weights={"b": 2, "c": 1})
    np.testing.assert_allclose(w, [0, 2 / 3, 1 / 3, 0])
    assert notes == ("2 tasks not named in `weights` get weight 0: 'a', 'd'",)
    np.testing.assert_allclose(resolve_weights(4, tasks=TASKS, weights={"b": 2, "c": 1}), w)


def test_groups_not_named_weigh_zero_with_a_note():
    w, notes = weights_and_notes(4, tasks=TASKS, group_weights={"g1": 1, "g3": 1}, task_groups=GROUPS)
    np.testing.assert_allclose(w, [0.25, 0.25, 0, 0.5])
    assert notes == ("1 group not named in `group_weights` gets weight 0 (and so do its tasks): 'g2'",)


def test_unknown_names_list_only_the_unknown():
    with pytest.raises(ValueError, match=r"^`weights` names unknown task\(s\) \['zz'\]\.$"):
        resolve_weights(4, tasks=TASKS, weights={"a": 1, "zz": 1})
    with pytest.raises(ValueError, match=r"unknown group\(s\) \['g9'\]"):
        resolve_weights(4, tasks=TASKS, group_weights={"g1": 1, "g9": 1}, task_groups=GROUPS)
    with pytest.raises(ValueError, match=r"unknown task\(s\) or group\(s\) \['zz'\]; groups are"):
        parse_weights("a=1,zz=2", TASKS, ["g1", "g2", "g3"])


def test_text_rule():
    groups = ["g1", "g2", "g3"]
    assert parse_weights(None, TASKS, groups) == (None, None)
    assert parse_weights("equal", TASKS, groups) == (None, None)
    assert parse_weights("groups", TASKS, groups) == (None, "equal")
    assert parse_weights("a=1", TASKS, groups) == ({"a": 1.0}, None)
    assert parse_weights("g2=1", TASKS, groups) == (None, {"g2": 1.0})
    assert parse_weights("1,2,3,4", TASKS, groups) == ([1.0, 2.0, 3.0, 4.0], None)
    with pytest.raises(ValueError, match="mixes group names"):
        parse_weights("g1=1,a=1", TASKS, groups)
    with pytest.raises(ValueError, match="needs task groups"):
        parse_weights("groups", TASKS, ())


def _dtd_accuracy():
    table = load_example("vtab")
    c = table.counts(tasks=["DTD"])
    return dict(zip(c.models, (c.correct / c.n)[:, 0]))


def test_every_command_gives_the_same_dtd_aggregate():
    acc = _dtd_accuracy()
    table = load_example("vtab")
    models = ["Sup-100%", "Rotation", "VAE"]
    r = rank(table, models=models, weights={"DTD": 1}, n_resamples=200, rng=1)
    est = dict(zip(r["mean"].models, r["mean"].estimate))
    for m in models:
        assert est[m] == pytest.approx(acc[m], abs=1e-12)
    assert any(n.startswith("18 tasks not named in `weights` get weight 0: 'Caltech101'") for n in r.notes)
    c = compare(table, models=models, weights={"DTD": 1}, n_resamples=200, rng=1, per_task=False)
    pc = c.aggregates[0]
    for a, b, d in zip(pc.model_a, pc.model_b, pc.difference):
        assert d == pytest.approx(acc[a] - acc[b], abs=1e-12)
    agg, text = make_aggregator(table.tasks, table.task_groups, weights={"DTD": 1})
    counts = table.counts()
    obs = agg(counts.correct / counts.n)
    for m, v in zip(counts.models, obs):
        assert v == pytest.approx(acc[m], abs=1e-12)
    assert text.startswith("weighted mean over tasks (DTD: 1; weight 0: Caltech101, Camelyon, CIFAR-100")


@pytest.mark.parametrize("command", ["compare", "rank"])
def test_cli_accepts_some_tasks_and_lists_the_rest(command):
    res = CliRunner().invoke(app, [command, "--example", "vtab", "--models", "Sup-100%,Rotation", "--weights",
                                   "DTD=1", "--n-resamples", "200", "--seed", "1", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert "note: 18 tasks not named in `--weights` get weight 0: 'Caltech101'" in flat(res.stderr)
    frame = pd.DataFrame(jsonout.records(res.stdout))
    acc = _dtd_accuracy()
    if command == "rank":
        got = dict(zip(frame["model"], frame["estimate"]))
        assert got["Rotation"] == pytest.approx(acc["Rotation"], abs=1e-9)
    else:
        assert frame.loc[0, "difference"] == pytest.approx(acc["Sup-100%"] - acc["Rotation"], abs=1e-9)


def test_cli_group_names_only_some_groups():
    res = CliRunner().invoke(app, ["rank", "--example", "vtab", "--models", "Sup-100%,Rotation", "--weights",
                                   "natural=1", "--n-resamples", "100", "--seed", "1", "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert ("note: 2 groups not named in `--weights` get weight 0 (and so do their tasks): 'specialized',"
            " 'structured'") in flat(res.stderr)


def test_weighted_geometric_mean_takes_the_same_rule():
    s = np.array([[0.9, 0.5, 0.2], [0.6, 0.6, 0.6]])
    agg = get_aggregate("geometric", weights={"t2": 1}, tasks=["t1", "t2", "t3"])
    np.testing.assert_allclose(agg(s), s[:, 1])
    assert agg.notes and "'t1', 't3'" in agg.notes[0]
