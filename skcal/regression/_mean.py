"""Calibration of a predicted mean: the CORP decomposition of its squared
error and its isotonic reliability curve."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import numpy as np
from sklearn.isotonic import isotonic_regression
from sklearn.utils import Bunch

from skcal._docstrings import REGRESSION_DOC, fill_doc_from
from skcal._param_validation import validate_params
from skcal._typing import ArrayLike
from skcal._utils._scaling import drop_zero_weight, normalized_weights
from skcal._utils._ties import Ties
from skcal._validation import _check_consistent_samples, _readonly, check_sample_weight
from skcal.metrics._decomposition import Grouped, binary_terms
from skcal.regression._scores import weighted_mean
from skcal.regression._validation import check_regression_target

_MEAN_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_pred": ["array-like"],
    "sample_weight": ["array-like", None],
}


def check_mean_inputs(y_true, y_pred, sample_weight):
    """Finite targets and predicted means of one length, and the weights."""
    y = check_regression_target(y_true, "y_true")
    pred = check_regression_target(y_pred, "y_pred")
    _check_consistent_samples(y_true=y, y_pred=pred)
    weight = check_sample_weight(sample_weight, y.shape[0])
    return _readonly(y), _readonly(pred), _readonly(weight)


def _grouped_by_prediction(y, pred, sample_weight):
    """The rows of positive weight grouped by equal predicted means."""
    sample_weight, y, pred = drop_zero_weight(sample_weight, y, pred)
    if sample_weight is None:
        order = np.argsort(pred, kind="stable")
        y, pred = y[order], pred[order]
        return Grouped(y, pred, None, Ties(pred, presorted=True))
    sample_weight = normalized_weights(sample_weight)
    return Grouped(y, pred, sample_weight, Ties(pred, sample_weight))


@validate_params(_MEAN_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc_from(REGRESSION_DOC)
def mean_calibration_decomposition(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> Bunch:
    r"""Decompose the squared error of predicted means (CORP, isotonic).

    The mean squared error :math:`\bar S(x)` of the predicted means
    :math:`x_i` splits as

    .. math::

        \bar S(x) = \underbrace{\bar S(x) - \bar S(\hat x)}_{\text{MCB}}
        - \underbrace{(\bar S(\bar y) - \bar S(\hat x))}_{\text{DSC}}
        + \underbrace{\bar S(\bar y)}_{\text{UNC}},

    where :math:`\hat x` is the isotonic regression of the outcomes on the
    predictions (equal predictions recalibrated alike) and :math:`\bar y`
    the mean outcome. Miscalibration (MCB) is what the score loses to a
    monotone recalibration of the mean, discrimination (DSC) what the
    recalibrated predictions gain over the constant, and uncertainty (UNC)
    the outcomes' variance. This is the CORP decomposition of Dimitriadis,
    Gneiting and Jordan [1]_, generalised to real outcomes by Gneiting and
    Resin [2]_, as ``model_diagnostics.scoring.decompose`` computes it for
    the mean; Gruber and Buettner's generalised decomposition (their Lemma
    4.1) with the squared error. MCB and DSC are non-negative, and MCB is 0
    when the mean is auto-calibrated.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    y_pred : array-like of shape (n_samples,)
        The predicted means.
    %(sample_weight)s

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With the fields ``score`` (the mean squared error),
        ``miscalibration``, ``discrimination`` and ``uncertainty``;
        ``score == miscalibration - discrimination + uncertainty``.

    See Also
    --------
    mean_reliability_curve : The recalibrated means it compares with.
    skcal.metrics.calibration_decomposition : The same for probabilities.

    References
    ----------
    .. [1] T. Dimitriadis, T. Gneiting and A. I. Jordan, "Stable
       reliability diagrams for probabilistic classifiers", PNAS 118(8),
       2021.
    .. [2] T. Gneiting and J. Resin, "Regression diagnostics meets forecast
       evaluation: conditional calibration, reliability diagrams, and
       coefficient of determination", Electronic Journal of Statistics
       17(2), 2023.

    Examples
    --------
    >>> from skcal.regression import mean_calibration_decomposition
    >>> result = mean_calibration_decomposition([1.0, 2.0, 3.0, 5.0],
    ...                                         [2.0, 2.0, 4.0, 4.0])
    >>> result.score, result.miscalibration, result.discrimination
    (0.75, 0.125, 1.5625)
    >>> result.uncertainty
    2.1875
    """
    return decomposition_of(mean_view(y_true, y_pred, sample_weight))


def mean_view(y_true, y_pred, sample_weight):
    """The validated rows grouped by predicted mean, for the curve and terms."""
    return _grouped_by_prediction(*check_mean_inputs(y_true, y_pred, sample_weight))


def decomposition_of(view):
    """The terms of :func:`mean_calibration_decomposition` of a :func:`mean_view`."""
    mean = weighted_mean(view.y, view.weight)
    variance = float(weighted_mean((view.y - mean) ** 2, view.weight))
    terms = binary_terms(view, "brier", "isotonic", uncertainty=variance)
    return Bunch(
        **dict(
            zip(
                ("score", "miscalibration", "discrimination", "uncertainty"),
                terms.tolist(),
                strict=True,
            )
        )
    )


@validate_params(_MEAN_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc_from(REGRESSION_DOC)
def mean_reliability_curve(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""The isotonic (CORP) reliability curve of predicted means.

    At each distinct predicted mean :math:`x`, the recalibrated mean
    :math:`\hat x` is the isotonic regression of the outcomes on the
    predictions: the non-decreasing function closest to the outcomes in
    (weighted) squared error, constant on equal predictions. A calibrated
    mean lies on the diagonal; the weighted mean squared gap between the
    curve and the diagonal bounds the miscalibration term of
    :func:`mean_calibration_decomposition` from below (they are equal when
    the isotonic fit pools no distinct predictions).

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    y_pred : array-like of shape (n_samples,)
        The predicted means.
    %(sample_weight)s

    Returns
    -------
    predicted : ndarray of shape (n_distinct,)
        The distinct predicted means (of positive weight), increasing.
    recalibrated : ndarray of shape (n_distinct,)
        The isotonic fit of the outcomes at each, non-decreasing.

    See Also
    --------
    mean_calibration_decomposition : The terms this curve gives.
    skcal.plotting.MeanReliabilityDisplay : Draws it.

    Examples
    --------
    >>> from skcal.regression import mean_reliability_curve
    >>> predicted, recalibrated = mean_reliability_curve(
    ...     [1.0, 2.0, 3.0, 5.0], [2.0, 2.0, 4.0, 4.0])
    >>> predicted.tolist(), recalibrated.tolist()
    ([2.0, 4.0], [1.5, 4.0])
    """
    return curve_of(mean_view(y_true, y_pred, sample_weight))


def curve_of(view):
    """The curve of :func:`mean_reliability_curve` of a :func:`mean_view`."""
    groups = view.groups
    sums = groups.group_sums(view.y) if view.weight is None else groups.sum(view.y)
    rate = sums / groups.weight
    return groups.values.copy(), isotonic_regression(rate, sample_weight=groups.weight)
