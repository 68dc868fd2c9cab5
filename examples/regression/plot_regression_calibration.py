"""
================================================
Recalibrating the variance of a regression model
================================================

A Gaussian process whose noise level is fixed too low explains part of the
noise by wiggles of its mean, and predicts standard deviations that are too
small: its 90% intervals hold far fewer than 90% of the outcomes. Gruber and
Buettner (NeurIPS 2022, section 5) repair such a model by Platt scaling of
its predicted variance, ``w * var + b``, fitted on held-out data by the
Dawid-Sebastiani score (DSS). This example reproduces their experiment in
shape, on their modified Friedman 1 problem and on scikit-learn's diabetes
data, and draws the diagrams of :mod:`skcal.plotting` for regression.
"""

# SPDX-License-Identifier: BSD-3-Clause

# %%
# A model with over-confident variances
# -------------------------------------
#
# The modified Friedman 1 problem of the paper: ten uniform features, the
# target of :func:`~sklearn.datasets.make_friedman1`, and noise whose
# standard deviation grows with the sixth feature, ``0.5 + X6``. As in the
# paper, the training and recalibration sets have 100 samples each; the
# test set is larger, so that the numbers below are stable.
import warnings

import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# Features the target ignores get length-scales at the kernel's upper bound,
# which scikit-learn reports; that is the fit working as intended here.
warnings.filterwarnings("ignore", message=".*upper bound", category=ConvergenceWarning)


def modified_friedman1(n_samples, seed):
    X, y = make_friedman1(n_samples=n_samples, noise=0.0, random_state=seed)
    noise = np.random.RandomState(seed + 1).normal(size=n_samples)
    return X, y + noise * (0.5 + X[:, 5])


def overconfident_gp():
    """A Gaussian process with its noise level fixed at 1% of the variance."""
    kernel = ConstantKernel() * RBF(length_scale=np.ones(10))
    gp = GaussianProcessRegressor(kernel, alpha=1e-2, normalize_y=True)
    return make_pipeline(StandardScaler(), gp)


X_train, y_train = modified_friedman1(100, seed=0)
X_cal, y_cal = modified_friedman1(100, seed=10)
X_test, y_test = modified_friedman1(2000, seed=20)
model = overconfident_gp().fit(X_train, y_train)

# %%
# Recalibrating the variance
# --------------------------
#
# :class:`~skcal.regression.VarianceRecalibrator` wraps the fitted model
# (never refitting it) and learns ``w`` and ``b`` on the recalibration set.
# The mean is untouched.
from skcal.regression import VarianceRecalibrator

recalibrated = VarianceRecalibrator(model).fit(X_cal, y_cal)
print(f"w = {recalibrated.coef_:.2f}, b = {recalibrated.intercept_:.3f}")

# %%
# The paper's Tables 1 and 2 compare, before and after recalibration, the
# average predicted variance with the mean squared error, and the mean (and
# variance) of the ratio of squared error to predicted variance
# (:func:`~skcal.regression.error_variance_ratio`), which is 1 when the
# variances are right. The Dawid-Sebastiani score
# (:func:`~skcal.regression.dawid_sebastiani_score`) is the proper score both
# are fitted and judged by: its decrease is the decrease of the calibration
# error it induces, because the map is injective.
from skcal.regression import dawid_sebastiani_score, error_variance_ratio


def summary(name, y, mean, std):
    ratio = error_variance_ratio(y, mean, std)
    return (
        f"{name:<14} MSE {np.mean((y - mean) ** 2):7.2f}   "
        f"avg var {np.mean(std**2):7.2f}   "
        f"ratio {ratio.mean:5.2f} ± {ratio.variance:6.2f}   "
        f"DSS {dawid_sebastiani_score(y, mean, std):5.2f}"
    )


before = model.predict(X_test, return_std=True)
after = recalibrated.predict(X_test, return_std=True)
print(summary("uncalibrated", y_test, *before))
print(summary("recalibrated", y_test, *after))

