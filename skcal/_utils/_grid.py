"""Linear ("cloud in cell") binning of predictions onto a uniform grid of [0, 1].

A prediction at ``p = (j + s) / M``, with ``0 <= s < 1``, gives a fraction
``1 - s`` of its value to node ``j`` and ``s`` to node ``j + 1``; nothing is
lost at 0 or 1. The SmoothECE smoother bins its rows so, and its bootstrap
band groups rows by the same cells.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

# Rows binned per block: temporaries stay in cache, and the Python loop costs
# nothing.
_BLOCK = 1 << 15

CHANNELS = ("residual", "weight", "outcome")


def grid_cells(p, n_intervals, cell=None, offset=None):
    """The cell ``j = floor(p M)`` of each prediction and its offset ``p M - j``.

    Parameters
    ----------
    p : ndarray of shape (n_samples,)
        float64 predictions in [0, 1].
    n_intervals : int
        ``M``, the number of grid intervals; ``p = 1`` is cell ``M`` with
        offset 0.
    cell, offset : ndarray of shape (n_samples,), default=None
        Output buffers (intp and float64).

    Returns
    -------
    cell : ndarray of intp
    offset : ndarray of float64, in [0, 1)
    """
    offset = np.multiply(p, n_intervals, out=offset)
    if cell is None:
        cell = np.empty(p.shape[0], dtype=np.intp)
    np.copyto(cell, offset, casting="unsafe")  # floor, as p >= 0
    np.subtract(offset, cell, out=offset)
    return cell, offset


def linear_binning(p, y, sample_weight, n_intervals, channels):
    """Spread each sample's values onto the two nodes around it.

    Parameters
    ----------
    p : ndarray of shape (n_samples,)
        float64 predictions in [0, 1].
    y : ndarray of shape (n_samples,)
        0/1 outcomes.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.
    n_intervals : int
        The grid has nodes ``j / n_intervals``, ``j = 0, ..., n_intervals``.
    channels : tuple of {"residual", "weight", "outcome"}
        The values binned: ``w (p - y)``, ``w`` and ``w y``.

    Returns
    -------
    masses : ndarray of shape (len(channels), n_intervals + 1)
        The binned values of each channel, node by node.
    """
    n = p.shape[0]
    size = n_intervals + 1
    # Per channel: the total value of each cell [j, j + 1) (p = 1 is cell
    # n_intervals, with offset 0) and the part of it that goes up to j + 1.
    totals = np.zeros((len(channels), size))
    uppers = np.zeros((len(channels), size))
    block = max(min(_BLOCK, n), 1)
    offsets, values, product = np.empty(block), np.empty(block), np.empty(block)
    cells = np.empty(block, dtype=np.intp)
    for start in range(0, n, block):
        stop = min(start + block, n)
        m = stop - start
        pc, yc = p[start:stop], y[start:stop]
        wc = None if sample_weight is None else sample_weight[start:stop]
        cell, frac = grid_cells(pc, n_intervals, cells[:m], offsets[:m])
        for j, channel in enumerate(channels):
            if channel == "residual":
                v = np.subtract(pc, yc, out=values[:m])
                if wc is not None:
                    np.multiply(v, wc, out=v)
            elif channel == "outcome":
                v = np.multiply(yc, 1.0 if wc is None else wc, out=values[:m])
            else:
                v = wc
            # ufunc.at adds in place: unlike bincount, it allocates no array of
            # the grid per call nor copies read-only weights.
            if v is None:  # unweighted counts
                np.add.at(totals[j], cell, 1.0)
                np.add.at(uppers[j], cell, frac)
            else:
                np.add.at(totals[j], cell, v)
                np.add.at(uppers[j], cell, np.multiply(v, frac, out=product[:m]))
    totals -= uppers
    totals[:, 1:] += uppers[:, :-1]
    return totals


def halve_grid(masses):
    """Linear binning onto every other node of a grid, from its binned masses.

    A value binned linearly onto the nodes ``j / M`` and then spread from each
    node onto the two nodes of the grid ``c / (M / 2)`` around it (a node
    ``2c`` wholly to ``c``, a node ``2c + 1`` half to ``c`` and half to
    ``c + 1``) ends where linear binning onto the coarse grid puts it: the
    coarse hat functions are linear between fine nodes, so interpolating them
    on the fine grid is exact.

    Parameters
    ----------
    masses : ndarray of shape (..., M + 1)
        Values binned onto a grid of an even number ``M`` of intervals.

    Returns
    -------
    coarse : ndarray of shape (..., M // 2 + 1)
    """
    coarse = masses[..., ::2].copy()
    odd = 0.5 * masses[..., 1::2]
    coarse[..., :-1] += odd
    coarse[..., 1:] += odd
    return coarse
