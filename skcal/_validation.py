"""The input contract of skcal: the data checks that every entry point reaches.

Data (``y_true``, ``y_prob``, ``sample_weight``, ``labels``, ``pos_label``,
classifier scores and recalibration targets) is converted by scikit-learn's
public validation (:func:`~sklearn.utils.check_array`,
:func:`~sklearn.utils.validation.column_or_1d`,
:func:`~sklearn.utils.check_consistent_length`), and the contract of skcal is
checked on top, each rule once. :func:`check_calibration_inputs` returns
read-only float64 views in a :class:`CalibrationData`. Rejections raise
``ValueError`` (``TypeError`` for wrong types) with a message that names the
argument, the problem and the number of entries affected. Inputs are never
modified. Hyper-parameters are checked by :mod:`skcal._param_validation`.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
import sys
from typing import NamedTuple

import numpy as np
from scipy.sparse import issparse
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_array, check_consistent_length
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from skcal._utils._scaling import normalized_weights, power_of_two_scale

__all__ = [
    "DATA_CONSTRAINTS",
    "GROUPS_CONSTRAINT",
    "SCORE_KINDS",
    "CalibrationData",
    "Groups",
    "Scores",
    "check_calibration_inputs",
    "check_classes",
    "check_fitted_classifier",
    "check_groups",
    "check_partition",
    "check_pos_label",
    "check_recalibration_target",
    "check_recalibration_weights",
    "check_sample_weight",
    "check_score_features",
    "check_scores",
]


# Parameter constraints of the data arguments that every measure shares.
DATA_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_prob": ["array-like"],
    "sample_weight": ["array-like", None],
    "pos_label": ["hashable", None],
    "labels": ["array-like", None],
}

# The parameter constraint of ``groups=``, taken by every public function of
# y_true and predictions (see skcal.metrics._groups).
GROUPS_CONSTRAINT = {"groups": ["array-like", None]}


# ---------------------------------------------------------------------------
# Data contract
# ---------------------------------------------------------------------------


class CalibrationData(NamedTuple):
    """Validated ``(y_true, y_prob, sample_weight)`` in a canonical form.

    Attributes
    ----------
    y_true : ndarray of shape (n_samples,)
        When ``binary``, a boolean array, True for the positive class
        ``classes[pos_index]``; else class indices in ``[0, n_classes)``.
    y_prob : ndarray of shape (n_samples,) or (n_samples, n_classes)
        The probability of the positive class when ``binary`` (float64), else
        the matrix whose columns follow ``classes`` (float64, or float32 when
        given in float32: a view of the input, which the reductions read
        without casting the whole matrix).
    sample_weight : ndarray of shape (n_samples,) or None
        float64 non-negative weights divided by a power of two, so that the
        largest is in [1, 2) (an exact division), or None.
    classes : ndarray
        The labels in column order; for a 1-D ``y_prob``,
        ``[negative, positive]``.
    binary : bool
        Whether the problem has two classes.
    pos_index : int or None
        The column of ``pos_label`` in ``classes``; None for a multiclass
        problem when ``pos_label`` was not given.
    weight_scale : float
        The power of two the user's weights were divided by (1 when
        unweighted): ``sample_weight * weight_scale`` are the weights as
        given.
    top_of_rows : tuple or None
        ``(y_prob, argmax, max)``: the row argmax and row maximum that the
        check of a wide matrix found on its way (`_matrix_summary`), with
        the matrix they are of; None otherwise. Read them through
        :func:`skcal._reduction.top_of_rows`, which ignores them once
        ``y_prob`` is replaced.
    """

    y_true: np.ndarray
    y_prob: np.ndarray
    sample_weight: np.ndarray | None
    classes: np.ndarray
    binary: bool
    pos_index: int | None
    weight_scale: float = 1.0
    top_of_rows: tuple | None = None


def _converted(x, name, dtype):
    """scikit-learn's :func:`~sklearn.utils.check_array`, any number of dimensions.

    Shapes, finiteness and sizes are the contract's business, checked with
    skcal's messages by the callers.
    """
    return check_array(
        x,
        accept_sparse=False,
        dtype=dtype,
        ensure_2d=False,
        allow_nd=True,
        ensure_all_finite=False,
        ensure_min_samples=0,
        ensure_min_features=0,
        input_name=name,
    )


def _as_array(x, name):
    """A numpy array of a list, array or pandas object, without changing its type."""
    if issparse(x):
        raise TypeError(f"{name} is a sparse matrix; pass a dense array.")
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        # A nullable pandas dtype (Int64, boolean, string) without missing
        # values keeps its numpy type, so that labels stay ints or bools.
        numpy_dtype = getattr(getattr(x, "dtype", None), "numpy_dtype", None)
        if numpy_dtype is not None and not x.isna().any():
            x = x.to_numpy(dtype=numpy_dtype)
    elif not hasattr(x, "__array__"):
        try:
            x = np.asarray(x)
        except ValueError as exc:  # ragged nested sequences
            raise ValueError(
                f"{name} could not be converted to an array: {exc}"
            ) from exc
    return _converted(x, name, dtype=None)


def _as_label_array(x, name):
    """Like `_as_array`, but keep the types of a Python list of mixed labels.

    ``np.asarray([0, "a"])`` would turn every label into a string (and NaN
    into the label ``"nan"``); such a list becomes an object array instead, so
    that mixed types and missing values are rejected like in any other input.
    """
    arr = _as_array(x, name)
    if arr.dtype.kind in "US" and isinstance(x, (list, tuple)):
        as_objects = np.array(x, dtype=object)
        if not all(isinstance(v, str) for v in as_objects.ravel()):
            return _converted(as_objects, name, dtype=None)
    return arr


def _float_precision(x):
    """Machine epsilon of the least precise float dtype of an input."""
    # A data frame has one dtype per column; nullable dtypes have a numpy one.
    dtypes = list(x.dtypes) if hasattr(x, "columns") else [getattr(x, "dtype", None)]
    eps = np.finfo(np.float64).eps
    for dtype in (getattr(d, "numpy_dtype", d) for d in dtypes):
        if isinstance(dtype, np.dtype) and dtype.kind == "f":
            eps = max(eps, float(np.finfo(dtype).eps))
    return eps


def _as_float_array(x, name, *, keep_float32=False):
    """A float64 array (a view when the input already is one) and its precision.

    Lists and arrays must hold numbers (booleans, integers or floats; not
    objects, strings or complex numbers); pandas objects are converted to
    float64, missing values becoming NaN. With ``keep_float32``, float32
    input stays float32 (a view, not a copy of twice its size).
    """
    eps = _float_precision(x)
    dtypes = [np.float64, np.float32] if keep_float32 else np.float64
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        try:
            return _converted(x, name, dtype=dtypes), eps
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{name} must hold real numbers; its values could not be "
                f"converted to floats ({exc})."
            ) from exc
    arr = _as_array(x, name)
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold real numbers, got an array of dtype {arr.dtype}."
        )
    if keep_float32 and arr.dtype == np.float32:
        return arr, eps
    return arr.astype(np.float64, copy=False), eps


def _finite_range(arr, name, bounds=None):
    """Return ``(min, max)`` of a float array, rejecting NaN and infinities.

    ``bounds`` replace them when already computed by `_matrix_summary`: the
    min and max, or the bounds 0 and 1 of a matrix whose values all lie in
    [0, 1].
    """
    # min and max propagate NaN, so they decide the common case in two passes.
    lo, hi = (arr.min(), arr.max()) if bounds is None else bounds
    if not (np.isfinite(lo) and np.isfinite(hi)):
        n_bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise ValueError(f"{name} contains {n_bad} NaN or infinite value(s).")
    return lo, hi


def check_sample_weight(sample_weight, n_samples):
    """Validate sample weights; return float64 weights or None.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,) or None
        Non-negative weights, not all zero.
    n_samples : int
        The expected length.

    Returns
    -------
    sample_weight : ndarray of shape (n_samples,) or None
        A float64 array (a view of the input when it already is one).
    """
    if sample_weight is None:
        return None
    w, _ = _as_float_array(sample_weight, "sample_weight")
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D, got an array of shape {w.shape}.")
    if w.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight has {w.shape[0]} entries but there are {n_samples} samples."
        )
    lo, _ = _finite_range(w, "sample_weight")
    if lo < 0:
        n_negative = int(np.count_nonzero(w < 0))
        raise ValueError(f"sample_weight contains {n_negative} negative value(s).")
    if not w.max() > 0:
        raise ValueError(
            f"sample_weight: all {n_samples} weights are zero; at least one must be "
            "positive."
        )
    # Any finite weights are accepted, even if their sum is not finite: only
    # their ratios matter, and they are scaled (normalized_weights) before
    # anything adds them up.
    return w


def _unique_labels(y, name="y_true"):
    """Sorted distinct values of a 1-D label array.

    O(n) for numeric labels of two values, and by counting for integer
    labels whose range is at most a few times their number.
    """
    if y.dtype.kind == "b":
        has_true = bool(y.any())
        has_false = not bool(y.all())
        return np.array(
            [v for v, present in ((False, has_false), (True, has_true)) if present]
        )
    if y.dtype.kind in "iuf":
        lo, hi = y.min(), y.max()
        if lo == hi:
            return y[:1].copy()
        if (y.dtype.kind in "iu" and int(hi) - int(lo) == 1) or (
            np.count_nonzero(y == lo) + np.count_nonzero(y == hi) == y.shape[0]
        ):
            return np.array([lo, hi], dtype=y.dtype)
        if y.dtype.kind in "iu" and int(hi) - int(lo) <= 4 * y.shape[0]:
            present = np.flatnonzero(np.bincount(y.astype(np.intp) - int(lo)))
            return (present + int(lo)).astype(y.dtype)
    try:
        return np.unique(y)
    except TypeError as exc:
        raise TypeError(
            f"{name} mixes labels of types that cannot be compared: {exc}"
        ) from exc


def _check_y_true(y_true):
    return _check_label_vector(y_true, "y_true", "class labels")


def _check_label_vector(x, name, what):
    """A 1-D array of hashable, comparable labels without missing values."""
    y = _as_label_array(x, name)
    if not (y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1)):
        raise ValueError(
            f"{name} must be 1-D (one label per sample), got an array of shape "
            f"{y.shape}."
        )
    y = column_or_1d(y)
    if y.dtype.kind in "cV":
        raise TypeError(f"{name} must hold {what}, got dtype {y.dtype}.")
    if y.dtype.kind == "f":
        n_nan = int(np.count_nonzero(~np.isfinite(y)))
        if n_nan:
            raise ValueError(f"{name} contains {n_nan} NaN or infinite value(s).")
    elif y.dtype.kind == "O":
        pandas_na = getattr(sys.modules.get("pandas"), "NA", None)
        n_missing, all_str = 0, True
        for v in y:
            if (
                v is None
                or v is pandas_na
                or (isinstance(v, (float, np.floating)) and math.isnan(v))
            ):
                n_missing += 1
            elif all_str and not isinstance(v, str):
                all_str = False
        if n_missing:
            raise ValueError(
                f"{name} contains {n_missing} missing value(s) (None, NaN or NA)."
            )
        if all_str:
            # Fixed-width strings sort (and so are checked) much faster.
            y = y.astype(str)
    return y


class Groups(NamedTuple):
    """Validated group labels: the distinct groups and each sample's group.

    Attributes
    ----------
    labels : ndarray of shape (n_groups,)
        The distinct group labels, sorted.
    codes : ndarray of shape (n_samples,)
        The position of each sample's group in ``labels``.
    """

    labels: np.ndarray
    codes: np.ndarray

    def members(self):
        """The rows of each group, in the order of ``labels``.

        Returns
        -------
        rows : list of ndarray
            ``rows[g]`` holds the indices of the samples of group ``g``,
            increasing.
        """
        order = np.argsort(self.codes, kind="stable")
        ends = np.cumsum(np.bincount(self.codes, minlength=self.labels.shape[0]))
        return np.split(order, ends[:-1])

    def weighted_members(self, sample_weight):
        """The groups with some positive weight, and their rows.

        Parameters
        ----------
        sample_weight : ndarray of shape (n_samples,) or None
            The weights; None keeps every group.

        Returns
        -------
        labels : ndarray of shape (n_kept,)
            The labels of the groups kept, sorted.
        rows : list of ndarray
            The rows of each group kept (see :meth:`members`).
        """
        kept = [
            (g, rows)
            for g, rows in enumerate(self.members())
            if sample_weight is None or sample_weight[rows].any()
        ]
        return self.labels[[g for g, _ in kept]], [rows for _, rows in kept]


def check_groups(groups, n_samples):
    """Validate group labels (one hashable label per sample).

    Parameters
    ----------
    groups : array-like of shape (n_samples,)
        The group of each sample: any hashable, mutually comparable labels
        (ints, strings, bools, ...), without missing values.
    n_samples : int
        The expected length.

    Returns
    -------
    groups : Groups
        The sorted distinct labels and each sample's index among them.
    """
    g = _check_label_vector(groups, "groups", "group labels")
    if g.shape[0] != n_samples:
        raise ValueError(
            f"groups has {g.shape[0]} entries but there are {n_samples} samples."
        )
    labels = _unique_labels(g, "groups")
    return Groups(labels, _encode(g, labels, "groups"))


def _check_consistent_samples(**arrays):
    """scikit-learn's length check, with the names of the arrays that differ."""
    try:
        check_consistent_length(*arrays.values())
    except ValueError:
        (a, x), (b, z) = arrays.items()
        raise ValueError(
            f"{a} and {b} have inconsistent numbers of samples: "
            f"{x.shape[0]} and {z.shape[0]}."
        ) from None


