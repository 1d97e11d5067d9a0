"""The mechanical part of issue 23's redesign: move modules to the layout of docs/dev/redesign_plan.md and rewrite
every reference to them. Nothing here changes what a function does.

Run from the repository root on a clean working tree (it refuses otherwise), then review and commit:

    python scripts/redesign_move.py --dry-run      # what would move and what would be rewritten
    python scripts/redesign_move.py                # do it (git mv, rewrite, switch LAYERS, regenerate ALLOWED)
    python scripts/redesign_move.py --check        # afterwards: references to old paths that are left

It works by module paths, never by the content of a file, so it runs on whatever the files hold when it runs:

* ``MOVES`` (old path -> new path under src/evalband; a folder moves with everything in it, data files included).
  A source that does not exist is skipped and said; a target that exists already stops the run.
* Imports are rewritten from the syntax tree of every Python file (src, tests, benchmarks, scripts): relative
  imports are recomputed from the file's new place; ``from evalband[.x] import name`` where ``name`` is a moved
  module is pointed at its new package; a name imported from a package whose ``__init__`` re-exports it from a
  module that moved out of the package (or into the importing file's own package) is imported from that module.
* Every text file (Python, Markdown, TOML, the CI script) gets its dotted module paths (``evalband.table`` ->
  ``evalband.data.table``), source paths (``src/evalband/facets/crossed.py``, ``facets/crossed.py``) and test
  paths rewritten; relative names in the lazy tables of package ``__init__`` files (``"._build"``) too.
* Tests follow the code: ``tests/<pkg>/test_<module>.py`` (and ``tests/test_<module>*.py`` for modules at the root)
  move with their module, unless they lean on their folder (its conftest.py, a reference file beside them), which
  is said; ``Path(__file__).resolve().parents[k]`` is adjusted when a test changes depth.
* ``src/evalband/_moved.py`` lets the old public module paths import for one release, with a DeprecationWarning
  (``--no-aliases`` leaves it out).
* tests/layers.py gets the target ``LAYERS`` and an ``ALLOWED`` list regenerated for the moved code (what is left
  for the manual steps of the plan), and docs/dev/architecture.md its regenerated layer table.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

TOP = "evalband"

#: (old, new) paths under src/evalband, in the order they are applied. See docs/dev/redesign_plan.md for why.
MOVES: list[tuple[str, str]] = [
    # the table types and their helpers: data/
    ("table.py", "data/table.py"),
    ("_table_checks.py", "data/checks.py"),
    ("_table_codes.py", "data/codes.py"),
    ("_table_summary.py", "data/summary.py"),
    ("_table_task.py", "data/task_data.py"),
    ("_labels.py", "data/labels.py"),
    ("battles.py", "data/battles.py"),
    ("ratings.py", "data/ratings.py"),
    ("cost_table.py", "data/costs.py"),
    # the bundled examples beside their reader
    ("examples", "io/example_data"),
    # ConfidenceInterval beside the estimators, the first layer that makes one
    ("results.py", "estimation/confidence.py"),
    # the design a selection implies; the selections of ratings and of results with human labels
    ("facets/design.py", "selection/facet_design.py"),
    ("judges/_inputs.py", "selection/judgements.py"),
    # estimators that were filed under their capability
    ("facets/small_clusters.py", "estimation/small_clusters.py"),
    ("facets/crossed_se.py", "estimation/crossed.py"),
    ("judges/ppi.py", "estimation/ppi.py"),
    ("judges/ppi_table.py", "estimation/ppi_table.py"),
    # every replicate scheme and the one dispatch in resample/
    ("facets/defaults.py", "resample/dispatch.py"),
    ("facets/crossed.py", "resample/crossed.py"),
    ("judges/ppi_replicates.py", "resample/ppi.py"),
    ("preferences/resampling.py", "resample/battles.py"),
    ("judges/_resample.py", "resample/units.py"),
    ("dist.py", "resample/distributed.py"),
    # the judges' digit rule and short views, beside the display rules (folded into numbers/reprs in a later step)
    ("judges/_display.py", "display/short.py"),
    # one adapter per capability in analysis/
    ("judges/extension.py", "analysis/judges.py"),
    ("costs/analysis.py", "analysis/costs.py"),
    ("facets/extension.py", "analysis/variance.py"),   # exists once variance_extension is cut out of facets/summary
    # report/: sections/, plots/, writers
    ("report/_build.py", "report/build.py"),
    ("report/html.py", "report/writers.py"),
    ("report/sections.py", "report/sections/__init__.py"),
    ("report/_facets.py", "report/sections/variance.py"),
    ("report/_frontier.py", "report/sections/costs.py"),
    ("report/_judges.py", "report/sections/judges.py"),
    ("report/_preferences.py", "report/sections/preferences.py"),
    ("report/_summary.py", "report/sections/summary.py"),
    ("report/_findings.py", "report/sections/findings.py"),
    ("report/plots.py", "report/plots/__init__.py"),
    ("report/_style.py", "report/plots/style.py"),
    ("report/cd_diagram.py", "report/plots/cd_diagram.py"),
    ("report/plot_frontier.py", "report/plots/frontier.py"),
    ("report/plot_intervals.py", "report/plots/intervals.py"),
    ("report/plot_matrices.py", "report/plots/matrices.py"),
    ("report/plot_preferences.py", "report/plots/preferences.py"),
    ("report/plot_ranks.py", "report/plots/ranks.py"),
    ("report/plot_variance.py", "report/plots/variance.py"),
    ("report/plot_weights.py", "report/plots/weights.py"),
    ("report/profiles_plot.py", "report/plots/profiles.py"),
]

#: packages the move creates, with the docstring of their __init__.py
NEW_PACKAGES = {
    "data": ('"""The table types: the results table (labels as categoricals, rows on integer codes in canonical order;'
             ' its\nchecks, summary-level data and the one reshaper ``task_data``), labels, battles, ratings and'
             ' per-model costs.\n\nEvery reader ends in one of these; every later layer takes them through'
             ' :func:`evalband.select`.\n"""\n'),
}

