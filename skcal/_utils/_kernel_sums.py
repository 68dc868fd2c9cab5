"""Kernel sums ``s(x) = sum_i v_i K((x - z_i) / bandwidth)`` at many points, fast.

The kernel estimates of :func:`~skcal.metrics.kernel_calibration_error`, its
calibration-sharpness curve and the logit-smoothed ECE all need such sums at
many points, for a handful of value columns ``v``. They are computed here, in
O(n log n) time and O(n) memory, without an n x n matrix:

* Epanechnikov ``(1 - u**2)_+``: a quadratic on its window, so sorted prefix
  sums give exact sums (:func:`epanechnikov_sums`).
* Gaussian ``exp(-u**2 / 2)`` (:class:`GaussianSums`): direct sums over the
  points within 9 bandwidths when each point has few such neighbours, or a
  fast Gauss transform: points in boxes of a quarter bandwidth, the kernel
  expanded in a Taylor series of total degree 15 between pairs of boxes, box
  moments convolved by FFT into local expansions at every box, evaluated by
  Horner's rule. The truncation error of one term is at most
  ``1.0865 * 0.25**16 / sqrt(16!) ~ 6e-17`` of its weight (Cramer's bound
  ``|He_m(x)| exp(-x**2 / 4) <= 1.0865 sqrt(m!)`` on Hermite polynomials).
  For data far more numerous than the boxes, :meth:`GaussianSums.streamed`
  takes the points block by block, on boxes of 1/32 bandwidth with degree
  below 9 (the same bound), and evaluates queries in any order.

Coordinates are in bandwidths; the values should have a largest absolute
value near 1 (the contract scales weights so), which keeps every product away
from under- and overflow.
"""

# SPDX-License-Identifier: BSD-3-Clause

import itertools
import math

import numpy as np
from scipy.fft import irfft, next_fast_len, rfft

KERNELS = ("gaussian", "epanechnikov")

# Integral of the unnormalised kernel (value 1 at 0) over the real line, in
# bandwidths: the Gaussian exp(-u**2 / 2) and the Epanechnikov (1 - u**2)_+.
KERNEL_MASS = {"gaussian": math.sqrt(2.0 * math.pi), "epanechnikov": 4.0 / 3.0}

# Boxes of _BOX bandwidths and Taylor expansions of total degree below _ORDER.
_BOX = 0.25
_ORDER = 16
# The same accuracy on boxes of 1/32 bandwidth with degree below 9, for data
# far more numerous than boxes (GaussianSums.streamed).
_FINE_BOX = 1.0 / 32.0
_FINE_ORDER = 9
# exp(-x**2 / 2) and its derivatives underflow to 0 beyond this many bandwidths.
_UNDERFLOW = 38.5
# Direct sums skip the terms beyond this many bandwidths: exp(-81 / 2) < 3e-18.
_DIRECT_CUTOFF = 9.0
# Direct sums are used when there are at most this many pairs per point.
_DIRECT_PAIRS_PER_POINT = 32
# Target boxes per FFT segment, cached segments, and point pairs per block of
# direct sums.
_SEGMENT = 1 << 14
_CACHED_SEGMENTS = 4
_PAIR_BLOCK = 1 << 21


def kernel_sums(query, points, values, kernel, bandwidth, *, method=None):
    """Kernel-weighted sums ``sum_i values[i] K((query - points[i]) / bandwidth)``.

    Parameters
    ----------
    query : ndarray of shape (n_queries,)
        Sorted evaluation points.
    points : ndarray of shape (n_points,)
        Sorted data points.
    values : ndarray of shape (n_points, n_targets)
        What is summed (weights, weighted outcomes, ...).
    kernel : {"gaussian", "epanechnikov"}
        ``exp(-u**2 / 2)`` or ``(1 - u**2)_+`` (value 1 at 0, not normalised).
    bandwidth : float
        The bandwidth.
    method : {None, "direct", "grid"}, default=None
        For the Gaussian kernel, force direct sums or the grid; None chooses
        the cheaper (see :class:`GaussianSums`).

    Returns
    -------
    sums : ndarray of shape (n_queries, n_targets)
    """
    zq = query / bandwidth
    zs = points / bandwidth
    if kernel == "epanechnikov":
        return epanechnikov_sums(zq, zs, values)
    return GaussianSums(zs, values, sample=zq, method=method)(zq)


