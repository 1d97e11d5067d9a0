"""Messages in words for more than one audience: the template language of notes (:mod:`evalband.display.notes`)
and error messages (issue 23). A shared helper: no evalband imports.

A message is written once, where its rule is, with the arguments it names marked (``{arg:n_resamples}``); a
:class:`Words` is a ``str`` (the text for the Python audience, so ``str(exc)`` and ``in`` keep working) that
keeps its template and parameters, so that the command line can say the same sentence with its options
(``--n-resamples``) without rewriting prose. The template language is described in :mod:`evalband.display.notes`;
the command line's vocabulary lives in ``evalband.cli``.

Examples
--------
>>> message = words("`{arg:n_resamples}` must be >= 1; got {value!r}", value=0)
>>> message
Words('`n_resamples` must be >= 1; got 0')
>>> say(message, audience="cli", vocabulary=Vocabulary({"n_resamples": "--n-resamples"}))
'`--n-resamples` must be >= 1; got 0'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

__all__ = ["Words", "words", "concat", "say", "Vocabulary", "placeholders", "AUDIENCES"]

AUDIENCES = ("python", "cli")

_PARAM = r"\{\w+(?:![rsa])?(?::[^{}]*)?\}"
#: one token of a template: literal braces, {arg:...} / {fn:...} (whose text may hold parameters), a parameter
_TOKEN = re.compile(r"\{\{|\}\}|\{(arg|fn|py|cli):((?:[^{}]|" + _PARAM + r")*)\}|\{(\w+)(?:!([rsa]))?(?::([^{}]*))?\}")


@dataclass(frozen=True)
class Vocabulary:
    """An audience's words for the arguments and functions a note names (the command line's live in ``cli/``).

    ``names``: argument -> option (a mapping; it may answer names it does not list, as ``*_col``);
    ``values``: ``(argument, value)`` -> the whole phrase for that setting; ``functions``: dotted name -> what
    the audience runs instead."""

    names: Mapping = field(default_factory=dict)
    values: Mapping = field(default_factory=dict)
    functions: Mapping = field(default_factory=dict)

    def with_names(self, **names) -> "Vocabulary":
        """This vocabulary with some arguments named otherwise (a command's own: ``method="--interval"``)."""
        if not names:
            return self
        merged = type(self.names)(self.names) if isinstance(self.names, dict) else dict(self.names)
        merged.update(names)
        return Vocabulary(merged, self.values, self.functions)


_PYTHON = Vocabulary()


def placeholders(template: str) -> tuple[str, ...]:
    """The parameter names of a template, in order of first use (those inside ``{arg:...}`` too)."""
    out: list[str] = []
    for m in _TOKEN.finditer(template):
        if m.group(3):
            out.append(m.group(3))
        elif m.group(1) in ("arg", "py", "cli"):
            out += [p.group(3) for p in _TOKEN.finditer(m.group(2)) if p.group(3)]
    return tuple(dict.fromkeys(out))


def _param(value, conversion, spec) -> str:
    if conversion == "r":
        value = repr(value)
    elif conversion == "a":
        value = ascii(value)
    elif conversion == "s":
        value = str(value)
    return format(value, spec or "")


def _fill(template: str, params: Mapping, audience: str, vocabulary: Vocabulary) -> str:
    def token(m):
        whole = m.group(0)
        if whole in ("{{", "}}"):
            return whole[0]
        if m.group(3):
            value = params[m.group(3)]
            if isinstance(value, Words) and not m.group(4) and not m.group(5) and audience != "python":
                return _fill(value.template, value.params, audience, vocabulary)  # a message said in its words
            return _param(value, m.group(4), m.group(5))
        body = _fill(m.group(2), params, audience, vocabulary)
        if m.group(1) in ("py", "cli"):
            return body if (audience == "python") == (m.group(1) == "py") else ""
        if m.group(1) == "fn":
            return vocabulary.functions.get(body, body) if audience == "cli" else body
        return _argument(body, vocabulary) if audience == "cli" else body

    return _TOKEN.sub(token, template)


def _argument(body: str, vocabulary: Vocabulary) -> str:
    name, eq, value = body.partition("=")
    if eq and (name, value) in vocabulary.values:
        return vocabulary.values[(name, value)]
    if name not in vocabulary.names:
        return body
    option = vocabulary.names[name]
    if not eq:
        return option
    value = value.strip("'\"")
    return f"{option} {value}" if value else option


class Words(str):
    """A message in the template language: the ``str`` is its text for the Python audience; ``template`` and
    ``params`` let :func:`say` word it for another audience."""

    template: str
    params: Mapping

    def __new__(cls, template: str, params: Mapping):
        self = super().__new__(cls, _fill(template, params, "python", _PYTHON))
        self.template = template
        self.params = MappingProxyType(dict(params))
        return self

    def __reduce__(self):  # pickling (Dask workers, multiprocessing)
        return (type(self), (self.template, dict(self.params)))

    def __repr__(self) -> str:
        return f"Words({str.__repr__(self)})"


def words(template: str, /, **params) -> Words:
    """A message from a template and its parameters (every parameter the template names must be given).

    Examples
    --------
    >>> words("raise `{arg:n_resamples}` above {n:,}", n=2000)
    Words('raise `n_resamples` above 2,000')
    """
    missing = [p for p in placeholders(template) if p not in params]
    if missing:
        raise TypeError(f"message {template!r} needs {', '.join(missing)}")
    return Words(template, params)


def concat(*pieces) -> Words:
    """Messages and plain text one after another as one message (each message keeps its words for every
    audience; plain text is said as written).

    Examples
    --------
    >>> text = concat("4 rows. ", words("say `{arg:n_resamples}`"))
    >>> say(text, audience="cli", vocabulary=Vocabulary({"n_resamples": "--n-resamples"}))
    '4 rows. say `--n-resamples`'
    """
    template, params = [], {}
    for k, piece in enumerate(pieces):
        if isinstance(piece, Words):
            template.append(_renamed(piece.template, f"p{k}_"))
            params.update({f"p{k}_{name}": value for name, value in piece.params.items()})
        else:
            template.append(str(piece).replace("{", "{{").replace("}", "}}"))
    return Words("".join(template), params)


def _renamed(template: str, prefix: str) -> str:
    """A template with each parameter's name prefixed (inside ``{arg:...}``, ``{py:...}``, ``{cli:...}`` too)."""
    def token(m):
        whole = m.group(0)
        if whole in ("{{", "}}"):
            return whole
        if m.group(3):
            return "{" + prefix + whole[1:]
        return "{" + m.group(1) + ":" + _renamed(m.group(2), prefix) + "}"

    return _TOKEN.sub(token, template)


def say(message, *, audience: str = "python", vocabulary: Vocabulary | None = None) -> str:
    """A message's text for an audience: a :class:`Words` filled with ``vocabulary``'s words for the command
    line (``audience='cli'``); a plain ``str`` as it is.

    Examples
    --------
    >>> say("plain text", audience="cli")
    'plain text'
    """
    if audience not in AUDIENCES:
        raise ValueError(f"`audience` must be one of {', '.join(AUDIENCES)}; got {audience!r}")
    if isinstance(message, Words) and audience != "python":
        return _fill(message.template, message.params, audience, vocabulary or _PYTHON)
    return str.__str__(message)
