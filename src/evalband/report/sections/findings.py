"""Plain-language findings, method notes and references of a report (plain text; the renderer escapes it)."""

from __future__ import annotations

import numpy as np

from ...resample.floors import FLOOR_METHOD
from ...display import difference_text, estimate_text, format_level, format_percent, margin_text
from ...display.notes import NoteKind

__all__ = ["findings_for", "method_notes", "references", "detectable_difference"]


def detectable_difference(se, *, alpha: float = 0.05, power: float = 0.8) -> np.ndarray:
    """Smallest true difference a two-sided z test with standard error ``se`` detects with ``power``:
    ``(z_{1-alpha/2} + z_{power}) * se`` (2.80 se at the defaults), the planning formula of ``evalband.plan``."""
    from ...plan.power import z_factor

    return np.sqrt(z_factor(alpha=alpha, power=power)) * np.asarray(se, dtype=float)


def _val(x, scale) -> str:
    return f"{x * scale:.1f}%" if scale == 100 else f"{x * scale:.3g}"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _names(items, limit=6) -> str:
    items = list(items)
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def findings_for(f) -> list[str]:
    rk, pairs, level, scale, agg = f["ranking"], f["pairs"], f["level"], f["scale"], f["aggregate"]
    table, reps = f["table"], f["reps"]
    out = []
    order = f["order"]
    top, second = order[0], order[1]
    m = rk.models
    k = next(i for i, (a, b) in enumerate(zip(pairs.model_a, pairs.model_b)) if {a, b} == {m[top], m[second]})
    lo, hi = np.asarray(pairs.ci.low)[k], np.asarray(pairs.ci.high)[k]
    decided = pairs.verdict[k] in ("A better", "B better")
    best = "highest" if f["higher_is_better"] else "lowest (best)"
    se = np.asarray(getattr(rk, "se", np.full(len(m), np.nan)), dtype=float)
    out.append(
        f"{m[top]} has the {best} {agg} over tasks, "
        f"{estimate_text(rk.estimate[top], np.asarray(rk.ci.low)[top], np.asarray(rk.ci.high)[top], se[top], confidence_level=level, scale=scale)}."
        f" Its lead over {m[second]}, "
        f"{difference_text(pairs.difference[k], lo, hi, np.asarray(pairs.se)[k], confidence_level=level, scale=scale)},"
        " is " + _lead_text(pairs, k, decided))
    gap, se_top = abs(float(pairs.difference[k])), float(np.asarray(pairs.se)[k])
    variance = f.get("variance")
    advice = None
    if not decided and gap > 1e-12 and variance is not None:  # facets: the sample size comes from the D-study
        advice = variance.sample_size_advice(m[top], m[second], gap, scale=scale,
                                             unit="points" if scale == 100 else "score units")
    if advice is not None:
        out[-1] += " " + advice
    elif not decided and gap > 1e-12 and se_top > 0:
        factor = float((detectable_difference(se_top) / gap) ** 2)
        if factor < 1e4:
            out[-1] += (f" If the gap is real, about {factor:.0f} times as many test items would be needed to detect "
                        "it 80% of the time." if factor >= 1.5 else
                        " The gap is about as large as this evaluation can detect; more items would settle it.")
    n_pairs = len(pairs.verdict)
    dec = np.isin(pairs.verdict, ("A better", "B better"))
    equiv = np.asarray(pairs.verdict) == "equivalent"
    open_pairs = [f"{a} vs {b}" for a, b, d, e in zip(pairs.model_a, pairs.model_b, dec, equiv) if not (d or e)]
    margin = float(getattr(pairs, "margin", 0.0) or 0.0)
    beyond = f" (by more than the {margin_text(margin, scale=scale)})" if margin > 0 else ""
    text = (f"Of the {n_pairs} pairs of models, {int(dec.sum())} differ decidedly{beyond} at the {format_level(level)} level "
            f"(each pair on its own, without a multiple-comparison correction)")
    if equiv.any():
        text += f"; {int(equiv.sum())} are equivalent within the margin"
    out.append(text + (f"; {len(open_pairs)} are not yet decided: {_names(open_pairs)}." if open_pairs else "."))
    tiers = {}
    for i in order:
        tiers.setdefault(int(rk.tier[i]), []).append(m[i])
    if len(tiers) > 1:
        shown = "; ".join(f"tier {t}: {_names(v, 4)}" for t, v in list(tiers.items())[:3])
        out.append(f"Models that cannot be separated from each other form {len(tiers)} tiers (simultaneous "
                   f"intervals over all pairs): {shown}" + ("; and so on." if len(tiers) > 3 else "."))
    best = [(m[i], rk.p_best[i]) for i in order if rk.p_best[i] >= 0.01][:4]
    out.append("Probability of ranking first over the bootstrap replicates: "
               + ", ".join(f"{n} {format_percent(p)}" for n, p in best) + ".")
    adjacent = [k for k, (a, b) in enumerate(zip(pairs.model_a, pairs.model_b))
                if abs(list(order).index(m.index(a)) - list(order).index(m.index(b))) == 1]
    se_adj = np.median(np.asarray(pairs.se)[adjacent]) if adjacent else np.median(pairs.se)
    mde = float(detectable_difference(se_adj))
    paired = reps.resampling == "paired"
    out.append(
        f"What this evaluation can detect: with a standard error of the difference between neighbouring models of "
        f"about {abs(se_adj) * scale:.2g}{' points' if scale == 100 else ''} (median), a true difference of "
        f"{abs(mde) * scale:.2g}{' points' if scale == 100 else ''} would be detected 80% of the time "
        f"(two-sided, 5% level); smaller true differences may well go unnoticed."
        + ("" if paired else " These per-task summaries carry no pairing: with item-level results the paired "
                             "standard error, and so the detectable difference, would typically be smaller."
           if reps.resampling == "binomial" else " The models share no item here, so nothing is paired: on shared "
                                                 "items the standard error, and so the detectable difference, would "
                                                 "typically be smaller."))
    for name, ws in f["weights"]:
        out.append(_weights_finding(name, ws, rk, order))
    if not paired and getattr(pairs, "verdict_by_correlation", None):
        moving = [f"{a} vs {b} ({v})" for a, b, v in zip(pairs.model_a, pairs.model_b, pairs.verdict_by_correlation)
                  if "at" in v and ", " in v]
        if moving:
            out.append("Verdicts that depend on the assumed correlation between models: " + _names(moving, 4) + ".")
    bayes = f["bayes"]
    if bayes is not None:
        b = bayes.set_index("model").loc[list(m)]
        blo, bhi = b["ci_low"].to_numpy(), b["ci_high"].to_numpy()
        text = _bayes_text(m, blo, bhi, np.asarray(rk.ci.low), np.asarray(rk.ci.high), table, scale)
        if reps.unit == "cluster":
            text += (" The Beta-Binomial model treats items as independent, while the bootstrap resamples whole "
                     "clusters: where they differ, the clustered bootstrap is the one to trust.")
        out.append(text)
    left = int(table.coverage()["left_out"].sum()) if table.level == "item" and paired else 0
    if left:
        out.append(f"{left:,} model-item results were left out of the paired analyses because not every model has "
                   "them (see the data summary).")
    return out


