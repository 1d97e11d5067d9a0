"""The layer order of ``src/evalband`` and the import scanner that checks it (issue 23).

``LAYERS`` is the one source of the order: ``tests/test_architecture.py`` checks every import of the source
against it, and the layer table of ``docs/dev/architecture.md`` is generated from it (between the markers
``<!-- layers:begin -->`` and ``<!-- layers:end -->``). A *room* is a subpackage (``resample``) or a loose module
at the package root (``table``); a layer holds one or more rooms. A module may import its own room, any room of an
earlier layer, and a peer of its own layer as long as no cycle between rooms results (checked separately as
strongly connected components); an import of a later layer is an *upward import*.

Every import counts: module-level and inside functions, relative and absolute, ``import evalband.x`` and
``from evalband import x``; names taken from the root package resolve through its lazy table (``_LAZY``) to the
module that defines them; ``"evalband.mod:function"`` registry strings and ``importlib.import_module("evalband.x")``
with a constant name count as imports too. Only imports under ``if TYPE_CHECKING:`` are skipped (they never run).

Two kinds of violation: an *upward* import (of a later layer), and a *cycle* between rooms of one layer (peers
importing each other; within a strongly connected component of peers, an import of a room listed earlier in the
layer is counted as the one closing the cycle). ``ALLOWED`` lists the violations the code had when the list was
written, as ``"file -> module": count`` (by module, not by line, so that edits elsewhere in a file do not disturb
it). It may only shrink: a new violation fails the test (naming file and line), and an entry that no longer occurs
must be deleted. After the redesign's move it is empty, and every violation fails.

Run ``python tests/layers.py`` for a report (rooms, every upward import with file and line, the strongly connected
components), ``--allow-list`` to print the allow-list the code calls for now (``--write-allow-list`` writes it
here), ``--write-docs`` to regenerate the table in ``docs/dev/architecture.md``. The module needs only the standard
library (it does not import evalband).
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "evalband"
DOC = ROOT / "docs" / "dev" / "architecture.md"
DOC_BEGIN, DOC_END = "<!-- layers:begin -->", "<!-- layers:end -->"

# LAYERS-BEGIN (the new layout)
#: (name, rooms, what the layer is for), earliest first. A room is a subpackage or a module at the package root,
#: written as its path under src/evalband without ``.py``; ``__init__`` is the root package (the curated facade,
#: whose names load lazily: it imports nothing itself). Every module of the source belongs to exactly one room.
LAYERS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("shared helpers", ("__init__", "_validate", "_random", "_ranks", "_lists", "_progress", "_files", "_moved",
                        "_blas", "_cells", "_defaults", "_distributions", "_lazy", "_words"),
     "argument checks and errors, messages in words for each audience, random streams, ranks, name lists, progress,"
     " safe files, old module paths"),
    ("display rules", ("display",),
     "digits, units, words, escaping, notes, terminal tables, short reprs (every result type's repr uses them)"),
    ("tables", ("data",), "the results table and its checks, labels, battles, ratings, costs"),
    ("readers", ("io",), "one reader per source, read(), the bundled examples"),
    ("selection", ("selection",),
     "select() / Selection, and the design it implies: facets random or fixed, clusters, human labels"),
    ("aggregates", ("aggregate",), "aggregates across tasks (the statistics the engine evaluates)"),
    ("estimators", ("estimation",),
     "ConfidenceInterval; per-cell intervals, crossed and small-cluster SEs, PPI point estimates"),
    ("resampling", ("resample",), "every replicate scheme behind one protocol and one dispatch; executors"),
    ("comparisons", ("comparison",), "pairwise differences, multiplicity, verdicts"),
    ("rankings", ("ranking",), "rank distributions, intervals, tiers"),
    ("Bayesian models", ("bayes",), "Beta-Binomial, the logistic model, NumPyro models"),
    ("analyses over tasks", ("tasks", "weights", "plan"), "tests over tasks, weight sensitivity, planning"),
    ("capabilities", ("facets", "preferences", "judges", "latent", "subset"),
     "variance components and D-studies, preference leaderboards, agreement and PPI comparisons, latent abilities,"
     " subset evaluation"),
    ("costs", ("costs",), "quality-cost frontiers (built on preferences for battles)"),
    ("analysis", ("analysis",), "analyze() / Analysis and one adapter per capability"),
    ("renderers", ("report",), "report sections, plots, writers"),
    ("command line", ("cli", "__main__"), "one module per command"),
)
# LAYERS-END

# ALLOWED-BEGIN (regenerate with `python tests/layers.py --write-allow-list`; it may only shrink)
#: violations the code has today, "file -> imported module": count; empty once the redesign has moved the code
ALLOWED: dict[str, int] = {
}
# ALLOWED-END


@dataclass(frozen=True)
class Import:
    """One module imported by one file: ``source`` and ``target`` are dotted module names under evalband
    ('' for the root package), ``file`` the path under src/evalband, ``kind`` 'static' or 'dynamic' (a registry
    string or ``import_module`` call)."""

    file: str
    line: int
    source: str
    target: str
    in_function: bool
    kind: str = "static"

    def key(self) -> str:
        return f"{self.file} -> {self.target or '__init__'}"

    def __str__(self) -> str:
        where = " (in a function)" if self.in_function else ""
        how = " (registry string)" if self.kind == "dynamic" else ""
        return f"{self.file}:{self.line} imports {self.target or 'evalband'}{where}{how}"


def module_name(path: Path, src: Path = SRC) -> str:
    """``resample/engine.py`` -> 'resample.engine'; ``io/__init__.py`` -> 'io'; the root ``__init__.py`` -> ''."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules(src: Path = SRC) -> dict[str, Path]:
    """Every module of the source: dotted name -> file."""
    return {module_name(p, src): p for p in sorted(src.rglob("*.py"))}


