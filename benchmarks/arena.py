"""Benchmark of evalband.arena against FastChat's and evalica's Bradley-Terry bootstraps (issue 15).

Workload: 1,000,000 battles among 100 models over 20,000 questions (50 battles per question, pairs at random,
10% ties, a question-level random effect per model), B = 1,000 replicates resampling whole questions.

  evalband  ``evalband.arena(table, n_resamples=1000)``: the whole job (ratings and intervals, ranks with
            marginal and simultaneous rank intervals, P(best), tiers, all 4,950 pairwise differences, the
            predicted win-probability matrix), and the rating replicates alone.
  fastchat  FastChat's approach: each replicate builds the resampled battle table (questions drawn with
            replacement, their battles repeated) and refits ``compute_mle_elo`` (pivot tables of wins and ties,
            then scikit-learn's LogisticRegression, transcribed from FastChat's notebooks/copilot_arena code).
            Timed on ``--fastchat-replicates`` replicates and extrapolated linearly to B.
  evalica   evalica's Bradley-Terry (Rust, MM iterations to tolerance 1e-6) in the same resampling loop: each
            replicate passes the questions' bootstrap counts as battle weights (the battle arrays are converted
            once). Timed on ``--evalica-replicates`` replicates and extrapolated.

Prints the times, the ratios and evalband's peak memory (tracemalloc peak during ``arena``, and the process's
peak resident set size). BLAS is limited to ``--blas-threads`` threads for every method.

Usage: python benchmarks/arena.py [--replicates 1000] [--fastchat-replicates 3] [--evalica-replicates 20]
                                  [--blas-threads 1] [--quick]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import sys
import time
import tracemalloc
import warnings


def _args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--battles", type=int, default=1_000_000)
    p.add_argument("--models", type=int, default=100)
    p.add_argument("--questions", type=int, default=20_000)
    p.add_argument("--replicates", type=int, default=1000)
    p.add_argument("--fastchat-replicates", type=int, default=3)
    p.add_argument("--evalica-replicates", type=int, default=20)
    p.add_argument("--blas-threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=20261201)
    p.add_argument("--quick", action="store_true", help="a 100,000-battle workload (development only)")
    return p.parse_args(argv)


ARGS = _args()
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(ARGS.blas_threads)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
from evalband.preferences import BattleTable, arena  # noqa: E402
from evalband.preferences.replicates import bt_ratings  # noqa: E402
from evalband.resample.battles import ClusterBootstrap, resampling_units  # noqa: E402
from evalband._random import run_entropy  # noqa: E402


def workload(n_battles, n_models, n_questions, seed):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, n_models)
    per_q = n_battles // n_questions
    q = np.repeat(np.arange(n_questions), per_q)
    n = q.size
    a = rng.integers(0, n_models, n)
    b = (a + rng.integers(1, n_models, n)) % n_models
    effect = rng.normal(0.0, 0.5, (n_questions, n_models))
    d = theta[a] - theta[b] + effect[q, a] - effect[q, b]
    p = 1.0 / (1.0 + np.exp(-d))
    tie = rng.random(n) < 0.10
    y = np.where(tie, 0.5, (rng.random(n) < p).astype(float))
    names = np.array([f"model-{i:03d}" for i in range(n_models)], dtype=object)
    winner = np.where(tie, "tie", np.where(y == 1.0, "model_a", "model_b"))
    frame = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner, "question_id": q})
    return frame


# ------------------------------------------------------------------------------------------ FastChat
def fastchat_compute_mle_elo(df, SCALE=400, BASE=10, INIT_RATING=1000):
    """FastChat's compute_mle_elo (pivot tables + scikit-learn LogisticRegression), transcribed."""
    from sklearn.linear_model import LogisticRegression

    ptbl_a_win = pd.pivot_table(df[df["winner"] == "model_a"], index="model_a", columns="model_b", aggfunc="size",
                                fill_value=0)
    if sum(df["winner"].isin(["tie", "tie (bothbad)"])) == 0:
        ptbl_tie = pd.DataFrame(0, index=ptbl_a_win.index, columns=ptbl_a_win.columns)
    else:
        ptbl_tie = pd.pivot_table(df[df["winner"].isin(["tie", "tie (bothbad)"])], index="model_a",
                                  columns="model_b", aggfunc="size", fill_value=0)
        ptbl_tie = ptbl_tie + ptbl_tie.T
    ptbl_b_win = pd.pivot_table(df[df["winner"] == "model_b"], index="model_a", columns="model_b", aggfunc="size",
                                fill_value=0)
    ptbl_win = ptbl_a_win * 2 + ptbl_b_win.T * 2 + ptbl_tie
    models = pd.Series(np.arange(len(ptbl_win.index)), index=ptbl_win.index)
    p = len(models)
    X = np.zeros([p * (p - 1) * 2, p])
    Y = np.zeros(p * (p - 1) * 2)
    cur_row = 0
    sample_weights = []
    for m_a in ptbl_win.index:
        for m_b in ptbl_win.columns:
            if m_a == m_b:
                continue
            if math.isnan(ptbl_win.loc[m_a, m_b]) or math.isnan(ptbl_win.loc[m_b, m_a]):
                continue
            X[cur_row, models[m_a]] = +math.log(BASE)
            X[cur_row, models[m_b]] = -math.log(BASE)
            Y[cur_row] = 1.0
            sample_weights.append(ptbl_win.loc[m_a, m_b])
            X[cur_row + 1, models[m_a]] = math.log(BASE)
            X[cur_row + 1, models[m_b]] = -math.log(BASE)
            Y[cur_row + 1] = 0.0
            sample_weights.append(ptbl_win.loc[m_b, m_a])
            cur_row += 2
    X = X[:cur_row]
    Y = Y[:cur_row]
    with warnings.catch_warnings():  # scikit-learn >= 1.8 deprecates penalty=None (C=np.inf is the same fit)
        warnings.simplefilter("ignore", FutureWarning)
        lr = LogisticRegression(fit_intercept=False, penalty=None, tol=1e-6)
        lr.fit(X, Y, sample_weight=sample_weights)
    elo_scores = SCALE * lr.coef_[0] + INIT_RATING
    return pd.Series(elo_scores, index=models.index).sort_values(ascending=False)


