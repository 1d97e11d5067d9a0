"""Compute once, render many: one :class:`Analysis` holds every statistic a report shows, all derived from one
selection and one bootstrap replicate set; the renderers (HTML, Markdown, LaTeX, terminal) compute nothing.

>>> import evalband as eb
>>> a = eb.analyze("example:vtab", n_resamples=500, rng=0)      # doctest: +SKIP
>>> a.ranking.to_frame().head()                                 # doctest: +SKIP
"""

from .core import Analysis, analyze

__all__ = ["Analysis", "analyze"]