#: the layers of the new layout (replaces the LAYERS block of tests/layers.py)
TARGET_LAYERS = '''LAYERS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("shared helpers", ("__init__", "_validate", "_random", "_ranks", "_lists", "_progress", "_files", "_moved",
                        "_blas", "_cells", "_defaults", "_distributions", "_lazy"),
     "argument checks and errors, random streams, ranks, name lists, progress, safe files, old module paths"),
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
    ("capabilities", ("facets", "preferences", "judges", "latent"),
     "variance components and D-studies, preference leaderboards, agreement and PPI comparisons, latent abilities"),
    ("costs", ("costs",), "quality-cost frontiers (built on preferences for battles)"),
    ("analysis", ("analysis",), "analyze() / Analysis and one adapter per capability"),
    ("renderers", ("report",), "report sections, plots, writers"),
    ("command line", ("cli", "__main__"), "one module per command"),
)'''

#: text files outside src/ and tests/ whose references are rewritten (globs from the repository root)
TEXT_GLOBS = ("README.md", "docs/**/*.md", "pyproject.toml", "benchmarks/**/*.py", "scripts/**/*.py", ".ci/**/*",
              "tests/**/*.md")
THIS = Path(__file__).resolve()


# ---------------------------------------------------------------------------------------------------------------
# module maps


def module_of(rel: str) -> str:
    """'facets/crossed.py' -> 'facets.crossed'; 'report/plots/__init__.py' -> 'report.plots'; '__init__.py' -> ''."""
    parts = rel.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def package_of(rel: str) -> str:
    """The package a file's relative imports start from: its folder ('' at the root)."""
    return ".".join(rel.split("/")[:-1])


@dataclass
class Plan:
    root: Path
    src: Path
    files: dict[str, str] = field(default_factory=dict)          # old src rel path -> new src rel path (every file)
    modules: dict[str, str] = field(default_factory=dict)        # old module -> new module (moved ones only)
    old_modules: set[str] = field(default_factory=set)
    dirs: list[tuple[str, str]] = field(default_factory=list)    # folder moves (old, new)
    skipped: list[str] = field(default_factory=list)
    tests: dict[str, str] = field(default_factory=dict)          # old test path -> new test path (repo-relative)
    tests_kept: list[str] = field(default_factory=list)
    reexports: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)  # module -> name -> (module, orig)
    new_packages: list[str] = field(default_factory=list)

    def new_module(self, old: str) -> str:
        return self.modules.get(old, old)

    def defining(self, module: str, name: str) -> tuple[str, str] | None:
        """Where ``name`` taken from ``module`` is defined, following the modules that only import it at the top
        (``from .crossed_se import crossed_estimates`` in ``facets/__init__``): ``(module, its name there)``, or
        None when ``module`` defines it itself."""
        found, seen = None, set()
        while (module, name) not in seen:
            seen.add((module, name))
            step = self.reexports.get(module, {}).get(name)
            if step is None:
                return found
            module, name = step
            found = (module, name)
        return found

    def room(self, module: str) -> str:
        """The top-level room of a module ('' is the root package)."""
        return module.split(".")[0] if module else "__init__"


