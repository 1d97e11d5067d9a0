"""Keywords renamed by issue 23 (one name per concept), each old keyword kept one release: it warns
(DeprecationWarning, through ``_validate.renamed``) and gives the same result as the new one."""

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband._validate import ArgumentError, renamed

BATTLES = pd.DataFrame({"model_a": ["x", "y", "x", "z", "y", "z"] * 5,
                        "model_b": ["y", "z", "z", "x", "x", "y"] * 5,
                        "winner": ["model_a", "model_a", "model_a", "model_b", "tie", "model_b"] * 5})


def _same(a, b):
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())


def test_renamed_warns_and_refuses_both_spellings():
    with pytest.warns(DeprecationWarning, match=r"`f\(old=\)` is deprecated.*use `new=`"):
        assert renamed({"old": 2}, old="old", new="new", function="f", value=1, default=1) == 2
    assert renamed({}, old="old", new="new", function="f", value=1, default=1) == 1
    with pytest.raises(ArgumentError, match="give only `new`"):
        renamed({"old": 2}, old="old", new="new", function="f", value=3, default=1)


@pytest.mark.parametrize("model", ["bt", "win-rate"])
def test_arena_method_as_the_rating_model(model):
    new = eb.arena(BATTLES, model=model, n_resamples=50, rng=1)
    with pytest.warns(DeprecationWarning, match="names the rating model"):
        old = eb.arena(BATTLES, method=model, n_resamples=50, rng=1)
    _same(new, old)
    assert old.method == model


def test_arena_interval_is_method():
    new = eb.arena(BATTLES, method="bca", n_resamples=50, rng=1)
    with pytest.warns(DeprecationWarning, match=r"`arena\(interval=\)`"):
        old = eb.arena(BATTLES, interval="bca", n_resamples=50, rng=1)
    _same(new, old)
    assert old.interval == "bca"
    with pytest.raises(ArgumentError):
        eb.arena(BATTLES, model="elo", method="bt")


def test_pairwise_differences_scope():
    from evalband.comparison import pairwise_differences

    rng = np.random.default_rng(0)
    samples = np.array([0.70, 0.60, 0.65]) + rng.normal(0, 0.01, size=(500, 3))
    new = pairwise_differences([0.70, 0.60, 0.65], samples, ["a", "b", "c"], scope="task")
    with pytest.warns(DeprecationWarning, match="use `scope=`"):
        old = pairwise_differences([0.70, 0.60, 0.65], samples, ["a", "b", "c"], level="task")
    pd.testing.assert_frame_equal(new.to_frame(), old.to_frame())
    assert old.level == "task"


def _ratings():
    return pd.DataFrame({"unit": np.repeat(np.arange(12), 3), "rater": ["r1", "r2", "r3"] * 12,
                         "value": [1, 1, 2, 2, 2, 2, 1, 2, 1, 3, 3, 3, 1, 1, 1, 2, 3, 2] * 2})


def test_judges_measurement():
    from evalband import judges
    from evalband.io.ratings import read_ratings

    new = judges.agreement(_ratings(), measurement="ordinal", n_resamples=30, rng=0)
    with pytest.warns(DeprecationWarning, match=r"`agreement\(level=\)`"):
        old = judges.agreement(_ratings(), level="ordinal", n_resamples=30, rng=0)
    _same(new, old)
    new = judges.judge_reference(_ratings(), reference="r1", measurement="nominal", n_resamples=30, rng=0)
    with pytest.warns(DeprecationWarning, match=r"`judge_reference\(level=\)`"):
        old = judges.judge_reference(_ratings(), reference="r1", level="nominal", n_resamples=30, rng=0)
    pd.testing.assert_frame_equal(new.statistics, old.statistics)
    with pytest.warns(DeprecationWarning, match=r"`read_ratings\(level=\)`"):
        assert read_ratings(_ratings(), level="interval").level == "interval"


def test_power_confidence_level():
    from evalband.plan import plan_comparison
    from evalband.plan.power import power_of_test, solve_power

    with pytest.warns(DeprecationWarning, match=r"`power_of_test\(alpha=\)`"):
        assert power_of_test(0.2, 0.1, alpha=0.01, df=30) == power_of_test(0.2, 0.1, confidence_level=0.99, df=30)
    with pytest.warns(DeprecationWarning, match=r"`solve_power\(alpha=\)`"):
        old = solve_power(effect=0.05, power=0.8, variance=0.3, alpha=0.1)
    assert old == solve_power(effect=0.05, power=0.8, variance=0.3, confidence_level=0.9)
    new = plan_comparison(effect=0.04, baseline=0.7, correlation=0.5, confidence_level=0.9)
    with pytest.warns(DeprecationWarning, match=r"`plan_comparison\(alpha=\)`"):
        old = plan_comparison(effect=0.04, baseline=0.7, correlation=0.5, alpha=0.1)
    assert new.to_dict() == old.to_dict()
    # before 0.2 confidence_level beside alpha was the interval's level: kept for the release
    with pytest.warns(DeprecationWarning):
        both = plan_comparison(effect=0.04, baseline=0.7, correlation=0.5, n=500, alpha=0.05, confidence_level=0.9)
    assert both.to_dict() == plan_comparison(effect=0.04, baseline=0.7, correlation=0.5, n=500,
                                             interval_level=0.9).to_dict()


def test_analyze_takes_any_rng():
    seeded = eb.analyze("example:vtab", n_resamples=100, rng=7, bayes=False)
    assert seeded.seed == 7  # an integer is the seed itself: reports are unchanged
    a = eb.analyze("example:vtab", n_resamples=100, rng=np.random.default_rng(3), bayes=False)
    b = eb.analyze("example:vtab", n_resamples=100, rng=np.random.SeedSequence(3), bayes=False)
    assert a.seed == b.seed == int(np.random.default_rng(3).integers(0, 2**32))
    with pytest.raises(TypeError):
        eb.analyze("example:vtab", rng="seven")


def test_capability_adapters_take_rng(monkeypatch):
    from evalband.analysis import extensions

    seen = {}

    def new(selection, *, aggregate, n_resamples, confidence_level, rng, replicates):
        seen["new"] = rng

    def old(selection, *, aggregate, n_resamples, confidence_level, seed, replicates):
        seen["old"] = seed

    sel = eb.select("example:vtab")
    registry = {"new": ("New", new), "old": ("Old", old)}
    with pytest.warns(DeprecationWarning, match="takes `seed=`"):
        extensions.run_extensions(sel, aggregate="mean", n_resamples=10, confidence_level=0.95, rng=5,
                                  registry=registry)
    assert seen == {"new": 5, "old": 5}
    with pytest.warns(DeprecationWarning, match=r"`run_extensions\(seed=\)`"):
        extensions.run_extensions(sel, aggregate="mean", n_resamples=10, confidence_level=0.95, seed=6,
                                  registry={"new": ("New", new)})
    assert seen["new"] == 6


def test_cli_arena_method_still_names_the_model():
    from typer.testing import CliRunner

    from evalband.cli.main import app

    path = "tests/fixtures/llmfao/crowd-comparisons.csv"
    runs = [CliRunner().invoke(app, ["arena", path, option, "elo", "--n-resamples", "20", "--seed", "1", "-f",
                                     "json"]) for option in ("--model", "--method")]
    assert runs[0].exit_code == runs[1].exit_code == 0
    assert runs[0].stdout == runs[1].stdout
