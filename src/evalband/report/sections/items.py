"""The report's "Items" section (registered in :data:`evalband.report.sections.SECTIONS` as 'items', shown when
asked: ``--sections items``): the item diagnostics of item-level results, read from an
:class:`~evalband.latent.ItemsResult` (:func:`evalband.analysis.latent.items_extension`): the flagged items
sorted by their flag, each task's information summary and where on the ability scale it discriminates. It
computes no statistic."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...display import decimals_for, format_interval, format_level, format_percent, format_value
from ..section import Section, Table
from ...latent.diagnostics import FLAG_ORDER, flag_counts, flag_rank

__all__ = ["items_section", "flagged_rows", "information_rows", "FLAG_ORDER", "MAX_ITEMS_SHOWN"]

#: flagged items listed in the report (all of them with ``evalband items FILE``)
MAX_ITEMS_SHOWN = 200

_REFERENCES = (
    ("Birnbaum, A. (1968). Some latent trait models and their use in inferring an examinee's ability. In Lord, F. M."
     " & Novick, M. R., Statistical Theories of Mental Test Scores. Addison-Wesley.", None),
    ("Kipnis, A. et al. (2024). metabench: a sparse benchmark to measure general ability in large language models."
     " arXiv:2407.12844.", "https://arxiv.org/abs/2407.12844"),
    ("Hofmann, V. et al. (2025). Fluid language model benchmarking. Conference on Language Modeling (COLM).",
     None),
)


def _digits_of(low, high) -> int:
    se = (float(high) - float(low)) / 3.92
    return decimals_for(se) if np.isfinite(se) and se > 0 else 2


def flagged_rows(frame: pd.DataFrame, limit: int = MAX_ITEMS_SHOWN) -> pd.DataFrame:
    """The flagged items of :meth:`ItemsResult.to_frame` as display strings, sorted by their flag
    (:data:`FLAG_ORDER`), then by discrimination (lowest first) within a flag; at most ``limit`` rows.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"task": "t", "item": ["i1", "i2", "i3"], "difficulty": [0.1, -3.0, 0.5],
    ...     "difficulty_ci_low": [-0.2, -4.0, 0.2], "difficulty_ci_high": [0.4, -2.0, 0.8],
    ...     "discrimination": [1.2, 0.3, -1.5], "discrimination_ci_low": [0.8, -0.5, -2.2],
    ...     "discrimination_ci_high": [1.6, 1.1, -0.8], "item_total": [0.4, 0.0, -0.3], "p_correct": [0.5, 1.0, 0.4],
    ...     "n_models": 20, "flag": ["", "saturated: every model right", "negative discrimination: likely a wrong"
    ...     " answer key"], "confidence_level": 0.95})
    >>> flagged_rows(frame)["item"].tolist()
    ['i3', 'i2']
    """
    flagged = frame[frame["flag"] != ""]
    if flagged.empty:
        return pd.DataFrame()
    key = np.array([flag_rank(f) for f in flagged["flag"]])
    order = np.lexsort((np.arange(len(flagged)), flagged["discrimination"].to_numpy(dtype=float), key))
    level = format_level(float(frame["confidence_level"].iloc[0]))
    rows = []
    for x in flagged.iloc[order[:limit]].itertuples():
        da = _digits_of(x.discrimination_ci_low, x.discrimination_ci_high)
        db = _digits_of(x.difficulty_ci_low, x.difficulty_ci_high)
        # a saturated item: no estimate, its difficulty beyond the abilities measured ('> x' / '< x')
        bound = getattr(x, "difficulty_bound", None) in ("above", "below")
        rows.append({"task": str(x.task), "item": str(x.item), "flag": str(x.flag),
                     "discrimination": "" if not np.isfinite(x.discrimination) else
                     format_value(float(x.discrimination), da),
                     f"{level} CI": "" if not np.isfinite(x.discrimination_ci_low) else
                     format_interval(float(x.discrimination_ci_low), float(x.discrimination_ci_high), da),
                     "difficulty": format_interval(float(x.difficulty_ci_low), float(x.difficulty_ci_high), 2)
                     if bound else format_value(float(x.difficulty), db),
                     "item-total r": "" if not np.isfinite(x.item_total) else f"{x.item_total:.2f}",
                     "share right": format_percent(x.p_correct), "models": f"{int(x.n_models):,}"})
    return pd.DataFrame(rows)


def information_rows(info: pd.DataFrame) -> pd.DataFrame:
    """Per task: items, flagged items, mean discrimination, the peak of its information curve and the ability
    range above half the peak, and its mean information at the models' abilities (display strings).

    Examples
    --------
    >>> import pandas as pd
    >>> info = pd.DataFrame({"task": ["t"], "n_items": [40], "n_flagged": [2], "mean_discrimination": [1.1],
    ...     "peak_ability": [0.2], "peak_information": [9.5], "half_low": [-1.0], "half_high": [1.3],
    ...     "information_at_models": [6.2]})
    >>> information_rows(info).iloc[0]["information ≥ half its peak"]
    '-1.0 to 1.3'
    """
    rows = []
    for x in info.itertuples():
        span = ("" if not (np.isfinite(x.half_low) and np.isfinite(x.half_high))
                else f"{x.half_low:.1f} to {x.half_high:.1f}")
        rows.append({"task": str(x.task), "items": f"{int(x.n_items):,}", "flagged": f"{int(x.n_flagged):,}",
                     "mean discrimination": f"{x.mean_discrimination:.2f}", "peak at ability": f"{x.peak_ability:.1f}",
                     "information ≥ half its peak": span, "peak information": f"{x.peak_information:.3g}",
                     "information at the models": f"{x.information_at_models:.3g}"})
    return pd.DataFrame(rows)


def _findings(result) -> list:
    frame, info = result.frame, result.task_information
    out = [result.headline()[0].upper() + result.headline()[1:] + "."]
    flags = frame.loc[frame["flag"] != "", "flag"]
    if len(flags):
        n, several, counts = flag_counts(flags)  # items per flag, as the items command's note counts them
        out.append(f"Items per flag ({n:,} item{'s' if n != 1 else ''} flagged"
                   + (f", {several:,} with more than one flag, counted under each" if several else "") + "): "
                   + "; ".join(f"{name} ({k:,})" for name, k in counts.items()) + ".")
        wrong = frame[frame["flag"].str.startswith(FLAG_ORDER[0])]
        if len(wrong):
            shown = ", ".join(f"{t} / {i}" for t, i in zip(wrong["task"].head(5), wrong["item"].head(5)))
            out.append(f"{len(wrong):,} item{'s' if len(wrong) != 1 else ''} where stronger models do worse with"
                       f" confidence, the mark of a wrong answer key: {shown}{' and more' if len(wrong) > 5 else ''}"
                       ". Check their keys first.")
        worst = info.assign(share=info["n_flagged"] / info["n_items"].clip(lower=1)).sort_values(
            ["share", "task"], ascending=[False, True]).iloc[0]
        if worst["n_flagged"]:
            out.append(f"{worst['task']} has the largest share of flagged items: {int(worst['n_flagged']):,} of"
                       f" {int(worst['n_items']):,} ({format_percent(worst['share'])}).")
    else:
        out.append("No item is flagged.")
    lo, hi = float(np.min(result.ability)), float(np.max(result.ability))
    easy = info[info["half_high"] < lo]["task"].tolist()
    hard = info[info["half_low"] > hi]["task"].tolist()
    if easy:
        out.append(f"Too easy for these models (all their information lies below the weakest model's ability):"
                   f" {', '.join(map(str, easy))}.")
    if hard:
        out.append(f"Too hard for these models (all their information lies above the strongest model's ability):"
                   f" {', '.join(map(str, hard))}.")
    return out


def items_section(result, analysis=None) -> Section:
    """The "Items" section from an ItemsResult (module doc)."""
    from ..build import Figure
    from ..plots.latent import information_ranges

    level = format_level(result.confidence_level)
    frame, info = result.frame, result.task_information
    tables = []
    flagged = flagged_rows(frame)
    n_flagged = int((frame["flag"] != "").sum())
    if n_flagged:
        more = (f" (the first {MAX_ITEMS_SHOWN:,} of {n_flagged:,}; evalband items FILE lists all)"
                if n_flagged > MAX_ITEMS_SHOWN else "")
        tables.append(Table(f"Flagged items, by flag{more}; discrimination with its {level} interval", flagged,
                            key="items-flagged"))
    tables.append(Table("Per task: information summary", information_rows(info), key="items-tasks"))
    figure = Figure("items-information", "Where each task discriminates",
                    "For each task, the abilities where its test information (the sum over its items of"
                    " discrimination² × p × (1 − p)) is at least half its peak (bar) and the peak (dot); ticks"
                    " below: the models' abilities. A task whose bar lies away from the ticks tells these models"
                    " little apart.",
                    information_ranges(info["task"], info["peak_ability"], info["half_low"], info["half_high"],
                                       abilities=result.ability).figure)
    model = "two-parameter logistic (2PL)" if result.model == "2pl" else "Rasch (every discrimination 1)"
    methods = (f"Item diagnostics: the {model} model fitted to every response by joint maximum a posteriori"
               " estimation; item intervals from the observed information; the item-total correlation is each"
               " item against the model's mean on the other items of its task.",)
    return Section("items", "Items",
                   "Which items carry information about the models and which look broken: flagged items first,"
                   " then where each task discriminates on the ability scale.",
                   findings=tuple(_findings(result)), tables=tuple(tables), figures=(figure,), methods=methods,
                   references=_REFERENCES, notes=tuple(result.notes))