def _check_y_prob(y_prob):
    """The checked probabilities, and the ``top`` of `_matrix_summary` or None."""
    # A float32 matrix (a network's softmax) is kept as it is: the reductions
    # cast the column they take, n values instead of the n x K matrix.
    p, eps = _as_float_array(y_prob, "y_prob", keep_float32=True)
    if p.ndim == 0:
        raise ValueError("y_prob must be 1-D or 2-D, got a scalar.")
    if p.ndim > 2:
        raise ValueError(f"y_prob must be 1-D or 2-D, got {p.ndim} dimensions.")
    if p.shape[0] == 0:
        raise ValueError("y_prob is empty (0 samples): at least one sample is needed.")
    if p.ndim == 2 and p.shape[1] == 0:
        raise ValueError("y_prob has 0 columns: it needs one column per class.")
    if p.ndim == 2 and p.shape[1] == 1:
        p = p[:, 0]
    summary = None
    if p.ndim == 1:
        p = p.astype(np.float64, copy=False)
        lo, hi = _finite_range(p, "y_prob")
    else:
        top = p.shape[1] >= _TOP_COLUMNS and p.flags.writeable
        summary = _matrix_summary(p, eps, top=top)
        lo, hi = _finite_range(p, "y_prob", (summary.lo, summary.hi))
    if lo < 0 or hi > 1:
        n_bad = int(np.count_nonzero((p < 0) | (p > 1)))
        raise ValueError(
            f"y_prob contains {n_bad} value(s) outside [0, 1] (min {lo:.6g}, max "
            f"{hi:.6g}); pass probabilities, not scores or logits."
        )
    if summary is not None:
        n_bad, largest = _rows_not_summing_to_one(p, summary)
        if n_bad:
            raise ValueError(
                f"y_prob has {n_bad} row(s) that do not sum to 1 (largest deviation "
                f"{largest:.3g}, tolerance {summary.tol:.3g}); each row must be a "
                "probability distribution over the classes."
            )
    return p, None if summary is None else summary.top


