"""Numpydoc validation of every public docstring."""

# SPDX-License-Identifier: BSD-3-Clause

import importlib

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

PUBLIC_MODULES = ["skcal", "skcal.metrics"]

# Checks we do not enforce, each with its reason.
IGNORED = {
    # scikit-learn names its return values ("score : float"), as we do.
    "RT02",
    # An extended summary is welcome but not required for short helpers.
    "ES01",
    # A See Also section is not required when nothing relevant exists.
    "SA01",
    # Module-level names such as __version__ have no docstring of their own.
    "GL08",
}


def _public_names():
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            if not name.startswith("__"):
                yield f"{module_name}.{name}"


@pytest.mark.parametrize("name", sorted(set(_public_names())))
def test_docstring(name):
    """Check that the docstring passes numpydoc validation, with Examples."""
    result = numpydoc_validate.validate(name)
    errors = [(code, msg) for code, msg in result["errors"] if code not in IGNORED]
    assert not errors, f"{name}: {errors}"
    assert ">>> " in result["docstring"], f"{name} has no doctest example"
