"""README figures that only a benchmark run can measure (time, memory, speed-ups), and their check.

The README writes such a figure followed by a tag naming the quantity, an HTML comment that Markdown does not
show::

    it converges in 26 s<!-- measured: bayes.logistic_seconds --> on 2 cores

Each benchmark that measures a quantity passes it to :func:`report` at the end of its run, which prints the
README's figure beside the measurement and says whether they agree (:func:`agrees`); with ``--check-readme`` the
benchmark exits 1 when one does not, so that a number in the README is one a run produced. Unit tests never time
anything: ``tests/test_readme_claims.py`` checks that every figure with a unit of time or memory in the README
carries a tag, that every tag names a quantity listed in :data:`MEASURED` (and measured by the script it names),
and that a quantity has one figure wherever README and docs write it.

Usage from a benchmark::

    from readme_claims import report
    report({"bayes.logistic_seconds": seconds}, check="--check-readme" in sys.argv)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the documents whose tagged figures are checked
DOCUMENTS = ("README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")))

#: quantity -> (the benchmark script that measures it, what it is, its unit as written)
MEASURED = {
    "bayes.cli_logistic_seconds": ("benchmarks/bayes.py", "`evalband bayes --example mmlu-pro --model logistic`"
                                   " end to end, as a user runs it", "s"),
    "bayes.cli_logistic_repeat_seconds": ("benchmarks/bayes.py", "the same command run again (JAX's persistent"
                                          " compilation cache holds its sampler)", "s"),
    "bayes.cli_laplace_seconds": ("benchmarks/bayes.py", "`evalband bayes --example mmlu-pro --model logistic"
                                  " --method laplace` end to end", "s"),
    "bayes.cli_nuts3_seconds": ("benchmarks/bayes.py", "`evalband bayes --example mmlu-pro --model logistic` on"
                                " three models (NUTS) end to end", "s"),
    "bayes.cli_logistic_cpu_seconds": ("benchmarks/bayes.py", "CPU time of the first run of that command (--cli)",
                                       "s"),
    "bayes.cli_logistic_repeat_cpu_seconds": ("benchmarks/bayes.py", "CPU time of its repeated run", "s"),
    "bayes.cli_laplace_cpu_seconds": ("benchmarks/bayes.py", "CPU time of the Laplace command", "s"),
    "bayes.cli_nuts3_cpu_seconds": ("benchmarks/bayes.py", "CPU time of the three-model (NUTS) command", "s"),
    "bayes.logistic_seconds": ("benchmarks/bayes.py", "the default logistic fit on MMLU-Pro (no item effects)",
                               "s"),
    "bayes.logistic_items_minutes": ("benchmarks/bayes.py", "the default logistic fit with the 12,032 item"
                                     " effects", "min"),
    "bayes.nuts_ratio": ("benchmarks/bayes.py", "NUTS time / whitened HMC time without item effects", "x"),
    "cli.compare_w1_seconds": ("benchmarks/cli.py", "`evalband compare` on W1 (10 models x 19 tasks x 1,000"
                               " items, B = 10,000), fresh process, CSV in, JSON out", "s"),
    "cli.compare_before_seconds": ("benchmarks/cli.py", "the same with the code before issue 27 (--before)", "s"),
    "cli.compare_naive_ratio": ("benchmarks/cli.py", "the naive loop's time / compare's, end to end", "x"),
    "cli.compare_scipy_ratio": ("benchmarks/cli.py", "scipy.stats.bootstrap's time / compare's, end to end", "x"),
    "cli.compare_threads_ratio": ("benchmarks/cli.py", "compare --threads 1 / compare with 2 threads", "x"),
    "cli.plan_seconds": ("benchmarks/cli.py", "`evalband plan` with typed numbers, fresh process", "s"),
    "cli.plan_before_seconds": ("benchmarks/cli.py", "the same with the code before issue 27", "s"),
    "cli.summarize_seconds": ("benchmarks/cli.py", "`evalband summarize --example vtab`, fresh process", "s"),
    "cli.summarize_before_seconds": ("benchmarks/cli.py", "the same with the code before issue 27", "s"),
    "scale.summarize_1e7_gb": ("benchmarks/scale.py", "peak memory of `evalband summarize` of 1e7 rows", "GB"),
    "scale.compare_1e8_seconds": ("benchmarks/scale.py", "`evalband compare` of the 1e8-row file, every pair",
                                  "s"),
    "scale.compare_1e8_gb": ("benchmarks/scale.py", "peak memory of that compare", "GB"),
}

#: a figure and its tag: '~30 s<!-- measured: key -->', '65-74 s<!-- measured: key -->', '5x<!-- ... -->'
TAGGED = re.compile(r"(?P<approx>~|about )?(?P<low>\d[\d,]*(?:\.\d+)?)(?:-(?P<high>\d[\d,]*(?:\.\d+)?))?"
                    r"\s?(?P<unit>s|min|GB|MB|x)<!-- measured: (?P<key>[\w.]+) -->")
#: any figure with a unit of time or memory, or a speed-up (each must be tagged in the README)
FIGURE = re.compile(r"(?<![\w.])~?\d[\d,]*(?:\.\d+)?(?:-\d[\d,]*(?:\.\d+)?)?\s?(?:s|min|ms|GB|MB|KB|x|hours?|"
                    r"minutes?|seconds?)\b(?!-)")


def figures(text: str) -> list[dict]:
    """The tagged figures of a document: key, low, high (= low for one number), approx, unit."""
    out = []
    for m in TAGGED.finditer(text):
        low = float(m.group("low").replace(",", ""))
        high = float(m.group("high").replace(",", "")) if m.group("high") else low
        out.append({"key": m.group("key"), "low": low, "high": high, "approx": bool(m.group("approx")),
                    "unit": m.group("unit"), "text": " ".join(m.group(0).split("<!--")[0].split())})
    return out


def agrees(figure: dict, value: float) -> bool:
    """Whether a measured ``value`` agrees with a written figure: within 10% of a plain number (timings move with
    the machine's load), 25% of an approximate one ('~30 s', 'about 30 s'), or inside a range widened by 10%."""
    if figure["low"] != figure["high"]:
        return 0.9 * figure["low"] <= value <= 1.1 * figure["high"]
    slack = 0.25 if figure["approx"] else 0.10
    return abs(value - figure["low"]) <= slack * figure["low"]


def written(key: str) -> list[tuple[str, dict]]:
    """Every figure written for ``key``: (document, figure)."""
    out = []
    for doc in DOCUMENTS:
        path = ROOT / doc
        if path.exists():
            out += [(doc, f) for f in figures(path.read_text(encoding="utf8")) if f["key"] == key]
    return out


def report(measured: dict, *, check: bool = False) -> bool:
    """Print each measured quantity beside the figures README and docs write for it; with ``check``, exit 1 when
    one disagrees (a figure to update from this run). Returns whether all agree."""
    ok = True
    print("\nREADME figures (benchmarks/readme_claims.py):")
    for key, value in measured.items():
        if key not in MEASURED:
            raise KeyError(f"{key!r} is not a measured quantity; add it to readme_claims.MEASURED")
        unit = MEASURED[key][2]
        for doc, fig in written(key) or [("(not written)", None)]:
            if fig is None:
                print(f"  {key}: measured {value:.3g} {unit}; not written in README or docs")
                continue
            good = agrees(fig, value)
            ok &= good
            print(f"  {key}: measured {value:.3g} {unit}; {doc} writes '{fig['text']}':"
                  f" {'agrees' if good else 'DISAGREES - update it from this run'}")
    if check and not ok:
        sys.exit(1)
    return ok
