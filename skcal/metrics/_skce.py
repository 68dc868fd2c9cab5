"""The squared kernel calibration error (SKCE) and the kernel calibration test.

The SKCE of Widmann, Lindsten and Zachariah (2019) is the squared norm of the
mean residual ``e_Y - g(X)`` embedded in a reproducing kernel Hilbert space
of functions of the predictions. skcal's kernel is the exponential
(Laplacian) kernel ``exp(-||p - p'|| / bandwidth)`` times the identity, the
usual choice of the authors' Julia packages. Its unbiased estimators are
U-statistics of the pairs of samples.

For a binary view (``"positive"``, ``"top_label"``, ``"classwise"``) the
predictions are numbers, and a pair's kernel is a product of the decays
``exp(-(p_k - p_{k-1}) / bandwidth)`` between neighbours in sorted order. The
sum over all pairs is then a first-order linear recurrence along the sorted
predictions, solved here by a blocked parallel scan (every multiplication by
a decay at most 1), in O(n log n) time and O(n) memory; the exact median
heuristic is a selection among the pairwise distances, by counting the pairs
within a distance on the sorted predictions. The multiclass form
(``reduction="canonical"``) has no such structure: its full estimator sums
the kernel matrix a block of rows at a time.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
import warnings
from functools import cached_property
from numbers import Integral, Real
from typing import Literal

import numpy as np
from scipy.spatial.distance import cdist, pdist
from scipy.special import ndtr
from sklearn.utils import Bunch, check_random_state

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions, validate_params
from skcal._reduction import (
    REDUCTIONS,
    binary_views,
    check_per_class,
    mean_or_per_class,
    resolve_reduction,
)
from skcal._typing import ArrayLike, Label, RandomStateLike
from skcal._utils._bootstrap import N_BOOTSTRAP, NullLabels
from skcal._utils._scaling import drop_zero_weight, effective_size
from skcal._utils._ties import Ties
from skcal._validation import (
    DATA_CONSTRAINTS,
    GROUPS_CONSTRAINT,
    check_calibration_inputs,
)
from skcal.metrics._groups import accepts_groups

# Elements per row of the blocked scan (six doubling passes per level).
_SCAN_BLOCK = 64
# Values in one temporary array: kernel chunks; resampled labels (smaller,
# so that the scans of a batch of draws stay in cache).
_CHUNK = 1 << 22
_DRAW_CHUNK = 1 << 18
# The exact median: pairs are enumerated once at most this many (or an
# eighth of the rows) remain between the bounds; at least this many are
# sampled to choose the next bounds (as many as an eighth of the rows).
_ENUMERATED_PAIRS = 1 << 16
# The canonical median heuristic uses the pairs of at most this many rows.
_MEDIAN_ROWS = 1000
# Above this many rows the canonical full estimator warns of its n**2 cost.
_CANONICAL_WARN_ROWS = 20_000
# The canonical full test refuses more than this many kernel-times-class
# products (rows**2 * classes * (n_resamples + 1) / 2): about a minute.
_CANONICAL_TEST_BUDGET = 2e11

_SKCE_REDUCTIONS = (*REDUCTIONS, "canonical")
_BANDWIDTH_CONSTRAINT = [
    Interval(Real, 0, math.inf, closed="neither"),
    StrOptions({"median"}),
]

_NULL_HYPOTHESIS = (
    "perfect calibration: P(Y | g(X)) = g(X), the predicted probabilities are "
    "the probabilities of the classes given the predictions"
)


# ---------------------------------------------------------------------------
# Pair sums along sorted predictions: a first-order linear recurrence
# ---------------------------------------------------------------------------


def _compose(decay, values):
    """Inclusive scan of ``x_j = decay_j x_{j-1} + values_j`` along the last axis.

    Hillis and Steele's doubling: after the pass of shift ``s`` each entry
    holds the recurrence over its last ``2 s`` entries, and ``decay`` their
    product (the decay from just before that window). Returns both.
    """
    decay = np.array(decay, dtype=np.float64)
    values = np.array(values, dtype=np.float64)
    shift = 1
    while shift < values.shape[-1]:
        values[..., shift:] += decay[..., shift:] * values[..., :-shift]
        decay[..., shift:] *= decay[..., :-shift]
        shift *= 2
    return decay, values


def _decay_scan(decay, values):
    """Solve ``x_j = decay_j x_{j-1} + values_j`` (``x_{-1} = 0``) along the last axis.

    Rows of ``_SCAN_BLOCK`` entries are scanned at once; the values at their
    ends form the same recurrence one level up (their decays being the
    products over the rows), solved recursively, and each row then adds the
    end of the row before it, decayed. Every decay is in [0, 1], so nothing
    grows: the running sum only decays as it goes.

    Parameters
    ----------
    decay : ndarray of shape (..., n)
        Decays in [0, 1]; leading axes broadcast against ``values``.
    values : ndarray of shape (..., n)
        What is added at each step.

    Returns
    -------
    x : ndarray of shape (..., n)
    """
    n = values.shape[-1]
    if n <= _SCAN_BLOCK:
        return _compose(decay, values)[1]
    rows = -(-n // _SCAN_BLOCK)
    pad = rows * _SCAN_BLOCK - n
    if pad:
        decay = np.concatenate([decay, np.zeros((*decay.shape[:-1], pad))], axis=-1)
        values = np.concatenate([values, np.zeros((*values.shape[:-1], pad))], axis=-1)
    decay, values = _compose(
        decay.reshape((*decay.shape[:-1], rows, _SCAN_BLOCK)),
        values.reshape((*values.shape[:-1], rows, _SCAN_BLOCK)),
    )
    ends = _decay_scan(decay[..., -1], values[..., -1])
    values[..., 1:, :] += decay[..., 1:, :] * ends[..., :-1, None]
    return values.reshape((*values.shape[:-2], -1))[..., :n]


def _pair_sums(decay, a):
    r"""``sum_{i < j} a_i a_j prod_{i < k <= j} decay_k`` along the last axis.

    With ``decay_k = exp(-(p_k - p_{k-1}) / h)`` on sorted ``p``, this is
    :math:`\sum_{i<j} a_i a_j e^{-(p_j - p_i)/h}`: each ``a_j`` meets the sum
    of the earlier ``a_i``, decayed to ``p_j``.
    """
    shifted = np.zeros(np.broadcast_shapes(decay.shape, a.shape))
    shifted[..., 1:] = decay[..., 1:] * a[..., :-1]
    earlier = _decay_scan(decay, shifted)
    return np.einsum("...i,...i->...", a, earlier)


def _decays(sorted_p, bandwidth):
    """``exp(-(p_k - p_{k-1}) / bandwidth)`` along the last axis, 0 first."""
    decay = np.zeros(sorted_p.shape)
    np.exp(-np.diff(sorted_p, axis=-1) / bandwidth, out=decay[..., 1:])
    return decay


def _ordered_pair_weight(w, axis=-1):
    """``sum_{i != j} w_i w_j`` along an axis (weights of ordered pairs).

    As ``2 sum_j w_j sum_{i < j} w_i``, a sum of positive terms: the
    shorter ``(sum w)**2 - sum w**2`` loses digits to cancellation.
    """
    w = np.moveaxis(w, axis, -1)
    return 2.0 * np.einsum("...i,...i->...", w[..., 1:], np.cumsum(w[..., :-1], -1))


# ---------------------------------------------------------------------------
# Median heuristic
# ---------------------------------------------------------------------------


def _first_within(u, t):
    """For each ``b``, the smallest ``a`` with ``u[b] - u[a] <= t`` (floats).

    ``u`` is sorted and distinct, and ``t >= 0``. The computed difference
    decreases with ``a``, so the ``a`` that qualify are ``first..b``; the
    binary search on ``u - t`` is corrected to the computed differences
    (both round).
    """
    first = np.searchsorted(u, u - t, side="left")
    while True:
        down = (first > 0) & (u - u[np.maximum(first - 1, 0)] <= t)
        up = u - u[first] > t
        if not (down.any() or up.any()):
            return first
        first += up.astype(np.intp) - down.astype(np.intp)


class _PairCounts:
    """Weights of the pairs of rows within a distance, on distinct sorted values.

    Parameters
    ----------
    u : ndarray of shape (n_groups,)
        The distinct values, increasing.
    g : ndarray of shape (n_groups,)
        The total weight of each value's rows.
    tied : float
        The weight of the pairs of rows that share a value (distance 0).
    """

    def __init__(self, u, g, tied):
        self.u, self.g, self.tied = u, g, tied
        self.prefix = np.concatenate([[0.0], np.cumsum(g)])

    def at_most(self, t):
        """``(first, weight)``: :func:`_first_within` and the pairs' weight."""
        first = _first_within(self.u, t)
        inner = self.prefix[:-1] - self.prefix[first]
        return first, self.tied + float(np.dot(self.g, inner))

    def next_above(self, t):
        """The smallest distance above ``t`` between two values, or None."""
        first = _first_within(self.u, t)
        b = np.flatnonzero(first > 0)
        if not b.size:
            return None
        return float(np.min(self.u[b] - self.u[first[b] - 1]))

    def between(self, first_lo, first_hi, positions=None):
        """Distances and weights of the pairs in ``(lo, hi]``, given their
        :func:`_first_within` indices; only those at ``positions`` (indices
        into the pairs ordered by their larger value) when given."""
        counts = first_lo - first_hi
        ends = np.cumsum(counts)
        if positions is None:
            b = np.repeat(np.arange(counts.shape[0]), counts)
            positions = np.arange(ends[-1])
        else:
            b = np.searchsorted(ends, positions, side="right")
        a = first_hi[b] + positions - (ends - counts)[b]
        return self.u[b] - self.u[a], self.g[b] * self.g[a]


