"""Writing files safely, for every writer of evalband (reports, figures).

* An output never replaces an input: ``evalband report results.csv -o results.csv`` is refused (whatever the
  spelling of the path: relative, absolute, through a symbolic link or a hard link), even with ``--force``.
* Writing goes to a temporary file in the same folder, which is then renamed into place, so a crash never
  leaves a half-written report, and the old file stays whole until the new one is complete.
* An output that is a symbolic link is written (its target replaced) only with ``force``; otherwise the link
  and its target are left alone.
* Figure files already in a figures folder are overwritten only with ``force``.

Each refusal is an :class:`~evalband.ArgumentError` (a ValueError) of one line naming the option and the path.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from ._validate import ArgumentError

__all__ = ["check_output", "check_figures", "write_atomic"]


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _input_clash(target: Path, inputs) -> Path | None:
    for p in inputs:
        if _same_file(target, Path(p)):
            return Path(p)
    return None


def check_output(path, *, inputs=(), force: bool = False, option: str = "-o", what: str = "the report") -> Path:
    """The file to write for output ``path``, after the safety rules; raises ValueError (one line) otherwise.

    Parameters
    ----------
    path : str or os.PathLike
        The output as given.
    inputs : sequence of path
        Files read by the run (see :func:`input_files`); an output that is one of them is refused.
    force : bool
        Write through a symbolic link (replacing its target).
    option : str
        How the user named the output, for messages ('-o', '--figures').

    Returns
    -------
    pathlib.Path
        The path to write: ``path`` itself, or the link's target when ``path`` is a symbolic link and ``force``.
    """
    target = Path(path)
    clash = _input_clash(target, inputs) if target.exists() else None
    if clash is not None:
        raise ArgumentError(f"`{option} {path}` is an input of this run ({clash}); writing {what} there would destroy"
                         " it: choose another file name")
    if target.is_symlink():
        real = Path(os.path.realpath(target))
        if not force:
            raise ArgumentError(f"`{option} {path}` is a symbolic link to {real}; writing would replace that file:"
                             " give --force to write through the link, or choose another file name")
        return real
    return target


def check_figures(directory, names, *, inputs=(), force: bool = False) -> None:
    """Refuse to overwrite figure files ``names`` already in ``directory`` (unless ``force``), and always refuse
    one that is an input of the run."""
    folder = Path(directory)
    present = [n for n in names if (folder / n).exists() or (folder / n).is_symlink()]
    for n in present:
        clash = _input_clash(folder / n, inputs)
        if clash is not None:
            raise ArgumentError(f"`--figures {directory}` would overwrite {n}, an input of this run ({clash}); choose"
                             " another folder")
    if present and not force:
        shown = ", ".join(present[:4]) + (f" and {len(present) - 4} more" if len(present) > 4 else "")
        raise ArgumentError(f"`--figures {directory}` already holds {len(present)} of the figure files ({shown});"
                         " give --force to overwrite them, or choose another folder")


def write_atomic(path, data, *, encoding: str = "utf-8") -> None:
    """Write ``data`` (str or bytes) to ``path`` through a temporary file in the same folder, renamed into place
    (the old file, if any, keeps its permissions; nothing half-written is ever left under ``path``)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    payload = data.encode(encoding) if isinstance(data, str) else bytes(data)
    if path.exists():
        mode = path.stat().st_mode & 0o777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
