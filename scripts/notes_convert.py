"""Convert a package's literal notes to NoteKinds (issue 23, notes as data): the one-time tool of the migration.

    python scripts/notes_convert.py src/evalband/resample [--dry-run]

Each ``<...>notes.append(<literal>)`` (a string or f-string, or a conditional between two) becomes
``notes.append(KIND(param=expr, ...))`` with ``KIND = NoteKind("<package>.<slug>", "<severity>", "<template>")``
declared just above the top-level function or class that emits it. The template is the literal with each
replacement field as a parameter (its format spec and conversion kept, so the Python text is byte-identical) and
each argument the command line re-words as ``{arg:...}`` / ``{fn:...}`` (what ``cli_message`` rewrote, found by
the same patterns on the literal text only). A site is left alone (and listed) when an expression inside the
literal holds text that the command line would re-word, or its format spec is dynamic: such text must not become a
verbatim parameter. The kinds are then checked by tests/display/test_notes.py (every kind renders for the CLI as
``cli_message`` words its Python text).

Standard library only; run from the repository root.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from notes_inventory import ARG_NAMES, FUNCTIONS, is_arg, proposed_code, severity_of  # noqa: E402

S0, S1 = "\ue100", "\ue101"  # a parameter's place while the literal text is searched for arguments
_SENT = f"{S0}\\d+{S1}"


def _argify(text: str) -> str:
    """Literal text (parameters as sentinels, braces not yet doubled) -> template text with {arg:...}/{fn:...}."""
    for fn in FUNCTIONS:
        text = text.replace(fn, "\0fn:" + fn + "\0")
    # quoted spans that are not an argument's value are user text: leave them (cli_message hides them)
    quoted = re.compile(r"(?<![=\w])'[^'\n]*'|(?<![=\w])\"[^\"\n]*\"")
    spans: list[str] = []

    def hide(m):
        spans.append(m.group(0))
        return f"\ue200{len(spans) - 1}\ue201"

    text = quoted.sub(hide, text)

    def back_value(g):
        name, value = g.group(1), g.group(3)
        if not is_arg(name):
            return g.group(0)
        return "`\0arg:" + f"{name}={g.group(2)}{value}{g.group(2)}" + "\0`"

    text = re.sub(r"`(\w+)=(['\"]?)([^`'\"]*)\2`", back_value, text)
    text = re.sub(r"`(\w+)`", lambda g: "`\0arg:" + g.group(1) + "\0`" if is_arg(g.group(1)) else g.group(0), text)
    if "(resampling='binomial')" in text:
        text = text.replace("(resampling='binomial')", "(\0arg:resampling='binomial'\0)")

    def bare(g):
        name, value = g.group(1), g.group(2)
        if not is_arg(name) or (name, value) in (("cluster", "False"), ("resampling", "'binomial'")):
            return g.group(0)  # said bare, these stay (the CLI spells them as a phrase only in backticks)
        return "\0arg:" + name + "=" + (value or "") + "\0"

    value = rf"('[^']*'|\"[^\"]*\"|(?:[\w.:+\-]|{_SENT})+|\.\.\.)"
    text = re.sub(rf"(?<![\w`.\-/\0])(?<!\0arg:)([a-z]\w*)={value}?(?![\w=])", bare, text)
    text = re.sub(r"(?<![\w`.\-/'\"\0:])([a-z]+_[a-z_]+)(?![\w=(`'\"\0])",
                  lambda g: "\0arg:" + g.group(1) + "\0" if is_arg(g.group(1)) else g.group(0), text)
    text = re.sub("\ue200(\\d+)\ue201", lambda m: spans[int(m.group(1))], text)
    return text


def _template(node: ast.AST, src: str, params: dict) -> str | None:
    """The template of a str / f-string node; ``params`` gains name -> expression source. None: leave the site."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        parts = [node.value]
    elif isinstance(node, ast.JoinedStr):
        parts = list(node.values)
    else:
        return None
    text, fields = "", []
    for part in parts:
        if isinstance(part, str):
            text += part
        elif isinstance(part, ast.Constant):
            text += part.value
        else:  # FormattedValue
            expr = ast.get_source_segment(src, part.value)
            if expr is None:
                return None
            for sub in ast.walk(part.value):  # library text inside the expression: the CLI would re-word it
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and _wordy(sub.value):
                    return None
            spec = ""
            if part.format_spec is not None:
                if any(not isinstance(v, ast.Constant) for v in part.format_spec.values):
                    return None
                spec = ":" + "".join(v.value for v in part.format_spec.values)
            conv = "" if part.conversion == -1 else "!" + chr(part.conversion)
            name = _param_name(part.value, expr, params)
            params[name] = expr
            fields.append("{" + name + conv + spec + "}")
            text += f"{S0}{len(fields) - 1}{S1}"
    if "needs `" in text and any(p in text for p in ("bin_width", "gamma", "baseline", "chance")):
        return None  # the aggregate-parameter sentence: re-worded as a whole by the CLI
    if "accuracy_scale=" in text and "say" in text:
        return None
    text = _argify(text.replace("{", "\ue300").replace("}", "\ue301"))
    text = text.replace("\ue300", "{{").replace("\ue301", "}}")
    text = re.sub("\0(arg|fn):([^\0]*)\0", lambda m: "{" + m.group(1) + ":" + m.group(2) + "}", text)
    return re.sub(f"{S0}(\\d+){S1}", lambda m: fields[int(m.group(1))], text)


