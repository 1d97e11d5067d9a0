"""Write ``girth_rasch_reference.py``: girth's marginal-ML one-parameter logistic estimates on a simulated Rasch
item set (run once: ``python tests/latent/make_girth_rasch_reference.py`` with girth 0.8.0,
numpy 2.4.6, scipy 1.17.1).

The item set: 40 models with abilities N(0, 1.3^2) and 80 items in 2 tasks (difficulties N(0, 1)), every response
given (with 30% of the responses missing, girth's estimate lies 2.4 log-units below the marginal likelihood's
maximum: its handling of missing responses is not an oracle), responses Bernoulli under the Rasch model, seed
20261202. girth's ``onepl_mml`` integrates the abilities out over N(0, 1) with one common discrimination ``alpha``:
the Rasch model with abilities N(0, alpha^2), so evalband's marginal fit (:mod:`evalband.latent.rasch_marginal`)
should give ``s = alpha`` and intercepts ``d_i = -alpha b_i``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED, M, I = 20261202, 40, 80


def simulate():
    rng = np.random.default_rng(SEED)
    theta = rng.normal(0, 1.3, size=M)
    b = rng.normal(size=I)
    y = (rng.random((M, I)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(int)
    return theta, b, y


def main():
    import girth

    _, _, y = simulate()
    est = girth.onepl_mml(y.T)  # girth takes items x persons
    lines = ['"""Written by make_girth_rasch_reference.py: girth.onepl_mml on simulate()."""', "",
             f"DISCRIMINATION = {float(np.asarray(est['Discrimination']))!r}", "",
             f"DIFFICULTY = {np.asarray(est['Difficulty']).tolist()!r}", ""]
    (Path(__file__).with_name("girth_rasch_reference.py")).write_text("\n".join(lines))


if __name__ == "__main__":
    main()
