"""``python -m evalband``: the same command line as the ``evalband`` script."""

from evalband.cli.main import run

if __name__ == "__main__":
    run()
