"""``evalband bayes``: Bayesian hierarchical intervals (exact Beta-Binomial, or a NumPyro logistic model)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..display.notes import NoteKind

from ._common import (POINTS, LOG_INPUT, ConfidenceOpt, FormatOpt, InputOptions, SeedOpt, WideOpt, note_text, emit,
                      emit_json, errors, note_lines, output_format, reads_input, resolve_seed)
from .._validate import ArgumentError

MODEL_CHOICES = ("beta-binomial", "logistic")

_MODEL_COLS = ["model", "observed", "posterior_mean", "posterior_sd", "ci_low", "ci_high", "hdi_low", "hdi_high",
               "pred_low", "pred_high", "p_best", "rank_mean", "rank_low", "rank_high"]
_PAIR_COLS = ["model_a", "model_b", "observed", "posterior_mean", "posterior_sd", "ci_low", "ci_high", "hdi_low",
              "hdi_high", "pred_low", "pred_high", "p_a_better", "verdict"]


@reads_input(after={"prior": "weights",
                    "seed": "models tasks drop_cols accuracy_scale source shape model_col task_col item_col score_col"
                           " cluster group_col count_rule", "fmt": LOG_INPUT})


def bayes(
    model: Annotated[str, typer.Option("--model", help="beta-binomial (exact, no MCMC) or logistic (NumPyro"
                                       " NUTS; needs evalband[bayes]).")] = "beta-binomial",
    prior: Annotated[Optional[str], typer.Option("--prior", help="Beta-Binomial prior on each alpha, beta:"
                                                 " exponential[:rate] (default 1e-4), half-normal[:scale],"
                                                 " gamma[:shape,rate].", show_default=False)] = None,
    aggregate: Annotated[str, typer.Option("--aggregate", help="Aggregate across tasks: mean, geometric, minmax,"
                                           " mean-rank, ... (evalband.aggregate).")] = "mean",
    draws: Annotated[Optional[int], typer.Option("--draws", help="Posterior draws (beta-binomial, default 10000)"
                                                 " or draws per chain (logistic, default 1000).",
                                                 show_default=False)] = None,
    item_effects: Annotated[Optional[bool], typer.Option("--item-effects/--no-item-effects",
                                                         help="Logistic model: item (IRT-like) effects. Default:"
                                                         " on up to 2,000 items, off above (exact binomial"
                                                         " counts per model, task and cluster instead).",
                                                         show_default=False)] = None,
    method: Annotated[Optional[str], typer.Option("--method", help="Logistic model: auto (default: HMC in"
                                                  " whitened coordinates, refitted with NUTS when its chains fail"
                                                  " the checks), hmc, nuts, or laplace (an approximation, no"
                                                  " MCMC; its accuracy checks in the notes).",
                                                  show_default=False)] = None,
    clusters: Annotated[Optional[str], typer.Option("--clusters", help="Beta-binomial with clustered items:"
                                                    " ignore (count items as independent; the default, with a"
                                                    " warning giving the design effects) or effective (divide each"
                                                    " count by its design effect, Rao & Scott 1992).",
                                                    show_default=False)] = None,
    pairs: Annotated[bool, typer.Option("--pairs", help="Also report every pairwise difference.")] = False,
    sensitivity: Annotated[bool, typer.Option("--sensitivity", help="Refit under alternative priors and report"
                                              " how intervals and verdicts move.")] = False,
    compare: Annotated[bool, typer.Option("--compare", help="Bootstrap and Bayesian intervals side by side,"
                                          " flagging verdict disagreements.")] = False,
    confidence: ConfidenceOpt = "0.95",
    seed: SeedOpt = None,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    *,
    inputs: InputOptions,
):
    """Posterior means, credible intervals (ci, hdi), predictive intervals (pred) and P(best) per model."""
    from .._validate import check_choice, check_confidence_level

    with errors(**_OPTIONS):
        fmt = output_format(fmt, wide)
        kind = check_choice(model, MODEL_CHOICES, "--model")
        level = check_confidence_level(confidence, "--confidence")
        sel = inputs.selection(complete=True, shared_items=False)  # each model counted on its own items
        table = sel.table
        seed, seed_text = resolve_seed(seed)
        if kind == "logistic":
            from ..bayes.numpyro_models import logistic

            if prior is not None:
                raise ArgumentError("`--prior` applies to the beta-binomial model; the logistic model uses its own"
                                 " weakly informative priors (see evalband.bayes.logistic).")
            if clusters is not None:
                raise ArgumentError("`--clusters` applies to the beta-binomial model; the logistic model has cluster"
                                 " effects of its own.")
            from ..bayes.logistic_methods import METHODS

            method = check_choice("auto" if method is None else method, METHODS, "--method")
            result = logistic(table, method=method, num_samples=1000 if draws is None else draws,
                              confidence_level=level, weights=sel.weights, aggregate=aggregate, rng=seed,
                              item_effects=item_effects)
        else:
            if item_effects is not None:
                raise ArgumentError("`--item-effects` applies to the logistic model; add --model logistic.")
            if method is not None:
                raise ArgumentError("`--method` applies to the logistic model (the beta-binomial is exact); add"
                                    " --model logistic.")
            if clusters is not None:
                from ..bayes.clusters import CLUSTER_MODES

                clusters = check_choice(clusters, CLUSTER_MODES, "--clusters")
            from ..bayes import beta_binomial

            draws = 10_000 if draws is None else draws
            result = beta_binomial(sel, prior=prior, n_draws=draws, confidence_level=level, aggregate=aggregate,
                                   clusters=clusters, rng=seed)
        for message in result.warnings:
            typer.echo(f"evalband: warning: {message}", err=True)
        frames = [("model", best_first(result.summary()[_MODEL_COLS], result))]
        extra_notes = [seed_text]
        if pairs:
            frames.append(("pair", result.pairs()[_PAIR_COLS]))
        if sensitivity:
            from ..bayes.sensitivity import prior_sensitivity

            if kind != "beta-binomial":
                raise ArgumentError("`--sensitivity` refits the beta-binomial model; drop --model logistic.")
            from ..bayes.priors import parse_prior, sensitivity_priors

            base = parse_prior(prior)  # the prior asked for is the baseline; the usual alternatives follow
            alternatives = [p for p in sensitivity_priors() if p.label != base.label]
            sens = prior_sensitivity(sel, priors=[base, *alternatives], n_draws=min(draws, 10_000),
                                     confidence_level=level, aggregate=aggregate, clusters=clusters, rng=seed)
            frames += [("sensitivity", sens.models_frame()), ("sensitivity_pair", sens.pairs_frame())]
        if compare:
            from ..bayes.agreement import compare_with_bootstrap

            cmp = compare_with_bootstrap(sel, result, rng=seed)
            frames += [("compare", cmp.models), ("compare_pair", cmp.pairs)]
            extra_notes += list(cmp.notes)
        if fmt == "json":  # the notes as records beside the records, and on stderr
            emit_json(_output(frames, fmt, result, table, extra_notes), _notes(result, table, extra_notes))
            return
        emit(_output(frames, fmt, result, table, extra_notes))
        if fmt == "csv":  # CSV carries no notes: every note goes to stderr, as in compare/rank
            note_lines(_notes(result, table, extra_notes))


def best_first(frame, result):
    """The models best first by their mean rank (then posterior mean), as `rank` lists them: a table with P(best)
    and rank intervals reads as a leaderboard."""
    import numpy as np

    mean = frame["posterior_mean"].to_numpy(dtype=float)
    order = np.lexsort((-mean if result.higher_is_better else mean, frame["rank_mean"].to_numpy(dtype=float)))
    return frame.iloc[order].reset_index(drop=True)


#: Library arguments named in bayes messages -> the options that set them.
_OPTIONS = {"clusters": "--clusters", "method": "--method"}


#: the data a Bayesian result rests on (its description says its arguments in the audience's words)
DATA = NoteKind("cli.data", "info", "data: {description}")


def _notes(result, table, extra_notes) -> list[str]:
    """The notes under the output: the library's (in command-line words), the command's, and the data."""
    return [*(note_text(n, _OPTIONS) for n in result.notes), *extra_notes, note_text(DATA(description=table.describe()), _OPTIONS)]


def _output(frames, fmt, result, table, extra_notes=()) -> str:
    """Every frame of the fit: one table each (proportions in points), or one JSON list / CSV table of records
    tagged by ``record`` (fractions, full precision)."""
    import pandas as pd

    from ..display import render, to_csv, to_json

    if fmt in ("json", "csv"):
        frame = pd.concat([f.assign(record=k) for k, f in frames], ignore_index=True)
        frame = frame[["record", *[c for c in frame.columns if c != "record"]]]
        return to_json(frame) if fmt == "json" else to_csv(frame)
    scale = 100.0 if getattr(result.aggregator, "on_score_scale", True) else 1.0
    titles = {"model": f"Bayesian {result.method}: {result.aggregate_name}",
              "pair": "Pairwise differences A - B", "sensitivity": "Prior sensitivity: model intervals",
              "sensitivity_pair": "Prior sensitivity: verdicts", "compare": "Bootstrap vs Bayesian: models",
              "compare_pair": "Bootstrap vs Bayesian: pairs"}
    parts = []
    for i, (kind, frame) in enumerate(frames):
        value_cols = [c for c in frame.columns if c.endswith(("_low", "_high", "_mean", "observed", "_sd", "_diff",
                                                               "_shift"))
                      and not c.startswith("rank")]
        se_col = "posterior_sd" if "posterior_sd" in frame.columns else None
        last = i == len(frames) - 1
        notes = _notes(result, table, extra_notes) if last else ()
        if last and scale == 100.0:
            notes = [POINTS(), *notes]
        shown = frame.assign(confidence_level=result.confidence_level) if "ci_low" in frame.columns else frame
        parts.append(render(shown, fmt, value_cols=value_cols, se_col=se_col, scale=scale, title=titles.get(kind),
                            notes=notes))
    return "\n".join(parts)
