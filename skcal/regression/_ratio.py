"""The squared error of the mean against the predicted variance."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math

from sklearn.utils import Bunch

from skcal._docstrings import REGRESSION_DOC, fill_doc_from
from skcal._param_validation import validate_params
from skcal._typing import ArrayLike
from skcal.regression._scores import standardized_errors, weighted_mean
from skcal.regression._validation import GAUSSIAN_CONSTRAINTS, check_gaussian_inputs


@validate_params(GAUSSIAN_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc_from(REGRESSION_DOC)
def error_variance_ratio(
    y_true: ArrayLike,
    y_mean: ArrayLike,
    y_std: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> Bunch:
    r"""Mean and spread of the squared errors over the predicted variances.

    The ratios :math:`r_i = (\mu_i - y_i)^2 / \sigma_i^2` have mean 1 when
    the predicted variances are the conditional variances of the errors:
    a mean above 1 shows over-confident (too small) variances, below 1
    under-confident ones. Gruber and Buettner [1]_ report this diagnostic
    (their Table 2) before and after recalibrating the variances; their
    "±" is the variance of the ratios, given here as ``variance``.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    %(y_mean)s
    %(y_std)s
    %(sample_weight)s

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With the fields ``mean`` (the weighted mean of the ratios),
        ``variance`` and ``std`` (their weighted variance and standard
        deviation, dividing by the total weight).

    See Also
    --------
    dawid_sebastiani_score : The proper score of the same two moments.
    VarianceRecalibrator : Rescales the variances so that the mean is 1.

    References
    ----------
    .. [1] S. G. Gruber and F. Buettner, "Better Uncertainty Calibration
       via Proper Scores for Classification and Beyond", NeurIPS 2022,
       arXiv:2203.07835.

    Examples
    --------
    >>> from skcal.regression import error_variance_ratio
    >>> result = error_variance_ratio([1.0, -1.0, 3.0], [0.0, 0.0, 0.0],
    ...                               [1.0, 1.0, 1.0])
    >>> round(result.mean, 4), round(result.variance, 4)
    (3.6667, 14.2222)
    """
    data = check_gaussian_inputs(y_true, y_mean, y_std, sample_weight)
    ratio = standardized_errors(data) ** 2
    mean = float(weighted_mean(ratio, data.sample_weight))
    variance = float(weighted_mean((ratio - mean) ** 2, data.sample_weight))
    return Bunch(mean=mean, variance=variance, std=math.sqrt(variance))
