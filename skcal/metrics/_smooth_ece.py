"""SmoothECE: the calibration error of a reflected-Gaussian kernel smoothing,
at the bandwidth that equals the error, and the smooth reliability curve."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Literal

import numpy as np
from scipy import fft, sparse
from sklearn.utils import Bunch, check_random_state

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions, validate_params
from skcal._reduction import (
    REDUCTION_CONSTRAINTS,
    binary_views,
    reduce_measure,
    resolve_reduction,
)
from skcal._typing import ArrayLike, Label, RandomStateLike
from skcal._utils._bootstrap import (
    Atoms,
    Replicates,
    SortedView,
    add_segment_sums,
    calibration_error_interval,
    draw_replicates,
    percentile_band,
    seed_of,
)
from skcal._utils._grid import CHANNELS, grid_cells, halve_grid, linear_binning
from skcal._utils._progress import VERBOSE_CONSTRAINT, Progress
from skcal._validation import (
    DATA_CONSTRAINTS,
    GROUPS_CONSTRAINT,
    check_calibration_inputs,
)
from skcal.metrics._groups import accepts_groups

# The smallest bandwidth (and tolerance) the grid resolves: a bandwidth of
# 1e-4 already needs a grid of 1.28 million nodes.
_SIGMA_MIN = 1e-4

# Grid intervals per bandwidth: the grid spacing is at most sigma / 128, which
# bounds the discretisation error by 0.242 / 128**2 < 1.5e-5 times the mean
# absolute residual (derived in the SmoothECE section of
# doc/user_guide/consistent.rst). The smoothed residual needs fewer: see
# _residual_nodes_per_sigma.
_NODES_PER_SIGMA = 128

# The fewest grid intervals per bandwidth of the smoothed residual: its
# cosine coefficients beyond the grid carry a factor below
# exp(-(16 pi)**2 / 2), and the error bound is met at any mean absolute
# residual below (16 / 128)**2.
_MIN_RESIDUAL_NODES_PER_SIGMA = 16

# Grid intervals per bandwidth of a curve read between its nodes (by
# interpolable_curve): four times the measure's, which brings the binning
# error down 16-fold.
_INTERPOLATED_NODES_PER_SIGMA = 512

# The coarsest grid used, whatever the bandwidth.
_MIN_NODES = 256

# A smoother bins its rows once onto the finest grid its smECE needs when
# they are at least this fraction of its nodes; fewer rows are binned onto
# the grid each bandwidth needs, when it is needed (O(rows) per grid,
# against O(nodes)).
_EAGER_ROWS_PER_NODE = 0.25

# Cosine coefficients per unit of 1 / bandwidth that a curve keeps: the rest
# carry a factor below exp(-(4 pi)**2 / 2) ~ 6e-35.
_CURVE_COEFFICIENTS = 4.0

# Grid intervals per bandwidth of the bootstrap binning, at half the bandwidth
# of the curve: 32 per bandwidth, which bounds the binning error by
# 0.242 / 32**2 < 2.4e-4 of the mean absolute residual, below the fixed
# point's tolerance eps = 1e-3 (the measure uses 128 times its square root,
# at least 16; see _residual_nodes_per_sigma). Measured, replicates
# are within eps of the measure on their rows, even the calibrated draws of
# miscalibrated data, whose bandwidths are a fraction of the grid's (their
# differences come from the tolerance, as they did at 64 nodes).
_BOOTSTRAP_NODES_PER_SIGMA = 16

# exp(-(pi k sigma)**2 / 2) < exp(-40) beyond k = _NEGLIGIBLE_K / sigma.
_NEGLIGIBLE_K = math.sqrt(80.0) / math.pi

# Where the smoothed density falls below this fraction of its maximum, the
# kernel regression of the outcomes is a ratio of rounding errors: NaN.
_DENSITY_RTOL = 1e-9

_COMMON_CONSTRAINTS = {
    **DATA_CONSTRAINTS,
    **GROUPS_CONSTRAINT,
    "sigma": [StrOptions({"auto"}), Interval(Real, _SIGMA_MIN, None, closed="left")],
    "eps": [Interval(Real, _SIGMA_MIN, 1, closed="left")],
}


def _n_intervals(sigma, nodes_per_sigma=_NODES_PER_SIGMA):
    """Number of grid intervals on [0, 1] that resolves bandwidth ``sigma``."""
    needed = max(math.ceil(nodes_per_sigma / sigma), _MIN_NODES)
    return fft.next_fast_len(needed)


def _residual_total(p, y, sample_weight):
    """The total absolute residual ``sum w |p - y|``."""
    residual = np.abs(p - y)
    return float(residual.sum() if sample_weight is None else residual @ sample_weight)


def _residual_nodes_per_sigma(residual_total, total_weight):
    r"""Grid intervals per bandwidth that bound the smECE's error by 1.5e-5.

    The binning and the integral on a grid of :math:`M` intervals move the
    smECE at bandwidth :math:`\sigma` by at most :math:`0.242\, \bar r /
    (M \sigma)^2`, :math:`\bar r` the mean absolute residual (see the
    SmoothECE section of the User Guide). :math:`M \sigma \ge 128
    \sqrt{\bar r}` keeps that below :math:`0.242 / 128^2 < 1.5 \cdot
    10^{-5}`, the bound of 128 intervals per bandwidth at :math:`\bar r =
    1`: a class that is rarely predicted and rarely true (small
    :math:`\bar r`) needs a grid far coarser than ``eps`` suggests. At
    least ``_MIN_RESIDUAL_NODES_PER_SIGMA``.
    """
    if not total_weight > 0.0:
        return float(_NODES_PER_SIGMA)
    mean = min(residual_total / total_weight, 1.0)
    return max(_NODES_PER_SIGMA * math.sqrt(mean), _MIN_RESIDUAL_NODES_PER_SIGMA)


class _ReflectedGaussianSmoother:
    r"""Reflected-Gaussian smoothing of binned sample values, for any bandwidth.

    The reflected Gaussian kernel is the heat kernel of [0, 1] with reflecting
    (Neumann) boundaries, whose cosine expansion is

    .. math::

        \tilde K_\sigma(t, x) = 1 + 2 \sum_{k \ge 1}
        e^{-(\pi k \sigma)^2 / 2} \cos(\pi k t) \cos(\pi k x).

    The samples are binned onto a grid (linear binning), the
    cosine coefficients of the grid masses come from one DCT-I, and smoothing at
    a bandwidth multiplies them by :math:`e^{-(\pi k \sigma)^2 / 2}` and
    transforms back: O(M log M) per bandwidth. The images at all reflections
    are included exactly and a mass at 0 or 1 keeps its full weight.

    The grid is sized to the bandwidth: a bandwidth :math:`\sigma` is smoothed
    on the coarsest of the grids of ``n_intervals / 2**i`` intervals that has
    at least ``_NODES_PER_SIGMA / sigma`` of them (its masses and coefficients
    computed once, when first needed), so the bisection's wide bandwidths do
    not pay for the grid of its narrowest. The residual, whose smoothing is
    the smECE, needs only ``residual_nodes_per_sigma / sigma`` of them (see
    :func:`_residual_nodes_per_sigma`). The masses on a coarser grid come
    from the finer one exactly (:func:`~skcal._utils._grid.halve_grid`) or,
    for a few rows, from binning the rows again.

    A smoother may hold a batch of samples (leading dimensions of
    ``masses``), e.g. bootstrap resamples: each is smoothed at its own
    bandwidth and the fixed points are searched together, one transform of
    the whole batch per step.

    Parameters
    ----------
    masses : ndarray of shape (*batch, len(channels), n_intervals + 1) or None
        Values binned onto the finest grid (not modified), e.g. by
        :func:`skcal._utils._grid.linear_binning`; None with ``samples``.
    n_intervals : int
        The number of intervals of the finest grid, the top of the ladder
        of grids ``n_intervals / 2**i``.
    total_weight : float or ndarray of shape batch
        The total weight of the samples.
    channels : tuple of {"residual", "weight", "outcome"}
        The binned values, in the order of the rows of ``masses``.
    samples : tuple of (p, y, sample_weight), default=None
        Rows binned onto each grid when it is first needed: the grids finer
        than those of ``masses``, and all of them without ``masses``.
    residual_total : float, default=None
        The total absolute residual ``sum w |p - y|`` (of a single sample),
        which sizes the residual's grids; by default they have
        ``_NODES_PER_SIGMA`` intervals per bandwidth.
    """

    def __init__(
        self,
        masses,
        n_intervals,
        total_weight,
        channels,
        samples=None,
        residual_total=None,
    ):
        self.n_intervals = n_intervals
        self.channels = channels
        self.total_weight = np.asarray(total_weight, dtype=np.float64)
        self._samples = samples
        self._masses = {} if masses is None else {masses.shape[-1] - 1: masses}
        self._coef = {}
        # Whether coarser grids come from the finest binned one (by halving)
        # whatever the number of rows.
        self._eager = False
        # No later call asks for a bandwidth below this one.
        self._sigma_min = 0.0
        self.residual_total = residual_total
        self.residual_nodes_per_sigma = (
            float(_NODES_PER_SIGMA)
            if residual_total is None
            else _residual_nodes_per_sigma(residual_total, float(self.total_weight))
        )

    @classmethod
    def from_samples(cls, p, y, sample_weight, sigma_min, channels):
        """A smoother of the samples whose finest grid resolves ``sigma_min``.

        The rows are binned at once, when they are at least
        ``_EAGER_ROWS_PER_NODE`` of its nodes, onto the finest grid the
        residual needs at ``sigma_min`` (the finest grid without a residual
        channel): every smECE the smoother computes comes from those masses.
        A curve's channels may need a finer grid, binned from the rows when
        asked for.
        """
        n_intervals = _n_intervals(sigma_min)
        total_weight = (
            float(p.shape[0]) if sample_weight is None else float(sample_weight.sum())
        )
        smoother = cls(
            None,
            n_intervals,
            total_weight,
            channels,
            samples=(p, y, sample_weight),
            residual_total=_residual_total(p, y, sample_weight),
        )
        smoother._sigma_min = sigma_min
        finest = n_intervals
        if "residual" in channels:
            finest = smoother._grid_for(sigma_min, 0, smoother.residual_nodes_per_sigma)
        if p.shape[0] >= _EAGER_ROWS_PER_NODE * finest:
            smoother._masses[finest] = linear_binning(
                p, y, sample_weight, finest, channels
            )
            smoother._eager = True
        return smoother

    def _grid_for(self, sigma, n_intervals, nodes_per_sigma=_NODES_PER_SIGMA):
        """The coarsest grid with ``nodes_per_sigma / sigma`` intervals and
        ``n_intervals``."""
        needed = max(math.ceil(nodes_per_sigma / sigma), n_intervals, _MIN_NODES)
        grid = self.n_intervals
        while grid % 2 == 0 and grid // 2 >= needed:
            grid //= 2
        return grid

    def _masses_on(self, grid):
        """The masses binned onto a grid of ``grid`` intervals, kept."""
        if grid not in self._masses:
            finer = min((g for g in self._masses if g > grid), default=None)
            if self._samples is None or (
                finer is not None
                and (self._eager or finer <= self._samples[0].shape[0])
            ):
                masses = self._masses[finer]
                while finer > grid:
                    masses, finer = halve_grid(masses), finer // 2
            else:
                masses = linear_binning(*self._samples, grid, self.channels)
            self._masses[grid] = masses
        return self._masses[grid]

    def _coefficients(self, grid):
        """Cosine coefficients of the masses on a grid, or on a finer one.

        Coefficients computed once are kept, and those of a finer grid serve
        a coarser one (their binning is only more accurate).

        Returns
        -------
        grid : int
            The grid of the coefficients.
        coef : ndarray of shape (*batch, len(channels), grid + 1)
        """
        grid = min((g for g in self._coef if g >= grid), default=grid)
        if grid not in self._coef:
            masses = self._masses_on(grid)
            # a_k = sum_j m_j cos(pi k j / M); the DCT-I counts the two end
            # nodes once and the others twice, hence their second terms.
            signs = np.where(np.arange(grid + 1) % 2 == 0, 1.0, -1.0)
            ends = masses[..., :1] + masses[..., -1:] * signs
            self._coef[grid] = (fft.dct(masses, type=1, axis=-1) + ends) / 2.0
        return grid, self._coef[grid]

    def smooth(
        self,
        channel,
        sigma,
        n_intervals=None,
        resolve=np.inf,
        rows=None,
        nodes_per_sigma=None,
    ):
        """Smoothed values ``sum_i v_i K(t, p_i)`` at the nodes of a grid.

        Parameters
        ----------
        channel : str
            One of the binned channels.
        sigma : float or ndarray of shape batch
            The bandwidth (of each sample of the batch).
        n_intervals : int, default=None
            The evaluation grid has nodes ``a / n_intervals``; by default the
            grid that resolves the smallest ``sigma``.
        resolve : float, default=inf
            The masses are binned on a grid that also resolves this bandwidth
            (one that later calls will ask for), when it is below ``sigma``.
        rows : ndarray of int, default=None
            Only these samples of the batch (indices into its flattened
            shape), ``sigma`` giving their bandwidths.
        nodes_per_sigma : float, default=None
            Grid intervals per bandwidth of the binning: by default
            ``residual_nodes_per_sigma`` for the residual, whose smoothing
            is the smECE, and ``_NODES_PER_SIGMA`` for the other channels.

        Returns
        -------
        values : ndarray of shape (*batch, n_intervals + 1)
            Or ``(len(rows), n_intervals + 1)`` with ``rows``.
        """
        sigma = np.asarray(sigma, dtype=np.float64)
        smallest = max(float(sigma.min()), 1e-300)
        if nodes_per_sigma is None:
            nodes_per_sigma = (
                self.residual_nodes_per_sigma
                if channel == "residual"
                else _NODES_PER_SIGMA
            )
        if n_intervals is None:
            n_intervals = min(_n_intervals(smallest, nodes_per_sigma), self.n_intervals)
        # The grid resolves sigma, and the bandwidth later calls ask for
        # (none below the smoother's smallest).
        finest = min(smallest, max(resolve, self._sigma_min, 1e-300))
        grid, coef = self._coefficients(
            self._grid_for(finest, n_intervals, nodes_per_sigma)
        )
        channel = self.channels.index(channel)
        if rows is None:
            coef = coef[..., channel, :]
        else:
            coef = coef.reshape(-1, *coef.shape[-2:])[rows, channel, :]
        # Coefficients beyond the binning grid carry a factor below
        # exp(-(pi * 16)**2 / 2), and those beyond _NEGLIGIBLE_K / sigma one
        # below exp(-40): zero against the first one in float64.
        n_kept = min(n_intervals, grid, math.ceil(_NEGLIGIBLE_K / smallest)) + 1
        spectrum = np.zeros((*coef.shape[:-1], n_intervals + 1))
        spectrum[..., :n_kept] = coef[..., :n_kept]
        # The constant term is kept apart so that sigma = inf gives the limit.
        k = np.arange(1, n_kept, dtype=np.float64)
        spectrum[..., 1:n_kept] *= np.exp(-0.5 * (np.pi * sigma[..., None] * k) ** 2)
        # The DCT-I, x_0 + (-1)^a x_M + 2 sum_{0<k<M} x_k cos(pi k a / M), counts
        # the last coefficient once where the series counts it twice.
        spectrum[..., -1] *= 2.0
        return fft.dct(spectrum, type=1, axis=-1)

    def error_at(self, sigma, resolve=np.inf, rows=None):
        """smECE at bandwidth ``sigma``: the L1 norm of the smoothed residual
        (of the samples ``rows`` of the flattened batch only, when given)."""
        values = self.smooth("residual", sigma, resolve=resolve, rows=rows)
        total = self.total_weight if rows is None else self.total_weight.ravel()[rows]
        # At most 1 in exact arithmetic; rounding may add an ulp or two.
        return np.minimum(_abs_integral(values) / total, 1.0)

    def fixed_point(self, eps, guess=None):
        """The bandwidth equal to the smECE at that bandwidth, within ``eps``.

        Bisection of ``g(s) = smECE_s - s``, decreasing, on ``[eps, 1]`` until
        the bracket is at most ``eps`` wide; the estimate is the root of the
        chord of ``g`` over the final bracket. An end of the bracket that
        never moved is evaluated last: when ``g(eps) <= 0`` the fixed point
        lies in ``[smECE_eps, eps]`` and ``smECE_eps`` is returned, and when
        ``g(1) >= 0`` it is 1.

        Two bounds save work without changing the bisection's steps:

        - every smECE is at most :meth:`error_ceiling`, so a trial above it
          moves the upper end of the bracket unevaluated (its ``g`` is
          evaluated at the end if the chord needs it);
        - the grid of each trial also resolves the largest lower bound on
          the fixed point found so far: as the smECE does not increase with
          the bandwidth, a trial ``s`` above the fixed point bounds it below
          by ``smECE_s`` (and one below it, by ``s``). The masses are then
          binned onto the grid the last trials need once, not onto every
          grid in between.

        With a ``guess`` (the fixed point of the data a batch resamples),
        :meth:`_fixed_point_near` searches from it instead.
        """
        if guess is not None:
            return self._fixed_point_near(eps, guess)
        lo, hi, g_lo, g_hi, resolve = self._bisect(eps)
        result = np.full(self.total_weight.shape, np.nan)
        # A NaN g is an end never evaluated: eps or 1, or one moved past
        # the ceiling.
        unset_lo = np.isnan(g_lo)
        if unset_lo.any():
            error = self.error_at(lo, resolve=resolve)
            np.copyto(result, error, where=unset_lo & (error <= lo))
            g_lo = np.where(unset_lo, error - lo, g_lo)
        unset_hi = np.isnan(g_hi)
        if (unset_hi & np.isnan(result)).any():
            g_end = self.error_at(hi, resolve=resolve) - hi
            np.copyto(result, hi, where=unset_hi & (g_end >= 0.0) & np.isnan(result))
            g_hi = np.where(unset_hi, g_end, g_hi)
        with np.errstate(invalid="ignore", divide="ignore"):
            chord = lo + (hi - lo) * g_lo / (g_lo - g_hi)
        return np.where(np.isnan(result), chord, result)

    def error_ceiling(self):
        r"""A bound on the smECE the smoother computes at any bandwidth.

        The L1 norm of a kernel smoothing is at most the total absolute
        value smoothed, :math:`\sum_i w_i |p_i - y_i| / W` (the kernel is
        non-negative and integrates to 1), and binning does not increase
        it; the bound is raised by 1e-9 of itself for rounding.
        """
        if self.residual_total is not None:
            total = self.residual_total
        elif self._samples is not None:
            total = _residual_total(*self._samples)
        else:
            masses = self._masses[self.n_intervals]
            residual = masses[..., self.channels.index("residual"), :]
            total = np.abs(residual).sum(axis=-1)
        return total / self.total_weight * (1.0 + 1e-9)

    def _bisect(self, eps):
        """The bracket of :meth:`fixed_point`, ``g`` at its ends, and the
        bandwidth its last grid resolves (NaN ``g`` where unevaluated)."""
        shape = self.total_weight.shape
        lo, hi = np.full(shape, float(eps)), np.ones(shape)
        g_lo, g_hi = np.full(shape, np.nan), np.full(shape, np.nan)
        ceiling = self.error_ceiling()
        bound = np.full(shape, np.inf)  # before the first trial, none
        while (hi - lo).max() > eps:
            mid = 0.5 * (lo + hi)
            if (mid > ceiling).all():  # g(mid) < 0 everywhere
                hi, g_hi = mid, np.full(shape, np.nan)
                continue
            error = self.error_at(mid, resolve=float(bound.min()))
            g_mid = error - mid
            below = g_mid < 0.0
            trial_bound = np.where(below, error, mid)
            bound = np.where(np.isinf(bound), trial_bound, np.fmax(bound, trial_bound))
            hi, g_hi = np.where(below, mid, hi), np.where(below, g_mid, g_hi)
            lo, g_lo = np.where(below, lo, mid), np.where(below, g_lo, g_mid)
        return lo, hi, g_lo, g_hi, float(bound.min())

    def _fixed_point_near(self, eps, guess):
        r"""The fixed points of a batch, searched from a ``guess`` near them.

        The smECE :math:`T(s)` does not increase with the bandwidth (a
        wider kernel smooths the residual more), so one evaluation brackets
        the fixed point :math:`s^*`: :math:`s^* \in [s, T(s)]` when
        :math:`T(s) \ge s` and :math:`s^* \in [T(s), s]` otherwise. The
        trials are the guess, then :math:`T` of it (the fixed point when
        :math:`T` is flat), then secant steps on :math:`g(s) = T(s) - s`,
        kept inside the bracket, and a bisection step whenever the last
        trial did not halve it. A sample's search stops when its bracket is
        at most ``eps`` wide (usually after two or three evaluations, against
        five to eight for the bisection) and returns its last secant root,
        clipped to the bracket; later evaluations of the batch leave out
        the samples that stopped, whose estimates are not refined further
        (the grid still resolves the smallest bandwidth still searched). As
        in :meth:`fixed_point`, a sample whose :math:`g(\mathrm{eps}) \le 0`
        gets :math:`\mathrm{smECE_{eps}}` and one with :math:`g(1) \ge 0`
        gets 1.
        """
        shape = self.total_weight.shape
        result = np.full(math.prod(shape), np.nan)
        # The state of the samples still searched, and their indices.
        rows = np.arange(result.shape[0])
        lo, hi = np.full(rows.shape, float(eps)), np.ones(rows.shape)
        s = np.clip(np.full(rows.shape, float(guess)), eps, 1.0)
        s_prev = g_prev = None
        while rows.size:
            t = self.error_at(s, rows=rows)
            g = t - s
            rising = g >= 0.0
            width = hi - lo
            lo = np.maximum(lo, np.where(rising, s, t))
            hi = np.minimum(hi, np.where(rising, t, s))
            with np.errstate(invalid="ignore", divide="ignore"):
                step = (
                    t  # the fixed-point iterate
                    if s_prev is None
                    else s - g * (s - s_prev) / (g - g_prev)
                )
            estimate = np.clip(np.where(np.isfinite(step), step, s), lo, hi)
            at_floor, at_top = ~rising & (s <= eps), rising & (s >= 1.0)
            estimate[at_floor], estimate[at_top] = t[at_floor], 1.0
            # (A NaN bracket, from a NaN smECE, counts as done.)
            done = at_floor | at_top | ~(hi - lo > eps)
            result[rows[done]] = estimate[done]
            going = ~done
            halved = hi - lo <= 0.5 * width
            s_next = np.where(halved, estimate, 0.5 * (lo + hi))
            rows, lo, hi = rows[going], lo[going], hi[going]
            s_prev, g_prev, s = s[going], g[going], s_next[going]
        return result.reshape(shape)


def _abs_integral(values):
    """Integral over [0, 1] of ``|L|``, L the linear interpolant of node values.

    On an interval where the values change sign, the integral of ``|L|`` is
    ``(a**2 + b**2) / (2 (|a| + |b|))`` times its width, which is the
    trapezoid ``(|a| + |b|) / 2`` less ``|a| |b| / (|a| + |b|)``: the
    trapezoid rule on ``|values|``, less those terms on the few intervals
    that cross zero. Along the last axis.
    """
    rows = values.reshape(-1, values.shape[-1])
    magnitude = np.abs(rows)
    # (The left ends and the right ends summed apart round as the sum of the
    # pieces does; all nodes less half the two ends can differ in the last
    # bit, e.g. for smooth_ece's doctest of a constant prediction, 0.25.)
    trapezoids = 0.5 * (magnitude[:, :-1].sum(axis=1) + magnitude[:, 1:].sum(axis=1))
    # An interval crosses zero where one end is positive and the other not
    # (a zero end makes its term 0, and two never divide 0 by 0).
    positive = rows > 0.0
    row, node = np.nonzero(positive[:, :-1] != positive[:, 1:])
    a, b = magnitude[row, node], magnitude[row, node + 1]
    crossings = np.bincount(row, a * b / (a + b), minlength=rows.shape[0])
    integral = (trapezoids - crossings) / (rows.shape[1] - 1)
    return integral.reshape(values.shape[:-1])


def _scalar(x):
    """A float for a 0-d array, the array otherwise."""
    x = np.asarray(x)
    return float(x) if x.ndim == 0 else x


def _bandwidth(smoother, sigma, eps, guess=None):
    """The fixed-point bandwidth and its value, or a given bandwidth and smECE."""
    if isinstance(sigma, str):  # "auto"
        estimate = smoother.fixed_point(eps, guess)
        # Below the floor, the error was evaluated at eps: that is the
        # bandwidth used (a curve at a smaller one would need a huge grid).
        return _scalar(np.maximum(estimate, eps)), _scalar(estimate)
    return float(sigma), _scalar(smoother.error_at(sigma))


def _curve_at(smoother, sigma, n_points):
    """The smoothed event rate and density on ``linspace(0, 1, n_points)``.

    The cosine series is summed exactly at the grid points by one DCT-I over
    a grid of at least ``4 / sigma`` intervals that contains them. The rate
    is NaN where the density is below ``_DENSITY_RTOL`` of its maximum (of
    each sample of a batch).
    """
    needed = math.ceil(_CURVE_COEFFICIENTS / sigma)
    step = math.ceil(needed / (n_points - 1))
    n_intervals = (n_points - 1) * step
    weight = smoother.smooth("weight", sigma, n_intervals)[..., ::step]
    outcome = smoother.smooth("outcome", sigma, n_intervals)[..., ::step]
    np.maximum(weight, 0.0, out=weight)
    curve = np.full(weight.shape, np.nan)
    enough = weight > _DENSITY_RTOL * weight.max(axis=-1, keepdims=True)
    curve[enough] = np.clip(outcome[enough] / weight[enough], 0.0, 1.0)
    return curve, weight / smoother.total_weight[..., None]


def interpolable_curve(y, p, sample_weight, *, sigma, eps):
    """The bandwidth and the smoothed event rate on a grid fine enough to interpolate.

    The bandwidth is that of :func:`smooth_ece` (its fixed point with
    ``sigma="auto"``, computed by the same code on the same grid). The curve
    is :func:`_curve_at`'s, binned and evaluated on a grid of
    ``_INTERPOLATED_NODES_PER_SIGMA`` intervals per bandwidth (no finer than
    the measure's grid for ``_SIGMA_MIN``), where it is within about
    1e-7 of the exact kernel regression and its linear interpolant within
    about 5e-7 between the nodes.

    Parameters
    ----------
    y, p : ndarray of shape (n_samples,)
        Outcomes in {0, 1} and predictions in [0, 1], float64.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.
    sigma : "auto" or float
        As in :func:`smooth_ece`.
    eps : float
        As in :func:`smooth_ece`.

    Returns
    -------
    sigma : float
        The bandwidth.
    curve : ndarray of shape (n_intervals + 1,)
        The smoothed event rate at the nodes ``linspace(0, 1, n_intervals +
        1)``, NaN where the density is negligible (see :func:`_curve_at`).
    """
    if isinstance(sigma, str):
        smoother = _ReflectedGaussianSmoother.from_samples(
            p, y, sample_weight, eps, ("residual",)
        )
        sigma = _bandwidth(smoother, sigma, eps)[0]
    finest = sigma * _NODES_PER_SIGMA / _INTERPOLATED_NODES_PER_SIGMA
    smoother = _ReflectedGaussianSmoother.from_samples(
        p, y, sample_weight, max(finest, _SIGMA_MIN), ("weight", "outcome")
    )
    curve = _curve_at(smoother, sigma, smoother.n_intervals + 1)[0]
    return float(sigma), curve


def reflected_gaussian_noise(p, sigma, random_state):
    r"""One draw from the reflected Gaussian kernel around each prediction.

    :math:`\pi_R(p + \sigma Z)` with :math:`Z` standard normal and
    :math:`\pi_R(x) = 1 - |(x \bmod 2) - 1|` the folding of the real line
    onto [0, 1] by reflections at 0 and 1: its density is
    :math:`\tilde K_\sigma(\cdot, p)`, the kernel of :func:`smooth_ece`.

    Parameters
    ----------
    p : ndarray of shape (n_samples,)
        Points in [0, 1].
    sigma : float
        The bandwidth.
    random_state : numpy.random.RandomState
        The generator of the normal draws.

    Returns
    -------
    draws : ndarray of shape (n_samples,)
        Points in [0, 1].
    """
    x = p + sigma * random_state.standard_normal(p.shape[0])
    return 1.0 - np.abs(np.mod(x, 2.0) - 1.0)


def _mean_prediction_at(smoother, sigma, n_points):
    """The kernel-weighted mean prediction on ``linspace(0, 1, n_points)``.

    From the residual and outcome channels (``p = (p - y) + y``), on the
    grid of :func:`_curve_at`; NaN where the rate is.
    """
    needed = math.ceil(_CURVE_COEFFICIENTS / sigma)
    step = math.ceil(needed / (n_points - 1))
    n_intervals = (n_points - 1) * step
    weight = np.maximum(smoother.smooth("weight", sigma, n_intervals)[::step], 0.0)
    # The residual here is part of a curve: on the curve's grid.
    residual = smoother.smooth(
        "residual", sigma, n_intervals, nodes_per_sigma=_NODES_PER_SIGMA
    )[::step]
    outcome = smoother.smooth("outcome", sigma, n_intervals)[::step]
    mean = np.full(weight.shape, np.nan)
    enough = weight > _DENSITY_RTOL * weight.max()
    mean[enough] = np.clip(
        (residual[enough] + outcome[enough]) / weight[enough], 0.0, 1.0
    )
    return mean


def _kernel_diagonal(t, sigma):
    r"""The reflected Gaussian kernel at equal arguments, :math:`\tilde K_\sigma(t, t)`.

    From its images, :math:`\sum_k \varphi_\sigma(2k) + \varphi_\sigma(2t - 2k)`,
    when ``sigma <= 0.5`` (images with :math:`|k| > 3` carry a factor below
    :math:`e^{-32}`), and from its cosine series otherwise.
    """
    if sigma <= 0.5:
        shifts = 2.0 * np.arange(-3, 4)
        values = np.concatenate(
            [np.broadcast_to(shifts, (t.shape[0], 7)), 2.0 * t[:, None] - shifts],
            axis=1,
        )
        scale = 1.0 / (math.sqrt(2.0 * math.pi) * sigma)
        return scale * np.exp(-0.5 * (values / sigma) ** 2).sum(axis=1)
    k = np.arange(1, math.ceil(_NEGLIGIBLE_K / sigma) + 1, dtype=np.float64)
    factor = np.exp(-0.5 * (np.pi * sigma * k) ** 2)
    return 1.0 + 2.0 * (factor * np.cos(np.pi * np.outer(t, k)) ** 2).sum(axis=1)


def _data_extent(p, sample_weight):
    """Kish's effective number of rows, and the range of the predictions kept.

    The number of rows without weights; ``(sum w)**2 / sum w**2`` with them,
    over the predictions of positive weight.
    """
    if sample_weight is None:
        return float(p.shape[0]), (float(p.min()), float(p.max()))
    scaled = sample_weight / sample_weight.max()
    n_rows = float(scaled.sum() ** 2 / (scaled * scaled).sum())
    kept = p[sample_weight > 0]
    return n_rows, (float(kept.min()), float(kept.max()))


def smooth_curve(smoother, *, sigma, eps, n_points, n_rows, prediction_range):
    """The curve of :func:`smooth_reliability_curve`, without its band.

    From a smoother holding every channel (``CHANNELS``), Kish's effective
    number of rows ``n_rows`` and the range of the predictions; the
    effective number of predictions near ``t`` is
    ``n_rows * density(t) / K(t, t)``.
    """
    used, value = _bandwidth(smoother, sigma, eps)
    calibration, density = _curve_at(smoother, used, n_points)
    grid = np.linspace(0.0, 1.0, n_points)
    return Bunch(
        grid=grid,
        calibration=calibration,
        density=density,
        n_effective=n_rows * density / _kernel_diagonal(grid, used),
        mean_prediction=_mean_prediction_at(smoother, used, n_points),
        prediction_range=prediction_range,
        sigma=used,
        smooth_ece=value,
        band_low=None,
        band_high=None,
        smooth_ece_interval=None,
    )


def _resampling_map(y, p, sample_weight, n_intervals):
    """Atoms of rows and the linear map from their resampled weights to grid masses.

    Rows are grouped into atoms of equal grid cell, outcome and weight; a
    resample's grid masses (residual, weight and outcome channels) are the
    atoms' resampled weights times their mean contribution to the node
    below and above their cell.
    """
    size = n_intervals + 1
    cell, offset = grid_cells(p, n_intervals)
    atoms = Atoms(2 * cell + y, sample_weight)
    del cell
    atom_cell = atoms.key // 2
    atom_y = (atoms.key % 2).astype(np.float64)
    upper_w = atoms.mean(offset)
    residual = p - y
    upper_r = atoms.mean(residual * offset)
    lower_r = atoms.mean(residual) - upper_r
    del residual, offset
    parts = [
        (0, lower_r, upper_r),
        (1, 1.0 - upper_w, upper_w),
        (2, atom_y * (1.0 - upper_w), atom_y * upper_w),
    ]
    rows, values = [], []
    for channel, lower, upper in parts:
        rows += [channel * size + atom_cell, channel * size + atom_cell + 1]
        values += [lower, upper]
    n_atoms = atom_cell.shape[0]
    columns = np.tile(np.arange(n_atoms), 2 * len(parts))
    rows, values = np.concatenate(rows), np.concatenate(values)
    # A prediction of exactly 1 is in cell M, with nothing above it.
    inside = rows % size != 0
    inside |= np.tile(np.repeat([True, False], n_atoms), len(parts))
    to_grid = sparse.csr_matrix(
        (values[inside], (rows[inside], columns[inside])),
        shape=(3 * size, n_atoms),
    )
    return atoms, to_grid


class SmoothEceReplicates(Replicates):
    """The SmoothECE of one view on bootstrap resamples and calibrated draws.

    A resample draws the rows with replacement, whose counts summed by atom
    (rows of equal grid cell, outcome and weight) map linearly to grid
    masses; a calibrated draw replaces the outcomes by Bernoulli draws with
    the predictions as probabilities, whose grid masses are sums over the
    segments of rows that share a grid cell. The rows are ordered by atom,
    so that both are sums over fixed segments. Both are binned on a grid of
    32 nodes per ``bandwidth`` (the full data's), coarser than the measure's
    own unless the mean absolute residual is below 1/16, and find their own
    fixed points on it, a batch at a time (see the SmoothECE section of the
    User Guide, "Band and interval").

    Parameters
    ----------
    y, p, sample_weight : ndarray of shape (n_samples,)
        One binary view (``sample_weight`` may be None).
    sigma : "auto" or float
        As in :func:`smooth_ece`.
    eps : float
        As in :func:`smooth_ece`.
    bandwidth : float
        The bandwidth of the full data, which sizes the grid (and at which
        the curves of :meth:`resampled` are drawn).
    """

    def __init__(self, y, p, sample_weight, *, sigma, eps, bandwidth):
        needed = math.ceil(_BOOTSTRAP_NODES_PER_SIGMA / (0.5 * bandwidth))
        self.n_intervals = fft.next_fast_len(max(needed, _MIN_NODES))
        self.atoms, self.to_grid = _resampling_map(
            y, p, sample_weight, self.n_intervals
        )
        # The value alone needs the residual channel, the first rows.
        self.to_residual = self.to_grid[: self.n_intervals + 1]
        # The rows grouped by atom (so sorted by grid cell): a resample's atom
        # counts and a calibrated draw's cell sums are sums over segments.
        self.view = SortedView(y, p, sample_weight, order=self.atoms.order)
        self.order = self.view.order
        self.n_samples = p.shape[0]
        self.sigma, self.eps, self.bandwidth = sigma, eps, bandwidth
        # Calibrated draws (whose value needs the residual channel alone):
        # the predictions' part of the residual does not change between
        # draws; each row's drawn outcome goes to the two nodes around it,
        # the upper one its weight times its offset, the lower one the rest.
        cell, offset = grid_cells(self.view.p, self.n_intervals)
        self.view.p = None  # the draws read the view's outcomes only
        self.starts = np.flatnonzero(np.diff(cell, prepend=-1))
        self.cells = cell[self.starts]
        self.offset = offset
        self.prediction_masses = linear_binning(
            p,
            np.zeros(self.n_samples, dtype=np.uint8),
            sample_weight,
            self.n_intervals,
            ("residual",),
        )

    def _values(self, masses, totals, channels):
        """The SmoothECE of each sample of a batch, and its smoother."""
        smoother = _ReflectedGaussianSmoother(
            masses, self.n_intervals, totals, channels
        )
        value = _bandwidth(smoother, self.sigma, self.eps, guess=self.bandwidth)[1]
        return np.atleast_1d(value), smoother

    def resampling(self, draws, n_points=None):
        """The accumulator of the SmoothECE of a batch's bootstrap resamples.

        Its result is NaN for a resample of zero weight. With ``n_points``,
        it also gives their smoothed event rates at ``bandwidth`` on
        ``linspace(0, 1, n_points)`` (NaN where there is no density).

        Returns
        -------
        accumulator : object
            Whose result is ``values`` of shape (draws.size,), and with
            ``n_points`` the tuple ``(values, curves)``, ``curves`` of shape
            (draws.size, n_points).
        """
        return _ResampledAtoms(self, draws.size, n_points)

    def relabeling(self, draws):
        """The accumulator of the SmoothECE of a batch's calibrated draws."""
        return _RelabeledCells(self, draws.size)

    def _resampled_values(self, weights, n_points):
        """The SmoothECE (and curves) of resamples from their atom weights."""
        size = weights.shape[0]
        channels = ("residual",) if n_points is None else CHANNELS
        to_grid = self.to_residual if n_points is None else self.to_grid
        masses = (to_grid @ weights.T).T.reshape(
            size, len(channels), self.n_intervals + 1
        )
        totals = weights.sum(axis=1)
        empty = ~(totals > 0)
        totals[empty] = 1.0  # only rows of zero weight were drawn
        values, smoother = self._values(masses, totals, channels)
        values[empty] = np.nan
        if n_points is None:
            return values
        curves = _curve_at(smoother, self.bandwidth, n_points)[0]
        curves[empty] = np.nan
        return values, curves

    def _relabeled_values(self, cell_sums, upper):
        """The SmoothECE of calibrated draws from each grid cell's sums of
        the drawn outcomes and of their offsets."""
        size = cell_sums.shape[0]
        outcome = np.zeros((size, self.n_intervals + 2))
        outcome[:, self.cells] = cell_sums - upper
        outcome[:, self.cells + 1] += upper
        masses = (self.prediction_masses[0] - outcome[:, :-1])[:, None]
        totals = np.full(size, self.view.total)
        return self._values(masses, totals, ("residual",))[0]


class _ResampledAtoms:
    """Each resample's atom weights, chunk by chunk, for
    :class:`SmoothEceReplicates`."""

    def __init__(self, replicates, size, n_points):
        self.replicates, self.n_points = replicates, n_points
        self.weights = np.zeros((size, replicates.atoms.key.shape[0]))

    def add(self, chunk):
        add_segment_sums(
            self.weights, chunk.counts, self.replicates.atoms.starts, chunk
        )

    def result(self):
        weights = self.weights * self.replicates.atoms.weight
        return self.replicates._resampled_values(weights, self.n_points)


class _RelabeledCells:
    """Each calibrated draw's outcomes by grid cell, and their offsets',
    chunk by chunk, for :class:`SmoothEceReplicates`."""

    def __init__(self, replicates, size):
        self.replicates = replicates
        self.cell_sums = np.zeros((size, replicates.starts.shape[0]))
        self.upper = np.zeros_like(self.cell_sums)

    def add(self, chunk):
        replicates = self.replicates
        outcomes = replicates.view.weighted_outcomes(chunk)
        add_segment_sums(self.cell_sums, outcomes, replicates.starts, chunk)
        offset = replicates.offset[chunk.start : chunk.stop]
        products = np.multiply(outcomes, offset, out=chunk.scratch("products"))
        add_segment_sums(self.upper, products, replicates.starts, chunk)

    def result(self):
        return self.replicates._relabeled_values(self.cell_sums, self.upper)


def smooth_ece_replicates(y, p, sample_weight, *, sigma, eps):
    """:class:`SmoothEceReplicates` of one view, at the view's own bandwidth."""
    smoother = _ReflectedGaussianSmoother.from_samples(
        p, y, sample_weight, eps if isinstance(sigma, str) else sigma, ("residual",)
    )
    bandwidth = _bandwidth(smoother, sigma, eps)[0]
    return SmoothEceReplicates(
        y, p, sample_weight, sigma=sigma, eps=eps, bandwidth=bandwidth
    )


class _SmoothEceCore:
    """The SmoothECE of one binary view, ``measure(y, p, w)``.

    The bandwidth of each call is appended to ``bandwidths`` when given;
    :meth:`replicates` gives the view's :class:`SmoothEceReplicates`.
    """

    def __init__(self, sigma, eps, bandwidths):
        self.sigma, self.eps, self.bandwidths = sigma, eps, bandwidths

    def __call__(self, y, p, w):
        smoother = _ReflectedGaussianSmoother.from_samples(
            p,
            y,
            w,
            self.eps if isinstance(self.sigma, str) else self.sigma,
            ("residual",),
        )
        used, value = _bandwidth(smoother, self.sigma, self.eps)
        if self.bandwidths is not None:
            self.bandwidths.append(used)
        return value

    def replicates(self, y, p, sample_weight):
        """:func:`smooth_ece_replicates` of the view."""
        return smooth_ece_replicates(
            y, p, sample_weight, sigma=self.sigma, eps=self.eps
        )


def smooth_ece_core(*, sigma, eps, bandwidths=None):
    """The SmoothECE of one binary view, ``measure(y, p, w)``."""
    return _SmoothEceCore(sigma, eps, bandwidths)


@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        **REDUCTION_CONSTRAINTS,
        "return_sigma": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def smooth_ece(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    sigma: Literal["auto"] | float = "auto",
    eps: float = 1e-3,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
    return_per_class: bool = False,
    return_sigma: bool = False,
) -> float | np.ndarray | tuple[float | np.ndarray, float | np.ndarray]:
    r"""SmoothECE: the calibration error after reflected-Gaussian smoothing.

    The residuals ``y_prob - y_true`` are smoothed along the prediction axis
    with a Gaussian kernel reflected at 0 and 1, and the smoothed residual is
    integrated in absolute value. Unlike the binned ECE, the result is
    continuous in the predictions and does not depend on a choice of bins.
    With ``sigma="auto"`` (the definition of Blasiok and Nakkiran), the
    bandwidth is the fixed point :math:`\sigma^*` at which the smoothed error
    equals the bandwidth, and the SmoothECE is :math:`\sigma^*` itself: a
    consistent calibration measure, within constant factors of the distance
    to the nearest perfectly calibrated predictor.

    Read more in the :ref:`User Guide <smooth_ece>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    sigma : "auto" or float, default="auto"
        The bandwidth (standard deviation of the Gaussian), at least 1e-4.
        ``"auto"``: the fixed point :math:`\sigma^* = \mathrm{smECE}_{\sigma^*}`.
        A float: :math:`\mathrm{smECE}_\sigma` at that bandwidth; large
        values are allowed (the error then tends to the absolute mean
        residual).
    eps : float, default=1e-3
        Tolerance of the fixed-point search (``sigma="auto"`` only), in
        [1e-4, 1): the bisection stops when the bracket of :math:`\sigma^*`
        is at most ``eps`` wide. It is also the smallest bandwidth tried.
    %(reduction)s
    %(return_per_class)s
    return_sigma : bool, default=False
        Also return the bandwidth used.

    Returns
    -------
    smooth_ece : float or ndarray of shape (n_classes,)
        The SmoothECE in [0, 1]; the per-class values when
        ``return_per_class=True``.
    sigma : float or ndarray of shape (n_classes,)
        Only with ``return_sigma=True``: the bandwidth used, with the shape
        of ``smooth_ece`` (for ``"classwise"`` without ``return_per_class``,
        the mean of the per-class bandwidths). With ``sigma="auto"`` it
        equals the SmoothECE, except below the floor ``eps``, where it is
        ``eps``.

    See Also
    --------
    smooth_reliability_curve : The smoothed outcome rate and prediction
        density at the same bandwidth, for a reliability diagram.
    expected_calibration_error : The binned ECE, an upper bound of
        :math:`\mathrm{smECE}_\sigma` when each bin holds one distinct
        prediction.

    Notes
    -----
    With weights :math:`w_i`, :math:`W = \sum_i w_i` and residuals
    :math:`r_i = p_i - y_i`, the smECE at bandwidth :math:`\sigma` is [1]_

    .. math::

        \mathrm{smECE}_\sigma = \int_0^1 \Big| \frac{1}{W} \sum_i w_i r_i
        \tilde K_\sigma(t, p_i) \Big| \, dt,

    with the reflected Gaussian kernel

    .. math::

        \tilde K_\sigma(t, x) = \sum_{k \in \mathbb{Z}}
        \big[\varphi_\sigma(t - x - 2k) + \varphi_\sigma(t + x - 2k)\big]

    and :math:`\varphi_\sigma` the normal density of standard deviation
    :math:`\sigma`: :math:`\tilde K_\sigma(\cdot, x)` is the density of
    :math:`x + \sigma Z` folded into [0, 1] by reflections at 0 and 1. The
    error does not increase with :math:`\sigma`, and the SmoothECE is the
    single root :math:`\sigma^*` of :math:`\mathrm{smECE}_\sigma = \sigma`.
    It is computed on a grid of at least :math:`128 \sqrt{\bar r} /
    \sigma` intervals (and :math:`16 / \sigma`), :math:`\bar r` the mean
    absolute residual, by discrete cosine transforms, within :math:`1.5
    \cdot 10^{-5}` of the exact value; the User Guide derives the
    computation and its error bound, and describes the search for
    :math:`\sigma^*`.

    References
    ----------
    .. [1] J. Blasiok and P. Nakkiran, "Smooth ECE: Principled Reliability
       Diagrams via Kernel Smoothing", ICLR 2024, arXiv:2309.12236.

    Examples
    --------
    >>> from skcal.metrics import smooth_ece

    A constant prediction is off by the gap to the event rate, at every
    bandwidth:

    >>> smooth_ece([0, 1, 1, 1], [0.5, 0.5, 0.5, 0.5])
    0.25
    >>> smooth_ece([0, 1, 1, 1], [0.5, 0.5, 0.5, 0.5], sigma=0.1)
    0.25

    Predictions equal to the event rate of their group score 0:

    >>> smooth_ece([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5])
    0.0
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    bandwidths: list[float] = []
    measure = smooth_ece_core(sigma=sigma, eps=eps, bandwidths=bandwidths)
    value = reduce_measure(data, reduction, measure, return_per_class=return_per_class)
    if not return_sigma:
        return value
    sigmas = np.array(bandwidths, dtype=np.float64)
    return value, (sigmas if return_per_class else float(sigmas.mean()))


class CurveBootstrap:
    """The band of a smooth curve and the interval of its SmoothECE, from draws.

    A statistic of :func:`~skcal._utils._bootstrap.draw_replicates`
    (``resampling`` and ``relabeling``), so that its draws can be shared with
    other measures of the same rows (the report's), and :meth:`finish`,
    which completes the curve from the replicates.

    Parameters
    ----------
    curve : Bunch
        A :func:`smooth_reliability_curve` without its band.
    replicates : SmoothEceReplicates
        Of the curve's view, at the curve's bandwidth.
    confidence_level : float
        The level of the band and of the interval.
    """

    def __init__(self, curve, replicates, confidence_level):
        self.curve, self.replicates = curve, replicates
        self.confidence_level = confidence_level
        self.n_samples = replicates.n_samples
        self.relabeling = replicates.relabeling

    def resampling(self, draws):
        """The accumulator of the SmoothECE and the curve of each bootstrap
        resample of a batch."""
        return self.replicates.resampling(draws, self.curve.grid.shape[0])

    def finish(self, resampled, null):
        """Set the curve's band and interval; return the interval.

        ``resampled`` is the list of what :meth:`resampled` gave per batch,
        ``null`` the SmoothECE of the calibrated draws.
        """
        curve, level = self.curve, self.confidence_level
        values = np.concatenate([v for v, _ in resampled])
        low, high = percentile_band(np.concatenate([c for _, c in resampled]), level)
        undefined = np.isnan(curve.calibration)
        low[undefined] = np.nan
        high[undefined] = np.nan
        interval = calibration_error_interval(curve.smooth_ece, values, null, level)
        curve.update(band_low=low, band_high=high, smooth_ece_interval=interval)
        return interval


def _band_and_interval(bootstrap, *, n_bootstrap, rng, verbose, n_jobs):
    """Draw the replicates of a :class:`CurveBootstrap` and finish its curve."""
    n = bootstrap.n_samples
    with Progress(
        2 * n_bootstrap, f"SmoothECE: {n_bootstrap} resamples of {n} rows", verbose
    ) as progress:
        ((resampled, null),) = draw_replicates(
            [(bootstrap.resampling, bootstrap.relabeling)],
            n,
            n_bootstrap,
            seed_of(rng),
            progress,
            n_jobs,
        )
    bootstrap.finish(resampled, null)


def curve_and_bootstrap(
    data,
    reduction,
    *,
    sigma="auto",
    eps=1e-3,
    n_points=201,
    confidence_level=0.95,
    bootstrap=True,
):
    """A :func:`smooth_reliability_curve` without its band, and its bootstrap.

    ``data`` are validated inputs and ``reduction`` one resolved view
    (``"positive"`` or ``"top_label"``); the other arguments are those of
    :func:`smooth_reliability_curve` (validated there). The
    :class:`CurveBootstrap` (None unless ``bootstrap``) completes the curve
    from draws that the caller may share with other statistics.
    """
    ((y, p),) = binary_views(data, reduction)
    w = data.sample_weight
    smoother = _ReflectedGaussianSmoother.from_samples(
        p, y, w, eps if isinstance(sigma, str) else sigma, CHANNELS
    )
    n_rows, prediction_range = _data_extent(p, w)
    curve = smooth_curve(
        smoother,
        sigma=sigma,
        eps=eps,
        n_points=n_points,
        n_rows=n_rows,
        prediction_range=prediction_range,
    )
    used = curve.sigma
    if not bootstrap:
        return curve, None
    replicates = SmoothEceReplicates(y, p, w, sigma=sigma, eps=eps, bandwidth=used)
    return curve, CurveBootstrap(curve, replicates, confidence_level)


@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        "n_points": [Interval(Integral, 2, None, closed="left")],
        "n_bootstrap": [Interval(Integral, 0, None, closed="left")],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "reduction": [StrOptions({"auto", "positive", "top_label"})],
        "verbose": VERBOSE_CONSTRAINT,
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def smooth_reliability_curve(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    sigma: Literal["auto"] | float = "auto",
    eps: float = 1e-3,
    n_points: int = 201,
    n_bootstrap: int = 0,
    confidence_level: float = 0.95,
    random_state: RandomStateLike = None,
    n_jobs: int | None = None,
    reduction: Literal["auto", "positive", "top_label"] = "auto",
    verbose: Literal["auto"] | bool = "auto",
) -> Bunch:
    r"""Smooth reliability curve: kernel regression of the outcomes.

    The numbers behind a smooth reliability diagram (Blasiok and Nakkiran,
    2024): on a grid of predictions :math:`t`, the Nadaraya-Watson
    regression :math:`\hat y(t)` of the outcomes on the predictions and the
    density :math:`\hat\delta(t)` of the predictions, both with the
    reflected Gaussian kernel at the SmoothECE bandwidth :math:`\sigma^*`
    (or a given one). A calibrated model has :math:`\hat y(t) \approx t`
    where :math:`\hat\delta` is large.

    Read more in the :ref:`User Guide <smooth_ece>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    sigma : "auto" or float, default="auto"
        The bandwidth, at least 1e-4; ``"auto"`` is the SmoothECE fixed
        point :math:`\sigma^*` (see :func:`smooth_ece`).
    eps : float, default=1e-3
        Tolerance of the fixed-point search (``sigma="auto"`` only), in
        [1e-4, 1).
    n_points : int, default=201
        Number of equally spaced points of the grid on [0, 1].
    n_bootstrap : int, default=0
        Number of bootstrap resamples of the rows for the band of the curve
        and the interval of the SmoothECE, and of outcome sets drawn from
        the predictions for the interval (see the User Guide); 0 computes
        neither.
        :class:`~skcal.plotting.SmoothReliabilityDisplay` asks for 1000,
        the default of every interval.
    confidence_level : float, default=0.95
        Level of the band and of the interval, in (0, 1).
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap. Pass an int for reproducible output across
        multiple function calls.
    %(n_jobs_bootstrap)s
    reduction : {"auto", "positive", "top_label"}, default="auto"
        ``"positive"``: the probability of ``pos_label``; ``"top_label"``:
        the confidence against the correctness of the argmax; ``"auto"`` is
        ``"positive"`` for binary problems and ``"top_label"`` otherwise.
        For a one-vs-rest curve of a class, use ``reduction="positive"``
        with that class as ``pos_label``.
    %(verbose)s

    Returns
    -------
    curve : :class:`~sklearn.utils.Bunch`
        With the attributes:

        - ``grid``: ndarray of shape (n_points,), ``linspace(0, 1, n_points)``;
        - ``calibration``: ndarray of shape (n_points,), the smoothed event
          rate :math:`\hat y(t)` in [0, 1]; NaN where the density is below
          1e-9 times its maximum (too far from any prediction for the ratio
          to be computed);
        - ``density``: ndarray of shape (n_points,), the smoothed density
          :math:`\hat\delta(t)` of the predictions (it integrates to 1 over
          [0, 1]);
        - ``n_effective``: ndarray of shape (n_points,), the effective
          number of predictions near :math:`t`, :math:`n_{\mathrm{eff}}(t)`:
          each row counts by its kernel weight relative to a row at
          :math:`t` (see Notes). A diagram should not draw the curve where
          it is small (:class:`~skcal.plotting.SmoothReliabilityDisplay`
          hides it below 10);
        - ``mean_prediction``: ndarray of shape (n_points,), the
          kernel-weighted mean :math:`\bar p(t)` of the predictions near
          :math:`t` (NaN where ``calibration`` is): :math:`\hat y(t)` is
          the event rate of predictions that average :math:`\bar p(t)`,
          which differs from :math:`t` where the predictions on one side
          outweigh those on the other (see Notes);
        - ``prediction_range``: tuple of two floats, the smallest and the
          largest prediction (of positive weight); the curve outside this
          range is an extrapolation by the kernel;
        - ``sigma``: float, the bandwidth;
        - ``smooth_ece``: float, the SmoothECE (``sigma="auto"``) or
          :math:`\mathrm{smECE}_\sigma`, as returned by :func:`smooth_ece`;
        - ``band_low``, ``band_high``: ndarray of shape (n_points,), the
          pointwise percentile band of the bootstrap curves (NaN where the
          curve is NaN), or None when ``n_bootstrap=0``;
        - ``smooth_ece_interval``: tuple of two floats, the confidence
          interval of the population SmoothECE (the rule of
          :func:`confidence_interval`), or None when ``n_bootstrap=0``.

    See Also
    --------
    smooth_ece : The calibration error at the same bandwidth.
    reliability_table : The binned counterpart.

    Notes
    -----
    With weights :math:`w_i` and :math:`W = \sum_i w_i`,

    .. math::

        \hat\delta(t) = \frac{1}{W} \sum_i w_i \tilde K_\sigma(t, p_i),
        \qquad
        \hat y(t) = \frac{\sum_i w_i y_i \tilde K_\sigma(t, p_i)}
        {\sum_i w_i \tilde K_\sigma(t, p_i)},

    with the reflected Gaussian kernel :math:`\tilde K_\sigma` of
    :func:`smooth_ece`, computed on a grid of at least :math:`128 /
    \sigma` intervals. The curve's distance to
    the diagonal, :math:`\int |\hat y(t) - t| \hat\delta(t) dt`, is within
    :math:`\sqrt{2/\pi}\,\sigma` of :math:`\mathrm{smECE}_\sigma` [1]_.
    The kernel-weighted mean prediction :math:`\bar p(t)` is
    :math:`\hat y(t)` with :math:`p_i` in place of :math:`y_i`, and the
    effective number of predictions near :math:`t` is

    .. math::

        n_{\mathrm{eff}}(t) = N \, \frac{\hat\delta(t)}{\tilde K_\sigma(t, t)},

    with :math:`N = (\sum_i w_i)^2 / \sum_i w_i^2` (Kish's effective
    sample size; the number of rows without weights). The band is a
    pointwise percentile band of bootstrap curves at the same bandwidth:
    an interval for the kernel-smoothed population curve, not for the true
    calibration function. The User Guide discusses how to read
    :math:`n_{\mathrm{eff}}` and :math:`\bar p`, and how the band and the
    interval are computed.

    References
    ----------
    .. [1] J. Blasiok and P. Nakkiran, "Smooth ECE: Principled Reliability
       Diagrams via Kernel Smoothing", ICLR 2024, arXiv:2309.12236.

    Examples
    --------
    >>> from skcal.metrics import smooth_reliability_curve
    >>> curve = smooth_reliability_curve([0, 1, 1, 1], [0.5] * 4, n_points=3)
    >>> curve.grid.tolist()
    [0.0, 0.5, 1.0]
    >>> curve.calibration.round(12).tolist()
    [0.75, 0.75, 0.75]
    >>> curve.sigma
    0.25
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    curve, bootstrap = curve_and_bootstrap(
        data,
        resolve_reduction(data, reduction),
        sigma=sigma,
        eps=eps,
        n_points=n_points,
        confidence_level=confidence_level,
        bootstrap=n_bootstrap > 0,
    )
    if n_bootstrap:
        _band_and_interval(
            bootstrap,
            n_bootstrap=n_bootstrap,
            rng=check_random_state(random_state),
            verbose=verbose,
            n_jobs=n_jobs,
        )
    return curve
