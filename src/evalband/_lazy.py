"""Public names of a subpackage imported from their modules on first use (PEP 562).

A subpackage's ``__init__`` lists what it exports and where each name lives; nothing is imported until a name is
used, so a command loads the modules it runs and no others (issue 27: ``evalband plan`` need not import what
``evalband variance`` uses). ``from evalband.facets import variance_components``, ``evalband.facets.reml`` and
``dir(evalband.facets)`` work as with eager imports::

    from .._lazy import lazy_exports

    __getattr__, __dir__, __all__ = lazy_exports(__name__, {
        "components": ["METHODS", "VarianceComponents", "variance_components"],
        "reml": ["RemlFit", "reml_components"],
    })
"""

from __future__ import annotations

import importlib
import sys

__all__ = ["lazy_exports"]


def lazy_exports(package: str, modules: dict[str, list[str]]):
    """``(__getattr__, __dir__, __all__)`` for ``package``: each name in ``modules[m]`` is ``package.m``'s
    attribute of that name (``m`` itself when it is a dotted absolute path: a name the package re-exports from
    an earlier layer), imported when first asked for and then kept in the package's namespace."""
    where = {name: module for module, names in modules.items() for name in names}
    if len(where) != sum(len(names) for names in modules.values()):
        raise ValueError(f"{package}: a name is exported by two modules")
    public = list(where)

    def __getattr__(name: str):
        module = where.get(name)
        if module is None:
            if name.startswith("__"):
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            try:  # a submodule used as an attribute (``evalband.facets.reml``)
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # a module of the package by its relative name, or any module by its absolute name ("evalband.x.y")
        value = getattr(importlib.import_module(module if "." in module else f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(public))

    return __getattr__, __dir__, public
