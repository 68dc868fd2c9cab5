"""Bootstrap intervals shared by the cross-validation report and the diagrams."""

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