def build_plan(root: Path) -> Plan:
    src = root / "src" / TOP
    plan = Plan(root, src)
    every = sorted(p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file()
                   and "__pycache__" not in p.parts)
    plan.old_modules = {module_of(f) for f in every if f.endswith(".py")}
    for f in every:
        plan.files[f] = f
    for old, new in MOVES:
        if not (src / old).exists():
            plan.skipped.append(f"{old} (not in this tree)")
            continue
        if (src / new).exists() and (src / new).is_file():
            raise SystemExit(f"redesign_move: the target src/{TOP}/{new} exists already; stopping before any change")
        if (src / old).is_dir():
            plan.dirs.append((old, new))
            for f in every:
                if f.startswith(old + "/"):
                    plan.files[f] = new + f[len(old):]
        else:
            plan.files[old] = new
    for old, new in plan.files.items():
        if old != new and old.endswith(".py"):
            if module_of(old) != module_of(new):
                plan.modules[module_of(old)] = module_of(new)
    clash = set(plan.modules.values()) & set(plan.modules)
    if clash:
        raise SystemExit(f"redesign_move: new module names that are old ones: {sorted(clash)}")
    new_dirs = {str(Path(n).parent) for n in plan.files.values() if n.endswith(".py") and "/" in n}
    for d in sorted(new_dirs):
        if not (src / d / "__init__.py").exists() and f"{d}/__init__.py" not in plan.files.values():
            if d not in NEW_PACKAGES:
                raise SystemExit(f"redesign_move: {d}/ would be a folder without __init__.py (add it to NEW_PACKAGES)")
            plan.new_packages.append(d)
    plan.reexports = _reexports(src)
    _plan_tests(plan)
    return plan


def _reexports(src: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """module -> name it imports at its top level from another evalband module -> (that module, the name there);
    lazy tables of package ``__init__`` files (``_LAZY = {"name": "evalband.pkg.mod"}`` or ``".mod"``) count too.
    A name a module defines itself is not listed."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    modules = {module_of(p.relative_to(src).as_posix()) for p in src.rglob("*.py")}
    for path in src.rglob("*.py"):
        rel = path.relative_to(src).as_posix()
        mod = module_of(rel)
        pkg = package_of(rel)
        names: dict[str, tuple[str, str]] = {}
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".") if pkg else []
                    base = base[: len(base) - (node.level - 1)]
                    base_mod = ".".join(base + (node.module.split(".") if node.module else []))
                elif node.module and (node.module == TOP or node.module.startswith(TOP + ".")):
                    base_mod = node.module[len(TOP):].lstrip(".")
                else:
                    continue
                for a in node.names:
                    full = f"{base_mod}.{a.name}" if base_mod else a.name
                    if a.name != "*" and full not in modules and base_mod in modules:
                        names[a.asname or a.name] = (base_mod, a.name)
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_LAZY"
                                                      for t in node.targets) and isinstance(node.value, ast.Dict):
                for k, v in zip(node.value.keys, node.value.values):
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Constant) and isinstance(v.value, str):
                        target = v.value
                        if target.startswith("."):
                            target = f"{mod}{target}" if mod else target[1:]
                        else:
                            target = target.removeprefix(TOP).lstrip(".")
                        if target in modules and target != mod:
                            names.setdefault(k.value, (target, k.value))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.pop(node.name, None)  # defined here after all
        out[mod] = names
    return out


# ---------------------------------------------------------------------------------------------------------------
# tests follow the code


def _conftest_names(folder: Path) -> set[str]:
    conf = folder / "conftest.py"
    if not conf.exists():
        return set()
    tree = ast.parse(conf.read_text())
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | {
        t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}


def _leans_on_folder(path: Path, tests: Path) -> str | None:
    """Why the test cannot leave its folder (None if it can): names of its folder's conftest.py (the one of tests/
    itself reaches every folder), its folder's conftest imported, a reference file loaded from beside it."""
    text = path.read_text()
    tree = ast.parse(text)
    local = _conftest_names(path.parent) if path.parent != tests else set()
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.arg for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for a in n.args.args}
    if used & local:
        return f"uses {', '.join(sorted(used & local))} of {path.parent.name}/conftest.py"
    if "from conftest import" in text or "import conftest" in text:
        return "imports its folder's conftest"
    for m in re.finditer(r"load_beside\(__file__,\s*[\"'](\w+)[\"']\)", text):
        return f"loads {m.group(1)}.py from beside it"
    return None


