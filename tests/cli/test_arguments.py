"""Tests of the options of ``skcal`` (``skcal/_cli/_arguments.py``)."""

# SPDX-License-Identifier: BSD-3-Clause

import subprocess
import sys

import pytest

import skcal
from skcal._cli._arguments import byte_size, default_max_bytes, parse_arguments
from skcal._utils._bootstrap import N_BOOTSTRAP
from tests.cli._helpers import error_line, run


def test_version_in_a_subprocess(tmp_path):
    """Check that `python -m skcal --version` prints skcal's version."""
    done = subprocess.run(
        [sys.executable, "-m", "skcal", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"skcal {skcal.__version__}"


@pytest.mark.parametrize("command", [[], ["demo"], ["report"]], ids=str)
def test_help(capsys, command):
    """Check that --help of skcal and of each command prints its usage."""
    status, out, _ = run(capsys, *command, "--help")
    assert status == 0
    assert out.startswith(f"usage: skcal {' '.join(command)}".rstrip())
    expected = {
        "demo": ["--quick", "--n-bootstrap", "--overwrite"],
        "report": ["--y-prob", "--metrics", "--max-bytes", "--format", "--overwrite"],
    }
    for option in expected.get("".join(command), ["demo", "report"]):
        assert option in out


@pytest.mark.parametrize(
    "args, match",
    [
        ([], "the following arguments are required: COMMAND (see 'skcal --help')"),
        (["demo", "--cv", "1"], "argument --cv: 1 is less than 2"),
        (["demo", "--cv", "two"], "argument --cv: 'two' is not an integer"),
        (["report"], "required: PREDICTIONS (see 'skcal report --help')"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["report", "x.csv", "--metrics", "ece"], "argument --metrics: invalid choice"),
        (["report", "x.csv", "--max-bytes", "lots"], "'lots' is not a positive size"),
        (["report", "x.csv", "--max-bytes", "0"], "'0' is not a positive size"),
        (["report", "x.csv", "--random-state", "-1"], "-1 is less than 0"),
        (["report", "x.csv", "--random-state", str(2**32)], "is more than 4294967295"),
        (["report", "x.csv", "--format", "xlsx"], "invalid choice: 'xlsx'"),
        (["report", "x.csv", "--n-bootstrap", "-1"], "-1 is less than 0"),
        (["report", "x.csv", "--n-bins", "0"], "argument --n-bins: 0 is less than 1"),
        (["report", "x.csv", "--n-jobs", "0"], "--n-jobs: 0 threads: give at least 1"),
        (["demo", "--n-jobs", "-2"], "argument --n-jobs: -2 is less than -1"),
        (["report", "x.csv", "--strategy", "kmeans"], "invalid choice: 'kmeans'"),
        (["report", "x.csv", "--at", "1.5"], "argument --at: 1.5 is not in [0, 1]"),
        (["report", "x.csv", "--at", "high"], "argument --at: 'high' is not a number"),
        (["report", "x.csv", "--at", "nan"], "argument --at: nan is not in [0, 1]"),
        (["report", "x.csv", "--near", "0"], "argument --near: 0 is not in (0, 0.5]"),
        (
            ["report", "x.csv", "--near", "0.6"],
            "argument --near: 0.6 is not in (0, 0.5]",
        ),
    ],
)
def test_usage_errors(capsys, args, match):
    """Check that a usage error is one line, exit status 2, nothing on stdout."""
    line = error_line(capsys, *args)
    assert match in line, line


def test_defaults():
    """Check the defaults of report: five measures, 1000 resamples, all processors
    and half the memory."""
    args = parse_arguments(["report", "x.csv"])
    assert args.metrics == [
        "expected_calibration_error",
        "smooth_ece",
        "cutoff_calibration_error",
        "brier_score_loss",
        "log_loss",
    ]
    assert args.n_bootstrap == N_BOOTSTRAP == 1000
    assert args.n_jobs == parse_arguments(["demo"]).n_jobs == -1
    assert not args.quiet
    assert args.max_bytes == default_max_bytes() > 0
    assert not args.overwrite


@pytest.mark.parametrize(
    "text, expected",
    [("1", 1), ("2048", 2048), ("1k", 1024), ("1.5M", 3 * 2**19), ("4GiB", 2**32)],
)
def test_byte_size(text, expected):
    assert byte_size(text) == expected