def _bayes_text(models, blo, bhi, clo, chi, table, scale) -> str:
    """The Bayesian-vs-bootstrap sentence: overlap, and the median width ratio over the models whose bootstrap
    interval has a width (a zero-width one, where every replicate is the same, is said so instead of a ratio)."""
    overlap = np.mean((blo <= chi) & (clo <= bhi))
    text = (f"The Bayesian (Beta-Binomial) credible intervals overlap the bootstrap intervals for {overlap:.0%} of "
            "models")
    width = np.asarray(chi, dtype=np.float64) - np.asarray(clo, dtype=np.float64)
    flat = np.isfinite(width) & (width <= 0)
    wide = np.isfinite(width) & (width > 0)  # a withheld interval (NaN) is neither
    if wide.any():
        ratio = float(np.median((bhi - blo)[wide] / width[wide]))
        text += f"; their widths are {ratio:.2f} times the bootstrap widths (median"
        text += f" over the {int(wide.sum())} models whose bootstrap interval has a width)." if not wide.all() else ")."
    else:
        text += "."
    if flat.any():
        names = [models[i] for i in np.flatnonzero(flat)]
        one = len(names) == 1
        constant = _constant_models(table)
        why = ("every item scores the same within each task (the bootstrap sees no variation to resample)"
               if all(n in constant for n in names) else "every bootstrap replicate gives the same value")
        shown = "; ".join(f"{models[i]} at {_val(clo[i], scale)}, credible interval {_val(blo[i], scale)} to "
                          f"{_val(bhi[i], scale)}" for i in np.flatnonzero(flat)[:4])
        text += (f" The bootstrap interval of {_names(names, 4)} has zero width because {why}"
                 f"{'' if one else ' for each of them'}: {shown}{'; ...' if len(names) > 4 else ''}. The credible "
                 "interval keeps a width: the Beta-Binomial model does not take identical scores on a finite test "
                 "set as certainty.")
    return text


