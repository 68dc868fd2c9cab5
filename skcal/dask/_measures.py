"""Calibration summaries and measures of Dask collections."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import functools
from typing import Any, Literal

from skcal._typing import Label
from skcal.dask._collections import blocks, classes_of
from skcal.metrics._summary import DEFAULT_N_CELLS, CalibrationSummary

# Summaries merged at once by a node of the reduction tree.
_FAN_IN = 8


def _block_summary(y_true, y_prob, sample_weight, options):
    """The summary of one block (run on a worker)."""
    return CalibrationSummary(**options).update(y_true, y_prob, sample_weight)


def _merged(summaries):
    """The merge of a list of summaries (run on a worker)."""
    return functools.reduce(CalibrationSummary.merge, summaries)


def summarize(
    y_true: Any,
    y_prob: Any,
    *,
    sample_weight: Any | None = None,
    pos_label: Label | None = None,
    labels: Any | None = None,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
    n_cells: int = DEFAULT_N_CELLS,
    eps: float | None = 1e-3,
    scores: bool = True,
    compute: bool = True,
) -> Any:
    """The :class:`~skcal.metrics.CalibrationSummary` of Dask collections.

    Each block of rows is summarised where it lies, and the summaries are
    merged by a tree reduction (eight at a node), on whatever Dask scheduler
    is active (threads, processes, or a ``dask.distributed`` cluster).
    Nothing gathers the rows into one process. Ask the result for any
    measure of :class:`~skcal.metrics.CalibrationSummary`.

    Read more in the :ref:`User Guide <scale>`.

    Parameters
    ----------
    y_true : dask.array.Array or dask.dataframe.Series
        True labels.
    y_prob : dask.array.Array, dask.dataframe.Series or DataFrame
        Probabilities, 1-D (binary) or one column per class. Array rows are
        the blocks (columns are put in one block); frames keep their
        partitions, and all three frames must have as many.
    sample_weight : dask.array.Array or dask.dataframe.Series, default=None
        Non-negative weights.
    pos_label : label, default=None
        The positive class, as for the measures.
    labels : array-like of shape (n_classes,), default=None
        The classes in column order. When None, the distinct labels of
        ``y_true`` are computed first (one pass over ``y_true``, even with
        ``compute=False``), so that every block uses the classes the
        in-memory measures would infer; pass them to skip that pass.
    reduction : {"auto", "positive", "top_label", "classwise"}, default="auto"
        The binary views kept.
    n_cells : int, default=100_800
        Cells of the summary's grid.
    eps : float or None, default=1e-3
        The SmoothECE tolerance, or None for no SmoothECE grid.
    scores : bool, default=True
        Keep the Brier and log score sums.
    compute : bool, default=True
        Compute the summary, or return a ``dask.delayed.Delayed`` of it
        (as dask-ml's metrics do).

    Returns
    -------
    summary : CalibrationSummary or dask.delayed.Delayed
        The summary of all rows.

    Examples
    --------
    >>> import dask.array as da
    >>> from skcal.dask import summarize
    >>> p = da.from_array([0.2, 0.7, 0.9, 0.4], chunks=2)
    >>> y = da.from_array([0, 1, 1, 1], chunks=2)
    >>> summary = summarize(y, p, eps=None, n_cells=10)
    >>> round(summary.expected_calibration_error(n_bins=2), 4)
    0.2
    """
    import dask

    labels, pos_label = classes_of(y_true, y_prob, pos_label, labels)
    options = {
        "labels": labels,
        "pos_label": pos_label,
        "reduction": reduction,
        "n_cells": n_cells,
        "eps": eps,
        "scores": scores,
    }
    CalibrationSummary(**options)  # checks the options before any work
    summarise = dask.delayed(_block_summary, pure=True)
    merge = dask.delayed(_merged, pure=True)
    level = [
        summarise(*block, options) for block in blocks(y_true, y_prob, sample_weight)
    ]
    while len(level) > 1:
        level = [merge(level[i : i + _FAN_IN]) for i in range(0, len(level), _FAN_IN)]
    return level[0].compute() if compute else level[0]


def _ask(summary, method, options):
    """A measure of a summary (run on a worker)."""
    return getattr(summary, method)(**options)


def _measure(method, data, summary_options, method_options, compute):
    """A measure of Dask collections, through their summary."""
    import dask

    y_true, y_prob, sample_weight, pos_label, labels = data
    summary = summarize(
        y_true,
        y_prob,
        sample_weight=sample_weight,
        pos_label=pos_label,
        labels=labels,
        **summary_options,
        compute=False,
    )
    value = dask.delayed(_ask, pure=True)(summary, method, method_options)
    return value.compute() if compute else value


def expected_calibration_error(
    y_true: Any,
    y_prob: Any,
    *,
    sample_weight: Any | None = None,
    pos_label: Label | None = None,
    labels: Any | None = None,
    n_bins: int = 15,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
    return_per_class: bool = False,
    compute: bool = True,
) -> Any:
    """:func:`skcal.metrics.expected_calibration_error` of Dask collections.

    Equal-width bins, summed block by block (the cells of the summary are
    the bins) and merged by a tree reduction: equal to the in-memory
    function up to the rounding of the sums.

    Read more in the :ref:`User Guide <scale>`.

    Parameters
    ----------
    y_true, y_prob, sample_weight, pos_label, labels
        As for :func:`summarize`.
    n_bins : int, default=15
        Number of equal-width bins.
    reduction : {"auto", "positive", "top_label", "classwise"}, default="auto"
        The binary views measured.
    return_per_class : bool, default=False
        The per-class values with ``reduction="classwise"``.
    compute : bool, default=True
        Compute the value, or return a ``dask.delayed.Delayed`` of it.

    Returns
    -------
    ece : float, ndarray of shape (n_classes,) or dask.delayed.Delayed
        The expected calibration error.

    Examples
    --------
    >>> import dask.array as da
    >>> from skcal.dask import expected_calibration_error
    >>> p = da.from_array([0.25, 0.25, 0.75, 1.0], chunks=3)
    >>> y = da.from_array([0, 1, 0, 1], chunks=3)
    >>> expected_calibration_error(y, p, n_bins=2)
    0.3125
    """
    return _measure(
        "expected_calibration_error",
        (y_true, y_prob, sample_weight, pos_label, labels),
        {"reduction": reduction, "n_cells": n_bins, "eps": None, "scores": False},
        {"n_bins": n_bins, "return_per_class": return_per_class},
        compute,
    )


def smooth_ece(
    y_true: Any,
    y_prob: Any,
    *,
    sample_weight: Any | None = None,
    pos_label: Label | None = None,
    labels: Any | None = None,
    sigma: Literal["auto"] | float = "auto",
    eps: float = 1e-3,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
    return_per_class: bool = False,
    compute: bool = True,
) -> Any:
    """:func:`skcal.metrics.smooth_ece` of Dask collections.

    Each block is binned onto the SmoothECE grid of ``eps`` and the grids
    are added: with ``sigma="auto"`` the value equals the in-memory one up
    to the rounding of the sums (at a given ``sigma``, within the bound of
    :meth:`skcal.metrics.CalibrationSummary.smooth_ece`).

    Read more in the :ref:`User Guide <scale>`.

    Parameters
    ----------
    y_true, y_prob, sample_weight, pos_label, labels
        As for :func:`summarize`.
    sigma : "auto" or float, default="auto"
        The bandwidth, or the fixed point.
    eps : float, default=1e-3
        The tolerance of the fixed point, which sets the grid.
    reduction : {"auto", "positive", "top_label", "classwise"}, default="auto"
        The binary views measured.
    return_per_class : bool, default=False
        The per-class values with ``reduction="classwise"``.
    compute : bool, default=True
        Compute the value, or return a ``dask.delayed.Delayed`` of it.

    Returns
    -------
    smooth_ece : float, ndarray of shape (n_classes,) or dask.delayed.Delayed
        The SmoothECE.

    Examples
    --------
    >>> import dask.array as da
    >>> from skcal.dask import smooth_ece
    >>> y = da.from_array([0, 1, 1, 1], chunks=2)
    >>> smooth_ece(y, da.full(4, 0.5, chunks=2))
    0.25
    """
    return _measure(
        "smooth_ece",
        (y_true, y_prob, sample_weight, pos_label, labels),
        {"reduction": reduction, "n_cells": 1, "eps": eps, "scores": False},
        {"sigma": sigma, "return_per_class": return_per_class},
        compute,
    )
