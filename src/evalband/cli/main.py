"""The ``evalband`` command: a typer app with one sub-command per module in this package."""

from __future__ import annotations

import importlib

import typer
from typer.core import TyperGroup

from .. import __version__

#: command -> the module of evalband.cli that defines it (a function of the same name); one line per command.
#: A command's module is imported only when the command runs (or ``--help`` lists the commands), so
#: ``evalband --version`` and ``evalband COMMAND`` load no other command's code.
COMMANDS = {
    "summarize": "summarize",
    "passk": "passk",
    "bayes": "bayes",
    "compare": "compare",
    "rank": "rank",
    "ability": "ability",
    "items": "items",
    "subset": "subset",
    "plan": "plan",
    "gate": "gate",
    "variance": "variance",
    "arena": "arena",
    "agreement": "agreement",
    "frontier": "frontier",
    "report": "report",
}

#: settings shared by the app and each command's own typer wrapper
_SETTINGS = dict(add_completion=False, pretty_exceptions_enable=False,
                 rich_markup_mode=None,  # names and extras print as written: evalband[dist], [instruct]
                 context_settings={"max_content_width": 120})  # help fills the terminal up to 120 columns


class LazyGroup(TyperGroup):
    """The command group: commands listed from :data:`COMMANDS`, each built from its module on first use."""

    _loaded: dict = {}

    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        if name not in self._loaded:
            module = importlib.import_module(f"{__package__}.{COMMANDS[name]}")
            command = getattr(module, name)
            if isinstance(command, typer.Typer):  # a command group (subset choose / estimate)
                self._loaded[name] = typer.main.get_group(command)
            else:
                single = typer.Typer(**_SETTINGS)
                single.command(name)(command)
                self._loaded[name] = typer.main.get_command(single)
        return self._loaded[name]


def command_functions() -> dict:
    """Every command's function by name (imports every command module; for tests and documentation)."""
    return {name: getattr(importlib.import_module(f"{__package__}.{module}"), name) for name, module in COMMANDS.items()}


app = typer.Typer(
    cls=LazyGroup,
    name="evalband",
    help="Honest error bars for machine-learning evaluation results.",
    no_args_is_help=True,
    **_SETTINGS,
)


def _version(value: bool):
    if value:
        typer.echo(f"evalband {__version__}")
        raise typer.Exit()


def _debug(value: bool):
    if value:  # the one switch every command's error handler reads (evalband.cli._common.debug_enabled)
        import os

        os.environ["EVALBAND_DEBUG"] = "1"


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit."),
          debug: bool = typer.Option(False, "--debug", callback=_debug, is_eager=True,
                                     help="On an internal error, print the traceback (also EVALBAND_DEBUG=1).")):
    """Honest error bars for machine-learning evaluation results."""


def run() -> None:
    """Console-script entry point.

    Once the command has run, the process ends without tearing the interpreter down: the output is flushed and
    the exit handlers run (``atexit``), then the process exits with the command's status. A normal exit frees
    every object of pandas, numba and SciPy one by one, which the operating system makes unnecessary: 0.1-0.3 s of
    CPU per command, a fifth of ``evalband compare``'s and of ``evalband plan``'s (issue 27; mypy ends the same
    way). When a thread other than the main one is still running, or an exception other than the command's exit
    escapes (a bug, with its traceback), the process exits the usual way.
    """
    try:
        app()
    except SystemExit as exc:
        _exit_now(exc.code)
        raise


def _exit_now(code) -> None:
    """End the process with SystemExit's ``code`` (None: 0; a number; else a message printed on stderr, status
    1) after flushing the output and running the exit handlers; returns (for the usual exit) when a non-daemon
    thread is still alive or the interpreter has no ``atexit._run_exitfuncs``."""
    import atexit
    import os
    import sys
    import threading

    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_handlers is None or any(t.is_alive() and not t.daemon for t in threading.enumerate()
                                   if t is not threading.main_thread()):
        return
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    run_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (| head): Python's own exit status for it
            status = status or 120
    os._exit(status)


if __name__ == "__main__":  # python -m evalband.cli.main
    run()
