"""Written by make_lc_reference.py: alpaca_eval 0.6.6 (scikit-learn 1.9.1), alpaca_eval.metrics.glm_winrate.get_length_controlled_winrate(annotations of each model, save_weights_dir=None) on tests/fixtures/alpaca_eval_lc."""

BASELINE = 'gpt4_1106_preview'
VALUES = {
    "verbose-7b": {
        "length_controlled_winrate": 40.56818551125977,
        "win_rate": 54.411382499999995,
        "standard_error": 2.8783053890320485,
        "C": 21.54434690031882,
        "coef": [
            -0.9808760112364588,
            -1.064816185493628,
            -0.343764317948322
        ],
        "features": [
            "np.tanh(std_delta_len)",
            "instruction_difficulty",
            "not_gamed_baseline.astype(float)"
        ],
        "length_controlled_winrate_unregularized": 47.73811077862903
    },
    "concise-70b": {
        "length_controlled_winrate": 66.55958966921686,
        "win_rate": 46.59276875,
        "standard_error": 2.631686456651349,
        "C": 21.54434690031882,
        "coef": [
            -1.187488699587263,
            -0.7381146945078825,
            0.819670385887595
        ],
        "features": [
            "np.tanh(std_delta_len)",
            "instruction_difficulty",
            "not_gamed_baseline.astype(float)"
        ],
        "length_controlled_winrate_unregularized": 68.02394070432607
    },
    "balanced-13b": {
        "length_controlled_winrate": 52.06478196316312,
        "win_rate": 55.629116249999996,
        "standard_error": 3.0319354238824374,
        "C": 166.81005372000558,
        "coef": [
            -1.0251098672513161,
            -0.9597539523655984,
            0.18958300719763974
        ],
        "features": [
            "np.tanh(std_delta_len)",
            "instruction_difficulty",
            "not_gamed_baseline.astype(float)"
        ],
        "length_controlled_winrate_unregularized": 52.311073155068634
    }
}
