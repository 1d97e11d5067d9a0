"""Progress on long work, on a terminal only: a bar with a percentage for work in counted steps (:func:`track`,
the bootstrap's chunks; :func:`counter`, steps reported as they happen, such as MCMC iterations from inside
compiled code) and a spinner line for a step of unknown length (:func:`status`: reading a large file, a report section,
drawing figures, MCMC). Nothing is drawn unless stderr is a terminal, and a line appears only once its work has
run for :data:`THRESHOLD_SECONDS`, so quick commands print nothing extra; every line disappears when its work
ends (the output a user keeps holds results only).

All lines share one live display (rich allows one at a time), started by the first user and stopped by the last,
so a bootstrap inside a report section shows its bar under the section's line.
"""

from __future__ import annotations

import contextlib
import sys
import threading

__all__ = ["track", "status", "counter", "THRESHOLD_SECONDS"]

#: a line appears once its work has run this long (seconds)
THRESHOLD_SECONDS = 1.0

_display = None  # the shared rich Progress while some work is tracked
_users = 0


def _is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _wanted(progress) -> bool:
    return progress is True or (progress is None and _is_terminal())


def _acquire(always: bool):
    """The shared display, started on first use."""
    global _display, _users
    if _display is None:
        from rich.console import Console
        from rich.progress import (BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn,
                                   TimeRemainingColumn)

        class _Delayed(Progress):
            """Shows a task only once it has run THRESHOLD_SECONDS (or at once when asked to)."""

            def get_renderables(self):
                shown = [t for t in self.tasks if t.visible and (t.fields.get("always") or
                                                                 (t.elapsed or 0.0) >= THRESHOLD_SECONDS)]
                yield self.make_tasks_table(shown)

        _display = _Delayed(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                            TextColumn("{task.fields[count]}"), TimeRemainingColumn(),
                            console=Console(stderr=True), transient=True)
        _display.start()
    _users += 1
    return _display


def _release() -> None:
    global _display, _users
    _users -= 1
    if _users <= 0 and _display is not None:
        _display.stop()
        _display, _users = None, 0


def track(results, total: int, *, progress=None, description: str = "bootstrap"):
    """Yield from ``results`` (an iterator of ``total`` items), with a bar on a terminal once it has run a second.

    ``progress=None`` (auto): on a terminal; ``True``: always (on stderr, shown at once); ``False``: never.
    """
    if progress is False or (total <= 1 and progress is None) or not _wanted(progress):
        yield from results
        return
    display = _acquire(progress is True)
    task = display.add_task(description, total=total, count=f"0/{total}", always=progress is True)
    done = 0
    try:
        for item in results:
            done += 1
            display.update(task, completed=done, count=f"{done}/{total}")
            yield item
    finally:
        display.remove_task(task)
        _release()


@contextlib.contextmanager
def status(description: str, *, progress=None):
    """A spinner line saying what is being done (``'reading results.csv'``), shown on a terminal once the work
    has run a second and removed when it ends; ``progress`` as in :func:`track`.

    Examples
    --------
    >>> with status("reading results.csv"):
    ...     pass
    """
    if progress is False or not _wanted(progress):
        yield
        return
    display = _acquire(progress is True)
    task = display.add_task(description, total=None, count="", always=progress is True)
    try:
        yield
    finally:
        display.remove_task(task)
        _release()


@contextlib.contextmanager
def counter(description: str, total: int, *, progress=None):
    """A bar with a percentage for work whose steps are reported as they happen: yields ``advance(n=1)``, which
    may be called from any thread (JAX calls a host callback from its own threads); ``progress`` as in
    :func:`track`. Off a terminal ``advance`` does nothing.

    Examples
    --------
    >>> with counter("MCMC", 10) as advance:
    ...     for _ in range(10):
    ...         advance()
    """
    if progress is False or total <= 0 or not _wanted(progress):
        yield lambda n=1: None
        return
    display = _acquire(progress is True)
    task = display.add_task(description, total=total, count=f"0/{total:,}", always=progress is True)
    lock = threading.Lock()
    done, open_ = [0], [True]

    def advance(n=1):  # never raises: it may run in a callback of a computation that outlives the block
        with lock:
            if open_[0]:
                done[0] = min(done[0] + int(n), total)
                display.update(task, completed=done[0], count=f"{done[0]:,}/{total:,}")

    try:
        yield advance
    finally:
        with lock:
            open_[0] = False
            display.remove_task(task)
        _release()
