"""Argument checks shared by every public function.

All checks live here (as SciPy keeps them in ``_bootstrap_iv``) so that each error names the argument in
backticks and says what was received. Data errors about a file, row or column use :class:`InputError`.
"""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING
from ._words import words

if TYPE_CHECKING:  # numpy is imported where it is used, so that the command line starts fast
    import numpy as np


__all__ = [
    "require_extra",
    "renamed",
    "no_other_keywords",
    "InputError",
    "ArgumentError",
    "ArgumentTypeError",
    "closest_name",
    "MissingExtraError",
    "USER_ERRORS",
    "as_generator",
    "check_alternative",
    "check_confidence_level",
    "check_choice",
    "check_positive_int",
    "check_probability",
    "OVERLAP_CONFIDENCE",
]

#: Confidence level at which two independent, equally precise intervals that just touch correspond to a
#: two-sided test at about alpha = 0.05 (Goldstein & Healy 1995). Offered by name as ``"overlap"``.
OVERLAP_CONFIDENCE = 0.834

_ALTERNATIVES = ("two-sided", "less", "greater")


class ArgumentError(ValueError):
    """An argument of a public function has a value evalband cannot use; the message names it in backticks and
    says what was received. The command line prints it as one line (a user's mistake, not a bug)."""


class ArgumentTypeError(TypeError):
    """An argument of a public function has a type evalband cannot use (see :class:`ArgumentError`)."""


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message says which extra to install
    (``pip install 'evalband[report]'``)."""


def require_extra(module: str, *, extra: str, what: str, name: str | None = None):
    """Import ``module`` or raise :class:`MissingExtraError` saying ``what`` needs it and which extra installs it.

    Examples
    --------
    >>> require_extra("json", extra="dist", what="reading JSON").__name__
    'json'
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(f"{what} needs {name or module}: pip install 'evalband[{extra}]'") from None


class InputError(ArgumentError):
    """Bad input data: the message names the source, and where known the row and column.

    Parameters
    ----------
    problem : str
        What is wrong, in one line.
    source : str, optional
        File name (or ``"<DataFrame>"``).
    row : int or str, optional
        The row as the user sees it (a file line number, or a DataFrame row label).
    column : str, optional
        The column involved.
    """

    def __init__(self, problem: str, *, source: str | None = None, row=None, column: str | None = None):
        self.problem = problem
        self.source = source
        self.row = row
        self.column = column
        where = []
        if source:
            where.append(str(source))
        if row is not None:
            where.append(f"row {row}" if not isinstance(row, str) else row)
        if column is not None:
            where.append(f"column '{column}'")
        self.where = ", ".join(where)
        super().__init__(f"{self.where}: {problem}" if self.where else problem)

    def __reduce__(self):  # pickled (a Dask worker's error): rebuilt with its parts, its problem in words kept
        return (_input_error, (type(self), self.problem, self.source, self.row, self.column))


def _input_error(cls, problem, source, row, column):
    return cls(problem, source=source, row=row, column=column)


#: the exceptions that are a user's mistake (one line, exit 2 on the command line); anything else is a bug
USER_ERRORS = (ArgumentError, ArgumentTypeError, MissingExtraError)


def as_generator(rng) -> np.random.Generator:
    """Turn ``rng`` into a :class:`numpy.random.Generator` once, so it can be passed down.

    Accepts ``None`` (fresh OS entropy), an int seed, a :class:`numpy.random.SeedSequence`, a
    :class:`numpy.random.BitGenerator` or a Generator (returned unchanged). The legacy
    :class:`numpy.random.RandomState` is refused because it would tie results to the global state API.
    """
    import numpy as np

    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.RandomState):
        raise ArgumentTypeError(words('`{arg:rng}` must be a numpy.random.Generator, a seed or None; RandomState is not supported.'))
    if isinstance(rng, bool) or (rng is not None and isinstance(rng, float)):
        raise ArgumentTypeError(words('`{arg:rng}` must be an integer seed, a Generator or None; got {rng!r}.', rng=rng))
    if isinstance(rng, (int, np.integer)) and rng < 0:
        raise ArgumentError(words('`{arg:rng}`{py: seed} must be a non-negative integer; got {rng}.', rng=int(rng)))
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise ArgumentTypeError(words('`{arg:rng}` must be an integer seed, a Generator or None; got {rng!r}.', rng=rng)) from exc


def check_confidence_level(confidence_level, name: str = "confidence_level") -> float:
    """Return the confidence level as a float in (0, 1).

    ``"overlap"`` (or ``"83.4%"``) gives :data:`OVERLAP_CONFIDENCE`; a string such as ``"95%"`` is read as a
    percent. Values in (1, 100) given as numbers are refused, so that 95 is never silently read as 0.95.
    """
    value = confidence_level
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "overlap":
            return OVERLAP_CONFIDENCE
        try:
            value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise ArgumentError(
                words("`{arg:{name}}` must be a number in (0, 1), a percent such as '95%', or 'overlap'; got {confidence_level!r}.", name=name, confidence_level=confidence_level)
            ) from None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(words('`{arg:{name}}` must be a number in (0, 1); got {confidence_level!r}.', name=name, confidence_level=confidence_level))
    value = float(value)
    if not 0.0 < value < 1.0:
        raise ArgumentError(words('`{arg:{name}}` must lie strictly between 0 and 1; got {confidence_level!r}.', name=name, confidence_level=confidence_level))
    return value


