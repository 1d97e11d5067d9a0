"""Sharded results read and reduced on a Dask cluster (issue 26): the same table, the same bytes, the same checks.

The reference is the single-machine reader on the same shards (a glob read as one table); the distributed reader
builds its table from per-cell sums reduced on the workers. compare, rank and summarize must print byte-identical
JSON for the same seed, on clusters of 1, 2 and 4 workers, with uneven shards and rows shuffled across them.
"""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
fsspec = pytest.importorskip("fsspec")

from typer.testing import CliRunner  # noqa: E402

from evalband._validate import ArgumentError, InputError  # noqa: E402
from evalband.cli.main import app  # noqa: E402
from evalband.io import read  # noqa: E402
from evalband.io.distributed_read import list_shards, read_distributed  # noqa: E402

runner = CliRunner()


def _rows(seed=1, trials=1, facets=False):
    gen = np.random.default_rng(seed)
    parts = []
    for t, n in (("t1", 30), ("t10", 12), ("t2", 45)):
        p = gen.uniform(0.2, 0.9, size=n)
        for m in ("m1", "m10", "m2", "m3"):
            for k in range(trials):
                hit = gen.random(n) < p
                frame = {"model": m, "task": t, "item": [f"q{i}" for i in range(n)], "score": hit.astype(int),
                         "cluster": [f"c{i // 5}" for i in range(n)], "group": "g" + t[-1]}
                if trials > 1:
                    frame["trial"] = k + 1
                parts.append(pd.DataFrame(frame))
    df = pd.concat(parts, ignore_index=True)
    if facets:
        df = pd.concat([df.assign(prompt="p1"), df.assign(prompt="p2", score=1 - df["score"])], ignore_index=True)
    drop = df.index[(df["model"] == "m3") & (df["task"] == "t2") & (df["item"].isin(["q3", "q4"]))]
    return df.drop(index=drop).sample(frac=1, random_state=seed).reset_index(drop=True)  # rows shuffled


def _write(df, folder, cuts, kinds=("parquet", "csv")):
    """Uneven shards: rows ``cuts[k]:cuts[k+1]`` in shard k, alternating Parquet and CSV."""
    os.makedirs(folder, exist_ok=True)
    bounds = [0, *cuts, len(df)]
    for k in range(len(bounds) - 1):
        part = df.iloc[bounds[k]:bounds[k + 1]]
        kind = kinds[k % len(kinds)]
        path = os.path.join(folder, f"shard{k:02d}.{kind}")
        part.to_parquet(path, index=False) if kind == "parquet" else part.to_csv(path, index=False)
    return os.path.join(folder, "shard*")


