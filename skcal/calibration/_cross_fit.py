"""Cross-fitting: a classifier fitted on folds, recalibrated on out-of-fold scores."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import warnings
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import check_cv
from sklearn.utils import indexable
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, column_or_1d

from skcal._param_validation import HasMethods, fit_context
from skcal._typing import CVLike
from skcal._utils._indexing import take_rows
from skcal._utils._routing import CrossFitMixin, routed_fit_params
from skcal._validation import (
    check_partition,
    check_recalibration_target,
    check_recalibration_weights,
)
from skcal.calibration._base import (
    ArgmaxPredictMixin,
    BaseRecalibrator,
    classifier_scores,
)
from skcal.calibration._platt import PlattRecalibrator


def _rows_of_params(params, indices, n_samples):
    """Slice the fit parameters that have one entry per sample."""
    sliced = {}
    for key, value in params.items():
        if value is not None and hasattr(value, "__len__") and len(value) == n_samples:
            sliced[key] = take_rows(value, indices)
        else:
            sliced[key] = value
    return sliced


def _fit_fold(estimator, X, y, fold, fit_params, classes):
    """Fit a clone of ``estimator`` on the training rows of ``fold``.

    ``fold`` is ``(index, train, test)``; the classifier must know every class.
    """
    index, train, _ = fold
    n = len(y)
    fitted = clone(estimator).fit(
        take_rows(X, train), y[train], **_rows_of_params(fit_params, train, n)
    )
    seen = np.asarray(fitted.classes_)
    if seen.shape[0] != classes.shape[0] or not np.all(seen == classes):
        missing = sorted(set(classes.tolist()) - set(seen.tolist()))
        raise ValueError(
            f"The classifier fitted on the training part of fold {index} of cv "
            f"lacks the class(es) {missing}: use StratifiedKFold or fewer folds, "
            "so that every training part holds every class."
        )
    return fitted


def _training_problem(y_index, train, classes):
    """Why the training part of a fold cannot be used, or None.

    Its classifier must know every class, so that its scores have a column
    (or, binary, a sign) for each.
    """
    missing = np.setdiff1d(np.arange(classes.shape[0]), y_index[train])
    if missing.shape[0]:
        return f"its training part lacks the class(es) {classes[missing].tolist()}"
    return None


def _fold_problem(y_index, sample_weight, train, test, classes):
    """Why a fold cannot give a (classifier, recalibrator) pair, or None.

    The training part must hold every class, and the test part (its rows of
    positive weight) at least two: a recalibrator cannot learn a map from
    scores to probabilities from samples of one outcome.
    """
    why = _training_problem(y_index, train, classes)
    if why is not None:
        return why
    held, among = y_index[test], ""
    if sample_weight is not None:
        held = held[sample_weight[test] > 0]
        among = " (among samples of positive weight)"
    present = np.unique(held)
    if present.shape[0] == 0:
        return f"its test part is empty{among}"
    if present.shape[0] == 1:
        (label,) = classes[present].tolist()
        return f"its test part holds the class {label!r} only{among}"
    return None


def _describe(problems, limit=5):
    """``fold i: why`` for the first ``limit`` problems, then how many more."""
    items = [f"fold {index}: {why}" for index, why in problems[:limit]]
    if len(problems) > limit:
        items.append(f"and {len(problems) - limit} more")
    return "; ".join(items)


def _fit_pair(estimator, recalibrator, X, y, fold, sample_weight, fit_params, classes):
    """The classifier of ``fold`` (fitted on its training part), recalibrated."""
    _, _, test = fold
    fitted = _fit_fold(estimator, X, y, fold, fit_params, classes)
    recal = clone(recalibrator).set_params(estimator=fitted)
    weights = None if sample_weight is None else take_rows(sample_weight, test)
    return recal.fit(take_rows(X, test), y[test], sample_weight=weights)


def _out_of_fold_scores(estimator, X, y, fold, fit_params, classes, response):
    """Scores, on the test part of ``fold``, of a classifier fitted on its training."""
    _, _, test = fold
    fitted = _fit_fold(estimator, X, y, fold, fit_params, classes)
    return classifier_scores(fitted, take_rows(X, test), response)


class RecalibratedClassifierCV(
    ArgmaxPredictMixin,
    CrossFitMixin,
    ClassifierMixin,
    MetaEstimatorMixin,
    BaseEstimator,
):
    """Fit a classifier and recalibrate it on out-of-fold scores.

    Each recalibrator must be fitted on data its classifier was not trained
    on. For an unfitted classifier this does it by cross-fitting: the
    classifier is fitted on the training part of each fold and the
    recalibrator on the classifier's scores for the held-out part. With
    ``ensemble=True`` each fold keeps its (classifier, recalibrator) pair and
    the predicted probabilities are their mean (with
    :class:`VennAbersRecalibrator`, their cross Venn-Abers combination, see
    its Notes); with ``ensemble=False`` the held-out scores of all folds are
    pooled to fit one recalibrator, and the classifier is refitted on all
    the data. For an already fitted classifier, give it to a recalibrator
    directly instead.

    Read more in the :ref:`User Guide <cross_fitting>`.

    Parameters
    ----------
    estimator : classifier
        An unfitted classifier with ``fit`` and ``decision_function`` or
        ``predict_proba``; it is cloned for each fold.
    recalibrator : recalibrator or None, default=None
        An unfitted skcal recalibrator with ``estimator=None`` (its
        ``estimator`` is set to each fold's classifier), for instance
        :class:`IsotonicRecalibrator`; its ``response_method`` says which
        scores of the classifier it reads. None means
        :class:`PlattRecalibrator`, as scikit-learn's default is the sigmoid.
    cv : int, cross-validation generator or iterable, default=5
        The folds, as in :func:`sklearn.model_selection.check_cv`: an int is
        the number of stratified folds (each class needs at least that many
        samples); a splitter or an iterable of ``(train, test)`` index
        arrays gives its folds as they are. The folds are numbered from 0,
        in the order ``cv`` yields them, in warnings and errors. See Notes
        for folds that miss a class.
    ensemble : bool, default=True
        Keep one (classifier, recalibrator) pair per fold and average their
        probabilities (cross Venn-Abers combines Venn-Abers pairs instead),
        or pool the out-of-fold scores for one recalibrator and refit the
        classifier on all the data.
    n_jobs : int or None, default=None
        Number of folds fitted in parallel (joblib); None means 1.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes, in the order of the columns of :meth:`predict_proba`.
    calibrated_classifiers_ : list of recalibrators
        With ``ensemble=True``, one fitted recalibrator per fold, each
        wrapping its fold's classifier; with ``ensemble=False``, the one
        recalibrator fitted on the pooled out-of-fold scores.
    estimator_ : classifier
        With ``ensemble=False``, the classifier refitted on all the data.
    n_features_in_ : int
        Number of features seen by the classifier.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features, when they are all strings.

    See Also
    --------
    sklearn.calibration.CalibratedClassifierCV : The same idea with three
        built-in methods.

    Notes
    -----
    **Folds that miss a class.** Only the whole ``y`` must hold two classes
    or more; a fold of ``cv`` may miss some, as unshuffled
    :class:`~sklearn.model_selection.KFold` on sorted labels or a
    :class:`~sklearn.model_selection.PredefinedSplit` easily do.

    * With ``ensemble=True``, a fold gives a (classifier, recalibrator) pair
      when its training part holds every class (so that the classifier
      scores every class) and its test part holds at least two classes
      among its samples of positive weight (the recalibrator learns a map
      from scores to the probability of each outcome, which samples of one
      outcome cannot identify). A test part with two classes of three is
      used: the absent class's map is fitted on targets that are all 0.
      Other folds are skipped with a ``UserWarning`` that names them and
      says why; the model averages the pairs of the remaining folds. If no
      fold remains, ``fit`` raises a ``ValueError`` naming the folds.
      scikit-learn's :class:`~sklearn.calibration.CalibratedClassifierCV`
      keeps such folds instead (see the User Guide); with the same
      calibration method, the model here is the mean of its pairs over the
      folds kept here.
    * With ``ensemble=False``, the pooled out-of-fold scores hold every
      class, so test parts with one class are fine (the result equals
      scikit-learn's); a training part without some class would leave those
      rows without a score for it, and ``fit`` raises a ``ValueError``
      naming the fold.

    The remedy is a stratified splitter
    (:class:`~sklearn.model_selection.StratifiedKFold`, the default for an
    int ``cv``) or shuffled rows.

    **Sample weights.** ``sample_weight`` is always used by the
    recalibrators, and passed to the classifier's ``fit`` when it has a
    ``sample_weight`` parameter; when it has none, the classifier is fitted
    unweighted and a ``UserWarning`` says so. With metadata routing enabled
    (``sklearn.set_config(enable_metadata_routing=True)``) the classifier
    and the splitter get what they request instead, without a warning.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from skcal.calibration import IsotonicRecalibrator, RecalibratedClassifierCV
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = RecalibratedClassifierCV(GaussianNB(), IsotonicRecalibrator())
    >>> model.fit(X, y).predict_proba(X[:2]).round(3).tolist()
    [[0.987, 0.013], [0.987, 0.013]]
    >>> len(model.calibrated_classifiers_)
    5
    """

    _parameter_constraints: dict = {
        "estimator": [
            HasMethods(["fit", "predict_proba"]),
            HasMethods(["fit", "decision_function"]),
        ],
        "recalibrator": [BaseRecalibrator, None],
        "cv": ["cv_object"],
        "ensemble": ["boolean"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        estimator: Any,
        recalibrator: BaseRecalibrator | None = None,
        *,
        cv: CVLike = 5,
        ensemble: bool = True,
        n_jobs: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.recalibrator = recalibrator
        self.cv = cv
        self.ensemble = ensemble
        self.n_jobs = n_jobs

    def _get_recalibrator(self):
        if self.recalibrator is None:
            return PlattRecalibrator()
        if self.recalibrator.estimator is not None:
            raise ValueError(
                "recalibrator must have estimator=None: RecalibratedClassifierCV "
                "gives it the classifier of each fold."
            )
        return self.recalibrator

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the classifier on folds and the recalibrator on out-of-fold scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, as the classifier accepts it.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, used by the recalibrators and (when its ``fit``
            has a ``sample_weight`` parameter, or as metadata routing says)
            by the classifier; a ``UserWarning`` tells when the classifier
            cannot take them.
        **fit_params : dict
            Further parameters of the classifier's ``fit`` (routed to it when
            metadata routing is enabled).

        Returns
        -------
        self : object
            The fitted model.
        """
        recalibrator = self._get_recalibrator()
        y = column_or_1d(y, warn=True)
        X, y = indexable(X, y)
        y_index, self.classes_ = check_recalibration_target(y)
        sample_weight = check_recalibration_weights(sample_weight, y_index)
        est_params, split_params = routed_fit_params(
            self, sample_weight, fit_params, "classifier"
        )
        folds = self._folds(X, y, y_index, sample_weight, split_params)
        if self.ensemble:
            self.calibrated_classifiers_ = Parallel(n_jobs=self.n_jobs)(
                delayed(_fit_pair)(
                    self.estimator,
                    recalibrator,
                    X,
                    y,
                    fold,
                    sample_weight,
                    est_params,
                    self.classes_,
                )
                for fold in folds
            )
            fitted = self.calibrated_classifiers_[0].estimator
            if hasattr(self, "estimator_"):
                del self.estimator_
        else:
            recal = self._fit_pooled(
                recalibrator, X, y, folds, sample_weight, est_params
            )
            self.calibrated_classifiers_ = [recal]
            self.estimator_ = clone(self.estimator).fit(X, y, **est_params)
            fitted = self.estimator_
        for attr in ("n_features_in_", "feature_names_in_"):
            if hasattr(fitted, attr):
                setattr(self, attr, getattr(fitted, attr))
            elif hasattr(self, attr):
                delattr(self, attr)
        return self

    def _folds(self, X, y, y_index, sample_weight, split_params):
        """The folds to fit, as ``(index, train, test)``.

        Pooling needs test parts that partition the rows and training parts
        with every class. A pair per fold needs folds as :func:`_fold_problem`
        describes; the others are skipped with a warning, unless none is left.
        """
        cv = check_cv(self.cv, y, classifier=True)
        n_splits = cv.get_n_splits(X, y, **split_params)
        counts = np.bincount(y_index)
        if isinstance(self.cv, Integral) and counts.min() < n_splits:
            raise ValueError(
                f"Requesting {n_splits}-fold cross-validation but the class "
                f"{self.classes_.tolist()[counts.argmin()]!r} has only {counts.min()} "
                "sample(s): each fold needs every class. Use fewer folds."
            )
        folds = [(i, *split) for i, split in enumerate(cv.split(X, y, **split_params))]
        if not self.ensemble:
            check_partition(
                [(train, test) for _, train, test in folds],
                len(y),
                "ensemble=False pools out-of-fold scores",
            )
            # Only the training parts matter: the pooled scores hold every class.
            problems = [
                (i, why)
                for i, train, _ in folds
                if (why := _training_problem(y_index, train, self.classes_))
            ]
            if problems:
                raise ValueError(
                    f"ensemble=False needs every class in the training part of "
                    f"every fold of cv, to score every class on every row; "
                    f"{_describe(problems)}. Use StratifiedKFold (or shuffle the "
                    "rows), or ensemble=True, which skips such folds."
                )
            return folds
        return self._usable_folds(folds, y_index, sample_weight)

    def _usable_folds(self, folds, y_index, sample_weight):
        """The folds that give a pair; warn about the others, refuse if none."""
        problems, usable = [], []
        for fold in folds:
            why = _fold_problem(y_index, sample_weight, *fold[1:], self.classes_)
            if why is None:
                usable.append(fold)
            else:
                problems.append((fold[0], why))
        need = (
            "a fold needs every class in its training part and at least two "
            "classes (of positive weight) in its test part, where the "
            "recalibrator is fitted"
        )
        fix = "Use StratifiedKFold (or shuffle the rows before KFold)"
        if not usable:
            raise ValueError(
                f"No fold of cv can be recalibrated: {need}; {_describe(problems)}. "
                f"{fix}."
            )
        if problems:
            warnings.warn(
                f"{len(problems)} of {len(folds)} folds of cv are skipped, as "
                f"{need}; {_describe(problems)}. The model averages the pairs of "
                f"the remaining {len(usable)} fold(s). {fix} to keep every fold.",
                UserWarning,
                stacklevel=5,
            )
        return usable

    def _fit_pooled(self, recalibrator, X, y, folds, sample_weight, est_params):
        """One recalibrator fitted on the pooled out-of-fold scores."""
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(_out_of_fold_scores)(
                self.estimator,
                X,
                y,
                fold,
                est_params,
                self.classes_,
                recalibrator.response_method,
            )
            for fold in folds
        )
        kind = results[0][1]
        first_scores = np.asarray(results[0][0])
        scores = np.empty((len(y), *first_scores.shape[1:]))
        for (_, _, test), (fold_scores, _) in zip(folds, results, strict=True):
            scores[test] = fold_scores
        recal = clone(recalibrator)
        if recal.input == "auto":
            recal.set_params(input=kind)
        return recal.fit(scores, y, sample_weight=sample_weight)

    def predict_proba(self, X):
        """Recalibrated probabilities of each class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples, as the classifier accepts them.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            The mean of the folds' recalibrated probabilities, or their
            cross Venn-Abers combination for :class:`VennAbersRecalibrator`
            (``ensemble=True``); or the recalibrated probabilities of the
            refitted classifier.
        """
        check_is_fitted(self)
        if self.ensemble:
            recals = self.calibrated_classifiers_
            # The recalibrator's class says how folds combine: the mean, or
            # (Venn-Abers) the cross Venn-Abers rule.
            return type(recals[0])._ensemble_proba(recals, X)
        (recal,) = self.calibrated_classifiers_
        scores, _ = classifier_scores(self.estimator_, X, recal.response_method)
        return recal.predict_proba(scores)