def fastchat_loop(frame, n_rep, seed):
    """Question-clustered version of FastChat's get_bootstrap_result: resample questions, refit."""
    rng = np.random.default_rng(seed)
    q = frame["question_id"].to_numpy()
    order = np.argsort(q, kind="stable")
    starts = np.searchsorted(q[order], np.arange(q.max() + 2))
    rows = []
    for _ in range(n_rep):
        drawn = rng.integers(0, q.max() + 1, q.max() + 1)
        idx = np.concatenate([order[starts[k]:starts[k + 1]] for k in drawn])
        rows.append(fastchat_compute_mle_elo(frame.iloc[idx]))
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ evalica
def evalica_loop(frame, n_rep, seed):
    import evalica

    rng = np.random.default_rng(seed)
    names = pd.Index(sorted(set(frame["model_a"]) | set(frame["model_b"])))
    xs = names.get_indexer(frame["model_a"]).tolist()
    ys = names.get_indexer(frame["model_b"]).tolist()
    code = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y, "tie": evalica.Winner.Draw}
    winners = [code[w] for w in frame["winner"]]
    q = frame["question_id"].to_numpy()
    k = int(q.max()) + 1
    index = pd.Index(range(len(names)))
    out = []
    for _ in range(n_rep):
        counts = np.bincount(rng.integers(0, k, k), minlength=k).astype(float)
        res = evalica.bradley_terry(xs, ys, winners, index=index, weights=counts[q].tolist())
        out.append(res.scores.reindex(index).to_numpy())  # evalica sorts its scores by value
    return np.array(out)


