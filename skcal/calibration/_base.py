"""What every recalibrator shares: scores in, calibrated probabilities out.

A recalibrator learns a map from a classifier's scores to probabilities. Its
scores come either from ``X`` itself (``estimator=None``: ``X`` is a score
array, so a recalibrator can follow a score-producing step) or from a fitted
classifier applied to ``X`` (which is never refitted). This module holds, once:

* where the scores come from and what kind they are (:class:`BaseRecalibrator`);
* the features a map reads: probabilities, or log-odds with probabilities
  clipped to ``[_CLIP, 1 - _CLIP]`` so that a map on logits stays finite on
  probabilities of exactly 0 or 1 (:func:`score_probabilities`,
  :func:`score_logits`);
* how a map that is binary at heart serves a multiclass problem, one-vs-rest or
  top-label (:class:`BinaryMapRecalibrator`).
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from typing import Any, Literal

import numpy as np
from scipy.special import expit, log_softmax, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from skcal._param_validation import HasMethods, StrOptions, fit_context
from skcal._typing import ArrayLike
from skcal._validation import (
    check_classes,
    check_fitted_classifier,
    check_recalibration_target,
    check_recalibration_weights,
    check_score_features,
    check_scores,
)

# Probabilities are clipped to [_CLIP, 1 - _CLIP] before a logarithm, so that
# log-odds stay within +-27.6.
_CLIP = 1e-12

# Top-label rows: the other classes are capped at c * (1 - _TIE_MARGIN), just
# below the top class's c, so that the top class stays the first argmax.
_TIE_MARGIN = 1e-12

RESPONSE_METHODS = ("auto", "decision_function", "predict_proba")


def response_method_name(estimator, response_method):
    """The method of ``estimator`` that gives its scores.

    ``"auto"`` is ``decision_function`` when the estimator has one, else
    ``predict_proba``.
    """
    if response_method == "auto":
        if hasattr(estimator, "decision_function"):
            return "decision_function"
        return "predict_proba"
    if not hasattr(estimator, response_method):
        raise ValueError(
            f"response_method={response_method!r} but {type(estimator).__name__} "
            f"has no {response_method} method."
        )
    return response_method


def classifier_scores(estimator, X, response_method):
    """Scores of a fitted classifier on ``X`` and their kind.

    Returns
    -------
    scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
    kind : {"probability", "logit"}
        ``"probability"`` for ``predict_proba``, ``"logit"`` for
        ``decision_function``.
    """
    name = response_method_name(estimator, response_method)
    kind = "probability" if name == "predict_proba" else "logit"
    return getattr(estimator, name)(X), kind


def _clipped(p):
    return np.clip(p, _CLIP, 1.0 - _CLIP)


def score_probabilities(scores):
    """Probabilities of validated scores: logistic or softmax of logits."""
    if scores.kind == "probability":
        return scores.values
    if scores.values.ndim == 1:
        return expit(scores.values)
    return softmax(scores.values, axis=1)


def score_logits(scores):
    """Log-odds of validated scores, one per class (or one for a binary problem).

    Probabilities become ``log(p / (1 - p))`` after clipping; unbounded scores
    are returned as they are (a decision value per class, as scikit-learn's
    one-vs-rest calibration uses it).
    """
    if scores.kind == "logit":
        return scores.values
    p = _clipped(scores.values)
    return np.log(p) - np.log1p(-p)


def score_log_probabilities(scores):
    """An ``(n_samples, n_classes)`` matrix of logits whose softmax is the prediction.

    Probabilities give their (clipped) logarithms; binary scores give the
    columns ``(0, z)`` with ``z`` the log-odds of the positive class.
    """
    values = scores.values
    if values.ndim == 1:
        z = score_logits(scores)
        return np.column_stack([np.zeros_like(z), z])
    if scores.kind == "logit":
        return values
    return np.log(_clipped(values))


def top_label(scores):
    """Column of the largest score of each row (ties to the first column)."""
    if scores.values.ndim == 1:
        threshold = 0.5 if scores.kind == "probability" else 0.0
        return (scores.values > threshold).astype(np.intp)
    return np.argmax(scores.values, axis=1)


class ArgmaxPredictMixin:
    """``predict``: the class of largest probability, of any probabilistic model."""

    def predict(self, X):
        """The class of largest calibrated probability (ties to the first class).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples,)
            The input of :meth:`predict_proba`.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class BaseRecalibrator(
    ArgmaxPredictMixin,
    ClassifierMixin,
    TransformerMixin,
    BaseEstimator,
    metaclass=ABCMeta,
):
    """Base class of recalibrators: scores from ``X`` or from a fitted classifier.

    Subclasses define ``__init__`` (with ``estimator``, ``input``,
    ``response_method`` and ``classes`` among their parameters), ``_fit_scores`` and
    ``_predict_proba_scores``; this class does the rest (validation, classes,
    feature bookkeeping, ``predict``, ``transform``, tags).
    """

    _parameter_constraints: dict = {
        "estimator": [
            HasMethods(["predict_proba"]),
            HasMethods(["decision_function"]),
            None,
        ],
        "input": [StrOptions({"auto", "probability", "logit"})],
        "response_method": [StrOptions(set(RESPONSE_METHODS))],
        "classes": ["array-like", None],
    }

    # --- to be defined by subclasses -----------------------------------------

    @abstractmethod
    def _fit_scores(self, X, scores, y, sample_weight):
        """Learn the map from validated scores to the column indices ``y``."""

    @abstractmethod
    def _predict_proba_scores(self, X, scores):
        """Calibrated probabilities, ``(n_samples, n_classes)``, of validated scores."""

    @classmethod
    def _ensemble_proba(cls, recalibrators, X):
        """Probabilities of fitted recalibrators of this class, combined: their mean.

        :class:`RecalibratedClassifierCV` combines its folds with it; a method
        with a rule of its own (cross Venn-Abers) overrides it.
        """
        return sum(r.predict_proba(X) for r in recalibrators) / len(recalibrators)

    # --- shared machinery ----------------------------------------------------

    def _raw_scores(self, X, *, reset):
        """Scores of ``X`` before validation, and their kind if it is known."""
        if self.estimator is None:
            return check_score_features(self, X, reset=reset), None
        return classifier_scores(self.estimator, X, self.response_method)

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the recalibration map on a calibration set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples,)
            With ``estimator=None``, the scores themselves: one column for a
            binary problem, or one column per class (probabilities or
            logits). Otherwise, the samples the wrapped classifier scores.
        y : array-like of shape (n_samples,)
            The true labels of the calibration set.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None weighs every sample equally.

        Returns
        -------
        self : object
            The fitted recalibrator.
        """
        classes = None if self.classes is None else check_classes(self.classes)
        if self.estimator is not None:
            if classes is not None:
                raise ValueError(
                    "classes is for estimator=None: the classes of a wrapped "
                    "classifier are its classes_."
                )
            check_fitted_classifier(self.estimator, type(self).__name__)
            classes = np.asarray(self.estimator.classes_)
            for attr in ("n_features_in_", "feature_names_in_"):
                if hasattr(self.estimator, attr):
                    setattr(self, attr, getattr(self.estimator, attr))
                elif hasattr(self, attr):
                    delattr(self, attr)
        y_index, self.classes_ = check_recalibration_target(y, classes)
        raw, kind = self._raw_scores(X, reset=True)
        if len(raw) != y_index.shape[0]:
            raise ValueError(
                f"X has {len(raw)} samples but y has {y_index.shape[0]} labels."
            )
        input_kind = self.input if self.input != "auto" else kind or "auto"
        scores = check_scores(raw, n_classes=len(self.classes_), input=input_kind)
        self.input_ = scores.kind
        sample_weight = check_recalibration_weights(sample_weight, y_index)
        self._fit_scores(X, scores, y_index, sample_weight)
        return self

    def _scores(self, X):
        """Validated scores of ``X``, of the kind seen at fit."""
        check_is_fitted(self)
        raw, _ = self._raw_scores(X, reset=False)
        return check_scores(raw, n_classes=len(self.classes_), input=self.input_)

    def predict_proba(self, X):
        """Calibrated probabilities of each class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples,)
            Scores (``estimator=None``) or samples for the wrapped classifier.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            One column per class of ``classes_``; rows sum to 1.
        """
        return self._predict_proba_scores(X, self._scores(X))

    def transform(self, X):
        """The calibrated probabilities, as a transformer's output.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples,)
            Scores (``estimator=None``) or samples for the wrapped classifier.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            The same as :meth:`predict_proba`.
        """
        return self.predict_proba(X)

    def get_feature_names_out(self, input_features=None):
        """Get the names of the output columns, ``proba_<class>`` for each class.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Checked against ``feature_names_in_`` (or ``n_features_in_``) when
            given; the output names do not depend on it.

        Returns
        -------
        feature_names_out : ndarray of str objects
            One name per column of :meth:`transform`.
        """
        check_is_fitted(self)
        if input_features is not None:
            input_features = np.asarray(input_features, dtype=object)
            names_in = getattr(self, "feature_names_in_", None)
            if names_in is not None and not np.array_equal(input_features, names_in):
                raise ValueError("input_features is not equal to feature_names_in_.")
            n_in = getattr(self, "n_features_in_", None)
            if n_in is not None and input_features.shape[0] != n_in:
                raise ValueError(
                    f"input_features should have length equal to the number of "
                    f"features ({n_in}), got {input_features.shape[0]}."
                )
        return np.asarray([f"proba_{c}" for c in self.classes_], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self.estimator is not None:
            inner = get_tags(self.estimator).input_tags
            tags.input_tags.sparse = inner.sparse
            tags.input_tags.allow_nan = inner.allow_nan
            tags.input_tags.one_d_array = inner.one_d_array
            tags.input_tags.string = inner.string
            tags.input_tags.categorical = inner.categorical
        return tags


class BinaryMapRecalibrator(BaseRecalibrator):
    """Base class of recalibrators whose map is binary at heart.

    A binary problem gets one map from the positive class's feature to its
    probability. A multiclass problem gets, with ``multiclass="ovr"``, one map
    per class (class against the rest) and rows renormalised to sum to 1
    (uniform where every map gives 0); with ``multiclass="top_label"``, one
    map from the top class's feature to the probability that the top class
    is right (Le Coz et al.'s top-versus-all problem). The top class stays
    the prediction: it gets the map's output clipped to ``[1/K, 1]``, and the
    other classes share the rest as :func:`top_label_proba` does.

    Subclasses set ``_feature`` (``"probability"``, ``"logit"`` or
    ``"natural"``: probabilities for probability inputs and the raw values for
    unbounded ones) and define ``_fit_map(x, y, sample_weight)``, returning
    the fitted map, and ``_apply_map(fitted_map, x)``. The fitted maps are in
    ``calibrators_``. The parameters ``estimator``, ``multiclass``,
    ``input``, ``response_method`` and ``classes`` are set by this class's
    ``__init__``; a subclass with parameters of its own defines its own.
    """

    @abstractmethod
    def _fit_map(self, x, y, sample_weight):
        """Fit one map from the 1-D feature ``x`` to the boolean outcomes ``y``."""

    @abstractmethod
    def _apply_map(self, fitted_map, x):
        """Probabilities that a fitted map gives to the features ``x``."""

    _parameter_constraints: dict = {
        **BaseRecalibrator._parameter_constraints,
        "multiclass": [StrOptions({"ovr", "top_label"})],
    }

    _feature = "natural"

    def __init__(
        self,
        estimator: Any = None,
        *,
        multiclass: Literal["ovr", "top_label"] = "ovr",
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.multiclass = multiclass
        self.input = input
        self.response_method = response_method
        self.classes = classes

    def _features(self, scores):
        """One feature per class (``(n, K)``) or per sample (binary, ``(n,)``)."""
        if self._feature == "probability" or (
            self._feature == "natural" and scores.kind == "probability"
        ):
            return score_probabilities(scores)
        return score_logits(scores)

    def _top_features(self, scores):
        """Top class of each row and the feature of its probability."""
        top = top_label(scores)
        proba = score_probabilities(scores)
        confidence = np.take_along_axis(proba, top[:, None], axis=1)[:, 0]
        if self._feature == "probability" or (
            self._feature == "natural" and scores.kind == "probability"
        ):
            return top, confidence, proba
        if scores.kind == "logit":
            # log p - log(1 - p) of the softmax maximum, without cancellation.
            log_p = log_softmax(scores.values, axis=1)
            top_log = np.take_along_axis(log_p, top[:, None], axis=1)[:, 0]
            rest = log_p.copy()
            np.put_along_axis(rest, top[:, None], -np.inf, axis=1)
            rest_log = np.logaddexp.reduce(rest, axis=1)
            return top, top_log - rest_log, proba
        c = _clipped(confidence)
        return top, np.log(c) - np.log1p(-c), proba

    def _views(self, scores, y):
        """Pairs (feature, binary target) of the maps to fit."""
        if scores.values.ndim == 1:
            return [(self._features(scores), y == 1)]
        if self.multiclass == "ovr":
            features = self._features(scores)
            return [(features[:, k], y == k) for k in range(features.shape[1])]
        top, feature, _ = self._top_features(scores)
        return [(feature, top == y)]

    def _fit_scores(self, X, scores, y, sample_weight):
        self.calibrators_ = [
            self._fit_map(x, target, sample_weight)
            for x, target in self._views(scores, y)
        ]

    def _predict_proba_scores(self, X, scores):
        if scores.values.ndim == 1:
            p = self._apply_map(self.calibrators_[0], self._features(scores))
            return np.column_stack([1.0 - p, p])
        n_classes = scores.values.shape[1]
        if self.multiclass == "ovr":
            features = self._features(scores)
            proba = np.column_stack(
                [
                    self._apply_map(m, features[:, k])
                    for k, m in enumerate(self.calibrators_)
                ]
            )
            total = proba.sum(axis=1, keepdims=True)
            uniform = np.full_like(proba, 1.0 / n_classes)
            return np.divide(proba, total, out=uniform, where=total > 0)
        top, feature, original = self._top_features(scores)
        confidence = self._apply_map(self.calibrators_[0], feature)
        return top_label_proba(original, top, confidence)

    def predict(self, X):
        """The predicted class: the top score's with ``multiclass="top_label"``.

        With ``multiclass="top_label"`` and more than two classes, the class of
        the largest score (ties to the first), whose probability is the
        calibrated confidence: the classifier's prediction is kept. Otherwise
        the class of largest calibrated probability (ties to the first class).

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
        if scores.values.ndim == 2 and self.multiclass == "top_label":
            return self.classes_[top_label(scores)]
        return self.classes_[np.argmax(self._predict_proba_scores(X, scores), axis=1)]


def top_label_proba(original, top, confidence):
    r"""Probability rows whose strictly largest entry is the top class's confidence.

    The top class :math:`k` of each row gets the map's output :math:`h`
    clipped to :math:`[1/K, 1]`: :math:`c = \min(\max(h, 1/K), 1)` (a top
    class of :math:`K` never has less than :math:`1/K`; the lower end is
    raised by a relative ``_TIE_MARGIN``, see below). The other classes share
    :math:`1 - c` in proportion to their original probabilities :math:`p_j`,
    capped at :math:`\bar c = c (1 - \eta)`, :math:`\eta` = ``_TIE_MARGIN``
    (water-filling): :math:`p'_j = \min(\bar c, t p_j)` with :math:`t` such
    that the row sums to 1. The :math:`r` largest others take the cap, for
    the first :math:`r` with :math:`(1 - c - r \bar c)\, p_{(r)} \le \bar c
    \sum_{i \ge r} p_{(i)}` (others in decreasing order, from 0); it holds
    at the latest for :math:`r = K - 2`, as :math:`(K - 1) \bar c \ge 1 - c`.
    Uncapped others whose original probabilities are all 0 share their part
    equally. The cap just below :math:`c` keeps :math:`k` the first argmax
    of the row, so top-label measures score :math:`c` against whether
    :math:`k` is right.

    Parameters
    ----------
    original : ndarray of shape (n_samples, n_classes)
        Probabilities before recalibration, with ``n_classes >= 2``.
    top : ndarray of int of shape (n_samples,)
        The column of each row's top class.
    confidence : ndarray of shape (n_samples,)
        The calibrated probabilities of the top classes, in ``[0, 1]``.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
    """
    n_samples, n_classes = original.shape
    rows = np.arange(n_samples)
    # The smallest c with (K - 1) * cap >= 1 - c: 1/K, up to the margin.
    floor = 1.0 / (n_classes - (n_classes - 1) * _TIE_MARGIN)
    c = np.clip(confidence, floor, 1.0)
    cap = (c * (1.0 - _TIE_MARGIN))[:, None]
    is_other = np.ones(original.shape, dtype=bool)
    is_other[rows, top] = False
    others = original[is_other].reshape(n_samples, n_classes - 1)
    order = np.argsort(-others, axis=1, kind="stable")
    w = np.take_along_axis(others, order, axis=1)
    # tail[:, r]: the total of the others after the r largest. Ratios of w to
    # a tail are at most 1, which keeps subnormal probabilities finite.
    tail = np.cumsum(w[:, ::-1], axis=1)[:, ::-1]
    zeros = np.zeros_like(w)
    n_capped = np.arange(n_classes - 1)
    left = (1.0 - c)[:, None] - n_capped * cap
    largest = np.divide(w, tail, out=zeros.copy(), where=tail > 0)
    enough = left * largest <= cap
    enough[:, -1] = True
    r = np.argmax(enough, axis=1)
    left_r, tail_r = np.maximum(left[rows, r], 0.0), tail[rows, r][:, None]
    uncapped = n_capped >= r[:, None]
    fraction = np.divide(w, tail_r, out=zeros, where=uncapped & (tail_r > 0))
    equal = (left_r / (n_classes - 1 - r))[:, None]
    share = np.where(tail_r > 0, left_r[:, None] * fraction, equal)
    capped = np.where(uncapped, np.minimum(share, cap), cap)
    np.put_along_axis(others, order, capped, axis=1)
    proba = np.empty_like(original)
    proba[is_other] = others.ravel()
    proba[rows, top] = c
    return proba
