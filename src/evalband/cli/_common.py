"""Options and helpers shared by every command: reading the input, writing the output, reporting errors.

A command module defines one function and registers it in ``main.py``. A command that reads results declares
only its own options and lets :func:`reads_input` add the shared input options (PATH, --example, --source,
--shape, the column roles, --models, ...) to its signature; it receives them as one :class:`InputOptions`, so
every command reads files the same way::

    @reads_input("path example", after={"fmt": "source shape model_col ..."})
    def summarize(method: MethodOpt = "auto", fmt: FormatOpt = "table", *, inputs: InputOptions):
        with errors():
            table = inputs.load()
            ...
            emit(render(frame, fmt, ...))
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import inspect
import os
import re
import sys
from typing import Annotated, Optional

import typer

from .._defaults import RESAMPLES_HELP, SEED, SEED_HELP, n_resamples_for  # noqa: F401 - for the commands
from .._lists import split_names
from .._validate import ArgumentError, InputError
from ..display.notes import NoteKind
from ._messages import (CLI_COMMANDS, CLI_NAMES, CLI_VALUES, ISSUES_URL, cli_vocabulary,  # noqa: F401
                        debug_enabled, error_text, errors, fail, note_records, note_text)

__all__ = [
    "PathArg", "ExampleOpt", "SourceOpt", "ShapeOpt", "ModelColOpt", "TaskColOpt", "ItemColOpt", "ScoreColOpt",
    "TrialColOpt", "ClusterOpt", "GroupColOpt", "UnboundedOpt", "CountRuleOpt", "FormatOpt", "ConfidenceOpt",
    "SeedOpt", "ModelsOpt", "TasksOpt", "errors", "emit", "load_input", "parse_list", "fail",
    "MetricOpt", "FilterOpt", "SplitOpt", "BaselinesOpt", "SchedulerOpt", "executor_for", "DropColsOpt",
    "resolve_seed", "SEED_REPLICATES", "ATTRIBUTION", "AccuracyScaleOpt", "note_text", "note_records", "emit_json", "cli_vocabulary", "split_list", "InputOptions", "reads_input",
    "WeightsOpt", "parse_confidence", "debug_enabled", "WideOpt", "show", "note_lines", "output_format",
    "FixedOpt", "parse_fixed", "NResamplesOpt", "n_resamples_for", 
]

PathArg = Annotated[Optional[str], typer.Argument(help="Results file (CSV, TSV, Parquet, JSONL), a glob of them"
                                                  " ('runs/*.csv') or a folder of CSV/TSV/Parquet shards, a log"
                                                  " folder, or - for standard input.",
                                                  show_default=False)]
ExampleOpt = Annotated[Optional[str], typer.Option("--example", help="Bundled example instead of a file:"
                                                   " vtab or mmlu-pro (epoch: cell scores, for ability).",
                                                   show_default=False)]
SourceOpt = Annotated[str, typer.Option("--source", help="Input kind: auto, csv, tsv, parquet, jsonl, json, or a"
                                        " harness's logs: lm-eval, inspect, helm, rliable, cruxeval (a file,"
                                        " folder or glob).")]
MetricOpt = Annotated[Optional[str], typer.Option("--metric", help="Harness logs: the per-item metric (lm-eval"
                                                  " acc, acc_norm, exact_match; HELM exact_match, f1_score) or"
                                                  " inspect scorer; comma-separated preferences allowed.",
                                                  show_default=False)]
FilterOpt = Annotated[Optional[str], typer.Option("--filter", help="lm-eval logs: the filter whose records to use"
                                                  " (none, strict-match, flexible-extract, ...).",
                                                  show_default=False)]
SplitOpt = Annotated[Optional[str], typer.Option("--split", help="HELM runs: the split (default test, else"
                                                 " valid). A table with a split column (dev, test, ...): the"
                                                 " split to keep.", show_default=False)]
BaselinesOpt = Annotated[Optional[str], typer.Option("--baselines", help="rliable score files: CSV of task,"
                                                     " random, human scores to normalize by.",
                                                     show_default=False)]
SchedulerOpt = Annotated[Optional[str], typer.Option("--scheduler", help="Run on a Dask cluster: scheduler"
                                                     " address (tcp://host:8786), or 'local' for a local cluster;"
                                                     " sharded input (a folder, glob or URL such as"
                                                     " 's3://bucket/runs/*.parquet') is read and reduced on the"
                                                     " workers, and the bootstrap runs there; needs"
                                                     " evalband[dist].",
                                                     show_default=False)]
ThreadsOpt = Annotated[Optional[int], typer.Option("--threads", min=1, help="Threads for the bootstrap (default:"
                                                   " every core); the numbers do not depend on it.",
                                                   show_default=False)]
ShapeOpt = Annotated[str, typer.Option("--shape", help="Table shape: auto, long, wide or summary.")]
ModelColOpt = Annotated[str, typer.Option("--model-col", help="Column holding the model name.")]
TaskColOpt = Annotated[str, typer.Option("--task-col", help="Column holding the task name.")]
ItemColOpt = Annotated[str, typer.Option("--item-col", help="Column holding the item id.")]
ScoreColOpt = Annotated[str, typer.Option("--score-col", help="Column holding the score.")]
TrialColOpt = Annotated[str, typer.Option("--trial-col", help="Column holding the trial (repeat) number.")]
ClusterOpt = Annotated[Optional[str], typer.Option("--cluster", help="Column of clusters (passage, document,"
                                                   " sub-source); default 'cluster' if present; 'none' to treat"
                                                   " items as independent.",
                                                   show_default=False)]
GroupColOpt = Annotated[str, typer.Option("--group-col", help="Column holding the task group.")]
UnboundedOpt = Annotated[bool, typer.Option("--unbounded", help="Scores are not proportions (rewards, BLEU, ...):"
                                            " allow values outside [0, 1].")]
CountRuleOpt = Annotated[str, typer.Option("--count-rule", help="Summary input: counts from accuracies as"
                                           " floor(n*acc) or round(n*acc).")]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="Output: table (fits the terminal), table-wide (every"
                                        " column), markdown, csv, json or latex. JSON and CSV keep full precision"
                                        " and fractions; the others show proportions in points.")]
WideOpt = Annotated[bool, typer.Option("--wide", help="Terminal table with every column (as --format table-wide).")]
ConfidenceOpt = Annotated[str, typer.Option("--confidence", help="Confidence level in (0, 1), e.g. 0.95, '95%'"
                                            " or 'overlap' (83.4%).")]
SeedOpt = Annotated[Optional[int], typer.Option("--seed", help=SEED_HELP, show_default=False)]
#: --n-resamples in every command: the default follows the kind of work (evalband._defaults), said in --help
NResamplesOpt = Annotated[Optional[int], typer.Option("--n-resamples", help=RESAMPLES_HELP, show_default=False)]
ModelsOpt = Annotated[Optional[str], typer.Option("--models", help="Comma-separated models to keep; quote a name"
                                                  " holding commas in double quotes (\"a,b\",c), or give @FILE"
                                                  " (one name per line).",
                                                  show_default=False)]
TasksOpt = Annotated[Optional[str], typer.Option("--tasks", help="Comma-separated tasks to keep (default: every"
                                                " task; comparisons and rankings use the tasks every selected"
                                                " model has results on, naming the others).",
                                                show_default=False)]
AccuracyScaleOpt = Annotated[Optional[str], typer.Option("--accuracy-scale", help="Summary input: accuracy"
                                                         " column as 'fraction' (0-1) or 'percent' (0-100);"
                                                         " default auto (read from the values).",
                                                         show_default=False)]
DropColsOpt = Annotated[Optional[str], typer.Option("--drop-cols", help="Comma-separated columns to leave out"
                                                    " when reading (e.g. a 0/1 flag column in a wide table that"
                                                    " is not a model).", show_default=False)]


WeightsOpt = Annotated[Optional[str], typer.Option(
    "--weights", help="Task or group weights: 'task=w,...' or 'group=w,...' (tasks or groups not named get"
                      " weight 0), 'w1,w2,...' in task order, 'groups' for equal weight per group, or 'equal'"
                      " (every task the same; the default). Quote a name holding commas as in CSV"
                      " ('\"a,b\"=2,c=1'), or give @FILE (one name=w per line).", show_default=False)]
HumanColOpt = Annotated[Optional[str], typer.Option(
    "--human-col", help="Column of human (gold) labels on a subset of rows, blank elsewhere: the score column is"
                        " then a judge's label and estimates combine both (prediction-powered inference; default"
                        " 'human' if present).", show_default=False)]
CostColOpt = Annotated[Optional[str], typer.Option("--cost-col", help="Column of per-row cost (dollars or tokens);"
                                                   " default 'cost' if present.", show_default=False)]
LatencyColOpt = Annotated[Optional[str], typer.Option("--latency-col", help="Column of per-row latency (seconds);"
                                                      " default 'latency' if present.", show_default=False)]
FacetsOpt = Annotated[Optional[str], typer.Option(
    "--facets", help="Comma-separated label columns of other sources of variation (prompt template, seed, judge,"
                     " ...); default: the columns named prompt, template, judge, run or harness when present;"
                     " 'none' for none.", show_default=False)]
FixedOpt = Annotated[Optional[str], typer.Option(
    "--fixed", help="Comma-separated facets to condition on ('all' for every facet). By default facet columns are"
                    " random: intervals generalize to new prompts, judges, seeds, as well as to new items.",
                    show_default=False)]


def parse_fixed(text):
    """``--fixed`` text -> the library's ``fixed`` (None, True for 'all', or a list of facet names)."""
    if text is None:
        return None
    return True if text.strip().lower() == "all" else parse_list(text, name="--fixed")