def _constant_models(table) -> set:
    """Models whose score is the same on every item (every trial) of each task: all correct or all wrong per task
    at summary level."""
    d = table.data
    if table.level == "item":
        g = d.groupby(["model", "task"], observed=True)["score"]
        flat = (g.min() == g.max()).groupby(level="model", observed=True).all()
    else:
        rows = d.loc[d["n"] > 0]
        flat = ((rows["correct"] == 0) | (rows["correct"] == rows["n"])).groupby(rows["model"], observed=True).all()
    return {str(m) for m, v in flat.items() if bool(v)}


def _lead_text(pairs, k, decided) -> str:
    """How the lead over the runner-up reads: decided or not, and with a margin what is and is not decided."""
    margin = float(getattr(pairs, "margin", 0.0) or 0.0)
    if margin <= 0:
        return ("decided: the interval of the difference excludes zero." if decided
                else "not yet decided: these data cannot tell the two apart.")
    m = margin_text(margin, scale=float(getattr(pairs, "scale", 100.0)))
    if decided:
        return f"decided: the interval of the difference lies beyond the {m}."
    if pairs.verdict[k] == "equivalent":
        return f"within the {m}: the two are equivalent at that margin."
    detail = (pairs.verdict_detail[k] if getattr(pairs, "verdict_detail", None) is not None
              else str(pairs.verdict[k]))
    return detail.replace("not yet decided: ", "not yet decided (", 1) + ")." if ": " in detail \
        else "not yet decided: these data cannot tell the two apart at the margin."


def _weights_finding(name, ws, rk, order) -> str:
    shares = ws.shares()
    won = shares[(shares["points"] > 0) & (shares["model"] != "undecided")]
    undecided = float(shares.loc[shares["model"] == "undecided", "share"].iloc[0])
    unit = "of the weight space" if ws.layout == "sampled" else "of task-group weightings"
    head = {"measured": "With the correlation between models measured from the paired data (a lead counts when it"
                        " exceeds 2 standard errors of the difference)",
            "independent": "Treating the models' scores as independent (a lead counts when it exceeds 2 standard"
                           " errors of the difference)",
            "correlated": "Allowing for models that tend to succeed on the same items (a lead counts from 1.4"
                          " standard errors)"}[name]
    if won.empty:
        return f"{head}, no model is significantly best under any weighting of the task groups."
    parts = []
    overall_rank = {rk.models[i]: int(rk.rank[i]) for i in order}
    for model, share in zip(won["model"], won["share"]):
        i = ws.models.index(model)
        region = ws.weights[ws.winner == i]
        g = int(np.argmax(region.mean(axis=0)))
        where = ""
        if ws.layout != "sampled" and region[:, g].min() >= 0.5:
            where = f" (only where {ws.groups[g]} tasks carry at least {region[:, g].min():.0%} of the weight"
            where += f", although it ranks {_ordinal(overall_rank[model])} on the {rk.aggregate})" \
                if overall_rank[model] > 2 else ")"
        parts.append(f"{model} for {share:.0%}{where}")
    return f"{head}, the significantly best model is " + "; ".join(parts) + f"; {undecided:.0%} {unit} is undecided."


NOTE_BOOTSTRAP_REPLICATES_WITHIN_EACH = NoteKind(
    'report.bootstrap-replicates-within-each', 'info',
    'Bootstrap: {n_resamples:,} replicates; within each task the same {unit} are drawn for every model (paired), '
    'so differences keep the between-model correlation (Miller 2024).')
NOTE_BAYESIAN_INTERVALS_BETA_BINOMIAL = NoteKind(
    'report.bayesian-intervals-beta-binomial', 'info',
    'Bayesian intervals: Beta-Binomial hierarchy per model (theta_ij ~ Beta(alpha_i, beta_i), exponential '
    'priors), sampled exactly on a grid; equal-tailed credible intervals.')
