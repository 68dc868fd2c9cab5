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
