"""Predictions sorted once, with their groups of identical values.

The exact measures (cutoff and smooth calibration errors, the grouped
decomposition, kernel estimates at the predictions) all work on the distinct
predictions in increasing order; :class:`Ties` sorts once and gives each
what it needs, computing the rest only when asked.
"""

# SPDX-License-Identifier: BSD-3-Clause

from functools import cached_property

import numpy as np


def group_ends(sorted_values):
    """The last position of each run of equal sorted values; None when all differ.

    Rows of a 2-D array are equal when all their entries are. None spares
    continuous predictions an index array as long as the data.

    Examples
    --------
    >>> group_ends(np.array([0.1, 0.2, 0.2, 0.5]))
    array([0, 2, 3])
    >>> group_ends(np.array([0.1, 0.2])) is None
    True
    """
    new = sorted_values[1:] != sorted_values[:-1]
    if new.ndim > 1:
        new = np.any(new, axis=1)
    if new.all():
        return None
    return np.append(np.flatnonzero(new), sorted_values.shape[0] - 1)


def sorted_outcome_keys(p, y):
    """Predictions in [0, 1] and 0/1 outcomes sorted together, as 64-bit keys.

    The bits of a non-negative float64, read as an unsigned integer, order
    as the float does; shifted left by one, they leave the lowest bit for
    the outcome. Sorting the keys (several times faster than ``argsort``,
    and with no index array) sorts the rows by prediction, outcomes with
    their rows; :func:`decode_keys` reads a block back. -0.0 becomes 0.0.

    Examples
    --------
    >>> keys = sorted_outcome_keys(np.array([0.7, 0.2, 0.7]), np.array([1, 0, 0]))
    >>> decode_keys(keys)
    (array([0.2, 0.7, 0.7]), array([0, 0, 1], dtype=uint64))
    """
    keys = np.add(p, 0.0).view(np.uint64)  # a copy without the sign of -0.0
    keys <<= np.uint64(1)
    # y is cast block by block, not copied whole.
    np.bitwise_or(keys, y, out=keys, dtype=np.uint64, casting="unsafe")
    keys.sort()
    return keys


def decode_keys(keys):
    """The predictions (float64) and outcomes (uint64) of sorted keys."""
    return (keys >> np.uint64(1)).view(np.float64), keys & np.uint64(1)


def split_keys(keys):
    """The predictions and outcomes (uint8) of keys, the keys becoming the former.

    :func:`decode_keys` without a copy of the keys: they are shifted in
    place and viewed as float64.
    """
    one = np.uint64(1)
    y = np.empty(keys.shape[0], dtype=np.uint8)
    np.bitwise_and(keys, one, out=y, casting="unsafe")
    keys >>= one
    return keys.view(np.float64), y


def key_group_ends(keys, block=1 << 16):
    """:func:`group_ends` of the predictions of sorted keys, a block at a time.

    The positions are gathered only when some predictions are equal (a
    first pass counts the changes), so distinct predictions need no array
    as long as the data.
    """
    n = keys.shape[0]
    one = np.uint64(1)

    def changes():
        for start in range(0, n - 1, block):
            stop = min(start + block + 1, n)
            new = (keys[start : stop - 1] >> one) != (keys[start + 1 : stop] >> one)
            yield start, new

    if sum(int(np.count_nonzero(new)) for _, new in changes()) == n - 1:
        return None
    ends = [np.flatnonzero(new) + start for start, new in changes()]
    return np.concatenate([*ends, [n - 1]])


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
    presorted : bool, default=False
        Whether ``p`` is already sorted (e.g. by :func:`sorted_outcome_keys`): then
        ``order`` is None and values given in the original order are taken
        as sorted.

    Attributes
    ----------
    order : ndarray of shape (n_samples,) or None
        The permutation that sorts the predictions (None if ``presorted``).
    n_samples : int
        The number of rows.
    sorted : ndarray
        The sorted predictions, ``p[order]``.
    ends : ndarray of shape (n_groups,)
        The position, in sorted order, of the last row of each group.
    tied_ends : ndarray of shape (n_groups,) or None
        ``ends`` when some predictions are equal, None when every row is a
        group of its own (``ends`` is then built only when asked for).
    distinct : bool
        Whether every prediction differs from the others.
    w_sorted : ndarray of shape (n_samples,) or None
        The weights in sorted order.
    total_weight : float
        The sum of the weights (the number of rows when unweighted).
    """

    def __init__(self, p, sample_weight=None, presorted=False):
        n = self.n_samples = p.shape[0]
        if presorted:
            self.order = None
        else:
            self.order = np.argsort(p) if p.ndim == 1 else np.lexsort(p.T[::-1])
        self.sorted = self._sort(p)
        self.tied_ends = group_ends(self.sorted)
        self.w_sorted = None if sample_weight is None else self._sort(sample_weight)
        self.total_weight = (
            float(n) if sample_weight is None else float(self.w_sorted.sum())
        )

    def _sort(self, values):
        """``values`` (in the original order) in sorted order."""
        return values if self.order is None else values[self.order]

    @property
    def distinct(self):
        return self.tied_ends is None

    @cached_property
    def ends(self):
        if self.tied_ends is None:
            return np.arange(self.n_samples)
        return self.tied_ends

    @property
    def n_groups(self):
        return self.n_samples if self.tied_ends is None else self.tied_ends.shape[0]

    @property
    def values(self):
        """The distinct predictions, in increasing order."""
        if self.distinct:
            return self.sorted
        return self.sorted[self.ends]

    @cached_property
    def _starts(self):
        return np.r_[0, self.ends[:-1] + 1]

    @cached_property
    def inverse(self):
        """The group of each sample, in the original order."""
        group = np.zeros(self.n_samples, dtype=np.intp)
        group[self._starts[1:]] = 1
        if self.order is None:
            return np.cumsum(group)
        inverse = np.empty_like(group)
        inverse[self.order] = np.cumsum(group)
        return inverse

    @cached_property
    def weight(self):
        """Total weight of each group (its size when unweighted)."""
        if self.w_sorted is None:
            if self.distinct:
                return np.ones(self.n_samples)
            return np.diff(np.r_[-1, self.ends]).astype(np.float64)
        return self.w_sorted if self.distinct else self.group_sums(self.w_sorted)

    @cached_property
    def n_alone(self):
        """The number of rows alone in their group."""
        if self.distinct:
            return self.n_samples
        return int(np.count_nonzero(np.diff(np.r_[-1, self.ends]) == 1))

    def group_sums(self, sorted_values):
        """Sums of values in sorted order within each group."""
        if self.distinct:
            return sorted_values
        return np.add.reduceat(sorted_values, self._starts)

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
        values = self._sort(np.asarray(values, dtype=np.float64))
        if self.w_sorted is not None:
            values = values * self.w_sorted  # not in place: values may be the input
        return self.group_sums(values)
