"""Bundled example datasets and their attribution; :func:`evalband.load_example` (``evalband.io.examples``) reads
them by name for the API, and the CLI's ``--example``.

===========  =====================================================================================
name         contents
===========  =====================================================================================
vtab         VTAB-1k: 16 models x 19 tasks in 3 groups (natural, specialized, structured), summary
             level, as Longjohn, Gopalan & Casleton (2025) used it: test-set sizes, accuracies rounded
             to 3 significant figures, correct = floor(n * accuracy).
mmlu-pro     MMLU-Pro: 29 models x 12,032 questions, 0/1 per question; task = category (14),
             cluster = src (91 sub-sources). Blank cells (a model without an answer row) are left out
             and counted.
===========  =====================================================================================
"""

from __future__ import annotations

__all__ = ["EXAMPLES", "ATTRIBUTION"]

ATTRIBUTION = {
    "vtab": ("Data from google-research/task_adaptation (Apache License 2.0), Zhai et al., A Large-scale Study of"
             " Representation Learning with the Visual Task Adaptation Benchmark, arXiv:1910.04867."),
    "mmlu-pro": "Per-question results from TIGER-AI-Lab/MMLU-Pro (Apache License 2.0).",
}

EXAMPLES = tuple(ATTRIBUTION)
