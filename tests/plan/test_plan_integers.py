"""Counts in a plan are whole numbers: items and clusters required are rounded up and typed int (QA O14)."""

import math

from scipy import stats
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband.plan import plan_comparison
import jsonout  # noqa: E402


def test_normal_method_items_are_the_rounded_up_textbook_formula():
    # theory: n = (z_{1-a/2} + z_{power})^2 var / effect^2 = 490.55 for var 0.1, effect 0.04 -> 491 items
    z = stats.norm.isf(0.025) + stats.norm.isf(0.2)
    expected = math.ceil(z ** 2 * 0.1 / 0.04 ** 2)
    plan = plan_comparison(effect=0.04, variance_difference=0.1, method="normal")
    assert plan.n_required == expected == 491
    assert type(plan.n_required) is int


def test_clusters_required_is_a_whole_number_of_clusters():
    plan = plan_comparison(effect=0.04, baseline=0.74, correlation=0.5, cluster_size=10, icc=0.1)
    assert type(plan.clusters_required) is int
    assert type(plan.n_required_recommended_trials) is int
    # the smallest whole number of clusters of 10 holding the required items
    assert (plan.clusters_required - 1) * 10 < plan.n_required <= plan.clusters_required * 10
    assert plan.to_dict()["clusters_required"] == plan.clusters_required


def test_unclustered_plan_has_null_clusters_in_json():
    plan = plan_comparison(effect=0.04, baseline=0.74, correlation=0.5, cluster_size=10, icc=0.1)
    unclustered = plan_comparison(effect=0.04, baseline=0.74, correlation=0.5)
    assert math.isnan(unclustered.clusters_required)
    assert unclustered.to_dict()["clusters_required"] is None and plan.to_dict()["n_required"] > 0


def test_cli_json_counts_are_integers():
    out = CliRunner().invoke(app, ["plan", "--baseline", "0.74", "--effect", "0.04", "--correlation", "0.5",
                                   "--cluster-size", "10", "--icc", "0.1", "-f", "json"])
    assert out.exit_code == 0, out.output
    d = jsonout.records(out.stdout)
    assert isinstance(d["n_required"], int) and isinstance(d["clusters_required"], int)
    assert d["clusters_required"] == 172  # 1,719 items in clusters of 10 (was 171.9)
    assert '"n_required": %d,' % d["n_required"] in out.stdout  # written without '.0'
