"""A progress bar that appears only when the work takes more than about a second and stderr is a terminal."""

from __future__ import annotations

import sys
import time

__all__ = ["track"]

#: show the bar when the estimated total time exceeds this many seconds
THRESHOLD_SECONDS = 1.0


def _is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def track(results, total: int, *, progress=None, description: str = "bootstrap"):
    """Yield from ``results`` (an iterator of ``total`` items), drawing a rich bar when worthwhile.

    ``progress=None`` (auto): a bar once the estimated total time exceeds :data:`THRESHOLD_SECONDS` and stderr is
    a terminal; ``True``: always (on stderr); ``False``: never.
    """
    if progress is False or total <= 1 and progress is None:
        yield from results
        return
    if progress is None and not _is_terminal():
        yield from results
        return
    start = time.perf_counter()
    bar = task = None
    done = 0
    try:
        for item in results:
            done += 1
            if bar is None:
                elapsed = time.perf_counter() - start
                if progress is True or (done < total and elapsed / done * total > THRESHOLD_SECONDS):
                    from rich.console import Console
                    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

                    bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/"
                                   "{task.total}"), TimeRemainingColumn(), console=Console(stderr=True),
                                   transient=True)
                    bar.start()
                    task = bar.add_task(description, total=total, completed=done)
            else:
                bar.update(task, completed=done)
            yield item
    finally:
        if bar is not None:
            bar.stop()
