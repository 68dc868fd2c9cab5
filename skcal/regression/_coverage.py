"""Quantile calibration: how often outcomes fall below predicted quantiles."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from skcal._docstrings import REGRESSION_DOC, fill_doc_from
from skcal._param_validation import StrOptions, validate_params
from skcal._typing import ArrayLike
from skcal.regression._scores import weighted_mean
from skcal.regression._validation import QUANTILE_CONSTRAINTS, check_quantile_inputs


def coverage_of(data):
    """Observed coverage of each level of validated quantile data."""
    below = data.y_true[:, None] <= data.y_quantiles
    if data.sample_weight is None:
        return np.count_nonzero(below, axis=0) / below.shape[0]
    # The weight below over the total, each summed in its own order, may
    # round above 1 when every outcome is below.
    return np.minimum(weighted_mean(below, data.sample_weight), 1.0)


def coverage_error(coverage, quantiles, norm):
    """The ``norm`` of the gaps between observed and nominal coverage."""
    gap = np.abs(coverage - quantiles)
    if norm == "l1":
        return float(gap.mean())
    if norm == "l2":
        return math.sqrt(float(np.mean(gap**2)))
    return float(gap.max())


@validate_params(QUANTILE_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc_from(REGRESSION_DOC)
def quantile_coverage(
    y_true: ArrayLike,
    y_quantiles: ArrayLike,
    *,
    quantiles: ArrayLike,
    sample_weight: ArrayLike | None = None,
) -> np.ndarray:
    r"""Observed coverage of predicted quantiles at each nominal level.

    For the level :math:`\tau_j` and predicted quantiles :math:`q_{ij}`,
    the observed coverage is the (weighted) share of samples with
    :math:`y_i \le q_{ij}`. Predictions are quantile calibrated when it is
    :math:`\tau_j` at every level (Kuleshov, Fenner and Ermon, 2018); a
    coverage below the nominal level at high levels and above it at low
    levels shows intervals that are too narrow.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    %(y_quantiles)s
    %(quantiles)s
    %(sample_weight)s

    Returns
    -------
    coverage : ndarray of shape (n_quantiles,)
        The observed coverage of each level, in [0, 1].

    See Also
    --------
    quantile_calibration_error : The gaps as one number.
    skcal.plotting.QuantileReliabilityDisplay : Coverage against level.

    Examples
    --------
    >>> from skcal.regression import quantile_coverage
    >>> y_quantiles = [[-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0]]
    >>> quantile_coverage([-2.0, 0.0, 0.5, 2.0], y_quantiles,
    ...                   quantiles=[0.1, 0.9]).tolist()
    [0.25, 0.75]
    """
    data = check_quantile_inputs(y_true, y_quantiles, quantiles, sample_weight)
    return coverage_of(data)


@validate_params(
    {**QUANTILE_CONSTRAINTS, "norm": [StrOptions({"l1", "l2", "max"})]},
    prefer_skip_nested_validation=True,
)
@fill_doc_from(REGRESSION_DOC)
def quantile_calibration_error(
    y_true: ArrayLike,
    y_quantiles: ArrayLike,
    *,
    quantiles: ArrayLike,
    sample_weight: ArrayLike | None = None,
    norm: Literal["l1", "l2", "max"] = "l1",
) -> float:
    r"""Gap between the observed and the nominal coverage of predicted quantiles.

    With :math:`\hat c_j` the observed coverage of level :math:`\tau_j`
    (:func:`quantile_coverage`) and :math:`m` levels, the error is
    :math:`\frac1m \sum_j |\hat c_j - \tau_j|` (``"l1"``),
    :math:`(\frac1m \sum_j (\hat c_j - \tau_j)^2)^{1/2}` (``"l2"``, the
    square root of the calibration error of Kuleshov, Fenner and Ermon
    [1]_ with equal weights) or :math:`\max_j |\hat c_j - \tau_j|`
    (``"max"``). It is 0 for quantile-calibrated predictions; like any
    calibration error it does not reward sharp (narrow) quantiles: the
    pinball loss does.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    %(y_quantiles)s
    %(quantiles)s
    %(sample_weight)s
    norm : {"l1", "l2", "max"}, default="l1"
        How the gaps of the levels are combined.

    Returns
    -------
    error : float
        In [0, 1]; lower is better.

    See Also
    --------
    quantile_coverage : The coverage of each level.
    pinball_loss : The proper score of the same quantiles.
    pit_calibration_error : The same idea over every level, for Gaussian
        predictions.

    References
    ----------
    .. [1] V. Kuleshov, N. Fenner and S. Ermon, "Accurate uncertainties for
       deep learning using calibrated regression", ICML 2018,
       arXiv:1807.00263.

    Examples
    --------
    >>> from skcal.regression import quantile_calibration_error
    >>> y_quantiles = [[-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0]]
    >>> error = quantile_calibration_error([-2.0, 0.0, 0.5, 2.0], y_quantiles,
    ...                                    quantiles=[0.1, 0.9])
    >>> round(error, 4)
    0.15
    """
    data = check_quantile_inputs(y_true, y_quantiles, quantiles, sample_weight)
    return coverage_error(coverage_of(data), data.quantiles, norm)
