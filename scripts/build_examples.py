"""Rebuild the bundled examples in src/evalband/examples/data from ../shared/data (run from the repo root).

vtab.csv      VTAB-1k, 16 models x 19 tasks, as Longjohn, Gopalan & Casleton (arXiv:2501.04234) used it:
              test sizes from vtab_test_sizes.csv, accuracies rounded to 3 significant figures (in percent),
              correct = floor(n * accuracy).
mmlu_pro.csv.gz  MMLU-Pro per-question 0/1 of 29 models (wide; task = category, cluster = src).
"""

from pathlib import Path

import numpy as np
import pandas as pd

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
OUT = Path(__file__).resolve().parents[1] / "src" / "evalband" / "examples" / "data"


def sig3(x: float) -> float:
    return float(f"{x:.3g}")


def build_vtab() -> None:
    raw = pd.read_csv(SHARED / "vtab" / "task_adaptation_results.csv", header=[0, 1])
    sizes = pd.read_csv(SHARED / "vtab" / "vtab_test_sizes.csv")
    names = raw[("train_examples_if_subset", "dataset")]
    rows = []
    for _, s in sizes.iterrows():
        task = s["dataset_in_results_csv"]
        col = raw[("1000", task)]
        for model, acc in zip(names, col):
            if model == "method" or pd.isna(acc):
                continue
            a = sig3(float(acc)) / 100.0
            n = int(s["test_examples"])
            rows.append({"model": model, "task": task, "group": s["vtab_group"], "n": n,
                         "accuracy": round(a, 6), "correct": int(np.floor(round(n * a, 6)))})
    df = pd.DataFrame(rows)
    order = {"natural": 0, "specialized": 1, "structured": 2}
    df = df.sort_values(["model"], kind="stable")
    df["_g"] = df["group"].map(order)
    df = df.sort_values(["model", "_g"], kind="stable").drop(columns="_g")
    df.to_csv(OUT / "vtab.csv", index=False)
    print("vtab:", df.shape, df.model.nunique(), "models", df.task.nunique(), "tasks")


def build_mmlu_pro() -> None:
    df = pd.read_csv(SHARED / "mmlu_pro" / "mmlu_pro_correct_29models.csv")
    df.to_csv(OUT / "mmlu_pro.csv.gz", index=False, compression={"method": "gzip", "mtime": 0})
    print("mmlu-pro:", df.shape)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    build_vtab()
    build_mmlu_pro()
