"""Numpydoc validation of every public docstring."""

# SPDX-License-Identifier: BSD-3-Clause

import importlib

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

PUBLIC_MODULES = [
    "skcal",
    "skcal.calibration",
    "skcal.datasets",
    "skcal.discovery",
    "skcal.metrics",
    "skcal.model_selection",
    "skcal.plotting",
    "skcal.regression",
]

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


def _public_methods():
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if not isinstance(obj, type):
                continue
            for method in dir(obj):
                func = getattr(obj, method)
                if (
                    not method.startswith("_")
                    and callable(func)
                    and getattr(func, "__module__", "").startswith("skcal")
                ):
                    yield f"{module_name}.{name}.{method}"


@pytest.mark.parametrize("name", sorted(set(_public_methods())))
def test_method_docstring(name):
    """Check that the docstring of each public method passes numpydoc validation."""
    result = numpydoc_validate.validate(name)
    # Methods are shown by the class's example rather than their own.
    errors = [
        (code, msg)
        for code, msg in result["errors"]
        if code not in IGNORED and code != "EX01"
    ]
    assert not errors, f"{name}: {errors}"


# Utilities listed in the API reference, with no page of the guide to point to.
NO_GUIDE_PAGE = {"skcal.discovery"}


@pytest.mark.parametrize(
    "name",
    sorted(
        n
        for n in set(_public_names())
        if n.rpartition(".")[0] not in NO_GUIDE_PAGE and n.count(".") > 1
    ),
)
def test_docstring_points_to_the_user_guide(name):
    """Check the "Read more in the User Guide" line (its label must exist in
    ``doc/``; the nitpicky build of tests/test_doc.py checks that)."""
    module_name, _, attribute = name.rpartition(".")
    obj = getattr(importlib.import_module(module_name), attribute)
    assert "Read more in the :ref:`User Guide <" in obj.__doc__
