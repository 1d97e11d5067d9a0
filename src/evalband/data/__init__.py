"""The table types: the results table (labels as categoricals, rows on integer codes in canonical order; its
checks, summary-level data and the one reshaper ``task_data``), labels, battles, ratings and per-model costs.

Every reader ends in one of these; every later layer takes them through :func:`evalband.select`.
"""
