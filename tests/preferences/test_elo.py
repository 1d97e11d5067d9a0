"""Online Elo and FastChat's bootstrap Elo.

Oracles: evalica's Elo goldens (k = 4, initial 1000), live evalica on fresh inputs, and FastChat's
``compute_elo`` transcribed from ``fastchat/serve/monitor/elo_analysis.py``.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

from evalband.preferences import BattleTable, ClusterBootstrap, online_elo, resampling_units
from evalband.preferences.elo import _kernel, bootstrap_elo

from ..conftest import FIXTURES
from .test_bradley_terry import GOLDENS, LLMFAO, T, W, golden, table_from_counts, table_from_file


@pytest.mark.parametrize("name", ["food", "simple", "llmfao"])
def test_online_elo_matches_evalica_golden(name):
    # evalica.elo(xs, ys, winners) with its defaults (initial 1000, base 10, scale 400, k 4): {name}-golden.csv
    table = table_from_file(LLMFAO if name == "llmfao" else GOLDENS / f"{name}.csv")
    ours = pd.Series(online_elo(table.model_a, table.model_b, table.outcome, table.n_models, k=4.0),
                     index=table.models)
    g = golden(name, "elo")
    np.testing.assert_allclose(ours[g.index].to_numpy(), g.to_numpy(), rtol=1e-12)


def fastchat_compute_elo(battles, K=4, SCALE=400, BASE=10, INIT_RATING=1000):
    """FastChat's compute_elo (fastchat/serve/monitor/elo_analysis.py), transcribed."""
    rating = defaultdict(lambda: INIT_RATING)
    for rd, model_a, model_b, winner in battles[["model_a", "model_b", "winner"]].itertuples():
        ra = rating[model_a]
        rb = rating[model_b]
        ea = 1 / (1 + BASE ** ((rb - ra) / SCALE))
        eb = 1 / (1 + BASE ** ((ra - rb) / SCALE))
        if winner == "model_a":
            sa = 1
        elif winner == "model_b":
            sa = 0
        elif winner == "tie" or winner == "tie (bothbad)":
            sa = 0.5
        else:
            raise Exception(f"unexpected vote {winner}")
        rating[model_a] += K * (sa - ea)
        rating[model_b] += K * (1 - sa - eb)
    return dict(rating)


def test_online_elo_matches_fastchat():
    rng = np.random.default_rng(4)
    models = np.array(["a", "b", "c", "d"], dtype=object)
    i = rng.integers(0, 4, 300)
    j = (i + rng.integers(1, 4, 300)) % 4
    winner = rng.choice(["model_a", "model_b", "tie", "tie (bothbad)"], size=300)
    battles = pd.DataFrame({"model_a": models[i], "model_b": models[j], "winner": winner})
    y = battles["winner"].map({"model_a": 1.0, "model_b": 0.0}).fillna(0.5).to_numpy()
    table = BattleTable.build(battles["model_a"], battles["model_b"], y)
    ours = online_elo(table.model_a, table.model_b, table.outcome, 4, k=4.0)
    ref = fastchat_compute_elo(battles)
    np.testing.assert_allclose(ours, [ref[m] for m in table.models], rtol=1e-12)


def test_online_elo_matches_live_evalica():
    table = table_from_counts(W, T)
    ours = dict(zip(table.models, online_elo(table.model_a, table.model_b, table.outcome, 5)))
    # evalica.elo(xs, ys, ws) on the same battles in the same order (tests/preferences/test_bradley_terry.py)
    stored = {"4": 1007.9407048519349, "0": 1004.487934327893, "1": 998.039133852576, "2": 997.0794614331064,
              "3": 992.4527655344909}
    for k, v in stored.items():
        assert ours[k] == pytest.approx(v, rel=1e-12)
    evalica = pytest.importorskip("evalica")
    names = np.asarray(table.models, dtype=object)
    ws = [evalica.Winner.X if y == 1 else evalica.Winner.Y if y == 0 else evalica.Winner.Draw
          for y in table.outcome]
    live = evalica.elo(list(names[table.model_a]), list(names[table.model_b]), ws).scores
    for k in table.models:
        assert ours[k] == pytest.approx(live[k], rel=1e-12)


def test_order_matters_and_weights_repeat_votes():
    a, b, y = np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([1.0, 0.0, 1.0])
    forward = online_elo(a, b, y, 3)
    backward = online_elo(a[::-1], b[::-1], y[::-1], 3)
    assert not np.allclose(forward, backward)
    np.testing.assert_allclose(online_elo(a, b, y, 3, weight=[1, 3, 1]),
                               online_elo(np.repeat(a, [1, 3, 1]), np.repeat(b, [1, 3, 1]), np.repeat(y, [1, 3, 1]),
                                          3), rtol=1e-14)
    with pytest.raises(ValueError, match="whole-number battle weights"):
        online_elo(a, b, y, 3, weight=[1, 0.5, 1])


def test_numba_and_numpy_kernels_agree():
    if _kernel() is None:
        pytest.skip("numba not installed")
    table = table_from_file(FIXTURES / "evalica_goldens" / "food.csv")
    units = resampling_units(table, "none")
    boot = ClusterBootstrap(units, 40, (1, 2, 3, 4))
    fast, _ = bootstrap_elo(table.model_a, table.model_b, table.outcome, table.n_models, units, boot,
                            canonical=table.canonical_order(), backend="numba")
    slow, _ = bootstrap_elo(table.model_a, table.model_b, table.outcome, table.n_models, units, boot,
                            canonical=table.canonical_order(), backend="numpy")
    np.testing.assert_allclose(fast, slow, rtol=1e-13)


def test_bootstrap_elo_does_not_depend_on_row_order():
    table = table_from_file(FIXTURES / "evalica_goldens" / "food.csv")
    perm = np.random.default_rng(0).permutation(table.n_battles)
    names = np.asarray(table.models, dtype=object)
    shuffled = BattleTable.build(names[table.model_a[perm]], names[table.model_b[perm]], table.outcome[perm])
    out = []
    for t in (table, shuffled):
        units = resampling_units(t, "none")
        boot = ClusterBootstrap(units, 30, (5, 6, 7, 8))
        out.append(bootstrap_elo(t.model_a, t.model_b, t.outcome, t.n_models, units, boot,
                                 canonical=t.canonical_order())[0])
    np.testing.assert_array_equal(out[0], out[1])
