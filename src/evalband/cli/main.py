"""The ``evalband`` command: a typer app with one sub-command per module in this package."""

from __future__ import annotations

import typer

from .. import __version__

app = typer.Typer(
    name="evalband",
    help="Honest error bars for machine-learning evaluation results.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # names and extras print as written: evalband[dist], [instruct]
    context_settings={"max_content_width": 120},  # help fills the terminal up to 120 columns
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


# one line per command module: each registers its own function
from . import summarize as _summarize  # noqa: E402

app.command("summarize")(_summarize.summarize)
from . import passk as _passk  # noqa: E402

app.command("passk")(_passk.passk)
from . import bayes as _bayes  # noqa: E402

app.command("bayes")(_bayes.bayes)

from . import compare as _compare  # noqa: E402

app.command("compare")(_compare.compare)
from . import rank as _rank  # noqa: E402

app.command("rank")(_rank.rank)
from . import plan as _plan  # noqa: E402

app.command("plan")(_plan.plan)
from . import gate as _gate  # noqa: E402

app.command("gate")(_gate.gate)

from . import variance as _variance  # noqa: E402

app.command("variance")(_variance.variance)
from . import report as _report  # noqa: E402
from . import arena as _arena  # noqa: E402

app.command("arena")(_arena.arena)

app.command("report")(_report.report)
from . import frontier as _frontier  # noqa: E402

app.command("frontier")(_frontier.frontier)


def run() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # python -m evalband.cli.main
    run()
