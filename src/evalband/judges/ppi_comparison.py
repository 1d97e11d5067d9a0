"""Comparisons of models on the human scale with PPI: every pair's difference with its interval, p-value and verdict
(the PPI point estimates and their SEs from :mod:`evalband.estimation.ppi_table`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import InputError, check_choice
from ..comparison.multiplicity import adjust_p_values, correction_level
from ..comparison.pairwise import PairwiseComparison, interval_label
from ..comparison.verdict import (MIN_UNITS, check_margin, reading, verdict, verdict_detail, withhold,
                                  withheld_text)
from ..estimation.confidence import ConfidenceInterval
from ..display.reprs import html_head, titled_repr
from ..estimation.ppi import cluster_variance, t_interval, t_p_value
from ..estimation.ppi_table import PPI_CORRECTIONS, PPIEstimates, ppi_estimate
from ..display.reprs import displayed
from ..display.notes import NoteKind

__all__ = ["PPIComparison", "ppi_compare"]


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class PPIComparison:
    """Paired PPI differences between models, one :class:`~evalband.comparison.PairwiseComparison` per task.

    Attributes
    ----------
    tasks : tuple of str
    pairs : tuple of PairwiseComparison
        Per task: differences ``A - B`` (best first), analytic se, intervals at the corrected level, p-values,
        verdicts ('A better', 'B better', 'equivalent', 'not yet decided'), readings. ``correlation`` is the
        correlation of the two models' PPI estimates (from their influence terms).
    estimates : PPIEstimates
    method, correction : str
    notes : tuple of str
    """

    tasks: tuple
    pairs: tuple
    estimates: PPIEstimates
    method: str
    correction: str
    notes: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        """One row per task and pair, with compare's columns plus method and each model's labels and lambda."""
        frames = []
        est = self.estimates
        for t, (task, pc) in enumerate(zip(self.tasks, self.pairs)):
            f = pc.to_frame()
            f["method"] = self.method
            f["n_labelled_a"] = est.n_labelled[pc.index_a, t]
            f["n_labelled_b"] = est.n_labelled[pc.index_b, t]
            f["lambda_a"] = est.lam[pc.index_a, t]
            f["lambda_b"] = est.lam[pc.index_b, t]
            frames.append(f)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def readings(self) -> list[str]:
        """One sentence per task and pair."""
        return [f"{pc.statistic}: {r}" for pc in self.pairs for r in pc.readings]

    def __repr__(self) -> str:
        lines = self.readings()[:10]
        n = sum(len(pc.readings) for pc in self.pairs)
        if n > len(lines):
            lines.append(f"... {n - len(lines)} more pairs; see .to_frame()")
        return titled_repr(f"PPIComparison({self.method}, {len(self.tasks)} task(s), {n} pair(s), correction"
                          f" {self.correction!r})", lines, self.notes)

    def _repr_html_(self) -> str:
        return html_head(self.to_frame())


NOTE_VERDICTS_FROM_T_INTERVALS = NoteKind(
    'judges.verdicts-from-t-intervals', 'caveat',
    "verdicts from t intervals of the paired PPI differences (same items, same judge; Student's t on the fewer "
    "labelled items of the two, minus one); a model with fewer than 10 human labels gets none")


def ppi_compare(data, *, method: str = "ppi++", correction: str = "none", margin: float = 0.0,
                confidence_level=0.95, alternative: str = "two-sided", cluster: bool | None = None, models=None,
                tasks=None, estimates: PPIEstimates | None = None) -> PPIComparison:
    """Paired PPI differences between every pair of models on each task, with verdicts.

    Parameters
    ----------
    data : ResultsTable, path or DataFrame
        As for :func:`ppi_estimate` (ignored when ``estimates`` is given).
    method : {'ppi++', 'classic', 'labelled'}
    correction : {'none', 'bonferroni', 'holm', 'bh'}
        Multiple-comparison control over the pairs of each task (:func:`evalband.comparison.adjust_p_values`;
        intervals at the corresponding per-comparison level).
    margin : float
        Practical margin for the verdicts, on the score's scale (0.01 = one point).
    confidence_level, alternative, cluster, models, tasks
        As for :func:`ppi_estimate`.
    estimates : PPIEstimates, optional
        Reuse estimates already computed (their method and level).

    Returns
    -------
    PPIComparison

    Notes
    -----
    The difference of two models' PPI estimates is the difference of the estimates that :func:`ppi_estimate`
    reports (each model keeps its own lambda). Both models are scored by the same judge on the same items, so
    their errors are correlated; the variance of the difference sums the squared differences of the two models'
    per-item influence terms (per cluster, CR1, with clusters), which keeps that correlation, as a paired test
    does. The interval is a t interval on the labelled degrees of freedom of the model with fewer labels (as for
    :func:`ppi_mean`); p-values are the t-test's of a zero difference; verdicts are read from the interval of the
    difference (:func:`evalband.comparison.verdict`) and withheld when a model has fewer than 10 human labels.

    References
    ----------
    Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered inference.
    arXiv:2311.01453.
    Boyeau, P., Angelopoulos, A. N., Yosef, N., Malik, J. & Jordan, M. I. (2024). AutoEval done right: using
    synthetic data for model evaluation. arXiv:2403.07008.

    Examples
    --------
    >>> from evalband.judges import ppi_compare
    >>> res = ppi_compare("judged.csv", correction="holm")                  # doctest: +SKIP
    >>> res.to_frame()[["model_a", "model_b", "difference", "verdict"]]    # doctest: +SKIP
    """
    correction = check_choice(correction, PPI_CORRECTIONS, "correction")
    margin = check_margin(margin)
    if estimates is None:
        estimates = ppi_estimate(data, method=method, confidence_level=confidence_level, alternative=alternative,
                                 cluster=cluster, models=models, tasks=tasks)
    level, alternative = estimates.confidence_level, estimates.alternative
    names = estimates.models
    m = len(names)
    if m < 2:
        raise InputError(f"a comparison needs at least 2 models; found {m} ({', '.join(names)})")
    scale = estimates.scale
    unit = "points" if scale == 100.0 else ""
    out = []
    for t, task in enumerate(estimates.tasks):
        res, onehot = estimates._per_task[t]
        est = res.estimate
        order = np.argsort(-np.where(np.isfinite(est), est, -np.inf), kind="stable")
        i, j = np.triu_indices(m, k=1)
        ia, ib = order[i], order[j]
        d = est[ia] - est[ib]
        infl = res.influence
        # the small-sample variance of the difference: each item's squared influence difference times the larger
        # of the two models' small-sample factors (ppi_mean)
        w = np.sqrt(np.fmax(res.factor[ia], res.factor[ib])) if res.factor is not None else 1.0
        se = np.sqrt(cluster_variance((infl[ia] - infl[ib]) * w, onehot))
        with np.errstate(invalid="ignore", divide="ignore"):
            cov = (cluster_variance((infl[ia] + infl[ib]) * w, onehot) - se ** 2) / 4.0
            corr = cov / (res.se[ia] * res.se[ib])
        df = np.fmin(res.df[ia], res.df[ib]) if res.df is not None else np.full(d.size, np.inf)
        p = t_p_value(d, se, df, alternative)
        p_adj = adjust_p_values(p, method=correction) if correction != "none" else p.copy()
        rejected = int(np.sum(p_adj <= 1 - level)) if correction == "bh" else None
        level_used = correction_level(level, d.size, correction, n_rejected=rejected)
        ci = t_interval(d, se, df, level_used, alternative)
        low, high = np.asarray(ci.low, dtype=float), np.asarray(ci.high, dtype=float)
        verdicts = verdict(low, high, margin=margin)
        n_units = np.minimum(res.n_labelled[ia], res.n_labelled[ib]).astype(np.float64)
        verdicts, basis = withhold(verdicts, low, high, se, n_units)
        ma, mb = tuple(names[k] for k in ia), tuple(names[k] for k in ib)
        label = interval_label(correction)
        details = tuple(verdict_detail(verdicts[k], low[k], high[k], margin=margin if basis[k] == "bootstrap"
                                       else 0.0, model_a=ma[k], model_b=mb[k], scale=scale) for k in range(d.size))
        readings = tuple(reading(ma[k], mb[k], d[k], low[k], high[k], verdicts[k], se=se[k],
                                 confidence_level=level_used, scale=scale, unit=unit, label=label,
                                 extra=withheld_text(basis[k], n_units[k], unit="human labels", min_units=MIN_UNITS), detail=details[k])
                         for k in range(d.size))
        nan = np.full(d.size, np.nan)
        basis_words = tuple("ppi" if b == "bootstrap" else b for b in basis)
        out.append(PairwiseComparison(str(task), "task", ma, mb, ia, ib, d, se, ConfidenceInterval(low, high), p,
                                      p_adj, verdicts, se, corr, nan, nan.copy(), None, readings, level,
                                      float(level_used), correction, estimates.method, margin, True, None, scale,
                                      None, None, n_units, basis_words, details))
    notes = list(estimates.notes)
    notes.append(NOTE_VERDICTS_FROM_T_INTERVALS())
    return PPIComparison(estimates.tasks, tuple(out), estimates, estimates.method, correction, tuple(notes))
