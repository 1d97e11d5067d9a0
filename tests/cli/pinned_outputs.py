"""Writes ``pinned_outputs.json.gz``: the exact bytes several commands print for a fixed seed (issue 27: making
the commands fast changes no number). Run once, from the code before any speed change (commit 7683b6d):

    python tests/cli/pinned_outputs.py

A deliberate change of some commands' output renews only their entries: ``python tests/cli/pinned_outputs.py
compare-prompts`` (issue 22: the crossed bootstrap's se is the central 68% half-width, se_bootstrap the SD beside it).

Each entry holds the command line (run from the repository root, with ``evalband`` the installed command) and
its standard output. ``test_pinned_outputs.py`` runs the same commands in-process and compares the bytes.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STORE = HERE / "pinned_outputs.json.gz"
MMLU5 = "Meta-Llama-3-70B,Llama-2-13b-hf,Mixtral-8x7B-v0.1,Yi-6B,gemma-7b"
FRONTIER = "tests/fixtures/frontier/contract.csv"
LLMFAO = "tests/fixtures/llmfao/crowd-comparisons.csv"
PROMPTS = "tests/fixtures/facets/prompts_trials.csv"

#: name -> arguments of ``evalband``; JSON output, fixed seeds, few replicates (fast in a test)
COMMANDS = {
    "summarize-vtab": ["summarize", "--example", "vtab", "--format", "json"],
    "summarize-mmlu5": ["summarize", "--example", "mmlu-pro", "--models", MMLU5, "--format", "json"],
    "compare-vtab": ["compare", "--example", "vtab", "--n-resamples", "2000", "--seed", "1", "--format", "json"],
    "compare-mmlu5": ["compare", "--example", "mmlu-pro", "--models", MMLU5, "--n-resamples", "2000", "--seed",
                      "1", "--format", "json"],
    "compare-mmlu5-maxt-bca": ["compare", "--example", "mmlu-pro", "--models", MMLU5, "--n-resamples", "1000",
                               "--seed", "3", "--aggregate", "mean,mean-rank", "--correction", "max-t",
                               "--interval", "bca", "--margin", "0.01", "--format", "json"],
    "compare-mmlu5-threads1": ["compare", "--example", "mmlu-pro", "--models", MMLU5, "--n-resamples", "2000",
                               "--seed", "1", "--threads", "1", "--format", "json"],
    "compare-prompts": ["compare", PROMPTS, "--n-resamples", "1000", "--seed", "2", "--format", "json"],
    "rank-vtab": ["rank", "--example", "vtab", "--n-resamples", "2000", "--seed", "1", "--format", "json"],
    "rank-mmlu5": ["rank", "--example", "mmlu-pro", "--models", MMLU5, "--n-resamples", "2000", "--seed", "1",
                   "--format", "json"],
    "frontier": ["frontier", FRONTIER, "--n-resamples", "1000", "--seed", "1", "--format", "json"],
    "arena": ["arena", LLMFAO, "--n-resamples", "200", "--seed", "1", "--format", "json"],
}


def run(args: list[str]) -> str:
    out = subprocess.run([sys.executable, "-m", "evalband", *args], capture_output=True, text=True,
                         cwd=HERE.parents[1])
    if out.returncode != 0:
        raise SystemExit(f"evalband {' '.join(args)} failed:\n{out.stderr}")
    return out.stdout


def main(only: list[str] | None = None) -> None:
    """Write every command's output, or only those named (a deliberate change of those commands' output)."""
    stored = {}
    if only:
        with gzip.open(STORE, "rt", encoding="utf-8") as fh:
            stored = json.load(fh)
    for name, args in COMMANDS.items():
        if not only or name in only:
            stored[name] = {"args": args, "stdout": run(args)}
    with gzip.open(STORE, "wt", encoding="utf-8") as fh:
        json.dump(stored, fh, indent=0, sort_keys=True)
    print(f"wrote {STORE} ({STORE.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])  # names: only those entries (e.g. compare-prompts after issue 22's crossed SE)
