"""Tests of the input contract, :mod:`skcal._validation`.

The data checks are exercised through the public measures (where the contract
is promised) and, for the canonical form they return, through
:func:`check_calibration_inputs` directly.
"""

# SPDX-License-Identifier: BSD-3-Clause

import copy
import re
from numbers import Integral, Real

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcal import _validation
from skcal._param_validation import (
    Interval,
    InvalidParameterError,
    StrOptions,
    fit_context,
    validate_parameter_constraints,
    validate_params,
)
from skcal._validation import (
    CalibrationData,
    _encode,
    _unique_labels,
    check_calibration_inputs,
    check_fitted_classifier,
    check_recalibration_target,
    check_recalibration_weights,
    check_score_features,
    check_scores,
)
from skcal.metrics import (
    binned_calibration_error,
    expected_calibration_error,
    reliability_table,
)

PUBLIC_FUNCTIONS = [
    binned_calibration_error,
    expected_calibration_error,
    reliability_table,
]

parametrize_functions = pytest.mark.parametrize(
    "func", PUBLIC_FUNCTIONS, ids=lambda f: f.__name__
)

# A small binary problem (6 samples) and a three-class one (6 samples).
Y = np.array([0, 1, 1, 0, 1, 0])
P = np.array([0.1, 0.8, 0.6, 0.3, 0.9, 0.2])
Y3 = np.array([0, 1, 2, 2, 1, 0])
P3 = np.array(
    [
        [0.7, 0.2, 0.1],
        [0.2, 0.5, 0.3],
        [0.1, 0.3, 0.6],
        [0.25, 0.25, 0.5],
        [0.1, 0.8, 0.1],
        [0.6, 0.3, 0.1],
    ]
)


def _binary_problem(rng, n=60):
    """Random binary labels (both classes present), probabilities and weights."""
    y = np.r_[0, 1, rng.randint(0, 2, size=n - 2)]
    p = rng.uniform(size=n)
    w = rng.uniform(0.5, 2.0, size=n)
    return y, p, w


def _multiclass_problem(rng, n=60):
    """Random three-class labels (all present) and probability rows."""
    y = np.r_[0, 1, 2, rng.randint(0, 3, size=n - 3)]
    prob = rng.dirichlet(np.ones(3), size=n)
    return y, prob


def _read_only(a):
    a = np.array(a, copy=True)
    a.flags.writeable = False
    return a


# ---------------------------------------------------------------------------
# Rejections: one test per rejection of the contract
# ---------------------------------------------------------------------------


@parametrize_functions
@pytest.mark.parametrize("y_prob", [np.array([]), np.empty((0, 3))], ids=["1d", "2d"])
def test_empty_input_rejected(func, y_prob):
    """Check that empty input is rejected with a message naming y_prob."""
    with pytest.raises(ValueError, match=r"y_prob is empty \(0 samples\)"):
        func([], y_prob)


@parametrize_functions
def test_length_mismatch_y_true_y_prob_rejected(func):
    """Check that y_true and y_prob of different lengths are rejected."""
    with pytest.raises(
        ValueError,
        match=r"y_true and y_prob have inconsistent numbers of samples: 5 and 6",
    ):
        func(Y[:5], P)


@parametrize_functions
def test_length_mismatch_sample_weight_rejected(func):
    """Check that sample_weight of the wrong length is rejected."""
    with pytest.raises(
        ValueError, match=r"sample_weight has 5 entries but there are 6 samples"
    ):
        func(Y, P, sample_weight=np.ones(5))


@parametrize_functions
@pytest.mark.parametrize("multiclass", [False, True], ids=["1d", "2d"])
def test_nan_in_y_prob_rejected(func, multiclass):
    """Check that NaN in y_prob is rejected with the count of NaN."""
    y, prob = (Y3, P3.copy()) if multiclass else (Y, P.copy())
    prob[[1, 3]] = np.nan
    n_nan = np.count_nonzero(np.isnan(prob))
    with pytest.raises(ValueError, match=rf"y_prob contains {n_nan} NaN"):
        func(y, prob)


@parametrize_functions
@pytest.mark.parametrize("value", [np.inf, -np.inf], ids=["+inf", "-inf"])
def test_infinite_y_prob_rejected(func, value):
    """Check that infinite y_prob is rejected with the count of such values."""
    prob = P.copy()
    prob[[0, 4]] = value
    with pytest.raises(ValueError, match=r"y_prob contains 2 NaN or infinite"):
        func(Y, prob)


@parametrize_functions
def test_nan_in_float_y_true_rejected(func):
    """Check that NaN in a float y_true is rejected with the count of NaN."""
    y = Y.astype(np.float64)
    y[[2, 5]] = np.nan
    with pytest.raises(ValueError, match=r"y_true contains 2 NaN"):
        func(y, P)


@parametrize_functions
@pytest.mark.parametrize(
    "y_true",
    [
        np.array(["a", None, "b", "a", None, "b"], dtype=object),
        ["a", None, "b", "a", None, "b"],
        pd.Series(["a", None, "b", "a", None, "b"]),
    ],
    ids=["object-array", "list", "series"],
)
def test_none_in_object_y_true_rejected(func, y_true):
    """Check that None in an object y_true is rejected with the count of None."""
    with pytest.raises(ValueError, match=r"y_true contains 2 missing value\(s\)"):
        func(y_true, P, pos_label="b")


def test_nan_in_list_of_string_labels_rejected():
    """Check that a float NaN in a list of string labels is rejected.

    Regression test: ``np.asarray`` made NaN the string label ``"nan"``.
    """
    with pytest.raises(ValueError, match=r"y_true contains 1 missing value"):
        expected_calibration_error(
            ["a", float("nan"), "a"], [0.1, 0.2, 0.3], pos_label="a"
        )


@parametrize_functions
@pytest.mark.parametrize(
    "bad_values", [[-0.1, -1e-9], [1.2, 1 + 1e-9]], ids=["below-0", "above-1"]
)
def test_probabilities_outside_unit_interval_rejected(func, bad_values):
    """Check that probabilities outside [0, 1] are rejected with their count."""
    prob = P.copy()
    prob[[0, 3]] = bad_values
    with pytest.raises(
        ValueError, match=r"y_prob contains 2 value\(s\) outside \[0, 1\]"
    ):
        func(Y, prob)


@parametrize_functions
def test_multiclass_rows_not_summing_to_one_rejected(func):
    """Check that probability rows that do not sum to 1 are rejected and counted."""
    prob = P3.copy()
    prob[0] = [0.7, 0.2, 0.2]
    prob[4] = [0.1, 0.1, 0.1]
    with pytest.raises(ValueError, match=r"y_prob has 2 row\(s\) that do not sum to 1"):
        func(Y3, prob)


def test_float32_rows_off_by_1e7_accepted():
    """Check that float32 rows off by about 1e-7 from 1 are accepted."""
    prob = P3.astype(np.float32)
    # Two float32 ulps up on the first column: every row now sums to 1 only
    # within about 1e-7 (computed exactly in float64).
    for _ in range(2):
        prob[:, 0] = np.nextafter(prob[:, 0], np.float32(2))
    deviation = np.abs(prob.astype(np.float64).sum(axis=1) - 1)
    assert np.all((deviation > 1e-8) & (deviation < 3e-7))

    expected = expected_calibration_error(Y3, prob.astype(np.float64))
    assert_allclose(expected_calibration_error(Y3, prob), expected, rtol=1e-12)


