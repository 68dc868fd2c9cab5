"""Mean replacement: the calibration accuracy as every confidence."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from skcal._docstrings import fill_doc
from skcal._typing import ArrayLike
from skcal._utils._scaling import normalized_weights
from skcal.calibration._base import BaseRecalibrator, top_label


@fill_doc
class MeanReplacementRecalibrator(BaseRecalibrator):
    r"""Replace every confidence by the calibration-set accuracy (a negative control).

    The mean-replacement recalibration of Chidambaram and Ge (2024, Section
    3): the predicted class is unchanged and gets probability :math:`\hat a`,
    the (weighted) accuracy of the classifier on the calibration set; the
    :math:`K - 1` other classes share the rest equally:

    .. math::

        \hat p_{\hat y} = \hat a, \qquad
        \hat p_j = \frac{1 - \hat a}{K - 1} \quad (j \ne \hat y).

    **It is a baseline to show what calibration errors miss, not a method to
    use.** Its top-label calibration error on new data is
    :math:`|A_{\mathrm{test}} - \hat a|`, of order :math:`n^{-1/2}`, but
    proper scores (log loss, Brier score) expose it.

    Read more in the :ref:`User Guide <mean_replacement>`.

    Parameters
    ----------
    estimator : fitted classifier or None, default=None
        The classifier whose predictions are kept; it is never refitted
        (wrap it in :class:`sklearn.frozen.FrozenEstimator` to keep it fitted
        through :func:`~sklearn.base.clone`). With None, ``X`` is the score
        array itself, and the predicted class is its largest score.
    input : {"auto", "probability", "logit"}, default="auto"
        The kind of scores. Only which class scores highest matters here;
        the parameter is kept so that every recalibrator takes the same
        inputs.
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    confidence_ : float
        :math:`\hat a`, the calibration-set accuracy.
    input_ : {"probability", "logit"}
        The kind of scores seen at fit.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    TemperatureRecalibrator : Also keeps the predicted class, and is
        recommended instead.
    skcal.metrics.calibration_decomposition : Its sharpness term shows the
        loss of information.

    Notes
    -----
    :meth:`predict` returns the wrapped classifier's ``predict`` (or the class
    of largest score), as the paper defines the method. When
    :math:`\hat a < 1/K` the other classes get more than the predicted one,
    so the argmax of :meth:`predict_proba` then differs from :meth:`predict`.
    With :math:`\hat a = 1` the other classes get probability 0, and every
    error has an infinite log loss.

    References
    ----------
    .. [1] M. Chidambaram and R. Ge, "Reassessing how to compare and improve
       the calibration of machine learning models", arXiv:2406.04068.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import MeanReplacementRecalibrator
    >>> proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.4, 0.6]])
    >>> y = np.array([0, 1, 1, 1])
    >>> recal = MeanReplacementRecalibrator().fit(proba, y)
    >>> recal.confidence_
    0.75
    >>> recal.predict_proba([[0.99, 0.01], [0.45, 0.55]]).tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    """

    def __init__(
        self,
        estimator: Any = None,
        *,
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.input = input
        self.response_method = response_method
        self.classes = classes

    def _predicted_columns(self, X, scores):
        """Column of the predicted class: the classifier's ``predict``, if any."""
        if self.estimator is None:
            return top_label(scores)
        predicted = np.asarray(self.estimator.predict(X))
        order = np.argsort(self.classes_)
        return order[np.searchsorted(self.classes_, predicted, sorter=order)]

    def _fit_scores(self, X, scores, y, sample_weight):
        predicted = self._predicted_columns(X, scores)
        self.confidence_ = float(
            np.average(predicted == y, weights=normalized_weights(sample_weight))
        )

    def _predict_proba_scores(self, X, scores):
        return self._proba(self._predicted_columns(X, scores))

    def _proba(self, predicted):
        n_classes = self.classes_.shape[0]
        proba = np.full(
            (predicted.shape[0], n_classes), (1.0 - self.confidence_) / (n_classes - 1)
        )
        proba[np.arange(predicted.shape[0]), predicted] = self.confidence_
        return proba

    def predict(self, X):
        """The wrapped classifier's prediction, unchanged.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples,)
            Scores (``estimator=None``) or samples for the wrapped classifier.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        scores = self._scores(X)
        return self.classes_[self._predicted_columns(X, scores)]