# %%
# As in the paper, the uncalibrated variances are several times too small
# (a ratio well above 1); after recalibration the average variance meets the
# mean squared error, the ratio is close to 1, and the DSS falls. The mean
# squared error does not change.
#
# What the diagrams show
# ----------------------
#
# The probability integral transform (PIT) of an outcome is the predictive
# distribution function at it; it is uniform for calibrated predictions.
# Over-confidence puts too many outcomes in the tails: a U-shaped
# histogram. The grey band is where a bin lies, 19 times in 20, when the PIT
# is uniform.
import matplotlib.pyplot as plt

from skcal.plotting import (
    MeanReliabilityDisplay,
    PITHistogramDisplay,
    QuantileReliabilityDisplay,
)

display = PITHistogramDisplay.from_predictions(y_test, *before, name="Uncalibrated")
PITHistogramDisplay.from_predictions(
    y_test, *after, name="Recalibrated", ax=display.ax_
)
plt.show()

# %%
# The quantile reliability diagram reads the same information at a few
# levels: the share of outcomes below each predicted quantile. The
# uncalibrated curve is flatter than the diagonal: its low quantiles are too
# high and its high quantiles too low.
display = QuantileReliabilityDisplay.from_estimator(
    model, X_test, y_test, name="Uncalibrated"
)
QuantileReliabilityDisplay.from_estimator(
    recalibrated, X_test, y_test, name="Recalibrated", ax=display.ax_
)
plt.show()

# %%
# Recalibrating the variance leaves the mean as it was. Its own calibration
# is read from the isotonic regression of the outcomes on the predicted
# means (CORP): on the diagonal where the mean is right on average.
MeanReliabilityDisplay.from_estimator(model, X_test, y_test, name="Mean of the GP")
plt.show()

# %%
# The same on real data
# ---------------------
#
# The diabetes data of :func:`~sklearn.datasets.load_diabetes` (442
# patients, ten features): a third trains the same over-confident model, a
# third recalibrates it, a third tests it.
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split

X, y = load_diabetes(return_X_y=True)
X_train, X_rest, y_train, y_rest = train_test_split(
    X, y, train_size=150, random_state=0
)
X_cal, X_test, y_cal, y_test = train_test_split(
    X_rest, y_rest, train_size=146, random_state=0
)
model = overconfident_gp().fit(X_train, y_train)
recalibrated = VarianceRecalibrator(model).fit(X_cal, y_cal)
print(summary("uncalibrated", y_test, *model.predict(X_test, return_std=True)))
print(summary("recalibrated", y_test, *recalibrated.predict(X_test, return_std=True)))

# %%
# Choosing a recalibrator by cross-validation
# -------------------------------------------
#
# :class:`~skcal.regression.RecalibratedRegressorCV` fits the regressor on
# folds and the recalibrator on the out-of-fold predictions, so that one
# data set serves both; it is an ordinary scikit-learn regressor, and
# ``GridSearchCV`` selects the recalibrator by a proper score. Here the
# paper's map (with intercept), its closed form without intercept, and the
# isotonic recalibration of the PIT of Kuleshov et al. (2018) compete on the
# Dawid-Sebastiani score.
from sklearn.model_selection import GridSearchCV

from skcal.metrics import get_scorer
from skcal.regression import IsotonicPITRecalibrator, RecalibratedRegressorCV

search = GridSearchCV(
    RecalibratedRegressorCV(overconfident_gp(), cv=3),
    {
        "recalibrator": [
            VarianceRecalibrator(),
            VarianceRecalibrator(fit_intercept=False),
            IsotonicPITRecalibrator(),
        ]
    },
    scoring=get_scorer("neg_dawid_sebastiani_score"),
    cv=3,
).fit(X_rest, y_rest)
for params, score in zip(
    search.cv_results_["params"], search.cv_results_["mean_test_score"], strict=True
):
    print(f"{params['recalibrator']!r:<45} DSS {-score:.3f}")

# %%
# The isotonic recalibration's distributions are not Gaussian, and a score
# of their first two moments treats them as if they were; judge them by
# their quantiles (:func:`~skcal.regression.pinball_loss`,
# :func:`~skcal.regression.quantile_calibration_error`). The user guide's
# page on regression says which measure answers which question.