def test_float64_row_off_by_1e4_rejected():
    """Check that one float64 row off by 1e-4 from 1 is rejected and counted."""
    prob = P3.copy()
    prob[2, 0] += 1e-4
    with pytest.raises(ValueError, match=r"y_prob has 1 row\(s\) that do not sum to 1"):
        expected_calibration_error(Y3, prob)


def test_row_sum_tolerance_is_relative_to_float32_input():
    """Check that the same rows pass as float32 but fail as float64 (100 classes)."""
    prob = np.full((4, 100), 0.01).astype(np.float32)
    prob[:, 0] += np.float32(3e-6)  # 3e-6 off: above 1e-6, within 100 float32 eps
    y, labels = [0, 1, 2, 3], np.arange(100)

    value = expected_calibration_error(y, prob, labels=labels)
    assert isinstance(value, float)
    with pytest.raises(ValueError, match=r"y_prob has 4 row\(s\) that do not sum to 1"):
        expected_calibration_error(y, prob.astype(np.float64), labels=labels)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_classes", [3, 10, 200])
def test_blocked_row_sums_count_the_rows_a_float64_sum_rejects(
    dtype, n_classes, monkeypatch, global_random_seed
):
    """Check the one-pass check against float64 sums of every row.

    Rows are pushed off 1 by amounts around the tolerance, so that the
    fast sums in the matrix's dtype decide some and the float64 recheck the
    others; blocks of a few rows make every block boundary count.
    """
    monkeypatch.setattr(_validation, "_BLOCK_BYTES", 5 * n_classes * 4)
    rng = np.random.default_rng(global_random_seed)
    p = rng.dirichlet(np.ones(n_classes), size=300).astype(dtype)
    eps = float(np.finfo(dtype).eps)
    tol = max(1e-6, n_classes * eps)
    shift = tol * rng.choice([0.0, 0.4, 0.6, 0.9, 1.1, 1.5, 3.0], size=300)
    p[:, 0] += (shift * rng.choice([-1, 1], size=300)).astype(dtype)
    p = np.abs(p)
    deviation = np.abs(p.astype(np.float64).sum(axis=1) - 1.0)

    y = rng.integers(0, n_classes, size=300)
    n_bad = int(np.count_nonzero(deviation > tol))
    assert 0 < n_bad < 300
    summary = _validation._matrix_summary(p, eps)
    assert (summary.lo, summary.hi) == (0.0, 1.0)  # bounds: every value is in them
    assert p.min() >= 0.0 and p.max() <= 1.0
    assert _validation._rows_not_summing_to_one(p, summary) == (
        n_bad,
        deviation.max(),
    )
    with pytest.raises(ValueError, match=rf"y_prob has {n_bad} row\(s\)"):
        check_calibration_inputs(y, p, labels=np.arange(n_classes))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16])
@pytest.mark.parametrize("offset", [0, 100])
def test_integer_labels_looked_up_as_by_search(dtype, offset, global_random_seed):
    """Check the table lookup of integer labels against a dictionary."""
    rng = np.random.default_rng(global_random_seed)
    signed = np.dtype(dtype).kind == "i"
    classes = (rng.permutation(7) * 3 + offset - (9 if signed else 0)).astype(dtype)
    y = rng.choice(classes, size=50)
    position = {c: i for i, c in enumerate(classes.tolist())}
    assert _validation._table_lookup(y, classes) is not None
    assert_array_equal(_encode(y, classes), [position[c] for c in y.tolist()])

    y[[3, 10]] = classes.max() + 1
    with pytest.raises(ValueError, match=r"contains 2 label\(s\) not among"):
        _encode(y, classes)


def test_float32_matrix_is_validated_in_place():
    """Check that a float32 matrix is neither copied nor cast to float64."""
    prob = P3.astype(np.float32)
    data = check_calibration_inputs(Y3, prob)
    assert data.y_prob.dtype == np.float32
    assert np.shares_memory(data.y_prob, prob)
    assert not data.y_prob.flags.writeable


