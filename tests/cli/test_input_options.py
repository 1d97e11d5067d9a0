"""The shared input options (`cli._common.reads_input` / `InputOptions`) and the one `--weights` rule of compare,
rank and bayes.

Oracles: `load_input` called directly with the same options (the function every command used before the options
were shared), the typer signatures themselves (defaults, option names), and `evalband.aggregate.parse_weights`
with the library's `beta_binomial` called on the weights it returns.
"""

from __future__ import annotations

import dataclasses
import inspect

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from evalband.cli._common import InputOptions, load_input, reads_input
from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()
READING = ["summarize", "passk", "compare", "rank", "bayes", "report", "plan", "gate"]


def _params(command):
    click_command = typer.main.get_command(app).get_command(None, command)
    return {p.name: p for p in click_command.params}


@pytest.mark.parametrize("command", READING)
def test_shared_options_keep_their_names_and_defaults(command):
    params = _params(command)
    fields = {f.name: f for f in dataclasses.fields(InputOptions)}
    shared = [n for n in params if n in fields and not (command == "plan" and n == "models")
              and not (command == "gate" and n == "metric")]
    assert len(shared) >= 8
    for name in shared:
        p = params[name]
        assert p.default == fields[name].default, (command, name)
        if p.param_type_name == "option":
            expected = "--filter" if name == "filter_" else "--" + name.replace("_", "-")
            assert expected in p.opts, (command, name, p.opts)
    assert command == "gate" or params["path"].param_type_name == "argument"


def test_read_is_load_input_and_selection_is_the_library_select(tmp_path):
    from evalband import select

    path = tmp_path / "r.csv"
    path.write_text("who,what,q,s,flag\na,t,1,1,0\na,t,2,0,0\nb,t,1,1,1\nb,t,2,1,1\n")
    opts = InputOptions(path=str(path), model_col="who", task_col="what", item_col="q", score_col="s",
                        models="b", drop_cols="flag")
    table = opts.read()
    want = load_input(str(path), None, model_col="who", task_col="what", item_col="q", score_col="s", models="b",
                      drop_cols="flag")
    assert table.models == want.models == ("a", "b")  # reading selects nothing
    got = opts.selection().table
    assert got.models == select(want, models=["b"]).models == ("b",)
    want = got
    assert got.counts().correct.tolist() == want.counts().correct.tolist() == [[2]]
    assert InputOptions(path=str(path)).changed() == {"path": str(path)}
    assert opts.changed("source", "model_col", "count_rule") == {"model_col": "who"}