def _wordy(text: str) -> bool:
    return bool(re.search(r"`|\w=|[a-z]+_[a-z_]+", text)) or any(
        re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text) for n in ARG_NAMES if "_" in n) or any(
        f in text for f in FUNCTIONS)


def _param_name(node, expr: str, params: dict) -> str:
    for name, e in params.items():
        if e == expr:
            return name
    if isinstance(node, ast.Name):
        base = node.id
    elif isinstance(node, ast.Attribute):
        base = node.attr
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args \
            and isinstance(node.args[0], (ast.Name, ast.Attribute)):
        arg = node.args[0]
        base = "n_" + (arg.id if isinstance(arg, ast.Name) else arg.attr)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "float") \
            and node.args and isinstance(node.args[0], ast.Name):
        base = node.args[0].id
    else:
        base = "value"
    base = base.strip("_").lower() or "value"
    if base in ("self", "cls"):
        base = "value"
    name, k = base, 2
    while name in params:
        name, k = f"{base}{k}", k + 1
    return name


def _is_note_call(node) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append"
            and len(node.args) == 1 and not node.keywords):
        return False
    target = node.func.value
    name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
    return name.endswith("notes")


def convert(path: Path, package: str, used_codes: set, dry: bool) -> tuple[int, list[str]]:
    src = path.read_text()
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    edits = []  # (start_offset, end_offset, replacement)
    decls: dict[int, list[str]] = {}  # top-level statement line -> declarations to put above it
    left = []
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def off(lineno, col):
        return offsets[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())

    const_names = set(re.findall(r"^(_?[A-Z][A-Z0-9_]*) = ", src, re.M))
    top_of = {}
    for stmt in tree.body:
        for sub in ast.walk(stmt):
            top_of[id(sub)] = stmt
    n = 0
    for node in ast.walk(tree):
        if not _is_note_call(node):
            continue
        arg = node.args[0]
        leaves = [arg.body, arg.orelse] if isinstance(arg, ast.IfExp) else [arg]
        made = []
        for leaf in leaves:
            params: dict = {}
            tpl = _template(leaf, src, params)
            if tpl is None:
                break
            literal = tpl
            code = proposed_code(package, re.sub(r"\{[^{}]*\}", " ", literal), used_codes)
            used_codes.add(code)
            const = "NOTE_" + code.split(".", 1)[1].upper().replace("-", "_")
            while const in const_names:
                const += "_"
            const_names.add(const)
            sev = severity_of(literal)
            made.append((leaf, const, code, sev, tpl, params))
        if len(made) != len(leaves):
            left.append(f"{path}:{node.lineno}")
            continue
        top = top_of[id(node)]
        first = top.decorator_list[0].lineno if getattr(top, "decorator_list", None) else top.lineno
        for leaf, const, code, sev, tpl, params in made:
            call = const + "(" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")"
            edits.append((off(leaf.lineno, leaf.col_offset), off(leaf.end_lineno, leaf.end_col_offset), call))
            decl = f"{const} = NoteKind({code!r}, {sev!r},\n{' ' * (len(const) + 13)}{tpl!r})\n"
            if len(decl.splitlines()[1]) > 120:
                decl = f"{const} = NoteKind(\n    {code!r}, {sev!r},\n    {_wrap_literal(tpl)})\n"
            decls.setdefault(first, []).append(decl)
        n += 1
    if not n:
        return 0, left
    out = src
    for start, end, rep in sorted(edits, reverse=True):
        out = out[:start] + rep + out[end:]
    # declarations above their statements (line numbers of the original: insert bottom-up)
    out_lines = out.splitlines(keepends=True)
    # edits may change the line count before a statement: map by the statement's first line text
    tree2 = ast.parse(out)
    firsts = []
    for old, new in zip(tree.body, tree2.body):
        f_old = old.decorator_list[0].lineno if getattr(old, "decorator_list", None) else old.lineno
        f_new = new.decorator_list[0].lineno if getattr(new, "decorator_list", None) else new.lineno
        firsts.append((f_old, f_new))
    mapping = dict(firsts)
    for first in sorted(decls, reverse=True):
        at = mapping[first] - 1
        block = "".join(decls[first]) + ("\n\n" if isinstance(_stmt_at(tree, first), (ast.FunctionDef, ast.ClassDef,
                                                                                   ast.AsyncFunctionDef)) else "\n")
        out_lines.insert(at, block)
    out = "".join(out_lines)
    out = _add_import(out, path)
    if not dry:
        path.write_text(out)
    return n, left


