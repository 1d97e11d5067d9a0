"""Reading the command line's notes in tests: notes are wrapped at the terminal's width (issue 13), so tests
compare their text with the line breaks and hanging indents undone."""

from __future__ import annotations


def flat(text: str) -> str:
    """``text`` with every run of whitespace (line breaks, hanging indents) as one space."""
    return " ".join(str(text).split())


def notes_of(text: str) -> list[str]:
    """The notes in ``text``, each unwrapped to one line (without the ``note: `` prefix)."""
    out = []
    for line in str(text).splitlines():
        if line.startswith("note: "):
            out.append(line[len("note: "):].strip())
        elif line.startswith("      ") and out:
            out[-1] += " " + line.strip()
    return out