def epanechnikov_sums(zq, zs, values):
    """Sums of ``values[i] * (1 - (zq - zs[i])**2)_+`` by sorted prefix sums.

    The kernel is a quadratic polynomial on its window, so each sum is a
    combination of the window's sums of ``1, z, z**2`` times the values. To
    keep rounding errors proportional to the weights rather than to
    ``(z / bandwidth)**2``, coordinates are taken relative to the left edge of
    boxes of width 2: a window ``(zq - 1, zq + 1)`` meets at most two boxes,
    split at the even integer ``edge`` inside it.

    Parameters
    ----------
    zq, zs : ndarray
        Sorted queries and points, in bandwidths.
    values : ndarray of shape (n_points, n_targets)
        What is summed.

    Returns
    -------
    sums : ndarray of shape (n_queries, n_targets)
    """
    n_targets = values.shape[1]
    u = zs - 2.0 * np.floor(0.5 * zs)  # in [0, 2)
    left = np.searchsorted(zs, zq - 1.0, side="right")
    right = np.searchsorted(zs, zq + 1.0, side="left")
    edge = 2.0 * np.floor(0.5 * zq)
    edge += np.where(zq - edge < 1.0, 0.0, 2.0)
    mid = np.searchsorted(zs, edge, side="left")
    # Offsets of the query from the left edges of the boxes right of `edge`
    # (in [-1, 1)) and left of it (in [1, 3)).
    a_right = zq - edge
    a_left = a_right + 2.0
    # 1 - (a - u)**2 = (1 - a**2) * u**0 + (2 a) * u**1 - u**2.
    coefficients = [
        (1.0 - a_left**2, 1.0 - a_right**2),
        (2.0 * a_left, 2.0 * a_right),
        (-1.0, -1.0),
    ]
    out = np.zeros((zq.shape[0], n_targets))
    cumulative = np.zeros(zs.shape[0] + 1)
    power = np.ones_like(zs)
    for k, (c_left, c_right) in enumerate(coefficients):
        if k:
            power *= u
        for t in range(n_targets):
            np.cumsum(values[:, t] * power, out=cumulative[1:])
            at_mid = cumulative[mid]
            out[:, t] += c_left * (at_mid - cumulative[left])
            out[:, t] += c_right * (cumulative[right] - at_mid)
    return out


def _gaussian_derivatives(offsets, n_orders):
    """``g^(m)(x)`` for the Gaussian ``g(x) = exp(-x**2 / 2)``, m < n_orders.

    ``g^(m)(x) = (-1)**m He_m(x) g(x)``; the products ``He_m(x) g(x)`` follow
    the Hermite recurrence directly, so nothing overflows.
    """
    out = np.empty((n_orders, offsets.shape[0]))
    out[0] = np.exp(-0.5 * offsets**2)
    if n_orders > 1:
        out[1] = offsets * out[0]
    for m in range(1, n_orders - 1):
        out[m + 1] = offsets * out[m] - m * out[m - 1]
    out[1::2] *= -1.0
    return out


