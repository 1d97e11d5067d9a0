"""Sharded battles counted on a Dask cluster (issue 26, item 5): the same counts, the same bytes, the same checks.

The reference is the single-machine path on the same battles written as one file (the column-layout battle reader
reads one file); the distributed path counts the shards per (question, ordered pair of models, outcome, weight) on
the workers, merges the counts in a tree, and ``arena`` fits and resamples questions from the counts. Its JSON
must be byte-identical for the same seed, on clusters of 1 and 2 worker processes, with uneven shards (Parquet
and CSV) and rows shuffled across them.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
fsspec = pytest.importorskip("fsspec")

from typer.testing import CliRunner  # noqa: E402

from evalband._validate import ArgumentError, InputError  # noqa: E402
from evalband.cli.main import app  # noqa: E402
from evalband.data.battle_counts import BattleCounts  # noqa: E402
from evalband.io import read  # noqa: E402
from evalband.io.battles import read_battles  # noqa: E402
from evalband.io.distributed_battles import read_battles_distributed  # noqa: E402
from evalband.preferences import arena  # noqa: E402
import jsonout

runner = CliRunner()
MODELS = np.array(["base", "m1", "m10", "m2", "m3"])


def _battles(seed=1, n=2400, fractional=False):
    """Battles on 150 questions (several per question), some repeated verbatim, rows shuffled."""
    gen = np.random.default_rng(seed)
    a = gen.integers(0, 5, n)
    b = (a + gen.integers(1, 5, n)) % 5
    skill = np.array([0.0, 0.3, 0.1, -0.2, 0.5])
    p = 1 / (1 + np.exp(-(skill[a] - skill[b])))
    u = gen.random(n)
    winner = np.where(u < 0.12, "tie", np.where(u < 0.12 + 0.88 * p, "model_a", "model_b")).astype(object)
    winner[gen.random(n) < 0.04] = "tie (bothbad)"
    frame = {"model_a": MODELS[a], "model_b": MODELS[b], "winner": winner,
             "question_id": [f"q{k}" for k in gen.integers(0, 150, n)]}
    if fractional:  # weighted preferences (AlpacaEval) and weights: sums that are not exact in floating point
        frame["winner"] = np.round(gen.uniform(0, 1, n), 3)
        frame["weight"] = gen.choice([1.0, 0.7, 3.0], n)
    df = pd.DataFrame(frame)
    return pd.concat([df, df.iloc[:300]], ignore_index=True).sample(frac=1, random_state=seed).reset_index(drop=True)


def _write(df, folder, cuts, kinds=("parquet", "csv")):
    """Uneven shards: rows ``cuts[k]:cuts[k+1]`` in shard k, alternating Parquet and CSV."""
    os.makedirs(folder, exist_ok=True)
    bounds = [0, *cuts, len(df)]
    for k in range(len(bounds) - 1):
        part = df.iloc[bounds[k]:bounds[k + 1]]
        kind = kinds[k % len(kinds)]
        path = os.path.join(folder, f"shard{k:02d}.{kind}")
        part.to_parquet(path, index=False) if kind == "parquet" else part.to_csv(path, index=False)
    return folder


#: the arena runs compared: the default Bradley-Terry, a tie model, ties left out, win rates against a baseline
#: (AlpacaEval's standard error beside the bootstrap's), average win rates and the pairs
RUNS = {"bt": [], "davidson": ["--model", "davidson"], "drop": ["--ties", "drop", "--models", "base,m1,m2,m3"],
        "win-rate": ["--model", "win-rate", "--baseline", "base"], "average": ["--model", "win-rate"],
        "pairs": ["--pairs"]}
FRACTIONAL_RUNS = {"bt": [], "win-rate": ["--model", "win-rate", "--baseline", "base"]}


def _arena(path, extra, scheduler=None):
    args = ["arena", path, "--n-resamples", "200", "--seed", "3", "--format", "json", *extra]
    out = runner.invoke(app, args + (["--scheduler", scheduler] if scheduler else []))
    assert out.exit_code == 0, out.output
    assert jsonout.records(out.stdout)  # the records are JSON (beside the notes as records)
    return out.stdout


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Whole-file references and shard folders: win/tie/loss battles and fractional, weighted ones."""
    root = tmp_path_factory.mktemp("battles")
    out = {}
    for name, df, runs in (("plain", _battles(), RUNS), ("fractional", _battles(seed=2, fractional=True),
                                                          FRACTIONAL_RUNS)):
        whole = str(root / f"{name}.csv")
        df.to_csv(whole, index=False)
        folder = _write(df, str(root / name), [5, 1100, 1101, 1900])
        out[name] = (folder, {k: _arena(whole, v) for k, v in runs.items()}, runs)
    return out


@pytest.fixture(scope="module")
def threads_cluster():
    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield cluster, client