def _lazy_names(src: Path) -> dict[str, str]:
    """The root package's lazy table (``_LAZY``: public name -> 'evalband.module'), read from its source."""
    init = src / "__init__.py"
    if not init.exists():
        return {}
    for node in ast.walk(ast.parse(init.read_text())):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        if any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in targets) and isinstance(node.value, ast.Dict):
            return {k.value: v.value for k, v in zip(node.value.keys, node.value.values)
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)}
    return {}


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))




def scan(src: Path = SRC) -> list[Import]:
    """Every import of an evalband module made by a file of ``src`` (see the module docstring for what counts)."""
    mods = modules(src)
    top = src.name  # 'evalband'
    registry = re.compile(rf"^{top}((?:\.\w+)+):\w+$")
    lazy = {name: target.removeprefix(top).lstrip(".") for name, target in _lazy_names(src).items()}
    out: list[Import] = []
    for name, path in mods.items():
        file = path.relative_to(src).as_posix()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]

        def add(target: str, line: int, in_function: bool, kind: str = "static") -> None:
            out.append(Import(file, line, name, target, in_function, kind))

        def resolve(base: str, names: list[str]) -> list[str]:
            """The modules ``from <base> import names`` loads: a submodule where a name is one, else ``base``;
            names taken from the root package through its lazy table."""
            targets = []
            for n in names:
                full = f"{base}.{n}" if base else n
                if full in mods:
                    targets.append(full)
                elif base == "" and n in lazy:
                    targets.append(lazy[n])
                else:
                    targets.append(base)
            return list(dict.fromkeys(targets))

        def visit(node: ast.AST, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and _is_type_checking(child.test):
                    for sub in child.orelse:  # the else branch runs
                        visit_one(sub, in_function)
                    continue
                visit_one(child, in_function)

        def visit_one(child: ast.AST, in_function: bool) -> None:
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".") if package else []
                    base = base[: len(base) - (child.level - 1)]
                    base_name = ".".join(base + (child.module.split(".") if child.module else []))
                elif child.module and (child.module == top or child.module.startswith(f"{top}.")):
                    base_name = child.module.removeprefix(top).lstrip(".")
                else:
                    base_name = None
                if base_name is not None:
                    for target in resolve(base_name, [a.name for a in child.names]):
                        add(target, child.lineno, in_function)
            elif isinstance(child, ast.Import):
                for a in child.names:
                    if a.name == top or a.name.startswith(f"{top}."):
                        add(a.name.removeprefix(top).lstrip("."), child.lineno, in_function)
            elif isinstance(child, ast.Constant) and isinstance(child.value, str):
                m = registry.match(child.value)
                if m:
                    add(m.group(1).lstrip("."), child.lineno, in_function, "dynamic")
            elif isinstance(child, ast.Call) and getattr(child.func, "attr", getattr(child.func, "id", None)) \
                    == "import_module" and child.args and isinstance(child.args[0], ast.Constant) \
                    and isinstance(child.args[0].value, str) and child.args[0].value.startswith(f"{top}."):
                add(child.args[0].value.removeprefix(f"{top}."), child.lineno, in_function, "dynamic")
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

        visit(ast.parse(path.read_text(), filename=str(path)), False)
    return out


