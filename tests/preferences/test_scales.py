"""Rating scales and anchors (theory: Elo points are 400 / ln 10 per logit; strengths sum to 1)."""

from __future__ import annotations

import numpy as np
import pytest

from evalband.preferences.scales import ELO_PER_LOGIT, parse_anchor, to_scale


def test_elo_points_per_logit():
    # odds of 10 to 1 are 400 Elo points: logit difference ln(10)
    r = to_scale(np.array([np.log(10.0), 0.0]), "elo")
    assert r[0] - r[1] == pytest.approx(400.0) and r.mean() == pytest.approx(1000.0)
    assert ELO_PER_LOGIT == pytest.approx(173.7177927613007)


def test_logit_prob_and_anchor():
    theta = np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 2.0]])
    np.testing.assert_allclose(to_scale(theta, "logit").mean(axis=1), 0.0, atol=1e-15)
    p = to_scale(theta, "prob")
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_allclose(p[0], np.exp(theta[0]) / np.exp(theta[0]).sum())
    anchored = to_scale(theta, "elo", (2, 1500.0))
    np.testing.assert_allclose(anchored[:, 2], 1500.0)
    np.testing.assert_allclose(np.diff(anchored, axis=1), ELO_PER_LOGIT * np.diff(theta, axis=1))


@pytest.mark.parametrize("anchor", [{"b": 1100}, ("b", 1100), "b=1100", "b = 1100"])
def test_anchor_forms(anchor):
    assert parse_anchor(anchor, ("a", "b"), "elo") == (1, 1100.0)


def test_anchor_errors():
    with pytest.raises(ValueError, match="must look like 'MODEL=1000'"):
        parse_anchor("b", ("a", "b"), "elo")
    with pytest.raises(ValueError, match="value after '=' must be a number"):
        parse_anchor("b=high", ("a", "b"), "elo")
    with pytest.raises(TypeError, match="must be a finite number"):
        parse_anchor({"b": float("nan")}, ("a", "b"), "elo")
    with pytest.raises(ValueError, match="unknown model 'c'"):
        parse_anchor("c=1", ("a", "b"), "logit")
    with pytest.raises(ValueError, match="does not apply to scale='prob'"):
        parse_anchor("b=1", ("a", "b"), "prob")
    assert parse_anchor(None, ("a",), "elo") is None
