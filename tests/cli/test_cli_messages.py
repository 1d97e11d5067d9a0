"""Command-line messages name the options the user typed, not the library's arguments (QA O15)."""

from notes import flat, notes_of  # noqa: F401
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app

PERCENT_ONE_LOW = "model,task,n,accuracy\nA,t1,200,68\nA,t2,200,55\nB,t1,200,0.5\nB,t2,200,1.0\n"
PERCENT = "model,task,n,accuracy\nA,t1,200,68\nA,t2,200,55\nB,t1,200,40\nB,t2,200,31\n"


def _err(args):
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 2, out.output
    return out.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("args, says, not_says", [
    (["compare", "--example", "vtab", "--aggregate", "bogus"], "`--aggregate` must be one of", "`name`"),
    (["rank", "--example", "vtab", "--aggregate", "bogus"], "`--aggregate` must be one of", "`name`"),
    (["compare", "--example", "vtab", "--interval", "bogus"], "`--interval` must be one of", "`method`"),
    (["rank", "--example", "vtab", "--interval", "bogus"], "`--interval` must be one of", "`method`"),
    (["summarize", "--example", "vtab", "--method", "bogus"], "`--method` must be one of", "`method`"),
    (["compare", "--example", "vtab", "--seed", "-1"], "`--seed` must be a non-negative integer", "rng"),
    (["bayes", "--example", "vtab", "--seed", "-1"], "`--seed` must be a non-negative integer", "rng"),
    (["compare", "--example", "vtab", "--n-resamples", "0"], "`--n-resamples`", "n_resamples"),
    (["compare", "--example", "vtab", "--resampling", "paired"], "--resampling independent", "resampling="),
    (["compare", "--example", "vtab", "--aggregate", "binned-rank"], "--aggregate binned-rank:0.01", "bin_width"),
    (["rank", "--example", "vtab", "--aggregate", "chance-normalized"], "--aggregate chance-normalized:0.25",
     "`chance`"),
])
def test_errors_name_cli_options(args, says, not_says):
    line = _err(args)
    assert says in line and not_says not in line


def test_accuracy_scale_option(tmp_path):
    low = tmp_path / "low.csv"
    low.write_text(PERCENT_ONE_LOW)
    # auto refuses the file (model B scores at most 1% everywhere: it looks like fractions)
    assert "mixes fractions and percent" in _err(["summarize", str(low)])
    out = CliRunner().invoke(app, ["summarize", str(low), "--accuracy-scale", "percent", "-f", "csv"])
    assert out.exit_code == 0, out.output
    row = next(r for r in out.stdout.splitlines() if r.startswith("B,t2,"))
    assert float(row.split(",")[2]) == pytest.approx(0.01)  # 1.0 percent of 200 items: 2 correct
    assert "`--accuracy-scale` must be" in _err(["summarize", str(low), "--accuracy-scale", "bogus"])


def test_percent_note_names_the_option(tmp_path):
    path = tmp_path / "pct.csv"
    path.write_text(PERCENT)
    out = CliRunner().invoke(app, ["summarize", str(path), "-f", "csv"])
    assert out.exit_code == 0, out.output
    assert "give --accuracy-scale fraction or percent to override" in flat(out.stderr)
    assert "accuracy_scale=" not in out.stderr


def test_error_text_names_the_commands_own_options():
    from evalband._validate import ArgumentError, InputError
    from evalband._words import words
    from evalband.cli._common import error_text

    assert error_text(ArgumentError("no column 'x'; found 'a', 'b'")) == "no column 'x'; found 'a', 'b'"
    message = words("`{arg:method}` must be one of 'a'")
    assert error_text(ArgumentError(message), {"method": "--interval"}) == "`--interval` must be one of 'a'"
    # the file, row and column of an input error are printed as written, the problem in the command's words
    exc = InputError(words("give `{arg:rng}`"), source="rng=1.csv", row=3, column="method=joint")
    assert error_text(exc) == "rng=1.csv, row 3, column 'method=joint': give `--seed`"


def test_an_input_error_from_a_worker_keeps_its_words():
    """An InputError pickled (raised on a Dask worker) keeps its file, row and column and its problem as words,
    so the command line still says the option, not the keyword."""
    import pickle

    from evalband._validate import InputError
    from evalband._words import words
    from evalband.cli._common import error_text

    exc = pickle.loads(pickle.dumps(InputError(words("give `{arg:rng}`"), source="s.csv", row=4, column="score")))
    assert str(exc) == "s.csv, row 4, column 'score': give `rng`"
    assert error_text(exc) == "s.csv, row 4, column 'score': give `--seed`"
