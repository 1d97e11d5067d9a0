"""How the command line says what the library says: its words for the library's arguments, values and
functions (:func:`cli_vocabulary`), notes in those words and as JSON records (:func:`note_text`,
:func:`note_records`), and errors as one line on stderr with an exit code (:func:`errors`, :func:`error_text`,
:func:`fail`). The commands import these names through :mod:`evalband.cli._common`."""

from __future__ import annotations

import contextlib
import os

import typer

from .._validate import USER_ERRORS


def fail(message: str, code: int = 2):
    """Print one line to stderr and exit with ``code``."""
    typer.echo(f"evalband: error: {message}", err=True)
    raise typer.Exit(code)


#: Library argument -> the CLI option that sets it, for messages raised below the CLI (the library names its
#: own arguments); a command adds its own with ``errors(method="--interval")``.
CLI_NAMES = {"rng": "--seed", "missing": "--missing", "n_resamples": "--n-resamples", "confidence_level": "--confidence",
             "name": "--aggregate", "aggregate": "--aggregate", "method": "--method", "correction": "--correction",
             "resampling": "--resampling", "margin": "--margin", "weights": "--weights", "group_weights": "--weights",
             "models": "--models", "test": "--test", "prior": "--prior", "accuracy_scale": "--accuracy-scale",
             "drop_cols": "--drop-cols", "clusters": "--clusters", "tasks": "--tasks", "fixed": "--fixed",
             "ppi": "--ppi", "cluster_col": "--cluster", "facets": "--facets", "split": "--split",
             "metric": "--metric", "filter": "--filter", "baselines": "--baselines", "shape": "--shape",
             "source": "--source", "count_rule": "--count-rule", "rope": "--rope", "control": "--control",
             "unbounded": "--unbounded", "loss": "--loss", "uncertainty": "--uncertainty"}
#: Aggregates whose parameter the CLI gives after a colon, with an example of the syntax.


#: Library functions named in messages -> what a command-line user runs instead
CLI_COMMANDS = {"evalband.estimation.trial_variance": "`evalband summarize` (its var_between and var_within"
                " columns) or `evalband plan`"}


#: (argument, value) -> the phrase a command-line user gives for that setting
CLI_VALUES = {("cluster", "False"): "--cluster none",
              ("resampling", "'binomial'"): "--resampling independent, or leave it at auto",
              ("accuracy_scale", ""): "--accuracy-scale fraction or percent"}


class _Flags(dict):
    """Library argument -> option: the names above, and every ``<role>_col`` as ``--<role>-col``."""

    def __missing__(self, key):
        if key.endswith("_col") and len(key) > 4:
            return "--" + key.replace("_", "-")
        raise KeyError(key)

    def __contains__(self, key):
        return dict.__contains__(self, key) or (key.endswith("_col") and len(key) > 4)


def cli_vocabulary(**options):
    """The command line's words for the notes the library emits (:func:`evalband.display.notes.render`): the
    options of :data:`CLI_NAMES` (and ``options``, a command's own: ``method="--interval"``), the value
    spellings of :data:`CLI_VALUES`, the commands of :data:`CLI_COMMANDS`."""
    from ..display.notes import Vocabulary

    return Vocabulary(_Flags({**CLI_NAMES, **options}), CLI_VALUES, CLI_COMMANDS)


def note_text(note, options: dict | None = None) -> str:
    """A note in command-line words: a note or message written in the template language
    (:class:`evalband._words.Words`; a :class:`evalband.display.notes.Note` is one) said with the command line's
    options (``options``: this command's own names, ``method="--interval"``); a plain ``str`` as written."""
    from .._words import Words
    from ..display.notes import render

    if isinstance(note, _Said):
        return note
    if isinstance(note, Words):
        return _Said(render(note, audience="cli", vocabulary=cli_vocabulary(**(options or {}))), note)
    return note


class _Said(str):
    """A note already in command-line words (:func:`note_text`), keeping the note it says (its code and
    parameters for the JSON records)."""

    def __new__(cls, text: str, note):
        self = super().__new__(cls, text)
        self.note = note
        return self


def note_records(notes, options: dict | None = None) -> list[dict]:
    """The notes as JSON records (``{"code", "severity", "text", "params"}``), each once, in CLI words, as
    :func:`evalband.display.layout.wrap_notes` shows them on stderr (a note on one line)."""
    from ..display import one_line
    from ..display.notes import record

    out, seen = [], set()
    for n in notes:
        if not n or not str(n).strip():
            continue
        text = one_line(note_text(n, options))
        if text in seen:
            continue
        seen.add(text)
        out.append(record(getattr(n, "note", n), text=str.__str__(text)))
    return out


#: where to report a bug
ISSUES_URL = "https://github.com/evalband/evalband/issues"


def debug_enabled() -> bool:
    """``--debug`` (before the command) or ``EVALBAND_DEBUG=1``: show the traceback of an internal error."""
    return os.environ.get("EVALBAND_DEBUG", "").strip().lower() not in ("", "0", "false", "no")


@contextlib.contextmanager
def errors(**options):
    """Turn a user's mistake into one line on stderr and exit code 2; report anything else as a bug.

    User mistakes are the library's own input and argument errors (:data:`evalband._validate.USER_ERRORS`:
    bad data naming file, row and column; an argument out of range; a missing optional extra) and operating-
    system errors (a missing or unwritable file). Any other exception is a bug in evalband: one line says so and
    how to report it, exit code 1; with ``--debug`` (or ``EVALBAND_DEBUG=1``) the traceback follows.

    ``options`` maps a library argument to the option that sets it in this command (``method="--interval"``), so
    that the message names what the user typed (see :func:`error_text`).
    """
    try:
        yield
    except typer.Exit:
        raise
    except (*USER_ERRORS, OSError) as exc:  # OSError: files, folders, permissions
        fail(error_text(exc, options))
    except KeyboardInterrupt:
        typer.echo("evalband: interrupted", err=True)
        raise typer.Exit(130) from None
    except Exception as exc:  # noqa: BLE001 - the last resort: say it is a bug, never pass it off as usage
        if debug_enabled():
            import traceback

            traceback.print_exc()
        first = str(exc).splitlines()[0] if str(exc) else ""
        typer.echo(f"evalband: internal error ({type(exc).__name__}{': ' + first[:200] if first else ''}). This is a"
                   f" bug in evalband, not in your input: please report it at {ISSUES_URL} with the command line"
                   + ("" if debug_enabled() else " and the traceback that --debug (or EVALBAND_DEBUG=1) prints"),
                   err=True)
        raise typer.Exit(1) from None


def error_text(exc: BaseException, options: dict | None = None) -> str:
    """A user error's first line in the command line's words: a message written as
    :class:`evalband._words.Words` says its arguments as the options that set them (``options``: this command's
    own names, ``method="--interval"``); the file, row and column an :class:`InputError` names, and any plain
    message, are printed as written."""
    from .._validate import InputError
    from .._words import say

    vocabulary = cli_vocabulary(**(options or {}))
    if isinstance(exc, InputError):
        problem = say(exc.problem, audience="cli", vocabulary=vocabulary)
        text = f"{exc.where}: {problem}" if exc.where else problem
    else:
        message = exc.args[0] if len(exc.args) == 1 else str(exc)
        text = say(message, audience="cli", vocabulary=vocabulary) if isinstance(message, str) else str(exc)
    return text.splitlines()[0] if text.strip() else type(exc).__name__
