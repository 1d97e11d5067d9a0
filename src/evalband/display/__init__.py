"""The one display module: numbers (digits from the standard error, points for proportions, p-values, levels),
verdict sentences, escaping for every format, and tables that fit the terminal. Every command, the report and
the result objects' reprs format through it; rounding happens here only.

It imports nothing of evalband but the root-level helpers, so every layer may use it.
"""

from .escape import csv_safe_text, html_escape, latex_escape, md_escape, one_line
from .numbers import (POINTS, decimals_for, format_interval, format_level, format_p, format_percent,
                      format_rank_interval, format_short, format_signed, format_value, scale_for, unit_for)
from .reprs import displayed
from .tables import (DEFAULT_WIDTH, FORMATS, display_frame, json_dumps, json_records, render, terminal_width, to_csv, to_json,
                     wrap_notes)
from .words import VERDICT_WORDS, difference_text, estimate_text, format_difference, margin_text, reading, verdict_detail, withheld_text

__all__ = ["csv_safe_text", "html_escape", "latex_escape", "md_escape", "one_line", "POINTS", "decimals_for",
           "format_interval", "format_level", "format_p", "format_percent", "format_rank_interval",
           "format_short", "format_signed", "format_value", "scale_for", "unit_for", "VERDICT_WORDS", "format_difference",
           "margin_text", "reading", "estimate_text", "difference_text", "verdict_detail", "withheld_text", "DEFAULT_WIDTH", "FORMATS", "json_records",
           "render", "display_frame", "terminal_width", "to_csv", "to_json", "wrap_notes", "json_dumps", "displayed"]
