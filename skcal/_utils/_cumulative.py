"""Cumulative residuals along the sorted predictions, and the cutoff statistic.

The plug-in cutoff calibration error (Rossellini et al., 2025) is the range
of the cumulative residual ``y - p`` along the sorted predictions; the smooth
calibration error is an isotonic problem on the same sums; the certification
test and modified Platt scaling compare the statistic with margins from
Proposition 4.1 or from labels redrawn from the predictions. All of them
start from :func:`residual_prefix_sums` here.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np

from skcal._utils._bootstrap import (
    Replicates,
    ResampledTotals,
    positions_within,
    sorted_view,
)
from skcal._utils._ties import (
    Ties,
    decode_keys,
    group_ends,
    key_group_ends,
    sorted_outcome_keys,
)

# The constants of Proposition 4.1 of Rossellini et al. (2025): with
# probability at least 1 - delta, the plug-in estimate is within
# (20 + sqrt(2 log(1 / delta))) / sqrt(n) of the population error.
_RADEMACHER_CONSTANT = 20.0

# Labels drawn per block of the null distribution (a block is one 2-D array).
_NULL_BLOCK = 1 << 18

# Values summed at once by :func:`cumulative_range`: 2 MiB, which stay in the
# shared cache through the block's several passes, and few enough calls that
# their overhead (which holds the GIL) leaves the threads of the bootstrap
# free (a quarter of this size made two threads slower than one).
_RANGE_BLOCK = 1 << 18


def residual_prefix_sums(ties, y, *, presorted=False):
    """Normalised cumulative residuals at the end of each tie group.

    Parameters
    ----------
    ties : Ties
        The sorted predictions.
    y : ndarray of shape (n_samples,) or (n_draws, n_samples)
        Outcomes in [0, 1], in the original row order; one set per row of a
        2-D array.
    presorted : bool, default=False
        Whether ``y`` is already in the sorted order of the predictions.

    Returns
    -------
    prefix : ndarray of shape (n_groups,) or (n_draws, n_groups)
        ``prefix[..., k]`` is the weighted sum of ``y - p`` over the rows
        whose prediction is at most the ``k``-th distinct prediction,
        divided by the total weight.
    """
    residual = (y if presorted else y[..., ties.order]).astype(np.float64)
    residual -= ties.sorted
    if ties.w_sorted is not None:
        residual *= ties.w_sorted
    np.cumsum(residual, axis=-1, out=residual)
    if ties.tied_ends is not None:
        # `take` keeps rows contiguous (fancy indexing would not), and
        # reductions along them fast.
        residual = residual.take(ties.tied_ends, axis=-1)
    residual /= ties.total_weight
    return residual


def range_with_zero(prefix):
    """``max(0, prefix) - min(0, prefix)`` along the last axis: the cutoff error."""
    return np.maximum(prefix.max(axis=-1), 0.0) - np.minimum(prefix.min(axis=-1), 0.0)


def cumulative_range(fill, shape, ends, block=_RANGE_BLOCK):
    """:func:`range_with_zero` of cumulative sums, computed block by block.

    Equal (to rounding) to :func:`range_with_zero` of the cumulative sums
    (along the rows, read at ``ends``) of the ``values`` that ``fill``
    writes, without the array of all of them: each block of columns is
    filled, then folded into a :class:`RunningRange` while it is in the
    cache. The cutoff error is this range divided by the total weight.

    Parameters
    ----------
    fill : callable
        ``fill(start, stop, out)`` writes the values of columns
        ``start:stop`` into ``out``, of shape ``(shape[0], stop - start)``.
    shape : tuple of (int, int)
        ``(rows, columns)`` of the values.
    ends : ndarray of int or None
        The sorted columns at which the sums are read; None reads all.
    block : int, default=_RANGE_BLOCK
        Values per block, at least one column's.

    Returns
    -------
    range : ndarray of shape (shape[0],)
    """
    n_rows, n_columns = shape
    running = RunningRange(n_rows, max(1, block // n_rows), ends is not None)
    running.add(fill, 0, n_columns, ends)
    return running.range()


class RunningRange:
    """The largest and smallest cumulative sums of values given block by block.

    Each row of values is summed cumulatively along its columns, from the
    running total of the blocks before; the sums are read at all columns,
    or at given ones. :meth:`range` is :func:`range_with_zero` of the
    sums read.

    Parameters
    ----------
    n_rows : int
        Rows of the values (one per draw).
    width : int
        The most columns of a block.
    at_ends : bool
        Whether the sums are read at given columns only.
    """

    def __init__(self, n_rows, width, at_ends):
        # The sums of all columns come from sums of fours: a multiple of 4.
        self.width = width if at_ends else 4 * -(-width // 4)
        self.values = np.empty((n_rows, self.width))
        self.scratch = np.empty(
            (1, n_rows, self.width) if at_ends else (4, n_rows, self.width // 4)
        )
        self.carry = np.zeros(n_rows)
        self.high, self.low = np.zeros(n_rows), np.zeros(n_rows)

    def add(self, fill, start, stop, ends):
        """Fold the values of columns ``start:stop``, a block at a time.

        ``fill(a, b, out)`` writes the values of columns ``a:b`` into
        ``out``; the sums are read at the sorted columns ``ends`` (all of
        them when None).
        """
        for block_start in range(start, stop, self.width):
            block_stop = min(block_start + self.width, stop)
            n_columns = block_stop - block_start
            fill(block_start, block_stop, self.values[:, :n_columns])
            if ends is None:
                self.fold(n_columns)
            else:
                self.fold(n_columns, positions_within(ends, block_start, block_stop))

    def fold(self, n_columns, inside=None):
        """Fold the block just written into the extremes.

        ``inside`` are the columns of the block at which the sums are read
        (sorted), or None for all of them.
        """
        if inside is None:
            # Zeros after the last column repeat the last sum, which is read.
            self.values[:, n_columns:] = 0.0
            _all_sums_extremes(
                self.values, self.carry, self.high, self.low, self.scratch
            )
            return
        sums = self.scratch[0, :, :n_columns]
        _row_cumsum(self.values[:, :n_columns], sums)
        sums += self.carry[:, None]
        self.carry[:] = sums[:, -1]
        if inside.shape[0]:
            sums = sums.take(inside, axis=1)
            np.maximum(self.high, sums.max(axis=1), out=self.high)
            np.minimum(self.low, sums.min(axis=1), out=self.low)

    def range(self):
        """``max(0, sums) - min(0, sums)`` of each row."""
        return self.high - self.low


def _row_cumsum(values, out):
    """Cumulative sums along each row of ``values``, into ``out``.

    Row by row and out of place: numpy keeps the GIL through an in-place or
    2-D cumulative sum, which would serialise the threads of
    :func:`~skcal._utils._bootstrap.draw_replicates`.
    """
    for row, sums in zip(values, out, strict=True):
        np.cumsum(row, out=sums)


def _all_sums_extremes(values, carry, high, low, scratch):
    """Fold every cumulative sum of a block into ``high`` and ``low``.

    The cumulative sum is a chain of dependent additions, three times the
    cost of the other passes; summing the columns in fours first shortens
    it to a quarter. With ``S_k`` the sums at columns ``4k + 3`` (the
    cumulative sum of the sums of fours, from ``carry``), the sums at
    ``4k + 2``, ``4k + 1`` and ``4k`` are ``S_k`` less the last one, two
    and three values of the four. Equal to the plain cumulative sum to
    rounding (three subtractions).

    Parameters
    ----------
    values : ndarray of shape (n_rows, width)
        ``width`` a multiple of 4.
    carry, high, low : ndarray of shape (n_rows,)
        The running total, largest and smallest sums; updated in place.
    scratch : ndarray of shape (4, n_rows, width // 4)
        Work space.
    """
    first, second, third, fourth = (values[:, k::4] for k in range(4))
    fours, part, top, bottom = scratch
    np.add(first, second, out=fours)
    np.add(third, fourth, out=part)
    fours += part
    _row_cumsum(fours, top)
    top += carry[:, None]
    carry[:] = top[:, -1]
    np.subtract(top, fourth, out=part)
    np.minimum(top, part, out=bottom)
    np.maximum(top, part, out=top)
    for value in (third, second):
        part -= value
        np.maximum(top, part, out=top)
        np.minimum(bottom, part, out=bottom)
    np.maximum(high, top.max(axis=1), out=high)
    np.minimum(low, bottom.min(axis=1), out=low)


def cutoff_statistic(y, p, sample_weight, ties=None):
    """The plug-in cutoff calibration error of one binary view.

    Parameters
    ----------
    y, p, sample_weight : ndarray
        Outcomes in {0, 1}, float64 predictions and weights (or None).
    ties : Ties, default=None
        The sorted predictions, when already computed.

    Returns
    -------
    statistic : float
    """
    if ties is None and sample_weight is None:
        return _unweighted_cutoff_statistic(y, p)
    if ties is None:
        ties = Ties(p, sample_weight)
    order, sorted_p, w = ties.order, ties.sorted, ties.w_sorted

    def fill(start, stop, out):
        np.subtract(y[order[start:stop]], sorted_p[start:stop], out=out[0])
        if w is not None:
            out[0] *= w[start:stop]

    ranges = cumulative_range(fill, (1, order.shape[0]), ties.tied_ends)
    return float(ranges[0]) / ties.total_weight


def _unweighted_cutoff_statistic(y, p):
    """:func:`cutoff_statistic` without weights, from one sort of 64-bit keys.

    The rows are sorted with their outcomes (:func:`~skcal._utils._ties.
    sorted_outcome_keys`): no index array, and no gather of the outcomes.
    """
    keys = sorted_outcome_keys(p, y)

    def fill(start, stop, out):
        sorted_p, sorted_y = decode_keys(keys[start:stop])
        np.subtract(sorted_y, sorted_p, out=out[0])

    ends = key_group_ends(keys)
    return float(cumulative_range(fill, (1, keys.shape[0]), ends)[0]) / keys.shape[0]


class CutoffCore:
    """:func:`cutoff_statistic` as a measure core, sorting each view once.

    Calling it is :func:`cutoff_statistic`; :meth:`replicates` sorts a
    view's predictions once for the many resamples (new weights) and
    relabellings (new outcomes) of an interval.
    """

    def __call__(self, y, p, sample_weight):
        return cutoff_statistic(y, p, sample_weight)

    @staticmethod
    def replicates(y, p, sample_weight):
        """The statistic of one view on :class:`~skcal._utils._bootstrap.Draws`."""
        return _CutoffReplicates(sorted_view(y, p, sample_weight))


class _CutoffReplicates(Replicates):
    """The cutoff statistic on resamples and calibrated draws of a sorted view.

    A replicate is one cumulative sum of the weighted residuals in the
    sorted order of the predictions, read at the ends of the tie groups,
    a chunk of rows at a time (:class:`RunningRange`).
    """

    def __init__(self, view):
        self.view, self.order = view, view.order
        p = view.p
        self.ends = group_ends(p)
        w = 1.0 if view.weight is None else view.weight
        self.residual = w * (view.y - p)  # the weighted residual, per count

    def resampling(self, draws):
        """The accumulator of the statistic of a batch's bootstrap resamples."""
        return _CutoffRanges(self, draws, resampled=True)

    def relabeling(self, draws):
        """The accumulator of the statistic of a batch's calibrated draws."""
        return _CutoffRanges(self, draws, resampled=False)


class _CutoffRanges:
    """The cumulative residuals of a batch's draws, folded chunk by chunk."""

    def __init__(self, replicates, draws, resampled):
        self.replicates, self.resampled = replicates, resampled
        width = min(draws.width, max(1, _RANGE_BLOCK // draws.size))
        self.running = RunningRange(draws.size, width, replicates.ends is not None)
        weight = replicates.view.weight
        self.totals = ResampledTotals(draws, weight) if resampled else None

    def add(self, chunk):
        """Fold the chunk's residuals, :data:`_RANGE_BLOCK` values at a time."""
        view, residual = self.replicates.view, self.replicates.residual
        drawn = chunk.counts if self.resampled else view.outcomes(chunk)
        if self.totals is not None:
            self.totals.add(chunk)

        def fill(start, stop, out):
            part = drawn[:, start - chunk.start : stop - chunk.start]
            if self.resampled:
                np.multiply(part, residual[start:stop], out=out)
                return
            np.subtract(part, view.p[start:stop], out=out)
            if view.weight is not None:
                out *= view.weight[start:stop]

        self.running.add(fill, chunk.start, chunk.stop, self.replicates.ends)

    def result(self):
        if self.totals is None:
            return self.running.range() / self.replicates.view.total
        return self.totals.per_weight(self.running.range())


def null_statistics(ties, n_draws, rng):
    """The cutoff statistic of one view on labels redrawn from its predictions.

    Each of the ``n_draws`` draws gives every row an independent Bernoulli
    label with its predicted probability. Draws come in blocks of at most
    ``_NULL_BLOCK`` labels; the stream of random numbers, hence the result,
    does not depend on the block size.

    Returns
    -------
    null : ndarray of shape (n_draws,)
    """
    null = np.empty(n_draws)
    n = ties.sorted.shape[0]
    step = max(1, min(n_draws, _NULL_BLOCK // n))
    for start in range(0, n_draws, step):
        stop = min(start + step, n_draws)
        y = rng.random_sample((stop - start, n)) < ties.sorted
        null[start:stop] = range_with_zero(
            residual_prefix_sums(ties, y, presorted=True)
        )
    return null


def bound_margin(n_effective, alpha):
    """Proposition 4.1's allowance ``(20 + sqrt(2 log(1 / alpha))) / sqrt(n)``."""
    return (_RADEMACHER_CONSTANT + math.sqrt(2.0 * math.log(1.0 / alpha))) / (
        math.sqrt(n_effective)
    )


def bootstrap_margin(null, alpha):
    """The bootstrap allowance: the ``k``-th largest draw of the null statistic.

    ``k`` is the largest integer with ``k / (B + 1) <= alpha``, so that a
    statistic is beyond the margin exactly when fewer than ``k`` of the
    ``B`` draws reach it; infinite when ``k = 0`` (too few draws).
    """
    n_draws = null.shape[0]
    k = math.floor(alpha * (n_draws + 1))
    while (k + 1) / (n_draws + 1.0) <= alpha:
        k += 1
    while k > 0 and k / (n_draws + 1.0) > alpha:
        k -= 1
    return float(np.sort(null)[-k]) if k > 0 else math.inf
