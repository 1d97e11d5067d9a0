"""One rule for clustered items (issue 14): no decided difference or ranking from fewer than 2 clusters in a task.
compare, rank and the report refuse alike with one line naming the file and the task; items treated as
independent (cluster=False, --cluster none) or the task left out pass."""

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import evalband as eb
from evalband._validate import InputError
from evalband.cli.main import app


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    rng = np.random.default_rng(0)
    rows = [dict(model=m, task=t, item=f"{t}-{i}", cluster="only" if t == "t1" else f"c{i % 5}",
                 score=int(rng.random() < 0.4 + 0.1 * k))
            for k, m in enumerate("abc") for t in ("t1", "t2") for i in range(40)]
    p = tmp_path_factory.mktemp("clusters") / "one_cluster.csv"
    pd.DataFrame(rows).to_csv(p, index=False)
    return str(p)


@pytest.mark.parametrize("call", [lambda p: eb.compare(p, n_resamples=200, rng=0),
                                  lambda p: eb.rank(p, n_resamples=200, rng=0),
                                  lambda p: eb.analyze(p, n_resamples=200, rng=0, bayes=False)])
def test_every_comparison_refuses_one_cluster_naming_file_and_task(path, call):
    with pytest.raises(InputError, match=r"one_cluster\.csv.*task 't1' has all its items in one cluster"):
        call(path)


def test_items_as_independent_or_the_task_left_out_pass(path):
    r = eb.rank(path, n_resamples=200, rng=0, cluster=False).rankings[0]
    assert np.all(np.asarray(r.ci.high) > np.asarray(r.ci.low))  # intervals with a width, no P(best) = 1 by fiat
    c = eb.compare(path, n_resamples=200, rng=0, tasks=["t2"])
    assert c.selection.tasks == ("t2",)


def test_cli_says_how_and_accepts_cluster_none(path):
    runner = CliRunner()
    res = runner.invoke(app, ["rank", path, "--seed", "0", "--n-resamples", "200"])
    assert res.exit_code == 2
    line = res.stderr.strip()
    assert "\n" not in line and "one_cluster.csv" in line and "'t1'" in line and "`--cluster none`" in line
    ok = runner.invoke(app, ["rank", path, "--seed", "0", "--n-resamples", "200", "--cluster", "none"])
    assert ok.exit_code == 0, ok.output
    assert "column not used: cluster" in ok.output
