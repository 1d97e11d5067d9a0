"""A corpus of malformed and tricky inputs, class by class, through every command-level reader path.

The promise (README; issue 14): an input never ends in a traceback and never in a silently wrong result. Either
the command exits 2 with **one** line on stderr naming the file, the line (or row) and, when a cell is at fault,
the column; or it exits 0 with the right numbers and a note saying what was assumed, converted or left out.

Each class is written as a rule with several inputs, and most inputs are written in several formats (CSV, TSV,
JSON Lines, JSON, Parquet, a glob of files, standard input, harness log folders), generated in ``tmp_path``.
Oracle: the expected outcome of each input, stated beside it (the right model names, counts and estimates are
computed by hand from the rows written).
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402

# ---------------------------------------------------------------------------------------------- the base table
HEADER = ["model", "task", "item", "score"]


def base_rows(models=("A", "B"), tasks=("t1", "t2"), items=10):
    """Deterministic binary scores: model k gets item i right when (i + k) % 3 != 0."""
    return [[m, t, str(i), str(int((i + k) % 3 != 0))] for k, m in enumerate(models) for t in tasks
            for i in range(1, items + 1)]


def csv_text(header, rows, sep=","):
    return "".join(sep.join(r) + "\n" for r in [header, *rows])


def jsonl_text(header, rows, *, numbers=("score",)):
    """JSON Lines; the columns in ``numbers`` are written as JSON numbers spelled as in ``rows`` ('1.10')."""
    out = []
    for r in rows:
        cells = [f"{json.dumps(h)}: " + (v if h in numbers and re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", v)
                                        else json.dumps(v, ensure_ascii=False)) for h, v in zip(header, r)]
        out.append("{" + ", ".join(cells) + "}")
    return "".join(line + "\n" for line in out)


def parquet_bytes(header, rows):
    frame = pd.DataFrame(rows, columns=header)
    if "score" in frame:
        frame["score"] = pd.to_numeric(frame["score"], errors="coerce").astype("float64")
    buf = io.BytesIO()
    frame.to_parquet(buf)
    return buf.getvalue()


@dataclass
class Case:
    name: str
    klass: str
    files: dict  # relative path -> bytes
    args: list  # command line; '{dir}' is the folder of the files
    expect: str  # 'error' or 'ok'
    line: str | None = None  # 'line 7', 'row 3', ... expected in the error
    column: str | None = None
    contains: tuple = ()  # substrings of the error (or, when ok, of stderr: the note)
    check: object = None  # ok: callable(records) -> None
    stdin: bytes | None = None
    command: str = "summarize"
    extra: tuple = ()


CASES: list[Case] = []


def add(*cases):
    CASES.extend(cases)


def formats(name, klass, header, rows, *, expect, where=None, column=None, contains=(), check=None, extra=(),
            which=("csv", "tsv", "jsonl", "parquet"), numbers=("score",)):
    """One logical table written in several formats; ``where(fmt)`` gives the expected 'line k'/'row k'."""
    for fmt in which:
        if fmt == "csv":
            data = csv_text(header, rows).encode()
        elif fmt == "tsv":
            data = csv_text(header, rows, "\t").encode()
        elif fmt == "jsonl":
            data = jsonl_text(header, rows, numbers=numbers).encode()
        else:
            data = parquet_bytes(header, rows)
        add(Case(f"{name}[{fmt}]", klass, {f"data.{fmt}": data}, ["{dir}/data." + fmt, *extra], expect,
                 where(fmt) if where else None, column, contains, check))


def at(k):
    """Where data row ``k`` (0-based) is, per format: CSV/TSV line k + 2, JSON Lines line k + 1, Parquet row k + 1."""
    return lambda fmt: f"line {k + 2}" if fmt in ("csv", "tsv") else f"line {k + 1}" if fmt == "jsonl" \
        else f"row {k + 1}"


def models_are(*names, n=None):
    def check(records):
        got = list(dict.fromkeys(r["model"] for r in records))
        assert got == list(names), got
        if n is not None:
            per = {r["model"]: r["n"] for r in records if r["task"] == "(pooled)"}
            assert all(v == n for v in per.values()), per
    return check


def _parquet_columns(names):
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = [pa.array(["A", "B"]), pa.array(["t", "t"]), pa.array(["1", "1"]), pa.array([1.0, 0.0]),
            pa.array([0.0, 1.0])]
    buf = io.BytesIO()
    pq.write_table(pa.table(cols, names=names), buf)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------- 1 headers
rows = base_rows()
add(
    Case("duplicate model column (wide)", "header", {"w.csv": b"item,A,B,A\n1,1,0,1\n2,0,1,1\n"},
         ["{dir}/w.csv"], "error", "line 1", None, ("'A' appears twice",)),
    Case("duplicate score column", "header",
         {"d.csv": csv_text(HEADER + ["score"], [r + ["0"] for r in rows]).encode()},
         ["{dir}/d.csv"], "error", "line 1", None, ("'score' appears twice",)),
    Case("duplicate after spaces", "header", {"d.csv": csv_text(["model", "task", "item", "score", " score"],
                                                                [r + ["0"] for r in rows]).encode()},
         ["{dir}/d.csv"], "error", "line 1", None, ("'score' appears twice",)),
    Case("empty header cell (wide)", "header", {"e.csv": b"item,A,,B\n1,1,0,1\n2,0,1,1\n"},
         ["{dir}/e.csv"], "error", "line 1", None, ("header cell 3", "empty")),
    Case("empty header cell (long)", "header", {"e.csv": csv_text(HEADER + [""], [r + [""] for r in rows]).encode()},
         ["{dir}/e.csv"], "error", "line 1", None, ("header cell 5",)),
    Case("empty header cell (tsv)", "header", {"e.tsv": csv_text(["model", "", "item", "score"], rows, "\t").encode()},
         ["{dir}/e.tsv"], "error", "line 1", None, ("header cell 2",)),
    Case("pandas' to_csv index (an empty first header over 0..n-1)", "header",
         {"p.csv": pd.DataFrame(rows, columns=HEADER).to_csv().encode()}, ["{dir}/p.csv"], "ok",
         contains=("holds the row numbers 0 to 39: pandas' index",), check=models_are("A", "B", n=20)),
    Case("pandas' to_csv index in a tsv", "header",
         {"p.tsv": pd.DataFrame(rows, columns=HEADER).to_csv(sep="\t").encode()}, ["{dir}/p.tsv"], "ok",
         contains=("pandas' index",), check=models_are("A", "B", n=20)),
    Case("an empty first header over ids that are not 0..n-1", "header",
         {"p.csv": pd.DataFrame(rows, columns=HEADER).iloc[::2].to_csv().encode()}, ["{dir}/p.csv"], "error",
         "line 3", None, ("header cell 1 is empty", "no pandas index")),
    Case("one row with more fields", "header",
         {"m.csv": csv_text(HEADER, rows[:6] + [rows[6] + ["7"]] + rows[7:]).encode()},
         ["{dir}/m.csv"], "error", "line 8", None, ("5 fields", "header has 4")),
    Case("every row with a trailing comma", "header",
         {"m.csv": (",\n".join(",".join(r) for r in [HEADER] + rows).replace("score,", "score", 1) + ",\n").encode()},
         ["{dir}/m.csv"], "error", "line 2", None, ("5 fields",)),
    Case("more fields in a tsv", "header",
         {"m.tsv": csv_text(HEADER, rows[:3] + [rows[3] + ["x"]] + rows[4:], "\t").encode()},
         ["{dir}/m.tsv"], "error", "line 5", None, ("5 fields",)),
    Case("a quoted newline before a bad row", "header",
         {"q.csv": ('model,task,item,score\n"A\nlong name",t1,1,1\n"A\nlong name",t1,2,0\nB,t1,1,2\n').encode()},
         ["{dir}/q.csv"], "error", "line 6", "score", ("outside [0, 1]",)),
    Case("quoted newlines, then too many fields", "header",
         {"q.csv": ('model,task,item,score\n"A\nB",t1,1,1\n"A\nB",t1,2,0\nB,t1,1,1,9\n').encode()},
         ["{dir}/q.csv"], "error", "line 6", None, ("5 fields",)),
    Case("an unclosed quote", "header", {"u.csv": b'model,task,item,score\nA,t1,1,1\n"A,t1,2,0\nB,t1,1,1\n'},
         ["{dir}/u.csv"], "error", "line 3", None, ("never closed",)),
    Case("semicolon-separated", "header", {"s.csv": csv_text(HEADER, rows, ";").encode()}, ["{dir}/s.csv"],
         "error", None, None, ("separated by semicolons",)),
    Case("a short row", "header", {"s.csv": csv_text(HEADER, rows[:4] + [rows[4][:3]] + rows[5:]).encode()},
         ["{dir}/s.csv"], "error", "line 6", "score", ("missing score",)),
    Case("Windows line ends", "header",
         {"w.csv": csv_text(HEADER, rows[:8] + [rows[8][:3] + ["x"]]).replace("\n", "\r\n").encode()},
         ["{dir}/w.csv"], "error", "line 10", "score", ("not a number",)),
    Case("old Mac line ends", "header",
         {"w.csv": csv_text(HEADER, rows[:8] + [rows[8][:3] + ["x"]]).replace("\n", "\r").encode()},
         ["{dir}/w.csv"], "error", "line 10", "score", ("not a number",)),
    Case("a key twice in a JSON record", "header",
         {"k.jsonl": (jsonl_text(HEADER, rows[:3]) + '{"model": "A", "task": "t1", "item": "9", "score": 1,'
                                                     ' "score": 0}\n').encode()},
         ["{dir}/k.jsonl"], "error", "line 4", None, ("'score' appears twice",)),
    Case("a binary file named .csv", "header", {"b.csv": bytes(range(256)) * 8}, ["{dir}/b.csv"], "error",
         "line 1", None, ("binary file",)),
    Case("a Parquet file with two score columns", "header", {"d.parquet": _parquet_columns(["model", "task", "item",
                                                                                           "score", "score"])},
         ["{dir}/d.parquet"], "error", None, None, ("'score' appears twice",)),
    Case("a Parquet column without a name", "header", {"d.parquet": _parquet_columns(["model", "task", "item",
                                                                                      "score", ""])},
         ["{dir}/d.parquet"], "error", None, None, ("column 5", "no name")),
    Case("a JSON Lines key without a name", "header",
         {"k.jsonl": jsonl_text(HEADER, rows).replace('"score": 1}', '"score": 1, "": 3}', 1).encode()},
         ["{dir}/k.jsonl"], "error", None, None, ("no name",)),
    Case("tabs in a file named .csv", "header", {"t.csv": csv_text(HEADER, rows, "\t").encode()}, ["{dir}/t.csv"],
         "error", None, None, ("separated by tabs", ".tsv")),
    Case("commas in a file named .tsv", "header", {"t.tsv": csv_text(HEADER, rows).encode()}, ["{dir}/t.tsv"],
         "error", None, None, ("separated by commas", ".csv")),
    Case("the header only", "header", {"h.csv": b"model,task,item,score\n"}, ["{dir}/h.csv"], "error", None, None,
         ("no rows",)),
    Case("an empty file", "header", {"z.csv": b""}, ["{dir}/z.csv"], "error", None, None, ("empty",)),
)

# ---------------------------------------------------------------------------------------------- 2 columns not used
weighted = [r + ["0.5"] for r in rows]
formats("unused weight column", "columns", HEADER + ["weight"], weighted, expect="ok",
        contains=("column not used: weight",), check=models_are("A", "B", n=20), which=("csv", "jsonl", "parquet"))
for col, values in (("split", ("dev", "test")), ("subset", ("test", "validation")), ("set", ("train", "test")),
                    ("partition", ("a", "b"))):
    split_rows = [r + [values[int(r[2]) % 2]] for r in rows]
    formats(f"{col} column {values}", "columns", HEADER + [col], split_rows, expect="error", column=col,
            contains=("looks like a data split", f"--drop-cols {col}"), which=("csv", "jsonl", "parquet"))
split_rows = [r + [("dev", "test")[int(r[2]) % 2]] for r in rows]
formats("split kept with --split test", "columns", HEADER + ["split"], split_rows, expect="ok",
        contains=("split 'test' kept", "left out: dev 20 rows"), check=models_are("A", "B", n=10),
        extra=("--split", "test"), which=("csv", "parquet"))
formats("split pooled on purpose", "columns", HEADER + ["split"], split_rows, expect="ok",
        contains=("left out as asked (--drop-cols): split",), check=models_are("A", "B", n=20),
        extra=("--drop-cols", "split"), which=("csv",))
formats("one split only", "columns", HEADER + ["split"], [r + ["test"] for r in rows], expect="ok",
        contains=("column not used: split",), check=models_are("A", "B", n=20), which=("csv",))
add(Case("split column in a wide table", "columns",
         {"w.csv": b"item,split,A,B\n1,dev,1,0\n2,test,0,1\n3,test,1,1\n"}, ["{dir}/w.csv"], "error", None, "split",
         ("looks like a data split",)))

# ---------------------------------------------------------------------------------------------- 3 scores
for value, what in (("inf", "not a finite"), ("-inf", "not a finite"), ("Infinity", "not a finite"),
                    ("1e308", "too large"), ("-1e200", "too large")):
    bad = [r[:] for r in rows]
    bad[4][3] = value
    formats(f"score {value} (unbounded)", "scores", HEADER, bad, expect="error", where=at(4), column="score",
            contains=(what,), extra=("--unbounded",), which=("csv", "jsonl", "parquet") if value != "Infinity"
            else ("csv", "tsv"))
for value in ("nan", "NA", ""):
    bad = [r[:] for r in rows]
    bad[7][3] = value
    formats(f"score {value!r} is missing", "scores", HEADER, bad, expect="error", where=at(7), column="score",
            contains=("missing score",), which=("csv", "tsv"))
add(Case("JSON NaN score", "scores", {"n.jsonl": (jsonl_text(HEADER, rows[:3]) + '{"model": "A", "task": "t1",'
                                                  ' "item": "99", "score": NaN}\n').encode()},
         ["{dir}/n.jsonl"], "error", "line 4", "score", ("missing score",)))
big = [r[:3] + [str(1e150 * (int(r[2]) % 2))] for r in rows]
formats("large but finite scores", "scores", HEADER, big, expect="error", where=at(0), column="score",
        contains=("too large",), extra=("--unbounded",), which=("csv",))

# ---------------------------------------------------------------------------------------------- 4 look-alike labels
for name, variant, why in (("zero-width", "B\u200b", "invisible characters"), ("bidi", "B\u202e", "invisible"),
                           ("trailing space", "B ", "surrounding spaces"), ("no-break space", "my\u00a0B", None),
                           ("soft hyphen", "B\u00ad", "invisible"), ("byte-order mark", "\ufeffB", "invisible")):
    plain = "my B" if variant == "my\u00a0B" else "B"
    alike = [[plain if r[0] == "B" else r[0], *r[1:]] for r in rows]
    alike[-1][0] = variant
    formats(f"models {name}", "lookalike", HEADER, alike, expect="error", where=at(len(alike) - 1), column="model",
            contains=(("differ only",) + ((why,) if why else ())), which=("csv", "jsonl", "parquet"))
nfd = [["caf\u00e9" if r[0] == "A" else r[0], *r[1:]] for r in rows]
nfd[0][0] = "cafe\u0301"
formats("model in NFC and NFD", "lookalike", HEADER, nfd, expect="error", where=at(0), column="model",
        contains=("NFC vs NFD",), which=("csv", "jsonl", "parquet"))
only_nfd = [["cafe\u0301" if r[0] == "A" else r[0], *r[1:]] for r in rows]
formats("model only in NFD", "lookalike", HEADER, only_nfd, expect="ok", contains=("normalized to NFC",),
        check=models_are("B", "caf\u00e9", n=20), which=("csv", "parquet"))
task_alike = [r[:] for r in rows]
task_alike[3][1] = "t1\u200d"
formats("tasks zero-width joiner", "lookalike", HEADER, task_alike, expect="error", where=at(3), column="task",
        contains=("invisible",), which=("csv",))
item_alike = [r[:] for r in rows]
item_alike[5][2] = " 6"
formats("items surrounding space", "lookalike", HEADER, item_alike, expect="error", column="item",
        contains=("surrounding spaces",), which=("csv", "jsonl"))


# ------------------------------------------------------------------------------- 5 labels that look like numbers
def _numbered(names):
    return base_rows(models=names)


formats("models 1.1 and 1.10", "numbers", HEADER, _numbered(("1.1", "1.10")), expect="ok",
        check=models_are("1.1", "1.10", n=20), numbers=("score", "model"))
formats("model 2 prints as 2", "numbers", HEADER, _numbered(("2", "10")), expect="ok", check=models_are("2", "10"),
        numbers=("score", "model"))
formats("models 1 and 1.0", "numbers", HEADER, _numbered(("1", "1.0")), expect="ok",
        check=models_are("1", "1.0", n=20), numbers=("score", "model"))
formats("models 007 and 7", "numbers", HEADER, _numbered(("007", "7")), expect="ok", check=models_are("007", "7"),
        which=("csv", "tsv", "parquet"))
huge_ids = [[r[0], r[1], str(2**53 + int(r[2])), r[3]] for r in rows]
formats("item ids beyond 2**53", "numbers", HEADER, huge_ids, expect="ok", check=models_are("A", "B", n=20),
        numbers=("score", "item"))
mixed_ids = [r[:] for r in rows] + [["A", "t1", "1.0", "1"]]
formats("items 1 and 1.0 are two items", "numbers", HEADER, mixed_ids, expect="ok",
        contains=("not shared by every model",), which=("csv", "jsonl"), numbers=("score", "item"))

# ------------------------------------------------------------------------------ 6 names pandas reads as missing
formats("models NA, None, null, nan", "na-names", HEADER, base_rows(models=("NA", "None", "null", "nan")),
        expect="ok", check=models_are("NA", "nan", "None", "null", n=20), which=("csv", "tsv", "jsonl", "parquet"))
formats("task NA", "na-names", HEADER, base_rows(tasks=("NA", "N/A")), expect="ok", check=models_are("A", "B"),
        which=("csv", "tsv"))
blank = [r[:] for r in rows]
blank[9][0] = ""
formats("an empty model cell is missing", "na-names", HEADER, blank, expect="error", where=at(9), column="model",
        contains=("missing model",), which=("csv", "tsv", "jsonl"))
add(Case("a JSON null model is missing", "na-names",
         {"n.jsonl": (jsonl_text(HEADER, rows[:2])
                      + '{"model": null, "task": "t1", "item": "3", "score": 1}\n').encode()},
         ["{dir}/n.jsonl"], "error", "line 3", "model", ("missing model",)))

# ---------------------------------------------------------------------------------------------- 7 globs and folders
full_a = csv_text(HEADER, base_rows(models=("A",))).encode()
full_b = csv_text(HEADER, base_rows(models=("B",))).encode()
bad_b = base_rows(models=("B",))
bad_b[2][3] = "7"  # line 4 of b.csv
add(
    Case("glob with an empty file", "globs", {"runs/a.csv": full_a, "runs/b.csv": full_b, "runs/c.csv": b""},
         ["{dir}/runs/*.csv"], "ok", contains=("without rows left out: 1 empty (c.csv)",),
         check=models_are("A", "B", n=20)),
    Case("glob with a header-only file", "globs",
         {"runs/a.csv": full_a, "runs/b.csv": full_b, "runs/c.csv": b"model,task,item,score\n"},
         ["{dir}/runs/*.csv"], "ok", contains=("1 header only (c.csv)",), check=models_are("A", "B", n=20)),
    Case("glob of empty files only", "globs", {"runs/a.csv": b"", "runs/b.csv": b"model,task,item,score\n"},
         ["{dir}/runs/*.csv"], "error", None, None, ("every file is empty or holds only a header",)),
    Case("glob with a bad row in the second file", "globs",
         {"runs/a.csv": full_a, "runs/b.csv": csv_text(HEADER, bad_b).encode()},
         ["{dir}/runs/*.csv"], "error", "b.csv line 4", "score", ("outside [0, 1]",)),
    Case("list of files with an empty jsonl", "globs",
         {"a.jsonl": jsonl_text(HEADER, base_rows(models=("A",))).encode(),
          "b.jsonl": jsonl_text(HEADER, base_rows(models=("B",))).encode(), "c.jsonl": b"\n"},
         ["{dir}/*.jsonl"], "ok", contains=("1 empty (c.jsonl)",), check=models_are("A", "B", n=20)),
)


def _lm_eval_folder(empty_samples: bool):
    stamp = "2025-01-01T00-00-00.000001"
    results = {"results": {"arc": {"acc,none": 0.5}, "hs": {"acc,none": 0.5}}, "model_name": "m1",
               "configs": {}, "group_subtasks": {}}
    files = {f"logs/results_{stamp}.json": json.dumps(results).encode()}
    lines = "".join(json.dumps({"doc_id": i, "doc_hash": f"h{i}", "filter": "none", "metrics": ["acc"],
                                "acc": float(i % 2)}) + "\n" for i in range(8))
    files[f"logs/samples_arc_{stamp}.jsonl"] = lines.encode()
    files[f"logs/samples_hs_{stamp}.jsonl"] = b"" if empty_samples else lines.encode()
    return files


add(Case("lm-eval folder with an empty samples file", "globs", _lm_eval_folder(True), ["{dir}/logs"], "ok",
         contains=("empty samples file",), check=lambda rec: None))

# ---------------------------------------------------------------------------------------------- 8 encodings
latin = csv_text(HEADER, [["Caf\u00e9" if r[0] == "A" else r[0], *r[1:]] for r in rows])
many = "model,task,item,score\n" + "".join(f"A,t1,{i},1\n" for i in range(5000)) + "B\u00e9,t1,0,1\n"
add(
    Case("Latin-1 file", "encoding", {"l.csv": latin.encode("latin-1")}, ["{dir}/l.csv"], "error", "line 2",
         "model", ("not UTF-8", "Windows-1252", "iconv")),
    Case("one bad byte on line 5,002", "encoding", {"b.csv": many.encode("latin-1")}, ["{dir}/b.csv"], "error",
         "line 5002", "model", ("not UTF-8", "iconv")),
    Case("Latin-1 in a TSV score column", "encoding",
         {"l.tsv": csv_text(HEADER, rows[:3] + [["A", "t1", "x", "\u00bd"]], "\t").encode("latin-1")},
         ["{dir}/l.tsv"], "error", "line 5", "score", ("not UTF-8",)),
    Case("UTF-16 with a byte-order mark", "encoding", {"u.csv": ("\ufeff" + latin).encode("utf-16-le")},
         ["{dir}/u.csv"], "ok", contains=("read as UTF-16",), check=models_are("B", "Caf\u00e9", n=20)),
    Case("UTF-16 big-endian with a byte-order mark", "encoding", {"u.tsv": ("\ufeff" + csv_text(HEADER, rows, "\t"))
                                                                  .encode("utf-16-be")},
         ["{dir}/u.tsv"], "ok", contains=("read as UTF-16",), check=models_are("A", "B", n=20)),
    Case("UTF-8 with a byte-order mark", "encoding", {"b.csv": b"\xef\xbb\xbf" + csv_text(HEADER, rows).encode()},
         ["{dir}/b.csv"], "ok", check=models_are("A", "B", n=20)),
    Case("UTF-16 without a byte-order mark", "encoding", {"u.csv": latin.encode("utf-16-le")}, ["{dir}/u.csv"],
         "ok", contains=("read as UTF-16-LE (no byte-order mark",), check=models_are("B", "Caf\u00e9", n=20)),
    Case("Latin-1 JSON Lines", "encoding", {"l.jsonl": jsonl_text(HEADER, [["Caf\u00e9", "t1", "1", "1"]] * 2)
                                            .encode("latin-1")},
         ["{dir}/l.jsonl"], "error", "line 1", None, ("not UTF-8",)),
    Case("UTF-16 JSON Lines with a byte-order mark", "encoding",
         {"u.jsonl": ("\ufeff" + jsonl_text(HEADER, rows)).encode("utf-16-le")}, ["{dir}/u.jsonl"], "ok",
         contains=("read as UTF-16",), check=models_are("A", "B", n=20)),
)

# ---------------------------------------------------------------------------------------------- 9 JSON structure
good = jsonl_text(HEADER, rows)
add(
    Case("truncated last line", "json", {"t.jsonl": good.encode()[:-12]}, ["{dir}/t.jsonl"], "error", "line 40",
         None, ("truncated",)),
    Case("an array line", "json", {"a.jsonl": (good + "[1, 2]\n").encode()}, ["{dir}/a.jsonl"], "error",
         "line 41", None, ("array", "not an object")),
    Case("a string line", "json", {"a.jsonl": ('"x"\n' + good).encode()}, ["{dir}/a.jsonl"], "error", "line 1",
         None, ("a string",)),
    Case("a malformed middle line after blank lines", "json",
         {"m.jsonl": ("\n\n" + good.replace('"item": "5"', '"item": 5,,', 1)).encode()}, ["{dir}/m.jsonl"], "error",
         "line 7", None, ("not valid JSON",)),
    Case("blank lines keep line numbers", "json",
         {"b.jsonl": ("\n" + good.replace('"score": 1}', '"score": 3}', 1)).encode()}, ["{dir}/b.jsonl"], "error",
         "line 2", "score", ("outside [0, 1]",)),
    Case("JSON records cut off", "json", {"r.json": json.dumps([dict(zip(HEADER, r)) for r in rows]).encode()[:-30]},
         ["{dir}/r.json"], "error", "line 1", None, ("not valid JSON",)),
    Case("JSON record that is not an object", "json",
         {"r.json": json.dumps([dict(zip(HEADER, rows[0])), 5]).encode()}, ["{dir}/r.json"], "error", None, None,
         ("record 2",)),
    Case("a nested label", "json",
         {"n.jsonl": (good + '{"model": {"name": "A"}, "task": "t1", "item": "1", "score": 1}\n').encode()},
         ["{dir}/n.jsonl"], "error", "line 41", "model", ("text or a number",)),
)

# ---------------------------------------------------------------------------------------------- 10 compression
def _workbook() -> bytes:
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
    return buf.getvalue()


plain = csv_text(HEADER, rows).encode()
add(
    Case("gzip bytes named .csv", "compression", {"g.csv": gzip.compress(plain)}, ["{dir}/g.csv"], "ok",
         contains=("gzip-compressed (told by its content",), check=models_are("A", "B", n=20)),
    Case("bzip2 bytes named .tsv", "compression", {"g.tsv": bz2.compress(csv_text(HEADER, rows, "\t").encode())},
         ["{dir}/g.tsv"], "ok", contains=("bz2-compressed",), check=models_are("A", "B", n=20)),
    Case("xz bytes named .jsonl", "compression", {"g.jsonl": lzma.compress(good.encode())}, ["{dir}/g.jsonl"], "ok",
         contains=("xz-compressed",), check=models_are("A", "B", n=20)),
    Case("a .csv.gz that is not compressed", "compression", {"p.csv.gz": plain}, ["{dir}/p.csv.gz"], "ok",
         check=models_are("A", "B", n=20)),
    Case("Parquet bytes named .csv", "compression", {"p.csv": parquet_bytes(HEADER, rows)}, ["{dir}/p.csv"], "ok",
         contains=("a Parquet file (told by its content",), check=models_are("A", "B", n=20)),
    Case("gzip with a bad row", "compression", {"g.csv": gzip.compress(plain.replace(b"B,t2,4,1", b"B,t2,4,x"))},
         ["{dir}/g.csv"], "error", "line 35", "score", ("not a number",)),
    Case("truncated gzip", "compression", {"g.csv": gzip.compress(plain)[:40]}, ["{dir}/g.csv"], "error", None,
         None, ("could not be decompressed",)),
    Case("an Excel workbook named .csv", "compression", {"x.csv": _workbook()}, ["{dir}/x.csv"], "error", None,
         None, ("Excel workbook",)),
    Case("gzip on standard input", "compression", {}, ["-"], "ok", check=models_are("A", "B", n=20),
         stdin=gzip.compress(plain)),
    Case("Latin-1 on standard input", "compression", {}, ["-"], "error", "line 2", "model", ("not UTF-8",),
         stdin=latin.encode("latin-1")),
)


# ---------------------------------------------------------------------------------------------- 11 tracebacks
summary = pd.DataFrame({"model": ["a", "b", "c"] * 2, "task": ["t1"] * 3 + ["t2"] * 3, "n": [10**12] * 6,
                        "correct": [4 * 10**11, 4 * 10**11 + 10**6, 5 * 10**11, 10**11, 2 * 10**11, 3 * 10**11]})
for command, extra in (("summarize", ()), ("compare", ("--n-resamples", "200")), ("rank", ("--n-resamples", "200")),
                       ("bayes", ("--draws", "200"))):
    add(Case(f"summary data with n = 1e12 ({command})", "tracebacks",
             {"s.csv": summary.to_csv(index=False).encode()},
             ["{dir}/s.csv", *extra, *(("--seed", "1") if extra else ())], "ok",
             check=lambda rec: None, command=command))
add(Case("accuracy inf", "scores", {"s.csv": b"model,task,n,accuracy\nA,t,100,0.5\nB,t,100,inf\n"}, ["{dir}/s.csv"],
         "error", "line 3", "accuracy", ("not a finite number",)),
    Case("a huge cost", "scores", {"c.csv": csv_text(HEADER + ["cost"], [r + ["1e300" if k == 3 else "0.1"]
                                                                        for k, r in enumerate(rows)]).encode()},
         ["{dir}/c.csv"], "error", "line 5", "cost", ("too large",)),
    Case("an infinite latency", "scores", {"c.csv": csv_text(HEADER + ["latency"], [r + ["inf" if k == 2 else "3"]
                                                                                for k, r in enumerate(rows)]).encode()},
         ["{dir}/c.csv"], "error", "line 4", "latency", ("not finite",)))
add(Case("n beyond 2**53", "tracebacks", {"s.csv": summary.assign(n=10**17).to_csv(index=False).encode()},
         ["{dir}/s.csv"], "error", "line 2", "n", ("beyond 2**53",)))


# ---------------------------------------------------------------------------------------------- 12 nested cells
# The rule (evalband._cells): every cell a table reads holds one value. An object or a list where a value belongs (a
# JSON Lines or JSON record's "score": {"value": 1}, a Parquet struct, list or map column) is one error naming the
# file, the row of the first such cell and the column, whatever the role of the column and whichever table it
# feeds. Each role below, in JSON Lines and JSON (record 3 holds an object or a list) and Parquet (the whole column a
# struct or a list: a column cannot mix).
def _results_records():
    return [dict(model=m, task=t, item=str(i), trial="1", cluster=f"c{i // 2}", group="g", prompt="p1",
                 score=(i + k) % 2, cost=0.5, latency=1.5, human=(i + k) % 2)
            for k, m in enumerate("AB") for t in ("t1", "t2") for i in range(6)]


def _records_bytes(records, fmt):
    if fmt == "jsonl":
        return "".join(json.dumps(r) + "\n" for r in records).encode()
    if fmt == "json":
        return json.dumps(records).encode()
    buf = io.BytesIO()
    pd.DataFrame(records).to_parquet(buf)
    return buf.getvalue()


NESTED_VALUES = {"jsonl": ("an object", {"value": 1}), "json": ("a list", [1, 0]),
                 "parquet-struct": ("an object", None), "parquet-list": ("a list", None)}


def nested(klass_table, records, role, *, command="summarize", extra=(), expected=None, column=None):
    """Cases of the role ``role`` holding nested cells, in every record format."""
    for fmt, (kind, value) in NESTED_VALUES.items():
        recs = [dict(r) for r in records]
        if fmt.startswith("parquet"):  # a Parquet column is nested in every row
            for r in recs:
                r[role] = {"value": r[role]} if fmt == "parquet-struct" else [r[role]]
            suffix, line = "parquet", "row 1"
        else:
            recs[2][role] = value
            suffix, line = fmt, ("line 3" if fmt == "jsonl" else "record 3")
        name = f"data.{suffix}"
        add(Case(f"{klass_table} {role} holds {kind}[{fmt}]", "nested", {name: _records_bytes(recs, suffix)},
                 ["{dir}/" + name, *extra], "error", line, column or role,
                 (f"{expected or role} must be", kind, "nested field"), command=command))


for role in ("model", "task", "item", "trial", "cluster", "group", "prompt", "score", "cost", "latency", "human"):
    nested("results", _results_records(), role, extra=("--facets", "prompt"))
_summary = [dict(model=m, task=t, group="g", n=20, correct=10 + k, accuracy=(10 + k) / 20)
            for k, m in enumerate("AB") for t in ("t1", "t2")]
for role in ("model", "task", "group", "n", "correct"):
    nested("summary", [{k: v for k, v in r.items() if k != "accuracy"} for r in _summary], role)
nested("summary", [{k: v for k, v in r.items() if k != "correct"} for r in _summary], "accuracy")
_wide = [dict(item=str(i), task="t", A=i % 2, B=(i + 1) % 2) for i in range(6)]
for role, column in (("item", "item"), ("task", "task"), ("score", "A")):
    nested("wide", _wide, column, expected=role, column=column)
_battles = [dict(model_a="A", model_b=("B", "C")[i % 2], winner=("model_a", "model_b", "tie")[i % 3],
                 question_id=f"q{i}", judge="j", turn=1, cluster=f"c{i % 3}", weight=1.0, len_a=100 + i,
                 len_b=120 - i) for i in range(9)]
for role in ("model_a", "model_b", "winner", "question_id", "judge", "turn", "cluster", "weight"):
    nested("battles", _battles, role, command="arena", expected={"question_id": "question"}.get(role))
nested("battles", _battles, "len_a", command="arena", expected="style feature")
_alpaca = [dict(instruction=f"q{i}", generator_1="base", generator_2=("m1", "m2")[i % 2], annotator="judge",
                preference=1 + (i % 3) / 2, output_1="x" * (10 + i), output_2="y" * (12 + i)) for i in range(8)]
for role in ("generator_2", "instruction", "annotator"):
    add(Case(f"AlpacaEval annotations {role} holds an object", "nested",
             {"annotations.json": json.dumps([dict(r, **({role: {"name": "m1"}} if k == 2 else {}))
                                              for k, r in enumerate(_alpaca)]).encode()},
             ["{dir}/annotations.json"], "error", "record 3", role, ("must be", "an object", "nested field"),
             command="arena"))
_arena_hard = [dict(question_id=f"q{i}", model=("m1", "m2")[i % 2], judge="gpt-4",
                    games=[{"score": "A>B"}, {"score": "B>A"}]) for i in range(6)]
add(Case("Arena-Hard judgment model holds a list", "nested",
         {"m.jsonl": "".join(json.dumps(dict(r, **({"model": ["m1"]} if k == 2 else {}))) + "\n"
                             for k, r in enumerate(_arena_hard)).encode()},
         ["{dir}/m.jsonl", "--baseline", "gpt-4-0314"], "error", "line 3", "model",
         ("model must be", "a list", "nested field"), command="arena"))
_ratings = [dict(unit=f"u{u}", rater=r, value=(u + k) % 3, cluster=f"c{u // 3}") for u in range(9)
            for k, r in enumerate(("r1", "r2", "r3"))]
for role in ("unit", "rater", "value", "cluster"):
    nested("ratings", _ratings, role, command="agreement", extra=("--cluster", "cluster"),
           expected={"value": "rating"}.get(role))
_costs = [dict(model=m, cost=0.01 * (k + 1), se=0.001, n=100) for k, m in enumerate("AB")]
_responses = [dict(model=m, item=str(i), cost=0.01, latency=0.5) for m in "AB" for i in range(6)]
_results_csv = csv_text(HEADER, base_rows(items=6)).encode()
for table, records, roles in (("cost summary", _costs, ("model", "cost", "se", "n")),
                              ("responses", _responses, ("model", "item", "cost", "latency"))):
    for role in roles:
        for fmt, (kind, value) in NESTED_VALUES.items():
            if not fmt.startswith("parquet-s") and fmt != "jsonl":
                continue
            recs = [dict(r) for r in records]
            if fmt == "jsonl":
                recs[1][role] = value
                name, line = "costs.jsonl", "line 2"
            else:
                for r in recs:
                    r[role] = {"value": r[role]}
                name, line = "costs.parquet", "row 1"
            add(Case(f"{table} {role} holds {kind}[{fmt}]", "nested",
                     {"r.csv": _results_csv, name: _records_bytes(recs, name.split(".")[1])},
                     ["{dir}/r.csv", "--costs", "{dir}/" + name], "error", line, role,
                     (f"{role} must be", kind, "nested field"), command="frontier"))


def _lm_eval_nested(value):
    files = _lm_eval_folder(False)
    name = next(k for k in files if "samples_hs" in k)
    lines = files[name].decode().splitlines()
    lines[2] = json.dumps(dict(json.loads(lines[2]), acc=value))
    files[name] = ("\n".join(lines) + "\n").encode()
    return files


add(Case("lm-eval sample metric holds an object", "nested", _lm_eval_nested({"value": 1}), ["{dir}/logs"], "error",
         "line 3", None, ("'acc' must be a number",)),
    Case("lm-eval sample metric holds a list", "nested", _lm_eval_nested([1, 0]), ["{dir}/logs"], "error",
         "line 3", None, ("holds a list",)))


@dataclass
class Outcome:
    exit_code: int
    stdout: str
    stderr: str
    exception: object = field(default=None)


def run(case: Case, tmp_path) -> Outcome:
    for rel, data in case.files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    args = [a.replace("{dir}", str(tmp_path)) for a in case.args]
    res = CliRunner().invoke(app, [case.command, *args, "--format", "json"], input=case.stdin)
    exc = None if res.exception is None or isinstance(res.exception, SystemExit) else res.exception
    return Outcome(res.exit_code, res.stdout, res.stderr, exc)


def weak(case: Case, out: Outcome, tmp_path) -> list[str]:
    """What makes an error message weak: more than one line, no file named, no line or column where one is at
    fault, none of the words that say what is wrong."""
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    problems = []
    if len(lines) != 1 or not lines[0].startswith("evalband: error: "):
        return [f"not one error line: {out.stderr!r}"]
    text = lines[0]
    files = [rel.split("/")[-1] for rel in case.files] or ["<stdin>"]
    if not any(f in text for f in files) and "logs" not in text and "runs" not in text:
        problems.append(f"names no file: {text}")
    if case.line and case.line not in text:
        problems.append(f"does not say {case.line}: {text}")
    if case.column and f"column '{case.column}'" not in text:
        problems.append(f"does not name column '{case.column}': {text}")
    for part in case.contains:
        if part not in text:
            problems.append(f"does not say {part!r}: {text}")
    return problems


@pytest.mark.parametrize("case", CASES, ids=[f"{c.klass}: {c.name}" for c in CASES])
def test_the_promise(case, tmp_path):
    out = run(case, tmp_path)
    assert out.exception is None, f"traceback: {out.exception!r}"
    if case.expect == "error":
        assert out.exit_code == 2, f"exit {out.exit_code}: a silent result?\n{out.stdout[:400]}\n{out.stderr}"
        assert weak(case, out, tmp_path) == []
        return
    assert out.exit_code == 0, out.stderr
    said = " ".join(out.stderr.split())  # notes wrap at the terminal width, wherever a long path puts the break
    for part in case.contains:
        assert part in said, f"no note {part!r}: {out.stderr}"
    if case.check is not None and case.command == "summarize":
        case.check(jsonout.records(out.stdout))


def test_the_corpus_covers_every_class_and_path():
    classes = {c.klass for c in CASES}
    assert classes == {"header", "columns", "scores", "lookalike", "numbers", "na-names", "globs", "encoding",
                       "json", "compression", "tracebacks", "nested"}
    paths = {re.sub(r".*\.", ".", a) if "." in a else a for c in CASES for a in c.args[:1]}
    for suffix in (".csv", ".tsv", ".jsonl", ".json", ".parquet", ".gz", "-"):
        assert any(p.endswith(suffix) or p == suffix for p in paths), suffix
    assert len(CASES) >= 120


def test_cli_json_rows_of_the_numbers_class_keep_the_text():
    """'1.10' and '1.1', '007' and '7', '2' (not '2.0'): labels print exactly as written."""
    case = next(c for c in CASES if c.name == "models 1.1 and 1.10[csv]")
    rows = base_rows(models=("1.1", "1.10", "2"))
    text = csv_text(HEADER, rows)
    assert np.isin(["1.1", "1.10", "2"], [r[0] for r in rows]).all() and case.expect == "ok"
    res = CliRunner().invoke(app, ["summarize", "-", "--format", "csv"], input=text.encode())
    assert res.exit_code == 0, res.stderr
    models = [line.split(",")[0] for line in res.stdout.splitlines()[1:]]
    assert list(dict.fromkeys(models)) == ["1.1", "1.10", "2"]
