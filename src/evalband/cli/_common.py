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
import copy
import dataclasses
import functools
import inspect
import re
import sys
from typing import Annotated, Optional

import typer

from .._lists import split_names
from .._validate import InputError

__all__ = [
    "PathArg", "ExampleOpt", "SourceOpt", "ShapeOpt", "ModelColOpt", "TaskColOpt", "ItemColOpt", "ScoreColOpt",
    "TrialColOpt", "ClusterOpt", "GroupColOpt", "UnboundedOpt", "CountRuleOpt", "FormatOpt", "ConfidenceOpt",
    "SeedOpt", "ModelsOpt", "TasksOpt", "errors", "emit", "load_input", "parse_list", "fail",
    "MetricOpt", "FilterOpt", "SplitOpt", "BaselinesOpt", "SchedulerOpt", "executor_for", "DropColsOpt",
    "resolve_seed", "AccuracyScaleOpt", "cli_message", "split_list", "InputOptions", "reads_input",
    "select_tasks", "WeightsOpt", "parse_weights", "parse_confidence", "selected_weights",
]

PathArg = Annotated[Optional[str], typer.Argument(help="Results file (CSV, TSV, Parquet, JSONL), a glob of them"
                                                  " ('runs/*.csv'), a log folder, or - for standard input.",
                                                  show_default=False)]
ExampleOpt = Annotated[Optional[str], typer.Option("--example", help="Bundled example instead of a file:"
                                                   " vtab or mmlu-pro.", show_default=False)]
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
SchedulerOpt = Annotated[Optional[str], typer.Option("--scheduler", help="Run bootstrap chunks on a Dask cluster:"
                                                     " scheduler address (tcp://host:8786), or 'local' for a"
                                                     " local cluster; needs evalband[dist].",
                                                     show_default=False)]
ShapeOpt = Annotated[str, typer.Option("--shape", help="Table shape: auto, long, wide or summary.")]
ModelColOpt = Annotated[str, typer.Option("--model-col", help="Column holding the model name.")]
TaskColOpt = Annotated[str, typer.Option("--task-col", help="Column holding the task name.")]
ItemColOpt = Annotated[str, typer.Option("--item-col", help="Column holding the item id.")]
ScoreColOpt = Annotated[str, typer.Option("--score-col", help="Column holding the score.")]
TrialColOpt = Annotated[str, typer.Option("--trial-col", help="Column holding the trial (repeat) number.")]
ClusterOpt = Annotated[Optional[str], typer.Option("--cluster", help="Column of clusters (passage, document,"
                                                   " sub-source); default 'cluster' if present.",
                                                   show_default=False)]
GroupColOpt = Annotated[str, typer.Option("--group-col", help="Column holding the task group.")]
UnboundedOpt = Annotated[bool, typer.Option("--unbounded", help="Scores are not proportions (rewards, BLEU, ...):"
                                            " allow values outside [0, 1].")]
CountRuleOpt = Annotated[str, typer.Option("--count-rule", help="Summary input: counts from accuracies as"
                                           " floor(n*acc) or round(n*acc).")]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="Output: table, markdown, csv, json or latex.")]
ConfidenceOpt = Annotated[str, typer.Option("--confidence", help="Confidence level in (0, 1), e.g. 0.95, '95%'"
                                            " or 'overlap' (83.4%).")]
SeedOpt = Annotated[Optional[int], typer.Option("--seed", help="Random seed; the same seed gives the same numbers.",
                                                show_default=False)]
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


def _cli(alias):
    """A field of :class:`InputOptions` set by the command-line option ``alias`` (one of the aliases above)."""
    return {"cli": alias}