# Bytes of the blocks of rows a matrix is checked by: its range check and row
# sums then read a block from the cache, not from memory.
_BLOCK_BYTES = 1 << 19

# From this many columns, the check of a writeable probability matrix also
# finds the argmax and maximum of each row (`_matrix_summary`), which the
# top-label view needs: in the cache, a block's argmax costs little more than
# its largest value (a fifth to a third more of the check at 512 columns,
# little at 1000), where a pass of its own reads the matrix again (half of the
# check's time or more). Over shorter rows the argmax costs the check about
# as much as it saves the view, and numpy's argmax copies each block of a
# read-only array.
_TOP_COLUMNS = 512

# Each float type's unsigned integer of the same size, and the bits of 1.0.
# Read as unsigned integers, the floats from +0.0 to 1.0 keep their order, and
# every other value (negative, -0.0, above 1, infinite, NaN) reads as more
# than the bits of 1.0: one integer maximum checks the range.
_UNIT_BITS = {
    np.dtype(np.float32): (np.uint32, 0x3F80_0000),
    np.dtype(np.float64): (np.uint64, 0x3FF0_0000_0000_0000),
}


class _MatrixSummary(NamedTuple):
    """Range of a matrix, and the rows whose sum may be off by ``tol`` or more.

    ``lo`` and ``hi`` are the minimum and maximum, except that a matrix of
    values from +0.0 to 1.0 gets the bounds 0.0 and 1.0.
    """

    lo: float
    hi: float
    suspects: np.ndarray
    tol: float
    # (argmax, max) of the rows, when asked for and every value lies in
    # [+0.0, 1.0] (see `_blocks_with_top`).
    top: tuple | None = None


