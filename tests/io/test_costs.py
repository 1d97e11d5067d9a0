"""Cost files (``source='costs'``): per-model summaries and per-response measures, read through the readers and
selected by ``evalband.select``.

Oracles: pandas on the same file (LLMFAO's responses: per-model counts, means and SDs of the response lengths),
``scipy.stats.t.interval`` for the summary of per-response costs, and the file's own lines in the messages.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalband as eb
from evalband._validate import InputError
from evalband.data.costs import CostTable
from evalband.costs import cost_from_summary

LLMFAO = Path(__file__).resolve().parents[1] / "fixtures" / "llmfao"


def test_summary_file_through_read_and_select(tmp_path):
    path = tmp_path / "costs.csv"
    path.write_text("model,cost,se,note\nb,0.010,0.001,x\na,0.020,0.002,y\n")
    table = eb.read(str(path), source="costs")
    assert isinstance(table, CostTable) and table.shape == "summary"
    assert table.models == ("a", "b") and table.cost.tolist() == [0.02, 0.01] and table.se.tolist() == [0.002, 0.001]
    assert any("not read: note" in n for n in table.notes)
    sel = eb.select(str(path), source="costs", models=["b"])
    assert sel.models == ("b",) and sel.table.cost.tolist() == [0.01] and sel.left_out.models == ("a",)
    assert eb.select(table).table is table
    with pytest.raises(TypeError, match="a cost table has models, not tasks or weights"):
        eb.select(table, tasks=["t"])


def test_messages_name_the_file_line_and_column(tmp_path):
    path = tmp_path / "costs.csv"
    path.write_text("model,cost,n\na,1.5,10\nb,-2,10\n")
    with pytest.raises(InputError, match=r"costs.csv, line 3, column 'cost': cost -2 must be a finite number >= 0"):
        eb.read(str(path), source="costs")
    path.write_text("model,cost\na,1.5\na,2\n")
    with pytest.raises(InputError, match="line 3, column 'model': model 'a' is listed twice"):
        eb.read(str(path), source="costs")
    path.write_text("model,usd\na,1.5\n")
    with pytest.raises(InputError, match="needs a 'cost' column"):
        eb.read(str(path), source="costs")
    path.write_text("model,item,cost\na,1,\na,2,\n")
    with pytest.raises(InputError, match="no response has a cost"):
        eb.read(str(path), source="costs")


def test_llmfao_responses_as_per_response_measures():
    table = eb.read(str(LLMFAO / "responses.csv"), source="costs", model_col="name", cost_col="result_chars",
                    latency_col="duration_ms")
    raw = pd.read_csv(LLMFAO / "responses.csv")
    assert table.shape == "responses" and table.measures == ("cost", "latency")
    assert table.columns["item"] == "prompt"  # found among the item column names
    assert table.model.size == len(raw) == 1133 and len(table.models) == raw["name"].nunique() == 70
    u, m, v, items, dropped = table.cells("latency")
    assert dropped == 0 and len(items) == raw["prompt"].nunique()
    # each (model, prompt) once: LLMFAO has one response per model and prompt
    assert u.size == raw.groupby(["name", "prompt"]).ngroups == 1133
    gpt4 = table.select(["GPT 4"])
    assert gpt4.models == ("GPT 4",) and gpt4.model.size == (raw["name"] == "GPT 4").sum()


def test_summary_of_per_response_costs_is_t():
    table = eb.read(str(LLMFAO / "responses.csv"), source="costs", model_col="name", cost_col="result_chars",
                    latency_col="duration_ms")
    est = cost_from_summary(table, models=["GPT 4", "Claude v2"])
    raw = pd.read_csv(LLMFAO / "responses.csv").groupby("name")["result_chars"]
    mean, sd, n = raw.mean(), raw.std(ddof=1), raw.size()
    for k, name in enumerate(["GPT 4", "Claude v2"]):
        assert est.estimate[k] == pytest.approx(mean[name], rel=1e-13)
        assert est.n_items[k] == n[name] and est.se[k] == pytest.approx(sd[name] / np.sqrt(n[name]), rel=1e-12)
        lo, hi = stats.t.interval(0.95, n[name] - 1, loc=mean[name], scale=sd[name] / np.sqrt(n[name]))
        assert (est.ci.low[k], est.ci.high[k]) == (pytest.approx(lo, rel=1e-12), pytest.approx(hi, rel=1e-12))
    assert est.method == "t" and not est.paired and any("summarized per model" in t for t in est.notes)


def test_dataframe_summary_and_latency_only_files():
    est = cost_from_summary(pd.DataFrame({"model": ["x", "y"], "cost": [3.0, 1.0]}))
    assert est.method == "known" and est.estimate.tolist() == [3.0, 1.0]
    lat = eb.read(pd.DataFrame({"model": ["x", "x", "y"], "prompt": ["1", "2", "1"], "latency": [1.0, 2.0, 0.5]}),
                  source="costs")
    assert lat.measures == ("latency",)
    with pytest.raises(InputError, match="holds no cost column"):
        cost_from_summary(lat)
    with pytest.raises(InputError, match="latency quantiles need one row per response"):
        eb.read(pd.DataFrame({"model": ["x"], "cost": [1.0], "ms": [3.0]}), source="costs", latency_col="ms")
