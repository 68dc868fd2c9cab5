"""
======================================================
Reading reliability diagrams: smooth, binned, by class
======================================================

A reliability diagram plots how often a prediction comes true against what
was predicted; a calibrated model follows the diagonal. This example draws
the diagrams of two real CIFAR-10 classifiers with
:class:`~skcal.plotting.SmoothReliabilityDisplay`, the smooth (kernel)
diagram of Blasiok and Nakkiran (2024), whose line is thick where
predictions are many, and :class:`~skcal.plotting.BinnedReliabilityDisplay`,
the classical binned diagram with the number of predictions per bin;
one diagram per class; the diagrams before and after temperature
scaling; and what the smooth diagram draws when the data are too few for
it. On the way it shows what the shaded band means: how much the curve
moves when the data are resampled, *not* a confidence interval for the
true curve.

Set the environment variable ``SKCAL_FIGURES_DIR`` to a folder to save
every figure of this example there as a PNG file.
"""

# SPDX-License-Identifier: BSD-3-Clause

# %%
# Two classifiers of CIFAR-10
# ---------------------------
#
# We only have the predicted probabilities of two networks on the 10,000
# CIFAR-10 test images, with the true labels (from the netcal project,
# Apache-2.0 licence): a wide residual network (WRN-16-4, accurate) and a
# LeNet-5 (a small network, far less accurate).
import os
from pathlib import Path

import numpy as np

from skcal.datasets import load_cifar10_lenet, load_cifar10_wideresnet

figures = {}  # saved at the end when SKCAL_FIGURES_DIR is set


def load(loader):
    """Predicted probabilities (float64 rows summing to 1) and labels."""
    data = loader()
    proba = data.probabilities.astype(np.float64)
    return proba / proba.sum(axis=1, keepdims=True), data.target


proba_wrn, labels_wrn = load(load_cifar10_wideresnet)
proba_lenet, labels_lenet = load(load_cifar10_lenet)
models = {"WRN-16-4": (proba_wrn, labels_wrn), "LeNet-5": (proba_lenet, labels_lenet)}
for name, (proba, labels) in models.items():
    print(
        f"{name}: accuracy {np.mean(proba.argmax(1) == labels):.3f}, "
        f"mean confidence {proba.max(1).mean():.3f}"
    )

# %%
# Smooth reliability diagrams
# ---------------------------
#
# For a multiclass model the diagram is drawn for the *top label*: the
# confidence (the largest probability) against whether the predicted class
# is right. The smooth diagram is a kernel regression of correctness on
# confidence at the bandwidth :math:`\sigma^*` chosen by the SmoothECE. The
# line is wide where confidences are dense and thin where they are rare, so
# the eye weighs each part of the curve by how much it matters. It is drawn
# only where there are confidences: between the smallest and the largest,
# and where at least 10 of them are within about a bandwidth. The legend,
# below the axes, gives the SmoothECE and its bootstrap interval. Passing
# the same axes draws the second model next to the first.
import matplotlib.pyplot as plt

from skcal.plotting import SmoothReliabilityDisplay

fig, ax = plt.subplots(figsize=(5.5, 5.5), layout="constrained")
smooth = {
    name: SmoothReliabilityDisplay.from_predictions(
        labels, proba, name=name, random_state=0, ax=ax
    )
    for name, (proba, labels) in models.items()
}
ax.set_title("Smooth reliability diagrams (top label)")
figures["smooth"] = fig
for name, display in smooth.items():
    low, high = display.smooth_ece_interval
    print(
        f"{name}: sigma* = {display.sigma:.3f}, SmoothECE = "
        f"{display.smooth_ece:.3f} [{low:.3f}, {high:.3f}], confidences in "
        f"[{display.prediction_range[0]:.3f}, {display.prediction_range[1]:.3f}]"
    )

# %%
# At high confidence both curves lie below the diagonal: both networks are
# over-confident. The residual network's confidences crowd near 1, where
# its curve is thick; lower confidences are rare (a thin line) and their
# accuracy is far below the confidence. LeNet-5 spreads its confidences
# over the whole range.
#
# Every number drawn comes from
# :func:`~skcal.metrics.smooth_reliability_curve`, and is kept as a public
# attribute of the display (``grid``, ``curve``, ``density``,
# ``n_effective``, ``mean_prediction``, ``band_low``, ``band_high``,
# ``sigma``, ``smooth_ece``), so the numbers can be had without a picture.
#
# What the band is
# ----------------
#
# The shaded band is made by redrawing the curve on bootstrap resamples of
# the 10,000 predictions (1000 by default) and keeping the central 95% at
# each confidence. It shows how much *this estimator* moves under
# resampling: narrow where the data are many, wide where they are few,
# which is where the curve should not be trusted.
wrn = smooth["WRN-16-4"]
width = wrn.band_high - wrn.band_low
dense = wrn.density > 0.5 * wrn.density.max()
rare = wrn.density < 0.05 * wrn.density.max()
print(
    f"WRN-16-4 band width: {np.nanmedian(width[dense]):.3f} where confidences "
    f"are dense, {np.nanmedian(width[rare]):.3f} where they are rare"
)