def _stmt_at(tree, first):
    for s in tree.body:
        f = s.decorator_list[0].lineno if getattr(s, "decorator_list", None) else s.lineno
        if f == first:
            return s
    return None


def _wrap_literal(text: str) -> str:
    r = repr(text)
    if len(r) <= 112:
        return r
    q = r[0]
    body = r[1:-1]
    chunks, cur = [], ""
    for word in re.split(r"(?<= )", body):
        if len(cur) + len(word) > 108 and cur:
            chunks.append(cur)
            cur = ""
        cur += word
    chunks.append(cur)
    return ("\n    ").join(q + c + q for c in chunks)


def _add_import(src: str, path: Path) -> str:
    if re.search(r"^from [.\w]*display\.notes import .*NoteKind", src, re.M):
        return src
    rel = path.relative_to(Path("src/evalband"))
    depth = len(rel.parts) - 1
    module = ("." if rel.parts[0] == "display" else "." * (depth + 1) + "display.") + "notes"
    if rel.parts[0] == "display":
        module = ".notes"
    tree = ast.parse(src)
    last = None
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            last = stmt
        elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            break
    lines = src.splitlines(keepends=True)
    line = f"from {module} import NoteKind\n"
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
    from notes_inventory import existing_codes

    used = existing_codes()
    total, left = 0, []
    for p in args.paths:
        files = sorted(Path(p).rglob("*.py")) if Path(p).is_dir() else [Path(p)]
        for f in files:
            package = f.relative_to("src/evalband").parts[0].removesuffix(".py")
            n, rest = convert(f, package, used, args.dry_run)
            total += n
            left += rest
    print(f"{total} sites converted; {len(left)} left as plain text:")
    for x in left:
        print("  " + x)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
