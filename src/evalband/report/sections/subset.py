"""The report's subset-evaluation section (registered in :data:`evalband.report.sections.SECTIONS` as 'subset'):
the full-benchmark estimates with both intervals, the difference from a reference model, the anchor point
estimates said to have no valid interval, the items used and skipped, the savings at the achieved standard error,
and the calibration plot, read from a :class:`evalband.subset.SubsetEstimate`. It computes no statistic."""

from __future__ import annotations

from ...display import display_frame, format_level
from ..section import Section, Table

__all__ = ["subset_section"]

_REFERENCES = (
    ("Cochran, W. G. (1977). Sampling Techniques, 3rd ed. Wiley (ch. 5 stratified sampling, ch. 7 regression"
     " estimators).", None),
    ("Zrnic, T. and Candes, E. J. (2024). Cross-prediction-powered inference. PNAS 121(15).",
     "https://arxiv.org/abs/2309.16598"),
    ("Polo, F. M. et al. (2024). tinyBenchmarks: evaluating LLMs with fewer examples. ICML.",
     "https://arxiv.org/abs/2402.14992"),
)


def _savings(frame) -> list[str]:
    out = []
    for model, g in frame.groupby("model", sort=False):
        g = g.set_index("method")
        pa = g.loc["prediction-assisted"]
        n, N, n_eff = int(pa["n_evaluated"]), int(pa["n_items"]), float(pa["effective_n"])
        out.append(f"{model}: {n:,} of {N:,} items evaluated ({n / N:.1%}, {N - n:,} skipped); the"
                   f" prediction-assisted standard error {100 * pa['se']:.2g} points is what a simple random sample"
                   f" of about {n_eff:,.0f} items would give ({n_eff / max(n, 1):.2g} times the items evaluated).")
    return out


def subset_section(result, analysis=None):
    """The subset-evaluation section of a report from a :class:`evalband.subset.SubsetEstimate`.

    Parameters
    ----------
    result : evalband.subset.SubsetEstimate
    analysis : ignored
        For the registry's signature ``builder(result, analysis)``.

    Returns
    -------
    evalband.report.section.Section

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.subset import estimate
    >>> rng = np.random.default_rng(0)
    >>> theta, b = rng.normal(size=9), rng.normal(size=400)
    >>> y = (rng.random((9, 400)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(float)
    >>> df = pd.DataFrame([(f"m{m}", "t", f"q{i}", y[m, i]) for m in range(9) for i in range(400)],
    ...                   columns=["model", "task", "item", "score"])
    >>> new = df[(df["model"] == "m8") & df["item"].isin([f"q{i}" for i in range(0, 400, 4)])]
    >>> sec = subset_section(estimate(df[df["model"] != "m8"], new, rng=0))
    >>> sec.key, [t.key for t in sec.tables], [f.key for f in sec.figures]
    ('subset', ['subset-scores'], ['subset-calibration'])
    """
    from ..build import Figure
    from ..plots.calibration import calibration_plot

    level = format_level(result.confidence_level)
    frame = result.to_frame()
    shown, _ = display_frame(frame[["model", "method", "estimate", "se", "ci_low", "ci_high", "n_evaluated",
                                    "n_items", "effective_n"]],
                             value_cols=("estimate", "se", "ci_low", "ci_high"), keep=("model", "method"))
    tables = [Table(f"Full-benchmark score, {level} intervals", shown, key="subset-scores")]
    findings = _savings(frame)
    diffs = result.differences_frame()
    if diffs is not None:
        shown, _ = display_frame(diffs[["model", "against", "method", "difference", "se", "ci_low", "ci_high",
                                        "verdict"]],
                                 value_cols=("difference", "se", "ci_low", "ci_high"),
                                 keep=("model", "against", "method", "verdict"))
        tables.append(Table(f"Difference from {result.against}, {level} intervals", shown, key="subset-differences"))
        for _, r in diffs[diffs["method"] == "prediction-assisted"].iterrows():
            findings.append(f"{r['model']} against {r['against']}: {r['verdict']} (prediction-assisted interval).")
    anchors = result.anchors_frame()
    if anchors is not None and len(anchors):
        shown, _ = display_frame(anchors, value_cols=("estimate",), se_col=None,
                                 keep=("model", "method", "interval"))
        tables.append(Table("Anchor point estimates (tinyBenchmarks): point estimates with no valid interval",
                            shown, key="subset-anchors"))
    ax = calibration_plot(result)
    figure = Figure("subset-calibration", "Calibration of the prediction",
                    "The new model's mean observed score against the prediction made from the reference models, on"
                    f" the evaluated items in ten equal-count bins of the cross-fitted prediction, {level} intervals;"
                    " the grey line is perfect calibration.", ax.figure)
    methods = (
        f"The items were a {result.design} sample of the benchmark. Design-based: the stratified mean with the"
        " finite-population correction and a t interval on Satterthwaite's degrees of freedom.",
        "Prediction-assisted: each item's score is predicted from the reference models (a logistic regression on"
        " the item's reference difficulty and the nearest reference models' scores), cross-fitted over 10 folds,"
        " and used as a control variate in the regression estimator; it keeps its level however poor the"
        " prediction, and is narrower when the prediction is good (the effective n says by how much).",
        "Anchor points are not a random sample: their estimates are shown without an interval because no valid one"
        " exists.",
    )
    return Section("subset", "Subset evaluation",
                   "The new model's score over every item of the benchmark, estimated from the items it was"
                   " evaluated on, with the items used and skipped and what the prediction from the reference"
                   " models saved.", findings=tuple(findings), tables=tuple(tables), figures=(figure,),
                   methods=methods, references=_REFERENCES, notes=tuple(result.notes))