def main():
    n_battles, n_questions = ARGS.battles, ARGS.questions
    if ARGS.quick:
        n_battles, n_questions = 100_000, 2_000
    t0 = time.perf_counter()
    frame = workload(n_battles, ARGS.models, n_questions, ARGS.seed)
    table = BattleTable.build(frame["model_a"].to_numpy(object), frame["model_b"].to_numpy(object),
                              frame["winner"].map({"model_a": 1.0, "model_b": 0.0, "tie": 0.5}).to_numpy(),
                              labels={"question": frame["question_id"].astype(str).to_numpy(object)})
    print(f"workload: {table.n_battles:,} battles, {table.n_models} models, {n_questions:,} questions, B ="
          f" {ARGS.replicates:,}, BLAS threads {ARGS.blas_threads}; built in {time.perf_counter() - t0:.1f} s")
    arena(table.subset(np.arange(table.n_battles) < 20_000), n_resamples=20, rng=0)  # warm up imports

    tracemalloc.start()
    t0 = time.perf_counter()
    res = arena(table, n_resamples=ARGS.replicates, rng=ARGS.seed)
    t_full = time.perf_counter() - t0
    peak_traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux
    units = resampling_units(table, "question")
    boot = ClusterBootstrap(units, ARGS.replicates, run_entropy(np.random.default_rng(ARGS.seed)))
    t0 = time.perf_counter()
    bt_ratings(table, units, boot)
    t_ratings = time.perf_counter() - t0
    print(f"evalband: {t_full:8.1f} s whole job (ratings, ranks, rank intervals, P(best), tiers, 4,950 pairs,"
          f" win matrix); {t_ratings:.1f} s rating replicates alone")
    print(f"          peak memory: {peak_traced / 2**20:,.0f} MiB traced during arena(); process peak RSS"
          f" {rss:,.0f} MiB (includes the workload)")

    t0 = time.perf_counter()
    fc = fastchat_loop(frame, ARGS.fastchat_replicates, ARGS.seed)
    t_fc = (time.perf_counter() - t0) / ARGS.fastchat_replicates * ARGS.replicates
    print(f"fastchat: {t_fc:8.1f} s extrapolated from {ARGS.fastchat_replicates} replicates"
          f" ({t_fc / ARGS.replicates:.2f} s each)")
    t0 = time.perf_counter()
    ev = evalica_loop(frame, ARGS.evalica_replicates, ARGS.seed)
    t_ev = (time.perf_counter() - t0) / ARGS.evalica_replicates * ARGS.replicates
    print(f"evalica:  {t_ev:8.1f} s extrapolated from {ARGS.evalica_replicates} replicates"
          f" ({t_ev / ARGS.replicates:.3f} s each)")

    # the three agree on the fit to the data (a sanity check of the baselines)
    ours = pd.Series(res.rating, index=res.models)
    ref = fastchat_compute_mle_elo(frame)
    diff = (ours - ours.mean()) - (ref[ours.index] - ref[ours.index].mean())
    print(f"check:    FastChat's fit to the data vs evalband's: max |difference| {np.abs(diff).max():.2e} Elo points;"
          f" replicate spread evalband {res.samples.std(axis=0).mean():.2f}, FastChat {fc.std(axis=0).mean():.2f},"
          f" evalica (log-strength x 400/ln10) {np.log(ev).std(axis=0).mean() * 400 / np.log(10):.2f}")
    ratio_fc, ratio_ev = t_fc / t_full, t_ev / t_full
    print(f"ratios:   FastChat / evalband = {ratio_fc:,.0f}x (target >= 50x, contract >= 30x);"
          f" evalica / evalband = {ratio_ev:,.1f}x (target > 1); peak < 2 GB:"
          f" {'yes' if max(rss, peak_traced / 2**20) < 2048 else 'no'}")
    print(json.dumps({"battles": table.n_battles, "B": ARGS.replicates, "evalband_s": round(t_full, 2),
                      "evalband_ratings_s": round(t_ratings, 2), "fastchat_s": round(t_fc, 1),
                      "evalica_s": round(t_ev, 1), "ratio_fastchat": round(ratio_fc, 1),
                      "ratio_evalica": round(ratio_ev, 2), "peak_traced_mib": round(peak_traced / 2**20),
                      "peak_rss_mib": round(rss)}))


if __name__ == "__main__":
    main()