def rooms(layers=LAYERS) -> dict[str, int]:
    """room -> index of its layer."""
    out = {}
    for i, (_, members, _) in enumerate(layers):
        for room in members:
            if room in out:
                raise ValueError(f"room {room!r} is in two layers")
            out[room] = i
    return out


def room_of(module: str, layers=LAYERS) -> str | None:
    """The room of a dotted module name ('' is the root package): the longest room that is the module or a package
    holding it; None when no room holds it."""
    if module == "":
        return "__init__" if "__init__" in rooms(layers) else None
    parts = module.split(".")
    known = rooms(layers)
    for k in range(len(parts), 0, -1):
        room = "/".join(parts[:k])
        if room in known:
            return room
    return None


def unplaced(src: Path = SRC, layers=LAYERS) -> list[str]:
    """Modules of the source that no room of ``layers`` holds."""
    return [m for m in modules(src) if room_of(m, layers) is None]


def upward(imports: list[Import], layers=LAYERS) -> list[Import]:
    """The imports of a room of a later layer than the importing module's."""
    layer = rooms(layers)
    out = []
    for imp in imports:
        a, b = room_of(imp.source, layers), room_of(imp.target, layers)
        if a is not None and b is not None and layer[b] > layer[a]:
            out.append(imp)
    return out


