"""Nothing the speed work does changes a number (issue 27): the commands in ``pinned_outputs.py`` print the same
bytes as the code before it (commit 7683b6d), stored in ``pinned_outputs.json.gz`` by that script.

A deliberate change of a command's output regenerates the store (run the script) and says so in its commit. The one
such change since the store was written, JSON carrying the notes as records beside the records (issue 23), is not
stored: the stored bytes, wrapped by the one function that wraps every command's JSON, must be the output byte for
byte, so the records are still the stored bytes (only indented one level inside the object)."""

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband.display.notes import json_with_notes

HERE = Path(__file__).resolve().parent
with gzip.open(HERE / "pinned_outputs.json.gz", "rt", encoding="utf-8") as _fh:
    STORED = json.load(_fh)


def _first_difference(old: str, new: str) -> str:
    """Where two JSON outputs first differ: the record and field, else the character."""
    try:
        a, b = json.loads(old), json.loads(new)
    except ValueError:
        a = b = None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{len(a)} records stored, {len(b)} now"
        for k, (ra, rb) in enumerate(zip(a, b)):
            if ra != rb:
                keys = [f for f in dict.fromkeys([*ra, *rb]) if ra.get(f, "<absent>") != rb.get(f, "<absent>")]
                return "; ".join(f"record {k} {f}: {ra.get(f, '<absent>')!r} -> {rb.get(f, '<absent>')!r}"
                                 for f in keys[:3]) or f"record {k}: key order"
    at = next((i for i, (x, y) in enumerate(zip(old, new)) if x != y), min(len(old), len(new)))
    return f"character {at}: {old[at - 40:at + 40]!r} -> {new[at - 40:at + 40]!r}"


@pytest.mark.parametrize("name", sorted(STORED))
def test_same_bytes_as_before(name, monkeypatch):
    monkeypatch.chdir(HERE.parents[1])  # the commands name fixtures relative to the repository root
    entry = STORED[name]
    result = CliRunner().invoke(app, entry["args"])
    assert result.exit_code == 0, result.output
    stored = entry["stdout"]
    if "--format" in entry["args"] and entry["args"][entry["args"].index("--format") + 1] == "json" or \
            "-f" in entry["args"] and entry["args"][entry["args"].index("-f") + 1] == "json":
        notes = json.loads(result.stdout)["notes"]  # the notes as records: the one change of shape (issue 23)
        assert notes and all(set(n) == {"code", "severity", "text", "params"} for n in notes)
        assert result.stdout == json_with_notes(stored, notes) + "\n", _first_difference(
            stored, json.dumps(json.loads(result.stdout).get("records"), indent=2) + "\n")
        return
    assert result.stdout == stored, _first_difference(stored, result.stdout)
