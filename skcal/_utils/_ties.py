"""Predictions sorted once, with their groups of identical values.

The exact measures (cutoff and smooth calibration errors, the grouped
decomposition, kernel estimates at the predictions) all work on the distinct
predictions in increasing order; :class:`Ties` sorts once and gives each
what it needs, computing the rest only when asked.
"""

# SPDX-License-Identifier: BSD-3-Clause

from functools import cached_property

import numpy as np


class Ties:
    """Samples sorted by prediction, and the groups of identical predictions.

    Parameters
    ----------
    p : ndarray of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (of an event) or probability vectors; rows
        are identical when all their entries compare equal (so -0.0 and 0.0
        are one value), and are sorted lexicographically.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.

    Attributes
    ----------
    order : ndarray of shape (n_samples,)
        The permutation that sorts the predictions.
    sorted : ndarray
        The sorted predictions, ``p[order]``.
    ends : ndarray of shape (n_groups,)
        The position, in sorted order, of the last row of each group.
    w_sorted : ndarray of shape (n_samples,) or None
        The weights in sorted order.
    total_weight : float
        The sum of the weights (the number of rows when unweighted).
    """

    def __init__(self, p, sample_weight=None):
        n = p.shape[0]
        if p.ndim == 1:
            self.order = np.argsort(p)
            self.sorted = p[self.order]
            new = self.sorted[1:] != self.sorted[:-1]
        else:
            self.order = np.lexsort(p.T[::-1])
            self.sorted = p[self.order]
            new = np.any(self.sorted[1:] != self.sorted[:-1], axis=1)
        self.ends = np.append(np.flatnonzero(new), n - 1)
        self.w_sorted = None if sample_weight is None else sample_weight[self.order]
        self.total_weight = (
            float(n) if sample_weight is None else float(self.w_sorted.sum())
        )

    def reweighted(self, sample_weight):
        """The same sorted predictions with other weights (no new sort).

        Equal to ``Ties(p, sample_weight)`` for the ``p`` of this object;
        resamples of the rows change only the weights.
        """
        other = object.__new__(Ties)
        other.order, other.sorted, other.ends = self.order, self.sorted, self.ends
        if sample_weight is None:
            other.w_sorted, other.total_weight = None, float(self.order.shape[0])
        else:
            other.w_sorted = sample_weight[self.order]
            other.total_weight = float(other.w_sorted.sum())
        return other

    @property
    def n_groups(self):
        return self.ends.shape[0]

    @property
    def values(self):
        """The distinct predictions, in increasing order."""
        if self.n_groups == self.sorted.shape[0]:
            return self.sorted
        return self.sorted[self.ends]

    @cached_property
    def _starts(self):
        return np.r_[0, self.ends[:-1] + 1]

    @cached_property
    def inverse(self):
        """The group of each sample, in the original order."""
        group = np.zeros(self.order.shape[0], dtype=np.intp)
        group[self._starts[1:]] = 1
        inverse = np.empty_like(group)
        inverse[self.order] = np.cumsum(group)
        return inverse

    @cached_property
    def weight(self):
        """Total weight of each group (its size when unweighted)."""
        if self.w_sorted is None:
            return np.diff(np.r_[-1, self.ends]).astype(np.float64)
        return np.add.reduceat(self.w_sorted, self._starts)

    def sum(self, values):
        """Sum of per-sample ``values`` within each group, times the weights.

        Parameters
        ----------
        values : ndarray of shape (n_samples,)
            Numbers to add up, in the original order.

        Returns
        -------
        sums : ndarray of shape (n_groups,)
            ``sum_{i in group} w_i values_i``.
        """
        values = np.asarray(values, dtype=np.float64)[self.order]
        if self.w_sorted is not None:
            values *= self.w_sorted
        return np.add.reduceat(values, self._starts)
