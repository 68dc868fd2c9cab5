"""Type hints of the public API, and a type checker over the package."""

# SPDX-License-Identifier: BSD-3-Clause

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

PUBLIC_MODULES = [
    "skcal.metrics",
    "skcal.calibration",
    "skcal.model_selection",
    "skcal.plotting",
    "skcal.regression",
    "skcal.datasets",
    "skcal.discovery",
]
ROOT = Path(__file__).resolve().parents[1]


def _public_callables():
    """``(qualified name, callable, needs a return hint)`` of the public API.

    Functions, and the constructors of classes (estimators, Displays and
    result objects) with their ``from_*`` class methods.
    """
    seen = set()
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if inspect.isclass(obj):
                yield f"{name}.__init__", obj.__init__, False
                for attr in dir(obj):
                    if attr.startswith("from_"):
                        yield f"{name}.{attr}", getattr(obj, attr), True
            else:
                yield name, obj, True


CALLABLES = list(_public_callables())


@pytest.mark.parametrize(
    "function, needs_return", [(f, r) for _, f, r in CALLABLES],
    ids=[name for name, _, _ in CALLABLES],
)  # fmt: skip
def test_public_api_is_annotated(function, needs_return):
    """Check that every parameter (and the return value) has a type hint."""
    signature = inspect.signature(function)
    missing = [
        p.name
        for p in signature.parameters.values()
        if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty
    ]
    assert not missing, f"parameters without a type hint: {missing}"
    if needs_return:
        assert signature.return_annotation is not inspect.Signature.empty


@pytest.mark.slow
def test_mypy_accepts_the_package():
    """Check the package with mypy (the hints are checked, not only present)."""
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "skcal"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
