"""One vocabulary across the tests over tasks (issue 12): the Bayesian signed-rank test decides with the four
verdict words of :data:`evalband.comparison.verdict.VERDICTS`, and every frequentist post-hoc table names its
decision column ``significant`` (Nemenyi, Holm-corrected signed-rank and sign tests, Tukey HSD)."""

import numpy as np
import pytest

from evalband.comparison.verdict import VERDICTS
from evalband.tasks import run_test
from evalband.tasks.bayes_signedrank import bayes_signed_rank

from .demsar_data import DEMSAR_AUC, DEMSAR_MODELS


def test_bayes_decisions_are_the_four_verdict_words():
    a_better = bayes_signed_rank(np.full(30, 0.9), np.full(30, 0.5), rope=0.01, n_draws=2000, rng=0)
    b_better = bayes_signed_rank(np.full(30, 0.5), np.full(30, 0.9), rope=0.01, n_draws=2000, rng=0)
    same = bayes_signed_rank(np.full(30, 0.5), np.full(30, 0.5), rope=0.01, n_draws=2000, rng=0)
    # 3 tasks, mixed signs: no posterior probability reaches 95%
    open_ = bayes_signed_rank([0.6, 0.5, 0.7], [0.5, 0.6, 0.6], rope=0.01, n_draws=2000, rng=0)
    assert (a_better.decision, b_better.decision, same.decision, open_.decision) == VERDICTS


@pytest.mark.parametrize("test", ["friedman", "wilcoxon", "sign", "rm-anova"])
def test_post_hoc_tables_name_their_decision_significant(test):
    frame = run_test(DEMSAR_AUC, DEMSAR_MODELS, test=test).to_frame()
    assert "significant" in frame.columns and "reject" not in frame.columns
    assert frame["significant"].dtype == bool
    # the decision is the adjusted p-value at the level (Holm for the signed-rank tests, Tukey for RM-ANOVA)
    p = frame["p_value_holm"] if "p_value_holm" in frame else frame["p_value"]
    if test != "friedman":  # Nemenyi decides from the critical difference (or its permutation p-value)
        np.testing.assert_array_equal(frame["significant"], p <= 0.05)


def test_bayes_table_decisions():
    frame = run_test(DEMSAR_AUC, DEMSAR_MODELS, test="bayes-signed-rank", rope=0.01, rng=1, n_draws=3000).to_frame()
    assert set(frame["decision"]) <= set(VERDICTS)
