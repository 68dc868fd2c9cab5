"""Tests of the assembly of the contract's arguments (``skcal/_cli/_inputs.py``)."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcal._cli._inputs import (
    Request,
    build_problem,
    label_like,
    printed_decimals,
    renormalize_rounded,
)


@pytest.mark.parametrize("decimals", range(0, 8))
def test_printed_decimals(global_random_seed, decimals):
    """Check that the decimals of printed values are found from the floats."""
    rng = np.random.RandomState(global_random_seed)
    values = np.array([float(f"{v:.{decimals}f}") for v in rng.uniform(size=500)])
    found = printed_decimals(values)
    assert found <= decimals
    # Fewer decimals than found would not print every value exactly.
    if found:
        coarse = np.round(values, found - 1)
        assert np.any(coarse != values)


def test_printed_decimals_full_precision(global_random_seed):
    values = np.random.RandomState(global_random_seed).uniform(size=1000)
    assert printed_decimals(values) is None
    # Beyond the first values, the whole column decides.
    assert printed_decimals(np.concatenate([np.full(5000, 0.5), [0.123]])) == 3


def test_printed_decimals_ignores_nan():
    assert printed_decimals(np.array([0.5, np.nan, np.inf, 0.25])) == 2


def test_renormalize_rounded(global_random_seed):
    """Check that only rows within the printing's rounding are renormalised."""
    rng = np.random.RandomState(global_random_seed)
    p = np.round(rng.dirichlet(np.ones(7), size=200), 3)
    p[0] = [0.2, 0.2, 0.2, 0.2, 0.2, 0.1, 0.2]  # sums to 1.3: left alone
    p[1] = 0.0  # sums to 0: left alone
    before = p.copy()
    renormalize_rounded(p)
    assert_array_equal(p[:2], before[:2])
    assert_allclose(p[2:].sum(axis=1), 1.0, rtol=1e-12)
    assert_allclose(p[2:], before[2:] / before[2:].sum(axis=1, keepdims=True))


def test_renormalize_rounded_leaves_exact_rows_alone(global_random_seed):
    p = np.random.RandomState(global_random_seed).dirichlet(np.ones(3), size=50)
    before = p.copy()
    renormalize_rounded(p)
    assert_array_equal(p, before)


@pytest.mark.parametrize(
    "text, labels, expected",
    [
        ("1", np.array([0, 1]), 1),
        ("-1", np.array([-1, 1], dtype=np.int8), -1),
        ("2", np.array([0.0, np.nan]), 2.0),
        ("True", np.array([False, True]), True),
        ("0", np.array([False, True]), False),
        ("cat", np.array(["cat", "dog"], dtype=object), "cat"),
        ("cat", np.array(["cat", "dog"]), "cat"),
        ("maybe", np.array([0, 1]), "maybe"),
    ],
)
def test_label_like(text, labels, expected):
    converted = label_like(text, labels)
    assert converted == expected
    assert type(converted) is type(expected)


def test_build_problem_binary_bytes_labels():
    """Check that decoded byte labels match --pos-label typed as text."""
    columns = {
        "y": np.char.decode(np.array([b"a", b"b", b"b"])),
        "p": np.array([0.1, 0.8, 0.7]),
    }
    problem = build_problem(Request("y", ["p"]), columns, printed=False, pos_label="b")
    assert_array_equal(problem.y_true, [0, 1, 1])
    assert_allclose(problem.y_prob[:, 1], columns["p"])
    assert problem.y_prob.flags.f_contiguous
    assert problem.classes.tolist() == ["a", "b"]


def test_build_problem_top_label_missing_labels():
    """Check that a missing label makes the event missing (the contract says so)."""
    columns = {
        "y": np.array(["a", None, "b"], dtype=object),
        "hat": np.array(["a", "a", "a"], dtype=object),
        "c": np.array([0.9, 0.8, 0.7]),
    }
    request = Request("y", [], predicted="hat", confidence="c")
    with pytest.raises(ValueError, match="y_true contains 1 NaN"):
        build_problem(request, columns, printed=True)
    columns["y"][1] = "b"
    problem = build_problem(request, columns, printed=True)
    assert_array_equal(problem.y_true, [1, 0, 0])


def test_build_problem_top_label_numbers_and_text():
    """Check that numeric and text labels are compared as text."""
    columns = {
        "y": np.array([1, 2, 3]),
        "hat": np.array(["1", "2", "x"], dtype=object),
        "c": np.array([0.9, 0.8, 0.7]),
    }
    request = Request("y", [], predicted="hat", confidence="c")
    assert_array_equal(build_problem(request, columns, printed=True).y_true, [1, 1, 0])


def test_build_problem_multiclass_columns_named_as_classes(global_random_seed):
    """Check that column names converted to labels order the classes."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.dirichlet(np.ones(3), size=30)
    y = np.array([2, 0, 1] * 10)
    columns = {"y": y, "2": p[:, 0], "0": p[:, 1], "1": p[:, 2]}
    problem = build_problem(Request("y", ["2", "0", "1"]), columns, printed=False)
    assert problem.classes.tolist() == [2, 0, 1]
    assert_array_equal(problem.classes[problem.y_true], y)
    assert_allclose(problem.y_prob, p)