def room_graph(imports: list[Import], layers=LAYERS) -> dict[str, set[str]]:
    """room -> rooms it imports (other than itself)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in imports:
        a, b = room_of(imp.source, layers), room_of(imp.target, layers)
        if a is not None and b is not None and a != b:
            graph[a].add(b)
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Components of more than one room in which every room reaches every other (Tarjan's algorithm, iterative),
    largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(set(graph) | {b for v in graph.values() for b in v}):
        if start in index:
            continue
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph.get(start, ()))))]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return sorted(out, key=lambda c: (-len(c), c))


def peer_cycles(imports: list[Import], layers=LAYERS) -> list[Import]:
    """Imports that close a cycle between rooms of one layer: within a strongly connected component of the imports
    that are not upward, an import of a room listed earlier in the layer (without these, no cycle is left)."""
    layer = rooms(layers)
    position = {room: members.index(room) for _, members, _ in layers for room in members}
    up = set(map(id, upward(imports, layers)))
    rest = [i for i in imports if id(i) not in up]
    component = {room: k for k, comp in enumerate(strongly_connected(room_graph(rest, layers))) for room in comp}
    out = []
    for imp in rest:
        a, b = room_of(imp.source, layers), room_of(imp.target, layers)
        if (a is not None and b is not None and a != b and a in component and component[a] == component.get(b)
                and layer[a] == layer[b] and position[b] < position[a]):
            out.append(imp)
    return out


def violations(imports: list[Import], layers=LAYERS) -> list[tuple[Import, str]]:
    """Every upward import and every import closing a cycle between peers, as ``(import, 'upward' or 'cycle')``,
    in file and line order."""
    out = [(i, "upward") for i in upward(imports, layers)] + [(i, "cycle") for i in peer_cycles(imports, layers)]
    return sorted(out, key=lambda v: (v[0].file, v[0].line, v[0].target))


def allow_list(found: list[tuple[Import, str]]) -> dict[str, int]:
    """The violations as the allow-list counts them."""
    return dict(sorted(Counter(imp.key() for imp, _ in found).items()))


def new_and_stale(found: list[tuple[Import, str]], allowed: dict[str, int] | None = None):
    """``(new, stale)``: violations beyond the allow-list (``(import, kind)``, each naming file and line), and
    allow-list entries that no longer occur, with the count to delete."""
    allowed = ALLOWED if allowed is None else allowed
    by_key = defaultdict(list)
    for v in found:
        by_key[v[0].key()].append(v)
    new = [v for key, vs in by_key.items() for v in vs[allowed.get(key, 0):]]
    stale = {key: n - len(by_key.get(key, ())) for key, n in allowed.items() if n > len(by_key.get(key, ()))}
    return sorted(new, key=lambda v: (v[0].file, v[0].line)), stale


def layer_table(layers=LAYERS, src: Path = SRC) -> str:
    """The Markdown table of the layers, earliest first (what docs/dev/architecture.md shows)."""
    lines = ["| layer | rooms | for |", "|---|---|---|"]
    for i, (name, members, purpose) in enumerate(layers):
        shown = ", ".join("`__init__.py`" if m == "__init__" else f"`{m}/`" if (src / m).is_dir() else f"`{m}.py`"
                          for m in members)
        lines.append(f"| {i}. {name} | {shown} | {purpose} |")
    return "\n".join(lines)


def doc_table(doc: Path = DOC) -> str | None:
    """The generated block of the architecture page (None without its markers)."""
    text = doc.read_text()
    if DOC_BEGIN not in text or DOC_END not in text:
        return None
    return text.split(DOC_BEGIN, 1)[1].split(DOC_END, 1)[0].strip()


def write_doc_table(doc: Path = DOC, layers=LAYERS, src: Path = SRC) -> None:
    """Write :func:`layer_table` between the markers of the architecture page."""
    text = doc.read_text()
    head, rest = text.split(DOC_BEGIN, 1)
    _, tail = rest.split(DOC_END, 1)
    doc.write_text(f"{head}{DOC_BEGIN}\n{layer_table(layers, src)}\n{DOC_END}{tail}")


def census(src: Path = SRC, layers=LAYERS) -> dict:
    """The figures of the closing note: rooms (subpackages, loose modules), imports, violations (upward, cycle),
    strongly connected components between rooms."""
    imports = scan(src)
    packages = sorted(p.name for p in src.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    loose = sorted(p.stem for p in src.glob("*.py"))
    return {"packages": packages, "loose": loose, "imports": imports, "violations": violations(imports, layers),
            "components": strongly_connected(room_graph(imports, layers)), "unplaced": unplaced(src, layers)}


def report(src: Path = SRC, layers=LAYERS, allowed: dict | None = None) -> str:
    """The census as text: every violation with file and line, by pair of rooms."""
    c = census(src, layers)
    imports, found = c["imports"], c["violations"]
    up = [i for i, kind in found if kind == "upward"]
    cyc = [i for i, kind in found if kind == "cycle"]
    lines = [f"rooms: {len(c['packages'])} subpackages + {len(c['loose'])} modules at the root"
             f" ({', '.join(c['loose'])})",
             f"imports of evalband modules: {len(imports)} ({sum(i.in_function for i in imports)} inside functions,"
             f" {sum(i.kind == 'dynamic' for i in imports)} registry strings)",
             f"upward imports: {len(up)} ({sum(i.in_function for i in up)} inside functions) in"
             f" {len({(room_of(i.source, layers), room_of(i.target, layers)) for i in up})} pairs of rooms",
             f"imports closing a cycle between peers: {len(cyc)}"]
    if c["unplaced"]:
        lines.append(f"modules in no room of LAYERS: {', '.join(c['unplaced'])}")
    by_pair = defaultdict(list)
    for imp, kind in found:
        by_pair[(room_of(imp.source, layers), room_of(imp.target, layers), kind)].append(imp)
    for (a, b, kind), imps in sorted(by_pair.items()):
        lines.append(f"  {a} -> {b} ({kind}): {len(imps)}")
        lines += [f"      {i}" for i in imps]
    comps = c["components"]
    lines.append(f"strongly connected components spanning rooms (every import counted): {len(comps)}")
    lines += [f"  {len(comp)} rooms: {', '.join(comp)}" for comp in comps]
    new, stale = new_and_stale(found, allowed)
    lines.append(f"against ALLOWED: {len(new)} new, {sum(stale.values())} stale")
    lines += [f"  new ({kind}): {imp}" for imp, kind in new]
    lines += [f"  stale: {key} (delete {n})" for key, n in stale.items()]
    return "\n".join(lines)


def allowed_block(found: list[tuple[Import, str]]) -> str:
    """The text of the ``ALLOWED`` dictionary for ``found``."""
    lines = ["ALLOWED: dict[str, int] = {"]
    lines += [f"    {key!r}: {n}," for key, n in allow_list(found).items()]
    return "\n".join(lines + ["}"])


def write_allowed(found: list[tuple[Import, str]], path: Path = Path(__file__)) -> None:
    """Replace the ``ALLOWED`` block of this file with the one ``found`` calls for (used by the move script)."""
    text = path.read_text()
    head, rest = text.split("# ALLOWED-BEGIN", 1)
    body, tail = rest.split("# ALLOWED-END", 1)
    first = body.split("\n", 1)[0]
    comment = [line for line in body.splitlines() if line.startswith("#:")]
    path.write_text(head + "# ALLOWED-BEGIN" + first + "\n" + "\n".join(comment + [allowed_block(found)]) + "\n"
                    + "# ALLOWED-END" + tail)


def main(argv: list[str]) -> int:
    if "--allow-list" in argv:
        print(allowed_block(violations(scan())))
    elif "--write-allow-list" in argv:
        write_allowed(violations(scan()))
    elif "--write-docs" in argv:
        write_doc_table()
    else:
        print(report())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
