"""Every command's output on the bundled examples and the test fixtures, written to a folder: run it before and after
a change that must not change behaviour (issue 23's move), then compare the folders.

    python scripts/command_snapshots.py /tmp/before          # on the commit before
    python scripts/command_snapshots.py /tmp/after           # on the commit after
    diff -r /tmp/before /tmp/after && echo identical

Each run is ``python -m evalband ARGS`` with a fixed seed and few replicates; a file per run holds the exit code,
stdout and stderr. What changes from run to run (time stamps, elapsed times, the output folder) is replaced by a
placeholder. Outputs that an intended change alters (notes as JSON records, renamed options) show in the diff and
are checked by eye. Standard library only; runs from the repository root.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

FIX = "tests/fixtures"
TAU = f"{FIX}/tau_bench/gpt-4o-airline_rewards.csv"
PROMPTS = f"{FIX}/facets/prompts_trials.csv"
RUN_SEEDS = f"{FIX}/facets/runs.csv"
JUDGED = f"{FIX}/ppi/judged.csv"
BATTLES = f"{FIX}/llmfao/crowd-comparisons.csv"
CODINGS = f"{FIX}/krippendorff_codings/codings_long.csv"
CONTRACT = f"{FIX}/frontier/contract.csv"
B = ["--n-resamples", "300", "--seed", "1"]

#: name -> arguments of `evalband`; every command, each shape of input it reads, table and JSON
COMMANDS = {
    "summarize_vtab": ["summarize", "--example", "vtab"],
    "summarize_vtab_json": ["summarize", "--example", "vtab", "--format", "json"],
    "summarize_prompts": ["summarize", PROMPTS],
    "summarize_judged_json": ["summarize", JUDGED, "--format", "json"],
    "passk_tau": ["passk", TAU, "--item-col", "task_id", "--score-col", "reward", "--k", "1,2,4"],
    "passk_tau_json": ["passk", TAU, "--item-col", "task_id", "--score-col", "reward", "--k", "1,2,4", "-f", "json"],
    "bayes_vtab": ["bayes", "--example", "vtab", "--seed", "1"],
    "compare_vtab": ["compare", "--example", "vtab", *B],
    "compare_vtab_json": ["compare", "--example", "vtab", *B, "--format", "json"],
    "compare_prompts": ["compare", PROMPTS, *B],
    "compare_prompts_fixed_json": ["compare", PROMPTS, *B, "--fixed", "prompt", "--format", "json"],
    "compare_judged": ["compare", JUDGED, *B],
    "compare_judged_none_json": ["compare", JUDGED, *B, "--ppi", "none", "--format", "json"],
    "rank_vtab": ["rank", "--example", "vtab", *B],
    "rank_vtab_json": ["rank", "--example", "vtab", *B, "--format", "json"],
    "rank_prompts": ["rank", PROMPTS, *B],
    "plan_vtab": ["plan", "--example", "vtab", "--effect", "0.01"],
    "plan_no_pilot": ["plan", "--effect", "0.02", "--baseline", "0.7"],
    "plan_prompts_json": ["plan", PROMPTS, "--effect", "0.05", "--format", "json"],
    "variance_prompts": ["variance", PROMPTS, "--seed", "1"],
    "variance_runs_json": ["variance", RUN_SEEDS, "--seed", "1", "--format", "json"],
    "arena_llmfao": ["arena", BATTLES, *B],
    "arena_llmfao_json": ["arena", BATTLES, *B, "--format", "json"],
    "agreement_codings": ["agreement", CODINGS, "--seed", "1", "--n-resamples", "300"],
    "agreement_codings_json": ["agreement", CODINGS, "--seed", "1", "--n-resamples", "300", "--format", "json"],
    "frontier_contract": ["frontier", CONTRACT, *B],
    "frontier_contract_json": ["frontier", CONTRACT, *B, "--format", "json"],
    "report_vtab_md": ["report", "--example", "vtab", "-o", "{out}/report_vtab.md", "--format", "markdown", *B,
                       "--no-bayes"],
    "report_prompts_md": ["report", PROMPTS, "-o", "{out}/report_prompts.md", "--format", "markdown", *B,
                          "--no-bayes"],
    "error_missing_file": ["compare", "no-such-file.csv"],
    "error_bad_option": ["compare", "--example", "vtab", "--confidence", "2"],
}
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC")
_ELAPSED = re.compile(r"\bin \d+(?:\.\d+)? (?:s|min)\b")


def _steady(text: str, out: Path) -> str:
    """The text without what changes from run to run: time stamps, elapsed times, the output folder."""
    return _ELAPSED.sub("in <elapsed>", _STAMP.sub("<time>", text.replace(str(out), "<out>")))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="folder for the outputs (created)")
    ap.add_argument("--only", help="comma-separated names of the runs to do")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    names = args.only.split(",") if args.only else list(COMMANDS)
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1"}
    for name in names:
        cmd = [a.replace("{out}", str(out)) for a in COMMANDS[name]]
        res = subprocess.run([sys.executable, "-m", "evalband", *cmd], capture_output=True, text=True, env=env)
        text = (f"$ evalband {' '.join(COMMANDS[name])}\nexit {res.returncode}\n--- stdout\n{res.stdout}--- stderr\n"
                f"{res.stderr}")
        (out / f"{name}.txt").write_text(_steady(text, out))
        print(f"{name}: exit {res.returncode}")
    for written in out.glob("report_*.md"):
        written.write_text(_steady(written.read_text(), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
