"""The report's latent-ability sections (issue 24, item 4): the "Sparse leaderboard" section appears when some
model was not run on some task (and not on a complete matrix), the "Items" section when asked (``--sections
items``); both render in self-contained HTML, Markdown and LaTeX.

Oracles: the AbilityResult and ItemsResult the analysis holds (every number shown is theirs, rounded by the display
rules), and :func:`evalband.ability` called directly on the same cells with the same seed (the section's numbers
are those of the command).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

pytest.importorskip("matplotlib")

import evalband as eb  # noqa: E402
from evalband.analysis.extensions import EXTENSIONS, ON_REQUEST, check_sections  # noqa: E402
from evalband.cli.main import app  # noqa: E402
from evalband.display import decimals_for, format_interval, format_value  # noqa: E402
from evalband.report import build_report, render_html, render_latex, render_markdown  # noqa: E402
from evalband.report.sections import SECTIONS  # noqa: E402
from evalband.report.sections.items import FLAG_ORDER  # noqa: E402

B = 120


def _sparse_counts(seed=3, m_=12, t_=8, missing=0.35):
    rng = np.random.default_rng(seed)
    C, D = rng.normal(size=m_), rng.normal(size=t_)
    keep = rng.random((m_, t_)) > missing
    keep[:, 0] = True  # one task every model has: the comparison keeps it
    m, t = np.nonzero(keep)
    p = 1 / (1 + np.exp(-1.3 * (C[m] - D[t])))
    return pd.DataFrame({"model": [f"model{k:02d}" for k in m], "task": [f"task{k}" for k in t], "n": 300,
                         "correct": rng.binomial(300, p)})


def _items(seed=4, lacking=True):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=12)
    rows = []
    for m in range(12):
        for t in range(3):
            if lacking and t == 2 and m < 2:
                continue
            for i in range(40):
                y = int(rng.random() < 1 / (1 + np.exp(-1.5 * (theta[m] - (i - 20) / 10))))
                rows.append((f"m{m:02d}", f"t{t}", f"q{i:02d}", 1 - y if i == 3 else y))  # q03 miskeyed
    return pd.DataFrame(rows, columns=["model", "task", "item", "score"])


@pytest.fixture(scope="module")
def sparse_report():
    return build_report(_sparse_counts(), n_resamples=B, rng=7, bayes=False, timestamp="T")


def test_registered_like_every_capability():
    from evalband.analysis import latent as latent_adapters
    from evalband.report.sections import items as items_sections, sparse as sparse_sections

    assert EXTENSIONS["sparse"][1] is latent_adapters.sparse_extension
    assert EXTENSIONS["items"][1] is latent_adapters.items_extension
    assert SECTIONS["sparse"] is sparse_sections.sparse_section
    assert SECTIONS["items"] is items_sections.items_section
    assert ON_REQUEST == {"items"}


def test_section_present_when_cells_are_missing(sparse_report):
    rep = sparse_report
    keys = [s.key for s in rep.sections]
    assert keys == ["sparse"]
    sec = rep.sections[0]
    assert [f.key for f in sec.figures] == ["sparse-abilities", "sparse-coverage", "sparse-holdout"]
    assert [t.key for t in sec.tables] == ["sparse-abilities", "sparse-holdout", "sparse-pairs", "sparse-tasks"]
    # the comparison kept only task0; the section says how much the ability model adds
    assert "uses the 1 task every model has" in sec.findings[0]
    assert any(f.startswith("Held-out check:") for f in sec.findings)


def test_numbers_are_the_ability_results_and_the_commands(sparse_report):
    rep = sparse_report
    sec = rep.sections[0]
    df = _sparse_counts()
    direct = eb.ability(df, n_resamples=B, rng=7, holdout=0.1)  # what `evalband ability --holdout 0.1` computes
    frame = direct.to_frame()
    shown = sec.tables[0].frame
    assert shown["model"].tolist() == frame["model"].tolist()
    for (_, s), (_, x) in zip(shown.iterrows(), frame.iterrows()):
        d = decimals_for(x["se"])
        assert s["ability"] == format_value(x["ability"], d)
        assert s["95% CI"] == format_interval(x["ci_low"], x["ci_high"], d)
    check = direct.holdout
    hold = sec.tables[1].frame.iloc[0]
    assert hold["cells held out"] == f"{check.n_cells:,}"
    assert hold["RMSE (points)"] == format_value(check.rmse * 100, 1)
    assert hold["RMSE of the task means (points)"] == format_value(check.baseline_rmse * 100, 1)


def test_section_absent_when_dense():
    df = _sparse_counts(missing=-1.0)  # every cell measured
    a = eb.analyze(df, n_resamples=B, rng=1, bayes=False)
    assert a.extra("sparse") is None
    rep = build_report(a, timestamp="T")
    assert "sparse" not in [s.key for s in rep.sections]
    assert "Sparse leaderboard" not in render_html(rep)


def test_models_sharing_no_task_get_the_section_in_a_summary_report():
    df = pd.DataFrame({"model": ["a", "a", "b", "b", "c", "c"], "task": ["x", "y", "y", "z", "z", "x"], "n": 400,
                       "correct": [300, 200, 240, 120, 100, 250]})
    rep = build_report(df, n_resamples=B, rng=2, bayes=False, timestamp="T")
    assert rep.kind == "summary"
    sec = [s for s in rep.sections if s.key == "sparse"]
    assert sec and "only this model can compare them" in sec[0].findings[0]


def test_html_is_self_contained_and_other_formats_render(sparse_report):
    html = render_html(sparse_report)
    assert '<section id="sparse">' in html and "Sparse leaderboard" in html
    assert "<script" not in html
    assert not re.findall(r'(?:src|href)="(?!data:|#)[^"]+"', html.split("<h2>Methods")[0])
    for key in ("sparse-abilities", "sparse-coverage", "sparse-holdout"):
        m = re.search(rf'id="fig-{key}".*?<img[^>]+src="(data:image/[a-z+]+;base64,[^"]+)"', html, re.S)
        assert m, key
    md = render_markdown(sparse_report)
    assert "Sparse leaderboard" in md and "Held-out check" in md
    tex = render_latex(sparse_report)
    assert "Latent abilities" in tex


def test_items_section_only_when_asked():
    df = _items()
    plain = eb.analyze(df, n_resamples=B, rng=3, bayes=False)
    assert plain.extra("items") is None
    a = eb.analyze(df, n_resamples=B, rng=3, bayes=False, sections="items")
    res = a.extra("items")
    assert res is not None
    rep = build_report(a, timestamp="T")
    assert [s.key for s in rep.sections] == ["sparse", "items"]
    sec = rep.sections[1]
    flagged = sec.tables[0].frame
    ranks = [next(k for k, f in enumerate(FLAG_ORDER) if flag.startswith(f)) for flag in flagged["flag"]]
    assert ranks == sorted(ranks)  # sorted by flag, likely wrong keys first
    assert flagged.iloc[0]["item"] == "q03" and flagged.iloc[0]["flag"].startswith("negative discrimination")
    n_flagged = int((res.to_frame()["flag"] != "").sum())
    assert len(flagged) == n_flagged
    info = sec.tables[1].frame
    assert info["task"].tolist() == ["t0", "t1", "t2"]
    assert info["items"].tolist() == ["40", "40", "40"]
    assert [f.key for f in sec.figures] == ["items-information"]


def test_items_section_on_summary_data_is_skipped_with_the_reason():
    a = eb.analyze(_sparse_counts(), n_resamples=B, rng=3, bayes=False, sections=["items"])
    assert a.extra("items") is None
    assert ("Items", "item diagnostics need item-level results (model, task, item, score); these are per-task"
                     " summaries") in a.skipped


def test_unknown_section_names_the_valid_ones():
    assert check_sections("items") == ("items",)
    assert check_sections(None) == ()
    with pytest.raises(eb.ArgumentError, match="'itmes'.*'items'.*did you mean 'items'"):
        check_sections("itmes")
    with pytest.raises(TypeError):
        check_sections(3)


def test_cli_sections_items(tmp_path):
    path = tmp_path / "items.csv"
    _items().to_csv(path, index=False)
    out = tmp_path / "r.html"
    runner = CliRunner()
    res = runner.invoke(app, ["report", str(path), "-o", str(out), "--n-resamples", str(B), "--no-bayes",
                              "--sections", "items"])
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert '<section id="items">' in html and '<section id="sparse">' in html
    assert "--sections items" in html  # the reproducing command
    assert "<script" not in html
    bad = runner.invoke(app, ["report", str(path), "-o", str(out), "--sections", "bogus"])
    assert bad.exit_code == 2
    assert "--sections" in bad.output and "'items'" in bad.output
