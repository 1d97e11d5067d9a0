"""The registry of capability analyses: analyze() runs each registered function once on its selection and seed,
keeps results by key, records skips with their reason; build_report renders each result's section."""

import pytest

import evalband as eb
from evalband.analysis import extensions
from evalband.report import sections
from evalband.report.section import Section

calls = []


def _count(selection, *, aggregate, n_resamples, confidence_level, rng, replicates):
    calls.append((tuple(selection.models), aggregate, n_resamples, confidence_level, rng, replicates))
    return {"models": len(selection.models)}


def _absent(selection, **_):
    return None


def _skip(selection, **_):
    raise extensions.Skip("needs a facet column")


def _section(result, analysis):
    return Section("probe", "Probe", f"{result['models']} models probed.", findings=("a finding",))


@pytest.fixture
def registry(monkeypatch):
    calls.clear()
    monkeypatch.setattr(extensions, "EXTENSIONS", {"probe": ("Probe", _count), "absent": ("Absent", _absent),
                                                   "skipped": ("Skipped probe", _skip)})
    monkeypatch.setattr(sections, "SECTIONS", {"probe": _section})


def test_analyze_runs_each_extension_once_with_its_seed(registry):
    a = eb.analyze("example:vtab", n_resamples=100, rng=3, bayes=False)
    assert len(calls) == 1
    models, aggregate, n, level, seed, reps = calls[0]
    assert (aggregate, n, level, seed) == ("mean", 100, 0.95, 3)
    assert reps is a.replicates  # the one replicate set
    assert a.extra("probe") == {"models": len(a.selection.models)}
    assert a.extra("absent") is None and [k for k, _ in a.extras] == ["probe"]
    assert ("Skipped probe", "needs a facet column") in a.skipped


def test_report_renders_the_sections_of_extras(registry):
    rep = eb.report.build_report("example:vtab", n_resamples=100, rng=3, bayes=False)
    assert [s.key for s in rep.sections] == ["probe"]
    from evalband.report.writers import render_markdown

    text = render_markdown(rep)
    assert "Probe" in text and "a finding" in text
