"""The judges' analysis of a report (analysis.extensions key 'judges') and its section (report.sections)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import evalband as eb
from evalband.judges import ppi_estimate
from evalband.report import build_report
from evalband.report.writers import render_markdown

JUDGED = Path(__file__).resolve().parents[1] / "fixtures" / "ppi" / "judged.csv"


def test_the_report_estimates_and_the_section_agree():
    a = eb.analyze(str(JUDGED), n_resamples=200, rng=1, bayes=False)
    est = a.extra("judges")
    ref = ppi_estimate(str(JUDGED))
    np.testing.assert_allclose(est.estimate, ref.estimate, atol=1e-12)
    np.testing.assert_allclose(a.replicates.observed, ref.estimate, atol=1e-12)  # the report's one replicate set
    skipped = dict(a.skipped)
    assert "human-scale" in skipped["Bayesian intervals"]
    text = render_markdown(build_report(a))
    assert "## Judge and human labels" in text and "100 + 400" in text


def test_ppi_none_skips_the_section_with_its_reason():
    a = eb.analyze(str(JUDGED), n_resamples=200, rng=1, bayes=False, ppi="none")
    assert a.extra("judges") is None
    assert "face value" in dict(a.skipped)["Judge and human labels"]


def test_no_labels_no_section():
    a = eb.analyze("example:vtab", n_resamples=100, rng=1, bayes=False)
    assert a.extra("judges") is None and "Judge and human labels" not in dict(a.skipped)
