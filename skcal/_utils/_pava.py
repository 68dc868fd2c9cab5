"""Isotonic regression of values given chunk by chunk, in memory of its blocks.

The blocks of the isotonic fit of a prefix of the data are unions of blocks
of the fit of the whole (pooling adjacent violators in any order reaches the
same solution), so a chunk at a time is fitted together with the blocks of
the fit so far, each block standing for its points as their weighted mean.
Only the blocks are held: a few thousand for the isotonic recalibration of
ten million calibrated-looking predictions, against the data's length.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.isotonic import isotonic_regression


class IsotonicBlocks:
    """The blocks of the non-decreasing least-squares fit of weighted values.

    Call :meth:`add` with the values in increasing order of the predictor,
    chunk by chunk; then :meth:`fitted` gives the fit of any range of points.

    Attributes
    ----------
    value : ndarray of shape (n_blocks,)
        The fit of each block: the weighted mean of its values.
    weight : ndarray of shape (n_blocks,)
        The total weight of each block.
    ends : ndarray of shape (n_blocks,)
        The number of points up to and including each block.

    Examples
    --------
    >>> blocks = IsotonicBlocks()
    >>> blocks.add(np.array([1.0, 0.0]), np.ones(2))
    >>> blocks.value.tolist(), blocks.ends.tolist()
    ([0.5], [2])
    >>> blocks.add(np.array([1.0, 0.0, 1.0]), np.ones(3))
    >>> blocks.value.tolist(), blocks.ends.tolist()
    ([0.5, 1.0], [4, 5])
    >>> blocks.fitted(3, 5).tolist()
    [0.5, 1.0]
    """

    def __init__(self):
        self.value = np.empty(0)
        self.weight = np.empty(0)
        self.ends = np.empty(0, dtype=np.intp)

    def add(self, values, weights):
        """Fit the next points, of positive ``weights``, with the blocks so far."""
        if values.shape[0] == 0:
            return
        sizes = np.diff(self.ends, prepend=0)
        sizes = np.concatenate([sizes, np.ones(values.shape[0], dtype=np.intp)])
        weights = np.concatenate([self.weight, weights])
        fit = isotonic_regression(
            np.concatenate([self.value, values]), sample_weight=weights
        )
        # Adjacent blocks of one value are one block: pooling them changes
        # no fit, now or after later points.
        starts = np.flatnonzero(np.r_[True, fit[1:] != fit[:-1]])
        self.value = fit[starts]
        self.weight = np.add.reduceat(weights, starts)
        self.ends = np.cumsum(np.add.reduceat(sizes, starts))

    def fitted(self, start, stop):
        """The fit of points ``start`` to ``stop - 1`` (in the order added)."""
        points = np.arange(start, stop)
        return self.value[np.searchsorted(self.ends, points, side="right")]