def _cli(alias):
    """A field of :class:`InputOptions` set by the command-line option ``alias`` (one of the aliases above)."""
    return {"cli": alias}


@dataclasses.dataclass(frozen=True)


class InputOptions:
    """The input options shared by every command that reads results, as the user gave them.

    The defaults here are the options' defaults on every command. :func:`reads_input` builds the options from the
    fields (each field's ``cli`` metadata is its typer alias); options a command does not offer keep these
    defaults. :meth:`read` reads the table; :meth:`selection` adds --models, --tasks and --weights through
    :func:`evalband.select`.
    """

    path: Optional[str] = dataclasses.field(default=None, metadata=_cli(PathArg))
    example: Optional[str] = dataclasses.field(default=None, metadata=_cli(ExampleOpt))
    source: str = dataclasses.field(default="auto", metadata=_cli(SourceOpt))
    shape: str = dataclasses.field(default="auto", metadata=_cli(ShapeOpt))
    model_col: str = dataclasses.field(default="model", metadata=_cli(ModelColOpt))
    task_col: str = dataclasses.field(default="task", metadata=_cli(TaskColOpt))
    item_col: str = dataclasses.field(default="item", metadata=_cli(ItemColOpt))
    score_col: str = dataclasses.field(default="score", metadata=_cli(ScoreColOpt))
    trial_col: str = dataclasses.field(default="trial", metadata=_cli(TrialColOpt))
    cluster: Optional[str] = dataclasses.field(default=None, metadata=_cli(ClusterOpt))
    group_col: str = dataclasses.field(default="group", metadata=_cli(GroupColOpt))
    unbounded: bool = dataclasses.field(default=False, metadata=_cli(UnboundedOpt))
    count_rule: str = dataclasses.field(default="floor", metadata=_cli(CountRuleOpt))
    models: Optional[str] = dataclasses.field(default=None, metadata=_cli(ModelsOpt))
    tasks: Optional[str] = dataclasses.field(default=None, metadata=_cli(TasksOpt))
    weights: Optional[str] = dataclasses.field(default=None, metadata=_cli(WeightsOpt))
    drop_cols: Optional[str] = dataclasses.field(default=None, metadata=_cli(DropColsOpt))
    accuracy_scale: Optional[str] = dataclasses.field(default=None, metadata=_cli(AccuracyScaleOpt))
    metric: Optional[str] = dataclasses.field(default=None, metadata=_cli(MetricOpt))
    filter_: Optional[str] = dataclasses.field(default=None, metadata=_cli(FilterOpt))
    split: Optional[str] = dataclasses.field(default=None, metadata=_cli(SplitOpt))
    baselines: Optional[str] = dataclasses.field(default=None, metadata=_cli(BaselinesOpt))
    human_col: Optional[str] = dataclasses.field(default=None, metadata=_cli(HumanColOpt))
    cost_col: Optional[str] = dataclasses.field(default=None, metadata=_cli(CostColOpt))
    latency_col: Optional[str] = dataclasses.field(default=None, metadata=_cli(LatencyColOpt))
    facets: Optional[str] = dataclasses.field(default=None, metadata=_cli(FacetsOpt))

    def read(self, *, battles: bool = False, trials: str = "keep"):
        """Read PATH or --example into a ResultsTable (:func:`load_input`); nothing is selected here. With
        ``battles``, a file of pairwise battles (detected, or --source naming a battle format) is read as a
        BattleTable; ``trials='average'``: the command reads no single trial (sharded input read on a cluster
        then reduces each item's trials on the workers, :func:`evalband.io.read_input`)."""
        options = dataclasses.asdict(self)
        path, example = options.pop("path"), options.pop("example")
        for key in ("tasks", "weights"):
            options.pop(key)
        options["filter"] = options.pop("filter_")
        from .._progress import status

        with status(f"reading {path if path is not None else 'example ' + str(example)}"):
            return load_input(path, example, battles=battles, trials=trials, **options)

    def selection(self, *, weights: bool = True, battles: bool = False, trials: str = "keep", **options):
        """The library's selection (:func:`evalband.select`) of --models, --tasks and --weights on the table
        read: the command line parses the text, the library applies its one rule. ``weights=False`` for commands
        whose analysis takes no weights; ``battles`` for commands that also read pairwise battles; ``trials``
        as in :meth:`read`; ``options`` go to ``select`` (``complete=``, ...)."""
        from ..selection import select

        table = self.read(battles=battles, trials=trials)
        return select(table, models=parse_list(self.models, name="models"),
                      tasks=parse_list(self.tasks, name="tasks"),
                      weights=self.weights if weights else None, **options)

    def changed(self, *names: str) -> dict:
        """The options among ``names`` (all by default) whose value differs from the default, in field order."""
        fields = [f for f in dataclasses.fields(self) if not names or f.name in names]
        return {f.name: getattr(self, f.name) for f in fields if getattr(self, f.name) != f.default}


