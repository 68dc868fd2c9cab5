"""Totals of binary views that add up across batches and shards.

A calibration summary (:class:`~skcal.metrics.CalibrationSummary`) keeps,
for each binary view of the data, sums that are exact functions of the rows
and add up when two sets of rows are merged:

* per *cell* of a uniform grid of ``n_cells`` right-closed cells of [0, 1]
  (the cells of :mod:`skcal._utils._bins`): the weight, the weighted sums of
  ``p``, ``y`` and ``y p``, the sum of squared weights and the number of
  rows of positive weight (:data:`CELL_CHANNELS`);
* the linear binning of the residuals, weights and outcomes onto the grid of
  the SmoothECE (:func:`skcal._utils._grid.linear_binning`), when kept;
* a few scalars: the Brier and log scores of the view, and the smallest and
  largest prediction of positive weight (:data:`SCALARS`).

Weights arrive divided by a power of two (the validated weights of
:mod:`skcal._validation`); totals are held in the units of the largest such
power seen, so that rescaling them is exact.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from skcal._utils._bins import Binning
from skcal._utils._grid import CHANNELS, linear_binning

CELL_CHANNELS = ("weight", "sum_p", "sum_y", "sum_yp", "weight_sq", "n_rows")
SCALARS = ("brier", "log", "p_min", "p_max")

# Rows per block of `cell_totals`: temporaries of 2 MiB stay in cache.
_BLOCK = 1 << 18


def uniform_binning(n_bins):
    """The equal-width :class:`~skcal._utils._bins.Binning` of ``n_bins`` bins."""
    return Binning(np.arange(n_bins + 1, dtype=np.float64) / n_bins, True)


def cell_totals(y, p, sample_weight, n_cells):
    """Per-cell sums of one binary view (:data:`CELL_CHANNELS`, in order).

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Outcomes in {0, 1}.
    p : ndarray of shape (n_samples,)
        float64 predictions in [0, 1].
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.
    n_cells : int
        Number of equal-width cells.

    Returns
    -------
    totals : ndarray of shape (len(CELL_CHANNELS), n_cells)
    """
    binning = uniform_binning(n_cells)
    totals = np.zeros((len(CELL_CHANNELS), n_cells))
    size = 2 * n_cells
    for start in range(0, p.shape[0], _BLOCK):
        block = slice(start, start + _BLOCK)
        pc = p[block]
        wc = None if sample_weight is None else sample_weight[block]
        cells = binning.assign(pc)
        # Code 2 * cell + y: one bincount splits each cell's sums by outcome.
        codes = 2 * cells + y[block]
        by_outcome = np.bincount(codes, wc, size).reshape(n_cells, 2)
        p_by_outcome = np.bincount(codes, pc if wc is None else pc * wc, size).reshape(
            n_cells, 2
        )
        weight = by_outcome.sum(axis=1)
        totals[0] += weight
        totals[1] += p_by_outcome.sum(axis=1)
        totals[2] += by_outcome[:, 1]
        totals[3] += p_by_outcome[:, 1]
        if wc is None:
            totals[4] += weight
            totals[5] += weight
        else:
            totals[4] += np.bincount(cells, wc * wc, n_cells)
            totals[5] += np.bincount(cells, wc > 0, n_cells)
    return totals


def kernel_totals(y, p, sample_weight, n_intervals):
    """The linear binning of the SmoothECE channels (``CHANNELS``, in order)."""
    return linear_binning(p, y, sample_weight, n_intervals, CHANNELS)


def scalar_totals(y, p, sample_weight, scores=True):
    """The view's score sums and prediction range (:data:`SCALARS`, in order).

    The scores are those of :func:`skcal.metrics._proper.binary_score`:
    ``(p - y)**2`` and ``-log`` of the probability given to the outcome
    (zero without ``scores``). Rows of zero weight count for neither; some
    weight must be positive.
    """
    if sample_weight is not None:
        kept = sample_weight > 0
        y, p, sample_weight = y[kept], p[kept], sample_weight[kept]
    sums = [0.0, 0.0]
    if scores:
        outcome = y.astype(bool)
        with np.errstate(divide="ignore"):
            log = -np.log(np.where(outcome, p, 1.0 - p))
        brier = np.square(p - outcome)
        if sample_weight is None:
            sums = [brier.sum(), log.sum()]
        else:
            sums = [np.dot(brier, sample_weight), np.dot(log, sample_weight)]
    return np.array([*sums, p.min(), p.max()])


def rescale(totals, scalars, factor):
    """Multiply weight totals by ``factor`` (a power of two), squares by its square.

    Parameters
    ----------
    totals : dict of str to ndarray
        ``"cells"`` of shape (n_views, len(CELL_CHANNELS), n_cells) and,
        when kept, ``"kernel"`` of shape (n_views, len(CHANNELS), n_nodes).
    scalars : ndarray of shape (n_views, len(SCALARS))
        The view scalars.
    factor : float
        A power of two.
    """
    cells = totals["cells"]
    cells[:, :4] *= factor
    cells[:, 4] *= factor * factor
    if "kernel" in totals:
        totals["kernel"] *= factor
    scalars[:, :2] *= factor
