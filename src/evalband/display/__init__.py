"""The one display module: numbers (digits from the standard error, points for proportions, p-values, levels),
verdict sentences, escaping for every format, and tables that fit the terminal. Every command, the report and
the result objects' reprs format through it; rounding happens here only.

It imports nothing of evalband but the root-level helpers, so every layer may use it.
"""

from .._lazy import lazy_exports

# names are imported from their modules on first use: a command printing a few lines of text (a plan) loads
# neither pandas (tables of result frames) nor the modules it does not use
__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "escape": ["csv_safe_text", "html_escape", "latex_escape", "md_escape", "one_line"],
    "numbers": ["POINTS", "decimals_for", "format_interval", "format_level", "format_p", "format_percent",
                "format_rank_interval", "format_short", "format_signed", "format_value", "scale_for", "unit_for"],
    "reprs": ["displayed"],
    "tables": ["FORMATS", "display_frame", "json_records", "render", "to_csv", "to_json"],
    "layout": ["DEFAULT_WIDTH", "terminal_width", "wrap_notes", "text_table"],
    "plain": ["json_dumps"],
    "words": ["VERDICT_WORDS", "difference_text", "estimate_text", "format_difference", "margin_text", "reading",
              "verdict_detail", "withheld_text"],
})
