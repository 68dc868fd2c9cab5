"""
============================================================
Calibration-sharpness diagrams: why a tiny ECE is not enough
============================================================

A calibration error says how far a model's confidences are from its
accuracy, not how much the confidences tell apart easy and hard inputs.
The mean-replacement baseline of Chidambaram and Ge (2024) gives every
prediction the same confidence, the accuracy on the calibration data: its
ECE is tiny and it is useless. This example draws the
calibration-sharpness diagram of
:class:`~skcal.plotting.CalibrationSharpnessDisplay` for a real CIFAR-10
network after temperature scaling and after mean replacement, and shows
how the diagram makes the failure of mean replacement obvious: a curve
that is a single point, a density that is a single spike and a sharpness
band taller than the square.

Set the environment variable ``SKCAL_FIGURES_DIR`` to a folder to save the
figure of this example there as a PNG file.
"""

# SPDX-License-Identifier: BSD-3-Clause

# %%
# Two recalibrations of one network
# ---------------------------------
#
# The predicted probabilities of a wide residual network (WRN-16-4) on the
# 10,000 CIFAR-10 test images (from the netcal project, Apache-2.0
# licence), shipped with skcal as
# :func:`~skcal.datasets.load_cifar10_wideresnet`. Both recalibrators are
# fitted on one half of the images and evaluated on the other half.
import os
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

from skcal.calibration import MeanReplacementRecalibrator, TemperatureRecalibrator
from skcal.datasets import load_cifar10_wideresnet

data = load_cifar10_wideresnet()
proba, labels = data.probabilities.astype(np.float64), data.target
proba /= proba.sum(axis=1, keepdims=True)

proba_fit, proba_eval, labels_fit, labels_eval = train_test_split(
    proba, labels, test_size=0.5, random_state=0, stratify=labels
)
recalibrated = {
    "uncalibrated": proba_eval,
    "temperature": TemperatureRecalibrator()
    .fit(proba_fit, labels_fit)
    .predict_proba(proba_eval),
    "mean replacement": MeanReplacementRecalibrator()
    .fit(proba_fit, labels_fit)
    .predict_proba(proba_eval),
}

# %%
# What the numbers say
# --------------------
#
# Mean replacement has by far the smallest calibration errors, binned
# (:func:`~skcal.metrics.expected_calibration_error`) or smooth
# (:func:`~skcal.metrics.smooth_ece`). Only a proper score, the Brier score
# here (summed over the classes), charges it for having thrown away which
# images are hard.
from skcal.metrics import (
    expected_calibration_error,
    kernel_calibration_error,
    smooth_ece,
)

print(f"{'':18} {'ECE':>7} {'SmoothECE':>9} {'Brier':>7} {'sharpness gap':>13}")
for name, p in recalibrated.items():
    kernel = kernel_calibration_error(labels_eval, p, return_sharpness=True)
    print(
        f"{name:18} {expected_calibration_error(labels_eval, p):7.4f} "
        f"{smooth_ece(labels_eval, p):9.4f} {kernel.total_loss:7.4f} "
        f"{kernel.sharpness_gap:13.4f}"
    )

# %%
# The diagrams
# ------------
#
# The diagram has three parts, all for the top label (the confidence
# against whether the predicted class is right):
#
# - the kernel calibration curve (bandwidth 0.05) against the diagonal,
#   which shows calibration, drawn where there are confidences (at least
#   10 within about a bandwidth);
# - a band around the curve whose height is the density of the confidences
#   times the pointwise *sharpness gap*, the part of the Brier score that
#   calibration does not explain: a wider band is worse. It is not an
#   uncertainty band;
# - the density of the confidences (hatched, scaled to a peak of 1), since
#   it does not matter how calibrated a model is at confidences it rarely
#   predicts.
#
# Every part has its entry in the legend, below each panel, and the first
# entry gives the calibration term :math:`d_{\varphi,\mathrm{CAL}}` and
# the total loss :math:`d_{\phi,\mathrm{TOT}}`. Both panels span [0, 1]
# on both axes, so they compare directly; a band taller than the square
# is drawn clipped, and its legend entry says so.
import matplotlib.pyplot as plt

from skcal.plotting import CalibrationSharpnessDisplay

fig, axes = plt.subplots(1, 2, figsize=(11, 7.0), layout="constrained")
displays = {}
for ax, color, name in zip(
    axes, ["C0", "C3"], ["temperature", "mean replacement"], strict=True
):
    displays[name] = CalibrationSharpnessDisplay.from_predictions(
        labels_eval,
        recalibrated[name],
        name=name,
        ax=ax,
        line_kwargs={"color": color},
    )
    ax.set_title(f"WRN-16-4 after {name} (held-out half)")

for name, display in displays.items():
    print(
        f"{name}: calibration {display.calibration_error:.5f}, total Brier "
        f"{display.total_loss:.4f}, tallest band "
        f"{np.nanmax(display.band_high - display.band_low):.2f}"
    )

# %%
# Reading them
# ------------
#
# After temperature scaling the curve follows the diagonal where the
# confidences are (near 1), and the band is thin: most of the loss is the
# irreducible uncertainty of the hard images, spread over the confidences
# the model actually uses. The curve stops where there are almost no
# predictions (see the density), and where the few low confidences are
# outweighed by the many above them (the kernel would report their
# accuracy instead).
#
# Mean replacement predicts a single confidence,
# ``displays["mean replacement"].constant_prediction``. Its curve is a
# single point: whatever the confidence, the kernel only ever sees that
# one value, so it can only report the overall accuracy, which it meets
# at the one point where all the predictions are. Its calibration term is
# therefore about zero, yet its density is a spike and the band there is
# taller than the whole unit square (drawn clipped): all of the Brier
# score, which is larger than after temperature scaling, is sharpness
# lost. Never select or compare recalibrators by a calibration error
# alone; look at the sharpness band, or at a proper score.
mean_replacement = displays["mean replacement"]
print(
    f"mean replacement predicts {mean_replacement.constant_prediction:.4f}; "
    f"accuracy on the held-out half "
    f"{np.mean(proba_eval.argmax(axis=1) == labels_eval):.4f}"
)
figures_dir = os.environ.get("SKCAL_FIGURES_DIR")
if figures_dir:
    path = Path(figures_dir) / "calibration_sharpness.png"
    fig.savefig(path, dpi=100)
    print(f"saved {path}")

# %%
# References
# ----------
#
# M. Chidambaram and R. Ge, "Reassessing how to compare and improve the
# calibration of machine learning models", arXiv:2406.04068.
#
# C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On Calibration of Modern
# Neural Networks", ICML 2017, arXiv:1706.04599.
