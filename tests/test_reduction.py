"""Tests of the binary views behind ``reduction=``."""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcal import _validation
from skcal._reduction import (
    binary_views,
    reduce_measure,
    resolve_reduction,
    row_argmax,
    top_of_rows,
)
from skcal._validation import check_calibration_inputs
from skcal.metrics import expected_calibration_error

PROB = np.array(
    [
        [0.7, 0.2, 0.1],
        [0.1, 0.3, 0.6],
        [0.4, 0.4, 0.2],  # tie between the first two classes
        [0.2, 0.5, 0.3],
    ]
)
Y = np.array(["a", "c", "b", "b"])


def _views(y_true, y_prob, reduction, **kwargs):
    data = check_calibration_inputs(y_true, y_prob, **kwargs)
    return [
        (y.astype(int).tolist(), p.tolist())
        for y, p in binary_views(data, resolve_reduction(data, reduction))
    ]


def test_auto_is_positive_for_binary_and_top_label_otherwise():
    """Check the resolution of reduction="auto"."""
    assert resolve_reduction(check_calibration_inputs([0, 1], [0.2, 0.9]), "auto") == (
        "positive"
    )
    assert resolve_reduction(check_calibration_inputs(Y, PROB), "auto") == "top_label"


def test_top_label_view():
    """Check confidences and correctness, with argmax ties going to the first class."""
    ((y, p),) = _views(Y, PROB, "top_label")
    assert_allclose(p, [0.7, 0.6, 0.4, 0.5])
    assert y == [1, 1, 0, 1]


def test_classwise_views():
    """Check that classwise gives one one-vs-rest view per class in column order."""
    views = _views(Y, PROB, "classwise")
    assert len(views) == 3
    assert views[0] == ([1, 0, 0, 0], PROB[:, 0].tolist())
    assert views[1] == ([0, 0, 1, 1], PROB[:, 1].tolist())
    assert views[2] == ([0, 1, 0, 0], PROB[:, 2].tolist())


def test_positive_view_of_a_multiclass_problem():
    """Check that reduction="positive" with pos_label is that class's column."""
    ((y, p),) = _views(Y, PROB, "positive", pos_label="b")
    assert y == [0, 0, 1, 1]
    assert p == PROB[:, 1].tolist()


def test_positive_on_multiclass_needs_pos_label():
    """Check that reduction="positive" on a multiclass problem asks for pos_label."""
    with pytest.raises(ValueError, match="pos_label"):
        expected_calibration_error(Y, PROB, reduction="positive")


def test_binary_views_of_both_forms_are_identical():
    """Check that (n, 2) and 1-D binary inputs give identical views."""
    p = np.array([0.1, 0.5, 0.8, 0.35])
    y = [0, 1, 1, 0]
    for reduction in ("positive", "top_label", "classwise"):
        assert _views(y, p, reduction) == _views(
            y, np.column_stack([1 - p, p]), reduction
        )


def test_binary_top_label_ties_go_to_the_negative_class():
    """Check that p = 0.5 predicts the negative (first) class."""
    ((y, p),) = _views([0, 1], [0.5, 0.5], "top_label")
    assert y == [1, 0]
    assert p == [0.5, 0.5]


def test_reduce_measure_mean_and_vector():
    """Check that classwise averages with equal class weights or returns the vector."""
    data = check_calibration_inputs(Y, PROB)

    def measure(y, p, w):
        return float(np.mean(p))

    vector = reduce_measure(data, "classwise", measure, return_per_class=True)
    assert_array_equal(vector, PROB.mean(axis=0))
    assert reduce_measure(data, "classwise", measure) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="classwise"):
        reduce_measure(data, "top_label", measure, return_per_class=True)


def test_views_do_not_copy_binary_input():
    """Check that the positive view of binary data shares memory with the input."""
    p = np.array([0.1, 0.7, 0.4])
    data = check_calibration_inputs([0, 1, 1], p)
    ((_, view),) = binary_views(data, "positive")
    assert np.shares_memory(view, p)
    assert not view.flags.writeable


