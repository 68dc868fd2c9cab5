"""Proper scores of probabilistic regression: Gaussian predictions and quantiles.

Every score here is negatively oriented (lower is better) and is the
weighted mean of a per-sample score. The Dawid-Sebastiani score is the one
of Gruber and Buettner's variance recalibration; the Gaussian log loss and
the CRPS are the scores of a whole Gaussian predictive distribution; the
pinball loss is the score of a set of predicted quantiles.
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from scipy.special import erf

from skcal._docstrings import REGRESSION_DOC, fill_doc_from
from skcal._param_validation import StrOptions, validate_params
from skcal._typing import ArrayLike
from skcal._utils._scaling import normalized_weights
from skcal.regression._validation import (
    GAUSSIAN_CONSTRAINTS,
    QUANTILE_CONSTRAINTS,
    check_gaussian_inputs,
    check_quantile_inputs,
)

_LOG_2PI = math.log(2.0 * math.pi)
_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_HALF = math.sqrt(0.5)


def weighted_mean(values, sample_weight):
    """The mean of ``values`` over the samples (axis 0) under weights (None: equal).

    A matrix-vector product, without a weighted copy of ``values``.
    """
    if sample_weight is None:
        return values.mean(axis=0)
    weight = normalized_weights(sample_weight)
    return (weight @ values) / weight.sum()


def standardized_errors(data):
    """``(y - mean) / std`` of validated Gaussian data."""
    return (data.y_true - data.y_mean) / data.y_std


def dawid_sebastiani_terms(z, y_std):
    """Per-sample Dawid-Sebastiani scores ``z**2 + 2 log(std)``."""
    return z * z + 2.0 * np.log(y_std)


def crps_terms(residual, y_std):
    """Per-sample CRPS of Gaussian predictions, in the target's units.

    ``residual * (2 Phi(z) - 1) + std * (2 phi(z) - 1/sqrt(pi))`` with
    ``z = residual / std``: the closed form with ``std * z`` written as the
    residual, so that a tiny ``std`` (``z`` overflowing to infinity) gives
    the absolute error. ``2 Phi(z) - 1`` is ``erf(z / sqrt(2))``, without
    the cancellation near 0; two arrays are computed in place.
    """
    with np.errstate(over="ignore"):
        z = residual / y_std
        spread = np.multiply(z, z)
    spread *= -0.5
    np.exp(spread, out=spread)
    spread *= 2.0 * _INV_SQRT_2PI
    spread -= _INV_SQRT_PI
    spread *= y_std
    z *= _SQRT_HALF
    erf(z, out=z)
    z *= residual
    z += spread
    return z


def mean_pinball_losses(y, q, levels, sample_weight):
    """The (weighted) mean pinball loss of each level, shape ``(n_levels,)``.

    :math:`\\max(\\tau d, (\\tau - 1) d)` for :math:`d = y - q` is
    :math:`d` times :math:`\\tau` or :math:`\\tau - 1` by its sign: one
    product per entry, exact to rounding at every level (the shorter
    :math:`\\tau \\bar d - \\overline{\\min(d, 0)}` loses digits as
    :math:`\\tau` nears 0 or 1), in two ``(n, n_levels)`` arrays.
    """
    with np.errstate(over="ignore"):  # an infinite distance is an infinite loss
        diff = y[:, None] - q
        diff *= np.where(diff < 0.0, levels - 1.0, levels)
    return weighted_mean(diff, sample_weight)


@validate_params(GAUSSIAN_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc_from(REGRESSION_DOC)
def dawid_sebastiani_score(
    y_true: ArrayLike,
    y_mean: ArrayLike,
    y_std: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> float:
    r"""Dawid-Sebastiani score of mean-and-variance predictions.

    The score of a prediction with mean :math:`\mu` and standard deviation
    :math:`\sigma` for an outcome :math:`y` is

    .. math::

        \mathrm{DSS}(\mu, \sigma^2; y) = \frac{(y - \mu)^2}{\sigma^2}
        + \log \sigma^2,

    averaged over the samples (with weights). It is proper for every
    distribution with a finite variance and depends on its first two
    moments only; for a Gaussian prediction it is
    :math:`2\,\mathrm{NLL} - \log 2\pi`. Gruber and Buettner [1]_ (their
    section 5) measure the recalibration of predicted variances with it:
    its divergence is a calibration error of mean-variance regression, and
    for an injective recalibration map its change equals the change of that
    calibration error. It has no lower bound, so its differences, not its
    values, are comparable across data.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    %(y_mean)s
    %(y_std)s
    %(sample_weight)s

    Returns
    -------
    score : float
        The weighted mean score; lower is better.

    See Also
    --------
    gaussian_log_loss : The negative log-likelihood of a Gaussian prediction.
    error_variance_ratio : Squared errors against predicted variances.
    VarianceRecalibrator : Fits predicted variances by this score.

    References
    ----------
    .. [1] S. G. Gruber and F. Buettner, "Better Uncertainty Calibration
       via Proper Scores for Classification and Beyond", NeurIPS 2022,
       arXiv:2203.07835.
    .. [2] A. P. Dawid and P. Sebastiani, "Coherent dispersion criteria for
       optimal experimental design", Annals of Statistics 27(1), 1999.

    Examples
    --------
    >>> from skcal.regression import dawid_sebastiani_score
    >>> round(dawid_sebastiani_score([0.0, 2.0], [0.0, 0.0], [1.0, 2.0]), 4)
    1.1931
    """
    data = check_gaussian_inputs(y_true, y_mean, y_std, sample_weight)
    terms = dawid_sebastiani_terms(standardized_errors(data), data.y_std)
    return float(weighted_mean(terms, data.sample_weight))


@validate_params(GAUSSIAN_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc_from(REGRESSION_DOC)
def gaussian_log_loss(
    y_true: ArrayLike,
    y_mean: ArrayLike,
    y_std: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> float:
    r"""Negative log-likelihood of Gaussian predictions.

    .. math::

        \mathrm{NLL}(\mu, \sigma; y) = \frac{1}{2} \log (2\pi\sigma^2)
        + \frac{(y - \mu)^2}{2\sigma^2},

    averaged over the samples (with weights): the logarithmic score of the
    predictive density :math:`\mathcal N(\mu, \sigma^2)`, strictly proper
    for Gaussian predictions. It equals
    :math:`(\mathrm{DSS} + \log 2\pi) / 2`, so the two rank predictions
    alike.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    %(y_mean)s
    %(y_std)s
    %(sample_weight)s

    Returns
    -------
    loss : float
        The weighted mean negative log-likelihood (nats); lower is better.

    See Also
    --------
    dawid_sebastiani_score : The same ranking from the first two moments.
    gaussian_crps : A score in the target's units.

    Examples
    --------
    >>> from skcal.regression import gaussian_log_loss
    >>> round(gaussian_log_loss([0.0], [0.0], [1.0]), 4)
    0.9189
    """
    data = check_gaussian_inputs(y_true, y_mean, y_std, sample_weight)
    terms = dawid_sebastiani_terms(standardized_errors(data), data.y_std)
    return float(0.5 * (weighted_mean(terms, data.sample_weight) + _LOG_2PI))


@validate_params(GAUSSIAN_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc_from(REGRESSION_DOC)
def gaussian_crps(
    y_true: ArrayLike,
    y_mean: ArrayLike,
    y_std: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> float:
    r"""Score Gaussian predictions by the continuous ranked probability score.

    The CRPS of a predictive distribution function :math:`F` is
    :math:`\int (F(t) - \mathbb 1\{y \le t\})^2 \, dt`; for
    :math:`F = \mathcal N(\mu, \sigma^2)` and :math:`z = (y - \mu)/\sigma`
    it has the closed form of Gneiting et al. [1]_

    .. math::

        \mathrm{CRPS} = \sigma \left( z\,(2\Phi(z) - 1) + 2\varphi(z)
        - \frac{1}{\sqrt\pi} \right),

    averaged over the samples (with weights). It is strictly proper, in the
    target's units, and equals the absolute error when :math:`\sigma \to 0`.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    %(y_mean)s
    %(y_std)s
    %(sample_weight)s

    Returns
    -------
    score : float
        The weighted mean CRPS; lower is better.

    See Also
    --------
    gaussian_log_loss : The logarithmic score.
    pinball_loss : The score of predicted quantiles.

    References
    ----------
    .. [1] T. Gneiting, A. E. Raftery, A. H. Westveld and T. Goldman,
       "Calibrated probabilistic forecasting using ensemble model output
       statistics and minimum CRPS estimation", Monthly Weather Review
       133(5), 2005.

    Examples
    --------
    >>> from skcal.regression import gaussian_crps
    >>> round(gaussian_crps([0.0], [0.0], [1.0]), 4)
    0.2337
    """
    data = check_gaussian_inputs(y_true, y_mean, y_std, sample_weight)
    terms = crps_terms(data.y_true - data.y_mean, data.y_std)
    return float(weighted_mean(terms, data.sample_weight))


@validate_params(
    {
        **QUANTILE_CONSTRAINTS,
        "multioutput": [StrOptions({"raw_values", "uniform_average"})],
    },
    prefer_skip_nested_validation=True,
)
@fill_doc_from(REGRESSION_DOC)
def pinball_loss(
    y_true: ArrayLike,
    y_quantiles: ArrayLike,
    *,
    quantiles: ArrayLike,
    sample_weight: ArrayLike | None = None,
    multioutput: Literal["raw_values", "uniform_average"] = "uniform_average",
) -> float | np.ndarray:
    r"""Pinball (quantile) loss of predicted quantiles at several levels.

    For a level :math:`\tau` and a predicted quantile :math:`q`,

    .. math::

        L_\tau(q; y) = \max\big(\tau (y - q),\; (\tau - 1)(y - q)\big),

    the score for which the :math:`\tau`-quantile is the best prediction.
    Each level's loss is averaged over the samples (with weights), as
    :func:`sklearn.metrics.mean_pinball_loss` does for one level; the
    levels are then averaged. Twice the average over many evenly spread
    levels approaches the CRPS of the distribution the quantiles describe.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    %(y_quantiles)s
    %(quantiles)s
    %(sample_weight)s
    multioutput : {"uniform_average", "raw_values"}, default="uniform_average"
        ``"raw_values"`` returns each level's loss.

    Returns
    -------
    loss : float or ndarray of shape (n_quantiles,)
        The mean loss over the levels, or each level's; lower is better.

    See Also
    --------
    quantile_calibration_error : Coverage of the same quantiles.
    sklearn.metrics.mean_pinball_loss : One level.

    Examples
    --------
    >>> from skcal.regression import pinball_loss
    >>> y_quantiles = [[-1.0, 0.0, 1.0], [0.0, 1.0, 2.0]]
    >>> pinball_loss([0.5, 0.5], y_quantiles, quantiles=[0.1, 0.5, 0.9],
    ...              multioutput="raw_values").round(4).tolist()
    [0.1, 0.25, 0.1]
    """
    data = check_quantile_inputs(y_true, y_quantiles, quantiles, sample_weight)
    per_level = mean_pinball_losses(
        data.y_true, data.y_quantiles, data.quantiles, data.sample_weight
    )
    if multioutput == "raw_values":
        return per_level
    return float(per_level.mean())
