"""Every command's JSON path on the smallest inputs (issue 22): one model, one task, one item per cell, and the
edges of a proportion (every item right, every item wrong, few items).

The rules checked, for every command in ``evalband.cli.main.COMMANDS`` (a new command must be added here):

* no internal error: the command either writes valid JSON (exit 0; ``gate`` also 1 and 3, its verdicts) or ends
  in a one-line user error (exit 2) that says what is wrong;
* no interval of zero width and no standard error of 0 in the output: an interval from data that cannot vary is
  either widened to an exact bound (proportions: Wilson) or left empty (null), never shown as a point.

``report`` has no JSON; its Markdown tables are checked for the same rules.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from typer.testing import CliRunner

from evalband.cli.main import COMMANDS, app

runner = CliRunner()

#: one model, one task, one item per cell (a prompt facet for variance, a trial for passk, costs, battles,
#: ratings); each command gets the input it reads
MINIMAL = {
    "one.csv": "model,task,item,score\na,t,1,1\n",
    "cost.csv": "model,task,item,score,cost\na,t,1,1,0.5\n",
    "facet.csv": "model,task,item,prompt,score\na,t,1,p1,1\na,t,1,p2,0\n",
    "trials.csv": "model,task,item,trial,score\na,t,1,1,1\na,t,1,2,0\n",
    "battles.csv": "model_a,model_b,winner\nx,y,model_a\n",
    "ratings.csv": "unit,rater,value\nu1,r1,1\nu1,r2,1\n",
}

#: the edges of a proportion: m_all right on every item, m_none on none, m_few on 5 items; costs; 2 prompts
EDGES = {
    "one.csv": "model,task,item,score\n" + "".join(
        f"{m},t,{i},{s}\n" for m, f in (("m_all", lambda i: 1), ("m_none", lambda i: 0),
                                        ("m_half", lambda i: i % 2)) for i in range(12) for s in [f(i)]),
    "cost.csv": "model,task,item,score,cost\n" + "".join(
        f"{m},t,{i},{s},{c}\n" for m, s, c in (("m_all", 1, 2.0), ("m_none", 0, 0.5), ("m_half", None, 1.0))
        for i in range(12) for s in [s if s is not None else i % 2]),
    "facet.csv": "model,task,item,prompt,score\n" + "".join(
        f"{m},t,{i},{p},{s}\n" for m, s in (("m_all", 1), ("m_none", 0), ("m_half", None)) for i in range(12)
        for p in ("p1", "p2", "p3") for s in [s if s is not None else (i + len(p)) % 2]),
    "trials.csv": "model,task,item,trial,score\n" + "".join(
        f"{m},t,{i},{k},{s}\n" for m, s in (("m_all", 1), ("m_none", 0)) for i in range(12) for k in (1, 2)),
    "battles.csv": "model_a,model_b,winner\n" + "x,y,model_a\n" * 8 + "y,z,model_a\n" * 8 + "x,z,model_a\n" * 8,
    "ratings.csv": "unit,rater,value\n" + "".join(f"u{u},r{r},1\n" for u in range(6) for r in (1, 2)),
}

#: one model, one task, several items (one row per item; prompts, trials, costs as each command reads): the shape
#: of the issue's crash (`variance FILE --facets prompt,trial --format json` with one model)
SINGLE = {
    "one.csv": "model,task,item,score\n" + "".join(f"a,t,{i},{i % 3 == 0:d}\n" for i in range(12)),
    "cost.csv": "model,task,item,score,cost\n" + "".join(f"a,t,{i},{i % 3 == 0:d},{1 + i / 10}\n"
                                                          for i in range(12)),
    "facet.csv": "model,task,item,prompt,trial,score\n" + "".join(
        f"a,t,{i},p{p},{k},{(i + p + k) % 3 == 0:d}\n" for i in range(12) for p in range(3) for k in range(2)),
    "trials.csv": "model,task,item,trial,score\n" + "".join(f"a,t,{i},{k},{(i + k) % 2}\n" for i in range(12)
                                                             for k in (1, 2)),
    "battles.csv": EDGES["battles.csv"],
    "ratings.csv": "unit,rater,value\n" + "".join(f"u{u},r{r},{(u * r) % 3}\n" for u in range(12) for r in (1, 2)),
}

#: command -> its arguments (files named as in MINIMAL / EDGES)
ARGS = {
    "summarize": ["one.csv"],
    "passk": ["trials.csv"],
    "bayes": ["one.csv"],
    "compare": ["one.csv"],
    "rank": ["one.csv"],
    "plan": ["one.csv", "--effect", "0.05"],
    "gate": ["one.csv", "one.csv"],
    "variance": ["facet.csv", "--facets", "prompt"],
    "arena": ["battles.csv"],
    "agreement": ["ratings.csv"],
    "frontier": ["cost.csv"],
    "report": ["one.csv"],
    "ability": ["one.csv", "--n-resamples", "200"],
    "items": ["one.csv", "--n-resamples", "200"],
    "subset": ["estimate", "one.csv", "one.csv", "--against", "m_all"],
}




def test_every_command_is_covered():
    assert set(ARGS) == set(COMMANDS)


def _intervals(obj, path=""):
    """(path, low, high) of every interval and (path, se) of every standard error in a JSON document."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k.endswith("ci_low") and k[:-3] + "high" in obj:
                yield ("ci", f"{path}.{k}", v, obj[k[:-3] + "high"])
            if (k == "se" or k.startswith("se_") or k.endswith("_se")) and not isinstance(v, (dict, list)):
                yield ("se", f"{path}.{k}", v, None)
            yield from _intervals(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _intervals(v, f"{path}[{i}]")


def _check_json(text: str, where: str):
    doc = json.loads(text)
    # issue 23: one object, its notes as records (a code where the note is data, its words, its parameters)
    assert isinstance(doc, dict) and isinstance(doc.get("notes"), list), f"{where}: JSON is not one object with notes"
    for note in doc["notes"]:
        assert isinstance(note, dict) and set(note) == {"code", "severity", "text", "params"}, \
            f"{where}: a note that is not a record: {note!r}"
        assert note["code"] is not None and note["severity"] is not None, \
            f"{where}: a note without a code: {note['text']!r}"
    for kind, path, a, b in _intervals(doc):
        if kind == "ci" and isinstance(a, (int, float)) and isinstance(b, (int, float)):
            assert not (math.isfinite(a) and a == b), f"{where}: zero-width interval at {path}: ({a}, {b})"
        if kind == "se" and isinstance(a, (int, float)):
            assert a != 0, f"{where}: standard error 0 at {path}"


def _check_markdown(text: str, where: str):
    for lo, hi in re.findall(r"\(([-+]?[0-9.]+), ([-+]?[0-9.]+)\)", text):
        assert lo != hi, f"{where}: zero-width interval ({lo}, {hi}) in the report"


@pytest.mark.parametrize("inputs", ["minimal", "edges", "single"])
@pytest.mark.parametrize("command", sorted(ARGS))
def test_json_path_on_the_smallest_inputs(command, inputs, tmp_path, monkeypatch):
    files = {"minimal": MINIMAL, "edges": EDGES, "single": SINGLE}[inputs]
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    args = [command, *ARGS[command], "--seed", "1"]
    if command == "variance" and inputs == "single":  # the command line, on its one-model file
        args[args.index("prompt")] = "prompt,trial"
    if command == "report":
        args += ["-o", "r.md", "--format", "markdown", "--n-resamples", "200"]
    else:
        args += ["--format", "json"]
        if command not in ("summarize", "passk", "plan", "gate", "bayes", "variance", "subset"):
            args += ["--n-resamples", "200"]
    if command in ("summarize", "passk", "plan", "gate", "bayes"):
        args.remove("--seed"), args.remove("1")
    res = runner.invoke(app, args)
    where = f"{command} ({inputs})"
    assert "internal error" not in res.stderr, f"{where}: {res.stderr}"
    allowed = {0, 1, 2, 3} if command == "gate" else {0, 2}
    assert res.exit_code in allowed, f"{where}: exit {res.exit_code}: {res.stderr}"
    if res.exit_code == 2:
        lines = [line for line in res.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("evalband: error: "), f"{where}: {res.stderr}"
        assert "term(s)" not in lines[0] and "(0,)" not in lines[0], f"{where}: {lines[0]}"
        return
    if command == "report":
        _check_markdown((tmp_path / "r.md").read_text(), where)
    else:
        _check_json(res.stdout, where)


#: option paths that add notes the smallest inputs never reach (found in the QA pass on real data): a file of cell
#: scores with a column no role reads (and --drop-cols on it), arena's own subsets of the battles (--ties drop,
#: battles without the --baseline and the models left out with them), item-level abilities (scale and interval notes)
OPTION_PATHS = {
    "cells-extra-column": ["ability", "cells.csv", "--n-resamples", "50"],
    "cells-drop-cols": ["ability", "cells.csv", "--n-resamples", "50", "--drop-cols", "source"],
    "arena-ties-baseline": ["arena", "battles.csv", "--model", "win-rate", "--baseline", "x", "--ties", "drop",
                            "--n-resamples", "50"],
    "arena-ties-bt": ["arena", "battles.csv", "--ties", "drop", "--n-resamples", "50"],
    "items-2pl": ["ability", "items.csv", "--model", "2pl", "--n-resamples", "50"],
    "items-2pl-auto": ["ability", "items.csv", "--model", "2pl", "--uncertainty", "information", "--n-resamples",
                       "50"],
    "items-rasch": ["ability", "items.csv", "--model", "rasch", "--n-resamples", "50"],
    "items-anchor": ["ability", "items.csv", "--model", "2pl", "--anchor", "t1", "--n-resamples", "50"],
}


@pytest.mark.parametrize("case", sorted(OPTION_PATHS))
def test_every_note_has_a_code_on_option_paths(case, tmp_path, monkeypatch):
    (tmp_path / "cells.csv").write_text("model,task,score,source\n" + "".join(
        f"m{m},t{t},{(m + 1) / (m + t + 3):.3f},paper\n" for m in range(5) for t in range(4) if (m + t) % 3))
    (tmp_path / "battles.csv").write_text("model_a,model_b,winner,question_id\n" + "".join(
        f"{a},{b},{w},q{i}\n" for i, (a, b, w) in enumerate(
            [("x", "y", "model_a"), ("y", "z", "tie"), ("x", "z", "model_b"), ("z", "w", "model_a"),
             ("y", "x", "tie"), ("w", "z", "model_b"), ("y", "x", "model_a"), ("x", "z", "model_a"),
             ("z", "x", "tie"), ("x", "y", "model_b"), ("z", "y", "model_a"), ("y", "z", "model_a")] * 3)))
    (tmp_path / "items.csv").write_text("model,task,item,score\n" + "".join(
        f"m{m},t{t},t{t}-{i},{int((m * 7 + i * 3 + t) % 5 < 1 + m % 4)}\n"
        for m in range(8) for t in range(3) for i in range(10) if (m + t) % 4))
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, [*OPTION_PATHS[case], "--seed", "1", "--format", "json"])
    assert res.exit_code == 0, f"{case}: {res.stderr}"
    notes = json.loads(res.stdout)["notes"]
    for note in notes:
        assert note["code"] is not None and note["severity"] is not None, f"{case}: a note without a code: {note!r}"
    codes = [n["code"] for n in notes]
    expected = {"cells-extra-column": ["io.columns-not-used"], "cells-drop-cols": ["io.column-left-out-asked"],
                "arena-ties-baseline": ["preferences.ties-dropped", "preferences.battles-without-baseline",
                                        "preferences.models-left-with-battles"],
                "arena-ties-bt": ["preferences.ties-dropped"],
                "items-2pl": ["latent.item-scale-standardized", "latent.2pl-bootstrap-intervals"],
                "items-2pl-auto": ["latent.item-scale-standardized", "latent.2pl-normal-intervals"],
                "items-rasch": ["latent.item-scale-rasch", "latent.rasch-posterior-intervals"],
                "items-anchor": ["latent.item-scale-anchor"]}[case]
    assert set(expected) <= set(codes), f"{case}: {codes}"


#: win rates against a baseline (the QA pass on LLMFAO): 'lucky' wins both its battles, 'unlucky' loses its three;
#: the baseline 'base' is the reference; 'mid' has enough battles to keep AlpacaEval's standard error
BASELINE_BATTLES = "model_a,model_b,winner,question_id\n" + "".join(
    f"{a},{b},{w},q{i}\n" for i, (a, b, w) in enumerate(
        [("lucky", "base", "model_a"), ("base", "lucky", "model_b")]
        + [("unlucky", "base", "model_b")] * 3
        + [("mid", "base", "model_a" if i % 3 else "model_b") for i in range(30)]))


@pytest.mark.parametrize("model", ["win-rate-baseline", "win-rate-average"])
def test_arena_win_rate_at_0_or_1_from_few_battles(model, tmp_path, monkeypatch):
    """A win rate of 0 or 1 from few battles: no SE of 0 and no point interval (Wilson's on its battles), the
    baseline's own row has no SE or interval, and the ranks do not claim certainty from two battles."""
    (tmp_path / "b.csv").write_text(BASELINE_BATTLES)
    monkeypatch.chdir(tmp_path)
    extra = ["--baseline", "base"] if model == "win-rate-baseline" else []
    res = runner.invoke(app, ["arena", "b.csv", "--model", "win-rate", *extra, "--n-resamples", "300", "--seed",
                              "1", "--format", "json"])
    assert res.exit_code == 0, res.stderr
    _check_json(res.stdout, model)
    doc = json.loads(res.stdout)
    rec = {r["model"]: r for r in doc["records"]}
    codes = [n["code"] for n in doc["notes"]]
    lucky = rec["lucky"]
    assert lucky["se"] is None and lucky["ci_low"] is not None and lucky["ci_low"] < 0.7 and lucky["ci_high"] == 1
    assert lucky["p_best"] < 0.9 and lucky["rank_high"] > 1
    assert rec["unlucky"]["se"] is None and rec["unlucky"]["ci_high"] > 0.3
    assert "preferences.win-rate-at-edge" in codes and "preferences.few-battles" in codes
    if model == "win-rate-baseline":
        assert rec["base"]["se"] is None and rec["base"]["ci_low"] is None
        assert "preferences.baseline-is-reference" in codes
        assert rec["mid"]["se"] == pytest.approx((2 / 3 * 1 / 3 / 29) ** 0.5 * 1, rel=1e-9)  # AlpacaEval's, kept
