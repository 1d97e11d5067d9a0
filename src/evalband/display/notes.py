"""Notes as data: what the library says about a result (an assumption, what it left out, a caveat) as an object
with a stable code, its parameters and a severity, rendered to words here for each audience (issue 23).

A :class:`NoteKind` is declared once, in the module whose rule emits it (as an error message is written where its
check is)::

    CLUSTERS_IGNORED = NoteKind("resample.clusters-ignored", "caveat",
                                "clusters ignored ({arg:cluster=False}): items resampled as if independent")
    notes.append(CLUSTERS_IGNORED())

Calling the kind gives a :class:`Note`: a ``str`` (its text for the Python audience, so every use of notes as
strings keeps working: joining, de-duplicating, ``in``) that carries ``code``, ``severity`` and ``params``. A plain
``str`` is still accepted wherever a note is (notes written before the change, or on other branches): it renders
as itself and its record has ``"code": null``.

The template language
---------------------
``{name}``, ``{name:spec}``, ``{name!r}``
    A parameter, formatted as an f-string would (``{n:,}``, ``{rate:.2g}``).
``{arg:NAME}``
    An argument of the library call: ``NAME`` for Python, the option that sets it for the command line
    (``{arg:rng}`` -> ``--seed``, ``{arg:unit_col}`` -> ``--unit-col``). Backticks, where the sentence wants
    them, are written in the template (```{arg:n_resamples}```) and become ``<code>`` in HTML.
``{arg:NAME=VALUE}``
    An argument with a value: ``NAME=VALUE`` for Python, ``--option VALUE`` (quotes dropped) or the spelling the
    vocabulary gives (``cluster=False`` -> ``--cluster none``) for the command line. ``VALUE`` may hold
    parameters (``{arg:method='{method}'}``).
``{fn:dotted.name}``
    A library function: its name for Python, the command that does its work for the command line.
``{py:TEXT}``
    Words only the Python audience reads (a keyword beside an option the sentence already names:
    ``--models A,B{py: (models=)}``); the command line leaves them out. ``{cli:TEXT}``: words only the command
    line reads (``{py:say}{cli:give} {arg:accuracy_scale=}``).
``{{`` and ``}}``
    Literal braces.

The command line's words (option names, value spellings, commands) are its own: ``evalband.cli`` passes them as a
:class:`Vocabulary` to :func:`render`; this module knows no option.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from .._words import AUDIENCES, _PYTHON, Vocabulary, Words, _fill, placeholders  # noqa: F401

__all__ = ["Note", "NoteKind", "Vocabulary", "SEVERITIES", "AUDIENCES", "MARKUPS", "render", "record", "kinds",
           "placeholders", "json_with_notes"]

#: what a note says: an assumption made ('info'), something left out and counted ('excluded'), a reason the
#: result is less reliable ('caveat')
SEVERITIES = ("info", "excluded", "caveat")
MARKUPS = ("text", "markdown", "html", "latex")

_REGISTRY: dict[str, "NoteKind"] = {}


class Note(Words):
    """A note the library emits: a stable ``code``, its ``params``, a ``severity``; the str is the text for the
    Python audience (byte for byte what the library wrote before notes were data), so every use of notes as
    strings keeps working. :func:`render` gives the words for another audience or markup."""

    code: str
    severity: str
    params: Mapping
    kind: "NoteKind"

    def __new__(cls, kind: "NoteKind", params: Mapping):
        self = str.__new__(cls, _fill(kind.template, params, "python", _PYTHON))
        self.template = kind.template
        self.kind = kind
        self.code = kind.code
        self.severity = kind.severity
        self.params = MappingProxyType(dict(params))
        return self

    def __reduce__(self):  # pickling (Dask workers, caches): rebuilt from its kind and parameters
        return (_rebuild, (self.kind, dict(self.params)))

    def __repr__(self) -> str:
        return f"Note({self.code!r}, {str.__repr__(self)})"


def _rebuild(kind, params):
    return Note(kind, params)


@dataclass(frozen=True, eq=False)
class NoteKind:
    """One kind of note: a stable code (``'<package>.<what>'``), a severity (:data:`SEVERITIES`) and a template
    (the module's docstring gives its language). Declared once, next to the rule that emits it; calling it with
    the template's parameters gives a :class:`Note`.

    Examples
    --------
    >>> FEW = NoteKind("example.few-clusters", "caveat", "as few as {n} clusters; raise `{arg:n_resamples}`")
    >>> note = FEW(n=4)
    >>> note, note.code
    (Note('example.few-clusters', 'as few as 4 clusters; raise `n_resamples`'), 'example.few-clusters')
    >>> render(note, audience="cli", vocabulary=Vocabulary({"n_resamples": "--n-resamples"}))
    'as few as 4 clusters; raise `--n-resamples`'
    """

    code: str
    severity: str
    template: str

    def __post_init__(self):
        if self.severity not in SEVERITIES:
            raise ValueError(f"note {self.code!r}: severity must be one of {', '.join(SEVERITIES)}; got"
                             f" {self.severity!r}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*(\.[a-z0-9][a-z0-9-]*)+", self.code):
            raise ValueError(f"note code {self.code!r}: write '<package>.<words-with-dashes>'")
        _REGISTRY.setdefault(self.code, self)

    @property
    def params(self) -> tuple[str, ...]:
        """The parameters the template names, in order of first use."""
        return placeholders(self.template)

    def __call__(self, **params) -> Note:
        missing = [p for p in self.params if p not in params]
        if missing:
            raise TypeError(f"note {self.code!r} needs {', '.join(missing)}")
        return Note(self, params)

    def __hash__(self):
        return hash(self.code)


def kinds() -> dict[str, NoteKind]:
    """Every kind declared in the modules imported so far, by code (the first declaration of a code)."""
    return dict(_REGISTRY)


def render(note, *, audience: str = "python", markup: str = "text", vocabulary: Vocabulary | None = None) -> str:
    """A note's words for an audience (``'python'``: library arguments; ``'cli'``: the options of ``vocabulary``)
    in a markup (``'text'`` with backticks, ``'markdown'``, ``'html'`` with ``<code>``, ``'latex'``). A plain
    ``str`` note renders as itself (escaped for the markup)."""
    if audience not in AUDIENCES:
        raise ValueError(f"`audience` must be one of {', '.join(AUDIENCES)}; got {audience!r}")
    if markup not in MARKUPS:
        raise ValueError(f"`markup` must be one of {', '.join(MARKUPS)}; got {markup!r}")
    if isinstance(note, Words) and audience != "python":
        text = _fill(note.template, note.params, audience, vocabulary or _PYTHON)
    else:
        text = str.__str__(note)
    if markup == "text":
        return text
    from .escape import html_escape, latex_escape, md_escape

    if markup == "html":
        return re.sub(r"`([^`<>]+)`", r"<code>\1</code>", html_escape(text))
    if markup == "latex":
        return re.sub(r"`([^`]+)`", r"\\texttt{\1}", latex_escape(text.replace("`", "\0")).replace("\0", "`"))
    return md_escape(text)


def _json_value(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_value(v) for v in value]
    try:  # NumPy scalars
        return _json_value(value.item())
    except (AttributeError, ValueError):
        return str(value)


def record(note, *, audience: str = "cli", vocabulary: Vocabulary | None = None, text: str | None = None) -> dict:
    """A note as a JSON record: ``{"code", "severity", "text", "params"}`` (``code`` and ``severity`` null for a
    plain ``str`` note). ``text`` replaces the rendered words (a caller that words plain notes its own way)."""
    structured = isinstance(note, Note)
    return {"code": note.code if structured else None, "severity": note.severity if structured else None,
            "text": text if text is not None else render(note, audience=audience, vocabulary=vocabulary),
            "params": _json_value(dict(note.params)) if structured else {}}


def json_with_notes(text: str, records) -> str:
    """JSON output with its notes: a bare array of records becomes ``{"records": [...], "notes": [...]}``; an
    object gains a ``"notes"`` key at its end. The records' bytes are kept (only indented one level, as
    ``json.dumps(indent=2)`` nests them), so a script reads ``out["records"]`` exactly as it read the array."""
    from .plain import json_dumps

    notes = _indent(json_dumps(list(records)))
    body = text.rstrip("\n")
    if body.lstrip().startswith("["):
        return "{\n  \"records\": " + _indent(body.strip()) + ",\n  \"notes\": " + notes + "\n}"
    if not body.endswith("}"):
        raise ValueError("JSON output must be an array or an object")
    inner = body[:-1].rstrip()
    sep = "" if inner.endswith("{") else ","
    return inner + sep + "\n  \"notes\": " + notes + "\n}"


def _indent(text: str) -> str:
    return text.replace("\n", "\n  ")
