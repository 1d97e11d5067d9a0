"""Write ``girth_reference.py``: girth's marginal-ML 2PL estimates on a simulated item set with known truth (run
once: ``python tests/latent/make_girth_reference.py`` with girth 0.8.0, numpy 2.4.6, scipy 1.17.1).

The item set: 300 models with abilities N(0, 1) and 400 items (discriminations lognormal(0, 0.3), difficulties
N(0, 1)), responses Bernoulli under the 2PL model, seed 20240601. girth's ``twopl_mml`` integrates the abilities
out over N(0, 1) (marginal maximum likelihood), a different estimator from evalband's joint MAP: the two agree
when each model answers many items.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED, M, I = 20240601, 300, 400


def simulate():
    rng = np.random.default_rng(SEED)
    theta = rng.normal(size=M)
    a = rng.lognormal(0.0, 0.3, size=I)
    b = rng.normal(size=I)
    y = (rng.random((M, I)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(int)
    return theta, a, b, y


def main():
    import girth

    theta, a, b, y = simulate()
    est = girth.twopl_mml(y.T)  # girth takes items x persons
    lines = ['"""Written by make_girth_reference.py: girth.twopl_mml on simulate()."""', "",
             f"DISCRIMINATION = {np.asarray(est['Discrimination']).tolist()!r}", "",
             f"DIFFICULTY = {np.asarray(est['Difficulty']).tolist()!r}", ""]
    (Path(__file__).with_name("girth_reference.py")).write_text("\n".join(lines))


if __name__ == "__main__":
    main()