@dataclasses.dataclass(frozen=True)
class InputOptions:
    """The input options shared by every command that reads results, as the user gave them.

    The defaults here are the options' defaults on every command. :func:`reads_input` builds the options from the
    fields (each field's ``cli`` metadata is its typer alias); options a command does not offer keep these
    defaults. ``tasks`` is applied after reading (:func:`select_tasks`); everything else is read by :meth:`load`.
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
    drop_cols: Optional[str] = dataclasses.field(default=None, metadata=_cli(DropColsOpt))
    accuracy_scale: Optional[str] = dataclasses.field(default=None, metadata=_cli(AccuracyScaleOpt))
    metric: Optional[str] = dataclasses.field(default=None, metadata=_cli(MetricOpt))
    filter_: Optional[str] = dataclasses.field(default=None, metadata=_cli(FilterOpt))
    split: Optional[str] = dataclasses.field(default=None, metadata=_cli(SplitOpt))
    baselines: Optional[str] = dataclasses.field(default=None, metadata=_cli(BaselinesOpt))

    def load(self):
        """Read PATH or --example into a ResultsTable (:func:`load_input`; --tasks is not applied here)."""
        options = dataclasses.asdict(self)
        path, example, _ = options.pop("path"), options.pop("example"), options.pop("tasks")
        options["filter"] = options.pop("filter_")
        return load_input(path, example, **options)

    def changed(self, *names: str) -> dict:
        """The options among ``names`` (all by default) whose value differs from the default, in field order."""
        fields = [f for f in dataclasses.fields(self) if not names or f.name in names]
        return {f.name: getattr(self, f.name) for f in fields if getattr(self, f.name) != f.default}


#: Option groups for :func:`reads_input` layouts: reading a table, and harness logs' reader options.
TABLE_INPUT = "source shape model_col task_col item_col score_col trial_col group_col unbounded count_rule"
LOG_INPUT = "metric filter_ split baselines"


def reads_input(first: str = "path example", *, after: dict[str, str] | None = None):
    """Decorator: add the shared input options to a command's typer signature; pass them as ``inputs``.

    The command function declares its own options and a keyword-only ``inputs: InputOptions`` parameter. The
    shared options it offers are named (fields of :class:`InputOptions`, space-separated) in ``first``, placed
    before its own options, and in ``after``, which maps one of its own options to the shared options that follow
    it in ``--help``. Options not named keep their defaults. Typer reads the new signature; the wrapper gathers
    the shared values into one :class:`InputOptions` and calls the command with ``inputs=``.
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
        params = [parameter(n) for n in placed[""]]
        for p in own:
            params += [p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            params += [parameter(n) for n in placed.get(p.name, ())]

        @functools.wraps(func)
        def command(**kwargs):
            inputs = InputOptions(**{n: kwargs.pop(n) for n in names})
            return func(**kwargs, inputs=inputs)

        command.__signature__ = signature.replace(parameters=params)
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command

    return decorate


def fail(message: str, code: int = 2):
    """Print one line to stderr and exit with ``code``."""
    typer.echo(f"evalband: error: {message}", err=True)
    raise typer.Exit(code)


#: Library argument -> the CLI option that sets it, for messages raised below the CLI (the library names its
#: own arguments); a command adds its own with ``errors(method="--interval")``.
CLI_NAMES = {"rng": "--seed", "n_resamples": "--n-resamples", "confidence_level": "--confidence",
             "name": "--aggregate", "aggregate": "--aggregate", "method": "--method", "correction": "--correction",
             "resampling": "--resampling", "margin": "--margin", "weights": "--weights", "group_weights": "--weights",
             "models": "--models", "test": "--test", "prior": "--prior", "accuracy_scale": "--accuracy-scale",
             "drop_cols": "--drop-cols", "clusters": "--clusters"}
#: Aggregates whose parameter the CLI gives after a colon, with an example of the syntax.
_PARAMETER_SYNTAX = {"bin_width": "binned-rank:0.01", "gamma": "optimality-gap:0.9",
                     "baseline": "probability-of-improvement:MODEL", "chance": "chance-normalized:0.25"}


def cli_message(text: str, options: dict | None = None) -> str:
    """Re-word a library message for the command line: backticked argument names become the options that set
    them (`rng` -> `--seed`), API syntax becomes CLI syntax (``accuracy_scale=``, ``resampling='binomial'``, an
    aggregate's parameter as ``binned-rank:0.01``). Text that names no argument is returned unchanged."""
    names = {**CLI_NAMES, **(options or {})}
    m = re.match(r"'([\w-]+)' needs `(\w+)`(.*)", text)
    if m and m.group(2) in _PARAMETER_SYNTAX:
        aggregate, param, rest = m.groups()
        return (f"--aggregate {aggregate} needs its {param.replace('_', ' ')} after a colon, e.g. --aggregate"
                f" {_PARAMETER_SYNTAX[param]}{rest}")
    text = re.sub(r"`(\w+)=(['\"]?)([^`'\"]*)\2`",  # `clusters='effective'` -> `--clusters effective`
                  lambda g: f"`{names[g.group(1)]} {g.group(3)}`" if g.group(1) in names else g.group(0), text)
    text = re.sub(r"`(\w+)`", lambda g: f"`{names[g.group(1)]}`" if g.group(1) in names else g.group(0), text)
    text = text.replace("`--seed` seed must", "`--seed` must")
    text = text.replace("(resampling='binomial')", "(--resampling independent, or leave it at auto)")
    text = re.sub(r"say accuracy_scale=\S* to override", "give --accuracy-scale fraction or percent to override",
                  text)
    return text


@contextlib.contextmanager
def errors(**options):
    """Turn input and argument errors into one line on stderr and exit code 2 (no traceback).

    ``options`` maps a library argument to the option that sets it in this command (``method="--interval"``), so
    that the message names what the user typed (see :func:`cli_message`).
    """
    try:
        yield
    except typer.Exit:
        raise
    except (InputError, ValueError, TypeError, OSError, ImportError) as exc:  # OSError: folders, permissions
        fail(cli_message(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, options))


def emit(text: str) -> None:
    """Write command output to stdout (no trailing blank line duplication)."""
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


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
        raise ValueError(f"`{name}` must be a comma-separated list; got {text!r}.") from None


def parse_weights(text, table):
    """``--weights`` text -> (weights, group_weights) for the aggregates: the library's one rule
    (:func:`evalband.aggregate.parse_weights`; tasks or groups not named get weight 0, with a note)."""
    from ..aggregate import parse_weights as parse

    return parse(text, table.tasks, table.groups if table.has_groups else ())


def selected_weights(text, table, tasks):
    """``--weights`` for a command with ``--tasks``: ``(weights, group_weights, notes)`` for the tasks chosen.

    The text is parsed against ``table``, the full table (every task and group of the data, before ``--tasks``),
    so a group that ``--tasks`` left without tasks is a known group. The chosen tasks then follow the rule of
    :func:`evalband.comparison._setup.restrict_weights` for tasks left out: a task or group left without tasks that the
    weights give a positive weight is an error (the user asked for it to count); weight 0 drops it; under
    'groups' a group left without tasks is left out and the others share the weight equally; a group keeps its
    weight, shared among its chosen tasks (each with a note). ``tasks`` is the list :func:`select_tasks` returns
    (None: every task, weights as :func:`parse_weights`).
    """
    from ..comparison._setup import restrict_weights

    weights, group_weights = parse_weights(text, table)
    if tasks is None:
        return weights, group_weights, []

    def refuse(kind, name):
        if kind == "group":
            return ValueError(f"`--weights` gives group '{name}' a positive weight, but none of its tasks is among"
                              " `--tasks`; give it weight 0, or add some of its tasks to `--tasks`")
        if kind == "none":
            return ValueError("`--weights` names only tasks that are not among `--tasks`; no weighted task remains")
        return ValueError(f"`--weights` gives task '{name}' a positive weight, but it is not among `--tasks`; give"
                          " it weight 0 (or leave it out of `--weights`), or add it to `--tasks`")

    return restrict_weights(weights, group_weights, table.tasks, table.task_groups if table.has_groups else None,
                            [str(t) for t in tasks], refuse=refuse, where="in `--tasks`",
                            why=" (none among `--tasks`)", per_kept_task=True)


def parse_confidence(text):
    """``--confidence`` text -> a number ('0.95' -> 0.95); '95%' and 'overlap' (and None) pass through to the
    library's check, which names the option in its message."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return text


def select_tasks(table, tasks):
    """``--tasks`` -> (the table restricted to them, the list for the library) (None: every task)."""
    names = parse_list(tasks, name="tasks")
    if names is None:
        return table, None
    if not names:
        raise ValueError("`--tasks` is empty; give comma-separated task names (or leave the option out)")
    return table.select(tasks=names), names


def load_input(path, example, *, source="auto", shape="auto", model_col="model", task_col="task",
               item_col="item", score_col="score", trial_col="trial", cluster=None, group_col="group",
               unbounded=False, count_rule="floor", models=None, drop_cols=None, accuracy_scale=None, **extra):
    """Read PATH or --example into a ResultsTable, restricted to --models when given.

    With ``--shape wide`` the --models names are the model columns chosen at read time (other columns are not
    models and not counted in coverage notes); ``--drop-cols`` leaves columns out before reading.
    """
    from ..examples import load_example
    from ..io import read

    if (path is None) == (example is None):
        raise ValueError("give either a results file PATH or --example NAME (one of them)")
    names = None
    if models is not None:
        names = parse_list(models, name="models")
        if not names:
            raise ValueError("`--models` is empty; give comma-separated model names (or leave the option out)")
    if drop_cols is not None:
        if example is not None:
            raise ValueError("`--drop-cols` applies to a results file, not to --example")
        drop_cols = parse_list(drop_cols, name="--drop-cols")
        if not drop_cols:
            raise ValueError("`--drop-cols` is empty; give comma-separated column names (or leave the option out)")
        extra["drop_cols"] = drop_cols
    if accuracy_scale is not None:
        if example is not None:
            raise ValueError("`--accuracy-scale` applies to a results file, not to --example")
        extra["accuracy_scale"] = accuracy_scale
    if example is not None:
        table = load_example(example)
    else:
        if shape == "wide" and names is not None:
            extra["models"] = names  # the model columns, chosen when the file is read
        # reader-specific options (--metric, --filter, --split, --baselines) reach the reader only when given
        extra = {k: v for k, v in extra.items() if v is not None}
        options = dict(model_col=model_col, task_col=task_col, item_col=item_col, score_col=score_col,
                       trial_col=trial_col, cluster_col=cluster, group_col=group_col, unbounded=unbounded,
                       count_rule=count_rule, shape=shape, **extra)
        table = read(path, source=source, **options)
    if names is not None:
        table = table.select(models=names)
    if any(cli_message(n) != n for n in table.notes):  # notes that name API arguments (accuracy_scale=)
        table = copy.copy(table)  # a copy: an example table may be cached
        object.__setattr__(table, "notes", tuple(cli_message(n) for n in table.notes))
    return table


def resolve_seed(seed: int | None) -> tuple[int, str]:
    """``--seed``, or one integer seed drawn from OS entropy when it is not given, and how to name it in notes.

    Every run is then reproducible after the fact: the note prints the seed actually used, e.g.
    ``"seed 2840661375 (drawn; add --seed 2840661375 to reproduce)"``. The seed is drawn with :mod:`secrets`
    (operating-system entropy), never from NumPy's global state, and passed to the library as ``rng``.
    """
    if seed is not None:
        return seed, f"seed {seed}"
    import secrets

    drawn = secrets.randbits(32)
    return drawn, f"seed {drawn} (drawn; add --seed {drawn} to reproduce)"


@contextlib.contextmanager
def executor_for(scheduler: str | None):
    """``--scheduler``: yield an executor for the bootstrap engine (None when not given), closed afterwards."""
    if scheduler is None:
        yield None
        return
    from ..dist import dask_executor
    from ..resample import use_executor

    with dask_executor(scheduler) as executor, use_executor(executor):
        yield executor