@pytest.fixture(scope="module")
def threads_cluster():
    """A 4-worker cluster of threads (a process cluster costs seconds to start; one test below uses one)."""
    with distributed.LocalCluster(n_workers=4, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield cluster, client


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    df = _rows()
    return _write(df, str(tmp_path_factory.mktemp("shards")), [7, 150, 151, 151, 260])  # one shard: a header


def _same_table(a, b):
    pd.testing.assert_frame_equal(a.data.reset_index(drop=True), b.data.reset_index(drop=True))
    assert (a.level, a.score_kind, a.notes, a.has_trials, a.facets, a.paired_items) == \
        (b.level, b.score_kind, b.notes, b.has_trials, b.facets, b.paired_items)
    assert a.describe().replace(a.source, "") == b.describe().replace(b.source, "")


@pytest.mark.parametrize("options", [{}, {"trials": 3}, {"facets": True}, {"range_cells": 60},
                                     {"reread": True}, {"reread": "auto", "trials": 3}])
def test_same_table_as_the_single_machine_reader(tmp_path, threads_cluster, options, monkeypatch):
    if "range_cells" in options:  # many key ranges, each merged in its own tree and fetched on its own
        monkeypatch.setattr("evalband.io.distributed_read.RANGE_CELLS", options.pop("range_cells"))
    reread = options.pop("reread", False)  # each shard read twice rather than kept between the passes
    df = _rows(seed=4, **options)
    pattern = _write(df, str(tmp_path), [1, 50, 51, 52, len(df) // 2])
    _, client = threads_cluster
    extra = {"facets": ["prompt"]} if options.get("facets") else {}
    _same_table(read(pattern, **extra), read_distributed(pattern, client=client, reread=reread, **extra))


def test_reread_auto_reads_twice_above_the_budget_and_says_why(tmp_path, threads_cluster, monkeypatch):
    """reread='auto' (the default): shards read once while a worker's share of the rows fits its budget (an
    eighth of its memory limit), twice above it, with a note giving the rows and the budget; the same table."""
    from evalband.io import _reread

    df = _rows(seed=5, trials=2)
    pattern = _write(df, str(tmp_path), [40, 90, 300], kinds=("parquet",))  # rows counted from the footers
    _, client = threads_cluster
    once = read_distributed(pattern, client=client)
    assert not any(getattr(n, "code", None) == "io.shards-read-twice" for n in once.notes)
    calls = []
    real = _reread.decide
    monkeypatch.setattr("evalband.io.distributed_read.decide",
                        lambda *a: calls.append(real(*a)) or calls[-1])
    monkeypatch.setattr(_reread, "BUDGET_SHARE", 1e-9)  # a budget of a few bytes: every read is over it
    twice = read_distributed(pattern, client=client, trials="average")
    assert calls[-1][0] is True
    note = [n for n in twice.notes if getattr(n, "code", None) == "io.shards-read-twice"]
    assert len(note) == 1 and note[0].params["rows"] == len(df)
    assert note[0].params["per_worker"] == max(-(-len(df) // 4), len(df) - 300)  # 4 workers, or the largest shard
    assert "an eighth of the smallest worker's memory limit" in note[0]
    kept = read(pattern, trials="average")
    pd.testing.assert_frame_equal(kept.data.reset_index(drop=True), twice.data.reset_index(drop=True))
    assert tuple(n for n in twice.notes if n not in note) == kept.notes


def test_shard_rows_from_parquet_footers_and_csv_sizes(tmp_path):
    from evalband.io._reread import CSV_ROW_BYTES, check_reread, shard_rows

    df = _rows(seed=6)
    _, shards = list_shards(_write(df, str(tmp_path), [100, 250]))
    rows = shard_rows(shards, None)
    assert rows[0] == 100 and rows[2] == len(df) - 250  # Parquet: the footer's count
    size = os.path.getsize(os.path.join(tmp_path, "shard01.csv"))
    assert rows[1] == -(-size // CSV_ROW_BYTES) >= 150  # CSV: from its bytes, never fewer than its rows
    with pytest.raises(ArgumentError, match="`reread` must be True, False or 'auto'"):
        check_reread("yes")


def _cli_json(command, pattern, scheduler=None, extra=()):
    args = [command, pattern, "--format", "json", *extra]
    if command in ("compare", "rank"):
        args += ["--n-resamples", "300", "--seed", "7"]
    if scheduler:
        args += ["--scheduler", scheduler]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def expected(shards):
    """The single-machine JSON of each command on the shards (a glob read as one table)."""
    return {c: _cli_json(c, shards) for c in ("compare", "rank", "summarize")}


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_compare_rank_summarize_json_byte_identical(shards, expected, workers):
    with distributed.LocalCluster(n_workers=workers, processes=False, threads_per_worker=1,
                                  dashboard_address=None, scheduler_port=0) as cluster:
        for command, want in expected.items():
            assert _cli_json(command, shards, cluster.scheduler_address) == want, command
    assert json.loads(expected["compare"])  # a real comparison, not an empty output


def test_real_processes_file_url(shards, expected):
    """Workers in two processes read file:// URLs; the JSON is the single-machine one."""
    url = "file://" + os.path.abspath(shards)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        got = _cli_json("compare", url, cluster.scheduler_address)
    assert got == expected["compare"]


def test_memory_filesystem_and_python_api(shards, expected, threads_cluster):
    """A memory:// folder (an object store seen by workers in this process), through read(..., client=)."""
    fs = fsspec.filesystem("memory")
    for path in sorted(p for p in os.listdir(os.path.dirname(shards)) if p.startswith("shard")):
        with open(os.path.join(os.path.dirname(shards), path), "rb") as src, fs.open(f"/evals26/{path}", "wb") as dst:
            dst.write(src.read())
    cluster, client = threads_cluster
    table = read("memory://evals26", client=client)
    _same_table(read(shards), table)
    # the documented command line, `evalband compare 's3://...' --scheduler ADDRESS`, on an fsspec store here
    assert _cli_json("compare", "memory://evals26/*", cluster.scheduler_address) == expected["compare"]
    source, found = list_shards("memory://evals26/*.parquet")
    assert source == "memory://evals26/*.parquet" and all(s.url.startswith("memory://") for s in found)


def test_url_without_cluster_says_what_to_do():
    with pytest.raises(ArgumentError, match="--scheduler"):
        read("s3://bucket/evals/*.parquet")


# ------------------------------------------------------------------------------------------ the same checks
def _bad(tmp_path, client, edit, kinds=("csv",), **options):
    df = _rows(seed=2)
    df = edit(df)
    pattern = _write(df, str(tmp_path), [200, 500], kinds=kinds)
    with pytest.raises(InputError) as single:
        read(pattern, **options)
    with pytest.raises(InputError) as dist:
        read_distributed(pattern, client=client, **options)
    return str(single.value), str(dist.value)


def test_errors_name_the_shard_and_row(tmp_path, threads_cluster):
    _, client = threads_cluster

    def nan_score(df):
        df["score"] = df["score"].astype(float)
        df.loc[300, "score"] = np.nan
        return df

    single, dist = _bad(tmp_path / "nan", client, nan_score, kinds=("parquet",))
    assert "shard01.parquet" in dist and "row 101" in dist and "score" in dist, dist

    def lookalike(df):
        df.loc[df["model"] == "m2", "model"] = "m2 "  # a trailing space: looks like 'm2' nowhere else
        df.loc[10, "model"] = "m2"
        return df

    single, dist = _bad(tmp_path / "alike", client, lookalike)
    assert "look" in single and "look" in dist and "'m2 '" in dist, dist

    def duplicate_across_shards(df):
        return pd.concat([df, df.iloc[[3]]], ignore_index=True)  # row 3 again, in the last shard

    single, dist = _bad(tmp_path / "dup", client, duplicate_across_shards)
    assert "duplicate result for" in single and "duplicate result for" in dist
    assert "shard00.csv, line 5" in dist and "shard01.csv line 148" in dist and "2 duplicated rows)" in dist, dist
    # counted as the single-machine reader counts them: the rows that have a twin
    assert re.search(r"\d+ duplicated rows", single).group() == re.search(r"\d+ duplicated rows", dist).group()

    def header(df):
        return df.rename(columns={"cluster": "model"})  # two columns of one name

    single, dist = _bad(tmp_path / "header", client, header)
    assert "shard00.csv" in dist and "model" in dist, dist

    def cluster_changes(df):
        where = np.flatnonzero((df["task"] == "t1") & (df["item"] == "q0"))
        df.loc[where[-1], "cluster"] = "c9"  # one model puts q0 in another cluster, in a later shard
        return df

    single, dist = _bad(tmp_path / "cluster", client, cluster_changes)
    assert "cluster" in single and "cluster changes within item 'q0'" in dist and "shard01.csv" in dist, dist
    from evalband.io.distributed_read import _ClusterCheck

    _ClusterCheck.MAX_ENTRIES, saved = 0, _ClusterCheck.MAX_ENTRIES  # the check on the finished columns
    try:
        single, dist = _bad(tmp_path / "cluster2", client, cluster_changes)
    finally:
        _ClusterCheck.MAX_ENTRIES = saved
    assert "item 'q0'" in dist and "cluster" in dist, dist


def test_shards_with_different_columns_refused(tmp_path, threads_cluster):
    _, client = threads_cluster
    df = _rows(seed=3)
    os.makedirs(tmp_path / "cols")
    df.iloc[:100].to_csv(tmp_path / "cols" / "a.csv", index=False)
    df.iloc[100:].drop(columns=["group"]).to_csv(tmp_path / "cols" / "b.csv", index=False)
    with pytest.raises(InputError, match="same columns"):
        read_distributed(str(tmp_path / "cols"), client=client)


def test_missing_cells_counted_like_the_single_reader(shards, threads_cluster):
    _, client = threads_cluster
    table = read_distributed(shards, client=client)
    assert any("not shared by every model" in n and "m10" in n for n in table.notes), table.notes
    cov = table.coverage()
    assert int(cov["left_out"].sum()) == int(read(shards).coverage()["left_out"].sum()) > 0


def test_per_row_measures_refused_or_dropped(tmp_path, threads_cluster):
    """A cost column is a per-row measure of the single-machine table: refused here, never read as something
    else; --drop-cols leaves it out as it does on one machine."""
    _, client = threads_cluster
    df = _rows(seed=5).assign(cost=0.25)
    pattern = _write(df, str(tmp_path), [100, 200])
    with pytest.raises(InputError, match="per-row measures.*--drop-cols"):
        read_distributed(pattern, client=client)
    _same_table(read(pattern, drop_cols=["cost"]), read_distributed(pattern, client=client, drop_cols=["cost"]))


def test_shards_without_a_task_column_are_one_task_each(tmp_path, threads_cluster):
    _, client = threads_cluster
    df = _rows(seed=6).drop(columns=["group"])
    for task, part in df.groupby("task"):
        part.drop(columns=["task"]).to_csv(tmp_path / f"{task}.csv", index=False)
    pattern = str(tmp_path / "*.csv")
    single, dist = read(pattern), read_distributed(pattern, client=client)
    _same_table(single, dist)
    assert dist.tasks == ("t1", "t2", "t10") and any("each file is one task" in n for n in dist.notes)


# ------------------------------------------------------------------------------------------ repeated trials
def _trial_rows(seed=8, scores="binary", facets=False):
    """Four trials per item with some left out (uneven trial counts), rows shuffled; scores 0/1, quarters or
    tenths (whose sums depend on their order); with ``facets``, two prompts."""
    df = _rows(seed=seed, trials=4, facets=facets)
    gen = np.random.default_rng(seed)
    df = df.drop(index=df.index[gen.random(len(df)) < 0.08]).reset_index(drop=True)
    if scores == "quarters":
        df["score"] = gen.integers(0, 5, len(df)) / 4
    elif scores == "tenths":
        df["score"] = gen.integers(0, 11, len(df)) / 10
    return df


@pytest.fixture(scope="module")
def trial_shards(tmp_path_factory):
    df = _trial_rows()
    return _write(df, str(tmp_path_factory.mktemp("trials")), [3, 400, 401, 1200, 1210])


@pytest.mark.parametrize("scores", ["binary", "quarters", "tenths", "facets"])
def test_trials_averaged_on_the_workers(tmp_path, threads_cluster, scores, monkeypatch):
    """trials='average': one row per (model, task, item) (and facet levels), the single-machine table averaged
    the same way; scores whose sums depend on their order keep their trials."""
    monkeypatch.setattr("evalband.io.distributed_read.RANGE_CELLS", 300)  # several ranges, trials never split
    facets = scores == "facets"
    df = _trial_rows(seed=9, scores="binary" if facets else scores, facets=facets)
    pattern = _write(df, str(tmp_path), [5, 300, 302, len(df) // 2])
    _, client = threads_cluster
    extra = {"facets": ["prompt"]} if facets else {}
    single = read(pattern, trials="average", **extra)
    dist = read_distributed(pattern, client=client, trials="average", **extra)
    _same_table(single, dist)
    assert dist.averaged_trials == (0 if scores == "tenths" else 4)
    if dist.averaged_trials:
        kept = read(pattern, **extra)
        assert len(dist.data) == int(kept._cells[0].size) * (2 if facets else 1) < len(kept.data)
        assert int(dist.data["trials"].sum()) == len(kept.data) and "trial" not in dist.data.columns
        assert dist.describe().replace(dist.source, "") == kept.describe().replace(kept.source, "")
        assert any(getattr(n, "code", "") == "data.coverage-trial-counts-differ" for n in dist.notes)
        import evalband

        # intervals over items (and prompts), the trial variance: from the exact sums, as from the rows
        pd.testing.assert_frame_equal(evalband.estimate(dist).to_frame(pooled=True),
                                      evalband.estimate(kept).to_frame(pooled=True), check_exact=True)


@pytest.fixture(scope="module")
def trial_expected(trial_shards):
    """Single-machine JSON (every trial a row) of each command on the trial shards."""
    return {c: _cli_json(c, trial_shards) for c in ("compare", "rank", "summarize")}


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_trials_json_byte_identical_on_processes(trial_shards, trial_expected, workers):
    """compare, rank and summarize read each item's trials averaged on the workers (summarize's trial variance
    from their exact sums); the JSON is the single-machine one, on clusters of 1, 2 and 4 worker processes."""
    with distributed.LocalCluster(n_workers=workers, processes=True, threads_per_worker=1,
                                  dashboard_address=None, scheduler_port=0) as cluster:
        for command, want in trial_expected.items():
            assert _cli_json(command, trial_shards, cluster.scheduler_address) == want, command
    assert "var_within" in trial_expected["summarize"]


def test_trials_of_tenths_kept_same_json(tmp_path, threads_cluster):
    """Scores such as 0.1 keep their trials on the cluster (a tree's sums would change the last bit); summarize's
    trial variance then reads every trial, as before."""
    pattern = _write(_trial_rows(seed=10, scores="tenths"), str(tmp_path), [200, 201, 700])
    cluster, _ = threads_cluster
    for command in ("compare", "rank", "summarize"):
        assert _cli_json(command, pattern, cluster.scheduler_address) == _cli_json(command, pattern)


def test_duplicate_trial_across_shards_named_with_trials_averaged(tmp_path, threads_cluster):
    _, client = threads_cluster
    df = _trial_rows(seed=11)
    df = pd.concat([df, df.iloc[[3]]], ignore_index=True)  # row 3 again, in the last shard
    pattern = _write(df, str(tmp_path), [200, 500], kinds=("csv",))
    with pytest.raises(InputError) as keep:
        read_distributed(pattern, client=client)
    with pytest.raises(InputError) as average:
        read_distributed(pattern, client=client, trials="average")
    assert str(keep.value) == str(average.value) and "trial '" in str(average.value)


def test_commands_ask_for_the_trials_they_read(trial_shards, trial_expected, threads_cluster, monkeypatch):
    """On the cluster compare, rank and summarize read the trials averaged (a row per item on the client: no
    command here reads a single trial); the JSON is the single-machine one."""
    import evalband.io.distributed_read as dr

    seen, original = [], dr.read_distributed

    def spy(*args, **kwargs):
        table = original(*args, **kwargs)
        seen.append(table.averaged_trials)
        return table

    monkeypatch.setattr(dr, "read_distributed", spy)
    cluster, _ = threads_cluster
    for command in ("compare", "rank", "summarize"):
        assert _cli_json(command, trial_shards, cluster.scheduler_address) == trial_expected[command], command
    assert seen == [4, 4, 4]


def test_trials_within_facet_levels_json_byte_identical(tmp_path, threads_cluster):
    """Trials and a prompt facet: compare and rank average the trials of each (item, prompt) on the workers and
    resample items and prompts (the crossed bootstrap) from their sums; the JSON is the single-machine one."""
    pattern = _write(_trial_rows(seed=12, facets=True), str(tmp_path), [10, 900, 901, 2000])
    cluster, _ = threads_cluster
    for command in ("compare", "rank", "summarize"):
        for extra in ((), ("--fixed", "prompt")) if command != "summarize" else ((),):
            want = _cli_json(command, pattern, extra=("--facets", "prompt", *extra))
            assert _cli_json(command, pattern, cluster.scheduler_address, ("--facets", "prompt", *extra)) == want