NOTE_BOOTSTRAP_REPLICATES_WITHIN_EACH_2 = NoteKind(
    'report.bootstrap-replicates-within-each-2', 'info',
    "Bootstrap: {n_resamples:,} replicates; within each task every model's own {unit}s are resampled "
    "independently of the other models' (unpaired: the models share no item there), so differences carry no "
    "between-model correlation.")
NOTE_BOOTSTRAP_REPLICATES_PER_TASK = NoteKind(
    'report.bootstrap-replicates-per-task', 'info',
    "Bootstrap: {n_resamples:,} replicates; per-task summaries are resampled as a binomial draw of each model's "
    "correct count (equivalent to resampling its 0/1 items), independently across models, as in Longjohn et al. "
    "(2025).")


#: the methods paragraph of the findings
NOTE_METHOD_INTERVALS = NoteKind(
    "report.method-intervals", "info", "Intervals: bootstrap percentile intervals at {level}; per-model plots add 83.4%"
    " intervals, whose non-overlap corresponds to a difference at about the 5% level for independent, equally precise"
    " estimates (Goldstein & Healy 1995). Decisions use the interval of each difference itself.{floor}")
NOTE_METHOD_VERDICTS = NoteKind("report.method-verdicts", "info", "Verdicts: a pair is decided when the interval of"
                                " its difference excludes zero, not yet decided otherwise.")
NOTE_METHOD_RANKS = NoteKind("report.method-ranks", "info", "Ranks: each replicate ranks the models; rank intervals are"
                             " bootstrap percentiles, tiers come from simultaneous pairwise intervals (Klein, Wright &"
                             " Wieczorek 2020).")
NOTE_METHOD_WEIGHTS = NoteKind(
    "report.method-weights", "info", "Task weights: at each weighting the leading model is significantly best when"
    " its lead exceeds z standard errors of its difference with the runner-up (Longjohn et al. 2025); z = 2 assumes"
    " independence, z = 1.4 allows for a moderate positive correlation; with paired replicates the correlation is"
    " measured and z = 2.")
NOTE_METHOD_DETECTABLE = NoteKind("report.method-detectable", "info", "Detectable difference: (z_0.975 + z_0.80) x SE"
                                  " = 2.80 x SE, the true difference a two-sided 5% test detects with 80% power.")


def method_notes(f) -> list[str]:
    reps, level = f["reps"], f["level"]
    notes = []
    if reps.resampling == "paired":
        unit = "clusters (whole clusters kept together)" if reps.unit == "cluster" else "items"
        notes.append(NOTE_BOOTSTRAP_REPLICATES_WITHIN_EACH(n_resamples=reps.n_resamples, unit=unit))
    elif reps.resampling == "independent":
        notes.append(NOTE_BOOTSTRAP_REPLICATES_WITHIN_EACH_2(n_resamples=reps.n_resamples, unit=reps.unit))
    else:
        notes.append(NOTE_BOOTSTRAP_REPLICATES_PER_TASK(n_resamples=reps.n_resamples))
    notes += [
        NOTE_METHOD_INTERVALS(level=format_level(level),
                              floor=f" {FLOOR_METHOD}" if getattr(getattr(reps, "cells", None), "binary", False) else ""),
        NOTE_METHOD_VERDICTS(), NOTE_METHOD_RANKS(), NOTE_METHOD_WEIGHTS(), NOTE_METHOD_DETECTABLE(),
    ]
    if f["bayes"] is not None:
        notes.append(NOTE_BAYESIAN_INTERVALS_BETA_BINOMIAL())
    return notes


def references(f) -> list[tuple[str, str | None]]:
    return [
        ("R. Longjohn, G. Gopalan, E. Casleton (2025). Statistical Uncertainty Quantification for Aggregate "
         "Performance Metrics in Machine Learning Benchmarks. arXiv:2501.04234.", "https://arxiv.org/abs/2501.04234"),
        ("E. Miller (2024). Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations. "
         "arXiv:2411.00640.", "https://arxiv.org/abs/2411.00640"),
        ("B. Efron, R. J. Tibshirani (1993). An Introduction to the Bootstrap. Chapman & Hall.", None),
        ("H. Goldstein, M. J. R. Healy (1995). The graphical presentation of a collection of means. JRSS A 158, "
         "175-177.", None),
        ("M. Klein, T. Wright, J. Wieczorek (2020). A joint confidence region for an overall ranking of "
         "populations. JRSS C 69, 589-606.", None),
    ]
