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
            single = typer.Typer(**_SETTINGS)
            single.command(name)(getattr(module, name))
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
    from ._common import forget_names

    forget_names()  # names the user supplied are protected per command (cli._common.protect_names)


def run() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # python -m evalband.cli.main
    run()