def _lowest_reaching(dist, weight, base, target):
    """``(t, weight_at_most_t, next_t)`` of the smallest ``t`` whose pairs
    reach ``target``, among enumerated pairs above a weight ``base``."""
    order = np.argsort(dist, kind="stable")
    dist = dist[order]
    cumulative = base + np.cumsum(weight[order])
    k = min(int(np.searchsorted(cumulative, target)), dist.shape[0] - 1)
    last = int(np.searchsorted(dist, dist[k], side="right")) - 1
    following = float(dist[last + 1]) if last + 1 < dist.shape[0] else None
    return float(dist[k]), float(cumulative[last]), following


def _pivots(counts, first_lo, first_hi, fraction):
    """Two sampled distances that bracket the weighted ``fraction`` of
    the pairs in ``(lo, hi]``: quantiles of evenly spaced pairs, a
    sixteenth of them, at most ``_ENUMERATED_PAIRS`` or an eighth of the
    rows."""
    n_pairs = int(np.sum(first_lo - first_hi))
    size = min(max(_ENUMERATED_PAIRS, first_lo.shape[0] // 8), n_pairs // 16)
    positions = ((np.arange(size) + 0.5) * (n_pairs / size)).astype(np.int64)
    dist, weight = counts.between(first_lo, first_hi, positions)
    order = np.argsort(dist)
    level = np.cumsum(weight[order])
    level /= level[-1]
    spread = 2.5 / math.sqrt(size)
    picks = np.searchsorted(level, [fraction - spread, fraction + spread])
    return [float(dist[order[min(k, size - 1)]]) for k in picks]


def _select_distance(counts, target):
    """``(t, weight_at_most_t, next_t)``: the smallest positive pair distance
    ``t`` whose pairs, with all closer ones, weigh at least ``target``.

    The bounds close in on ``t`` with pivots from a sample of the pairs in
    between, each a count on the sorted values, until few enough pairs are
    left to enumerate. Ties at a pivot cannot stall it: bounds that do not
    move make ``hi`` step down to the next float.
    """
    # Every positive distance is in (0, max - min]: all pairs of distinct values.
    u = counts.u
    lo, first_lo, below = 0.0, np.arange(u.shape[0]), counts.tied
    hi, first_hi = float(u[-1] - u[0]), np.zeros(u.shape[0], dtype=np.intp)
    above = counts.tied + float(np.dot(counts.g, counts.prefix[:-1]))
    enumerated = max(_ENUMERATED_PAIRS, u.shape[0] // 8)
    while int(np.sum(first_lo - first_hi)) > enumerated:
        fraction = (target - below) / (above - below)
        pivots = _pivots(counts, first_lo, first_hi, fraction)
        bounds = [
            (lo, first_lo, below),
            *((pivot, *counts.at_most(pivot)) for pivot in pivots),
            (hi, first_hi, above),
        ]
        new = next(k for k, bound in enumerate(bounds) if bound[2] >= target)
        if bounds[new - 1][0] == lo and bounds[new][0] == hi:
            step = float(np.nextafter(hi, 0.0))
            first, weight = counts.at_most(step)
            if weight < target:
                return hi, above, counts.next_above(hi)
            bounds[new] = (step, first, weight)
        (lo, first_lo, below), (hi, first_hi, above) = bounds[new - 1 : new + 1]
    dist, weight = counts.between(first_lo, first_hi)
    t, reached, following = _lowest_reaching(dist, weight, below, target)
    if following is None:
        following = counts.next_above(t)
    return t, reached, following


# Sums of pair weights this close, relative to their total, are equal: they
# differ by the rounding of weights rescaled by other factors.
_WEIGHT_RTOL = 1e-10


def _median_rule(select, smallest, tied, total):
    """The median of pair distances, with np.median's rule and the fallback.

    ``select(target)`` gives ``(t, weight_at_most_t, next_t)``: the smallest
    positive distance ``t`` whose pairs, with all closer ones, weigh at
    least ``target``. The median is the smallest distance reached by half
    of the total pair weight, or its mean with the next distance when
    exactly half is at most it (as :func:`numpy.median` does for an even
    number of pairs). When it is 0 (ties make up more than half of the
    pairs), the median of the positive distances is used instead; when
    every distance is 0, the bandwidth is 1 (the kernel is then constant).
    ``smallest()`` gives the smallest positive distance. Weights equal up to
    a relative rounding error of 1e-10 of the total count as equal, so that
    the rule does not depend on the scale of the weights.
    """
    if total <= tied:
        return 1.0
    slack = _WEIGHT_RTOL * total
    half = 0.5 * total
    target = tied + 0.5 * (total - tied) if tied > half + slack else half
    if abs(tied - target) <= slack:
        t, reached, following = 0.0, tied, smallest()
    else:
        t, reached, following = select(target - slack)
    if abs(reached - target) <= slack and following is not None:
        return 0.5 * (t + following)
    return t


def _median_distance_1d(ties):
    """The exact (weighted) median of ``|p_i - p_j|`` over pairs of rows ``i < j``.

    Pair ``(i, j)`` weighs ``w_i w_j``; see :func:`_median_rule`.
    """
    g = ties.weight
    squares = ties.group_sums(ties.w_sorted**2)
    tied = 0.5 * float(np.sum(g * g - squares))
    # Pairs of distinct values: none exactly when all predictions are equal.
    total = tied + 0.5 * float(_ordered_pair_weight(g))
    counts = _PairCounts(ties.values, g, tied)
    return _median_rule(
        lambda target: _select_distance(counts, target),
        lambda: counts.next_above(0.0),
        tied,
        total,
    )


def _median_of_pairs(dist, weight):
    """:func:`_median_rule` on enumerated pair distances and weights."""
    zero = dist == 0.0
    tied, total = float(np.sum(weight[zero])), float(np.sum(weight))
    positive, positive_weight = dist[~zero], weight[~zero]

    def select(target):
        return _lowest_reaching(positive, positive_weight, tied, target)

    return _median_rule(select, lambda: float(positive.min()), tied, total)


def _median_distance_rows(P, w):
    """The median heuristic of probability vectors, on a subsample of rows.

    At most ``_MEDIAN_ROWS`` rows, evenly spaced in the lexicographic order
    of the rows (so that the result does not depend on the row order); the
    pairs weigh ``w_i w_j``.
    """
    n = P.shape[0]
    if n > _MEDIAN_ROWS:
        order = np.lexsort((w, *P.T[::-1]))
        rows = order[(np.arange(_MEDIAN_ROWS) * n) // _MEDIAN_ROWS]
        P, w = P[rows], w[rows]
    i, j = np.triu_indices(P.shape[0], 1)
    return _median_of_pairs(pdist(P), w[i] * w[j])


# ---------------------------------------------------------------------------
# The views: binary (one number per row) and canonical (probability vectors)
# ---------------------------------------------------------------------------


class _LinearView:
    """One binary view ``(y, p)``: the estimators on sorted predictions.

    Parameters
    ----------
    y, p : ndarray of shape (n_samples,)
        0/1 outcomes and probabilities of the event.
    w : ndarray of shape (n_samples,)
        Positive weights.
    bandwidth : float or "median"
    """

    def __init__(self, y, p, w, bandwidth):
        self.y, self.p, self.w = y, p, w
        if bandwidth == "median":
            bandwidth = _median_distance_1d(self.ties)
        self.bandwidth = float(bandwidth)
        self.pair_weight = float(_ordered_pair_weight(w))

    @cached_property
    def ties(self):
        """The rows sorted by prediction (not needed by small blocks)."""
        return Ties(self.p, self.w)

    @cached_property
    def decay(self):
        """The decays between neighbours in sorted order."""
        return _decays(self.ties.sorted, self.bandwidth)

    def full_values(self, labels):
        """The full estimator on rows of 0/1 labels of shape (n_draws, n)."""
        residual = labels[:, self.ties.order] - self.ties.sorted
        residual *= self.ties.w_sorted
        return 2.0 * _pair_sums(self.decay, residual) / self.pair_weight

    def block_sums(self, block_size):
        """``(S, Omega)`` per block: ``sum_{i != j} w_i w_j h_ij`` and
        ``sum_{i != j} w_i w_j`` over the pairs within each block.

        Small blocks take their pairs offset by offset (O(n * block_size));
        large ones are sorted and scanned like the full estimator.
        """
        n_blocks = self.p.shape[0] // block_size
        size = n_blocks * block_size
        p = self.p[:size].reshape(n_blocks, block_size)
        w = self.w[:size].reshape(n_blocks, block_size)
        a = w * (self.y[:size].reshape(n_blocks, block_size) - p)
        pair_weights = _ordered_pair_weight(w, axis=1)
        if block_size > _SCAN_BLOCK:
            order = np.argsort(p, axis=1)
            decay = _decays(np.take_along_axis(p, order, axis=1), self.bandwidth)
            a = np.take_along_axis(a, order, axis=1)
            return 2.0 * _pair_sums(decay, a), pair_weights
        sums = np.zeros(n_blocks)
        for offset in range(1, block_size):
            kernel = np.exp(-np.abs(p[:, offset:] - p[:, :-offset]) / self.bandwidth)
            sums += np.einsum("bi,bi,bi->b", kernel, a[:, offset:], a[:, :-offset])
        return 2.0 * sums, pair_weights


def _one_hot_residuals(classes, P):
    """``e_y - p`` of label rows ``classes`` (n_draws, n): shape (n, K, n_draws)."""
    n, k = P.shape
    residual = np.repeat(-P[:, :, None], classes.shape[0], axis=2)
    rows = np.arange(n)[:, None]
    residual[rows, classes.T.astype(np.intp), np.arange(classes.shape[0])] += 1.0
    return residual.reshape(n, k, classes.shape[0])


class _CanonicalView:
    """All classes at once: residual vectors ``e_y - p`` and Euclidean distances.

    Parameters
    ----------
    classes : ndarray of shape (n_samples,)
        The class index of each row.
    P : ndarray of shape (n_samples, n_classes)
        float64 probability vectors.
    w : ndarray of shape (n_samples,)
        Positive weights.
    bandwidth : float or "median"
    """

    def __init__(self, classes, P, w, bandwidth):
        self.y, self.P, self.w = classes, P, w
        if bandwidth == "median":
            bandwidth = _median_distance_rows(P, w)
        self.bandwidth = float(bandwidth)
        self.pair_weight = float(_ordered_pair_weight(w))

    def full_values(self, labels):
        """The full estimator on rows of class indices of shape (n_draws, n).

        The kernel matrix is built a chunk of rows at a time, only for the
        pairs ``i < j``, and multiplies the weighted residuals of every draw
        at once (one matrix product per chunk).
        """
        n, k = self.P.shape
        residual = _one_hot_residuals(labels, self.P).reshape(n, -1)
        weighted = residual * self.w[:, None]
        sums = np.zeros(labels.shape[0])
        step = max(1, _CHUNK // n)
        for start in range(0, n - 1, step):
            stop = min(start + step, n)
            kernel = np.exp(-cdist(self.P[start:stop], self.P[start:]) / self.bandwidth)
            kernel[:, : stop - start] = np.triu(kernel[:, : stop - start], 1)
            mixed = (kernel @ weighted[start:] * weighted[start:stop]).reshape(
                stop - start, k, -1
            )
            sums += mixed.sum(axis=(0, 1))
        return 2.0 * sums / self.pair_weight

    def block_sums(self, block_size):
        """``(S, Omega)`` per block, as :meth:`_LinearView.block_sums`."""
        n_blocks = self.P.shape[0] // block_size
        size = n_blocks * block_size
        P = self.P[:size].reshape(n_blocks, block_size, -1)
        residual = _one_hot_residuals(self.y[None, :size], self.P[:size])
        residual = residual[:, :, 0].reshape(P.shape)
        w = self.w[:size].reshape(n_blocks, block_size)
        step = max(1, _CHUNK // (block_size * block_size * P.shape[2]))
        sums = np.empty(n_blocks)
        for start in range(0, n_blocks, step):
            part = slice(start, start + step)
            gaps = P[part, :, None, :] - P[part, None, :, :]
            kernel = np.exp(
                -np.sqrt(np.einsum("bijk,bijk->bij", gaps, gaps)) / self.bandwidth
            )
            inner = np.einsum("bik,bjk->bij", residual[part], residual[part])
            pair = kernel * inner * w[part, :, None] * w[part, None, :]
            sums[part] = pair.sum(axis=(1, 2)) - np.einsum("bii->b", pair)
        return sums, _ordered_pair_weight(w, axis=1)


# ---------------------------------------------------------------------------
# Set-up shared by the measure and the test
# ---------------------------------------------------------------------------


def _views(data, reduction, bandwidth):
    """The views of a problem, on its rows of positive weight.

    Returns
    -------
    views : list of _LinearView or [_CanonicalView]
    data : CalibrationData
        The data without its rows of zero weight.
    """
    w, y_true, y_prob = drop_zero_weight(data.sample_weight, data.y_true, data.y_prob)
    data = data._replace(y_true=y_true, y_prob=y_prob, sample_weight=w)
    n = data.y_true.shape[0]
    if n < 2:
        raise ValueError(
            "The SKCE is a mean over pairs of samples: it needs at least 2 samples "
            f"of positive weight, got {n}."
        )
    w = np.ones(n) if data.sample_weight is None else data.sample_weight
    if reduction == "canonical":
        P = np.asarray(data.y_prob, dtype=np.float64)
        if data.binary:
            P = np.column_stack([1.0 - P, P])
        classes = data.y_true.astype(np.intp)
        return [_CanonicalView(classes, P, w, bandwidth)], data
    views = binary_views(data, resolve_reduction(data, reduction))
    return [_LinearView(y, p, w, bandwidth) for y, p in views], data


def _canonical_cost_message(n, k):
    """The warning of a canonical full estimate on many rows."""
    return (
        f'reduction="canonical" with the full estimator computes all {n} * {n - 1} '
        f"/ 2 pairs of rows ({k} classes): its cost grows as n**2; "
        'estimator="block" takes linear time.'
    )


def _check_block_size(block_size, n):
    """Refuse blocks larger than the sample."""
    if block_size > n:
        raise ValueError(
            f"block_size={block_size} exceeds the number of samples of positive "
            f"weight, {n}."
        )


def _bandwidths(views):
    """The bandwidth of each view: a float, or an array for several views."""
    values = np.array([view.bandwidth for view in views])
    return float(values[0]) if values.shape[0] == 1 else values


def _estimates(views, estimator, block_size):
    """The estimate of each view."""
    if estimator == "full":
        n = views[0].y.shape[0]
        if isinstance(views[0], _CanonicalView) and n > _CANONICAL_WARN_ROWS:
            warnings.warn(_canonical_cost_message(n, views[0].P.shape[1]), stacklevel=4)
        return [float(view.full_values(view.y[None, :])[0]) for view in views]
    _check_block_size(block_size, views[0].y.shape[0])
    estimates = []
    for view in views:
        sums, pair_weights = view.block_sums(block_size)
        estimates.append(float(np.sum(sums) / np.sum(pair_weights)))
    return estimates


def skce_core(*, estimator, block_size, bandwidth):
    """The SKCE of one binary view, ``measure(y, p, w)`` (see the registry).

    NaN when fewer than two rows have positive weight (a resample of the
    intervals may draw one row only).
    """

    def measure(y, p, sample_weight):
        w, y, p = drop_zero_weight(sample_weight, y, p)
        if y.shape[0] < 2:
            return math.nan
        w = np.ones(y.shape[0]) if w is None else w
        view = _LinearView(y, p, w, bandwidth)
        return _estimates([view], estimator, block_size)[0]

    return measure


# ---------------------------------------------------------------------------
# The measure
# ---------------------------------------------------------------------------


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **GROUPS_CONSTRAINT,
        "reduction": [StrOptions(set(_SKCE_REDUCTIONS))],
        "return_per_class": ["boolean"],
        "estimator": [StrOptions({"full", "block"})],
        "block_size": [Interval(Integral, 2, None, closed="left")],
        "bandwidth": _BANDWIDTH_CONSTRAINT,
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def squared_kernel_calibration_error(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    reduction: Literal[
        "auto", "canonical", "classwise", "positive", "top_label"
    ] = "auto",
    return_per_class: bool = False,
    estimator: Literal["block", "full"] = "full",
    block_size: int = 2,
    bandwidth: float | Literal["median"] = "median",
) -> float | np.ndarray:
    r"""Squared kernel calibration error (SKCE), estimated without bias.

    The SKCE of Widmann, Lindsten and Zachariah (2019) is the squared norm
    of the mean residual ``e_Y - p`` (one-hot label minus prediction)
    embedded, through a kernel on the predictions, in a space of functions:
    a pair of samples adds the product of their residuals, weighted by how
    close their predictions are. skcal's kernel is
    ``exp(-||p - p'|| / bandwidth)`` (exponential, or Laplacian), which is
    universal, so the population SKCE is 0 exactly when the model is
    calibrated and positive otherwise. It needs no bins, and its unbiased
    estimators, U-statistics over pairs of samples, make it testable (see
    :func:`kernel_calibration_test`). Being unbiased, an estimate can be
    negative; for a calibrated model it is centred on 0.

    Read more in the :ref:`User Guide <calibration_tests>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    reduction : {"auto", "positive", "top_label", "classwise", "canonical"}
        How a multiclass problem is reduced; default ``"auto"``.
        ``"positive"``, ``"top_label"`` and ``"classwise"`` are the binary
        views of every measure (see :ref:`multiclass`; ``"classwise"``
        averages the one-vs-rest errors); ``"auto"`` is ``"positive"`` for
        binary problems (and when ``pos_label`` is given) and
        ``"top_label"`` otherwise.
        ``"canonical"`` is the SKCE of the paper on whole probability
        vectors: the residual vectors of all classes and the Euclidean
        distance between predictions. Its full estimator takes
        :math:`O(n^2 K)` time.
    %(return_per_class)s
    estimator : {"full", "block"}, default="full"
        ``"full"``: the U-statistic over all pairs of samples, the unbiased
        estimator of least variance. ``"block"``: the mean of the
        U-statistics of consecutive blocks of ``block_size`` rows, in the
        given row order (rows after the last whole block are left out);
        linear time, but a larger variance and a dependence on the row
        order.
    block_size : int, default=2
        Rows per block of ``estimator="block"``, from 2 to the number of
        samples of positive weight; ignored by ``"full"``.
    bandwidth : float or "median", default="median"
        The bandwidth :math:`h` of the kernel
        :math:`\exp(-\|p - p'\| / h)`. ``"median"``: the median heuristic,
        the median distance between the predictions of two samples (see
        Notes). A positive float sets it.

    Returns
    -------
    error : float or ndarray of shape (n_classes,)
        The estimated SKCE, which may be negative; the per-class values
        when ``return_per_class=True``. It lies in [-1, 1] for the binary
        views and in [-2, 2] for ``"canonical"``.

    See Also
    --------
    kernel_calibration_test : Test of perfect calibration based on it.
    cutoff_calibration_error : Another binning-free, testable error.
    expected_calibration_error : The binned ECE.

    Notes
    -----
    With residuals :math:`r_i = e_{y_i} - p_i` (for a binary view,
    :math:`r_i = y_i - p_i`), the kernel
    :math:`k(p, p') = \exp(-\|p - p'\|_2 / h)` and
    :math:`h_{ij} = k(p_i, p_j)\, r_i^\top r_j`, the SKCE is
    :math:`\mathbb{E}[h_{12}]` for two independent samples, and the full
    estimator, with weights :math:`w_i` (all 1 when unweighted), is

    .. math::

        \widehat{\mathrm{SKCE}} = \frac{\sum_{i \ne j} w_i w_j h_{ij}}
        {\sum_{i \ne j} w_i w_j},

    which is :math:`\frac{2}{n(n-1)} \sum_{i<j} h_{ij}` without weights,
    the :math:`\widehat{\mathrm{SKCE}}_{uq}` of [1]_. The block estimator
    restricts both sums to the pairs within each of the
    :math:`\lfloor n/B \rfloor` blocks of :math:`B` consecutive rows;
    without weights it is the mean of the blocks' U-statistics (:math:`B =
    2` is the linear-time :math:`\widehat{\mathrm{SKCE}}_{ul}` of [1]_,
    :math:`B = n` the full estimator). Both are unbiased for fixed weights
    and bandwidth. Rows of zero weight are dropped first. A pair weighs
    :math:`w_i w_j`, so only the ratios of the weights matter, and integer
    weights are *not* repeated rows: copies of a row would pair with each
    other, which one row never does.

    For a binary view, :math:`h_{ij} = e^{-|p_i - p_j|/h} (y_i - p_i)(y_j
    - p_j)`. Written as two-class vectors :math:`(1 - p, p)`, a binary
    problem has :math:`r_i = (y_i - p_i)(-1, 1)`, so
    :math:`r_i^\top r_j = 2 (y_i - p_i)(y_j - p_j)`, and
    :math:`\|(1 - p_i, p_i) - (1 - p_j, p_j)\| = \sqrt{2} |p_i - p_j|`:
    its ``"canonical"`` SKCE at bandwidth :math:`h` is twice its
    ``"positive"`` SKCE at bandwidth :math:`h / \sqrt{2}` (and, with the
    median heuristic, which scales alike, twice the ``"positive"`` value
    up to 1,000 rows).

    On sorted predictions, :math:`e^{-(p_j - p_i)/h}` is the product of the
    decays :math:`d_k = e^{-(p_k - p_{k-1})/h} \le 1` between neighbours, so
    :math:`\sum_{i<j} a_i a_j k(p_i, p_j) = \sum_j a_j s_j` with
    :math:`a_i = w_i r_i` and :math:`s_j = d_j (s_{j-1} + a_{j-1})`: a
    running sum that only decays, computed for all :math:`j` at once by a
    parallel scan, in :math:`O(n \log n)` time and :math:`O(n)` memory. The
    canonical full estimator sums the kernel matrix a block of rows at a
    time (:math:`O(n^2 K)` time, memory linear in :math:`n`), and warns
    above 20,000 rows.

    The median heuristic is the median of :math:`\|p_i - p_j\|` over the
    pairs :math:`i < j`, weighted by :math:`w_i w_j`; for an even number of
    equally weighted pairs, the mean of the two middle distances, as
    :func:`numpy.median`. For a binary view it is exact: the pairs within a
    distance :math:`t` are counted by binary searches of :math:`p_j - t` in
    the sorted predictions (:math:`O(n \log n)`), and bounds from sampled
    pairs close in on the median until its neighbours can be listed. For
    ``"canonical"`` it is the median over the pairs of at most 1,000 rows,
    evenly spaced in the lexicographic order of the probability vectors
    (all rows when there are at most 1,000). When more than half of the
    pair weight is at distance 0 (tied predictions), the median of the
    positive distances is used; when all predictions are equal the kernel
    is constant and the bandwidth is 1. The heuristic depends on the
    predictions only, not on the labels, so under calibration the estimate
    keeps its mean of 0 (and the resampling test its exactness); under
    miscalibration it estimates the SKCE at the bandwidth the data give.

    References
    ----------
    .. [1] D. Widmann, F. Lindsten and D. Zachariah, "Calibration tests in
       multi-class classification: A unifying framework", NeurIPS 2019,
       arXiv:1910.11385.
    .. [2] A. Gretton, K. M. Borgwardt, M. J. Rasch, B. Schoelkopf and
       A. Smola, "A kernel two-sample test", JMLR 13(25), 2012 (the median
       heuristic).

    Examples
    --------
    >>> from skcal.metrics import squared_kernel_calibration_error

    Both samples have the residual 1 - 0.5 = 0.5 at the same prediction
    (kernel 1), so their only pair gives 0.25:

    >>> squared_kernel_calibration_error([1, 1], [0.5, 0.5])
    0.25

    The residuals -0.2 and 0.8 at 0.2 and 0.3 at 0.7 make three pairs,
    -0.16 and, at distance 0.5 (one bandwidth, kernel 1/e), -0.06 and
    0.24; their mean, (-0.16 + 0.18/e)/3, is negative:

    >>> round(
    ...     squared_kernel_calibration_error(
    ...         [0, 1, 1], [0.2, 0.2, 0.7], bandwidth=0.5
    ...     ),
    ...     4,
    ... )
    -0.0313
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    if reduction != "canonical":
        reduction = resolve_reduction(data, reduction)
    check_per_class(reduction, return_per_class)
    views, _ = _views(data, reduction, bandwidth)
    values = _estimates(views, estimator, block_size)
    return mean_or_per_class(values, return_per_class)


# ---------------------------------------------------------------------------
# The test
# ---------------------------------------------------------------------------


def _draw_labels(views, null, reduction, u):
    """Labels drawn from the predictions, one row per draw, for every view.

    ``u`` holds uniforms of shape (n_draws, n). A single binary view takes
    Bernoulli draws of its own probabilities; several views (``"classwise"``)
    and the canonical view take whole classes drawn per row by ``null`` (a
    :class:`~skcal._utils._bootstrap.NullLabels`), so that the classes of a
    row are exclusive, and the views of these classes.
    """
    if reduction != "canonical" and len(views) == 1:
        return [u < views[0].p]
    classes = np.stack([null.draw_classes(row) for row in u])
    if reduction == "canonical":
        return [classes]
    return [y for y, _ in binary_views(null.data._replace(y_true=classes), reduction)]


def _null_statistics(views, data, reduction, n_resamples, rng):
    """The mean full estimate over the views, on ``n_resamples`` label draws."""
    n = data.y_true.shape[0]
    width = n * len(views) * (data.y_prob.shape[1] if reduction == "canonical" else 1)
    batch = max(1, min(n_resamples, _DRAW_CHUNK // width))
    null_labels = NullLabels(data, "classwise")
    null = np.empty(n_resamples)
    for start in range(0, n_resamples, batch):
        stop = min(start + batch, n_resamples)
        u = rng.random_sample((stop - start, n))
        drawn = _draw_labels(views, null_labels, reduction, u)
        null[start:stop] = np.mean(
            [view.full_values(y) for view, y in zip(views, drawn, strict=True)],
            axis=0,
        )
    return null


def _resampling_test(views, data, reduction, n_resamples, rng):
    """``(statistic, p_value)`` of the full estimator by consistency resampling."""
    if reduction == "canonical":
        n, k = views[0].P.shape
        cost = 0.5 * n * n * k * (n_resamples + 1)
        if cost > _CANONICAL_TEST_BUDGET:
            raise ValueError(
                f'The resampling test with reduction="canonical" and '
                f'estimator="full" would compute {cost:.1e} kernel products '
                f"(n_samples**2 * n_classes * (n_resamples + 1) / 2 for {n} "
                f"samples and {k} classes), more than {_CANONICAL_TEST_BUDGET:.0e}. "
                'Use estimator="block", fewer n_resamples, or a subsample.'
            )
    statistic = float(np.mean(_estimates(views, "full", None)))
    null = _null_statistics(views, data, reduction, n_resamples, rng)
    tolerance = 1e-12 * abs(statistic)
    extreme = int(np.count_nonzero(null >= statistic - tolerance))
    return statistic, (1.0 + extreme) / (n_resamples + 1.0)


def _block_test(views, block_size):
    """``(statistic, p_value, z)`` of the asymptotic normal block test."""
    n = views[0].y.shape[0]
    _check_block_size(block_size, n)
    if n // block_size < 2:
        raise ValueError(
            f'estimator="block" needs at least 2 blocks of block_size={block_size} '
            f"samples for the test, got {n} samples of positive weight."
        )
    values = []
    for view in views:
        sums, pair_weights = view.block_sums(block_size)
        values.append(sums / np.mean(pair_weights))
    values = np.mean(values, axis=0)
    statistic = float(np.mean(values))
    spread = float(np.std(values, ddof=1)) / math.sqrt(values.shape[0])
    if spread > 0.0:
        z = statistic / spread
    else:  # every block has the same value
        z = 0.0 if statistic == 0.0 else math.copysign(math.inf, statistic)
    return statistic, float(ndtr(-z)), z


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **GROUPS_CONSTRAINT,
        "reduction": [StrOptions(set(_SKCE_REDUCTIONS))],
        "estimator": [StrOptions({"full", "block"})],
        "block_size": [Interval(Integral, 2, None, closed="left")],
        "bandwidth": _BANDWIDTH_CONSTRAINT,
        "n_resamples": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def kernel_calibration_test(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    reduction: Literal[
        "auto", "canonical", "classwise", "positive", "top_label"
    ] = "auto",
    estimator: Literal["block", "full"] = "full",
    block_size: int = 2,
    bandwidth: float | Literal["median"] = "median",
    n_resamples: int = N_BOOTSTRAP,
    random_state: RandomStateLike = None,
) -> Bunch:
    r"""Test of perfect calibration with the squared kernel calibration error.

    The null hypothesis is that the model is calibrated: given its
    prediction, the label is distributed as predicted,
    :math:`P(Y \mid g(X)) = g(X)` (for the chosen view of a multiclass
    problem). Its statistic is the unbiased SKCE estimate of
    :func:`squared_kernel_calibration_error`, whose mean is 0 under the
    null hypothesis and positive otherwise, so large values are evidence
    of miscalibration (Widmann et al., 2019). A small p-value rejects
    calibration; a large one is no evidence of calibration, as the test
    may lack the power to see a small miscalibration.

    Read more in the :ref:`User Guide <calibration_tests>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    reduction : {"auto", "positive", "top_label", "classwise", "canonical"}
        The view that is tested, as in
        :func:`squared_kernel_calibration_error`; default ``"auto"``
        (``"positive"`` for binary problems and when ``pos_label`` is given,
        ``"top_label"`` otherwise). ``"classwise"`` tests the mean of the
        one-vs-rest estimates; ``"canonical"`` tests calibration of the
        whole probability vectors.
    estimator : {"full", "block"}, default="full"
        ``"full"`` (the default): the full estimator, with a p-value from
        label sets drawn from the predictions. It is exact at every sample
        size and uses every pair of samples, which makes it the more
        powerful; for the binary views a draw costs one pass over the
        sorted predictions (a quarter of a second for 1,000 draws of
        10,000 rows). ``"block"``: the asymptotic normal test of the block
        estimator, in linear time without resampling, but approximate and
        less powerful; the choice for very large samples or
        ``"canonical"``.
    block_size : int, default=2
        Rows per block of ``estimator="block"``, at least 2, with at least
        two blocks; ignored by ``"full"``.
    bandwidth : float or "median", default="median"
        The bandwidth of the kernel, as in
        :func:`squared_kernel_calibration_error`.
    n_resamples : int, default=1000
        The number of label sets drawn for ``estimator="full"``; the
        smallest possible p-value is ``1 / (n_resamples + 1)``.
    random_state : int, RandomState instance or None, default=None
        Seeds the label draws of ``estimator="full"``. Pass an int for
        reproducible output across multiple function calls.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With the fields:

        - ``statistic``: the SKCE estimate, as
          :func:`squared_kernel_calibration_error` returns it with the same
          options (the mean over classes for ``"classwise"``);
        - ``p_value``: the p-value of the null hypothesis;
        - ``z_score``: for ``"block"``, the standardised mean of the
          blocks; None for ``"full"``;
        - ``null_hypothesis``: the text of the null hypothesis;
        - ``method``: how the p-value was computed;
        - ``estimator``: the argument;
        - ``bandwidth``: the bandwidth used, a float, or an array of one
          per class for ``"classwise"``;
        - ``n_effective``: the number of samples of positive weight, or
          Kish's effective size :math:`(\sum_i w_i)^2 / \sum_i w_i^2` when
          weighted.

    See Also
    --------
    squared_kernel_calibration_error : The statistic of this test.
    cutoff_calibration_test : Certify a small cutoff calibration error.

    Notes
    -----
    **Full estimator.** With :math:`D` the estimate and :math:`D_b` the
    estimate on the :math:`b`-th of :math:`B` label sets in which each
    row's class is drawn independently from its predicted probabilities
    (predictions, weights and bandwidth kept), the p-value is

    .. math::

        p = \frac{1 + \#\{b : D_b \ge D\}}{B + 1}.

    Under the null hypothesis the observed labels are one more such draw,
    so :math:`P(p \le \alpha) \le \alpha` for every :math:`\alpha` and
    every sample size, given the predictions: a consistency resampling
    test ([2]_; [1]_ uses it for the ECE). For a binary view a draw costs
    one :math:`O(n)` scan; draws are made in batches. For ``"canonical"``
    a draw costs :math:`O(n^2 K)`, and the test refuses to run when
    :math:`n^2 K (B + 1) / 2` exceeds :math:`2 \times 10^{11}` (about a
    minute; e.g. 6,300 rows of 10 classes with 1,000 draws).

    **Block estimator.** With :math:`x_1, \dots, x_m` the values of the
    :math:`m = \lfloor n / B \rfloor` blocks (the blocks' U-statistics
    without weights; with weights, each block's weighted sum over its
    pairs divided by the mean pair weight of a block, so that their mean
    is the estimate), the statistic is

    .. math::

        z = \frac{\bar x}{s_x / \sqrt{m}},

    with :math:`s_x` the standard deviation (:math:`m - 1` degrees of
    freedom), and the p-value is :math:`1 - \Phi(z)`. Under the null
    hypothesis the blocks are independent with mean 0, so :math:`z` is
    asymptotically standard normal as :math:`m` grows ([1]_, Section 5);
    with few blocks the test is only approximate.

    References
    ----------
    .. [1] D. Widmann, F. Lindsten and D. Zachariah, "Calibration tests in
       multi-class classification: A unifying framework", NeurIPS 2019,
       arXiv:1910.11385.
    .. [2] J. Broecker and L. A. Smith, "Increasing the reliability of
       reliability diagrams", Weather and Forecasting 22(3), 2007,
       doi:10.1175/WAF993.1.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.metrics import kernel_calibration_test
    >>> rng = np.random.RandomState(0)
    >>> y_prob = rng.uniform(size=500)

    Labels drawn from the predictions give no evidence against
    calibration:

    >>> y_true = rng.uniform(size=500) < y_prob
    >>> result = kernel_calibration_test(y_true, y_prob, random_state=0)
    >>> bool(result.p_value > 0.05)
    True

    Events of probability ``y_prob**2`` do: one of the 1,000 label sets
    drawn from the predictions reaches the statistic, so the p-value is
    2/1001:

    >>> y_skewed = rng.uniform(size=500) < y_prob**2
    >>> result = kernel_calibration_test(y_skewed, y_prob, random_state=0)
    >>> round(result.p_value, 4)
    0.002

    The block test needs no draws, but sees less of the data:

    >>> result = kernel_calibration_test(y_skewed, y_prob, estimator="block")
    >>> round(result.p_value, 4)
    0.0135
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    if reduction != "canonical":
        reduction = resolve_reduction(data, reduction)
    views, data = _views(data, reduction, bandwidth)
    if estimator == "block":
        statistic, p_value, z = _block_test(views, block_size)
        method = f"asymptotic normal test of the blocks of {block_size} samples"
    else:
        rng = check_random_state(random_state)
        statistic, p_value = _resampling_test(views, data, reduction, n_resamples, rng)
        z = None
        method = f"consistency resampling ({n_resamples} label sets drawn from y_prob)"
    return Bunch(
        statistic=statistic,
        p_value=p_value,
        z_score=z,
        null_hypothesis=_NULL_HYPOTHESIS,
        method=method,
        estimator=estimator,
        bandwidth=_bandwidths(views),
        n_effective=effective_size(data.sample_weight, data.y_true.shape[0]),
    )
