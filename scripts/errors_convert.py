"""Turn the library's error messages that name arguments into :class:`evalband._words.Words` (issue 23): the
one-time tool of the migration that retired ``cli_message``.

    python scripts/errors_convert.py src/evalband [--dry-run]

Each ``raise <Something>Error(<literal>, ...)`` whose literal (a string or f-string) names an argument the command
line words as an option (backticked, ``name=`` or a bare ``snake_case`` argument) or a library function the
command line runs as a command becomes ``raise <Something>Error(words("<template>", param=expr, ...), ...)``; the
template is the literal with each replacement field a parameter (so the Python text is byte-identical) and each
argument marked ``{arg:...}`` (the marking of ``scripts/notes_convert.py``). A backticked field naming an argument
(```{name}```, as the checks of ``_validate`` write) becomes ```{arg:{name}}```. Sites whose fields hold text the
command line would re-word are listed and left for a hand edit. Standard library only; run from the root.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from notes_convert import _template  # noqa: E402

#: variables that hold an argument's name in the checks (```{name}``` -> ```{arg:{name}}```)
NAME_VARIABLES = ("name", "old", "new", "argument", "option", "keyword", "arg", "key", "param")


def _raise_sites(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name.endswith(("Error", "Exception")) and isinstance(node.exc.args[0], (ast.Constant, ast.JoinedStr)):
                yield node.exc.args[0]


def convert(path: Path, dry: bool) -> tuple[int, list[str]]:
    src = path.read_text()
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def off(lineno, col):
        return offsets[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())

    edits, left = [], []
    for node in _raise_sites(tree):
        if isinstance(node, ast.Constant) and not isinstance(node.value, str):
            continue
        params: dict = {}
        tpl = _template(node, src, params)
        if tpl is None:
            left.append(f"{path}:{node.lineno}")
            continue
        tpl = re.sub(r"`\{(" + "|".join(NAME_VARIABLES) + r")\d*\}`", lambda m: "`{arg:" + m.group(0)[1:-1] + "}`",
                     tpl)
        if "{arg:" not in tpl and "{fn:" not in tpl:
            continue
        call = "words(" + repr(tpl) + "".join(f", {k}={v}" for k, v in params.items()) + ")"
        edits.append((off(node.lineno, node.col_offset), off(node.end_lineno, node.end_col_offset), call))
    if not edits:
        return 0, left
    out = src
    for start, end, rep in sorted(edits, reverse=True):
        out = out[:start] + rep + out[end:]
    out = _add_import(out, path)
    if not dry:
        path.write_text(out)
    return len(edits), left


def _add_import(src: str, path: Path) -> str:
    if re.search(r"^from [.\w]*_words import .*\bwords\b", src, re.M):
        return src
    rel = path.relative_to(Path("src/evalband"))
    module = "." * len(rel.parts) + "_words"
    tree = ast.parse(src)
    last = None
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            last = stmt
        elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            break
    lines = src.splitlines(keepends=True)
    line = f"from {module} import words\n"
    if last is None:
        doc_end = tree.body[0].end_lineno if tree.body and isinstance(tree.body[0], ast.Expr) else 0
        lines.insert(doc_end, "\n" + line)
    else:
        lines.insert(last.end_lineno, line)
    return "".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    total, left = 0, []
    for p in args.paths:
        files = sorted(Path(p).rglob("*.py")) if Path(p).is_dir() else [Path(p)]
        for f in files:
            if f.name == "_words.py" or f.parts[-2:-1] == ("cli",):
                continue
            n, rest = convert(f, args.dry_run)
            total += n
            left += rest
    print(f"{total} messages converted; {len(left)} left for a hand edit:")
    for x in left:
        print("  " + x)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