@pytest.mark.parametrize("workers", [1, 2])
def test_arena_json_byte_identical_on_worker_processes(data, workers):
    with distributed.LocalCluster(n_workers=workers, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        for folder, expected, runs in data.values():
            for name, extra in runs.items():
                assert _arena(folder, extra, cluster.scheduler_address) == expected[name], name


def test_counts_equal_the_single_file_counts(data, threads_cluster):
    """The reduced counts are those BattleTable.counted() gives for the file read whole: every array equal."""
    _, client = threads_cluster
    folder = data["fractional"][0]
    whole = read_battles(os.path.join(os.path.dirname(folder), "fractional.csv")).counted()
    counts = read_battles_distributed(folder, client=client)
    assert isinstance(counts, BattleCounts) and counts.n_rows < counts.n_battles == whole.n_battles
    assert counts.models == whole.models and counts.notes == whole.notes
    for field in ("model_a", "model_b", "outcome", "weight", "count"):
        np.testing.assert_array_equal(getattr(counts, field), getattr(whole, field))
    np.testing.assert_array_equal(counts.labels["question"], whole.labels["question"])
    np.testing.assert_array_equal(counts.label_names["question"], whole.label_names["question"])


def test_memory_filesystem_and_python_api(data, threads_cluster):
    """A memory:// folder through arena(..., executor=...) and the CLI: the same leaderboard."""
    from evalband.resample.distributed import DaskExecutor

    folder, expected, _ = data["plain"]
    fs = fsspec.filesystem("memory")
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as src, fs.open(f"/battles26/{name}", "wb") as dst:
            dst.write(src.read())
    cluster, client = threads_cluster
    assert _arena("memory://battles26", [], cluster.scheduler_address) == expected["bt"]
    whole = arena(os.path.join(os.path.dirname(folder), "plain.csv"), n_resamples=200, rng=3)
    dist = arena("memory://battles26/*.parquet", n_resamples=200, rng=3, executor=DaskExecutor(client))
    assert dist.n_battles < whole.n_battles  # the Parquet shards alone
    assert read("memory://battles26", client=client, source="battles").n_battles == whole.n_battles


# ------------------------------------------------------------------------------------------ the same checks
def _errors(tmp_path, client, edit, kinds=("csv",)):
    df = edit(_battles(seed=4, n=600))
    whole = str(tmp_path / "whole.csv")
    df.to_csv(whole, index=False)
    folder = _write(df, str(tmp_path / "shards"), [200, 400], kinds=kinds)
    with pytest.raises(InputError) as single:
        read_battles(whole)
    with pytest.raises(InputError) as dist:
        read_battles_distributed(folder, client=client)
    return str(single.value), str(dist.value)


@pytest.mark.parametrize("kinds, where", [(("csv",), "line 52"), (("parquet",), "row 51")])
def test_errors_name_the_shard_and_row(tmp_path, threads_cluster, kinds, where):
    """A winner that is no outcome in the second shard: the same problem, naming that shard and its line (CSV,
    the header is line 1) or row (Parquet)."""
    _, client = threads_cluster

    def edit(df):
        df = df.copy()
        df.loc[250, "winner"] = "model_c"
        return df

    single, dist = _errors(tmp_path, client, edit, kinds)
    assert "winner 'model_c' is none of" in single and "winner 'model_c' is none of" in dist
    assert f"shard01.{kinds[0]}" in dist and where in dist and "winner" in dist


def test_self_battle_and_blank_name_name_the_shard(tmp_path, threads_cluster):
    _, client = threads_cluster

    def edit(df):
        df = df.copy()
        df.loc[450, "model_b"] = df.loc[450, "model_a"]
        return df

    single, dist = _errors(tmp_path, client, edit)
    assert "self-battle" in single and "self-battle" in dist and "shard02.csv" in dist and "line 52" in dist


def test_shards_with_different_columns_are_refused(tmp_path, threads_cluster):
    _, client = threads_cluster
    df = _battles(seed=5, n=300)
    folder = _write(df, str(tmp_path / "s"), [100], kinds=("csv",))
    pd.read_csv(os.path.join(folder, "shard01.csv")).drop(columns="question_id").to_csv(
        os.path.join(folder, "shard01.csv"), index=False)
    with pytest.raises(InputError, match="shards differ in their columns.*question.*shard00.csv"):
        read_battles_distributed(folder, client=client)


def test_shard_without_battles_is_noted(tmp_path, threads_cluster):
    _, client = threads_cluster
    folder = _write(_battles(seed=6, n=300), str(tmp_path / "s"), [100], kinds=("csv",))
    pd.DataFrame(columns=["model_a", "model_b", "winner", "question_id"]).to_csv(
        os.path.join(folder, "shard09.csv"), index=False)
    counts = read_battles_distributed(folder, client=client)
    assert counts.notes[0] == "file without battles left out: 1 header only (shard09.csv)"


@pytest.mark.parametrize("extra, needs", [(["--model", "elo"], "online Elo"), (["--cluster", "none"], "independent")])
def test_fits_that_need_single_battles_are_refused(data, threads_cluster, extra, needs):
    cluster, _ = threads_cluster
    out = runner.invoke(app, ["arena", data["plain"][0], "--n-resamples", "50", *extra, "--scheduler",
                              cluster.scheduler_address])
    assert out.exit_code == 2
    assert needs in out.output and "without --scheduler" in out.output


def test_options_of_other_formats_are_refused(threads_cluster, data):
    _, client = threads_cluster
    with pytest.raises(ArgumentError, match="only battles in a column layout"):
        read_battles_distributed(data["plain"][0], client=client, source="arena-hard")


@pytest.mark.parametrize("options, needs", [(dict(style="length"), "style control"),
                                            (dict(model="win-rate", baseline="base", length_control=True),
                                             "length control")])
def test_counted_battles_have_no_per_battle_features(data, options, needs):
    counts = read_battles(os.path.join(os.path.dirname(data["plain"][0]), "plain.csv")).counted()
    with pytest.raises(ArgumentError, match=needs):
        arena(counts, n_resamples=50, **options)