@pytest.mark.parametrize(
    "y_prob, kwargs",
    [
        ([[0.5, 0.5], [0.5, 0.5], [0.9, 0.1]], {}),
        ([[0.5, 0.5], [0.5, 0.5], [0.9, 0.1]], {"pos_label": 0}),
        ([[0.5, 0.5], [0.5, 0.5], [0.9, 0.1]], {"labels": [0, 1], "pos_label": 0}),
    ],
)
def test_binary_top_label_ties_follow_column_order(y_prob, kwargs):
    """Check that binary top-label ties go to the first column whatever pos_label is.

    Regression test: the tie went to the negative class, so pos_label=0 flipped it.
    """
    y_true = [0, 0, 0]
    expected = expected_calibration_error(
        y_true, np.c_[np.asarray(y_prob), np.zeros(3)], labels=[0, 1, 2]
    )
    assert_allclose(
        expected_calibration_error(y_true, y_prob, reduction="top_label", **kwargs),
        expected,
    )


def test_binary_classwise_vector_follows_column_order():
    """Check that per-class values of a binary (n, 2) input follow its columns."""
    p = np.array([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4]])
    y = ["a", "b", "b"]
    forward = expected_calibration_error(
        y, p, reduction="classwise", return_per_class=True, n_bins=4
    )
    swapped = expected_calibration_error(
        y, p, reduction="classwise", return_per_class=True, n_bins=4, pos_label="a"
    )
    assert_allclose(forward, swapped)
    column_a = expected_calibration_error(np.array(y) == "a", p[:, 0], n_bins=4)
    assert_allclose(forward[0], column_a)


def test_pos_label_selects_the_multiclass_view():
    """Check that pos_label with reduction="auto" gives that class's view."""
    got = expected_calibration_error(Y, PROB, pos_label="c", n_bins=4)
    expected = expected_calibration_error(Y == "c", PROB[:, 2], n_bins=4)
    assert_allclose(got, expected)
    assert got != expected_calibration_error(Y, PROB, n_bins=4)


