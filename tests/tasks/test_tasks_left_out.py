"""Second QA pass, S16: ``rank nolaw.csv --test friedman --tasks law`` said "the friedman test needs at least 2
tasks with a result for every model; found 0 of 1" without naming the model that lacks 'law'; compare's message
names it ("... (Llama-2-13b-hf lacks 'law'); choose models with `models`")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband import ResultsTable
from evalband._validate import InputError
from evalband.tasks import run_test


@pytest.fixture(scope="module")
def nolaw():
    rng = np.random.default_rng(0)
    rows = [(m, t, i, int(rng.random() < 0.7)) for m in ("A", "B", "C") for t in ("math", "law", "bio", "art")
            for i in range(20) if not (m == "C" and t == "law") and not (m == "B" and t in ("law", "bio"))]
    return ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "score"]))


def test_message_names_the_models_lacking_the_tasks(nolaw):
    with pytest.raises(InputError, match=r"the friedman test needs at least 2 tasks with a result for every model;"
                                         r" found 0 of 1 \(B lacks 'law'; C lacks 'law'\); choose models with"
                                         r" `models`$"):
        run_test(nolaw, tasks=["law"], test="friedman")
    with pytest.raises(InputError, match=r"found 1 of 3 \(B lacks 'law', 'bio'; C lacks 'law'\)"):
        run_test(nolaw, tasks=["math", "law", "bio"], test="wilcoxon")


def test_message_without_missing_results_is_unchanged(nolaw):
    with pytest.raises(InputError, match=r"the friedman test needs at least 2 tasks with a result for every model;"
                                         r" found 1 of 1$"):
        run_test(nolaw, tasks=["math"], test="friedman")
