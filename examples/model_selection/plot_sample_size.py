"""
====================================================
How many test images does a calibration error need?
====================================================

A calibration error measured on a few hundred test predictions is not a
smaller-sample version of the one measured on ten thousand: the plug-in
expected calibration error (ECE) is biased upwards on small samples, and
the more so the better the model is calibrated (Gruber and Buettner, 2022).
This example draws subsamples of a CIFAR-10 network's test predictions with
:func:`~skcal.model_selection.sample_size_curve`, before and after
temperature scaling, and shows with
:class:`~skcal.plotting.SampleSizeDisplay` that the ECE understates the
benefit of recalibrating on small test sets, while the Brier score does
not.
"""

# SPDX-License-Identifier: BSD-3-Clause

# %%
# A network, before and after recalibration
# -----------------------------------------
#
# The predictions of a wide residual network on the 10,000 CIFAR-10 test
# images ship with :mod:`skcal.datasets`. Half of them fit a
# :class:`~skcal.calibration.TemperatureRecalibrator`; the other half, 5,000
# images, is the test set of both versions of the model.
import numpy as np

from skcal.calibration import TemperatureRecalibrator
from skcal.datasets import load_cifar10_wideresnet

data = load_cifar10_wideresnet()
proba = data.probabilities.astype(np.float64)
proba /= proba.sum(axis=1, keepdims=True)
rows = np.random.RandomState(0).permutation(proba.shape[0])
fit_rows, test_rows = rows[:5000], rows[5000:]
recalibrator = TemperatureRecalibrator().fit(proba[fit_rows], data.target[fit_rows])
labels = data.target[test_rows]
models = {
    "network": proba[test_rows],
    "temperature-scaled": recalibrator.predict_proba(proba[test_rows]),
}

# %%
# Measures on subsamples of growing size
# --------------------------------------
#
# Each measure is computed on subsamples of the 5,000 test images drawn
# without replacement, at ten sizes from 100 to 5,000: 100 subsamples of
# 100 images, fewer at larger sizes, and the whole set once. The same
# ``random_state`` gives both models the same subsamples.
import matplotlib.pyplot as plt

from skcal.plotting import SampleSizeDisplay

display = None
for name, y_prob in models.items():
    display = SampleSizeDisplay.from_predictions(
        labels,
        y_prob,
        name=name,
        random_state=0,
        ax=None if display is None else display.ax_,
    )
display.figure_.suptitle("CIFAR-10 wide residual network, 5,000 test images")
plt.show()

# %%
# Each panel shows a measure's mean over the subsamples of each size, the
# band where 90% of them fall, and its value on all 5,000 images (dashed).
# The ECE and the SmoothECE fall as the size grows, steeply for the
# recalibrated model, whose value on all the images is small; the Brier
# score of both models is flat. At 100 images the mean ECE of the
# recalibrated model is nearly nine times its value on all 5,000.
#
# What looks like an improvement
# ------------------------------
#
# Recalibration is judged by how much it lowers a measure. With the same
# subsamples for both models, the improvement at each size is the
# difference of the two means:
from skcal.model_selection import sample_size_curve

curves = {
    name: sample_size_curve(
        labels,
        y_prob,
        metrics=["expected_calibration_error", "brier_score_loss"],
        sizes=[100, 500, 5000],
        random_state=0,
    )
    for name, y_prob in models.items()
}
before, after = curves["network"], curves["temperature-scaled"]
print(f"{'test images':>11}  {'ECE gain':>8}  {'Brier gain':>10}")
for i, size in enumerate(before.sizes):
    ece = (
        before.mean["expected_calibration_error"][i]
        - after.mean["expected_calibration_error"][i]
    )
    brier = before.mean["brier_score_loss"][i] - after.mean["brier_score_loss"][i]
    print(f"{size:>11}  {ece:8.4f}  {brier:10.4f}")

# %%
# On 100 images the ECE credits temperature scaling with about a quarter of
# the gain it shows on 5,000 (0.013 against 0.049), because the small
# sample inflates the recalibrated model's ECE most. The Brier score's
# gain is the same at every size (up to the noise of the subsamples): a
# mean of per-image losses is unbiased whatever the size.
#
# Reading the curve
# -----------------
#
# Look at your own test-set size on the curve. Where a measure's curve
# still slopes there, its value, and a difference between two models, owes
# part of itself to the size; compare models by a flat measure (a proper
# score, see :ref:`proper_scores`), or by calibration errors on the same,
# and large, test set. Report the test-set size with every calibration
# error.
#
# References
# ----------
#
# S. G. Gruber and F. Buettner, "Better uncertainty calibration via proper
# scores for classification and beyond", NeurIPS 2022, arXiv:2203.07835.
