"""Binary views of a (possibly multiclass) calibration problem.

"ECE" has several meanings for a multiclass model. skcal makes the choice an
explicit ``reduction=`` parameter of every measure, and this module is the one
place that turns validated data (:class:`skcal._validation.CalibrationData`)
into the binary ``(y, p)`` pairs a measure's core works on:

* ``"positive"`` (binary default, and multiclass default when ``pos_label``
  is given): ``y = 1{y_true == pos_label}``, ``p = P(pos_label)``. On a
  multiclass problem it is the one-vs-rest view of that class.
* ``"top_label"`` (multiclass default, *confidence calibration*):
  ``p = max_k p_k`` and ``y = 1{argmax_k p_k == y_true}``; ties in the argmax
  go to the first class in column order.
* ``"classwise"``: the measure on every one-vs-rest column ``(1{y_true == k},
  p_k)``, averaged over the classes with equal weight.

A binary problem is always held as the positive-class probability ``p``, the
other class having ``1 - p``, so a ``(n, 2)`` input and its 1-D positive
column give identical results under every reduction. Classwise values follow
the column order of the input (``[negative, positive]`` for 1-D input), and
top-label ties go to the first column.

Read more in the :ref:`User Guide <multiclass>`: what each reduction
answers, and which one "ECE" means in papers.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from skcal._param_validation import StrOptions
from skcal._validation import _row_blocks

REDUCTIONS = ("auto", "positive", "top_label", "classwise")

# Rows shorter than this many bytes (up to 15 float64 or 31 float32 columns)
# have their argmax and maximum found by `_narrow_row_top`: numpy's argmax
# along such rows costs about 40 ns a row (41 ms for 1e6 x 10 float64, with
# 12 ms more to gather the maxima). From 16 float64 or 32 float32 columns
# numpy's argmax is the faster of the two.
_NARROW_ROW_BYTES = 128

# Parameter constraints of every measure that takes a reduction.
REDUCTION_CONSTRAINTS = {
    "reduction": [StrOptions(set(REDUCTIONS))],
    "return_per_class": ["boolean"],
}


def resolve_reduction(data, reduction):
    """Resolve ``"auto"`` and check that the reduction applies to ``data``.

    Read more in the :ref:`User Guide <multiclass>`.
    """
    if reduction == "auto":
        # A pos_label given for a multiclass problem asks for its column.
        return "positive" if data.pos_index is not None else "top_label"
    if reduction == "positive" and not data.binary and data.pos_index is None:
        raise ValueError(
            f'reduction="positive" on a problem with {len(data.classes)} classes needs '
            'pos_label=... to name the positive class; or use reduction="top_label" '
            'or "classwise".'
        )
    return reduction


def _indicator(mask):
    """A 0/1 uint8 view of a boolean array (no copy)."""
    return np.asarray(mask, dtype=bool).view(np.uint8)


def binary_views(data, reduction):
    """Yield the binary ``(y, p)`` pairs of a resolved reduction.

    Read more in the :ref:`User Guide <multiclass>`.

    Parameters
    ----------
    data : CalibrationData
        Validated inputs.
    reduction : {"positive", "top_label", "classwise"}
        A resolved reduction (see :func:`resolve_reduction`).

    Yields
    ------
    y : ndarray of shape (n_samples,)
        uint8 indicators in {0, 1} (a view, not a copy, when possible).
    p : ndarray of shape (n_samples,)
        float64 probabilities of the event ``y == 1``.
    """
    views = {"positive": _positive, "top_label": _top_label, "classwise": _classwise}
    if reduction not in views:
        raise ValueError(f"Unknown reduction {reduction!r}.")
    yield from views[reduction](data)


def row_argmax(matrix):
    """``np.argmax(matrix, axis=1)`` of a validated, read-only matrix, without a copy.

    numpy's argmax copies an array that is not writeable (3.6 times the time
    of the argmax for 1e5 x 1000 float64). The validated data are read-only
    views of the caller's array, so the argmax reads that array instead when
    it is writeable and the same memory (it is read, never written).

    Read more in the :ref:`User Guide <multiclass>`.
    """
    base = matrix.base
    if (
        not matrix.flags.writeable
        and isinstance(base, np.ndarray)
        and base.flags.writeable
        and base.dtype == matrix.dtype
        and base.shape == matrix.shape
        and base.strides == matrix.strides
        and base.ctypes.data == matrix.ctypes.data
    ):
        matrix = base
    return np.argmax(matrix, axis=1)


def top_of_rows(data):
    """The row argmax (first column on ties) and row maximum of a matrix's data.

    Those the validation found on its way (``data.top_of_rows``, for a wide
    matrix) when they are of the data's ``y_prob``; otherwise computed: by
    `_narrow_row_top` for rows of fewer than 128 bytes, by :func:`row_argmax`
    and a gather for longer ones.

    Read more in the :ref:`User Guide <multiclass>`.

    Returns
    -------
    argmax : ndarray of shape (n_samples,)
    maximum : ndarray of shape (n_samples,)
        In the matrix's dtype.
    """
    found = data.top_of_rows
    if found is not None and found[0] is data.y_prob:
        return found[1], found[2]
    if data.y_prob.shape[1] * data.y_prob.itemsize < _NARROW_ROW_BYTES:
        return _narrow_row_top(data.y_prob)
    argmax = row_argmax(data.y_prob)
    return argmax, np.take_along_axis(data.y_prob, argmax[:, None], axis=1)[:, 0]


def _narrow_row_top(matrix):
    """Row argmax (first column on ties) and row maximum of a matrix of short rows.

    A block of rows at a time (the blocks of the validation's check,
    ``skcal._validation._row_blocks``) is copied transposed, each column
    then contiguous, into a buffer that stays in the cache. The block's row
    maxima are the elementwise maximum of its columns, and its row argmax
    the first column equal to the maximum: with ``K`` columns, ``K - r``
    where ``r`` is the largest of ``(K - j) [column j == maximum]``. Each
    step is one vectorised pass over the block, where numpy's argmax pays a
    call per row; the maxima need no gather afterwards. For 1e6 x 10
    float64, 23 ms against 53 ms for numpy's argmax and a gather; 13 ms
    against 48 ms in float32.

    Parameters
    ----------
    matrix : ndarray of shape (n_samples, n_classes)
        Validated probabilities (no NaN), fewer than 256 columns.

    Returns
    -------
    argmax : ndarray of shape (n_samples,)
    maximum : ndarray of shape (n_samples,)
        In the matrix's dtype.
    """
    n_rows, n_columns = matrix.shape
    blocks = _row_blocks(matrix)
    step = blocks[0][1]
    columns = np.empty((n_columns, step), dtype=matrix.dtype)
    ranks = np.empty((n_columns, step), dtype=np.uint8)
    first = np.empty(step, dtype=np.uint8)
    # K - j for column j: the first column equal to the maximum ranks highest.
    rank = np.arange(n_columns, 0, -1, dtype=np.uint8)[:, None]
    argmax = np.empty(n_rows, dtype=np.intp)
    maximum = np.empty(n_rows, dtype=matrix.dtype)
    for start, stop in blocks:
        size = stop - start
        block, block_ranks = columns[:, :size], ranks[:, :size]
        np.copyto(block, matrix[start:stop].T)
        top = maximum[start:stop]
        np.maximum.reduce(block, axis=0, out=top)
        # [column j == maximum] as 0/1 bytes, then times K - j in place.
        np.equal(block, top, out=block_ranks.view(bool))
        block_ranks *= rank
        np.maximum.reduce(block_ranks, axis=0, out=first[:size])
        np.subtract(n_columns, first[:size], out=argmax[start:stop], casting="unsafe")
    return argmax, maximum


def _positive(data):
    """The view of the positive class (of ``pos_label`` for multiclass data)."""
    if data.binary:
        yield _indicator(data.y_true), data.y_prob
    else:
        k = data.pos_index
        yield _indicator(data.y_true == k), data.y_prob[:, k].astype(np.float64)


def _top_label(data):
    """Confidence against correctness of the argmax (ties to the first column)."""
    p_all, y_all = data.y_prob, data.y_true
    if data.binary:
        # Ties (p = 1/2) go to the first class in column order.
        predicted_positive = p_all >= 0.5 if data.pos_index == 0 else p_all > 0.5
        yield (
            _indicator(predicted_positive == y_all),
            np.where(predicted_positive, p_all, 1.0 - p_all),
        )
    else:
        predicted, confidence = top_of_rows(data)
        yield _indicator(predicted == y_all), confidence.astype(np.float64)


def _classwise(data):
    """Every one-vs-rest view, in column order."""
    p_all, y_all = data.y_prob, data.y_true
    if data.binary:
        negative = (_indicator(~y_all), 1.0 - p_all)
        positive = (_indicator(y_all), p_all)
        yield from (positive, negative) if data.pos_index == 0 else (negative, positive)
    else:
        for k in range(p_all.shape[1]):
            yield _indicator(y_all == k), p_all[:, k].astype(np.float64)


def reduce_measure(data, reduction, measure, *, return_per_class=False):
    """Apply a binary measure under a reduction.

    Read more in the :ref:`User Guide <multiclass>`.

    Parameters
    ----------
    data : CalibrationData
        Validated inputs.
    reduction : {"auto", "positive", "top_label", "classwise"}
        The reduction (see the module docstring).
    measure : callable
        ``measure(y, p, sample_weight) -> float``, with ``y`` a uint8 0/1
        indicator and ``p`` and ``sample_weight`` float64 arrays.
    return_per_class : bool, default=False
        With ``reduction="classwise"``, return the per-class values instead of
        their mean.

    Returns
    -------
    value : float or ndarray of shape (n_classes,)
        The measure, or the per-class vector when ``return_per_class``.
    """
    reduction = resolve_reduction(data, reduction)
    check_per_class(reduction, return_per_class)
    values = [
        measure(y, p, data.sample_weight) for y, p in binary_views(data, reduction)
    ]
    return mean_or_per_class(values, return_per_class)


def check_per_class(reduction, return_per_class):
    """Refuse ``return_per_class=True`` under a resolved reduction other than
    ``"classwise"``.

    Read more in the :ref:`User Guide <multiclass>`.
    """
    if return_per_class and reduction != "classwise":
        raise ValueError(
            f'return_per_class=True needs reduction="classwise", got reduction='
            f"{reduction!r}."
        )


def mean_or_per_class(values, return_per_class):
    """The per-view values as a float64 vector, or their mean as a float.

    Read more in the :ref:`User Guide <multiclass>`.
    """
    values = np.asarray(values, dtype=np.float64)
    return values if return_per_class else float(values.mean())