@pytest.mark.parametrize("top", [False, True], ids=["range", "argmax"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("row", [0, 7, 29])
@pytest.mark.parametrize(
    "value", [-0.25, 1.5, np.inf, np.nan, "ulp above 1", "ulp below 0", -0.0, 1.0]
)
def test_range_check_finds_the_exact_range_from_any_block(
    dtype, row, value, top, monkeypatch
):
    """Check the range check by bits against min and max, wherever a value is.

    The matrix is checked in blocks of 2 rows: a value outside [+0.0, 1.0]
    sits in the first, a middle or the last block. Its range is then the
    exact minimum and maximum, of the blocks before it too. -0.0 is in
    [0, 1], so its rows' sums are checked as those of +0.0; 1.0 (the largest
    value in range) and the floats next to the ends probe the bits' bound.
    With ``top`` (as the check of a wide matrix asks), the row argmax
    replaces the largest value of each block: it is numpy's argmax when
    every value lies in [+0.0, 1.0], and not given otherwise (-0.0, which
    the bits misorder, included).
    """
    monkeypatch.setattr(_validation, "_BLOCK_BYTES", 2 * 3 * np.dtype(dtype).itemsize)
    one, zero = dtype(1.0), dtype(0.0)
    value = {
        "ulp above 1": np.nextafter(one, dtype(2.0)),
        "ulp below 0": np.nextafter(zero, dtype(-1.0)),
    }.get(value, value)
    p = np.tile(P3, (10, 1)).astype(dtype)
    p[[3, 12], :2] += np.asarray(0.01, dtype=dtype)  # two rows that sum to 1.02
    p[1] = [0.995, 0.005, 0.0]  # the extremes in [0, 1], in the first block
    in_range = value in (0.0, 1.0)
    p[row] = [value, 0.0, 0.0] if value == 1.0 else [value, 0.5, 0.5]
    eps = float(np.finfo(dtype).eps)
    summary = _validation._matrix_summary(p, eps, top=top)
    assert_array_equal([summary.lo, summary.hi], [p.min(), p.max()])
    if top and in_range and not np.signbit(value):
        argmax, maximum = summary.top
        assert_array_equal(argmax, np.argmax(p, axis=1))
        assert_array_equal(maximum, p.max(axis=1))
        assert maximum.dtype == p.dtype
    else:
        assert summary.top is None
    if in_range:
        clean = p.copy()
        clean[row] = np.abs(clean[row])
        assert_array_equal(
            summary.suspects, _validation._matrix_summary(clean, eps).suspects
        )
        with pytest.raises(ValueError, match=r"y_prob has 2 row\(s\)"):
            check_calibration_inputs(np.tile(Y3, 10), p)
    else:
        with pytest.raises(ValueError, match=r"y_prob contains 1 (NaN|value)"):
            check_calibration_inputs(np.tile(Y3, 10), p)


def test_nan_in_a_late_block_rejected(monkeypatch):
    """Check that the blocked range check sees every block."""
    monkeypatch.setattr(_validation, "_BLOCK_BYTES", 48)
    prob = np.tile(P3, (10, 1))
    prob[-1] = [np.nan, 0.5, 0.5]
    with pytest.raises(ValueError, match=r"y_prob contains 1 NaN"):
        check_calibration_inputs(np.tile(Y3, 10), prob)


@parametrize_functions
def test_y_prob_with_three_dimensions_rejected(func):
    """Check that a 3-D y_prob is rejected."""
    with pytest.raises(
        ValueError, match=r"y_prob must be 1-D or 2-D, got 3 dimensions"
    ):
        func(Y3, P3[:, :, None])


@parametrize_functions
def test_y_true_with_two_columns_rejected(func):
    """Check that a 2-D y_true with two columns is rejected."""
    y = np.c_[Y, 1 - Y]
    with pytest.raises(ValueError, match=r"y_true must be 1-D .*shape \(6, 2\)"):
        func(y, P)


@parametrize_functions
@pytest.mark.parametrize(
    "y_true, y_prob, labels, expected",
    [
        (np.r_[Y3[:4], 3, 3], P3, [0, 1, 2], r"\[0, 1, 2\]"),
        (np.r_[Y[:4], 2, 2], P, [0, 1], r"\[0, 1\]"),
    ],
    ids=["multiclass", "binary-1d"],
)
def test_labels_not_among_labels_rejected(func, y_true, y_prob, labels, expected):
    """Check that labels of y_true missing from labels= are rejected and counted."""
    with pytest.raises(
        ValueError,
        match=rf"y_true contains 2 label\(s\) not among the classes {expected}",
    ):
        func(y_true, y_prob, labels=labels)


@parametrize_functions
@pytest.mark.parametrize(
    "y_true, y_prob, kwargs, expected",
    [
        (Y, P, {"pos_label": 2}, r"pos_label=2 is not among the labels of y_true"),
        (
            Y,
            P,
            {"pos_label": 2, "labels": [0, 1]},
            r"pos_label=2 is not among labels \[0, 1\]",
        ),
        (
            Y,
            np.c_[1 - P, P],
            {"pos_label": 2},
            r"pos_label=2 is not among the classes \[0, 1\]",
        ),
        (Y3, P3, {"pos_label": 5}, r"pos_label=5 is not among the classes \[0, 1, 2\]"),
    ],
    ids=["binary", "binary-labels", "binary-2d", "multiclass"],
)
def test_absent_pos_label_rejected(func, y_true, y_prob, kwargs, expected):
    """Check that a pos_label absent from the classes is rejected."""
    with pytest.raises(ValueError, match=expected):
        func(y_true, y_prob, **kwargs)


@parametrize_functions
def test_string_labels_with_1d_y_prob_need_pos_label(func):
    """Check that string labels with a 1-D y_prob and no pos_label are rejected."""
    y = np.where(Y == 1, "b", "a")
    with pytest.raises(
        ValueError,
        match=r"y_true takes values in \{'a', 'b'\} and pos_label is not specified",
    ):
        func(y, P)


@parametrize_functions
def test_negative_weights_rejected(func):
    """Check that negative sample weights are rejected with their count."""
    w = np.array([1.0, -1.0, 2.0, -0.5, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"sample_weight contains 2 negative value"):
        func(Y, P, sample_weight=w)


@parametrize_functions
def test_nan_weights_rejected(func):
    """Check that NaN sample weights are rejected with their count."""
    w = np.array([1.0, np.nan, 2.0, np.nan, np.nan, 1.0])
    with pytest.raises(ValueError, match=r"sample_weight contains 3 NaN"):
        func(Y, P, sample_weight=w)


@parametrize_functions
def test_all_zero_weights_rejected(func):
    """Check that all-zero sample weights are rejected."""
    with pytest.raises(ValueError, match="weight.*zero") as excinfo:
        func(Y, P, sample_weight=np.zeros(6))
    excinfo.match(r"sample_weight: all 6 weights")


@parametrize_functions
def test_two_dimensional_weights_rejected(func):
    """Check that 2-D sample weights are rejected."""
    with pytest.raises(
        ValueError, match=r"sample_weight must be 1-D, got an array of shape \(6, 1\)"
    ):
        func(Y, P, sample_weight=np.ones((6, 1)))


@parametrize_functions
def test_1d_y_prob_with_three_classes_rejected(func):
    """Check that a 1-D y_prob with three classes in y_true is rejected."""
    with pytest.raises(ValueError, match=r"y_true has 3 classes but y_prob is 1-D"):
        func(Y3, P)


@parametrize_functions
@pytest.mark.parametrize(
    "labels, n_duplicated", [([0, 1, 1], 1), ([2, 0, 2, 2], 2)], ids=["1", "2"]
)
def test_duplicated_labels_rejected(func, labels, n_duplicated):
    """Check that labels= with duplicates is rejected with their count."""
    with pytest.raises(
        ValueError, match=rf"labels contains {n_duplicated} duplicated value"
    ):
        func(Y3, P3, labels=labels)


@parametrize_functions
@pytest.mark.parametrize(
    "y_true, y_prob, labels, expected",
    [
        (Y3, P3, [0, 1, 2, 3], r"labels has 4 classes but y_prob has 3 columns"),
        (Y3, P3, [0, 1], r"labels has 2 classes but y_prob has 3 columns"),
        (Y, P, [0, 1, 2], r"labels has 3 classes but a 1-D y_prob"),
    ],
    ids=["too-many", "too-few", "1d"],
)
def test_labels_of_wrong_length_rejected(func, y_true, y_prob, labels, expected):
    """Check that labels= whose length differs from the columns is rejected."""
    with pytest.raises(ValueError, match=expected):
        func(y_true, y_prob, labels=labels)


@parametrize_functions
def test_columns_differ_from_seen_labels_rejected(func):
    """Check that more columns than labels in y_true asks for labels=."""
    y = np.array([0, 1, 1, 0, 1, 0])
    with pytest.raises(
        ValueError,
        match=r"y_prob has 3 columns but y_true has 2 distinct labels.*pass labels=",
    ):
        func(y, P3)


@parametrize_functions
@pytest.mark.parametrize(
    "y_prob",
    [
        P.astype(object),
        P.astype(str),
        [str(v) for v in P],
    ],
    ids=["object", "str-array", "str-list"],
)
def test_non_numeric_y_prob_rejected(func, y_prob):
    """Check that y_prob of dtype object or str raises TypeError."""
    with pytest.raises(TypeError, match=r"y_prob must hold real numbers"):
        func(Y, y_prob)


MIXED_Y_TRUE = [0, "a", 0, "a", "a", 0]


@parametrize_functions
@pytest.mark.parametrize(
    "y_true",
    [
        np.array(MIXED_Y_TRUE, dtype=object),
        pd.Series(MIXED_Y_TRUE),
        # Regression: np.asarray turned the list into strings ("0" and "a").
        MIXED_Y_TRUE,
    ],
    ids=["object-array", "series", "list"],
)
def test_y_true_mixing_str_and_int_rejected(func, y_true):
    """Check that y_true mixing str and int labels raises TypeError."""
    with pytest.raises(TypeError, match=r"y_true"):
        func(y_true, P, pos_label="a")


@parametrize_functions
def test_ragged_y_prob_rejected(func):
    """Check that a ragged nested list for y_prob is rejected."""
    y_prob = [[0.5, 0.5], [1.0], [0.2, 0.8]]
    with pytest.raises(ValueError, match=r"y_prob could not be converted to an array"):
        func([0, 1, 1], y_prob)


# ---------------------------------------------------------------------------
# Accepted inputs: the same value as the plain float64 numpy equivalent
# ---------------------------------------------------------------------------

# Each case maps (y, p, w) of a binary problem (int labels in {0, 1}, float64
# probabilities and weights) to the positional arguments and keywords of an
# equivalent call.
BINARY_CASES = {
    "lists": lambda y, p, w: ((y.tolist(), p.tolist()), {"sample_weight": w.tolist()}),
    "series": lambda y, p, w: (
        (pd.Series(y), pd.Series(p)),
        {"sample_weight": pd.Series(w)},
    ),
    "dataframe": lambda y, p, w: (
        (pd.DataFrame({"y": y}), pd.DataFrame({"p": p})),
        {"sample_weight": w},
    ),
    "read-only": lambda y, p, w: (
        (_read_only(y), _read_only(p)),
        {"sample_weight": _read_only(w)},
    ),
    "float y_true": lambda y, p, w: ((y.astype(np.float64), p), {"sample_weight": w}),
    "bool y_true": lambda y, p, w: ((y.astype(bool), p), {"sample_weight": w}),
    "uint8 y_true": lambda y, p, w: ((y.astype(np.uint8), p), {"sample_weight": w}),
    "bool labels": lambda y, p, w: (
        (y.astype(bool), p),
        {"sample_weight": w, "labels": [False, True]},
    ),
    "labels -1 1": lambda y, p, w: ((np.where(y == 1, 1, -1), p), {"sample_weight": w}),
    "str labels pos_label": lambda y, p, w: (
        (np.where(y == 1, "yes", "no"), p),
        {"sample_weight": w, "pos_label": "yes"},
    ),
    "str labels object dtype": lambda y, p, w: (
        (np.where(y == 1, "yes", "no").astype(object), p),
        {"sample_weight": w, "pos_label": "yes"},
    ),
    "str labels with labels": lambda y, p, w: (
        (np.where(y == 1, "yes", "no"), p),
        {"sample_weight": w, "pos_label": "yes", "labels": ["no", "yes"]},
    ),
    "(n, 1) y_prob": lambda y, p, w: ((y, p[:, None]), {"sample_weight": w}),
    "(n, 1) y_true": lambda y, p, w: ((y[:, None], p), {"sample_weight": w}),
    "(n, 2) y_prob": lambda y, p, w: ((y, np.c_[1 - p, p]), {"sample_weight": w}),
    "int weights": lambda y, p, w: ((y, p), {"sample_weight": w}),
}


@pytest.mark.parametrize("case", list(BINARY_CASES))
def test_accepted_binary_inputs_match_float64(case, global_random_seed):
    """Check that accepted binary input types give the float64 numpy value."""
    rng = np.random.RandomState(global_random_seed)
    y, p, w = _binary_problem(rng)
    if case == "int weights":
        w = rng.randint(0, 4, size=y.shape[0])
        w[0] = 1
    args, kwargs = BINARY_CASES[case](y, p, w)

    expected = expected_calibration_error(
        y, p, sample_weight=np.asarray(w, dtype=np.float64), n_bins=7
    )
    result = expected_calibration_error(*args, n_bins=7, **kwargs)
    assert isinstance(result, float)
    assert_allclose(result, expected, rtol=1e-12, atol=1e-15)


def test_float32_y_prob_matches_float64(global_random_seed):
    """Check that float32 y_prob gives the value of its float64 conversion."""
    rng = np.random.RandomState(global_random_seed)
    y, p, w = _binary_problem(rng)
    p32, w32 = p.astype(np.float32), w.astype(np.float32)
    expected = expected_calibration_error(
        y, p32.astype(np.float64), sample_weight=w32.astype(np.float64)
    )
    result = expected_calibration_error(y, p32, sample_weight=w32)
    assert_allclose(result, expected, rtol=1e-12, atol=1e-15)


def test_str_labels_negative_pos_label_matches_float64(global_random_seed):
    """Check that pos_label naming the first sorted string label is respected."""
    rng = np.random.RandomState(global_random_seed)
    y, q, _ = _binary_problem(rng)
    # q is the probability of "no", the class of y == 0.
    y_str = np.where(y == 1, "yes", "no")
    expected = expected_calibration_error(1 - y, q)
    result = expected_calibration_error(y_str, q, pos_label="no")
    assert_allclose(result, expected, rtol=1e-12, atol=1e-15)


MULTICLASS_CASES = {
    "lists": lambda y, prob: ((y.tolist(), prob.tolist()), {}),
    "series and dataframe": lambda y, prob: (
        (pd.Series(y), pd.DataFrame(prob, columns=["a", "b", "c"])),
        {},
    ),
    "(n, 1) dataframe y_true": lambda y, prob: (
        (pd.DataFrame({"y": y}), pd.DataFrame(prob)),
        {},
    ),
    "read-only": lambda y, prob: ((_read_only(y), _read_only(prob)), {}),
    "float32": lambda y, prob: ((y, prob.astype(np.float32)), {}),
    "str labels": lambda y, prob: ((np.array(["a", "b", "c"])[y], prob), {}),
    "labels": lambda y, prob: ((y, prob), {"labels": [0, 1, 2]}),
    "permuted labels": lambda y, prob: ((y, prob[:, [2, 0, 1]]), {"labels": [2, 0, 1]}),
}


@pytest.mark.parametrize("case", list(MULTICLASS_CASES))
def test_accepted_multiclass_inputs_match_float64(case, global_random_seed):
    """Check that accepted multiclass input types give the float64 numpy value."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = _multiclass_problem(rng)
    args, kwargs = MULTICLASS_CASES[case](y, prob)
    if case == "float32":
        prob = prob.astype(np.float32).astype(np.float64)

    for reduction in ("top_label", "classwise"):
        expected = expected_calibration_error(y, prob, reduction=reduction)
        result = expected_calibration_error(*args, reduction=reduction, **kwargs)
        assert_allclose(result, expected, rtol=1e-12, atol=1e-15)


SINGLE_CLASS_MEASURES = {
    "ece": lambda y, p: expected_calibration_error(y, p, n_bins=1),
    "l1": lambda y, p: binned_calibration_error(y, p, n_bins=1, norm="l1"),
    "l2": lambda y, p: binned_calibration_error(y, p, n_bins=1, norm="l2"),
    "max": lambda y, p: binned_calibration_error(y, p, n_bins=1, norm="max"),
    "l2-debiased": lambda y, p: binned_calibration_error(
        y, p, n_bins=1, norm="l2", debias=True
    ),
    "classwise": lambda y, p: expected_calibration_error(
        y, p, n_bins=1, reduction="classwise"
    ),
}


@pytest.mark.parametrize("measure", list(SINGLE_CLASS_MEASURES))
@pytest.mark.parametrize(
    "label, event", [(0, 0.0), (1, 1.0), (-1, 0.0)], ids=["0", "1", "-1"]
)
@pytest.mark.parametrize("two_columns", [False, True], ids=["1d", "2d"])
def test_single_class_y_true_gives_a_float(measure, label, event, two_columns):
    """Check that a single class in y_true is valid and gives a float."""
    p = np.array([0.1, 0.2, 0.4, 0.9])
    y = np.full(p.shape[0], label)
    y_prob = np.c_[1 - p, p] if two_columns else p
    value = SINGLE_CLASS_MEASURES[measure](y, y_prob)
    assert isinstance(value, float)
    # One bin: every norm is |mean prediction - event rate|, and the debiasing
    # term y (1 - y) / (n - 1) vanishes since the event rate is 0 or 1. The
    # classwise mean of the two columns is the same number.
    assert_allclose(value, abs(p.mean() - event), rtol=1e-12, atol=1e-15)


def test_single_class_reliability_table():
    """Check that reliability_table accepts a single class in y_true."""
    table = reliability_table([1, 1, 1], [0.1, 0.2, 0.9], n_bins=2)
    assert_allclose(table.weight, [2.0, 1.0])
    assert_allclose(table.event_rate, [1.0, 1.0])
    assert_allclose(table.mean_predicted, [0.15, 0.9])


# ---------------------------------------------------------------------------
# Inputs are never modified
# ---------------------------------------------------------------------------


def _containers(kind, y, prob, w):
    if kind == "list":
        return y.tolist(), prob.tolist(), w.tolist()
    if kind == "ndarray":
        return y, prob, w
    if kind == "ndarray-float32":
        return y, prob.astype(np.float32), w.astype(np.float32)
    if kind == "pandas":
        y_prob = pd.Series(prob) if prob.ndim == 1 else pd.DataFrame(prob)
        return pd.Series(y), y_prob, pd.Series(w)
    raise ValueError(kind)


def _assert_unchanged(before, after):
    assert type(after) is type(before)
    if isinstance(before, list):
        assert after == before
    elif isinstance(before, pd.Series):
        pd.testing.assert_series_equal(after, before)
    elif isinstance(before, pd.DataFrame):
        pd.testing.assert_frame_equal(after, before)
    else:
        assert after.dtype == before.dtype
        assert_array_equal(after, before)
        assert after.flags.writeable


@parametrize_functions
@pytest.mark.parametrize("kind", ["list", "ndarray", "ndarray-float32", "pandas"])
@pytest.mark.parametrize("multiclass", [False, True], ids=["binary", "multiclass"])
def test_inputs_not_modified(func, kind, multiclass, global_random_seed):
    """Check that no public function modifies y_true, y_prob or sample_weight."""
    rng = np.random.RandomState(global_random_seed)
    if multiclass:
        y, prob = _multiclass_problem(rng, n=40)
        w = rng.uniform(size=40)
        reductions = ["auto", "positive", "top_label", "classwise"]
    else:
        y, prob, w = _binary_problem(rng, n=40)
        reductions = ["auto", "top_label", "classwise"]
    if func is reliability_table:
        reductions.remove("classwise")
    inputs = _containers(kind, y, prob, w)
    saved = copy.deepcopy(inputs)

    for reduction in reductions:
        for strategy in ("uniform", "quantile"):
            func(
                inputs[0],
                inputs[1],
                sample_weight=inputs[2],
                pos_label=1,
                reduction=reduction,
                strategy=strategy,
            )
            for before, after in zip(saved, inputs, strict=True):
                _assert_unchanged(before, after)


@parametrize_functions
@pytest.mark.parametrize("multiclass", [False, True], ids=["binary", "multiclass"])
def test_read_only_inputs_accepted(func, multiclass, global_random_seed):
    """Check that read-only arrays give the same result as writeable ones."""
    rng = np.random.RandomState(global_random_seed)
    if multiclass:
        y, prob = _multiclass_problem(rng, n=40)
        w = rng.uniform(size=40)
    else:
        y, prob, w = _binary_problem(rng, n=40)
    for strategy in ("uniform", "quantile"):
        expected = func(y, prob, sample_weight=w, strategy=strategy)
        result = func(
            _read_only(y),
            _read_only(prob),
            sample_weight=_read_only(w),
            strategy=strategy,
        )
        if func is reliability_table:
            assert result.keys() == expected.keys()
            for key in expected:
                assert_allclose(result[key], expected[key], atol=1e-15)
        else:
            assert_allclose(result, expected, rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------------------
# CalibrationData: the canonical form, on hand-checkable inputs
# ---------------------------------------------------------------------------


def test_calibration_data_binary_int_labels():
    """Check that {0, 1} labels make 1 positive, with float64 read-only views."""
    w = np.array([1, 2, 3, 1, 2, 3])
    data = check_calibration_inputs(Y, P.astype(np.float32), sample_weight=w)
    assert isinstance(data, CalibrationData)
    assert data.binary is True
    assert data.pos_index == 1
    assert_array_equal(data.classes, [0, 1])
    assert data.y_true.dtype == bool
    assert_array_equal(data.y_true, Y == 1)
    assert data.y_prob.dtype == np.float64
    assert_array_equal(data.y_prob, P.astype(np.float32))
    assert data.sample_weight.dtype == np.float64
    # The contract divides the weights by a power of two (exactly), so that
    # the largest is in [1, 2), and keeps the scale.
    assert data.weight_scale == 2.0
    assert_array_equal(data.sample_weight, w / 2.0)
    for array in (data.y_true, data.y_prob, data.sample_weight):
        assert not array.flags.writeable


def test_calibration_data_minus_one_one_labels():
    """Check that {-1, 1} labels make 1 positive."""
    data = check_calibration_inputs([-1, 1, 1, -1], [0.2, 0.7, 0.9, 0.4])
    assert_array_equal(data.classes, [-1, 1])
    assert_array_equal(data.y_true, [False, True, True, False])
    assert data.sample_weight is None


@pytest.mark.parametrize(
    "pos_label, classes, indicator",
    [("b", ["a", "b"], [False, True, False]), ("a", ["b", "a"], [True, False, True])],
)
def test_calibration_data_string_labels(pos_label, classes, indicator):
    """Check that pos_label sets the positive class of string labels."""
    data = check_calibration_inputs(
        ["a", "b", "a"], [0.1, 0.2, 0.3], pos_label=pos_label
    )
    assert data.binary is True
    assert data.pos_index == 1
    assert_array_equal(data.classes, classes)
    assert_array_equal(data.y_true, indicator)
    assert_array_equal(data.y_prob, [0.1, 0.2, 0.3])


@pytest.mark.parametrize(
    "pos_label, column, classes, indicator",
    [
        (None, 1, ["a", "b"], [False, True, False]),
        ("b", 1, ["a", "b"], [False, True, False]),
        ("a", 0, ["a", "b"], [True, False, True]),
    ],
)
def test_calibration_data_two_columns_select_pos_label(
    pos_label, column, classes, indicator
):
    """Check that a (n, 2) y_prob keeps the column of pos_label, classes in order."""
    y_prob = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3]])
    data = check_calibration_inputs(["a", "b", "a"], y_prob, pos_label=pos_label)
    assert data.binary is True
    assert data.pos_index == column
    assert data.y_prob.ndim == 1
    assert_array_equal(data.y_prob, y_prob[:, column])
    assert_array_equal(data.classes, classes)
    assert_array_equal(data.y_true, indicator)


def test_calibration_data_multiclass_default_order():
    """Check that without labels= the columns follow the sorted labels of y_true."""
    data = check_calibration_inputs(["c", "a", "b", "a"], P3[:4])
    assert data.binary is False
    assert data.pos_index is None
    assert_array_equal(data.classes, ["a", "b", "c"])
    assert_array_equal(data.y_true, [2, 0, 1, 0])
    assert data.y_prob.shape == (4, 3)


def test_calibration_data_labels_reorder_columns():
    """Check that labels= names the class of each column."""
    data = check_calibration_inputs([0, 1, 2, 2], P3[:4], labels=[2, 0, 1], pos_label=0)
    assert data.binary is False
    assert_array_equal(data.classes, [2, 0, 1])
    assert_array_equal(data.y_true, [1, 2, 0, 0])  # column of each label
    assert data.pos_index == 1  # the column of class 0
    assert_array_equal(data.y_prob, P3[:4])


def test_labels_reordering_columns_leaves_measures_unchanged(global_random_seed):
    """Check that permuting columns together with labels= changes nothing."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = _multiclass_problem(rng)
    perm = [1, 2, 0]
    for reduction in ("top_label", "classwise"):
        expected = expected_calibration_error(y, prob, reduction=reduction)
        result = expected_calibration_error(
            y, prob[:, perm], labels=perm, reduction=reduction
        )
        assert_allclose(result, expected, rtol=1e-12, atol=1e-15)
    expected = expected_calibration_error(y, prob, reduction="positive", pos_label=2)
    result = expected_calibration_error(
        y, prob[:, perm], labels=perm, reduction="positive", pos_label=2
    )
    assert_allclose(result, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "label, classes", [(1, [0, 1]), (0, [0, 1]), (-1, [-1, 1])], ids=["1", "0", "-1"]
)
def test_calibration_data_single_class_two_columns(label, classes):
    """Check that a single class with a (n, 2) y_prob completes the binary classes."""
    y_prob = np.array([[0.9, 0.1], [0.8, 0.2]])
    data = check_calibration_inputs([label, label], y_prob)
    assert data.binary is True
    assert_array_equal(data.classes, classes)
    assert_array_equal(data.y_true, [label == 1, label == 1])
    assert_array_equal(data.y_prob, [0.1, 0.2])


# ---------------------------------------------------------------------------
# Parameter validation
# ---------------------------------------------------------------------------


def test_invalid_parameter_error_is_value_and_type_error():
    """Check that InvalidParameterError subclasses both ValueError and TypeError."""
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)
    for base in (ValueError, TypeError):
        with pytest.raises(base):
            binned_calibration_error(Y, P, n_bins=0)


def test_invalid_parameter_message_shape():
    """Check that the error reads like scikit-learn's parameter validation."""
    expected = (
        "The 'n_bins' parameter of binned_calibration_error must be an int in the "
        "range [1, inf) or a str among {'cube_root'}. Got 0 instead."
    )
    with pytest.raises(InvalidParameterError, match=f"^{re.escape(expected)}$"):
        binned_calibration_error(Y, P, n_bins=0)


@pytest.mark.parametrize("value", [True, False, np.True_], ids=repr)
def test_booleans_rejected_for_integral_interval(value):
    """Check that booleans do not satisfy an Interval(Integral) constraint."""
    assert not Interval(Integral, 0, None, closed="left").is_satisfied_by(value)
    with pytest.raises(
        InvalidParameterError,
        match=re.escape("The 'n_bins' parameter of binned_calibration_error must be"),
    ) as excinfo:
        binned_calibration_error(Y, P, n_bins=value)
    excinfo.match(re.escape(f"Got {value!r} instead."))


def test_numpy_integers_satisfy_integral_interval():
    """Check that numpy integers are accepted where an int is expected."""
    assert_allclose(
        binned_calibration_error(Y, P, n_bins=np.int64(4)),
        binned_calibration_error(Y, P, n_bins=4),
        rtol=1e-15,
        atol=1e-15,
    )


@pytest.mark.parametrize(
    "constraints, value, text",
    [
        ([Interval(Real, 0, 1, closed="both")], 2.0, "a float in the range [0, 1]"),
        (
            [Interval(Real, 0, None, closed="neither"), None],
            0.0,
            "a float in the range (0, inf) or None",
        ),
        ([StrOptions({"b", "a"})], "c", "a str among {'a', 'b'}"),
        (["boolean"], 1, "an instance of 'bool'"),
        (["array-like", None], "abc", "an array-like or None"),
        (
            [Interval(Integral, 1, None, closed="left"), "boolean", None],
            0,
            "an int in the range [1, inf), an instance of 'bool' or None",
        ),
    ],
)
def test_validate_parameter_constraints_messages(constraints, value, text):
    """Check the message of each kind of constraint."""
    expected = f"The 'x' parameter of f must be {text}. Got {value!r} instead."
    with pytest.raises(InvalidParameterError, match=f"^{re.escape(expected)}$"):
        validate_parameter_constraints({"x": constraints}, {"x": value}, "f")


def test_unconstrained_parameters_are_unchecked():
    """Check that parameters without constraints are not checked."""
    validate_parameter_constraints({"x": [StrOptions({"x"})]}, {"y": object()}, "f")


@pytest.mark.parametrize("norm", ["l1", "max"])
def test_debias_needs_l2_norm(norm):
    """Check that debias=True with norm other than l2 raises a ValueError."""
    with pytest.raises(ValueError, match=r'debias=True is only defined for norm="l2"'):
        binned_calibration_error(Y, P, norm=norm, debias=True)
    assert isinstance(binned_calibration_error(Y, P, norm="l2", debias=True), float)


@pytest.mark.parametrize(
    "func",
    [binned_calibration_error, expected_calibration_error],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("reduction", ["auto", "positive", "top_label"])
@pytest.mark.parametrize("multiclass", [False, True], ids=["binary", "multiclass"])
def test_return_per_class_needs_classwise(func, reduction, multiclass):
    """Check that return_per_class=True needs reduction='classwise'."""
    y, y_prob = (Y3, P3) if multiclass else (Y, P)
    with pytest.raises(
        ValueError, match=r'return_per_class=True needs reduction="classwise"'
    ):
        func(y, y_prob, pos_label=1, reduction=reduction, return_per_class=True)
    per_class = func(y, y_prob, reduction="classwise", return_per_class=True)
    assert per_class.shape == ((3,) if multiclass else (2,))


@parametrize_functions
def test_positive_reduction_on_multiclass_needs_pos_label(func):
    """Check that reduction='positive' on three classes needs pos_label."""
    with pytest.raises(ValueError, match=r'reduction="positive" .*needs pos_label='):
        func(Y3, P3, reduction="positive")
    # With pos_label, it is the one-vs-rest problem of that class.
    result = func(Y3, P3, reduction="positive", pos_label=2)
    expected = func(Y3 == 2, P3[:, 2])
    if func is reliability_table:
        for key in expected:
            assert_allclose(result[key], expected[key], atol=1e-15)
    else:
        assert_allclose(result, expected, rtol=1e-12, atol=1e-15)


def test_nested_validation_is_skipped():
    """Check that a validated call skips the validation of nested calls."""
    positive = {"x": [Interval(Integral, 1, None, closed="left")]}

    @validate_params(positive, prefer_skip_nested_validation=True)
    def inner(x):
        return x

    @validate_params(positive, prefer_skip_nested_validation=True)
    def outer_skipping(x):
        return inner(-x)

    @validate_params(positive, prefer_skip_nested_validation=False)
    def outer_checking(x):
        return inner(-x)

    assert outer_skipping(3) == -3
    with pytest.raises(InvalidParameterError, match=r"The 'x' parameter of .*inner"):
        outer_checking(3)
    # The skip lasts only for the duration of the outer call.
    with pytest.raises(InvalidParameterError, match=r"The 'x' parameter of .*inner"):
        inner(-3)
    # The outer call is itself validated.
    with pytest.raises(InvalidParameterError, match=r"of .*outer_skipping"):
        outer_skipping(0)


def test_expected_calibration_error_validates_as_itself():
    """Check that expected_calibration_error validates once, under its own name."""
    for n_bins in (4, "cube_root"):
        assert_allclose(
            expected_calibration_error(Y3, P3, n_bins=n_bins),
            binned_calibration_error(Y3, P3, n_bins=n_bins, norm="l1"),
            rtol=1e-15,
            atol=1e-15,
        )
    with pytest.raises(
        InvalidParameterError,
        match=r"The 'n_bins' parameter of expected_calibration_error",
    ):
        expected_calibration_error(Y, P, n_bins=0)


@pytest.mark.parametrize(
    "constraints",
    [
        {"x": [None]},
        {"x": [None], "y": [None], "z": [None]},
        {"x": [None], "w": [None]},
    ],
    ids=["missing", "extra", "misnamed"],
)
def test_validate_params_rejects_mismatched_constraints(constraints):
    """Check that validate_params checks the constraint keys at decoration time."""
    decorator = validate_params(constraints, prefer_skip_nested_validation=True)

    def func(x, *, y=None):
        return x

    with pytest.raises(
        ValueError, match=r"Constraints of .*func do not match its signature"
    ):
        decorator(func)


def test_validate_params_records_constraints():
    """Check that the decorated function keeps its constraints and metadata."""
    constraints = {"x": [None], "y": ["boolean"]}

    @validate_params(constraints, prefer_skip_nested_validation=True)
    def func(x, *, y=False):
        """Docstring."""
        return x

    assert func._skcal_parameter_constraints is constraints
    assert func.__name__ == "func"
    assert func.__doc__ == "Docstring."
    assert func(None, y=True) is None
    with pytest.raises(InvalidParameterError, match=r"The 'y' parameter of"):
        func(None, y=1)


@parametrize_functions
def test_mixed_labels_in_labels_argument_rejected(func):
    """Check that a labels list mixing str and int raises TypeError."""
    with pytest.raises(TypeError, match=r"labels"):
        func([0, 0, 1], np.full((3, 2), 0.5), labels=[0, "a"])


@pytest.mark.parametrize(
    "y_true, pos_label", [(["a", "a", "a"], "b"), ([0, 0, 0], 5), ([1, 1, 1], 0)]
)
def test_single_class_with_other_pos_label_is_all_negative(y_true, pos_label):
    """Check that a pos_label absent from a one-class y_true means no positives.

    A cross-validation fold may hold one class only; the scorer still passes
    the estimator's positive class, which must not be an error.
    """
    p = [0.1, 0.2, 0.3]
    data = check_calibration_inputs(y_true, p, pos_label=pos_label)
    assert not data.y_true.any()
    assert data.classes[1] == pos_label
    assert_allclose(
        expected_calibration_error(y_true, p, pos_label=pos_label, n_bins=1), 0.2
    )


# ---------------------------------------------------------------------------
# Regression tests from the first review
# ---------------------------------------------------------------------------


def test_pandas_nullable_dtypes_are_accepted():
    """Check that pandas nullable inputs give the value of plain numpy inputs."""
    y_prob = np.array(
        [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.6, 0.3, 0.1]]
    )
    y_true = np.array([0, 1, 2, 1])
    expected = expected_calibration_error(y_true, y_prob, n_bins=3)
    frame = pd.DataFrame(y_prob).astype("Float64")
    assert (
        expected_calibration_error(pd.Series(y_true, dtype="Int64"), frame, n_bins=3)
        == expected
    )
    binary = expected_calibration_error([True, False, True], [0.9, 0.4, 0.6])
    assert (
        expected_calibration_error(
            pd.Series([True, False, True], dtype="boolean"),
            pd.Series([0.9, 0.4, 0.6], dtype="Float64"),
        )
        == binary
    )
    names = pd.Series(["b", "a", "b"], dtype="string")
    assert expected_calibration_error(names, [0.9, 0.4, 0.6], pos_label="b") == binary


@pytest.mark.parametrize(
    "y_true",
    [
        pd.Series(["a", pd.NA, "b"], dtype="string"),
        pd.Series([0, pd.NA, 1], dtype="Int64"),
        np.array(["a", np.float32("nan"), "b"], dtype=object),
    ],
    ids=["string-NA", "Int64-NA", "float32-nan-object"],
)
def test_missing_labels_of_other_kinds_are_rejected(y_true):
    """Check that pandas NA and numpy float NaN labels count as missing values."""
    with pytest.raises(ValueError, match=r"y_true contains 1 (missing|NaN)"):
        expected_calibration_error(y_true, [0.1, 0.2, 0.3], pos_label="b")


def test_missing_probabilities_in_nullable_frame_are_rejected():
    """Check that NA in a nullable Float64 y_prob is reported as NaN."""
    frame = pd.DataFrame({"p": [0.2, None, 0.4]}, dtype="Float64")["p"]
    with pytest.raises(ValueError, match=r"y_prob contains 1 NaN"):
        expected_calibration_error([0, 1, 1], frame)


def test_sparse_y_prob_is_rejected():
    """Check that a sparse y_prob gets a clear TypeError."""
    from scipy.sparse import csr_matrix

    with pytest.raises(TypeError, match=r"y_prob is a sparse matrix"):
        expected_calibration_error(
            [0, 1], csr_matrix(np.array([[0.3, 0.7], [0.4, 0.6]]))
        )


def test_data_frame_column_names_name_the_classes():
    """Check that a y_prob data frame whose columns are the classes is read by name."""
    y_prob = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    y_true = pd.Series(["c", "a", "b"])
    frame = pd.DataFrame(y_prob, columns=["c", "a", "b"])
    expected = expected_calibration_error(y_true, y_prob, labels=["c", "a", "b"])
    assert expected_calibration_error(y_true, frame) == expected
    # Column names that are not the classes are ignored.
    other = pd.DataFrame(y_prob, columns=["p0", "p1", "p2"])
    assert expected_calibration_error(y_true, other) == expected_calibration_error(
        y_true, y_prob
    )


def test_object_string_labels_are_fast_path():
    """Check that object arrays of str give the value of the same labels as str."""
    labels = np.array(["x", "y", "x", "y"], dtype=object)
    assert expected_calibration_error(labels, [0.2, 0.6, 0.3, 0.9], pos_label="y") == (
        expected_calibration_error(
            labels.astype(str), [0.2, 0.6, 0.3, 0.9], pos_label="y"
        )
    )


def test_import_without_docstrings():
    """Check that skcal imports and runs under python -OO (docstrings stripped)."""
    import subprocess
    import sys

    code = "import skcal; print(skcal.expected_calibration_error([0, 1], [0.2, 0.7]))"
    result = subprocess.run(
        [sys.executable, "-OO", "-c", code], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "0.25"


def test_single_class_keeps_label_types():
    """Check that the implied negative class does not turn labels into strings."""
    data = check_calibration_inputs(["a", "a"], [0.2, 0.3], pos_label="b")
    assert data.classes.tolist() == ["a", "b"]
    data = check_calibration_inputs(np.array(["a", "a"]), [0.2, 0.3], pos_label=5)
    assert data.classes.tolist() == ["a", 5]


# ---------------------------------------------------------------------------
# Recalibrator data: scores, targets, fitted classifiers (issue 4)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scores, kind",
    [
        ([0.1, 0.5, 0.9], "probability"),
        ([-1.0, 0.5, 2.0], "logit"),
        ([[0.2, 0.8], [0.6, 0.4], [1.0, 0.0]], "probability"),
        ([[0.2, 0.7], [0.6, 0.4], [1.0, 0.0]], "logit"),
    ],
)
def test_check_scores_detects_the_kind(scores, kind):
    """Check that probabilities are detected by range and row sums, else logits."""
    assert check_scores(scores, n_classes=2).kind == kind


def test_check_scores_reduces_binary_columns():
    """Check that two binary columns become the positive class's score."""
    proba = check_scores([[0.2, 0.8], [0.6, 0.4]], n_classes=2)
    assert_allclose(proba.values, [0.8, 0.4])
    logits = check_scores([[1.0, 3.0], [0.5, -1.0]], n_classes=2)
    assert logits.kind == "logit"
    assert_allclose(logits.values, [2.0, -1.5])
    single = check_scores([[0.3], [0.7]], n_classes=2)
    assert single.values.shape == (2,)


def test_check_scores_forced_kinds():
    """Check that a forced kind is kept, and validated for probabilities."""
    assert check_scores([0.1, 0.5], n_classes=2, input="logit").kind == "logit"
    with pytest.raises(ValueError, match="1 value\\(s\\) outside \\[0, 1\\]"):
        check_scores([0.1, 1.5], n_classes=2, input="probability")
    with pytest.raises(ValueError, match="1 row\\(s\\) that do not sum to 1"):
        check_scores(
            [[0.2, 0.3, 0.5], [0.2, 0.2, 0.2]], n_classes=3, input="probability"
        )


@pytest.mark.parametrize(
    "scores, n_classes, match",
    [
        (np.zeros((3, 3)), 2, "3 feature\\(s\\).*2 classes.*1 or 2 column"),
        (np.zeros((3, 2)), 3, "2 feature\\(s\\).*3 classes.*3 column"),
        (np.zeros(3), 4, "1 feature\\(s\\)"),
        (np.zeros((2, 2, 2)), 2, "1-D or 2-D"),
        (np.zeros((0, 2)), 2, "empty"),
        ([0.1, np.nan], 2, "1 NaN or infinite"),
        (["a", "b"], 2, "real numbers"),
    ],
)
def test_check_scores_rejections(scores, n_classes, match):
    """Check that malformed scores are refused with the count of bad entries."""
    with pytest.raises((ValueError, TypeError), match=match):
        check_scores(scores, n_classes=n_classes)


def test_check_recalibration_target():
    """Check labels: sorted classes, encoding, and the rejections."""
    y_index, classes = check_recalibration_target(["b", "a", "b"])
    assert_array_equal(classes, ["a", "b"])
    assert_array_equal(y_index, [1, 0, 1])
    y_index, classes = check_recalibration_target([2, 0], classes=np.array([2, 1, 0]))
    assert_array_equal(y_index, [0, 2])
    with pytest.raises(ValueError, match="1 label\\(s\\) not among the classes"):
        check_recalibration_target([0, 1, 5], classes=np.array([0, 1]))
    with pytest.raises(ValueError, match="one class only"):
        check_recalibration_target([1, 1, 1])
    with pytest.raises(ValueError, match="empty"):
        check_recalibration_target([])
    with pytest.raises(ValueError, match="Unknown label type"):
        check_recalibration_target([0.5, 1.5, 0.25])


def test_check_recalibration_weights():
    """Check that weights must keep two classes of positive weight."""
    y_index = np.array([0, 1, 0, 1])
    assert check_recalibration_weights(None, y_index) is None
    assert_allclose(check_recalibration_weights([1, 2, 0, 1], y_index), [1, 2, 0, 1])
    with pytest.raises(ValueError, match="but those of one class"):
        check_recalibration_weights([1, 0, 1, 0], y_index)
    with pytest.raises(ValueError, match="weights are zero"):
        check_recalibration_weights([0, 0, 0, 0], y_index)


def test_check_score_features_one_dimensional():
    """Check that 1-D scores are one column, and refused where several were fitted."""
    from sklearn.base import BaseEstimator

    est = BaseEstimator()
    X = check_score_features(est, [0.1, 0.2, 0.3], reset=True)
    assert X.shape == (3, 1) and est.n_features_in_ == 1
    est.n_features_in_ = 3
    with pytest.raises(ValueError, match="Reshape your data to \\(n_samples, 3\\)"):
        check_score_features(est, [0.1, 0.2], reset=False)


def test_check_fitted_classifier():
    """Check that an unfitted or non-classifier estimator is refused."""
    from sklearn.exceptions import NotFittedError
    from sklearn.linear_model import LinearRegression, LogisticRegression

    with pytest.raises(NotFittedError, match="is not fitted.*FrozenEstimator"):
        check_fitted_classifier(LogisticRegression(), "Owner")
    regression = LinearRegression().fit([[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(TypeError, match="no classes_ attribute"):
        check_fitted_classifier(regression, "Owner")


def test_fit_context_validates_and_skips_nested():
    """Check that fit_context validates parameters once, skipping nested fits."""
    calls = []

    class Inner:
        _parameter_constraints = {"k": [Interval(Integral, 1, None, closed="left")]}

        def __init__(self, k):
            self.k = k

        def get_params(self, deep=False):
            return {"k": self.k}

        @fit_context(prefer_skip_nested_validation=True)
        def fit(self):
            calls.append(self.k)
            return self

    class Outer(Inner):
        @fit_context(prefer_skip_nested_validation=True)
        def fit(self):
            return Inner(0).fit()

    with pytest.raises(InvalidParameterError, match="'k' parameter of Inner"):
        Inner(0).fit()
    Outer(1).fit()  # the nested Inner(0) is not validated
    assert calls == [0]


@pytest.mark.parametrize("cv", [None, 3, [([0, 1], [2])], range(2)])
def test_cv_object_constraint_accepts(cv):
    """Check that the cv_object constraint accepts what check_cv accepts."""
    validate_parameter_constraints({"cv": ["cv_object"]}, {"cv": cv}, "f")


@pytest.mark.parametrize("cv", [1, 2.5, "five", True])
def test_cv_object_constraint_rejects(cv):
    """Check that the cv_object constraint refuses other values."""
    with pytest.raises(InvalidParameterError, match="'cv' parameter of f"):
        validate_parameter_constraints({"cv": ["cv_object"]}, {"cv": cv}, "f")


@pytest.mark.parametrize(
    "y",
    [
        np.array([3, 1, 3, 7, -2]),
        np.array([True, False, True]),
        np.array([255, 0, 255], dtype=np.uint8),
        np.array([0, 5_000_000_000]),  # a range too wide to count
        np.array(["b", "a", "b"]),
        np.array([2.5, 1.0, 2.5]),
    ],
)
def test_unique_labels_equal_numpy_unique(y):
    """Check the shortcuts to the distinct labels and their indices."""
    classes = _unique_labels(y)
    index = _encode(y, classes)
    expected_classes, expected_index = np.unique(y, return_inverse=True)
    assert_array_equal(classes, expected_classes)
    assert classes.dtype == expected_classes.dtype
    assert_array_equal(index, expected_index)