# %%
# The band is *not* a confidence interval for the true curve. A kernel
# regression at a fixed bandwidth is biased, and resampling cannot see the
# bias. LeNet-5's smallest confidence is 0.164, yet its curve only starts
# at about 0.24. Below that, the kernel regression would cross above the
# diagonal, inside a narrow band, as if the model were under-confident
# there. It is not: at :math:`\sigma^* \approx 0.11` the kernel around
# :math:`t = 0.2` mostly weighs the far more numerous predictions above it,
# whose mean confidence is well above their accuracy. The curve at
# :math:`t` would be the accuracy of that window, drawn at :math:`t` rather
# than at the window's mean confidence, ``mean_prediction``. The diagram
# starts (and ends) its curve where the window's mean confidence is within
# one bandwidth of :math:`t`.
lenet = smooth["LeNet-5"]
confidence = proba_lenet.max(axis=1)
correct = proba_lenet.argmax(axis=1) == labels_lenet
kernel = np.exp(-0.5 * ((confidence - 0.2) / lenet.sigma) ** 2)
print(
    f"LeNet-5 at t = 0.2: curve {np.interp(0.2, lenet.grid, lenet.curve):.3f} "
    f"(not drawn); the kernel window's mean confidence "
    f"{np.interp(0.2, lenet.grid, lenet.mean_prediction):.3f} "
    f"(by hand {np.average(confidence, weights=kernel):.3f}), "
    f"accuracy {np.average(correct, weights=kernel):.3f}"
)

# %%
# Binned reliability diagrams
# ---------------------------
#
# The classical diagram sorts the confidences into 15 equal-width bins and
# plots each bin's accuracy against its mean confidence, with a Wilson
# interval per bin and the number of predictions in each bin as a strip of
# bars along the bottom (the tallest bar is the fullest bin). Empty bins
# have no point. The legend gives the binned ECE.
from skcal.plotting import BinnedReliabilityDisplay

fig, axes = plt.subplots(1, 2, figsize=(10, 6.4), layout="constrained")
figures["binned"] = fig
for ax, color, (name, (proba, labels)) in zip(
    axes, ["C0", "C1"], models.items(), strict=True
):
    binned = BinnedReliabilityDisplay.from_predictions(
        labels,
        proba,
        n_bins=15,
        name=name,
        ax=ax,
        line_kwargs={"color": color},
    )
    ax.set_title(f"{name}, 15 bins")
    gap = proba.max(axis=1).mean() - np.mean(proba.argmax(axis=1) == labels)
    print(
        f"{name}: ECE = {binned.ece:.4f}, mean confidence - accuracy = {gap:.4f}; "
        f"predictions per bin: {binned.table['count'].astype(int).tolist()}"
    )

# %%
# Every non-empty bin of LeNet-5 lies below the diagonal, including those
# where the kernel regression would have crossed it. The counts strip (each
# bar labelled with its count) shows what the smooth diagram shows by the
# width of its line: almost all of the residual network's predictions fall
# in the last bin, and the other bins rest on a few dozen or hundred
# predictions each (hence their long intervals).
#
# Both models are over-confident in every bin, so their ECE is simply the
# mean confidence minus the accuracy, and so is their SmoothECE: nothing
# cancels inside the absolute values of either measure.

# %%
# One diagram per class
# ---------------------
#
# ``reduction="classwise"`` draws one small diagram per class, one against
# the rest: the probability given to the class against whether the image
# belongs to it. For every class most probabilities are near 0 (the thick
# part of the line), and the curve shows where the model over- or
# under-estimates that class. The panels share their axes, each title
# gives the class's SmoothECE, and one legend below the grid explains the
# parts. Naming the labels (``labels=`` gives the order of the columns)
# names the panels (the loader's ``target_names``). Twenty bootstrap
# replicates per class keep the example fast.
cifar10 = load_cifar10_lenet().target_names
classwise = SmoothReliabilityDisplay.from_predictions(
    cifar10[labels_lenet],
    proba_lenet,
    labels=cifar10,
    reduction="classwise",
    n_bootstrap=20,
    random_state=0,
    name="LeNet-5",
)
classwise.figure_.suptitle("LeNet-5, one reliability diagram per class")
figures["classwise"] = classwise.figure_
print(f"classwise: {classwise.kind_} diagrams")

# %%
# Before and after temperature scaling
# ------------------------------------
#
# :class:`~skcal.calibration.TemperatureRecalibrator` divides the logits by
# one temperature fitted by log loss. We fit it on half of the residual
# network's test images and draw the diagrams on the other half, so the
# improvement is not measured on the data that produced it.
from sklearn.model_selection import train_test_split

