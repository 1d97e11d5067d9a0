"""Every place the library writes a note, and what is left to turn into data (issue 23, notes as data).

    python scripts/notes_inventory.py            # every site: file:line, kind or literal, proposed code
    python scripts/notes_inventory.py --left     # only the sites still writing plain text
    python scripts/notes_inventory.py --summary  # counts by package

A site is a ``notes.append(...)``, ``notes += [...]`` / ``notes.extend(...)`` or a ``notes=`` (or ``note=``) keyword in
``src/evalband``. It is *structured* when what it adds is a :class:`evalband.display.notes.NoteKind` call (or
notes passed on from another result), *plain* when it is a string literal or f-string; for a plain site the
proposed code is ``<package>.<slug of its first words>``. Standard library only; run from the repository root.
"""

from __future__ import annotations

import argparse
import ast
import re
from collections import Counter
from pathlib import Path

SRC = Path("src/evalband")


def _cli_words() -> tuple[set, tuple]:
    """The argument names the command line re-words (CLI_NAMES and every command's own option map) and the
    library functions it names by a command, read from the text of ``cli/``."""
    names, functions = set(), []
    for f in sorted((SRC / "cli").glob("*.py")):
        text = f.read_text()
        names |= set(re.findall(r"\"(\w+)\": \"--", text)) | set(re.findall(r"\b(\w+)=\"--", text))
        functions += re.findall(r"\"(evalband\.[\w.]+)\": ", text)
    names.discard("help")
    return names, tuple(dict.fromkeys(functions))


ARG_NAMES, FUNCTIONS = _cli_words()


def is_arg(name: str) -> bool:
    """An argument the command line names by an option (``*_col`` are all options)."""
    return name in ARG_NAMES or (name.endswith("_col") and len(name) > 4)


_STOP = {"the", "a", "an", "of", "in", "on", "to", "is", "are", "and", "for", "by", "with", "as", "at"}


def proposed_code(package: str, text: str, used=()) -> str:
    """``<package>.<first few words>``, unique among ``used``."""
    words = [w for w in re.findall(r"[a-z][a-z0-9]*", text.lower()) if w not in _STOP][:4] or ["note"]
    base = f"{package.strip('_')}.{'-'.join(words)}"
    code, k = base, 2
    while code in used:
        code, k = f"{base}-{k}", k + 1
    return code


def severity_of(text: str) -> str:
    """'excluded' for what was left out, 'caveat' for what makes a result less reliable, else 'info'."""
    low = text.lower()
    if re.search(r"\b(dropped|excluded|left out|skipped|ignored|removed|not compared|withheld|discarded|not used"
                 r"|left empty|no rating|unused)\b", low):
        return "excluded"
    if re.search(r"\b(understate|overstate|unreliable|few|fewer|less reliable|too|rests? on|may|cannot|"
                 r"unavailable|not|only|widened|wider|narrow|caution|beware|warning|assum)", low):
        return "caveat"
    return "info"


def existing_codes() -> set:
    return set(re.findall(r"NoteKind\(\s*['\"]([\w.\-]+)['\"]", "\n".join(
        p.read_text() for p in SRC.rglob("*.py"))))


def _literal(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{...}" for v in node.values)
    if isinstance(node, ast.IfExp):
        a, b = _literal(node.body), _literal(node.orelse)
        return a if a is not None else b
    if isinstance(node, ast.BinOp):
        a = _literal(node.left)
        return a if a is not None else _literal(node.right)
    return None


def _holds_list(node) -> bool:
    return any(isinstance(n, (ast.List, ast.Tuple, ast.ListComp)) for n in ast.walk(node))


def _added(value):
    """The notes an added expression holds: the elements of a list (or tuple), through ``+`` of lists and
    conditional lists (``list(notes) + ([f"..."] if unused else [])``); a ``+`` of strings is one note."""
    if isinstance(value, (ast.List, ast.Tuple)):
        yield from value.elts
    elif isinstance(value, ast.ListComp):
        yield value.elt
    elif isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and _holds_list(value):
        yield from _added(value.left)
        yield from _added(value.right)
    elif isinstance(value, ast.IfExp) and _holds_list(value):
        yield from _added(value.body)
        yield from _added(value.orelse)
    else:
        yield value


def sites():
    """(file, line, kind: 'structured'|'plain'|'passed', text)."""
    for f in sorted(SRC.rglob("*.py")):
        src = f.read_text()
        for node in ast.walk(ast.parse(src)):
            added = []
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("append", "extend", "insert") and node.args:
                target = node.func.value
                name = getattr(target, "id", getattr(target, "attr", ""))
                if name.endswith("notes"):
                    added = node.args[-1:]
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
                    and getattr(node.target, "id", getattr(node.target, "attr", "")).endswith("notes"):
                added = [node.value]
            elif isinstance(node, ast.keyword) and node.arg in ("notes", "note"):
                added = [node.value]
            for value in added:
                for e in _added(value):
                    if isinstance(e, ast.Starred):
                        continue
                    text = _literal(e)
                    if text is not None:
                        yield f, e.lineno, "plain", text
                    elif isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id.isupper() or (
                            isinstance(e, ast.Call) and getattr(e.func, "id", "").startswith(("NOTE_", "_NOTE"))):
                        yield f, e.lineno, "structured", e.func.id
                    else:
                        yield f, e.lineno, "passed", ast.get_source_segment(src, e)[:60]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--left", action="store_true", help="only the sites still writing plain text")
    ap.add_argument("--summary", action="store_true", help="counts by package")
    args = ap.parse_args(argv)
    used = existing_codes()
    counts = Counter()
    for f, line, kind, text in sites():
        package = f.relative_to(SRC).parts[0].removesuffix(".py")
        counts[(package, kind)] += 1
        if args.summary or (args.left and kind != "plain"):
            continue
        code = proposed_code(package, re.sub(r"\{\.\.\.\}", " ", text), used) if kind == "plain" else ""
        print(f"{f}:{line}\t{kind}\t{code or text}\t{text[:70]!r}" if kind == "plain" else f"{f}:{line}\t{kind}\t{text}")
    if args.summary or not args.left:
        packages = sorted({p for p, _ in counts})
        print(f"{'package':<14}{'plain':>7}{'structured':>12}{'passed':>8}")
        for p in packages:
            print(f"{p:<14}{counts[(p, 'plain')]:>7}{counts[(p, 'structured')]:>12}{counts[(p, 'passed')]:>8}")
        print(f"{'total':<14}{sum(v for (p, k), v in counts.items() if k == 'plain'):>7}"
              f"{sum(v for (p, k), v in counts.items() if k == 'structured'):>12}"
              f"{sum(v for (p, k), v in counts.items() if k == 'passed'):>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
