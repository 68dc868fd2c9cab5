"""Run every example script, so that the gallery never goes stale."""

# SPDX-License-Identifier: BSD-3-Clause

import runpy
from pathlib import Path

import pytest

EXAMPLES = sorted(
    (Path(__file__).resolve().parents[1] / "examples").glob("**/plot_*.py")
)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path, monkeypatch, pyplot):
    """Check that the example runs to the end without error."""
    monkeypatch.chdir(path.parent)
    runpy.run_path(str(path), run_name="__main__")
