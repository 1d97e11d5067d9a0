"""Reading the command line's JSON in tests (issue 23): every command prints one object, its records beside the
notes as records (``{"records": [...], "notes": [{"code", "severity", "text", "params"}]}``); an object output
(plan, gate, variance, agreement, ...) keeps its own keys and gains ``"notes"``."""

from __future__ import annotations

import json


def _once(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"a key said twice in one JSON object: {keys}"
    return dict(pairs)


def parsed(stdout: str) -> dict:
    """The whole JSON object a command printed (found between its first and last lines, ``{`` and ``}``, when
    the text also holds what the command said on stderr)."""
    try:
        out = json.loads(stdout, object_pairs_hook=_once)
    except ValueError:
        lines = stdout.splitlines()
        start = lines.index("{")
        end = len(lines) - 1 - lines[::-1].index("}")
        out = json.loads("\n".join(lines[start:end + 1]), object_pairs_hook=_once)
    assert isinstance(out, dict) and isinstance(out.get("notes"), list), "JSON output is one object with notes"
    assert all(isinstance(n, dict) and set(n) == {"code", "severity", "text", "params"} for n in out["notes"]), \
        "notes in JSON are records"
    return out


def records(stdout: str):
    """What a script reads: the records of a command whose output was a list of records before notes were
    records; the object (without its notes) of a command that prints an object."""
    out = parsed(stdout)
    if set(out) == {"records", "notes"}:
        return out["records"]
    return {k: v for k, v in out.items() if k != "notes"}


def notes(stdout: str) -> list[dict]:
    """The notes as records."""
    return parsed(stdout)["notes"]


def note_texts(stdout: str) -> list[str]:
    """The notes' words (as the command line says them)."""
    return [n["text"] for n in notes(stdout)]