def check_probability(value, name: str, *, open_interval: bool = True) -> float:
    """Return ``value`` as a float probability, in (0, 1) or [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(words('`{arg:{name}}` must be a number; got {value!r}.', name=name, value=value))
    value = float(value)
    ok = 0.0 < value < 1.0 if open_interval else 0.0 <= value <= 1.0
    if not ok:
        bounds = "(0, 1)" if open_interval else "[0, 1]"
        raise ArgumentError(words('`{arg:{name}}` must lie in {bounds}; got {value!r}.', name=name, bounds=bounds, value=value))
    return value


def check_alternative(alternative: str) -> str:
    """Return ``alternative`` if it is one of 'two-sided', 'less', 'greater'."""
    if alternative not in _ALTERNATIVES:
        raise ArgumentError(f"`alternative` must be one of {', '.join(map(repr, _ALTERNATIVES))}; got {alternative!r}.")
    return alternative


def check_choice(value, choices: Iterable[str], name: str) -> str:
    """Return ``value`` (lower-cased, '_' read as '-') if it is a valid choice; the error lists the valid ones."""
    choices = tuple(choices)
    if not isinstance(value, str):
        raise ArgumentTypeError(words('`{arg:{name}}` must be one of {value}; got {value2!r}.', name=name, value=', '.join(map(repr, choices)), value2=value))
    key = value.strip().lower().replace("_", "-")
    lookup = {c.lower().replace("_", "-"): c for c in choices}
    if key not in lookup:
        raise ArgumentError(words('`{arg:{name}}` must be one of {value}; got {value2!r}.', name=name, value=', '.join(map(repr, choices)), value2=value))
    return lookup[key]


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ArgumentTypeError(words('`{arg:{name}}` must be an integer >= {minimum}; got {value!r}.', name=name, minimum=minimum, value=value))
    value = int(value)
    if value < minimum:
        raise ArgumentError(words('`{arg:{name}}` must be an integer >= {minimum}; got {value!r}.', name=name, minimum=minimum, value=value))
    return value


def closest_name(name, names) -> str | None:
    """The name among ``names`` closest to ``name`` (a typo's likely meaning, by :mod:`difflib`; a name equal but
    for case first), or None when none is close."""
    names = [str(n) for n in names]
    folded = {n.casefold(): n for n in names}
    key = str(name).casefold()
    if key in folded:
        return folded[key]
    match = difflib.get_close_matches(key, list(folded), n=1, cutoff=0.6)
    return folded[match[0]] if match else None


def check_names(selected: Sequence[str] | None, available: Sequence[str], name: str) -> list[str]:
    """Return the selected labels in the order given, each checked against ``available``."""
    if selected is None:
        return list(available)
    if isinstance(selected, str):
        selected = [s.strip() for s in selected.split(",") if s.strip()]
    selected = list(selected)
    known = set(available)
    unknown = [s for s in selected if s not in known]
    if unknown:
        shown = ", ".join(map(repr, list(available)[:12])) + (" ..." if len(available) > 12 else "")
        split = [a for a in available if "," in str(a)
                 and all(part.strip() in unknown for part in str(a).split(",") if part.strip())]
        hint = (f" A name holding commas is quoted as in CSV: '\"{split[0]}\"' (or listed in @FILE, one per line)."
                if split else "")
        close = [c for c in (closest_name(u, available) for u in unknown) if c]
        meant = f" (did you mean {', '.join(map(repr, close))}?)" if close and not split else ""
        raise ArgumentError(words('`{arg:{name}}`: unknown {value}{meant}; available: {shown}.{hint}', name=name, value=', '.join(map(repr, unknown)), meant=meant, shown=shown, hint=hint))
    if len(set(selected)) != len(selected):
        raise ArgumentError(words('`{arg:{name}}` lists a name twice: {selected!r}.', name=name, selected=selected))
    return selected


#: a keyword left unset (a deprecated alias not given)
UNSET = object()


def renamed(kwargs: dict, *, old: str, new: str, function: str, value=UNSET, convert=None, default=UNSET):
    """A keyword renamed in 0.2 (issue 23), kept one release: pop ``old`` from ``kwargs`` (the function's
    ``**deprecated``), warn ``DeprecationWarning`` naming the new keyword, and return the value for ``new``
    (``convert(old value)`` when given). Without ``old``, return ``value``. Giving both is an error, unless
    ``value`` is still ``default`` (the new keyword left at its default).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     renamed({"level": "task"}, old="level", new="scope", function="pairwise_differences",
    ...             value="aggregate", default="aggregate")
    'task'
    >>> str(caught[0].message)
    '`pairwise_differences(level=)` is deprecated (removed in the next release); use `scope=`'
    """
    if old not in kwargs:
        return value
    given = kwargs.pop(old)
    import warnings

    if value is not UNSET and (default is UNSET or value is not default and value != default):
        raise ArgumentError(words('`{arg:{old}}` is the old name of `{arg:{new}}` in {function}(); give only `{arg:{new}}`.', old=old, new=new, function=function))
    warnings.warn(f"`{function}({old}=)` is deprecated (removed in the next release); use `{new}=`",
                  DeprecationWarning, stacklevel=3)
    return convert(given) if convert is not None else given


def no_other_keywords(kwargs: dict, function: str) -> None:
    """Refuse what is left of a function's ``**deprecated`` once its renamed keywords are popped, as Python
    refuses an unknown keyword."""
    if kwargs:
        raise TypeError(f"{function}() got an unexpected keyword argument {next(iter(kwargs))!r}")