def _row_blocks(p):
    """``(start, stop)`` of the blocks of `_BLOCK_BYTES` of a matrix's rows.

    The first block is the longest (every one but the last has its size).
    """
    n_rows = p.shape[0]
    step = max(1, _BLOCK_BYTES // (p.shape[1] * p.itemsize))
    return [(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]


def _matrix_summary(p, eps, *, top=False):
    """Range and rows that may not sum to 1 of a matrix, in one pass of blocks.

    The tolerance of a row sum is ``max(1e-6, n_columns * eps)``, ``eps`` the
    precision of the input. Each block of rows is reduced twice while it is
    in the cache (one read of the matrix from memory): the largest of its
    values read as unsigned integers (`_UNIT_BITS`), which is at most the
    bits of 1.0 exactly when every value lies in [+0.0, 1.0]; and its row
    sums, by a matrix-vector product in the matrix's dtype. From the first
    block with another value on (negative, -0.0, above 1, infinite or NaN),
    the exact minimum and maximum are taken, of the rows before it too
    (which reads those rows a second time).

    A float32 sum of K terms in [0, 1] is off by at most (K - 1) u, u = eps / 2
    the unit roundoff: less than half the tolerance. The rows whose fast sum is
    off by more than half of it are the suspects, summed again in float64 by
    `_rows_not_summing_to_one`; the others sum to 1 within the tolerance.
    Once a value falls outside [0, 1] the sums are moot and no longer taken.

    With ``top=True`` each block's row argmax of the unsigned integers
    replaces its largest integer (`_blocks_with_top`), and ``top`` of the
    summary is ``(argmax, max)`` of the rows, or None when a value lies
    outside [+0.0, 1.0]. Every block is then summed, and a value outside
    that range has the exact minimum and maximum taken over the whole
    matrix.
    """
    tol = max(1e-6, p.shape[1] * eps)
    sums = np.empty(p.shape[0], dtype=p.dtype)
    lo, hi, found = _blocks_with_top(p, sums) if top else (*_blocks(p, sums), None)
    if not (lo >= 0.0 and hi <= 1.0):
        return _MatrixSummary(lo, hi, np.empty(0, dtype=np.intp), tol)
    sums -= 1.0
    np.abs(sums, out=sums)
    return _MatrixSummary(lo, hi, np.flatnonzero(sums > 0.5 * tol), tol, found)


def _blocks(p, sums):
    """``(lo, hi)`` of `_matrix_summary`, filling ``sums`` with the row sums."""
    ones = np.ones(p.shape[1], dtype=p.dtype)
    unsigned, one = _UNIT_BITS[p.dtype]
    bits = p.view(unsigned)
    lo, hi, exact = 0.0, 1.0, False
    for start, stop in _row_blocks(p):
        block = p[start:stop]
        if not exact and bits[start:stop].max() > one:
            exact, before = True, p[:start]
            lo, hi = (before.min(), before.max()) if start else (np.inf, -np.inf)
        if exact:
            lo, hi = np.minimum(lo, block.min()), np.maximum(hi, block.max())
            if not (lo >= 0.0 and hi <= 1.0):
                continue
        np.matmul(block, ones, out=sums[start:stop])
    return lo, hi


def _blocks_with_top(p, sums):
    """``(lo, hi, (argmax, max) or None)``, filling ``sums`` with the row sums.

    Read as unsigned integers, the floats from +0.0 to 1.0 keep their order
    and equal floats are equal integers, so each row's argmax of the
    integers is its argmax (first column on ties); every other value reads
    as more than the bits of 1.0 (`_UNIT_BITS`), so the largest of the rows'
    maxima is at most those bits exactly when every value lies in
    [+0.0, 1.0]. Otherwise the exact minimum and maximum are taken, and no
    argmax (-0.0 is a valid probability the integers misorder).
    """
    ones = np.ones(p.shape[1], dtype=p.dtype)
    unsigned, one = _UNIT_BITS[p.dtype]
    bits = p.view(unsigned)
    argmax = np.empty(p.shape[0], dtype=np.intp)
    largest = np.empty(p.shape[0], dtype=unsigned)
    blocks = _row_blocks(p)
    rows = np.arange(blocks[0][1])
    # The sums of rows with infinite or huge values are moot, and not warned of.
    with np.errstate(over="ignore", invalid="ignore"):
        for start, stop in blocks:
            block = bits[start:stop]
            block.argmax(axis=1, out=argmax[start:stop])
            # Gathered while the block is in the cache.
            largest[start:stop] = block[rows[: block.shape[0]], argmax[start:stop]]
            np.matmul(p[start:stop], ones, out=sums[start:stop])
    if largest.max() <= one:
        return 0.0, 1.0, (argmax, largest.view(p.dtype))
    return p.min(), p.max(), None


def _rows_not_summing_to_one(p, summary):
    """Number of rows whose float64 sum is off 1 by more than the tolerance.

    Returns that number and the largest deviation; only the suspects of the
    ``summary`` (`_matrix_summary`) are summed.
    """
    dev = np.abs(p[summary.suspects].sum(axis=1, dtype=np.float64) - 1.0)
    return int(np.count_nonzero(dev > summary.tol)), float(dev.max(initial=0.0))


_BINARY_LABEL_SETS = ({0, 1}, {-1, 1})


def _is_default_binary(classes):
    """Whether labels are numeric and within {0, 1} or {-1, 1}."""
    if classes.dtype.kind not in "biuf":
        return False
    values = set(classes.tolist())
    return any(values <= s for s in _BINARY_LABEL_SETS)


def _default_pos_label(classes, arg_name):
    """scikit-learn's rule: labels in {0, 1} or {-1, 1} make 1 the positive class.

    Boolean labels make True positive (a bool, so that the classes stay
    booleans, not a mix of False and 1).
    """
    if _is_default_binary(classes):
        return True if classes.dtype.kind == "b" else 1
    shown = ", ".join(repr(c) for c in classes.tolist())
    raise ValueError(
        f"{arg_name} takes values in {{{shown}}} and pos_label is not specified: "
        "pass pos_label (or labels in {0, 1} or {-1, 1})."
    )


def _check_labels(labels, name="labels"):
    lab = _as_label_array(labels, name)
    if lab.ndim != 1 or lab.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 1-D list, got shape {lab.shape}.")
    try:
        n_unique = np.unique(lab).shape[0]
    except TypeError as exc:
        raise TypeError(f"{name} mixes types that cannot be compared: {exc}") from exc
    if n_unique != lab.shape[0]:
        raise ValueError(
            f"{name} contains {lab.shape[0] - n_unique} duplicated value(s); each "
            "class must appear once."
        )
    return lab


def _encode(y, classes, arg_name="y_true"):
    """Map labels to their index in ``classes`` (any order); reject unknown labels.

    Integer labels of a small range are looked up in a table (O(n)); others
    are found by binary search in the sorted classes.
    """
    index = _table_lookup(y, classes)
    if index is not None:
        unknown = index < 0
        if unknown.any():
            _reject_unknown(y, unknown, classes, arg_name)
        return index
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]
    try:
        pos = np.searchsorted(sorted_classes, y)
    except TypeError as exc:
        raise TypeError(
            f"{arg_name} labels cannot be compared with the classes "
            f"{classes.tolist()}: {exc}"
        ) from exc
    pos_clipped = np.minimum(pos, sorted_classes.shape[0] - 1)
    unknown = sorted_classes[pos_clipped] != y
    if unknown.any():
        _reject_unknown(y, unknown, classes, arg_name)
    return order[pos_clipped]


def _table_lookup(y, classes):
    """Index of each integer label in ``classes`` (-1 if absent) by a table.

    None unless labels and classes are integers whose joint range is at most
    a few times the number of labels (the table's size).
    """
    if not (y.dtype.kind in "iu" and classes.dtype.kind in "iu" and y.shape[0]):
        return None
    lo = min(int(y.min()), int(classes.min()))
    hi = max(int(y.max()), int(classes.max()))
    fits = lo > -(2**62) and hi < 2**62
    if not fits or hi - lo > 4 * (y.shape[0] + classes.shape[0]):
        return None
    table = np.full(hi - lo + 1, -1, dtype=np.intp)
    table[classes.astype(np.intp) - lo] = np.arange(classes.shape[0])
    return table[y.astype(np.intp, copy=False) - lo]


def _reject_unknown(y, unknown, classes, arg_name):
    """The error for labels of ``y`` (where ``unknown``) outside ``classes``."""
    examples = np.unique(y[unknown])[:5].tolist()
    raise ValueError(
        f"{arg_name} contains {int(np.count_nonzero(unknown))} label(s) not "
        f"among the classes {classes.tolist()}, e.g. {examples}."
    )


def _same_set(a, b):
    """Whether two arrays of labels hold the same distinct values."""
    if a.shape[0] != b.shape[0]:
        return False
    try:
        return set(a.tolist()) == set(b.tolist())
    except TypeError:
        return False


def _same_label(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def check_pos_label(classes, pos_label, where="the classes"):
    """The column of ``pos_label`` among ``classes``; reject an absent one.

    This is the one check that a positive class is among the classes, for
    the measures, the scorers, the Displays and the command line.

    Parameters
    ----------
    classes : array-like of shape (n_classes,)
        The classes, in column order.
    pos_label : hashable
        The positive class.
    where : str, default="the classes"
        What ``classes`` are, for the message.

    Returns
    -------
    index : int
    """
    classes = np.asarray(classes)
    for i, c in enumerate(classes.tolist()):
        if _same_label(c, pos_label):
            return i
    raise ValueError(
        f"pos_label={pos_label!r} is not among {where} {classes.tolist()}."
    )


def check_calibration_inputs(
    y_true, y_prob, sample_weight=None, pos_label=None, labels=None
):
    """Validate the inputs of a calibration measure.

    This is the single implementation of skcal's input contract (see the
    design document): every public measure calls it once and passes its
    result on to a reduction.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels, of any hashable, mutually comparable type.
    y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probabilities: a 1-D array of positive-class probabilities (binary
        problem), or a matrix whose rows sum to 1 and whose columns follow
        ``labels`` (or the sorted labels of ``y_true``). Two columns make a
        binary problem.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights, not all zero.
    pos_label : int, float, bool or str, default=None
        The positive class of a binary problem. When None, labels in
        ``{0, 1}`` or ``{-1, 1}`` make ``1`` positive; for a two-column
        ``y_prob`` the second column's class is positive. It need not occur
        in ``y_true``: a sample of one class is valid data (all negatives).
        It is rejected when absent from ``labels``, or when ``y_true`` holds
        two other classes.
    labels : array-like of shape (n_classes,), default=None
        The classes in the order of the columns of ``y_prob``.

    Returns
    -------
    data : CalibrationData
        The canonical, read-only view of the inputs.
    """
    p, top = _check_y_prob(y_prob)
    y = _check_y_true(y_true)
    _check_consistent_samples(y_true=y, y_prob=p)
    raw = check_sample_weight(sample_weight, p.shape[0])
    # Only ratios of weights matter to a measure: scaled once, here, they
    # neither under- nor overflow in any measure's arithmetic.
    w = normalized_weights(raw)
    scale = 1.0 if raw is None else power_of_two_scale(raw)
    lab = None if labels is None else _check_labels(labels)
    seen = _unique_labels(y)
    if lab is None and p.ndim == 2 and hasattr(y_prob, "columns"):
        # A data frame whose column names are the classes says which is which.
        columns = _as_label_array(list(y_prob.columns), "y_prob.columns")
        if _same_set(columns, seen):
            lab = columns
    if p.ndim == 1:
        classes, y_index, pos_index = _binary_column(y, seen, lab, pos_label)
    else:
        classes, y_index, pos_index = _matrix_columns(y, seen, lab, p.shape[1])
        if p.shape[1] == 2:
            pos_index = 1 if pos_label is None else check_pos_label(classes, pos_label)
            y_index, p = y_index == pos_index, p[:, pos_index].astype(np.float64)
        elif pos_label is not None:
            pos_index = check_pos_label(classes, pos_label)
    p = _readonly(p)
    if top is not None:
        top = (p, *map(_readonly, top))
    return CalibrationData(
        _readonly(y_index), p, _readonly(w), classes, p.ndim == 1, pos_index, scale, top
    )


def _binary_column(y, seen, lab, pos_label):
    """Classes ``[negative, positive]`` and indicators for a 1-D ``y_prob``."""
    if lab is not None:
        if lab.shape[0] != 2:
            raise ValueError(
                f"labels has {lab.shape[0]} classes but a 1-D y_prob describes a "
                "binary problem: pass exactly 2 labels, or one column per class."
            )
        universe = lab
    else:
        if seen.shape[0] > 2:
            raise ValueError(
                f"y_true has {seen.shape[0]} classes but y_prob is 1-D, which "
                "describes a binary problem: pass one column per class."
            )
        universe = seen
    if pos_label is None:
        pos_label = _default_pos_label(universe, "y_true" if lab is None else "labels")
    if lab is not None:
        check_pos_label(lab, pos_label, where="labels")
    elif seen.shape[0] == 2:
        check_pos_label(seen, pos_label, where="the labels of y_true")
    negatives = [c for c in universe.tolist() if not _same_label(c, pos_label)]
    if lab is not None:
        _encode(y, lab)  # rejects labels outside `labels`
    neg = negatives[0] if negatives else (0 if pos_label == 1 else None)
    classes = np.array([neg, pos_label], dtype=object)
    if type(neg) is type(pos_label):
        classes = classes.astype(np.asarray([neg, pos_label]).dtype)
    y_index = y == pos_label
    if not isinstance(y_index, np.ndarray):
        # Comparison of incompatible types (e.g. str labels, int pos_label).
        y_index = np.zeros(y.shape[0], dtype=bool)
    return classes, y_index, 1


def _matrix_columns(y, seen, lab, n_cols):
    """Classes of the columns of an ``(n, K)`` ``y_prob`` and class indices."""
    if lab is not None:
        if lab.shape[0] != n_cols:
            raise ValueError(
                f"labels has {lab.shape[0]} classes but y_prob has {n_cols} columns."
            )
        classes = lab
    elif seen.shape[0] == n_cols:
        classes = seen
    elif n_cols == 2 and seen.shape[0] == 1 and _is_default_binary(seen):
        classes = np.array([-1 if seen[0] == -1 else 0, 1], dtype=seen.dtype)
    else:
        raise ValueError(
            f"y_prob has {n_cols} columns but y_true has {seen.shape[0]} distinct "
            f"labels {seen.tolist()[:10]}: pass labels=... to name the class of each "
            "column."
        )
    return classes, _encode(y, classes), None


def _readonly(a):
    """A read-only view, so that no downstream code can modify user input."""
    if a is None:
        return None
    view = a.view()
    view.flags.writeable = False
    return view


# ---------------------------------------------------------------------------
# Recalibrator data: classifier scores, targets, fitted classifiers
# ---------------------------------------------------------------------------

SCORE_KINDS = ("probability", "logit")


class Scores(NamedTuple):
    """Validated classifier scores, as every recalibrator consumes them.

    Attributes
    ----------
    values : ndarray of shape (n_samples,) or (n_samples, n_classes)
        float64 scores: for a binary problem, one score of the positive (second)
        class; otherwise one column per class.
    kind : {"probability", "logit"}
        Whether the values are probabilities (rows summing to 1) or unbounded
        scores (logits, log-probabilities or decision values).
    """

    values: np.ndarray
    kind: str


def check_score_features(recalibrator, X, *, reset):
    """Validate ``X`` when it is the score array itself (no wrapped classifier).

    A 1-D array is one column of scores. The check is scikit-learn's public
    :func:`~sklearn.utils.validation.validate_data`, which records (``reset=True``)
    or compares (``reset=False``) ``n_features_in_`` and ``feature_names_in_``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_columns)
        float64 scores.
    """
    if not issparse(X) and not hasattr(X, "columns"):
        X = _as_array(X, "X")
        if X.ndim == 1:
            n_seen = getattr(recalibrator, "n_features_in_", 1)
            if not reset and n_seen != 1:
                raise ValueError(
                    f"Reshape your data to (n_samples, {n_seen}): X is 1-D but "
                    f"{n_seen} score columns were seen at fit."
                )
            X = X.reshape(-1, 1)
    return validate_data(recalibrator, X, reset=reset, dtype=np.float64)


def check_scores(scores, *, n_classes, input="auto", name="X"):
    """Validate the scores of a classifier for ``n_classes`` classes.

    Parameters
    ----------
    scores : array-like of shape (n_samples,), (n_samples, 1) or \
            (n_samples, n_columns)
        Scores: one column for a binary problem (the positive class's), or
        one column per class (two columns are allowed for a binary problem).
    n_classes : int
        The number of classes (at least 2).
    input : {"auto", "probability", "logit"}, default="auto"
        The kind of scores. ``"auto"`` detects probabilities: values in
        ``[0, 1]`` and, with several columns, rows summing to 1 (to the
        tolerance of the input's precision); anything else is taken as
        unbounded scores.
    name : str, default="X"
        The argument named in error messages.

    Returns
    -------
    scores : Scores
        The scores with their kind; a binary problem is reduced to the score
        of the positive class (its probability, or the difference of the two
        columns of logits).
    """
    s, eps = _as_float_array(scores, name)
    if s.ndim == 0 or s.ndim > 2:
        raise ValueError(f"{name} must be 1-D or 2-D, got {s.ndim} dimensions.")
    if s.shape[0] == 0:
        raise ValueError(f"{name} is empty (0 samples): at least one is needed.")
    if s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    n_cols = 1 if s.ndim == 1 else s.shape[1]
    expected = (1, 2) if n_classes == 2 else (n_classes,)
    if n_cols not in expected:
        wanted = "1 or 2" if n_classes == 2 else str(n_classes)
        raise ValueError(
            f"{name} has {n_cols} feature(s) (score columns) but there are "
            f"{n_classes} classes: pass {wanted} column(s) of scores, one per "
            "class in the order of classes_."
        )
    summary = _matrix_summary(s, eps) if s.ndim == 2 else None
    bounds = None if summary is None else (summary.lo, summary.hi)
    lo, hi = _finite_range(s, name, bounds)
    in_unit = lo >= 0 and hi <= 1
    n_bad_rows = 0
    if summary is not None and input != "logit" and in_unit:
        n_bad_rows, largest = _rows_not_summing_to_one(s, summary)
    if input == "probability":
        if not in_unit:
            n_bad = int(np.count_nonzero((s < 0) | (s > 1)))
            raise ValueError(
                f"{name} contains {n_bad} value(s) outside [0, 1] (min {lo:.6g}, "
                f"max {hi:.6g}) but input='probability'; pass input='logit' for "
                "unbounded scores."
            )
        if n_bad_rows:
            raise ValueError(
                f"{name} has {n_bad_rows} row(s) that do not sum to 1 (largest "
                f"deviation {largest:.3g}, tolerance {summary.tol:.3g}) but "
                "input='probability'; pass input='logit' for unbounded scores."
            )
        kind = "probability"
    elif input == "logit":
        kind = "logit"
    else:
        kind = "probability" if in_unit and not n_bad_rows else "logit"
    if s.ndim == 2 and n_classes == 2:
        s = s[:, 1] if kind == "probability" else s[:, 1] - s[:, 0]
    return Scores(s, kind)


def check_classes(classes):
    """Validate a list of classes: 1-D, non-empty, distinct and comparable.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
    """
    return _check_labels(classes, "classes")


def check_recalibration_target(y, classes=None):
    """Validate the labels a recalibrator is fitted on.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels.
    classes : ndarray of shape (n_classes,), default=None
        The classes of a wrapped classifier, in the order of its scores; the
        labels must be among them. When None, the classes are the sorted
        distinct labels.

    Returns
    -------
    y_index : ndarray of shape (n_samples,)
        The column of each label among ``classes``.
    classes : ndarray of shape (n_classes,)
    """
    y = column_or_1d(y, warn=True)
    if y.shape[0] == 0:
        raise ValueError("y is empty (0 samples): at least one is needed.")
    if y.dtype.kind not in "biu":  # 1-D integers are class labels as they are
        check_classification_targets(y)
    classes = _unique_labels(y, "y") if classes is None else np.asarray(classes)
    y_index = _encode(y, classes, arg_name="y")
    if y_index.min() == y_index.max():  # one class: cheaper than np.unique
        raise ValueError(
            f"y holds one class only ({y[0]!r}): a recalibrator needs samples of "
            "at least two classes."
        )
    return y_index, classes


def check_recalibration_weights(sample_weight, y_index):
    """Validate a recalibrator's sample weights against its encoded labels.

    The weights follow :func:`check_sample_weight`, and at least two classes
    must keep a positive weight.

    Returns
    -------
    sample_weight : ndarray of shape (n_samples,) or None
    """
    w = check_sample_weight(sample_weight, y_index.shape[0])
    kept = None if w is None else y_index[w > 0]
    if kept is not None and (kept.shape[0] == 0 or kept.min() == kept.max()):
        raise ValueError(
            "sample_weight is zero for every sample but those of one class: a "
            "recalibrator needs samples of at least two classes."
        )
    return w


class MissingMethodError(AttributeError, TypeError):
    """An estimator lacks the method it is used for.

    Both an ``AttributeError`` (as scikit-learn's scorers raise) and a
    ``TypeError`` (a wrong kind of object).
    """


# What a recalibrator's user can do about a classifier that is not fitted.
NEVER_REFITTED = (
    "a recalibrator never fits it. Fit it first; wrap the fitted model in "
    "sklearn.frozen.FrozenEstimator so that clone (in grid searches) keeps it "
    "fitted; or use skcal.calibration.RecalibratedClassifierCV, which fits it "
    "on cross-validation folds."
)


def check_fitted_classifier(estimator, owner, method=None, advice=NEVER_REFITTED):
    """Reject what is not a fitted classifier, saying what to do.

    The one check of the classifiers that recalibrators wrap, that Displays
    draw and that scorers score.

    Parameters
    ----------
    estimator : object
        The classifier.
    owner : str
        Who uses it, for the messages.
    method : str, default=None
        A method it must have, e.g. ``"predict_proba"``.
    advice : str, default=NEVER_REFITTED
        What the message of an unfitted classifier says to do.
    """
    if method is not None and not callable(getattr(estimator, method, None)):
        raise MissingMethodError(
            f"{owner} needs a classifier with {method}; "
            f"{type(estimator).__name__} has none."
        )
    try:
        check_is_fitted(estimator)
    except NotFittedError as exc:
        raise NotFittedError(
            f"The estimator {type(estimator).__name__} given to {owner} is not "
            f"fitted, and {advice}"
        ) from exc
    if getattr(estimator, "classes_", None) is None:
        raise TypeError(
            f"The estimator {type(estimator).__name__} given to {owner} has no "
            "classes_ attribute: it must be a fitted classifier."
        )


def check_partition(splits, n_samples, why, *, cover=True):
    """Reject cross-validation folds whose test sets overlap or miss rows.

    Parameters
    ----------
    splits : list of (train, test) index arrays
        The folds.
    n_samples : int
        The number of rows.
    why : str
        What needs the partition, the start of the message.
    cover : bool, default=True
        Whether every row must be in a test set; otherwise the test sets
        need only be disjoint.
    """
    tests = [np.asarray(test) for _, test in splits]
    covered = np.bincount(np.concatenate(tests), minlength=n_samples)
    bad = covered > 1
    if cover:
        bad |= covered == 0
    n_bad = int(np.count_nonzero(bad))
    if n_bad:
        rule = (
            "partition the samples (each in exactly one test set)"
            if cover
            else "be disjoint (no sample in two test sets)"
        )
        raise ValueError(
            f"{why}, so the test sets of cv must {rule}; {n_bad} sample(s) are not."
        )
