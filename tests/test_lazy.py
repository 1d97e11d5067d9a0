"""evalband._lazy.lazy_exports: a subpackage's public names imported from their modules on first use."""

import subprocess
import sys

import pytest

from evalband._lazy import lazy_exports


def test_names_import_their_module_on_first_use():
    code = ("import sys, evalband.facets as f\n"
            "assert 'evalband.facets.reml' not in sys.modules and 'evalband.facets.components' not in sys.modules\n"
            "from evalband.facets import default_replicates\n"
            "assert 'evalband.resample.dispatch' in sys.modules and 'evalband.facets.reml' not in sys.modules\n"
            "assert f.variance_components.__module__ == 'evalband.facets.components'\n"
            "assert f.reml.__name__ == 'evalband.facets.reml'  # a submodule as an attribute\n"
            "assert 'reml_components' in dir(f) and 'reml_components' in f.__all__\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_unknown_names_and_clashes():
    import evalband.facets as f

    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        f.nothing_here
    with pytest.raises(AttributeError):
        f.__wrapped__
    with pytest.raises(ValueError, match="two modules"):
        lazy_exports("evalband.facets", {"a": ["x"], "b": ["x"]})
