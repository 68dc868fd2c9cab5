"""Bins of predicted probabilities: edges, assignment and per-bin sums.

The one binning implementation of skcal, shared by every binned measure,
:func:`~skcal.metrics.reliability_table`, the histogram-binning recalibrator
and the diagrams.

Bins are right-closed, ``(e_j, e_{j+1}]``, except the first, which is
``[0, e_1]``: a prediction of exactly 0 lies in the first bin and one of
exactly 1 in the last, as in :func:`sklearn.calibration.calibration_curve`.

* ``"uniform"``: ``e_j = j / n_bins`` (the float nearest to it). A
  prediction equal to an edge, such as 0.28 with 25 bins, lies in the bin
  below it. The bin is found by arithmetic in O(1), with an exact
  comparison for predictions within rounding error of an edge. This agrees
  with ``calibration_curve`` except where its ``linspace`` edges differ
  from ``j / n_bins`` in the last bit.
* ``"quantile"``: inner edges are the weighted quantiles of the predictions
  at levels ``j / n_bins`` (the inverted empirical distribution function:
  the smallest prediction whose cumulative weight reaches ``j / n_bins`` of
  the total, up to a relative rounding tolerance of 1e-10). Edges are data
  values and bins are right-closed, so identical predictions never straddle
  two bins; repeated edges are merged, so there
  can be fewer bins than requested. Integer weights give the same edges as
  repeated rows, and zero-weight rows do not move them.
"""

# SPDX-License-Identifier: BSD-3-Clause

from typing import NamedTuple

import numpy as np

STRATEGIES = ("uniform", "quantile")

# Rows processed per block in `outcome_sums`: small enough that the temporaries
# stay in cache, large enough that the Python loop costs nothing.
_BLOCK = 1 << 15

# Relative tolerance on cumulative weights when locating weighted quantiles.
_QUANTILE_RTOL = 1e-10

# Predictions with p * n_bins within n_bins * _EDGE_RTOL of an integer are
# placed by comparison with the edges (rounding of p * n_bins and of
# j / n_bins is at most n_bins * 2**-52 in that scale).
_EDGE_RTOL = 2.0**-44


def resolve_n_bins(n_bins, n_samples):
    """Return the number of bins as an int.

    Parameters
    ----------
    n_bins : int or "cube_root"
        ``"cube_root"`` means ``ceil(n_samples ** (1/3))``, computed exactly
        in integers (27 samples give 3 bins, not 4).
    n_samples : int
        The number of samples with positive weight.
    """
    if n_bins != "cube_root":
        return int(n_bins)
    k = max(round(n_samples ** (1.0 / 3.0)), 1)
    while k**3 < n_samples:
        k += 1
    while k > 1 and (k - 1) ** 3 >= n_samples:
        k -= 1
    return k


class Binning(NamedTuple):
    """Bin edges on [0, 1] and how to find the bin of a prediction.

    Attributes
    ----------
    edges : ndarray of shape (n_bins + 1,)
        Increasing edges from 0 to 1.
    uniform : bool
        Whether the edges are ``j / n_bins`` (assignment by arithmetic).
    """

    edges: np.ndarray
    uniform: bool

    @property
    def n_bins(self):
        return self.edges.shape[0] - 1

    def assign(self, p):
        """Return the bin index, in ``[0, n_bins)``, of each prediction."""
        p = np.asarray(p, dtype=np.float64)
        slots = _slots(self, p, np.empty_like(p), np.empty_like(p))
        return np.maximum(slots - 1, 0).astype(np.intp)


