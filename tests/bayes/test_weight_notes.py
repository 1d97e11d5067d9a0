"""beta_binomial lists the tasks that weigh 0 under ``weights=`` in its notes, as compare and rank do (the
aggregator's own note when a mapping leaves tasks out; one note when every task is named and some get 0, as the
command line's ``--weights DTD=1`` spells them out).

Oracle: the notes of ``evalband.compare`` on the same weights (word for word), and the weighted aggregate equal to
the DTD accuracy computed from the counts.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from evalband import compare, load_example
from evalband.bayes import beta_binomial
from evalband.cli.main import app

MODELS = ["Sup-100%", "Rotation", "VAE"]


def test_weight_zero_tasks_reach_the_notes_like_compare():
    table = load_example("vtab").select(models=MODELS)
    fit = beta_binomial(table, weights={"DTD": 1}, n_draws=400, rng=0)
    ref = compare(table, weights={"DTD": 1}, n_resamples=200, rng=0, per_task=False)
    zero = [n for n in ref.notes if "weight 0" in n]
    assert zero and zero[0].startswith("18 tasks not named in `weights` get weight 0: 'Caltech101'")
    assert zero[0] in fit.notes
    c = table.counts(tasks=["DTD"])
    assert list(fit.observed_aggregate) == pytest.approx(list((c.correct / c.n)[:, 0]), abs=1e-12)


def test_every_task_named_with_some_zero():
    table = load_example("vtab").select(models=MODELS)
    weights = {t: (1.0 if t in ("DTD", "Pets") else 0.0) for t in table.tasks}
    fit = beta_binomial(table, weights=weights, n_draws=400, rng=0)
    zero = [n for n in fit.notes if "weight 0" in n and not n.startswith("aggregate:")]
    assert len(zero) == 1 and zero[0].startswith("17 tasks get weight 0: 'Caltech101', 'Camelyon', 'CIFAR-100'")
    assert not any("weight 0" in n for n in beta_binomial(table, n_draws=400, rng=0).notes)


def test_group_weights_note_is_carried_once():
    table = load_example("vtab").select(models=MODELS)
    fit = beta_binomial(table, group_weights={"natural": 1}, n_draws=400, rng=0)
    zero = [n for n in fit.notes if "weight 0" in n and not n.startswith("aggregate:")]
    assert zero == ["2 groups not named in `group_weights` get weight 0 (and so do their tasks): 'specialized',"
                    " 'structured'"]


def test_cli_bayes_lists_the_tasks_that_weigh_0():
    res = CliRunner().invoke(app, ["bayes", "--example", "vtab", "--models", ",".join(MODELS), "--weights",
                                   "DTD=1", "--draws", "400", "--seed", "1"])
    assert res.exit_code == 0, res.output
    # the CLI spells out every task (0 for those not named: "18 tasks get weight 0") or, through the shared
    # aggregate.parse_weights, leaves them out ("18 tasks not named in `--weights` get weight 0")
    text = " ".join(res.stdout.split())
    assert re.search(r"note: 18 tasks (not named in `-?-?weights` )?get weight 0: 'Caltech101', 'Camelyon', 'CIFAR-100'", text)
