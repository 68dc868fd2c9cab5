"""Per-cell totals of a binary view, which add up across batches and shards.

A calibration summary (:class:`~skcal.metrics.CalibrationSummary`) keeps,
for each binary view of the data and each cell of a uniform grid of
``n_cells`` right-closed cells of [0, 1] (the bins of
:mod:`skcal._utils._bins`), the weight, the weighted sums of ``p``, ``y``
and ``y p``, the sum of squared weights and the number of rows of positive
weight (:data:`CELL_CHANNELS`): exact functions of the rows that add up
when two sets of rows are merged.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from skcal._utils._bins import uniform_binning

CELL_CHANNELS = ("weight", "sum_p", "sum_y", "sum_yp", "weight_sq", "n_rows")

# Rows per block of `cell_totals`: temporaries of 2 MiB stay in cache.
_BLOCK = 1 << 18


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