def _slots(binning, p, out, work):
    """Write the *slot* of each prediction, as float64, into ``out``.

    The slot is the number of edges ``e_0 = 0, ..., e_{n_bins - 1}`` strictly
    below ``p``: ``j + 1`` for a prediction in bin ``j``, and 0 for ``p = 0``,
    which callers merge into bin 0. For uniform bins it is ``ceil(p * n_bins)``
    in floating point, checked against the edges only for the rare
    predictions whose ``p * n_bins`` lies within rounding error of an integer:
    the result equals a binary search over the edges, in O(1) per prediction.
    """
    if not binning.uniform:
        np.copyto(out, np.searchsorted(binning.edges, p, side="left"), casting="unsafe")
        return out
    n_bins = binning.n_bins
    scaled = np.multiply(p, n_bins, out=work)
    slots = np.ceil(scaled, out=out)
    # Distance of p * n_bins to the nearest integer, folded as |d - 1/2|.
    np.subtract(slots, scaled, out=scaled)
    np.subtract(scaled, 0.5, out=scaled)
    np.abs(scaled, out=scaled)
    threshold = 0.5 - n_bins * _EDGE_RTOL
    # A maximum first: no (n,) mask is allocated unless some p is near an edge
    # (or is NaN, which the maximum propagates).
    if scaled.size and not scaled.max() < threshold:
        idx = np.flatnonzero(scaled >= threshold)
        slots[idx] = np.searchsorted(binning.edges, p[idx], side="left")
    return slots


def weighted_quantile_edges(p, sample_weight, n_bins):
    """Inner edges at the weighted quantile levels ``1/n_bins, ..., (n_bins-1)/n_bins``.

    The quantile at level ``q`` is the smallest prediction whose cumulative
    weight (in increasing order of prediction) reaches ``q`` times the total.
    Ties may be visited in any order: only the value at the level matters.
    """
    levels = np.arange(1, n_bins, dtype=np.float64) / n_bins
    if sample_weight is None:
        # The cumulative weight of the first i + 1 sorted rows is i + 1.
        p_sorted = np.sort(p)
        targets = p.shape[0] * levels * (1.0 - _QUANTILE_RTOL)
        idx = np.ceil(targets).astype(np.intp) - 1
        return p_sorted[np.clip(idx, 0, p.shape[0] - 1)]
    order = np.argsort(p)
    cumulative = np.cumsum(sample_weight[order])
    # A level reached exactly in real arithmetic must count as reached whatever
    # the rounding of the running sum, or rescaling the weights moves an edge.
    targets = cumulative[-1] * levels * (1.0 - _QUANTILE_RTOL)
    idx = np.searchsorted(cumulative, targets, side="left")
    return p[order[np.minimum(idx, p.shape[0] - 1)]]


def uniform_binning(n_bins):
    """The equal-width :class:`Binning` of ``n_bins`` bins of [0, 1]."""
    return Binning(np.arange(n_bins + 1, dtype=np.float64) / n_bins, True)


def make_binning(p, sample_weight, n_bins, strategy):
    """Build the bins of a strategy.

    Parameters
    ----------
    p : ndarray of shape (n_samples,)
        float64 predictions in [0, 1].
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.
    n_bins : int or "cube_root"
        The number of bins (see :func:`resolve_n_bins`).
    strategy : {"uniform", "quantile"}
        Equal-width or equal-mass bins.

    Returns
    -------
    binning : Binning
    """
    n_positive = (
        p.shape[0] if sample_weight is None else np.count_nonzero(sample_weight)
    )
    n_bins = resolve_n_bins(n_bins, int(n_positive))
    if strategy == "uniform":
        return uniform_binning(n_bins)
    if strategy == "quantile":
        inner = weighted_quantile_edges(p, sample_weight, n_bins)
        edges = np.unique(np.concatenate(([0.0], inner, [1.0])))
        return Binning(edges, False)
    raise ValueError(f"Unknown binning strategy {strategy!r}.")


class BinSums(NamedTuple):
    """Per-bin sums, each an ndarray of shape (n_bins,).

    Attributes
    ----------
    weight : total weight (the count when unweighted).
    sum_p : weighted sum of predictions.
    sum_y : weighted sum of outcomes.
    n_rows : number of rows with positive weight, or None if not asked for.
    n_effective : Kish's effective size ``(sum w)**2 / sum w**2`` (the count
        when unweighted; 0 for an empty bin), or None if not asked for.
    """

    weight: np.ndarray
    sum_p: np.ndarray
    sum_y: np.ndarray
    n_rows: np.ndarray | None
    n_effective: np.ndarray | None