def _plan_tests(plan: Plan) -> None:
    tests = plan.root / "tests"
    if not tests.exists():
        return
    taken: set[str] = set()
    for old, new in plan.files.items():
        if old == new or not old.endswith(".py"):
            continue
        old_dir, new_dir = str(Path(old).parent), str(Path(new).parent)
        old_dir = "" if old_dir == "." else old_dir
        new_dir = "" if new_dir == "." else new_dir
        stem = Path(old).stem.lstrip("_")
        if stem == "init":  # a package moved as a whole folder: its tests are those of the folder
            continue
        if old_dir == "":
            candidates = sorted(tests.glob(f"test_{stem}.py")) + sorted(tests.glob(f"test_{stem}_*.py"))
        else:
            candidates = [tests / old_dir / f"test_{stem}.py"]
        for c in candidates:
            if not c.exists():
                continue
            rel = c.relative_to(plan.root).as_posix()
            if rel in plan.tests or rel in taken:
                continue
            # a test of a module at the root keeps its name (test_table_*.py); one of a package's module is named
            # after the module's new name (tests/judges/test_ppi_replicates.py -> tests/resample/test_ppi.py)
            new_stem = Path(new).stem if Path(new).name != "__init__.py" else Path(new).parent.name
            name = c.name if old_dir == "" else f"test_{new_stem.lstrip('_')}.py"
            target = f"tests/{new_dir + '/' if new_dir else ''}{name}"
            if target == rel:
                continue
            why = _leans_on_folder(c, tests)
            if why:
                plan.tests_kept.append(f"{rel} stays ({why}); move it to {target} by hand with what it needs")
                continue
            if (plan.root / target).exists():
                plan.tests_kept.append(f"{rel} stays ({target} exists)")
                continue
            plan.tests[rel] = target
            taken.add(rel)


# ---------------------------------------------------------------------------------------------------------------
# rewriting imports (syntax tree) and references (text)


def _relative(from_pkg: str, target: str) -> str:
    """The relative module text that names ``target`` from a module in package ``from_pkg``."""
    p = from_pkg.split(".") if from_pkg else []
    t = target.split(".") if target else []
    common = 0
    while common < min(len(p), len(t)) and p[common] == t[common]:
        common += 1
    return "." * (len(p) - common + 1) + ".".join(t[common:])


