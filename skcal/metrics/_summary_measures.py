"""Calibration measures of the per-cell totals of a binary view.

Each function here takes the cell totals of one view (rows of
:data:`skcal._utils._totals.CELL_CHANNELS`, over ``n_cells`` equal-width
cells of [0, 1]) and returns what the in-memory measure returns, exactly or
with the bound its docstring states; :class:`~skcal.metrics.
CalibrationSummary` applies them view by view.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from skcal._utils._bins import BinSums, weighted_quantile_edges
from skcal._utils._cumulative import range_with_zero
from skcal.metrics._proper import LOSSES, binary_score
from skcal.metrics._smooth_calibration import _lipschitz_dual


def bin_starts(weight, n_bins, strategy):
    """The first cell of each bin, and the bin edges.

    Parameters
    ----------
    weight : ndarray of shape (n_cells,)
        The weight of each cell.
    n_bins : int
        The number of bins asked for.
    strategy : {"uniform", "quantile"}
        Equal-width bins (``n_bins`` must divide the number of cells), or
        bins that end at the first cell boundary where the cumulative weight
        reaches ``j / n_bins`` of the total; repeated boundaries merge.

    Returns
    -------
    starts : ndarray of intp
    edges : ndarray of float64, of length ``len(starts) + 1``
    """
    n_cells = weight.shape[0]
    if strategy == "uniform":
        if n_cells % n_bins:
            raise ValueError(
                f"n_bins={n_bins} does not divide the summary's n_cells={n_cells}: "
                "uniform bins are unions of cells. Use a divisor of n_cells, or "
                "build the summary with n_cells a multiple of n_bins."
            )
        starts = np.arange(n_bins) * (n_cells // n_bins)
    else:
        # The in-memory rule, on the cells: the cell whose cumulative weight
        # first reaches each level ends a bin.
        cell = np.arange(n_cells, dtype=np.float64)
        ends = weighted_quantile_edges(cell, weight, n_bins).astype(np.intp) + 1
        starts = np.unique(np.concatenate(([0], ends[ends < n_cells])))
    edges = np.append(starts, n_cells) / n_cells
    return starts, edges


def bin_sums_of_cells(cells, starts):
    """Per-bin :class:`~skcal._utils._bins.BinSums` of cell totals."""
    weight, sum_p, sum_y, _, weight_sq, n_rows = np.add.reduceat(cells, starts, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        n_effective = np.where(weight > 0, weight**2 / weight_sq, 0.0)
    return BinSums(weight, sum_p, sum_y, n_rows, n_effective)


def view_scalars(y, p, sample_weight, scores):
    """A view's sums of the Brier and log scores, and its prediction range.

    ``[brier, log, p_min, p_max]`` over the rows of positive weight, the
    scores those of :func:`~skcal.metrics._proper.binary_score` (zero
    without ``scores``).
    """
    kept = p if sample_weight is None else p[sample_weight > 0]
    sums = [0.0, 0.0]
    if scores:
        sums = [
            positive_total(binary_score(y, p, loss), sample_weight) for loss in LOSSES
        ]
    return np.array([*sums, kept.min(), kept.max()])


def positive_total(values, sample_weight):
    """``sum w_i v_i`` over the rows of positive weight (``sum v_i`` unweighted).

    Rows of zero weight are left out rather than multiplied by 0, which
    would turn an infinite log score into NaN.
    """
    if sample_weight is None:
        return float(values.sum())
    kept = sample_weight > 0
    return float(np.dot(values[kept], sample_weight[kept]))


def residual_parts(cells):
    """Per-cell sums of ``w (y - p)^+`` and ``w (p - y)^+``.

    As ``y`` is 0 or 1 and ``p`` in [0, 1], ``(y - p)^+ = y (1 - p)`` and
    ``(p - y)^+ = (1 - y) p``; rounding cannot make them negative.
    """
    _, sum_p, sum_y, sum_yp = cells[:4]
    return np.maximum(sum_y - sum_yp, 0.0), np.maximum(sum_p - sum_yp, 0.0)


def cutoff_of_cells(cells):
    r"""The cutoff calibration error on cell boundaries, and its bound.

    Intervals of predictions are restricted to unions of cells: a lower
    bound of the exact statistic. Within cell :math:`c`, the cumulative
    residual moves from its value at the cell's lower boundary by at most
    :math:`P_c = \sum_{i \in c} w_i (y_i - p_i)^+` upwards and
    :math:`N_c = \sum_{i \in c} w_i (p_i - y_i)^+` downwards, so

    .. math::

        0 \le \mathrm{CCE} - \mathrm{CCE}_{\mathrm{cells}}
        \le \frac{\max_c P_c + \max_c N_c}{W}.

    Returns
    -------
    value, bound : float
    """
    total = cells[0].sum()
    prefix = np.cumsum(cells[2] - cells[1])
    up, down = residual_parts(cells)
    value = float(range_with_zero(prefix)) / total
    return value, float((up.max() + down.max()) / total)


def smooth_error_of_cells(cells):
    r"""The smooth calibration error with predictions at their cell centres.

    This is :func:`~skcal.metrics.smooth_calibration_error` with
    ``method="grid"`` and ``n_grid`` the number of cells. Moving each
    prediction by at most :math:`h = 1 / (2 n_{\mathrm{cells}})` changes
    :math:`\sum_i w_i r_i g(p_i)` by at most :math:`h \sum_i w_i |r_i|` for a
    1-Lipschitz :math:`g`, hence the bound
    :math:`\sum_i w_i |y_i - p_i| / (2 n_{\mathrm{cells}} W)`.

    Returns
    -------
    value, bound : float
    """
    n_cells = cells.shape[1]
    total = cells[0].sum()
    occupied = np.flatnonzero(cells[0] > 0)
    centres = (occupied + 0.5) / n_cells
    prefix = np.cumsum((cells[2] - cells[1])[occupied]) / total
    up, down = residual_parts(cells)
    bound = (up.sum() + down.sum()) / (2.0 * n_cells * total)
    return float(_lipschitz_dual(centres, prefix)), float(bound)
