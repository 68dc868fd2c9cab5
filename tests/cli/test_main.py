"""Tests of the entry point (``skcal/_cli/_main.py``): errors and warnings."""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import pytest

from skcal._cli import main
from skcal.metrics._registry import MEASURES_BY_NAME, custom_measure
from tests.cli._helpers import error_line, run


def _warning_measure(fail):
    def noisy(y_true, y_prob, **options):
        warnings.warn("careful with this one", UserWarning, stacklevel=2)
        if fail:
            raise ValueError("cannot measure this")
        return 0.5

    return noisy


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "preds.csv"
    path.write_text("y,p\n1,0.5\n0,0.25\n1,0.75\n")
    return path


def test_warnings_are_one_line_each(capsys, monkeypatch, csv_file):
    """Check that a warning is printed once, as `skcal: warning: ...`, after success."""
    measure = custom_measure("noisy", _warning_measure(fail=False))
    monkeypatch.setitem(MEASURES_BY_NAME, "noisy", measure)
    options = ["--y-true", "y", "--y-prob", "p", "--metrics", "noisy"]
    status, out, err = run(capsys, "report", csv_file, *options, "--n-bootstrap", "5")
    assert status == 0, err
    assert "noisy" in out
    assert err.splitlines()[-1] == "skcal: warning: UserWarning: careful with this one"
    assert err.count("careful") == 1


def test_warnings_are_dropped_on_error(capsys, monkeypatch, csv_file):
    """Check that an error line is the only line, warnings or not."""
    measure = custom_measure("noisy", _warning_measure(fail=True))
    monkeypatch.setitem(MEASURES_BY_NAME, "noisy", measure)
    options = ["--y-true", "y", "--y-prob", "p", "--metrics", "noisy"]
    line = error_line(capsys, "report", csv_file, *options)
    assert line == f"skcal: error: {csv_file}: cannot measure this"


def test_bugs_keep_their_traceback(monkeypatch, csv_file):
    """Check that an unexpected exception is not turned into an input error."""
    measure = custom_measure("broken", lambda y_true, y_prob, **kw: {}["missing"])
    monkeypatch.setitem(MEASURES_BY_NAME, "broken", measure)
    options = ["--y-true", "y", "--y-prob", "p", "--metrics", "broken"]
    with pytest.raises(KeyError):
        main(["report", str(csv_file), *options])
