"""Bootstrap resampling and intervals, for the measures, the curves and the report.

Resamples draw the rows with replacement (``n`` draws), as multinomial counts
that multiply the sample weights. :class:`Atoms` draws the counts of groups
of exchangeable rows instead of the rows, which makes a resample O(groups).
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from scipy.stats import norm


def bias_corrected_interval(draws, estimate, confidence_level):
    r"""Bias-corrected percentile bootstrap interval (Efron, 1981).

    Calibration errors are biased upwards on small samples, and more so on a
    resample (which repeats rows), so a plain percentile interval sits above
    the estimate and often leaves it out. The bias correction moves the
    percentiles by :math:`z_0 = \Phi^{-1}(\hat F(\hat\theta))`, with
    :math:`\hat F` the distribution of the resampled values: the interval is
    the :math:`\Phi(2 z_0 \pm z_{1 - \alpha/2})` percentiles. It is an
    interval for the estimate's sampling variability, not for the
    population value (which a biased estimator's interval may miss).

    Returns
    -------
    low, high : float
        NaN when no resample has a finite value.
    """
    finite = draws[np.isfinite(draws)]
    if not finite.size:
        return math.nan, math.nan
    below = (
        np.count_nonzero(finite < estimate) + 0.5 * np.count_nonzero(finite == estimate)
    ) / finite.size
    below = min(max(below, 0.5 / finite.size), 1.0 - 0.5 / finite.size)
    z0 = norm.ppf(below)
    z = norm.ppf(0.5 + 0.5 * confidence_level)
    levels = 100.0 * norm.cdf([2.0 * z0 - z, 2.0 * z0 + z])
    low, high = np.percentile(finite, levels)
    return float(low), float(high)


def bootstrap_intervals(
    score, estimates, n_samples, n_bootstrap, confidence_level, rng, sample_weight=None
):
    """Bias-corrected bootstrap intervals of several measures of the same rows.

    Each resample draws the rows with replacement as multinomial counts,
    which multiply the sample weights, and every measure is computed with
    those weights (for skcal's measures, integer weights are repeated rows).

    Parameters
    ----------
    score : callable
        ``score(name, weights)``: the measure ``name`` with sample weights.
    estimates : dict
        ``{name: value on the rows}``; its keys are the measures.
    n_samples : int
        The number of rows.
    n_bootstrap : int
        The number of resamples.
    confidence_level : float
        The level of the intervals.
    rng : numpy.random.RandomState
        The source of the resamples.
    sample_weight : ndarray of shape (n_samples,) or None
        The rows' own weights.

    Returns
    -------
    intervals : dict
        ``{name: (low, high)}``.
    """
    draws = {name: np.empty(n_bootstrap) for name in estimates}
    uniform = np.full(n_samples, 1.0 / n_samples)
    for b in range(n_bootstrap):
        weights = rng.multinomial(n_samples, uniform).astype(np.float64)
        if sample_weight is not None:
            weights *= sample_weight
        for name in estimates:
            # A resample of zero-weight rows only has no value.
            draws[name][b] = score(name, weights) if weights.any() else math.nan
    return {
        name: bias_corrected_interval(draws[name], estimate, confidence_level)
        for name, estimate in estimates.items()
    }


# Atom counts are drawn as a multinomial (O(atoms)) when there are at least
# this many rows per atom, and by drawing rows (O(rows)) otherwise.
_ROWS_PER_ATOM = 8


class Atoms:
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

    Attributes
    ----------
    key : ndarray of shape (n_atoms,)
        The key of each atom.
    weight : ndarray of shape (n_atoms,)
        The weight of each of its rows.
    inverse : ndarray of shape (n_samples,)
        The atom of each row.
    """

    def __init__(self, key, sample_weight):
        key = np.asarray(key, dtype=np.int64)
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
        self.n_samples = key.shape[0]
        self._p = self.n_rows / float(self.n_samples)

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


def percentile_band(draws, confidence_level):
    """Lower and upper percentiles of the finite draws, column by column.

    ``numpy.nanpercentile`` with linear interpolation, vectorised over the
    columns of a 2-D array (a 1-D array is one column); NaN where a column
    has no finite draw.

    Returns
    -------
    low, high : ndarray of shape (n_columns,), or float for 1-D draws
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
