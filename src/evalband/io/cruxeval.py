"""CRUXEval scored generations: several sampled answers per problem, each scored right or wrong.

CRUXEval's ``evaluation/evaluate_generations.py`` writes one JSON file per model, temperature and task::

    {"raw_generations": {"sample_0": ["...", ...], ...},        # the sampled answers (optional here)
     "raw_scored_generations": {"sample_0": [true, false, ...], ...},
     "pass_at_1": 35.95, "pass_at_5": 44.99}                      # percent, HumanEval estimator

named ``<model>_temp<T>_<input|output>.json`` (the repository's samples add a ``sample_scored_`` prefix). Each
problem is an item and each sampled answer a trial, so the table holds binary scores with trials, ready for
:func:`evalband.estimation.passk` (which reproduces the stored ``pass_at_1`` and ``pass_at_5``).
"""

from __future__ import annotations

import re

from .._validate import InputError
from ..data.table import ResultsTable
from .folders import build_table, check_tabular_unused, field, files_of, load_json
from ..display.notes import NoteKind

__all__ = ["read_cruxeval"]

_NAME = re.compile(r"^(?:sample_)?(?:scored_)?(?P<model>.+?)(?:_temp(?P<temp>\d+(?:\.\d+)?))?"
                   r"_(?P<mode>input|output)$")
#: CRUXEval's two tasks, named as in the paper's tables
TASKS = {"input": "CRUXEval-I", "output": "CRUXEval-O"}


def _parse_name(stem: str) -> tuple[str, str | None, str]:
    """(model, temperature or None, task) from a file stem; the stem is the model when it fits no pattern."""
    m = _NAME.match(stem)
    if m is None:
        return stem, None, "CRUXEval"
    return m.group("model"), m.group("temp"), TASKS[m.group("mode")]


NOTE_STORES = NoteKind('io.stores', 'info',
                        '{name} stores {value} ({name2}, {task})')


NOTE_CRUXEVAL_ITEMS = NoteKind("io.cruxeval-items", "info",
                               "items are problems and trials the sampled answers (pass@k applies)")
NOTE_CRUXEVAL_TEMPERATURE = NoteKind("io.cruxeval-temperature", "info",
                                     "sampling temperature from the file names: {temperatures}")


def read_cruxeval(data, *, unbounded: bool = False, **tabular) -> ResultsTable:
    """Read CRUXEval scored-generation files (a file, a folder, a glob or a list) into one item-level table.

    Parameters
    ----------
    data : str, os.PathLike or list
        JSON files with a ``raw_scored_generations`` object ``{problem id: [bool per sampled answer]}``.
    unbounded : bool
        Accepted for a uniform reader interface; the scores are 0/1.

    Returns
    -------
    ResultsTable
        Binary scores with trials: model and task from the file name (``codellama-7b_temp0.2_input.json`` ->
        model ``codellama-7b``, task ``CRUXEval-I``), item the problem id, trial the answer's position.

    Notes
    -----
    The same model sampled at two temperatures (CRUXEval uses 0.2 for pass@1 and 0.8 for pass@5) gives two
    models, ``name (temp 0.2)`` and ``name (temp 0.8)``; with one temperature per model it goes in a note.
    The pass@k the file stores is also given in a note, for comparison with :func:`evalband.estimation.passk`.

    References
    ----------
    Gu, Rozière, Leather, Solar-Lezama, Synnaeve & Wang (2024), CRUXEval: A Benchmark for Code Reasoning,
    Understanding and Execution, ICML; facebookresearch/cruxeval ``evaluation/evaluate_generations.py``.
    """
    check_tabular_unused(tabular, "CRUXEval")
    source, files, skipped = files_of(data, "cruxeval")
    parsed = []
    for path in files:
        src = str(path)
        doc = load_json(path)
        if not isinstance(doc, dict):
            raise InputError("must hold a JSON object with 'raw_scored_generations'", source=src)
        if "raw_scored_generations" not in doc and "raw_generations" in doc:
            raise InputError("holds CRUXEval generations but no 'raw_scored_generations': score them first"
                             " (cruxeval's evaluation/evaluate_generations.py --scored_results_path)", source=src)
        scored = field(doc, "raw_scored_generations", dict, source=src)
        parsed.append((path, *_parse_name(path.stem), scored, doc))
    temps: dict[str, set] = {}
    for _, model, temp, *_ in parsed:
        temps.setdefault(model, set()).add(temp)
    rows = {k: [] for k in ("model", "task", "item", "trial", "score", "where")}
    notes = [NOTE_CRUXEVAL_ITEMS()]
    for path, model, temp, task, scored, doc in parsed:
        # several temperatures: each is its own model; a file whose name gives none keeps the bare model name
        name = f"{model} (temp {temp})" if len(temps[model]) > 1 and temp is not None else model
        for item, values in scored.items():
            where = f"raw_scored_generations.{item}"
            if not isinstance(values, list) or not values:
                raise InputError(f"'{where}' must be a non-empty list of true/false scores", source=str(path))
            for j, v in enumerate(values):
                if not (isinstance(v, bool) or isinstance(v, (int, float)) and v in (0, 1)):
                    raise InputError(f"'{where}[{j}]' must be true or false; got {v!r}"[:200], source=str(path))
                rows["model"].append(name)
                rows["task"].append(task)
                rows["item"].append(str(item))
                rows["trial"].append(j)
                rows["score"].append(float(v))
                rows["where"].append(f"{path.name}:{where}[{j}]")
        stored = [f"pass@{k} = {doc[f'pass_at_{k}']:.2f}%" for k in (1, 5)
                  if isinstance(doc.get(f"pass_at_{k}"), (int, float)) and not isinstance(doc.get(f"pass_at_{k}"), bool)]
        if stored:
            notes.append(NOTE_STORES(name=path.name, value=', '.join(stored), name2=name, task=task))
    single = sorted({f"{m} at temperature {next(iter(t))}" for m, t in temps.items()
                     if len(t) == 1 and next(iter(t)) is not None})
    if single:
        notes.append(NOTE_CRUXEVAL_TEMPERATURE(temperatures=", ".join(single)))
    return build_table(rows, source=source, notes=notes, skipped=skipped, unbounded=unbounded,
                       what="CRUXEval files")