def test_reads_input_builds_the_signature_and_passes_inputs(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.csv").write_text("model,task,item,score\n")  # the path is checked before the command runs

    @reads_input("path", after={"own": "models source"})
    def cmd(own: int = 1, *, inputs: InputOptions):
        seen.update(own=own, inputs=inputs)

    # the options that name a column of the input follow (every command that reads results takes them all)
    from evalband.cli._common import COLUMN_INPUT

    assert list(inspect.signature(cmd).parameters) == ["path", "own", "models", "source", *COLUMN_INPUT.split()]
    cmd(path="x.csv", own=2, models="a,b", source="csv")
    assert seen["own"] == 2 and seen["inputs"] == InputOptions(path="x.csv", models="a,b", source="csv")
    with pytest.raises(typer.Exit):  # a path that names nothing: one line, exit 2, the command never runs
        cmd(path="missing.csv", own=3, models=None, source="auto")
    assert seen["own"] == 2
    with pytest.raises(TypeError, match="not an input option"):
        reads_input("nope")(cmd.__wrapped__)
    with pytest.raises(TypeError, match="given twice"):
        reads_input("path path")(cmd.__wrapped__)
    with pytest.raises(TypeError, match="does not have"):
        reads_input(after={"missing": "path"})(cmd.__wrapped__)


# --weights: bayes reads them as compare and rank do -------------------------------------------------------------

THREE = ["--models", "VAE,WAE-GAN,Sup-100%"]


def _bayes(*args):
    return runner.invoke(app, ["bayes", *args, "--draws", "300", "--seed", "1", "--format", "json"])


def _models(res):
    assert res.exit_code == 0, res.output
    frame = pd.DataFrame(jsonout.records(res.stdout))
    return frame.loc[frame["record"] == "model"].set_index("model")["posterior_mean"]


@pytest.mark.parametrize("command", ["compare", "rank", "bayes"])
def test_unknown_weight_names_are_listed_alone(command):
    res = runner.invoke(app, [command, "--example", "vtab", *THREE, "--weights", "natural=1,bogus=2",
                              "--n-resamples" if command != "bayes" else "--draws", "20"])
    assert res.exit_code == 2
    assert "`--weights` names unknown task(s) or group(s) ['bogus']" in res.output
    res = runner.invoke(app, [command, "--example", "vtab", *THREE, "--weights", "natural=1,DTD=2",
                              "--n-resamples" if command != "bayes" else "--draws", "20"])
    assert res.exit_code == 2 and "mixes group names ['natural'] with task names" in res.output


def test_bayes_weights_file_positional_and_names_agree_with_the_library(tmp_path):
    from evalband.aggregate import parse_weights
    from evalband.bayes import beta_binomial
    from evalband import load_example

    table = load_example("vtab").select(models=THREE[1].split(","))
    named = _models(_bayes("--example", "vtab", *THREE, "--weights", "DTD=2,Caltech101=1"))
    wfile = tmp_path / "w.txt"
    wfile.write_text("DTD=2\nCaltech101=1\n")
    from_file = _models(_bayes("--example", "vtab", *THREE, "--weights", f"@{wfile}"))
    order = [2.0 if t == "DTD" else 1.0 if t == "Caltech101" else 0.0 for t in table.tasks]
    positional = _models(_bayes("--example", "vtab", *THREE, "--weights", ",".join(map(str, order))))
    w, gw = parse_weights("DTD=2,Caltech101=1", table.tasks, table.groups)
    lib = beta_binomial(table, n_draws=300, rng=1, weights=w, group_weights=gw).summary().set_index("model")
    pd.testing.assert_series_equal(named, from_file)
    pd.testing.assert_series_equal(named, positional)
    assert named.to_numpy() == pytest.approx(lib.loc[named.index, "posterior_mean"].to_numpy(), rel=1e-12)


def test_bayes_weights_quote_names_holding_commas(tmp_path):
    from evalband.bayes import beta_binomial
    from evalband.io import read

    path = tmp_path / "s.csv"
    rows = [(m, t, acc, 200) for m, accs in (("A", (0.8, 0.4)), ("B", (0.6, 0.5))) for t, acc in
            zip(("x,y", "z"), accs)]
    pd.DataFrame(rows, columns=["model", "task", "accuracy", "n"]).to_csv(path, index=False)
    only_xy = _models(_bayes(str(path), "--weights", '"x,y"=1'))
    equal = _models(_bayes(str(path)))
    lib = beta_binomial(read(str(path)), n_draws=300, rng=1, weights={"x,y": 1.0}).summary().set_index("model")
    assert only_xy.to_numpy() == pytest.approx(lib.loc[only_xy.index, "posterior_mean"].to_numpy(), rel=1e-12)
    assert only_xy["A"] > equal["A"] + 0.1  # task 'x,y' (0.8) alone, not the mean with 'z' (0.4)
    res = runner.invoke(app, ["bayes", str(path), "--weights", '"x,y"=1', "--draws", "300", "--seed", "1"])
    assert "note: 1 task not named in `--weights` gets weight 0: 'z'" in " ".join(res.stdout.split())


@pytest.mark.parametrize("option", [["--shape", "wide"], ["--score-col", "acc"], ["--cluster", "none"],
                                    ["--unbounded"], ["--source", "csv"], ["--drop-cols", "x"]])
def test_options_of_a_results_file_are_refused_with_an_example(option):
    """QA round 4: `--shape wide` was silently ignored with --example. One rule: every option of reading a
    results file, when given with --example, is a one-line error naming it."""
    res = CliRunner().invoke(app, ["summarize", "--example", "vtab", *option])
    assert res.exit_code == 2 and f"{option[0]} applies to a results file, not to --example" in res.output
