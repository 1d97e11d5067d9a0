"""Notes as data (issue 23): every NoteKind of the package has a unique code, a template that uses only its
language, and renders for every audience and markup (until ``cli_message`` was deleted, the command line's words
for each kind were checked to be exactly what its regular expressions made of the Python text); JSON output carries
the notes as records."""

from __future__ import annotations

import importlib
import json
import pickle
import pkgutil
import re
import subprocess
import sys

import pytest

import evalband
from evalband.display.notes import (AUDIENCES, MARKUPS, SEVERITIES, Note, NoteKind, Vocabulary, json_with_notes,
                                    placeholders, record, render)


def _modules():
    for info in pkgutil.walk_packages(evalband.__path__, "evalband."):
        if info.name.endswith("__main__"):
            continue
        try:
            yield importlib.import_module(info.name)
        except ImportError:  # a module of an absent optional extra
            continue


def _declared() -> list[tuple[str, str, NoteKind]]:
    out = []
    for module in _modules():
        for name, value in vars(module).items():
            if isinstance(value, NoteKind) and getattr(module, name) is value:
                out.append((module.__name__, name, value))
    seen, unique = set(), []
    for entry in out:  # a kind re-exported by another module counts once
        if id(entry[2]) not in seen:
            seen.add(id(entry[2]))
            unique.append(entry)
    return unique


KINDS = _declared()


def _sample(kind: NoteKind) -> dict:
    """A value for each parameter that every format spec of the template accepts."""
    return {p: 3 for p in kind.params}


def test_the_package_declares_kinds():
    assert len(KINDS) >= 10


def test_codes_are_unique_and_severities_known():
    codes = [k.code for _, _, k in KINDS]
    dup = sorted({c for c in codes if codes.count(c) > 1})
    assert not dup, f"note codes declared twice: {dup}"
    assert all(k.severity in SEVERITIES for _, _, k in KINDS)


@pytest.mark.parametrize("module,name,kind", KINDS, ids=[k.code for _, _, k in KINDS])
def test_every_kind_renders_for_every_audience(module, name, kind):
    note = kind(**_sample(kind))
    assert isinstance(note, Note) and note.code == kind.code and str(note)
    # the template's language only: no brace is left over once every token is filled
    assert "{" not in re.sub(r"\{\{|\}\}", "", re.sub(r"\{(arg|fn|py|cli):(?:[^{}]|\{\w+[^{}]*\})*\}|\{\w+(![rsa])?"
                                                        r"(:[^{}]*)?\}", "", kind.template)), kind.template
    for audience in AUDIENCES:
        for markup in MARKUPS:
            assert render(note, audience=audience, markup=markup, vocabulary=Vocabulary()).strip()
    rec = record(note)
    assert rec["code"] == kind.code and rec["severity"] == kind.severity and set(rec["params"]) == set(kind.params)
    json.dumps(rec)
    assert pickle.loads(pickle.dumps(note)).code == kind.code


def test_template_language():
    kind = NoteKind("test.language", "info", "{n:,} items; `{arg:cluster=False}`, {arg:n_resamples}, "
                                            "{arg:method='{m}'}, {fn:evalband.estimation.trial_variance} {{x}} {s!r}")
    assert placeholders(kind.template) == ("n", "m", "s")
    note = kind(n=1200, m="bca", s="a")
    assert note == ("1,200 items; `cluster=False`, n_resamples, method='bca', evalband.estimation.trial_variance"
                    " {x} 'a'")
    words = Vocabulary({"n_resamples": "--n-resamples", "method": "--interval", "cluster": "--cluster"},
                       {("cluster", "False"): "--cluster none"},
                       {"evalband.estimation.trial_variance": "`evalband plan`"})
    assert render(note, audience="cli", vocabulary=words) == ("1,200 items; `--cluster none`, --n-resamples,"
                                                              " --interval bca, `evalband plan` {x} 'a'")
    assert render(note, markup="html").startswith("1,200 items; <code>cluster=False</code>")
    assert "\\texttt{cluster=False}" in render(note, markup="latex")
    with pytest.raises(TypeError, match="needs n"):
        kind(m="x", s="y")


def test_plain_str_notes_still_work():
    """Notes written before the change (other branches) render as themselves, with code null in JSON."""
    assert render("a plain note") == "a plain note"
    assert record("a plain note", text="a plain note") == {"code": None, "severity": None, "text": "a plain note",
                                                           "params": {}}


def test_json_with_notes_keeps_the_records_bytes():
    records = json.dumps([{"a": 1.5, "b": "x"}, {"a": None, "b": "y"}], indent=2)
    out = json.loads(json_with_notes(records, [{"code": None, "severity": None, "text": "t", "params": {}}]))
    assert json.dumps(out["records"], indent=2) == records and out["notes"][0]["text"] == "t"
    obj = json.dumps({"style": [1], "records": [2]}, indent=2)
    assert list(json.loads(json_with_notes(obj, []))) == ["style", "records", "notes"]


def test_compare_json_carries_its_notes_as_records():
    out = subprocess.run([sys.executable, "-m", "evalband", "compare", "--example", "vtab", "--n-resamples", "50",
                          "--seed", "1", "--format", "json"], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    assert set(data) == {"records", "notes"} and data["records"]
    codes = {n["code"] for n in data["notes"]}
    assert "resample.summary-counts-resampled-binomial" in codes
    for n in data["notes"]:
        assert set(n) == {"code", "severity", "text", "params"}
        assert n["text"] in " ".join(out.stderr.replace("note: ", "").split())


def test_docs_notes_lists_every_code():
    """docs/notes.md is generated from the declarations (scripts/notes_docs.py)."""
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    try:
        import notes_docs
    finally:
        sys.path.pop(0)
    assert notes_docs.DOC.read_text() == notes_docs.text(), "run python scripts/notes_docs.py"


def test_no_note_is_written_as_plain_text():
    """Every note is a NoteKind: ``scripts/notes_inventory.py --left`` lists no site (34 sites before the QA pass;
    headlines, readings and the command line's own notes are kinds too, checked at run time by
    tests/cli/test_json_edges.py)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "scripts/notes_inventory.py", "--left"], capture_output=True, text=True,
                         cwd=root, check=True).stdout
    left = {line.split(":", 1)[0] for line in out.splitlines() if line.strip()}
    assert not left, f"notes written as plain text (declare a NoteKind): {sorted(left)}"