class GaussianSums:
    """Sums ``s(x) = sum_i values[i] exp(-(x - z_i)**2 / 2)`` at any points ``x``.

    Built once from the points, then called as often as needed (the
    logit-smoothed ECE evaluates it inside a root finder). See the module
    docstring for the two methods, and :meth:`streamed` for data given block
    by block.

    Parameters
    ----------
    points : ndarray of shape (n_points,)
        The points ``z_i``, in bandwidths (any order).
    values : ndarray of shape (n_points, n_targets)
        One column per sum.
    sample : ndarray, default=None
        Representative query points, to choose the method: direct sums when
        they have at most 32 points within 9 bandwidths on average (or the
        data are too spread for a grid); the grid otherwise. None takes the
        points themselves.
    method : {None, "direct", "grid"}, default=None
        Force a method; None chooses as above.
    """

    def __init__(self, points, values, *, sample=None, method=None):
        self.n_targets = values.shape[1]
        self.box, self.order = _BOX, _ORDER
        # The grid spans the points and the reach of the kernel around them.
        self._span(float(points.min()), float(points.max()))
        n_queries = points.shape[0] if sample is None else sample.shape[0]
        if method is None and self.n_boxes <= 2 * (points.shape[0] + n_queries):
            # Few boxes: the grid costs O(n) and is never the slower.
            method = "grid"
        if method == "grid":
            self.direct = False
            self._prepare_grid(points, values)
            return
        order = np.argsort(points)
        self.points, self.values = points[order], values[order]
        if method is None:
            sample = self.points if sample is None else np.sort(sample)
            pairs = np.sum(
                np.searchsorted(self.points, sample + _DIRECT_CUTOFF, side="right")
                - np.searchsorted(self.points, sample - _DIRECT_CUTOFF, side="left")
            )
            budget = _DIRECT_PAIRS_PER_POINT * (n_queries + points.shape[0])
            method = (
                "direct" if pairs <= budget or self.n_boxes > 4 * budget else "grid"
            )
        self.direct = method == "direct"
        if not self.direct:
            self._prepare_grid(self.points, self.values)

    @classmethod
    def streamed(cls, blocks, low, high, n_targets):
        """The grid's sums of points and values given block by block.

        For data dense on their grid: with far more points than boxes, the
        boxes are small (1/32 bandwidth) and the expansions short (degree
        below 9; the truncation error of a term is at most ``1.0865 *
        32**-9 / sqrt(9!) ~ 5e-17`` of its weight, as with the default
        boxes), the moments of every box are accumulated one block at a
        time, and all the local expansions are computed at once, so queries
        need not be sorted and nothing as long as the data is held.

        Parameters
        ----------
        blocks : iterable of (ndarray of shape (m,), ndarray of shape (m, n_targets))
            Points (in bandwidths, any order) and their values.
        low, high : float
            Bounds of every point.
        n_targets : int
            Number of value columns.

        Returns
        -------
        sums : GaussianSums
            Callable on queries in any order.
        """
        self = cls.__new__(cls)
        self.n_targets, self.direct = n_targets, False
        self.box, self.order = _FINE_BOX, _FINE_ORDER
        self._span(low, high)
        self.occupied = np.arange(self.n_boxes)
        self.moments = np.zeros((self.order, n_targets, self.n_boxes))
        for points, values in blocks:
            box, delta = self._locate(points)
            self._add_moments(
                box,
                delta,
                values,
                lambda v, box=box: np.bincount(box, weights=v, minlength=self.n_boxes),
            )
        self._prepare_transform(segment=self.n_boxes)
        return self

    @staticmethod
    def streamed_size(low, high, n_targets):
        """Number of moments :meth:`streamed` holds for points in ``[low, high]``."""
        n_boxes = int((high - low + 2 * _UNDERFLOW) / _FINE_BOX) + 1
        return n_boxes * _FINE_ORDER * n_targets

    def __call__(self, query):
        """The sums at ``query``, of shape ``(*query.shape, n_targets)``."""
        query = np.asarray(query, dtype=np.float64)
        flat = query.ravel()
        evaluate = self._direct if self.direct else self._from_grid
        if (not self.direct and self.segment == self.n_boxes) or np.all(
            flat[1:] >= flat[:-1]
        ):
            return evaluate(flat).reshape(*query.shape, self.n_targets)
        order = np.argsort(flat)
        out = np.empty((flat.shape[0], self.n_targets))
        out[order] = evaluate(flat[order])
        return out.reshape(*query.shape, self.n_targets)

    # -- direct sums ---------------------------------------------------------

    def _direct(self, zq):
        """Sums over the points within `_DIRECT_CUTOFF` of each sorted query."""
        zs = self.points
        left = np.searchsorted(zs, zq - _DIRECT_CUTOFF, side="left")
        counts = np.searchsorted(zs, zq + _DIRECT_CUTOFF, side="right") - left
        ends = np.cumsum(counts)
        out = np.zeros((zq.shape[0], self.n_targets))
        start = 0
        while start < zq.shape[0]:
            before = ends[start] - counts[start]
            stop = int(np.searchsorted(ends, before + _PAIR_BLOCK, side="right"))
            stop = max(stop, start + 1)
            block_counts = counts[start:stop]
            query = np.repeat(np.arange(stop - start), block_counts)
            run_starts = ends[start:stop] - block_counts - before
            source = (
                np.arange(query.shape[0]) - run_starts[query] + left[start:stop][query]
            )
            kernel = np.exp(-0.5 * np.square(zq[start:stop][query] - zs[source]))
            for t in range(self.n_targets):
                out[start:stop, t] = np.bincount(
                    query,
                    weights=self.values[source, t] * kernel,
                    minlength=stop - start,
                )
            start = stop
        return out

    # -- fast Gauss transform ------------------------------------------------

    def _span(self, low, high):
        """The grid over ``[low, high]`` and the reach of the kernel around it."""
        self.lo = low - _UNDERFLOW
        self.n_boxes = int((high + _UNDERFLOW - self.lo) / self.box) + 1

    def _locate(self, z):
        """Box of each coordinate and its offset from the box's centre."""
        box = np.clip(((z - self.lo) / self.box).astype(np.intp), 0, self.n_boxes - 1)
        return box, z - (self.lo + (box + 0.5) * self.box)

    def _add_moments(self, box, delta, values, box_sums):
        """Add ``sum values (-delta)**b / b!`` of each box to the moments.

        ``box_sums(v)`` sums ``v`` over the rows of each box of
        ``self.occupied``; ``delta`` is overwritten.
        """
        columns = np.ascontiguousarray(values.T)
        np.negative(delta, out=delta)
        term, product = np.ones(delta.shape[0]), np.empty(delta.shape[0])
        for b in range(self.order):
            if b:
                term *= delta
                term /= b
            for t in range(self.n_targets):
                self.moments[b, t] += box_sums(
                    np.multiply(columns[t], term, out=product)
                )

    def _prepare_grid(self, points, values):
        """Moments of the occupied boxes, and the FFT of the derivative kernels.

        For a point ``z = c_j + delta`` and a query ``x = c_l + eps``,
        ``g(x - z) = sum_{a + b < K} g^(a+b)(c_l - c_j) eps**a / a!
        (-delta)**b / b!``; a box's moments are ``sum values (-delta)**b / b!``.
        The points need not be sorted.
        """
        box, delta = self._locate(points)
        if np.all(box[1:] >= box[:-1]):
            # Sorted points: each box is a run, summed in order.
            starts = np.flatnonzero(np.r_[True, box[1:] != box[:-1]])
            self.occupied = box[starts]

            def box_sums(v):
                return np.add.reduceat(v, starts)
        else:
            counts = np.bincount(box, minlength=self.n_boxes)
            self.occupied = np.flatnonzero(counts)
            compact = np.zeros(self.n_boxes, dtype=np.intp)
            compact[self.occupied] = np.arange(self.occupied.shape[0])
            box = compact[box]
            del counts, compact

            def box_sums(v):
                return np.bincount(box, weights=v, minlength=self.occupied.shape[0])

        self.moments = np.zeros((self.order, self.n_targets, self.occupied.shape[0]))
        self._add_moments(box, delta, values, box_sums)
        self._prepare_transform(segment=min(_SEGMENT, self.n_boxes))

    def _prepare_transform(self, segment):
        """The FFT of the derivative kernels, for segments of ``segment`` boxes."""
        self.reach = min(self.n_boxes - 1, math.ceil(_UNDERFLOW / self.box))
        self.segment = segment
        self.size = next_fast_len(self.segment + 4 * self.reach + 1, real=True)
        offsets = np.arange(-self.reach, self.reach + 1) * self.box
        derivatives = _gaussian_derivatives(offsets, self.order)
        self.derivatives_hat = rfft(derivatives, n=self.size, axis=1)
        self.cache = {}

    def _coefficients(self, index):
        """Local expansion coefficients ``T_a`` of every box of one segment.

        Returns an array of shape (order, n_targets, boxes of the segment):
        the sum at ``c_l + eps`` is ``sum_a eps**a / a! T_a(l)``.
        """
        if index in self.cache:
            return self.cache[index]
        first = index * self.segment
        last = min(first + self.segment, self.n_boxes)
        s_first = max(first - self.reach, 0)
        s_last = min(last + self.reach, self.n_boxes)
        lo, hi = np.searchsorted(self.occupied, [s_first, s_last])
        moments = np.zeros((self.order, self.n_targets, s_last - s_first))
        moments[:, :, self.occupied[lo:hi] - s_first] = self.moments[:, :, lo:hi]
        moments_hat = rfft(moments, n=self.size, axis=2)
        # Coefficient a at target box l is the convolution at
        # l - s_first + reach.
        offset = first - s_first + self.reach
        coefficients = np.empty((self.order, self.n_targets, last - first))
        for a in range(self.order):
            spectrum = np.einsum(
                "btf,bf->tf",
                moments_hat[: self.order - a],
                self.derivatives_hat[a:],
            )
            full = irfft(spectrum, n=self.size, axis=1)
            coefficients[a] = full[:, offset : offset + last - first] / math.factorial(
                a
            )
        if len(self.cache) >= _CACHED_SEGMENTS:
            self.cache.pop(next(iter(self.cache)))
        self.cache[index] = coefficients
        return coefficients

    def _from_grid(self, zq):
        """Horner's rule on the local expansions, segment by segment.

        The queries are sorted, or all in one segment.
        """
        out = np.zeros((zq.shape[0], self.n_targets))
        inside = (zq >= self.lo) & (zq < self.lo + self.n_boxes * self.box)
        (rows,) = np.nonzero(inside)  # beyond the grid every term underflows
        if rows.shape[0] == 0:
            return out
        box, eps = self._locate(zq[rows])
        segment = box // self.segment
        bounds = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1], True])
        for lo, hi in itertools.pairwise(bounds):
            index = int(segment[lo])
            coefficients = self._coefficients(index)
            local = box[lo:hi] - index * self.segment
            x = eps[lo:hi]
            # sum_a eps**a T_a / a! = T_0 + eps (T_1 / 1! + eps (T_2 / 2! + ...)),
            # the factorials already divided out of the coefficients.
            result = coefficients[-1].take(local, axis=1)
            for a in range(self.order - 2, -1, -1):
                result *= x
                result += coefficients[a].take(local, axis=1)
            out[rows[lo:hi]] = result.T
        return out
