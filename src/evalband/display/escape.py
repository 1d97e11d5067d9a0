"""Escaping for every output: HTML, Markdown, LaTeX, CSV (spreadsheet formulas) and the terminal (rich markup).

Every name that comes from a user's file (models, tasks, groups, notes, sources) passes through one of these
before it is written, so a model named ``<script>``, ``[/]``, ``$5 vs $10`` or ``=HYPERLINK(...)`` is shown as
text in every format.
"""

from __future__ import annotations

import html
import html.entities
import re

__all__ = ["html_escape", "md_escape", "latex_escape", "csv_safe_text", "one_line"]


def one_line(value) -> str:
    """A name or sentence on one line: line breaks (and other vertical whitespace) become spaces.

    Examples
    --------
    >>> from evalband.display import one_line
    >>> one_line("model trained\\non new data")
    'model trained on new data'
    """
    return re.sub(r"[\r\n\v\f\u2028\u2029\x85]+", " ", str(value))


def html_escape(value) -> str:
    """HTML-escape any value (quotes too).

    Examples
    --------
    >>> from evalband.display import html_escape
    >>> html_escape('<b>"A" & B</b>')
    '&lt;b&gt;&quot;A&quot; &amp; B&lt;/b&gt;'
    """
    return html.escape(str(value), quote=True)


# ---------------------------------------------------------------------------------------------- Markdown
_MD_ALWAYS = {"\\": "\\\\", "`": "\\`", "*": "\\*", "|": "\\|"}
_MD_LINK = re.compile(r"\[(?=[^\]]*\][(\[:])")      # '[' of a link or reference: [text](url), [text][ref]
_MD_TAG = re.compile(r"<(?=[A-Za-z/!?])")            # '<' that would open an HTML tag, comment or declaration
_MD_ENTITY = re.compile(r"&(#[0-9]{1,7};|#[xX][0-9A-Fa-f]{1,6};|[0-9A-Za-z]+;)")  # maybe a character reference
_MD_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")  # '_' not inside a word: emphasis
_MD_LINE_START = re.compile(r"^(\s*)(\d+(?=[.)](?:\s|$))|)([#>+\-=.)])")  # heading, quote or list marker


def _entity(match) -> str:
    """'&amp;' for an '&' that CommonMark would read as a character reference (a known HTML5 name, or numeric)."""
    ref = match.group(1)
    return ("&amp;" if ref.startswith("#") or ref in html.entities.html5 else "&") + ref


def md_escape(value, *, block: bool = True) -> str:
    """Escape a name or sentence so that Markdown shows it as plain text, on one line.

    Backslashes, backticks, ``*`` and ``|`` (table cells) are always backslash-escaped; ``_`` only where it is
    not inside a word (CommonMark takes no intraword ``_`` for emphasis, so ``gpt_4o_mini`` stays readable);
    ``[`` only where it would open a link, ``<`` only where it would open an HTML tag (as ``&lt;``, so
    ``<script>`` is text), ``&`` only where it would start a character reference (as ``&amp;``). Line breaks
    become spaces. With ``block`` (text that starts a paragraph, heading or list item, not a table cell) a leading
    ``#``, ``>``, ``-``, ``+``, ``=`` or ``1.`` is escaped so that it does not become a heading, quote or list.

    Examples
    --------
    >>> md_escape("<script>alert(1)</script>")
    '&lt;script>alert(1)&lt;/script>'
    """
    text = "".join(_MD_ALWAYS.get(ch, ch) for ch in one_line(value))
    text = _MD_UNDERSCORE.sub(r"\\_", text)
    text = _MD_LINK.sub(r"\\[", text).replace("~~", "\\~\\~")
    text = _MD_ENTITY.sub(_entity, text)
    text = _MD_TAG.sub("&lt;", text)
    if not block:
        return text
    return _MD_LINE_START.sub(lambda m: m.group(1) + m.group(2) + "\\" + m.group(3), text)


# ---------------------------------------------------------------------------------------------- LaTeX
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
          "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
          ">": r"\textgreater{}", "–": "--", "−": "-"}


#: pairs TeX's text fonts join into one glyph ('--' an en dash, '``' a curly quote, '!`' an inverted '!')
_LIGATURE_PAIRS = {("-", "-"), ("`", "`"), ("'", "'"), (",", ","), ("!", "`"), ("?", "`")}


def latex_escape(value, *, ligatures: bool = True) -> str:
    """Escape every LaTeX special character, on one line (a newline inside a ``% note:`` comment would end the
    comment and start live LaTeX); an empty group ``{}`` between characters TeX would join into a ligature keeps
    ``run--v2`` from printing an en dash. Text for a comment line, which TeX never typesets, passes
    ``ligatures=False``: it keeps ``--wide`` as written.

    Examples
    --------
    >>> latex_escape("50% of $x_1$")
    '50\\\\% of \\\\$x\\\\_1\\\\$'
    """
    out = []
    for ch in one_line(value):
        piece = _LATEX.get(ch, ch)
        if ligatures and out and (out[-1][-1], piece[0]) in _LIGATURE_PAIRS:
            out.append("{}")
        out.append(piece)
    return "".join(out)


# ---------------------------------------------------------------------------------------------- CSV
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe_text(value):
    """A text cell a spreadsheet would read as a formula (starting with ``=``, ``+``, ``-``, ``@``, tab or CR)
    gets a leading ``'``; numbers and other text are returned unchanged (OWASP's CSV-injection rule).

    Examples
    --------
    >>> csv_safe_text('=HYPERLINK("http://x")'), csv_safe_text(-0.5), csv_safe_text("gpt-4")
    ('\\'=HYPERLINK("http://x")', -0.5, 'gpt-4')
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value
