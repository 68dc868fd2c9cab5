"""The numbers behind the diagrams that the public measures do not return.

The curves, tables and errors themselves come from the public functions of
:mod:`skcal.metrics` (called by the Displays). This module adds what those
do not return yet: bootstrap bands of the smooth curve and intervals of its
SmoothECE, per-bin intervals of the binned table, and the kernel
calibration curve with its sharpness band on a uniform grid. It reuses the
metrics' private machinery (the reflected-Gaussian smoother of
``_smooth_ece.py``, the bins of ``_binning.py``, the kernel sums of
``_kernel.py``) and never imports matplotlib.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from scipy import fft, sparse
from scipy.special import ndtri
from sklearn.utils import Bunch

from skcal._utils._bins import make_binning
from skcal._utils._bootstrap import bias_corrected_interval
from skcal._utils._ties import Ties
from skcal._utils._kernel_sums import KERNEL_MASS as _KERNEL_MASS
from skcal._utils._kernel_sums import kernel_sums as _kernel_sums
from skcal.metrics._proper import binary_divergence, full_scores
from skcal.metrics._smooth_ece import (
    _DENSITY_RTOL,
    _MIN_NODES,
    _bandwidth,
    _ReflectedGaussianSmoother,
)

# The kernel curve of the sharpness diagram is drawn only where the kernel
# weight of the data reaches this fraction of its maximum: beyond, it is an
# extrapolation from a handful of distant predictions.
_SUPPORT_RTOL = 1e-3

# The channels of the smoother, in the order of its masses.
_CHANNELS = ("residual", "weight", "outcome")

# Grid intervals per bandwidth of the bootstrap binning, at half the
# bandwidth of the curve: 64 per bandwidth, which bounds the binning error
# by 0.242 / 64**2 < 6e-5 of the mean absolute residual (the metric itself
# uses 128).
_BOOTSTRAP_NODES_PER_SIGMA = 32

# Cosine coefficients per unit of 1 / bandwidth that a curve keeps.
_CURVE_COEFFICIENTS = 4.0

# Atom counts are drawn as a multinomial (O(atoms)) when there are at least
# this many rows per atom, and by drawing rows (O(rows)) otherwise.
_ROWS_PER_ATOM = 8


# ---------------------------------------------------------------------------
# Bootstrap of rows, as multinomial counts of exchangeable atoms
# ---------------------------------------------------------------------------


class _Atoms:
    """Rows grouped into atoms whose members are exchangeable for a statistic.

    Rows with the same ``key`` (a non-negative int, e.g. a bin and an outcome)
    and the same weight contribute identically to every per-key sum, so a
    bootstrap resample of the rows (``n`` draws with replacement) changes
    such sums only through the number of draws that fall in each atom. Those
    numbers are multinomial with probabilities ``rows in atom / n``: drawing
    them costs O(number of atoms) per resample instead of O(n).

    Parameters
    ----------
    key : ndarray of shape (n_samples,)
        Non-negative integers.
    sample_weight : ndarray of shape (n_samples,) or None
        Row weights; atoms are split by distinct weight.
    """

    def __init__(self, key, sample_weight):
        key = np.asarray(key, dtype=np.int64)
        n = key.shape[0]
        if sample_weight is None:
            rows = np.bincount(key)
            keys = np.flatnonzero(rows)
            lookup = np.zeros(rows.shape[0], dtype=np.intp)
            lookup[keys] = np.arange(keys.shape[0])
            self.inverse = lookup[key]
            self.key = keys
            self.n_rows = rows[keys]
            self.weight = np.ones(keys.shape[0])
        else:
            values, w_index = np.unique(sample_weight, return_inverse=True)
            combined = key * values.shape[0] + w_index
            atoms, self.inverse = np.unique(combined, return_inverse=True)
            self.key = atoms // values.shape[0]
            self.weight = values[atoms % values.shape[0]]
            self.n_rows = np.bincount(self.inverse, minlength=atoms.shape[0])
        self.n_samples = n
        self._p = self.n_rows / float(n)

    def mean(self, values):
        """Mean of a per-row value over the rows of each atom."""
        sums = np.bincount(self.inverse, weights=values, minlength=self.key.shape[0])
        return sums / self.n_rows

    def resample(self, rng):
        """Total weight of each atom in one bootstrap resample of the rows.

        The atom counts are multinomial; they are drawn directly when there
        are few atoms, and by drawing the rows when atoms are nearly as
        many as rows (which is then cheaper).
        """
        n_atoms = self.key.shape[0]
        if n_atoms * _ROWS_PER_ATOM <= self.n_samples:
            counts = rng.multinomial(self.n_samples, self._p)
        else:
            rows = rng.randint(0, self.n_samples, size=self.n_samples)
            counts = np.bincount(self.inverse[rows], minlength=n_atoms)
        return counts * self.weight


def _percentiles(draws, confidence_level):
    """Lower and upper percentiles of the finite draws, column by column.

    ``numpy.nanpercentile`` with linear interpolation, vectorised over the
    columns of a 2-D array (a 1-D array is one column); NaN where a column
    has no finite draw.
    """
    draws = np.asarray(draws, dtype=np.float64)
    single = draws.ndim == 1
    if single:
        draws = draws[:, None]
    ordered = np.sort(np.where(np.isfinite(draws), draws, np.nan), axis=0)
    n_finite = np.count_nonzero(np.isfinite(ordered), axis=0)
    columns = np.arange(draws.shape[1])
    tail = 0.5 * (1.0 - confidence_level)
    bounds = []
    for level in (tail, 1.0 - tail):
        position = level * np.maximum(n_finite - 1, 0)
        below = np.floor(position).astype(np.intp)
        above = np.minimum(below + 1, np.maximum(n_finite - 1, 0))
        fraction = position - below
        low, high = ordered[below, columns], ordered[above, columns]
        value = low + fraction * (high - low)
        value[n_finite == 0] = np.nan
        bounds.append(value[0] if single else value)
    return bounds[0], bounds[1]


# ---------------------------------------------------------------------------
# Smooth reliability curve: bootstrap band and SmoothECE interval
# ---------------------------------------------------------------------------


def _curve_at(smoother, sigma, n_points):
    """The smoothed event rate on ``linspace(0, 1, n_points)``.

    The NaN rule of :func:`~skcal.metrics.smooth_reliability_curve`. The
    cosine series is summed exactly at the grid points by one DCT-I over a
    grid of at least ``4 / sigma`` intervals that contains them: the
    coefficients beyond it carry a factor below ``exp(-(4 pi)**2 / 2)``.
    """
    needed = math.ceil(_CURVE_COEFFICIENTS / sigma)
    n_intervals = (n_points - 1) * math.ceil(needed / (n_points - 1))
    step = n_intervals // (n_points - 1)
    weight = smoother.smooth("weight", sigma, n_intervals)[::step]
    outcome = smoother.smooth("outcome", sigma, n_intervals)[::step]
    np.maximum(weight, 0.0, out=weight)
    curve = np.full(n_points, np.nan)
    enough = weight > _DENSITY_RTOL * weight.max()
    curve[enough] = np.clip(outcome[enough] / weight[enough], 0.0, 1.0)
    return curve


def smooth_bootstrap(
    y, p, sample_weight, *, sigma, bandwidth, eps, n_points, n_bootstrap, rng
):
    """Bootstrap replicates of the smooth curve and of its SmoothECE.

    Each replicate resamples the rows (``n`` draws with replacement) and
    recomputes the curve at the bandwidth ``bandwidth`` of the full data, on
    the same grid, and the SmoothECE (its own fixed point when
    ``sigma="auto"``, :math:`\\mathrm{smECE}_\\sigma` otherwise).

    The rows are binned once onto a grid of ``M >= 64 / bandwidth``
    intervals (at least 256) and grouped into atoms of equal grid cell,
    outcome and weight; a replicate draws the multinomial number of rows of
    each atom, and its grid masses are these numbers times the atom's mean
    contributions. This is exact except that, within a cell, the resampled
    rows are given the mean offset of the cell's rows instead of their own;
    that and the coarser grid move the smoothed values by less than the
    binning error bound of :func:`~skcal.metrics.smooth_ece` at 64 grid
    intervals per bandwidth (``0.242 / 64**2``, relative).

    Parameters
    ----------
    y, p, sample_weight : ndarray
        A binary view (0/1 outcomes, float64 predictions, weights or None).
    sigma : "auto" or float
        The ``sigma`` parameter of the metric.
    bandwidth : float
        The bandwidth of the full-data curve.
    eps : float
        Tolerance and floor of the fixed-point search.
    n_points : int
        Points of the grid.
    n_bootstrap : int
        Number of replicates.
    rng : numpy.random.RandomState
        The random generator.

    Returns
    -------
    curves : ndarray of shape (n_bootstrap, n_points)
        The replicate curves (NaN where a replicate has no density).
    values : ndarray of shape (n_bootstrap,)
        The replicate SmoothECEs (NaN for a replicate of zero weight).
    """
    needed = math.ceil(_BOOTSTRAP_NODES_PER_SIGMA / (0.5 * bandwidth))
    n_intervals = fft.next_fast_len(max(needed, _MIN_NODES))
    size = n_intervals + 1
    scaled = p * n_intervals
    cell = scaled.astype(np.intp)  # floor, as p >= 0
    offset = scaled - cell
    del scaled
    atoms = _Atoms(2 * cell + y, sample_weight)
    del cell
    atom_cell = atoms.key // 2
    atom_y = (atoms.key % 2).astype(np.float64)
    # Per atom and channel, the mean part of a row's value given to the node
    # below (lower) and above (upper) its cell: grid masses are a sparse
    # linear map of the atoms' resampled weights.
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
    rows = np.concatenate(rows)
    values = np.concatenate(values)
    # A prediction of exactly 1 is in cell M, with nothing above it.
    inside = rows % size != 0
    inside |= np.tile(np.repeat([True, False], n_atoms), len(parts))
    to_grid = sparse.csr_matrix(
        (values[inside], (rows[inside], columns[inside])),
        shape=(3 * size, n_atoms),
    )
    del rows, values, columns, inside
    curves = np.full((n_bootstrap, n_points), np.nan)
    values = np.full(n_bootstrap, np.nan)
    for b in range(n_bootstrap):
        weight = atoms.resample(rng)
        total = weight.sum()
        if not total > 0:
            continue  # only rows of zero weight were drawn
        masses = (to_grid @ weight).reshape(3, size)
        smoother = _ReflectedGaussianSmoother.from_masses(
            masses, n_intervals, total, _CHANNELS
        )
        values[b] = _bandwidth(smoother, sigma, eps)[1]
        curves[b] = _curve_at(smoother, bandwidth, n_points)
    return curves, values


def smooth_band(curve, curves, smooth_ece, values, confidence_level):
    """Pointwise percentile band of the replicate curves and interval of values.

    Returns
    -------
    band_low, band_high : ndarray of shape (n_points,)
        NaN where the full-data curve is NaN.
    ci : tuple of float
        The bias-corrected percentile interval of the replicate SmoothECEs
        around ``smooth_ece`` (resampling inflates a calibration error, so
        plain percentiles would sit above it).
    """
    band_low, band_high = _percentiles(curves, confidence_level)
    missing = np.isnan(curve)
    band_low[missing] = np.nan
    band_high[missing] = np.nan
    ci = bias_corrected_interval(np.asarray(values), smooth_ece, confidence_level)
    return band_low, band_high, ci


# ---------------------------------------------------------------------------
# Binned reliability diagram: per-bin intervals of the event rate
# ---------------------------------------------------------------------------


def wilson_interval(rate, n, confidence_level):
    """Wilson score interval of a proportion ``rate`` observed on ``n`` trials.

    NaN where ``n`` is 0 or ``rate`` is NaN.
    """
    z = ndtri(0.5 + 0.5 * confidence_level)
    rate = np.asarray(rate, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    low = np.full(rate.shape, np.nan)
    high = np.full(rate.shape, np.nan)
    ok = (n > 0) & np.isfinite(rate)
    r, m = rate[ok], n[ok]
    denominator = 1.0 + z**2 / m
    centre = (r + z**2 / (2.0 * m)) / denominator
    half = z / denominator * np.sqrt(r * (1.0 - r) / m + z**2 / (4.0 * m**2))
    # The bounds are exactly 0 at r = 0 and 1 at r = 1 (and contain r).
    low[ok] = np.where(r == 0.0, 0.0, np.clip(centre - half, 0.0, r))
    high[ok] = np.where(r == 1.0, 1.0, np.clip(centre + half, r, 1.0))
    return low, high


def binned_intervals(
    y,
    p,
    sample_weight,
    event_rate,
    *,
    n_bins,
    strategy,
    interval,
    n_bootstrap,
    confidence_level,
    rng,
):
    """Per-bin intervals of the event rate of :func:`reliability_table`'s bins.

    Parameters
    ----------
    y, p, sample_weight : ndarray
        A binary view.
    event_rate : ndarray of shape (n_bins,)
        The table's event rates (NaN for empty bins).
    n_bins, strategy
        The bins, as given to ``reliability_table``.
    interval : {"wilson", "bootstrap"}
        Wilson score intervals on the effective number of rows of each bin,
        or percentile intervals over bootstrap resamples of the rows (bins
        fixed).
    n_bootstrap : int
        Number of resamples for ``"bootstrap"``.
    confidence_level : float
        The level.
    rng : numpy.random.RandomState
        The random generator.

    Returns
    -------
    low, high : ndarray of shape (n_bins,)
        NaN for empty bins.
    """
    binning = make_binning(p, sample_weight, n_bins, strategy)
    bins = binning.assign(p)
    size = binning.n_bins
    if interval == "wilson":
        if sample_weight is None:
            n_eff = np.bincount(bins, minlength=size).astype(np.float64)
        else:
            weight = np.bincount(bins, weights=sample_weight, minlength=size)
            squares = np.bincount(bins, weights=sample_weight**2, minlength=size)
            with np.errstate(invalid="ignore", divide="ignore"):
                n_eff = np.where(weight > 0, weight**2 / squares, 0.0)
        return wilson_interval(event_rate, n_eff, confidence_level)
    atoms = _Atoms(2 * bins + y, sample_weight)
    atom_bin = atoms.key // 2
    event = (atoms.key % 2).astype(np.float64)
    rates = np.full((n_bootstrap, size), np.nan)
    for b in range(n_bootstrap):
        weight = atoms.resample(rng)
        totals = np.bincount(atom_bin, weights=weight, minlength=size)
        events = np.bincount(atom_bin, weights=weight * event, minlength=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            rates[b] = events / totals
    low, high = _percentiles(rates, confidence_level)
    empty = ~np.isfinite(event_rate)
    low[empty] = np.nan
    high[empty] = np.nan
    return low, high


# ---------------------------------------------------------------------------
# Calibration-sharpness diagram: the kernel curve on a uniform grid
# ---------------------------------------------------------------------------


def _reach(grid, points, carriers, kernel, bandwidth):
    """Whether a point in ``carriers`` has positive kernel weight at each grid point.

    Decided by counting, not from rounded sums: the Gaussian kernel is
    positive everywhere, the Epanechnikov kernel on the open window of
    half-width ``bandwidth``.
    """
    if kernel == "gaussian":
        return np.full(grid.shape[0], bool(np.any(carriers)))
    z = points[carriers] / bandwidth
    zg = grid / bandwidth
    inside = np.searchsorted(z, zg + 1.0, side="left") - np.searchsorted(
        z, zg - 1.0, side="right"
    )
    return inside > 0


def kernel_curve(data, view, *, loss, kernel, bandwidth, n_points):
    """The kernel calibration curve, density and sharpness gap on a grid.

    The estimates of :func:`~skcal.metrics.kernel_calibration_error` with
    ``return_sharpness=True``, evaluated on ``linspace(0, 1, n_points)``
    instead of at the predictions.

    Parameters
    ----------
    data : CalibrationData
        The validated inputs (for the full loss of each row).
    view : tuple of ndarray
        The binary view ``(y, p)`` of the reduction.
    loss, kernel, bandwidth
        As in ``kernel_calibration_error``.
    n_points : int
        Points of the grid.

    Returns
    -------
    curve : Bunch
        ``grid``, ``calibration`` (NaN where the kernel weight is below
        1e-3 of its maximum), ``density``, ``expected_loss``,
        ``pointwise_calibration_error``, ``sharpness_gap``, ``band_low``
        and ``band_high``.
    """
    y, p = view
    w = data.sample_weight
    full_loss = full_scores(data, loss)
    groups = Ties(p, w)
    finite = np.isfinite(full_loss)
    source = groups.weight > 0
    events = groups.sum(y)[source]
    values = np.column_stack(
        [
            groups.weight[source],
            events,
            groups.sum(np.where(finite, full_loss, 0.0))[source],
        ]
    )
    points = groups.values[source]
    infinite = groups.sum(~finite)[source] > 0
    grid = np.linspace(0.0, 1.0, n_points)
    sums = _kernel_sums(grid, points, values, kernel, bandwidth)
    total = values[:, 0].sum()
    weight = np.maximum(sums[:, 0], 0.0)
    density = weight / (total * bandwidth * _KERNEL_MASS[kernel])
    defined = weight > max(_SUPPORT_RTOL * weight.max(), 0.0)
    calibration = np.full(n_points, np.nan)
    expected = np.full(n_points, np.nan)
    calibration[defined] = np.clip(sums[defined, 1] / weight[defined], 0.0, 1.0)
    # Exactly 0 (1) where no event (non-event) has kernel weight, whatever
    # the rounding of the sums, as in kernel_calibration_error.
    calibration[defined & ~_reach(grid, points, events > 0, kernel, bandwidth)] = 0.0
    nonevents = values[:, 0] - events > 0
    calibration[defined & ~_reach(grid, points, nonevents, kernel, bandwidth)] = 1.0
    expected[defined] = sums[defined, 2] / weight[defined]
    expected[defined & _reach(grid, points, infinite, kernel, bandwidth)] = np.inf
    with np.errstate(invalid="ignore"):  # inf - inf at 0 and 1 (log loss)
        pointwise = binary_divergence(grid, calibration, loss)
        gap = expected - pointwise
    length = density * gap
    return Bunch(
        grid=grid,
        calibration=calibration,
        density=density,
        expected_loss=expected,
        pointwise_calibration_error=pointwise,
        sharpness_gap=gap,
        band_low=np.maximum(calibration - 0.5 * length, 0.0),
        band_high=calibration + 0.5 * length,
    )