def outcome_sums(binning, y, p, sample_weight=None, *, squares=False):
    """Per-bin sums split by outcome, in one blocked O(n) pass.

    Each row goes to code ``2 * slot + y`` (see :func:`_slots`), so that one
    in-place addition (``np.add.at``) gives a bin's sum over its non-events
    and over its events. The rows are read in blocks into buffers allocated
    once: nothing of size n, nor of the bins per block, is allocated, which
    keeps the pass fast where the allocator returns every large block to
    the system (as Dask's workers ask).

    Parameters
    ----------
    binning : Binning
        The bins.
    y : ndarray of shape (n_samples,)
        Outcomes in {0, 1} (bool, integer or float).
    p : ndarray of shape (n_samples,)
        float64 predictions in [0, 1].
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.
    squares : bool, default=False
        Also sum the squared weights and count the rows of positive weight
        (with weights only; without, both equal the weight).

    Returns
    -------
    sums : ndarray of shape (n_channels, n_bins, 2)
        ``[..., 0]`` over non-events and ``[..., 1]`` over events of the
        weight, the weighted sum of ``p`` and, with ``squares`` and
        weights, the sum of squared weights and the number of rows of
        positive weight.
    """
    n = p.shape[0]
    n_channels = 4 if squares and sample_weight is not None else 2
    size = 2 * (binning.n_bins + 1)
    acc = np.zeros((n_channels, size))
    block = max(min(_BLOCK, n), 1)
    slot_buffer, work = np.empty(block), np.empty(block)
    codes = np.empty(block, dtype=np.intp)
    for start in range(0, n, block):
        stop = min(start + block, n)
        pc = p[start:stop]
        code = _slots(binning, pc, slot_buffer[: stop - start], work[: stop - start])
        np.multiply(code, 2.0, out=code)
        np.add(code, y[start:stop], out=code, casting="unsafe")
        slots = codes[: stop - start]
        np.copyto(slots, code, casting="unsafe")
        # ufunc.at adds in place: unlike bincount, it allocates no array of the
        # bins per call nor copies read-only weights (validated inputs are).
        if sample_weight is None:
            np.add.at(acc[0], slots, 1.0)
            np.add.at(acc[1], slots, pc)
            continue
        wc, product = sample_weight[start:stop], work[: stop - start]
        np.add.at(acc[0], slots, wc)
        np.add.at(acc[1], slots, np.multiply(pc, wc, out=product))
        if squares:
            np.add.at(acc[2], slots, np.multiply(wc, wc, out=product))
            np.add.at(acc[3], slots, np.greater(wc, 0.0, out=product))
    # Slot 0 holds the predictions equal to 0: they belong to bin 0 (slot 1).
    acc = acc.reshape(n_channels, -1, 2)
    acc[:, 1] += acc[:, 0]
    return acc[:, 1:]


def bin_sums(binning, y, p, sample_weight=None, *, moments=False):
    """Sum weights, predictions and outcomes per bin in one O(n) pass.

    Parameters
    ----------
    binning, y, p, sample_weight
        As for :func:`outcome_sums`.
    moments : bool, default=False
        Also return ``count`` and ``n_effective`` (for debiased estimators
        and intervals).

    Returns
    -------
    sums : BinSums
    """
    split = outcome_sums(binning, y, p, sample_weight)
    totals, events = split.sum(axis=2), split[0, :, 1].copy()
    count = n_effective = None
    if moments:
        count, n_effective = _bin_sizes(binning, p, sample_weight, totals[0])
    return BinSums(totals[0], totals[1], events, count, n_effective)


def _bin_sizes(binning, p, sample_weight, weight):
    """Rows of positive weight and Kish's effective size of each bin.

    The weights of a bin are divided by the bin's largest before they are
    squared, so that the effective size of bins of tiny (or huge) weights
    neither underflows nor overflows: only their ratios within the bin
    matter.
    """
    if sample_weight is None:
        return weight.copy(), weight.copy()
    bins = binning.assign(p)
    count = np.bincount(bins, weights=sample_weight > 0, minlength=binning.n_bins)
    peak = np.zeros(binning.n_bins)
    np.maximum.at(peak, bins, sample_weight)
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = sample_weight / peak[bins]
    scaled[sample_weight == 0] = 0.0
    linear = np.bincount(bins, weights=scaled, minlength=binning.n_bins)
    squares = np.bincount(bins, weights=scaled * scaled, minlength=binning.n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        n_effective = np.where(peak > 0, linear**2 / squares, 0.0)
    return count, n_effective
