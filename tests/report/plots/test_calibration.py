"""The calibration plot's bins against the numbers written out (equal-count bins, Wilson intervals)."""

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from evalband.report.plots.calibration import calibration_bins


def test_bins_are_equal_count_with_wilson_intervals():
    rng = np.random.default_rng(0)
    f = rng.random(103)
    y = (rng.random(103) < f).astype(float)
    b = calibration_bins(f, y, n_bins=5)
    order = np.argsort(f, kind="stable")
    groups = np.array_split(order, 5)
    assert b["n"].tolist() == [len(g) for g in groups]
    for i, g in enumerate(groups):
        assert b["predicted"][i] == pytest.approx(f[g].mean())
        lo, hi = proportion_confint(int(y[g].sum()), len(g), alpha=0.05, method="wilson")
        assert (b["low"][i], b["high"][i]) == pytest.approx((lo, hi), rel=1e-9)
    # fractional scores: the normal interval of the mean
    yf = np.clip(f + rng.normal(0, 0.1, 103), 0, 1)
    b = calibration_bins(f, yf, n_bins=2)
    g = np.array_split(order, 2)[0]
    half = 1.959963984540054 * yf[g].std(ddof=1) / np.sqrt(len(g))
    assert b["high"][0] - b["observed"][0] == pytest.approx(half)
