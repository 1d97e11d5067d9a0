"""rank(): every model and aggregate from one replicate set."""

import numpy as np
import pytest

from evalband import load_example
from evalband.ranking import rank

VTAB3 = ["Sup-Rotation-100%", "Sup-Exemplar-100%", "Sup-100%"]


@pytest.fixture(scope="module")
def vtab_ranking():
    return rank(load_example("vtab"), aggregate="mean,mean-rank", n_resamples=2000, rng=4)


def test_rank_frame_and_orders(vtab_ranking):
    f = vtab_ranking.to_frame()
    for col in ("model", "estimate", "ci_low", "ci_high", "rank_mean", "rank_low", "rank_high", "p_best",
                "rank_sim_low", "rank_sim_high", "tier"):
        assert col in f.columns
    mean = vtab_ranking["mean"]
    assert mean.models[int(np.argmin(mean.rank))] == "Sup-Rotation-100%"
    mr = vtab_ranking["mean-rank"]
    assert not mr.higher_is_better
    assert np.all(np.diff(mr.estimate[np.argsort(mr.rank)]) >= -1e-12)  # rank 1 has the smallest mean rank
    assert mr.rank[mr.models.index("Sup-Rotation-100%")] == mr.rank[mr.models.index("Sup-Exemplar-100%")] == 1
    for r in (mean, mr):
        assert r.p_best.sum() == pytest.approx(1.0)
        assert np.all(r.rank_simultaneous.low <= r.rank) and np.all(r.rank <= r.rank_simultaneous.high)
        assert np.allclose(r.distribution.sum(axis=1), 1.0)
        assert r.rank_samples.shape == (2000, 16)
        np.testing.assert_allclose(r.rank_mean, r.rank_samples.mean(axis=0))


def test_rank_same_seed_and_restriction():
    a = rank(load_example("vtab"), models=VTAB3, n_resamples=500, rng=1).to_frame()
    b = rank(load_example("vtab"), models=VTAB3, n_resamples=500, rng=1).to_frame()
    assert a.equals(b)
    assert set(a["model"]) == set(VTAB3) and a["rank_high"].max() <= 3


def test_rank_errors():
    with pytest.raises(ValueError, match="simultaneous"):
        rank(load_example("vtab"), n_resamples=10, simultaneous="tukey")
