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
epoch        Epoch AI benchmarking hub: 179 models x 38 benchmarks, 1,192 measured cells (about 18%
             of the matrix), one headline score in [0, 1] per cell, no item counts: a sparse
             leaderboard for ``evalband ability`` (cell scores, :func:`evalband.io.examples.cell_example`).
             MIT licence (``data/epoch_LICENSE``).
===========  =====================================================================================
"""

from __future__ import annotations

__all__ = ["EXAMPLES", "ATTRIBUTION", "CELL_EXAMPLES"]

ATTRIBUTION = {
    "vtab": ("Data from google-research/task_adaptation (Apache License 2.0), Zhai et al., A Large-scale Study of"
             " Representation Learning with the Visual Task Adaptation Benchmark, arXiv:1910.04867."),
    "mmlu-pro": "Per-question results from TIGER-AI-Lab/MMLU-Pro (Apache License 2.0).",
    "epoch": ("Benchmark scores from Epoch AI's benchmarking hub, epoch-research/benchmark-stitching (MIT License),"
              " the data of 'A Rosetta Stone for AI Benchmarks' (Epoch AI, 2025)."),
}

#: examples that hold one score per (model, task) cell without counts: read by the latent-ability model only
CELL_EXAMPLES = ("epoch",)

EXAMPLES = tuple(ATTRIBUTION)
