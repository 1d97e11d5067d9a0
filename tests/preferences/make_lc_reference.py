"""Writes the AlpacaEval length-control oracle: a small annotation set in AlpacaEval's schema and the values of
alpaca_eval's own ``length_controlled_v1`` on it (``lc_reference.py``, loaded by test_lc_glm.py).

Run once (not by the test suite), with alpaca-eval installed:

    pip install alpaca-eval==0.6.6      # scikit-learn 1.9.1, patsy 1.0.3
    python tests/preferences/make_lc_reference.py

1. ``tests/fixtures/alpaca_eval_lc/annotations.csv``: 3 models and the baseline on 80 instructions, one row per
   (model, instruction): the lengths in characters of both answers and the continuous preference in [1, 2]
   (AlpacaEval 2's weighted preferences), drawn from a length-biased logistic judge with instruction difficulty
   (seeded; the file is the data, the generator only made it). test_lc_glm.py writes it out as AlpacaEval
   ``annotations.json`` records (outputs of those lengths).
2. ``tests/fixtures/alpaca_eval_lc/df_gamed.csv``: the file AlpacaEval's GLM downloads from the Hugging Face
   dataset tatsu-lab/alpaca_eval (same columns): two "gamed" versions of the baseline (verbose, concise) on the
   same instructions, with their standardized length differences and the instruction difficulties, which
   length_controlled_v1 reads from it and is regularized toward (weight 0.2 / 2 per gamed row).
3. alpaca_eval.metrics.glm_winrate.get_length_controlled_winrate on each model's annotations, with
   ``hf_hub_download`` pointed at the file of step 2 (the only change: no network), and again with
   ``glm_info`` of length_controlled_v1 but ``regularize_to_baseline_lambda=None`` (no gamed rows), written with
   the package versions to ``lc_reference.py``; the difficulties also as AlpacaEval's
   ``instruction_difficulty.csv`` (index, instruction_difficulty).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).parent
FIXTURE = HERE.parent / "fixtures" / "alpaca_eval_lc"
BASELINE = "gpt4_1106_preview"
MODELS = {"verbose-7b": (-0.6, 1.9), "concise-70b": (0.7, 0.55), "balanced-13b": (0.1, 1.05)}  # quality, length
K = 80


def make_data():
    rng = np.random.default_rng(20240406)
    difficulty = np.round(rng.normal(0.0, 0.8, K), 6)
    len_base = np.round(rng.uniform(300, 2500, K)).astype(int)
    rows = []
    for model, (quality, factor) in MODELS.items():
        len_model = np.maximum(5, np.round(len_base * factor * np.exp(rng.normal(0, 0.3, K)))).astype(int)
        z = np.tanh((len_model - len_base) / 900.0)
        p = 1 / (1 + np.exp(-(quality + 1.2 * z - difficulty + rng.normal(0, 0.8, K))))
        pref = np.round(1 + np.clip(p, 0.0, 1.0), 6)
        for k in range(K):
            rows.append((model, k, f"Instruction {k}: write about topic {k}", int(len_base[k]), int(len_model[k]),
                         float(pref[k])))
    ann = pd.DataFrame(rows, columns=["generator_2", "index", "instruction", "len_1", "len_2", "preference"])
    gamed = []
    for name, factor in (("gpt4_gamed_verbose", 2.2), ("gpt4_gamed_concise", 0.35)):
        len_g = np.maximum(5, np.round(len_base * factor * np.exp(rng.normal(0, 0.25, K)))).astype(int)
        delta = len_base - len_g  # AlpacaEval's sign: output_1 (baseline) minus output_2
        std = delta / delta.std(ddof=1)
        p = 1 / (1 + np.exp(-(1.2 * np.tanh(-std) - difficulty + rng.normal(0, 0.8, K))))
        for k in range(K):
            gamed.append((name, k, float(np.round(p[k], 6)), float(std[k]), float(difficulty[k]), False))
    df_gamed = pd.DataFrame(gamed, columns=["model", "index", "preference", "std_delta_len", "instruction_difficulty",
                                            "not_gamed_baseline"])
    return ann, df_gamed


def annotation_records(ann: pd.DataFrame, model: str) -> list:
    """One model's rows as AlpacaEval annotation records (outputs of the given lengths)."""
    rows = ann[ann["generator_2"] == model].sort_values("index")
    return [{"instruction": r.instruction, "output_1": "b" * r.len_1, "generator_1": BASELINE,
             "output_2": "m" * r.len_2, "generator_2": model, "annotator": "weighted_alpaca_eval_gpt4_turbo",
             "preference": r.preference} for r in rows.itertuples()]


def main():
    import alpaca_eval
    import sklearn
    from alpaca_eval.metrics import glm_winrate

    FIXTURE.mkdir(parents=True, exist_ok=True)
    ann, df_gamed = make_data()
    ann.to_csv(FIXTURE / "annotations.csv", index=False)
    df_gamed.to_csv(FIXTURE / "df_gamed.csv", index=False)
    # AlpacaEval's instruction_difficulty.csv layout: index, instruction_difficulty
    (df_gamed.drop_duplicates("index")[["index", "instruction_difficulty"]]
     .to_csv(FIXTURE / "instruction_difficulty.csv", index=False))
    glm_winrate.hf_hub_download = lambda **kw: str(FIXTURE / kw["filename"])  # the only change: no network
    values = {}
    for model in MODELS:
        df = pd.DataFrame(annotation_records(ann, model))
        metrics = glm_winrate.get_length_controlled_winrate(df, save_weights_dir=None)
        # the fit inside it, step by step as get_length_controlled_winrate makes it: the chosen C, the weights
        info = glm_winrate.GLM_INFO["length_controlled_v1"]
        xy, x_test, weight = glm_winrate._get_featurized_data(
            df, formula=info["formula"], regularize_to_baseline_lambda=info["regularize_to_baseline_lambda"])
        keep = xy["preference"].notna()
        fit = glm_winrate.fit_LogisticRegressionCV(xy[keep], "preference", is_ytrue_proba=True,
                                                   sample_weight=weight[keep], **info["kwargs"])
        values[model] = {"length_controlled_winrate": float(metrics["length_controlled_winrate"]),
                         "win_rate": float(metrics["win_rate"]), "standard_error": float(metrics["standard_error"]),
                         "C": float(fit.C_[0]), "coef": [float(c) for c in fit.coef_[0]],
                         "features": list(x_test.columns)}
        # the same GLM without the regularization toward the gamed baselines (the difficulty still from step 2)
        plain = dict(info, regularize_to_baseline_lambda=None)
        unreg = glm_winrate.get_length_controlled_winrate(df, save_weights_dir=None, glm_info=plain)
        values[model]["length_controlled_winrate_unregularized"] = float(unreg["length_controlled_winrate"])
    text = (f'"""Written by make_lc_reference.py: alpaca_eval {alpaca_eval.__version__}'
            f' (scikit-learn {sklearn.__version__}), alpaca_eval.metrics.glm_winrate.get_length_controlled_winrate'
            f'(annotations of each model, save_weights_dir=None) on tests/fixtures/alpaca_eval_lc."""\n\n'
            f"BASELINE = {BASELINE!r}\nVALUES = {json.dumps(values, indent=4)}\n")
    (HERE / "lc_reference.py").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
