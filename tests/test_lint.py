"""Lint that keeps the code as clean as it is: ruff, and short functions.

ruff's rules (pycodestyle, pyflakes, import order, pyupgrade, bugbear, numpy,
mccabe complexity at most 12, simplifications, performance, ruff's own and
pylint's) are configured in ``pyproject.toml``; this runs them on every
tracked Python file, so that the test suite fails when they fail.
"""

# SPDX-License-Identifier: BSD-3-Clause

import ast
import io
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHON_TREES = ["skcal", "tests", "benchmarks", "examples", "doc"]

# The longest a function of skcal/ may be, in lines of code (signature and
# body; not docstrings, comments or blank lines).
MAX_FUNCTION_LINES = 60


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]])
def test_ruff(command):
    """Check that ruff's linter and formatter accept every Python file."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", *command, *PYTHON_TREES],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _docstring_lines(tree):
    """The line numbers of every docstring of a module."""
    lines = set()
    for node in ast.walk(tree):
        if not isinstance(
            node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            continue
        first = node.body[0] if node.body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def _code_lines(source, tree):
    """The line numbers that hold code: not comments, blanks or docstrings."""
    skipped = {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
    }
    docstrings = _docstring_lines(tree)
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skipped:
            lines.update(range(token.start[0], token.end[0] + 1))
    return lines - docstrings


def function_lengths(path):
    """``{qualified name: lines of code}`` of every function in a file."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    code = _code_lines(source, tree)
    lengths = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            span = range(node.lineno, node.end_lineno + 1)
            name = f"{path.name}:{node.lineno} {node.name}"
            lengths[name] = sum(1 for line in span if line in code)
    return lengths


def test_function_lengths_are_counted(tmp_path):
    """Check the counter on a function with a docstring, comments and blanks."""
    source = (
        "def f(a,\n      b):\n"
        '    """Doc.\n\n    More.\n    """\n'
        "    # a comment\n\n    return (a +\n            b)\n"
    )
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    assert function_lengths(path) == {"probe.py:1 f": 4}


def test_no_long_functions():
    """Check that no function of skcal/ is longer than 60 lines of code."""
    lengths = {}
    for path in sorted((ROOT / "skcal").rglob("*.py")):
        lengths.update(function_lengths(path))
    long = {name: n for name, n in lengths.items() if n > MAX_FUNCTION_LINES}
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines of code: {long}"
