"""A classifier whose probabilities are given: its ``X`` holds them."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from skcal._validation import check_classes, check_scores


class GivenProbabilities(ClassifierMixin, BaseEstimator):
    """The classifier of recorded probabilities: ``predict_proba(X)`` is ``X``.

    What a network's softmax outputs are to the demo: a fixed classifier,
    cross-validated beside the recalibrators that take the same outputs as
    their ``X``. ``fit`` only records the classes; the columns of ``X``
    follow them.
    """

    def fit(self, X, y):
        """Record the classes of ``y`` (the columns of ``X``)."""
        self.classes_ = check_classes(np.unique(y))
        check_scores(X, n_classes=len(self.classes_), input="probability")
        return self

    def predict_proba(self, X):
        """The probabilities, validated: ``X`` itself, one column per class."""
        check_is_fitted(self)
        check_scores(X, n_classes=len(self.classes_), input="probability")
        return np.asarray(X, dtype=np.float64)

    def predict(self, X):
        """The class of largest probability of each row."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
