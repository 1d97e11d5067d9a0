"""Presentation: number formatting, terminal/markdown/LaTeX tables, plots and the HTML report."""
