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

from skcal._utils._bins import outcome_sums, uniform_binning

CELL_CHANNELS = ("weight", "sum_p", "sum_y", "sum_yp", "weight_sq", "n_rows")


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
    split = outcome_sums(uniform_binning(n_cells), y, p, sample_weight, squares=True)
    totals = split.sum(axis=2)
    weight_sq, n_rows = (totals[0], totals[0]) if len(totals) == 2 else totals[2:]
    return np.stack(
        [totals[0], totals[1], split[0, :, 1], split[1, :, 1], weight_sq, n_rows]
    )
