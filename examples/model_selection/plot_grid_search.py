"""
=====================================
Calibration inside ``GridSearchCV``
=====================================

A recalibrated classifier is a scikit-learn classifier: it goes in a
``Pipeline``, is scored by ``cross_val_score`` and tuned by
``GridSearchCV``. This example turns a linear support vector machine,
which has no probabilities at all, into a probabilistic classifier, and
tunes its regularisation *and* the recalibrator wrapped around it in one
search, scored by the log loss, with skcal's calibration errors reported
beside it.
"""

# SPDX-License-Identifier: BSD-3-Clause

# %%
# The model: a pipeline wrapped in a recalibrator
# -----------------------------------------------
#
# :class:`~skcal.calibration.RecalibratedClassifierCV` fits the pipeline on
# part of each training fold and the recalibrator on the pipeline's
# decision values of the rest (``cv=3``), then refits the pipeline on all
# of it (``ensemble=False``). Its parameters are searched like any other, by
# their ``estimator__...`` and ``recalibrator`` names.
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from skcal.calibration import (
    HistogramBinningRecalibrator,
    IsotonicRecalibrator,
    PlattRecalibrator,
    RecalibratedClassifierCV,
)

X, y = make_classification(
    n_samples=4000, n_features=20, n_informative=6, class_sep=0.7, random_state=0
)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
model = RecalibratedClassifierCV(
    make_pipeline(StandardScaler(), LinearSVC()), cv=3, ensemble=False
)

# %%
# One search, proper score first
# ------------------------------
#
# :func:`skcal.metrics.get_scorers` gives scikit-learn's scorers and
# skcal's under one roof. The search refits the candidate with the best log
# loss; the calibration errors are recorded for every candidate.
from skcal.metrics import get_scorers

scoring = get_scorers(
    ["neg_log_loss", "neg_expected_calibration_error", "neg_smooth_ece"]
)
search = GridSearchCV(
    model,
    {
        "estimator__linearsvc__C": [0.001, 1.0],
        "recalibrator": [
            PlattRecalibrator(),
            IsotonicRecalibrator(),
            HistogramBinningRecalibrator(),
        ],
    },
    scoring=scoring,
    refit="neg_log_loss",
    cv=4,
).fit(X_train, y_train)

results = search.cv_results_
print(f"{'C':>5} {'recalibrator':<30} {'log loss':>8} {'ECE':>7} {'SmoothECE':>9}")
for i, params in enumerate(results["params"]):
    recalibrator = type(params["recalibrator"]).__name__
    print(
        f"{params['estimator__linearsvc__C']:5.3f} {recalibrator:<30} "
        f"{-results['mean_test_neg_log_loss'][i]:8.4f} "
        f"{-results['mean_test_neg_expected_calibration_error'][i]:7.4f} "
        f"{-results['mean_test_neg_smooth_ece'][i]:9.4f}"
    )
print("best:", search.best_params_)

# %%
# The search picks by the log loss, a proper score, so it cannot be fooled
# by a recalibrator that is calibrated but uninformative (see
# :ref:`grid_search`); the calibration errors tell how far each candidate's
# probabilities are from their frequencies.

# %%
# The chosen model on held-out data
# ---------------------------------
#
# The refitted best model is scored on the test set, with an interval, and
# its reliability diagram drawn from the estimator.
from skcal.metrics import confidence_interval
from skcal.plotting import SmoothReliabilityDisplay

proba = search.predict_proba(X_test)[:, 1]
for metric in ("log_loss", "smooth_ece"):
    r = confidence_interval(
        y_test, proba, metric=metric, n_bootstrap=200, random_state=0
    )
    print(f"{metric:<10} {r.value:.4f} [{r.low:.4f}, {r.high:.4f}]")

display = SmoothReliabilityDisplay.from_estimator(
    search.best_estimator_, X_test, y_test, n_bootstrap=100, random_state=0
)