from skcal.calibration import TemperatureRecalibrator

proba_fit, proba_eval, labels_fit, labels_eval = train_test_split(
    proba_wrn, labels_wrn, test_size=0.5, random_state=0, stratify=labels_wrn
)
temperature = TemperatureRecalibrator().fit(proba_fit, labels_fit)
proba_scaled = temperature.predict_proba(proba_eval)
print(f"fitted temperature {temperature.temperature_:.2f}")

# %%
# Left, each curve at its own bandwidth :math:`\sigma^*`; right, both at a
# common :math:`\sigma = 0.05` (the legend then gives
# :math:`\mathrm{smECE}_{0.05}`).
fig, axes = plt.subplots(1, 2, figsize=(10, 6.6), layout="constrained")
figures["temperature"] = fig
for ax, sigma in zip(axes, ["auto", 0.05], strict=True):
    for name, proba in [("uncalibrated", proba_eval), ("temperature", proba_scaled)]:
        display = SmoothReliabilityDisplay.from_predictions(
            labels_eval, proba, sigma=sigma, name=name, random_state=0, ax=ax
        )
        low, high = display.smooth_ece_interval
        print(
            f"sigma={sigma}, {name}: sigma = {display.sigma:.3f}, "
            f"smECE = {display.smooth_ece:.4f} [{low:.4f}, {high:.4f}]"
        )
    title = "own bandwidth sigma*" if sigma == "auto" else f"common sigma = {sigma}"
    ax.set_title(f"WRN-16-4, held-out half, {title}", fontsize="medium")

# %%
# A temperature above 1 softens every prediction: the confidences move
# away from 1 and the thick part of the curve moves onto the diagonal. The
# accuracy does not change (the largest probability stays the largest).
#
# Two things in the left panel are easy to misread. The SmoothECE is its
# own bandwidth, so the better calibrated model is smoothed with a much
# narrower kernel and its curve wiggles where confidences are rare: that
# is noise (see how wide the band is there), not structure; at a common
# bandwidth (right) the two curves are comparable. And the bootstrap
# interval of a small SmoothECE can lie entirely above the estimate:
# resampling adds noise, which a calibration error counts as
# miscalibration, so the bootstrap values are biased upwards. The interval
# measures sensitivity to resampling, like the band.

# %%
# When the smooth diagram would say nothing
# -----------------------------------------
#
# A small data set whose predictions are almost all at 0 or 1 leaves the
# kernel regression nothing to stand on in between: there it would swing
# between 0 and 1 inside a band filling the square. Out-of-fold
# predictions of a Gaussian naive Bayes model on scikit-learn's breast
# cancer data (569 rows) are such a case. The display then draws the binned
# diagram instead, with the count of each bin and its Wilson interval, and
# its legend says why; ``kind_`` and ``reason_`` record it
# (``fallback=None`` keeps the smooth curve, drawn only where the data
# are).
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import cross_val_predict
from sklearn.naive_bayes import GaussianNB

X, y = load_breast_cancer(return_X_y=True)
proba_nb = cross_val_predict(GaussianNB(), X, y, cv=5, method="predict_proba")
print(
    "predictions per tenth of [0, 1]:",
    np.histogram(proba_nb[:, 1], bins=10, range=(0, 1))[0].tolist(),
)
fig, axes = plt.subplots(1, 2, figsize=(10, 6.8), layout="constrained")
figures["fallback"] = fig
for ax, fallback in zip(axes, ["binned", None], strict=True):
    display = SmoothReliabilityDisplay.from_predictions(
        y,
        proba_nb,
        fallback=fallback,
        name="GaussianNB",
        random_state=0,
        ax=ax,
    )
    ax.set_title(f"fallback={fallback!r}: {display.kind_} diagram", fontsize="medium")
    print(f"fallback={fallback!r}: {display.kind_} ({display.reason_})")

# %%
# The binned diagram says what the data allow: about a third of the rows
# are predicted near 0 and are rarely positive, most of the others near 1
# and mostly positive, and the dozen predictions in between are too few for
# anything but very long intervals.
figures_dir = os.environ.get("SKCAL_FIGURES_DIR")
if figures_dir:
    for name, figure in figures.items():
        path = Path(figures_dir) / f"reliability_diagrams_{name}.png"
        figure.savefig(path, dpi=100)
        print(f"saved {path}")

# %%
# References
# ----------
#
# J. Blasiok and P. Nakkiran, "Smooth ECE: Principled Reliability Diagrams
# via Kernel Smoothing", ICLR 2024, arXiv:2309.12236.
#
# C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On Calibration of Modern
# Neural Networks", ICML 2017, arXiv:1706.04599.
#
# E. B. Wilson, "Probable inference, the law of succession, and statistical
# inference", J. Amer. Statist. Assoc. 22(158), 1927.
