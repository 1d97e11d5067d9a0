"""Write ``epoch_reference.py``: Epoch AI's own fit on the bundled Epoch hub scores (run once; stored values).

The function below is ``fit_statistical_model`` of ``fit.py`` in epoch-research/benchmark-stitching (MIT
License, Copyright (c) 2025 Epoch AI), reduced to its numerical core (no data frames of model metadata): scipy
``least_squares`` (method 'trf', finite-difference Jacobian) on ``sigmoid(alpha_b (C_m - D_b)) - score`` from
C = D = 0 and every free slope 0.05, the anchor's slope held at ``anchor_slope`` during the fit, and the fit
shifted afterwards so that the anchor has ``anchor_difficulty``. Epoch anchors Winogrande at difficulty 0 and
slope 1. Run with ``python tests/latent/make_epoch_reference.py`` (scipy 1.17.1 wrote the stored values).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import least_squares

HERE = Path(__file__).parent
DATA = HERE.parent / "fixtures" / "epoch" / "scores.csv"


def epoch_fit(model_idx, bench_idx, scores, n_models, n_benchmarks, anchor_idx, anchor_difficulty=0.0,
              anchor_slope=1.0, slope_init=0.05):
    """Epoch AI's ``fit_statistical_model`` (fit.py), numerical core: returns (C, D, alpha)."""

    def split_params(params):
        C = params[:n_models]
        D = params[n_models:n_models + n_benchmarks]
        alpha = np.insert(params[n_models + n_benchmarks:], anchor_idx, anchor_slope)
        return C, D, alpha

    def residuals(params):
        C, D, alpha = split_params(params)
        return 1.0 / (1.0 + np.exp(-(alpha[bench_idx] * (C[model_idx] - D[bench_idx])))) - scores

    theta0 = np.concatenate([np.zeros(n_models), np.zeros(n_benchmarks), np.full(n_benchmarks - 1, slope_init)])
    result = least_squares(residuals, theta0, method="trf")
    C, D, alpha = split_params(result.x)
    shift = D[anchor_idx] - anchor_difficulty
    return C - shift, D - shift, alpha


def arrays(df):
    """Model and benchmark codes in order of first appearance (as Epoch's ``unique()``), scores."""
    models = list(pd.unique(df["model"]))
    tasks = list(pd.unique(df["task"]))
    m = df["model"].map({k: i for i, k in enumerate(models)}).to_numpy()
    t = df["task"].map({k: i for i, k in enumerate(tasks)}).to_numpy()
    return models, tasks, m, t, df["score"].to_numpy(float)


def main():
    df = pd.read_csv(DATA)
    models, tasks, m, t, y = arrays(df)
    C, D, alpha = epoch_fit(m, t, y, len(models), len(tasks), tasks.index("Winogrande"))
    lines = ['"""Written by make_epoch_reference.py: Epoch AI\'s fit.py (least_squares) on tests/fixtures/epoch,',
             'anchor Winogrande (difficulty 0, slope 1)."""', "", "ABILITY = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in zip(models, C.tolist())]
    lines += ["}", "", "DIFFICULTY = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in zip(tasks, D.tolist())]
    lines += ["}", "", "SLOPE = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in zip(tasks, alpha.tolist())]
    lines += ["}", ""]
    (HERE / "epoch_reference.py").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