def rewrite_imports(text: str, plan: Plan, old_rel: str | None, new_rel: str | None) -> tuple[str, list[str]]:
    """``text`` with its evalband imports pointing at the new modules; ``old_rel``/``new_rel`` are the file's
    paths under src/evalband (None for files outside the package: only absolute imports there). Returns the text
    and the statements regenerated whole (for review)."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    moved_file = old_rel is not None and old_rel != new_rel
    old_pkg = package_of(old_rel) if old_rel else None
    new_pkg = package_of(new_rel) if new_rel else None
    edits: list[tuple[int, int, int, int, str]] = []
    regenerated: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            if old_pkg is None:
                continue
            base = old_pkg.split(".") if old_pkg else []
            base = base[: len(base) - (node.level - 1)]
            base_mod = ".".join(base + (node.module.split(".") if node.module else []))
            relative = True
        elif node.module and (node.module == TOP or node.module.startswith(TOP + ".")):
            base_mod = node.module[len(TOP):].lstrip(".")
            relative = False
        else:
            continue
        groups: dict[str, list[str]] = {}
        changed_names = False
        for a in node.names:
            full = f"{base_mod}.{a.name}" if base_mod else a.name
            if a.name != "*" and full in plan.old_modules:
                new_full = plan.new_module(full)
                parent, _, stem = new_full.rpartition(".")
                alias = a.asname or (a.name if stem != a.name else None)
                changed_names |= stem != a.name
                groups.setdefault(parent, []).append(stem + (f" as {alias}" if alias else ""))
                continue
            target = plan.new_module(base_mod)
            export = plan.defining(base_mod, a.name) if new_rel is not None and a.name != "*" else None
            if export is not None:
                defining, orig = export
                new_def, new_base = plan.new_module(defining), plan.new_module(base_mod)
                # the name is defined in a module of another room than the one it is imported from, and one of the
                # two moved (importing it through the other would reach a later layer or make a cycle); or a moved
                # module imports the __init__ of the package it now lives in (an import cycle)
                apart = (defining in plan.modules or base_mod in plan.modules) and \
                    plan.room(new_def) != plan.room(new_base)
                own = (new_pkg == new_base or new_pkg.startswith(new_base + ".")) and (
                    moved_file or defining in plan.modules) and module_of(new_rel) != new_base
                if apart or own:
                    target = new_def
                    if orig != a.name:
                        groups.setdefault(target, []).append(f"{orig} as {a.asname or a.name}")
                        changed_names = True
                        continue
            groups.setdefault(target, []).append(a.name + (f" as {a.asname}" if a.asname else ""))
        texts = {}
        for target in groups:
            if relative:
                texts[target] = _relative(new_pkg, target)
            else:
                texts[target] = f"{TOP}.{target}" if target else TOP
        old_text = "." * node.level + (node.module or "")
        if len(groups) == 1 and not changed_names:
            (target,) = groups
            if texts[target] == old_text:
                continue
            line = lines[node.lineno - 1]
            m = re.compile(r"from\s+(" + re.escape(old_text) + r")\s+import").search(line, node.col_offset)
            if m is None:
                raise SystemExit(f"redesign_move: cannot find `from {old_text} import` on line {node.lineno}")
            edits.append((node.lineno, m.start(1), node.lineno, m.end(1), texts[target]))
            continue
        indent = " " * node.col_offset
        new_lines = []
        for target, names in groups.items():
            stmt = f"{indent}from {texts[target]} import {', '.join(names)}"
            if len(stmt) > 120:
                stmt = f"{indent}from {texts[target]} import (" + ", ".join(names) + ")"
            new_lines.append(stmt)
        statement = f"\n{indent}".join(s.lstrip() for s in new_lines)
        edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, statement))
        regenerated.append(statement.strip())
    for l0, c0, l1, c1, new in sorted(edits, reverse=True):
        if l0 == l1:
            line = lines[l0 - 1]
            lines[l0 - 1] = line[:c0] + new + line[c1:]
        else:
            first, last = lines[l0 - 1], lines[l1 - 1]
            lines[l0 - 1: l1] = [first[:c0] + new + last[c1:]]
    return "".join(lines), regenerated


class TextRewriter:
    """Dotted module paths, source paths and test paths of moved things, rewritten in one pass each."""

    def __init__(self, plan: Plan):
        self.plan = plan
        dotted = {f"{TOP}.{o}": f"{TOP}.{n}" for o, n in plan.modules.items()}
        self.dotted = dotted
        self.dotted_re = self._alternation(dotted, r"(?<![\w.])", r"(?![\w])")
        paths = {}
        for old, new in plan.files.items():
            if old != new:
                paths[f"src/{TOP}/{old}"] = f"src/{TOP}/{new}"
                if "/" in old and old.endswith(".py") and not old.startswith(tuple(d + "/" for d, _ in plan.dirs)):
                    paths[old] = new
        for old, new in plan.dirs:
            paths[f"src/{TOP}/{old}/"] = f"src/{TOP}/{new}/"
        for old, new in plan.tests.items():
            paths[old] = new
        self.paths = paths
        self.paths_re = self._alternation(paths, r"(?<![\w./])", r"(?![\w])")
        self.src_paths = {old: new for old, new in plan.files.items() if old != new}

    @staticmethod
    def _alternation(mapping: dict, before: str, after: str):
        if not mapping:
            return None
        keys = sorted(mapping, key=len, reverse=True)
        return re.compile(before + "(" + "|".join(re.escape(k) for k in keys) + ")" + after)

    def __call__(self, text: str) -> str:
        if self.dotted_re is not None:
            text = self.dotted_re.sub(lambda m: self.dotted[m.group(1)], text)
        if self.paths_re is not None:
            text = self.paths_re.sub(lambda m: self.paths[m.group(1)], text)
        # SRC / "cost_table.py" in tests that read the source
        text = re.sub(r'(SRC\s*/\s*)"([\w/.]+)"',
                      lambda m: m.group(1) + '"' + self.src_paths.get(m.group(2), m.group(2)) + '"', text)
        return text


def rewrite_lazy_strings(text: str, plan: Plan, old_rel: str, new_rel: str) -> str:
    """In a package ``__init__``: relative module names in strings (``"._build"``) follow their module."""
    if not old_rel.endswith("__init__.py"):
        return text
    old_pkg, new_pkg = module_of(old_rel), module_of(new_rel)

    def fix(m):
        rel = m.group(2)
        level = len(rel) - len(rel.lstrip("."))
        base = old_pkg.split(".")[: len(old_pkg.split(".")) - (level - 1)]
        full = ".".join(base + [rel.lstrip(".")])
        if full not in plan.old_modules:
            return m.group(0)
        new_full = plan.new_module(full)
        return m.group(1) + _relative(new_pkg, new_full) + m.group(1)

    return re.sub(r"""(["'])(\.+\w+(?:\.\w+)*)\1""", fix, text)


def rewrite_root_submodules(text: str, plan: Plan) -> str:
    """The root ``__init__``'s ``_SUBMODULES``: modules that left the root go, new top-level packages come."""
    m = re.search(r"_SUBMODULES\s*=\s*frozenset\(\{(.*?)\}\)", text, re.S)
    if not m:
        return text
    body = m.group(1)
    names = re.findall(r'"(\w+)"', body)
    gone = {o for o in plan.modules if "." not in o}
    keep = [n for n in names if n not in gone]
    for pkg in plan.new_packages:
        if "." not in pkg and pkg not in keep:
            keep.append(pkg)
    if keep == names:
        return text
    out, line = [], "    "
    for n in keep:
        piece = f'"{n}", '
        if len(line) + len(piece) > 118:
            out.append(line.rstrip())
            line = "    "
        line += piece
    out.append(line.rstrip())
    return text[: m.start(1)] + "\n" + "\n".join(out) + "\n" + text[m.end(1):]


def rewrite_test_relative(text: str, old: str, new: str) -> str:
    """Relative imports of a test that changes folder (``from .conftest import FIXTURES``), recomputed from its new
    folder (the modules they name do not move)."""
    old_pkg = ".".join(old.split("/")[:-1])
    new_pkg = ".".join(new.split("/")[:-1])
    if old_pkg == new_pkg:
        return text
    lines = text.splitlines(keepends=True)
    edits = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = old_pkg.split(".")
            base = base[: len(base) - (node.level - 1)]
            target = ".".join(base + (node.module.split(".") if node.module else []))
            old_text = "." * node.level + (node.module or "")
            m = re.compile(r"from\s+(" + re.escape(old_text) + r")\s+import").search(lines[node.lineno - 1],
                                                                                    node.col_offset)
            if m:
                edits.append((node.lineno, m.start(1), m.end(1), _relative(new_pkg, target)))
    for line_no, c0, c1, new_text in sorted(edits, reverse=True):
        line = lines[line_no - 1]
        lines[line_no - 1] = line[:c0] + new_text + line[c1:]
    return "".join(lines)


def adjust_depth(text: str, old: str, new: str) -> str:
    """``Path(__file__)[.resolve()].parent`` / ``.parents[k]`` when a test moves to a deeper or shallower folder."""
    delta = new.count("/") - old.count("/")
    if not delta:
        return text

    def fix(m):
        k = (0 if m.group(3) is None else int(m.group(3))) + delta
        return m.group(1) + (".parent" if k == 0 else f".parents[{k}]")

    return re.sub(r"(Path\(__file__\)(?:\.resolve\(\))?)\.(parent(?![s\w])|parents\[(\d+)\])", fix, text)


ALIASES = '''"""Old module paths of the 0.1 layout (before the move of issue 23), kept for one release:
importing one warns (DeprecationWarning) and gives the module at its new path. Nothing in evalband imports them."""

from __future__ import annotations

import importlib
import sys
import warnings

#: old module -> new module
MOVED = {
%s}


class _Alias:
    """A finder and loader for the old names: the module object is the one at the new path (the import system
    sets the alias's spec on it; :meth:`exec_module` gives it back its own, so that it stays a package where it is
    one and ``importlib.resources`` finds its files)."""

    def __init__(self):
        self._specs = {}

    def find_spec(self, name, path=None, target=None):
        if name not in MOVED:
            return None
        from importlib.util import spec_from_loader

        return spec_from_loader(name, self)

    def create_module(self, spec):
        warnings.warn(f"{spec.name} moved to {MOVED[spec.name]}; the old path goes in the next release",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(MOVED[spec.name])
        self._specs[id(module)] = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self._specs.pop(id(module), module.__spec__)


def install() -> None:
    """Add the finder to ``sys.meta_path`` once (after the path finders, so that real modules come first)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.append(_Alias())
'''
INSTALL = ("\n\n\nfrom ._moved import install as _install_moved  # noqa: E402  (old module paths, one release)\n\n"
           "_install_moved()\n")


# ---------------------------------------------------------------------------------------------------------------
# doing it


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def _text_files(root: Path) -> list[Path]:
    out = set()
    for pattern in TEXT_GLOBS:
        out.update(p for p in root.glob(pattern) if p.is_file())
    out.update((root / "tests").rglob("*.py"))
    out.update((root / "src").rglob("*.py"))
    out.update(p for p in (root / "src").rglob("*.md"))
    return sorted(p for p in out if p.resolve() != THIS and "__pycache__" not in p.parts)


def run(root: Path, *, dry_run: bool, use_git: bool, aliases: bool) -> int:
    plan = build_plan(root)
    src = plan.src
    print(f"moves: {sum(1 for o, n in plan.files.items() if o != n)} files in"
          f" {len([m for m in MOVES if (src / m[0]).exists()])} moves; modules renamed: {len(plan.modules)}")
    for s in plan.skipped:
        print(f"  skipped: {s}")
    print(f"tests moving with their module: {len(plan.tests)}")
    for o, n in plan.tests.items():
        print(f"  {o} -> {n}")
    for k in plan.tests_kept:
        print(f"  kept: {k}")
    rewrite_text = TextRewriter(plan)
    # 1. the new contents, computed from the old tree
    contents: dict[Path, str] = {}
    regenerated_all = []
    for path in _text_files(root):
        rel_root = path.relative_to(root).as_posix()
        text = path.read_text()
        new_path = path
        if path.suffix == ".py":
            if path.is_relative_to(src):
                old_rel = path.relative_to(src).as_posix()
                new_rel = plan.files.get(old_rel, old_rel)
                new_path = src / new_rel
                text, regen = rewrite_imports(text, plan, old_rel, new_rel)
                text = rewrite_lazy_strings(text, plan, old_rel, new_rel)
                if old_rel == "__init__.py":
                    text = rewrite_root_submodules(text, plan)
            else:
                text, regen = rewrite_imports(text, plan, None, None)
                if rel_root in plan.tests:
                    new_path = root / plan.tests[rel_root]
                    text = adjust_depth(text, rel_root, plan.tests[rel_root])
                    text = rewrite_test_relative(text, rel_root, plan.tests[rel_root])
            regenerated_all += [f"{new_path.relative_to(root)}: {r}" for r in regen]
        text = rewrite_text(text)
        if text != path.read_text() or new_path != path:
            contents[new_path] = text
    print(f"files rewritten: {len(contents)}; import statements regenerated whole: {len(regenerated_all)}")
    for r in regenerated_all:
        print(f"  {r}")
    if dry_run:
        return 0
    # 2. move
    def move(a: Path, b: Path):
        b.parent.mkdir(parents=True, exist_ok=True)
        if use_git:
            _git(root, "mv", str(a.relative_to(root)), str(b.relative_to(root)))
        else:
            shutil.move(str(a), str(b))

    # compiled files of the old layout would outlive their sources (a folder left with only __pycache__ in it
    # imports as a namespace package and would hide the old path's alias)
    for cache in sorted((root / "src").rglob("__pycache__")) + sorted((root / "tests").rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)
    for pkg in plan.new_packages:
        (src / pkg).mkdir(parents=True, exist_ok=True)
    for old, new in plan.dirs:
        move(src / old, src / new)
    moved_dirs = tuple(old + "/" for old, _ in plan.dirs)
    for old, new in plan.files.items():
        if old != new and not old.startswith(moved_dirs):
            move(src / old, src / new)
    for old, new in plan.tests.items():
        move(root / old, root / new)
    # 3. write
    for path, text in contents.items():
        path.write_text(text)
    for pkg in plan.new_packages:
        init = src / pkg / "__init__.py"
        init.write_text(NEW_PACKAGES[pkg])
        if use_git:
            _git(root, "add", str(init.relative_to(root)))
    for test_dir in {Path(n).parent for n in plan.tests.values()}:
        (root / test_dir).mkdir(parents=True, exist_ok=True)
    if aliases:
        public = {f"{TOP}.{o}": f"{TOP}.{n}" for o, n in plan.modules.items()
                  if not any(part.startswith("_") for part in o.split("."))}
        body = "".join(f"    {o!r}: {n!r},\n" for o, n in sorted(public.items()))
        (src / "_moved.py").write_text(ALIASES % body)
        init = src / "__init__.py"
        text = init.read_text()
        if "_install_moved" not in text:
            init.write_text(text.rstrip("\n") + INSTALL)
        if use_git:
            _git(root, "add", str((src / "_moved.py").relative_to(root)))
    # 4. the layer order of the new layout, the allow-list it calls for, the architecture page's table
    layers_path = root / "tests" / "layers.py"
    if layers_path.exists():
        text = layers_path.read_text()
        head, rest = text.split("# LAYERS-BEGIN", 1)
        first, rest = rest.split("\n", 1)
        _, tail = rest.split("# LAYERS-END", 1)
        comments = [line for line in rest.split("# LAYERS-END", 1)[0].splitlines() if line.startswith("#:")]
        layers_path.write_text(head + "# LAYERS-BEGIN" + first.replace(
            "the redesign's move script replaces this block with the layers of the new layout", "the new layout") + "\n"
            + "\n".join(comments) + "\n" + TARGET_LAYERS + "\n# LAYERS-END" + tail)
        spec = importlib.util.spec_from_file_location("_layers_after_move", layers_path)
        layers = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = layers  # dataclasses look their module up
        spec.loader.exec_module(layers)
        found = layers.violations(layers.scan(src))
        layers.write_allowed(found, layers_path)
        if layers.DOC.exists() and layers.doc_table(layers.DOC) is not None:
            layers.write_doc_table(layers.DOC, layers.LAYERS, src)
        print(f"LAYERS switched to the new layout; violations left for the manual steps: {len(found)}")
        print(layers.report(src, layers.LAYERS, layers.allow_list(found)))
    print("done: review `git status`, run the tests, then `python scripts/redesign_move.py --check`")
    return 0


def check(root: Path) -> int:
    """References to the old layout left anywhere (after the move): old dotted paths, old source paths, old root
    file names in prose, relative ``:mod:`` references to moved modules (the plan itself excepted)."""
    src = root / "src" / TOP
    old_rel = [o for o, _ in MOVES]
    left = []
    dotted = [f"{TOP}.{module_of(o)}" for o in old_rel if o.endswith(".py")] + [f"{TOP}.{o}" for o in old_rel
                                                                                if not o.endswith(".py")]
    pats = [re.compile(r"(?<![\w.])" + re.escape(d) + r"(?![\w])") for d in dotted
            if not (src / (d[len(TOP) + 1:].replace(".", "/") + ".py")).exists()
            and not (src / d[len(TOP) + 1:].replace(".", "/")).is_dir()]
    pats += [re.compile(r"(?<![\w./])(?:src/evalband/)?" + re.escape(o) + r"(?![\w])") for o in old_rel
             if "/" in o and not (src / o).exists()]
    # modules that left the root, named bare in prose (`table.py`); relative :mod:`.design` references
    pats += [re.compile(r"(?<![\w./])" + re.escape(o) + r"(?![\w])") for o in old_rel
             if "/" not in o and o.endswith(".py") and not (src / o).exists()]
    pats += [re.compile(r":mod:`\.(" + "|".join(re.escape(Path(o).stem) for o in old_rel if "/" in o
                                                   and not (src / o).exists()) + r")`")]
    for path in _text_files(root):
        if path.name == "_moved.py" or path.resolve() == (root / "docs/dev/redesign_plan.md").resolve():
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if any(p.search(line) for p in pats):
                left.append(f"{path.relative_to(root)}:{n}: {line.strip()[:140]}")
    print(f"references to old module paths left: {len(left)}")
    for line in left:
        print(f"  {line}")
    return 1 if left else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path.cwd(), help="repository root (default: the current folder)")
    ap.add_argument("--dry-run", action="store_true", help="say what would move and be rewritten; change nothing")
    ap.add_argument("--check", action="store_true", help="list references to old paths left (after the move)")
    ap.add_argument("--no-git", action="store_true", help="move with the file system instead of `git mv`")
    ap.add_argument("--no-aliases", action="store_true", help="leave out src/evalband/_moved.py")
    ap.add_argument("--allow-dirty", action="store_true", help="run on a working tree with uncommitted changes")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    if not (root / "src" / TOP).is_dir():
        raise SystemExit(f"redesign_move: no src/{TOP} under {root}")
    if args.check:
        return check(root)
    use_git = not args.no_git and (root / ".git").exists()
    if use_git and not args.dry_run and not args.allow_dirty and _git(root, "status", "--porcelain").strip():
        raise SystemExit("redesign_move: the working tree has uncommitted changes; commit them first")
    return run(root, dry_run=args.dry_run, use_git=use_git, aliases=not args.no_aliases)


if __name__ == "__main__":
    sys.exit(main())
