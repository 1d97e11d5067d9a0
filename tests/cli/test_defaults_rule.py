"""One rule for seeds and replicate counts in every command, said in --help (issue 22: commands drew a random seed
while the report used 0; 10,000 replicates in compare and rank, 2,000 in report, frontier and variance, 1,000 in
arena). The rule (evalband._defaults): seed 0 by default everywhere; 10,000 replicates where each re-averages the
scores, 2,000 where each refits a model. With the defaults, the report's numbers are the commands' numbers."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import evalband as eb
from evalband._defaults import AVERAGES, REFITS, RESAMPLES_HELP, SEED
from evalband.cli.main import app, command_functions
from notes import flat
import jsonout  # noqa: E402

FACETS = "tests/fixtures/facets/prompts_trials.csv"


def _help(command):
    return flat(CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "250"}).stdout)


@pytest.mark.parametrize("command", sorted(command_functions()))
def test_help_states_the_one_rule(command):
    params = inspect.signature(command_functions()[command]).parameters
    text = _help(command)
    if "seed" in params:
        assert "default 0" in text, command
        assert params["seed"].default in (None, SEED)
    if "n_resamples" in params:
        assert re.sub(r"\s", "", RESAMPLES_HELP) in re.sub(r"\s", "", text), command  # (help wraps at hyphens)
        assert params["n_resamples"].default is None  # resolved by the kind of work, never a number of its own


def _replicates(text):
    return int(re.search(r"seed 0, ([\d,]+) (?:bootstrap )?(?:replicates|pivotal draws)", flat(text)).group(1)
               .replace(",", ""))


@pytest.mark.parametrize("args, count", [
    (["compare", "--example", "vtab", "--models", "VAE,WAE-GAN"], AVERAGES),
    (["rank", "--example", "vtab", "--models", "VAE,WAE-GAN,Sup-100%"], AVERAGES),
    (["frontier", "tests/fixtures/frontier/contract.csv"], AVERAGES),
    (["variance", FACETS], REFITS),
    (["agreement", "tests/fixtures/krippendorff_codings/codings_long.csv"], REFITS),
])
def test_default_counts_follow_the_kind_of_work(args, count):
    out = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    assert _replicates(out.output) == count


def test_arena_refits_at_the_refit_count(tmp_path):
    rng = np.random.default_rng(0)
    rows = [(a, b, ["model_a", "model_b", "tie"][rng.integers(3)], f"q{q}")
            for q in range(30) for a, b in (("x", "y"), ("y", "z"), ("x", "z"))]
    path = tmp_path / "b.csv"
    pd.DataFrame(rows, columns=["model_a", "model_b", "winner", "question_id"]).to_csv(path, index=False)
    out = CliRunner().invoke(app, ["arena", str(path)])
    assert out.exit_code == 0, out.output
    assert _replicates(out.output) == REFITS
    assert eb.arena(str(path), rng=0).n_resamples == REFITS


def test_the_report_agrees_with_the_commands():
    analysis = eb.analyze("example:vtab", rng=0, bayes=False)
    assert analysis.n_resamples == AVERAGES and analysis.seed == SEED
    out = CliRunner().invoke(app, ["compare", "--example", "vtab", "-f", "json"])
    cli = pd.DataFrame(jsonout.records(out.stdout))
    mine = analysis.comparison.to_frame().merge(cli, on=["model_a", "model_b"], suffixes=("", "_cli"))
    assert len(mine) == 120
    for column in ("difference", "ci_low", "ci_high", "p_value"):
        np.testing.assert_array_equal(mine[column], mine[f"{column}_cli"])
    assert (mine["verdict"] == mine["verdict_cli"]).all()


def test_the_reports_variance_section_is_the_variance_command():
    from evalband.facets import facet_summary

    analysis = eb.analyze(FACETS, rng=0, bayes=False)
    section = dict(analysis.extras)["variance"]
    assert section.components.n_resamples == REFITS  # refits, as `evalband variance`, not the report's 10,000
    command = facet_summary(eb.select(FACETS), fixed=(), n_resamples=REFITS, rng=0)  # what the command calls
    pd.testing.assert_frame_equal(section.to_frame(), command.to_frame())
    out = CliRunner().invoke(app, ["variance", FACETS, "-f", "json"])
    assert out.exit_code == 0 and "seed 0, 2,000 pivotal draws" in flat(out.stderr)
