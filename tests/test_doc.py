"""Build the documentation, gallery included, and fail on any warning."""

# SPDX-License-Identifier: BSD-3-Clause

import os
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "doc"


@pytest.mark.slow
def test_documentation_builds_without_warnings(tmp_path):
    """Check that ``sphinx-build -W --keep-going`` succeeds on ``doc/``.

    The build runs every example of the gallery (sphinx-gallery), so that
    the examples are run here and only here; nitpicky cross-references make
    a reference to a missing name a warning, hence a failure.
    """
    pytest.importorskip("sphinx_gallery")
    pytest.importorskip("pydata_sphinx_theme")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-d",
            str(tmp_path / "doctrees"),
            str(DOC),
            str(tmp_path / "html"),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "SKCAL_DOC_RUN_ALL": "1", "MPLBACKEND": "Agg"},
    )
    assert result.returncode == 0, result.stderr[-5000:]
    html = tmp_path / "html"
    for page in ("index", "install", "user_guide", "api", "auto_examples/index"):
        assert (html / f"{page}.html").is_file(), page
