"""Refresh the example outputs in the docs from a run: every ``$ evalband ...`` block of ``docs/*.md`` (or the files
named) gets the output the command prints now, so the numbers in the docs come from a run.

Each command runs in a scratch folder holding ``tests/`` (a link to the repository's) and the bundled fixtures the
docs name by their file name (``crowd-comparisons.csv``); Python blocks that write a file the examples read
(``.to_csv("pair.csv")``) run there first. A block cut with ``...`` lines keeps each of its parts as long as it was, found again by the text its first line
starts with (a model's name, a note's first words).
Output is taken at ``COLUMNS=100``, standard error after standard output, as a terminal shows them. A block that
holds several commands is left as it is (its excerpts were chosen by hand).

Usage::

    python scripts/doc_examples.py                    # every docs/*.md
    python scripts/doc_examples.py docs/arena.md      # one file
    python scripts/doc_examples.py --check            # exit 1 when a block differs from what its command prints
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: fixtures the docs name by their file name alone
FIXTURES = {"crowd-comparisons.csv": "tests/fixtures/llmfao/crowd-comparisons.csv",
            "responses.csv": "tests/fixtures/llmfao/responses.csv", "q4.csv": "tests/fixtures/hibayes/q4.csv",
            "q5.csv": "tests/fixtures/hibayes/q5.csv"}
BLOCK = re.compile(r"```[a-z]*\n(.*?)```", re.S)


def _scratch() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="evalband-docs-"))
    (folder / "tests").symlink_to(ROOT / "tests")
    for name, path in FIXTURES.items():
        (folder / name).symlink_to(ROOT / path)
    return folder


def _command(lines: list[str]) -> tuple[str, int]:
    """The command of a block (continuation lines joined) and the number of lines it spans."""
    text, used = lines[0][2:], 1
    while text.endswith("\\") and used < len(lines):
        text, used = text[:-1] + " " + lines[used].strip(), used + 1
    return text, used


def _anchor(line: str) -> str:
    """What a shown line starts with, to find it again in new output: its first cell (a model's name), or a
    note's first words up to a colon or digit (``note: rating:``, ``note: GPT 4 vs``)."""
    if line.startswith("note: "):
        return "note: " + re.split(r"[:\d(]", line[6:], maxsplit=1)[0]
    return re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]


def _cut(out: list[str], shown: list[str]) -> list[str]:
    """``out`` cut as the block ``shown`` was: its segments between ``...`` lines, each as many lines as it had,
    from the line of the new output that starts as the segment did (the first segment from the top)."""
    if "..." not in shown:
        return out
    segments, part = [], []
    for line in shown + ["..."]:
        if line == "...":
            segments.append(part)
            part = []
        else:
            part.append(line)
    result, start = [], 0
    for k, segment in enumerate(segments):
        if k:
            result.append("...")
        if not segment:
            continue
        if k:
            anchor = _anchor(segment[0])
            found = next((i for i in range(start, len(out)) if out[i].startswith(anchor)), None)
            if found is None:
                continue
            start = found
        last = k == len(segments) - 1  # no '...' after it: the output to its end
        result += out[start:] if last else out[start:start + len(segment)]
        start += len(segment)
    return result


def refresh(path: Path, folder: Path) -> tuple[str, int]:
    """The document with every example output refreshed, and the number of blocks that changed."""
    text = path.read_text(encoding="utf8")
    for code in re.findall(r"```python\n(.*?)```", text, re.S):
        if ".to_csv(" in code:
            done = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True)
            if done.returncode:
                print(f"{path}: a Python block failed ({done.stderr.strip().splitlines()[-1]}); its files are"
                      " missing", file=sys.stderr)
    changed = 0
    env = dict(os.environ, COLUMNS="100")

    def block(m):
        nonlocal changed
        lines = m.group(1).splitlines()
        if not lines or not lines[0].startswith("$ evalband ") or \
                any(line.startswith("$ ") for line in lines[1:]):  # several commands in one block: by hand
            return m.group(0)
        command, used = _command(lines)
        shown = lines[used:]
        run = subprocess.run(["bash", "-c", f"({command}) 2>&1"], cwd=folder, env=env, capture_output=True,
                             text=True)
        out = _cut([line.rstrip() for line in run.stdout.splitlines()], shown)
        if out != shown:
            changed += 1
        head = m.group(0)[:m.group(0).index("\n") + 1]
        return head + "\n".join(lines[:used] + out) + "\n```"

    return BLOCK.sub(block, text), changed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a block is out of date")
    args = parser.parse_args(argv)
    files = args.files or sorted((ROOT / "docs").glob("*.md"))
    folder = _scratch()
    stale = 0
    for path in files:
        new, changed = refresh(path, folder)
        stale += changed
        print(f"{path}: {changed} example output(s) {'out of date' if args.check else 'refreshed'}")
        if changed and not args.check:
            path.write_text(new, encoding="utf8")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
