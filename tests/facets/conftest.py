"""Simulated designs shared by the facet tests (the generators live in ``tests/designs.py``)."""

from designs import binary_design, normal_design  # noqa: F401  (fixtures offered to this folder)
