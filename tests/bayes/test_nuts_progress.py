"""The NUTS progress bar counts every iteration of every chain (issue 27: a bar with a percentage), whether the
chains run in parallel (one device each) or vectorized (fewer devices than chains: one program, one callback per
iteration for all chains)."""

from __future__ import annotations

import contextlib

import pytest

numpyro = pytest.importorskip("numpyro")
import numpyro.distributions as dist  # noqa: E402

from evalband import _progress  # noqa: E402
from evalband.bayes import _nuts  # noqa: E402


@pytest.mark.slow  # one short NUTS run (its compilation: a minute on a busy machine)
@pytest.mark.parametrize("vectorize", [False, True])
def test_progress_reaches_every_iteration_of_every_chain(monkeypatch, vectorize):
    counted = {}

    @contextlib.contextmanager
    def counter(description, total, progress=None):
        counted["total"], counted["done"] = total, 0

        def advance(n=1):
            counted["done"] += n

        yield advance

    monkeypatch.setattr(_progress, "counter", counter)

    def model():
        numpyro.sample("x", dist.Normal(0.0, 1.0))

    _nuts.require_numpyro(4)
    _nuts.run_nuts(model, {}, num_warmup=20, num_samples=30, num_chains=4, seed=1, target_accept=0.8,
                   max_tree_depth=4, vectorize=vectorize)
    assert counted == {"total": 4 * 50, "done": 4 * 50}
