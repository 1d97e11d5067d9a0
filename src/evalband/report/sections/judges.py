"""The report section of the judges' analysis (:func:`evalband.analysis.judges.human_labels`): what the human
labels and the judge's scores give together, per model, beside the labels alone and the judge alone."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...display import decimals_for, format_level, format_value
from ..section import Section, Table

__all__ = ["ppi_section"]

_METHOD = {"ppi++": "PPI++ (power-tuned lambda)", "classic": "classic PPI (lambda = 1)",
           "labelled": "the human labels alone (lambda = 0)"}


def _interval(est, low, high, se, scale):
    d = decimals_for(se * scale) if np.isfinite(se) and se > 0 else 3
    return (f"{format_value(est * scale, d)} ({format_value(low * scale, d)}, {format_value(high * scale, d)})"
            if np.isfinite(est) else "")


def ppi_section(result, analysis) -> Section:
    """A section from :class:`~evalband.judges.PPIEstimates`: a table per model (and task), findings on lambda
    and the effective sample size."""
    est = result
    scale = est.scale
    level = format_level(est.confidence_level)
    rows = []
    several = len(est.tasks) > 1
    for i, model in enumerate(est.models):
        for t, task in enumerate(est.tasks):
            se, lse = est.se[i, t], est.labelled_se[i, t]
            d = decimals_for(se * scale) if np.isfinite(se) and se > 0 else 3
            row = {"model": model}
            if several:
                row["task"] = task
            row.update({f"human scale, {level} CI": _interval(est.estimate[i, t], est.ci.low[i, t],
                                                             est.ci.high[i, t], se, scale),
                        f"labels alone, {level} CI": _interval(est.labelled_estimate[i, t],
                                                               est.labelled_ci.low[i, t],
                                                               est.labelled_ci.high[i, t], lse, scale),
                        "judge alone": format_value(est.judge_mean[i, t] * scale, d),
                        "lambda": format_value(est.lam[i, t], 2),
                        "labelled + unlabelled": f"{int(est.n_labelled[i, t]):,} + {int(est.n_unlabelled[i, t]):,}",
                        "effective n": format_value(est.ess[i, t], 0)})
            rows.append(row)
    gain = est.gain[np.isfinite(est.gain)]
    lam = est.lam[np.isfinite(est.lam)]
    bias = est.judge_mean - est.estimate
    findings = [f"Estimates are of the human-scale score, by {_METHOD.get(est.method, est.method)}: the judge's"
                " score on every item, corrected by its error on the items that have a human label."]
    if gain.size:
        findings.append(f"The judge's scores are worth a median {np.median(gain):.2f}x the human labels alone in"
                        f" effective sample size (range {gain.min():.2f}x to {gain.max():.2f}x); median lambda"
                        f" {np.median(lam):.2f}.")
    if np.isfinite(bias).any():
        unit = " points" if scale == 100 else ""
        off = np.nanmean(np.abs(bias)) * scale
        findings.append(f"Taken at face value the judge is off the human scale by {off:.3g}{unit} on average (judge"
                        " alone minus the human-scale estimate).")
    methods = ("The estimate is lambda x (judge mean on the unlabelled items) + (mean of human label minus lambda x"
               " judge score on the labelled items); PPI++ chooses lambda to minimise the variance (0: the labels"
               " alone; 1: classic PPI). The interval is the normal PPI interval (equal to ppi_py's ppi_mean_ci"
               " without clusters; cluster-robust with clusters); comparisons and rankings in this report use the"
               " bootstrap of the same estimates. Valid when the labelled items are a random sample of the items.",
               "Effective n: the number of human labels alone that would give the same precision (labelled n times"
               " the ratio of the labels-only variance to the PPI variance). Dorner et al. (2024) show that a judge"
               " no more accurate than the evaluated models cannot gain more than about 2x.")
    refs = (("Angelopoulos, Duchi & Zrnic (2023). PPI++: Efficient prediction-powered inference.",
             "https://arxiv.org/abs/2311.01453"),
            ("Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023). Prediction-powered inference. Science 382.",
             None),
            ("Dorner, Nastl & Hardt (2024). Limits to scalable evaluation at the frontier: LLM as judge won't beat"
             " twice the data.", "https://arxiv.org/abs/2410.13341"))
    table = Table(f"Human-scale estimates ({level} intervals)" + (" in points" if scale == 100 else ""),
                  pd.DataFrame(rows), key="ppi")
    return Section("judges", "Judge and human labels", "What the judge's scores and the human labels give together,"
                   " beside the labels alone and the judge alone.", tuple(findings), (table,), (), methods, refs,
                   tuple(n for n in est.notes if n not in getattr(analysis.selection.table, "notes", ())))
