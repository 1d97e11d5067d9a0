"""evalband.display.escape: HTML, Markdown, LaTeX, CSV and one-line text.

Oracles: exact expected strings; for LaTeX (nothing is compiled) a small reference decoder written here, which
reads escaped text as LaTeX would show it (control words for the specials, TeX's text ligatures) and refuses any
live markup, so every name must decode back to itself; for HTML the standard library's ``html.unescape``; for
Markdown a reference decoder (CommonMark backslash escapes and character references) and a CommonMark renderer
(markdown-it-py, a peer library) that must show every escaped name as plain text.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalband.display import csv_safe_text, html_escape, latex_escape, md_escape, one_line

#: names as a user's file may hold them: any characters, weighted towards the ones every format treats specially
SPECIAL = "\\&%$#_{}~^<>|*`[]()!?-+=@'\",.:;/\t\r\n–−—é模 "
names = st.text(alphabet=st.sampled_from(SPECIAL) | st.characters(codec="utf-8", exclude_categories=("Cs",)),
                max_size=30)


# ---------------------------------------------------------------------------------------------- one line
def test_one_line_replaces_every_line_break():
    assert one_line("a\nb\r\nc\rd\ve\ff\u2028g\u2029h\x85i") == "a b c d e f g h i"
    assert one_line("two\n\nbreaks") == "two breaks"
    assert one_line(3.5) == "3.5"
    assert one_line("tab\tstays") == "tab\tstays"


# ---------------------------------------------------------------------------------------------- HTML
def test_html_escape_exact():
    assert html_escape("<script>alert('x' & \"y\")</script>") == \
        "&lt;script&gt;alert(&#x27;x&#x27; &amp; &quot;y&quot;)&lt;/script&gt;"
    assert html_escape(0.5) == "0.5"
    assert html_escape("é模") == "é模"


@given(names)
def test_html_escape_round_trips_and_leaves_no_markup(name):
    escaped = html_escape(name)
    assert html.unescape(escaped) == name
    assert not set("<>\"'") & set(escaped)


# ---------------------------------------------------------------------------------------------- LaTeX
def test_latex_escape_every_special_character():
    assert latex_escape("\\") == r"\textbackslash{}"
    assert latex_escape("&%$#_{}") == r"\&\%\$\#\_\{\}"
    assert latex_escape("~^") == r"\textasciitilde{}\textasciicircum{}"
    assert latex_escape("<>") == r"\textless{}\textgreater{}"
    assert latex_escape("a – b − c") == "a -- b - c"  # en dash and minus sign in ASCII LaTeX
    assert latex_escape("50% of $x_1$") == r"50\% of \$x\_1\$"
    assert latex_escape("line\none % not a comment") == r"line one \% not a comment"
    assert latex_escape("naïve 模型 Ωμ") == "naïve 模型 Ωμ"  # other unicode passes through (UTF-8 input)
    assert latex_escape(0.25) == "0.25"


def test_latex_escape_breaks_text_ligatures():
    # TeX joins '--' into an en dash, '``' and '''' into curly quotes: a name must show as written
    assert latex_escape("run--v2") == "run-{}-v2"
    assert latex_escape("a---b") == "a-{}-{}-b"
    assert latex_escape("x''") == "x'{}'"
    assert latex_escape("``q") == "`{}`q"
    assert latex_escape("¡a!`") == "¡a!{}`"
    assert latex_escape("–-") == "--{}-"  # the en dash's own '--' stays one ligature


_LATEX_WORDS = {"textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^", "textless": "<",
                "textgreater": ">"}
_LIGATURES = {"---": "—", "--": "–", "``": "“", "''": "”", "!`": "¡", "?`": "¿", ",,": "„"}


def latex_decode(text: str) -> str:
    """What LaTeX (T1 text fonts) shows for ``text``; AssertionError on anything live (a command, math, a group
    with content, a comment, an alignment tab, a line break)."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            m = re.match(r"\\([A-Za-z]+)\{\}|\\([&%$#_{}])", text[i:])
            assert m, f"live control sequence at {i}: {text!r}"
            out.append(_LATEX_WORDS[m.group(1)] if m.group(1) else m.group(2))
            assert m.group(1) is None or m.group(1) in _LATEX_WORDS, f"unknown command in {text!r}"
            i += m.end()
            continue
        if text.startswith("{}", i):  # an empty group: shows nothing (it only breaks ligatures)
            i += 2
            continue
        assert ch not in "&%$#_{}~^\n\r", f"unescaped {ch!r} at {i}: {text!r}"
        lig = next((k for k in _LIGATURES if text.startswith(k, i)), None)
        if lig:
            out.append(_LIGATURES[lig])
            i += len(lig)
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def test_the_reference_decoder_refuses_live_latex():
    for live in (r"\input{x}", "$x$", "a & b", "50% off", "x_1", "{\\bf x}", "a\nb", "~"):
        with pytest.raises(AssertionError):
            latex_decode(live)
    assert latex_decode(r"a\_b\textbackslash{}") == "a_b\\"
    assert latex_decode("a--b") == "a–b"  # the ligature is what makes an unbroken '--' wrong


@given(names | st.text(alphabet="-–−`',!?¡a\\{}", max_size=12))
@settings(max_examples=400)
def test_latex_escape_round_trips_through_the_reference_decoder(name):
    # what LaTeX shows is the name, on one line, with the minus sign written as a hyphen (ASCII LaTeX)
    assert latex_decode(latex_escape(name)) == one_line(name).replace("−", "-")


# ---------------------------------------------------------------------------------------------- Markdown
def test_md_escape_exact():
    assert md_escape("<script>alert(1)</script>") == "&lt;script>alert(1)&lt;/script>"
    assert md_escape("a|b", block=False) == r"a\|b"
    assert md_escape("gpt_4o_mini") == "gpt_4o_mini"  # no intraword emphasis in CommonMark
    assert md_escape("_lead_") == r"\_lead\_"
    assert md_escape("**bold**") == r"\*\*bold\*\*"
    assert md_escape("[x](http://e.org)") == r"\[x](http://e.org)"
    assert md_escape("[0.3, 0.5]") == "[0.3, 0.5]"
    assert md_escape("&copy; A&B") == "&amp;copy; A&B"
    assert md_escape("# heading") == r"\# heading"
    assert md_escape("# heading", block=False) == "# heading"
    assert md_escape("1. item") == r"1\. item"
    assert md_escape("two\nlines") == "two lines"
    assert md_escape("~~strike~~") == r"\~\~strike\~\~"
    assert md_escape("co`de\\") == r"co\`de\\"


def md_decode(text: str) -> str:
    """CommonMark's reading of plain inline text: a backslash before ASCII punctuation is that character; a
    character reference is its character."""
    text = re.sub(r"\\([!-/:-@\[-`{-~])", lambda m: f"\x00{ord(m.group(1))}\x00", text)
    text = html.unescape(text)
    return re.sub("\x00([0-9]+)\x00", lambda m: chr(int(m.group(1))), text)


@given(names)
def test_md_escape_round_trips_through_the_reference_decoder(name):
    for block in (True, False):
        assert md_decode(md_escape(name, block=block)) == one_line(name)


class _Shown(HTMLParser):
    """Text of each <td> / <li> / <p>; any other tag inside one is recorded (live markup)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cells, self._in = [], None

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "li", "p") and self._in is None:
            self._in = []
        elif self._in is not None:
            self._in.append(f"<{tag}>")

    def handle_endtag(self, tag):
        if tag in ("td", "li", "p") and self._in is not None:
            self.cells.append("".join(self._in))
            self._in = None

    def handle_data(self, data):
        if self._in is not None:
            self._in.append(data)


def _shown(markdown: str) -> list[str]:
    markdown_it = pytest.importorskip("markdown_it")
    parser = _Shown()
    parser.feed(markdown_it.MarkdownIt("commonmark").enable("table").render(markdown))
    return parser.cells


# a renderer strips a cell's or a paragraph's outer whitespace and shows NUL as U+FFFD (CommonMark's security
# rule): compare names without them
visible = names.map(lambda s: one_line(s).replace("\x00", "").strip()).filter(bool)


@given(visible)
@settings(max_examples=300)
def test_any_name_is_plain_text_in_a_markdown_table_and_list(name):
    cells = _shown(f"| name | x |\n|---|---|\n| {md_escape(name, block=False)} | 1 |\n")
    assert cells == [name, "1"]
    assert _shown(f"- {md_escape(name)}\n") == [name]
    assert _shown(md_escape(name) + "\n") == [name]


# ---------------------------------------------------------------------------------------------- CSV
@pytest.mark.parametrize("value, safe", [
    ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'), ("+1", "'+1"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\tx", "'\tx"), ("\rx", "'\rx"), ("gpt-4", "gpt-4"), ("", ""), (-0.5, -0.5), (3, 3), (None, None),
])
def test_csv_safe_text(value, safe):
    assert csv_safe_text(value) == safe


@given(names)
def test_csv_safe_text_never_leaves_a_formula_and_is_reversible(name):
    safe = csv_safe_text(name)
    assert not safe.startswith(("=", "+", "-", "@", "\t", "\r"))
    assert (safe[1:] if safe != name else safe) == name


def test_comment_lines_keep_options_as_written():
    # TeX never typesets a comment: '--wide' stays copyable there, and is still one line with specials escaped
    assert latex_escape("run --wide\n50% x_1", ligatures=False) == r"run --wide 50\% x\_1"
    assert latex_escape("run --wide") == "run -{}-wide"


@given(names)
def test_comment_text_has_no_line_break_and_no_unescaped_special(name):
    text = latex_escape(name, ligatures=False)
    assert "\n" not in text and "\r" not in text
    assert not re.search(r"(?<!\\)[&%$#_{}]", text.replace(r"\textbackslash{}", "").replace("{}", ""))
