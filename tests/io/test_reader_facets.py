"""`facets` works, or is refused in words, for every reader (QA: `variance LOGS --facets trial` on inspect logs
said "the inspect reader got an unexpected option `facets`")."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from evalband._validate import ArgumentError
from evalband.cli.main import app
from evalband.io import read

from ..conftest import FIXTURES
import jsonout  # noqa: E402

LOGS = FIXTURES / "harness_logs"
EVAL = LOGS / "inspect_eval"
runner = CliRunner()


def test_inspect_metadata_fields_are_facets():
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    table = read(EVAL, facets=["metadata.passage"])
    assert table.facets == ("passage",)
    clustered = read(EVAL, cluster_col="metadata.passage")  # the same field read as clusters: the same labels
    np.testing.assert_array_equal(table.data["passage"].astype(str).to_numpy(),
                                  clustered.data["cluster"].astype(str).to_numpy())
    assert read(EVAL, facets=[]).facets == () == read(EVAL, facets=["epoch"]).facets  # epochs are trials


@pytest.mark.parametrize("folder, name", [("lm_eval", "lm-eval"), ("helm", "HELM")])
def test_logs_without_label_fields_refuse_facets_in_words(folder, name):
    with pytest.raises(ArgumentError, match=rf"`facets` names label columns of a results table; {name} logs have"
                                            " none"):
        read(LOGS / folder, facets=["prompt"])
    assert read(LOGS / folder, facets=[]).facets == ()


def test_cli_variance_on_inspect_logs():
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    trial = runner.invoke(app, ["variance", str(EVAL), "--facets", "trial"])
    assert trial.exit_code == 2 and "unexpected option" not in trial.stderr
    assert "`--facets`" in trial.stderr and "`evalband summarize`" in trial.stderr  # CLI words, not the API's
    res = runner.invoke(app, ["variance", str(EVAL), "--facets", "passage", "--seed", "1", "-f", "json"])
    assert res.exit_code == 0, res.output
    out = jsonout.records(res.stdout)
    assert "passage" in json.dumps(out)