#: Option groups for :func:`reads_input` layouts: reading a table, and harness logs' reader options.
TABLE_INPUT = "source shape model_col task_col item_col score_col trial_col group_col unbounded count_rule"
LOG_INPUT = "metric filter_ split baselines"
#: Per-row measures and facet columns of a long table (read when their default-named columns exist).
MEASURE_INPUT = "human_col cost_col latency_col facets"
#: Every option that names a column of a results table. The rule: every command that reads results accepts every
#: one of them (:func:`reads_input` adds those a command does not place itself, after its own options), so a
#: file that one command reads with ``--cost-col cost_usd`` is read the same way by every other command.
COLUMN_INPUT = ("model_col task_col item_col score_col trial_col cluster group_col human_col cost_col latency_col"
                " facets drop_cols")


def reads_input(first: str = "path example", *, after: dict[str, str] | None = None):
    """Decorator: add the shared input options to a command's typer signature; pass them as ``inputs``.

    The command function declares its own options and a keyword-only ``inputs: InputOptions`` parameter. The
    shared options it offers are named (fields of :class:`InputOptions`, space-separated) in ``first``, placed
    before its own options, and in ``after``, which maps one of its own options to the shared options that follow
    it in ``--help``. Options not named keep their defaults, except the options that name a column of the input
    (:data:`COLUMN_INPUT`): every command that reads results takes them all, and those not placed come last.
    Typer reads the new signature; the wrapper gathers the shared values into one :class:`InputOptions` and calls
    the command with ``inputs=``.
    """
    fields = {f.name: f for f in dataclasses.fields(InputOptions)}
    placed = {"": first.split(), **{k: v.split() for k, v in (after or {}).items()}}

    def parameter(name):
        if name not in fields:
            raise TypeError(f"reads_input: {name!r} is not an input option; options: {', '.join(fields)}")
        f = fields[name]
        return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=f.default,
                                 annotation=f.metadata["cli"])

    def decorate(func):
        signature = inspect.signature(func, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != "inputs"]
        if "inputs" not in signature.parameters:
            raise TypeError(f"reads_input: {func.__name__}() needs a keyword-only `inputs` parameter")
        if set(placed) - {""} - {p.name for p in own}:
            raise TypeError(f"reads_input: `after` names options {func.__name__}() does not have")
        names = [n for group in placed.values() for n in group]
        if len(set(names)) != len(names) or set(names) & {p.name for p in own}:
            raise TypeError(f"reads_input: an option of {func.__name__}() is given twice")
        rest = [n for n in COLUMN_INPUT.split() if n not in names]  # the rule: every column option, everywhere
        names += rest
        params = [parameter(n) for n in placed[""]]
        for p in own:
            params += [p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            params += [parameter(n) for n in placed.get(p.name, ())]
        params += [parameter(n) for n in rest]

        @functools.wraps(func)
        def command(**kwargs):
            inputs = InputOptions(**{n: kwargs.pop(n, fields[n].default) for n in names})
            with errors():
                check_input_path(inputs.path)  # before the command imports NumPy, pandas and the readers
            return func(**kwargs, inputs=inputs)

        command.__signature__ = signature.replace(parameters=params)
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command

    return decorate


_GLOB_CHARS = re.compile(r"[*?\[]")


def check_input_path(path) -> None:
    """Refuse an input path that names nothing, before any heavy import (a missing file is said at once, not after
    seconds of loading the readers): a file or folder that does not exist, or a glob that matches no file. Standard
    input (``-``), ``None`` and ``example:NAME`` pass; the readers check everything else."""
    if path is None:
        return
    text = os.fspath(path)
    if text == "-" or text.startswith("example:") or os.path.exists(text):
        return
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", text):  # an fsspec URL: listed by the reader (on a cluster)
        return
    if _GLOB_CHARS.search(text):
        import glob

        if not glob.glob(text, recursive=True):
            raise InputError("the pattern matches no file", source=text)
        return
    raise InputError("no such file or folder", source=text)


def emit(text: str) -> None:
    """Write command output to stdout (no trailing blank line duplication)."""
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


def output_format(fmt: str, wide: bool = False) -> str:
    """``--format`` (and ``--wide``) -> one of :data:`evalband.display.FORMATS`."""
    from ..display import FORMATS

    key = str(fmt).strip().lower()
    if key not in FORMATS:
        raise ArgumentError(f"`--format` must be one of {', '.join(FORMATS)}; got {fmt!r}.")
    if wide:
        if key not in ("table", "table-wide"):
            raise ArgumentError(f"`--wide` is for the terminal table; --format {key} shows every column already")
        return "table-wide"
    return key


def note_lines(notes, options: dict | None = None) -> None:
    """Notes on stderr, each once, wrapped at the terminal's width (the machine formats' companion)."""
    from ..display import terminal_width, wrap_notes

    for line in wrap_notes([note_text(n, options) for n in notes], terminal_width()):
        sys.stderr.write(line + "\n")


def show(frame, fmt: str, *, notes=(), title=None, value_cols=("estimate", "se", "ci_low", "ci_high"),
         se_col="se", scale=1.0, p_floor=None, json=None, options: dict | None = None) -> None:
    """Print a result frame in ``fmt`` (:func:`evalband.display.render`): a table, Markdown or LaTeX with the
    notes below it; CSV or JSON on stdout with the notes on stderr. JSON is one object, the records and the notes
    as records (:func:`emit_json`); ``json`` replaces the JSON of the records (an object with the primary result
    beside the records). Notes name command-line options (:func:`note_text`; ``options``: the command's own)."""
    from ..display import render, to_csv, to_json

    if fmt == "json":
        emit_json(json if json is not None else to_json(frame), notes, options)
        return
    if fmt == "csv":
        emit(to_csv(frame))
        note_lines(notes, options)
        return
    notes = [note_text(n, options) for n in notes]
    emit(render(frame, fmt, value_cols=value_cols, se_col=se_col, scale=scale, title=title, notes=notes,
                p_floor=p_floor))


def emit_json(text: str, notes=(), options: dict | None = None) -> None:
    """JSON output with its notes: ``{"records": [...], "notes": [{"code", "severity", "text", "params"}]}`` (an
    object output gains the ``"notes"`` key beside its own; :func:`evalband.display.notes.json_with_notes`) on
    stdout; the notes also on stderr, for the person at the terminal."""
    from ..display.notes import json_with_notes

    emit(json_with_notes(text, note_records(notes, options)))
    note_lines(notes, options)


def split_list(text: str, *, name: str = "list") -> list[str]:
    """Split an option's comma-separated value into names: CSV quoting keeps commas (``'"x,y",c'``), ``@FILE``
    reads one entry per line (see :func:`evalband._lists.split_names`)."""
    return split_names(text, name=name)


def parse_list(text: str | None, *, cast=str, name: str = "list"):
    """'a,b,c' -> ['a', 'b', 'c'] (None stays None); quoting and ``@FILE`` as in :func:`split_list`."""
    if text is None:
        return None
    items = split_list(text, name=name)
    try:
        return [cast(t) for t in items]
    except ValueError:
        raise ArgumentError(f"`{name}` must be a comma-separated list; got {text!r}.") from None


def parse_confidence(text):
    """``--confidence`` text -> a number ('0.95' -> 0.95); '95%' and 'overlap' (and None) pass through to the
    library's check, which names the option in its message."""
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return text


def load_input(path, example, **options):
    """Read PATH or --example into a ResultsTable (the reading policy is the library's,
    :func:`evalband.io.read_input`)."""
    from ..io.inputs import read_input

    return read_input(path, example, executor=_CLUSTER.get(), **options)  # --scheduler: read on its cluster


#: the seed and the replicates of a command's run; the example data's source and licence
SEED_REPLICATES = NoteKind("cli.seed-replicates", "info", "{seed_text}, {n_resamples:,} replicates")
ATTRIBUTION = NoteKind("cli.data-attribution", "info", "{attribution}")
SEED_NOTE = NoteKind("cli.seed", "info", "seed {seed}")
#: the human formats' values in points (every command that scales proportions by 100)
POINTS = NoteKind("cli.values-in-points", "info", "values in points (x100); JSON and CSV give fractions")


def resolve_seed(seed: int | None) -> tuple[int, str]:
    """``--seed``, or the default seed of every command (:data:`evalband._defaults.SEED`, 0) when it is not given,
    and how to name it in notes (``"seed 0"``). The seed is passed to the library as ``rng``; the same command on
    the same data prints the same numbers, and commands agree with each other and with the report."""
    return (SEED if seed is None else seed), SEED_NOTE(seed=SEED if seed is None else seed)


@contextlib.contextmanager


def executor_for(scheduler: str | None, threads: int | None = None):
    """``--scheduler``: yield an executor for the bootstrap engine (None when not given), closed afterwards;
    ``--threads``: the engine's thread count inside the block (None: every core)."""
    if scheduler is None:
        if threads is None:
            yield None
            return
        from ..resample import use_threads

        with use_threads(threads):
            yield None
        return
    from ..resample.distributed import dask_executor
    from ..resample import use_executor

    with dask_executor(scheduler) as executor, use_executor(executor):
        token = _CLUSTER.set(executor)  # sharded input is read on the cluster too (load_input)
        try:
            yield executor
        finally:
            _CLUSTER.reset(token)


#: the executor of --scheduler while a command runs: sharded input is read and reduced on its cluster
_CLUSTER: contextvars.ContextVar = contextvars.ContextVar("evalband_cli_cluster", default=None)
