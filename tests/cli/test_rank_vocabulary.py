"""`rank --test ...` speaks the one vocabulary: bayes-signed-rank's decisions are the four verdict words in the
frame, the JSON and the tables; the frequentist tests' decision column is `significant` (the JSON keeps the old
`reject` of wilcoxon/sign/rm-anova as an alias, so scripts reading it keep working)."""

import json

import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband.comparison.verdict import VERDICTS

runner = CliRunner()
MODELS = "Sup-Rotation-100%,Sup-Exemplar-100%,VAE,WAE-MMD"


def rank(*args):
    res = runner.invoke(app, ["rank", "--example", "vtab", "--models", MODELS, *args])
    assert res.exit_code == 0, res.output
    return res


def test_bayes_signed_rank_uses_the_verdict_words():
    out = json.loads(rank("--test", "bayes-signed-rank", "--rope", "0.01", "--seed", "1", "-f", "json").stdout)
    words = {r["decision"] for r in out["records"]}
    assert words <= set(VERDICTS) and words & {"A better", "B better"}, words
    table = rank("--test", "bayes-signed-rank", "--rope", "0.01", "--seed", "1", "--wide").stdout
    assert "a better" not in table and "undecided" not in table
    assert any(w in table for w in VERDICTS)
    assert "P(A better)" in table  # the probabilities stay, under the one spelling of every table


@pytest.mark.parametrize("test", ["friedman", "wilcoxon", "sign", "rm-anova"])
def test_one_decision_column_name(test):
    out = json.loads(rank("--test", test, "-f", "json").stdout)
    rows = out["records"]
    assert all(isinstance(r["significant"], bool) for r in rows)
    if test != "friedman":  # alias of the JSON field these tests had before
        assert all(r["reject"] == r["significant"] for r in rows)
    assert "significant" in rank("--test", test, "-f", "csv").stdout.splitlines()[0].split(",")