def test_row_argmax_of_read_only_views_leaves_the_input_intact():
    """Check the argmax of validated matrices against numpy's, input untouched.

    The validated matrix is a read-only view; the argmax reads the caller's
    array when that is writeable and the same memory, and the view
    otherwise (a read-only input, a strided slice).
    """
    rng = np.random.RandomState(0)
    matrix = rng.dirichlet(np.ones(5), size=300)
    matrix[:10] = 0.2  # ties go to the first column
    frozen = matrix.copy()
    frozen.flags.writeable = False
    for given in (matrix, frozen, np.asfortranarray(matrix), matrix[::2]):
        copy = given.copy()
        data = check_calibration_inputs(rng.randint(0, 5, given.shape[0]), given)
        assert not data.y_prob.flags.writeable
        assert_array_equal(row_argmax(data.y_prob), np.argmax(copy, axis=1))
        assert_array_equal(given, copy)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_top_of_wide_rows_found_by_the_check(dtype, layout, global_random_seed):
    """Check the argmax and maximum the check of a wide matrix finds.

    From 512 columns the check of a writeable matrix finds each row's
    argmax and maximum on its way (by the bits of the floats, in blocks of
    a few rows here): they equal numpy's, ties to the first column, in
    either dtype and layout, are read-only, and so is the top-label view. A
    ``y_prob`` replaced afterwards has its own computed.
    """
    rng = np.random.default_rng(global_random_seed)
    n_classes = 512
    p = rng.dirichlet(np.full(n_classes, 0.3), size=120).astype(dtype)
    p[:5] = dtype(1.0 / n_classes)  # all columns tie
    p[5:10] = 0.0
    p[5:10, [3, 40]] = 0.5  # two columns tie
    p[10:15] = 0.0
    p[10:15, -1] = 1.0  # one-hot on the last column
    given = {"C": p, "F": np.asfortranarray(p), "strided": np.repeat(p, 2, 0)[::2]}
    given = given[layout]
    y = rng.integers(0, n_classes, size=120)
    y[:10] = 0  # the first column wins the ties
    expected_argmax, expected_max = np.argmax(p, axis=1), p.max(axis=1)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_validation, "_BLOCK_BYTES", 7 * n_classes * p.itemsize)
        data = check_calibration_inputs(y, given, labels=np.arange(n_classes))
    assert data.top_of_rows is not None and data.top_of_rows[0] is data.y_prob
    argmax, maximum = top_of_rows(data)
    assert_array_equal(argmax, expected_argmax)
    assert_array_equal(maximum, expected_max)
    assert maximum.dtype == dtype
    assert not (argmax.flags.writeable or maximum.flags.writeable)
    ((correct, confidence),) = binary_views(data, "top_label")
    assert_array_equal(correct, y == expected_argmax)
    assert_array_equal(confidence, expected_max.astype(np.float64))

    shuffled = data._replace(y_prob=data.y_prob[::-1])
    argmax, maximum = top_of_rows(shuffled)
    assert_array_equal(argmax, expected_argmax[::-1])
    assert_array_equal(maximum, expected_max[::-1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_top_of_short_rows_by_transposed_blocks(dtype, layout, global_random_seed):
    """Check the argmax and maximum of rows shorter than 128 bytes.

    Those rows (up to 15 float64 or 31 float32 columns) are transposed a
    block at a time; blocks of a few rows here, so that many boundaries are
    crossed, and a last block shorter than the others. The argmax and the
    maximum equal numpy's, ties to the first column (-0.0 and 0.0 tie), in
    either dtype and layout; the next width takes numpy's argmax, with the
    same results. The top-label view agrees, and the input is left intact.
    """
    rng = np.random.default_rng(global_random_seed)
    short = 128 // np.dtype(dtype).itemsize - 1
    for n_columns in (3, 7, short, short + 1):
        p = rng.dirichlet(np.full(n_columns, 0.4), size=103).astype(dtype)
        p[:5] = dtype(1.0 / n_columns)  # all columns tie
        p[5:10] = 0.0
        p[5:10, [1, -1]] = 0.5  # two columns tie, the first one wins
        p[10, :] = 0.0
        p[10, [0, 1]] = [-0.0, 1.0]
        p[11, [0, -1]] = [0.5, 0.5]
        p[11, 1:-1] = -0.0
        given = {"C": p, "F": np.asfortranarray(p), "strided": np.repeat(p, 2, 0)[::2]}
        given = given[layout]
        copy = given.copy()
        y = rng.integers(0, n_columns, size=103)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_validation, "_BLOCK_BYTES", 5 * short * p.itemsize)
            data = check_calibration_inputs(y, given, labels=np.arange(n_columns))
            argmax, maximum = top_of_rows(data)
            ((correct, confidence),) = binary_views(data, "top_label")
        assert_array_equal(argmax, np.argmax(p, axis=1))
        assert_array_equal(maximum, p.max(axis=1))
        assert maximum.dtype == dtype
        assert_array_equal(correct, y == np.argmax(p, axis=1))
        assert_array_equal(confidence, p.max(axis=1).astype(np.float64))
        assert_array_equal(given, copy)


def test_narrow_rows_have_their_top_computed():
    """Check that a matrix narrower than 512 columns keeps no top of its rows."""
    data = check_calibration_inputs(Y, PROB)
    assert data.top_of_rows is None
    argmax, maximum = top_of_rows(data)
    assert_array_equal(argmax, [0, 2, 0, 1])
    assert_array_equal(maximum, [0.7, 0.6, 0.4, 0.5])

    rng = np.random.default_rng(0)
    y = rng.integers(0, 512, size=50)
    for n_columns, writeable, found in [(511, True, False), (512, False, False)]:
        p = rng.dirichlet(np.ones(n_columns), size=50)
        p.flags.writeable = writeable
        data = check_calibration_inputs(y, p, labels=np.arange(n_columns))
        assert (data.top_of_rows is not None) == found
        argmax, maximum = top_of_rows(data)
        assert_array_equal(argmax, np.argmax(p, axis=1))
        assert_array_equal(maximum, p.max(axis=1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bad", ["inf and -inf", "huge", "nan"])
def test_wide_rows_out_of_range_are_rejected_without_warnings(dtype, bad):
    """Check that a wide matrix with values out of range gets skcal's error alone.

    The check sums every block of a wide matrix; the sums of rows with
    infinite or huge values overflow, which must not surface as a numpy
    warning (an error under ``-W error``) before the ValueError.
    """
    p = np.full((4, 512), 1 / 512, dtype=dtype)
    p[1, :2] = {
        "inf and -inf": [np.inf, -np.inf],
        "huge": np.finfo(dtype).max,
        "nan": np.nan,
    }[bad]
    match = "NaN or infinite" if bad != "huge" else r"2 value\(s\) outside \[0, 1\]"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=match):
            check_calibration_inputs(np.zeros(4, dtype=int), p, labels=np.arange(512))
