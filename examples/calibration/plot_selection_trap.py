"""
=====================================================
Choosing a recalibrator: the calibration-error trap
=====================================================

A recalibrator is usually chosen by cross-validation. This example selects one
for a real CIFAR-10 classifier with :class:`~sklearn.model_selection.GridSearchCV`
and shows the trap described by Chidambaram and Ge (2024): selected by the
expected calibration error alone, the search picks the *mean-replacement*
baseline, which gives every prediction the same confidence and is useless;
selected by a proper score (Brier score or log loss), it does not.

Set the environment variable ``SKCAL_FIGURES_DIR`` to a folder to save the
figure of this example there as a PNG file.
"""

# SPDX-License-Identifier: BSD-3-Clause

# %%
# The predictions of a classifier
# -------------------------------
#
# The classifier is a wide residual network trained on CIFAR-10; we only have
# its predicted probabilities on the 10,000 test images and their labels
# (from the netcal project, Apache-2.0 licence). A recalibrator with
# ``estimator=None`` takes such scores as its ``X``.
import os
from pathlib import Path

import numpy as np

from skcal.datasets import load_cifar10_wideresnet

data = load_cifar10_wideresnet()
proba, labels = data.probabilities.astype(np.float64), data.target
proba /= proba.sum(axis=1, keepdims=True)
print(
    f"{proba.shape[0]} predictions, accuracy {np.mean(proba.argmax(1) == labels):.3f}"
)

# %%
# A grid search over recalibrators
# --------------------------------
#
# Each candidate is fitted on four fifths of the predictions and scored on
# the rest. The scores mix skcal's calibration errors with scikit-learn's
# proper scores: :func:`skcal.metrics.get_scorer` knows both.
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

from skcal.calibration import (
    HistogramBinningRecalibrator,
    IsotonicRecalibrator,
    MeanReplacementRecalibrator,
    PlattRecalibrator,
    TemperatureRecalibrator,
)
from skcal.model_selection import get_scorer

candidates = [
    IsotonicRecalibrator(),
    HistogramBinningRecalibrator(),
    PlattRecalibrator(),
    TemperatureRecalibrator(),
    MeanReplacementRecalibrator(),
]
scoring = {
    name: get_scorer(name)
    for name in (
        "neg_expected_calibration_error",
        "neg_smooth_ece",
        "neg_brier_score",
        "neg_log_loss",
        "accuracy",
    )
}
search = GridSearchCV(
    Pipeline([("recalibrator", TemperatureRecalibrator())]),
    {"recalibrator": candidates},
    scoring=scoring,
    refit="neg_expected_calibration_error",
    cv=5,
).fit(proba, labels)

results = search.cv_results_
names = [type(p["recalibrator"]).__name__ for p in results["params"]]
print(f"{'recalibrator':<30} {'ECE':>7} {'SmoothECE':>9} {'Brier':>7} {'log loss':>8}")
for i, name in enumerate(names):
    print(
        f"{name:<30} {-results['mean_test_neg_expected_calibration_error'][i]:7.4f} "
        f"{-results['mean_test_neg_smooth_ece'][i]:9.4f} "
        f"{-results['mean_test_neg_brier_score'][i]:7.4f} "
        f"{-results['mean_test_neg_log_loss'][i]:8.4f}"
    )

# %%
# Two criteria, two choices
# -------------------------
#
# The calibration errors choose mean replacement; the proper scores do not.
by_ece = names[np.argmax(results["mean_test_neg_expected_calibration_error"])]
by_brier = names[np.argmax(results["mean_test_neg_brier_score"])]
by_log_loss = names[np.argmax(results["mean_test_neg_log_loss"])]
print(f"chosen by ECE: {by_ece}")
print(f"chosen by Brier score: {by_brier}; by log loss: {by_log_loss}")

# %%
# Mean replacement keeps the predicted class and replaces every confidence by
# the accuracy on the calibration data. Its calibration error is the gap
# between two accuracies, of order :math:`1/\sqrt{n}`, however poorly the
# model separates easy from hard images; a proper score charges it for that
# loss of information. Never select or compare recalibrators by a
# calibration error (and accuracy) alone.
import matplotlib.pyplot as plt

fig, (ax_ece, ax_brier) = plt.subplots(1, 2, figsize=(9, 3.5), sharey=True)
positions = np.arange(len(names))
short = [n.removesuffix("Recalibrator") for n in names]
ax_ece.barh(positions, -results["mean_test_neg_expected_calibration_error"])
ax_ece.set(yticks=positions, yticklabels=short, xlabel="ECE (lower is better)")
ax_brier.barh(positions, -results["mean_test_neg_brier_score"], color="tab:orange")
ax_brier.set(xlabel="Brier score (lower is better)")
fig.suptitle("Five recalibrators of a CIFAR-10 network, 5-fold cross-validation")
fig.tight_layout()
if os.environ.get("SKCAL_FIGURES_DIR"):
    fig.savefig(Path(os.environ["SKCAL_FIGURES_DIR"]) / "selection_trap.png", dpi=100)

# %%
# References
# ----------
#
# M. Chidambaram and R. Ge, "Reassessing how to compare and improve the
# calibration of machine learning models", arXiv:2406.04068.
