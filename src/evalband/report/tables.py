"""The report's tables as display strings, each rounded by the one rule of :mod:`evalband.display` (digits from
the standard error, proportions in points, merged intervals, rank intervals as ``1-2`` or ``3``, empty columns
left out). Each function reads a :class:`~evalband.report._build.Report` (or a result it holds) and computes no
statistic."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..display import display_frame, format_interval, format_level, format_percent, format_value
from ..display.tables import HEADERS as PROBABILITIES
from ..display.numbers import decimals_for

__all__ = ["ranking_table", "pairs_table", "task_table", "summary_table", "passk_table", "weights_table",
           "bayes_table", "coverage_table", "cd_groups_table", "HEADERS"]

#: column names of result frames -> headers a reader of a report understands
HEADERS = {**PROBABILITIES, "model_a": "model A", "model_b": "model B", "difference": "A − B", "se": "SE",
           "rank CI": "rank interval", "ci834": "83.4% CI", "verdict_by_correlation": "verdict by assumed correlation",
           "correlation": "per-item correlation", "share": "share", "share_se": "± MC SE",
           "posterior_mean": "posterior mean", "pred": "predictive interval", "tasks": "tasks", "n": "n"}


def _shown(frame: pd.DataFrame, *, drop=(), **options) -> pd.DataFrame:
    shown, _ = display_frame(frame, **options)
    shown = shown.drop(columns=[c for c in drop if c in shown.columns])
    return shown.rename(columns=HEADERS)


def ranking_table(report) -> pd.DataFrame:
    """One row per model, best first: estimate, interval, 83.4% interval, rank interval, P(best), tier."""
    r = report.ranking
    cols = ["rank", "model", "estimate", "se", "ci_low", "ci_high", "ci834_low", "ci834_high", "rank_low",
            "rank_high", "p_best", "tier", "confidence_level"]
    frame = r[[c for c in cols if c in r.columns]]
    return _shown(frame, value_cols=("estimate", "se", "ci_low", "ci_high", "ci834_low", "ci834_high"),
                  scale=report.scale, keep=("model", "rank", "tier"), drop=("SE", "se"))


def pairs_table(report, *, adjacent_only: bool = False) -> pd.DataFrame:
    """Every pair (or, with ``adjacent_only``, neighbours in the ranking): difference, interval, SE, verdict."""
    p = report.pairs
    if adjacent_only:
        order = {m: k for k, m in enumerate(report.ranking["model"])}
        p = p.loc[[abs(order[a] - order[b]) == 1 for a, b in zip(p["model_a"], p["model_b"])]]
    cols = ["model_a", "model_b", "difference", "ci_low", "ci_high", "se", "verdict", "confidence_level"]
    cols += [c for c in ("interval_level", "correction") if c in p.columns]  # the interval's header says them
    if "verdict_by_correlation" in p.columns:
        cols.append("verdict_by_correlation")
    elif "correlation" in p.columns and np.isfinite(p["correlation"]).any():
        cols.append("correlation")  # per-item correlation pooled within tasks (seed 001)
    return _shown(p[cols], value_cols=("difference", "ci_low", "ci_high", "se"), signed_cols=("difference",),
                  scale=report.scale, keep=("model_a", "model_b", "verdict"))


def task_table(report) -> pd.DataFrame:
    """One row per model and task: estimate, SE, interval, n."""
    t = report.per_task
    cols = [c for c in ("model", "task", "estimate", "se", "ci_low", "ci_high", "n") if c in t.columns]
    frame = t[cols].assign(confidence_level=float(report.reproduce["confidence_level"]))
    return _shown(frame, scale=report.scale)


def summary_table(report) -> pd.DataFrame:
    """A summary report's scores: each model's aggregate over its own tasks, best first."""
    r = report.ranking.sort_values("estimate", ascending=False, kind="stable")
    cols = [c for c in ("model", "tasks", "estimate", "se", "ci_low", "ci_high", "confidence_level") if c in r]
    return _shown(r[cols], scale=report.scale, keep=("model", "tasks"))


def passk_table(report) -> pd.DataFrame | None:
    """pass@k and pass^k side by side, one row per model, task and k (points)."""
    p = report.passk
    if p is None or p.empty:
        return None
    several = p["task"].nunique() > 1
    rows = []
    for (m, t, k), g in p.groupby(["model", "task", "k"], sort=False):
        row = {"model": str(m)}
        if several:
            row["task"] = str(t)
        row["k"] = str(int(k))
        for metric in ("pass@k", "pass^k"):
            x = g[g["metric"] == metric].iloc[0]
            se = abs(float(x["se"])) * 100
            d = decimals_for(se) if np.isfinite(se) and se > 0 else 1
            row[metric] = format_value(float(x["estimate"]) * 100, d)
            row[f"{metric} CI"] = format_interval(float(x["ci_low"]) * 100, float(x["ci_high"]) * 100, d)
        rows.append(row)
    return pd.DataFrame(rows)


def weights_table(report) -> pd.DataFrame | None:
    """Share of the task-group weightings where each model is significantly best (and the Monte Carlo SE of
    the share when the weightings were sampled; the column is left out when no share has one)."""
    w = report.weights
    if w is None:
        return None
    out = pd.DataFrame({"threshold": w["threshold"].astype(str), "model": w["model"].astype(str),
                        "share": [format_percent(s) for s in w["share"]]})
    se = w["share_se"].to_numpy(dtype=float) if "share_se" in w else np.full(len(w), np.nan)
    if np.isfinite(se).any():
        out["± MC SE"] = ["" if not np.isfinite(e) else f"{e:.1%}" for e in se]
    return out


def bayes_table(report) -> pd.DataFrame | None:
    """Posterior mean, credible and predictive intervals and P(best) per model, best first."""
    b = report.bayes
    if b is None:
        return None
    b = b.sort_values("posterior_mean", ascending=False, kind="stable")
    cols = [c for c in ("model", "posterior_mean", "posterior_sd", "ci_low", "ci_high", "pred_low", "pred_high",
                        "p_best", "confidence_level") if c in b.columns]
    shown = _shown(b[cols], value_cols=("posterior_mean", "posterior_sd", "ci_low", "ci_high", "pred_low",
                                        "pred_high"), se_col="posterior_sd", scale=report.scale,
                   drop=("posterior_sd",))
    level = b["confidence_level"].iloc[0] if "confidence_level" in b.columns else None
    name = f"{format_level(level)} CI" if level is not None else "CI"
    return shown.rename(columns={name: "credible interval"})


def coverage_table(report) -> pd.DataFrame:
    """Tasks, items and results left out of paired analyses, per model."""
    c = report.coverage
    return pd.DataFrame({"model": c["model"].astype(str), "tasks": c["tasks"].astype(int).astype(str),
                         "items": [f"{int(v):,}" for v in c["items"]],
                         "left out of paired analyses": [f"{int(v):,}" for v in c["left_out"]]})


def cd_groups_table(tests) -> pd.DataFrame | None:
    """The groups of models whose mean ranks do not differ significantly (Nemenyi), one row per group."""
    posthoc = getattr(tests, "posthoc", None)
    cliques = getattr(posthoc, "cliques", None)
    if not cliques:
        return None
    ranks = dict(zip(tests.models, np.asarray(posthoc.mean_ranks, dtype=float)))
    return pd.DataFrame({"group": [str(k) for k in range(1, len(cliques) + 1)],
                         "models (mean rank)": ["; ".join(f"{m} ({ranks[m]:.3g})" for m in c) for c in cliques]})
