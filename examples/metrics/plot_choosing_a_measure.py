"""
===================
Choosing a measure
===================

"The ECE" of a model is not one number: it depends on the bins, and it is
biased upwards, most of all when the model is calibrated and the sample is
small. This example shows both effects, first on data whose true
calibration error is known to be 0, then on a real network's outputs, and
compares the binned ECE with the consistent measures of skcal: the
SmoothECE, the cutoff calibration error and the smooth calibration error.
"""

# SPDX-License-Identifier: BSD-3-Clause

# %%
# A perfectly calibrated model
# ----------------------------
#
# Draw predictions uniformly and outcomes from them: the model is
# calibrated, so every calibration error of the population is 0. The
# estimates are not, and the binned ECE's bias grows with the number of bins
# (fewer samples per bin, more noise mistaken for miscalibration) and
# shrinks with the sample size.
import numpy as np

from skcal.metrics import (
    cutoff_calibration_error,
    expected_calibration_error,
    smooth_calibration_error,
    smooth_ece,
)

rng = np.random.default_rng(0)
print(f"{'n':>7} {'ECE 5 bins':>11} {'ECE 15':>8} {'ECE 50':>8} {'SmoothECE':>10}")
for n in (300, 3_000, 30_000):
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    binned = [expected_calibration_error(y, p, n_bins=b) for b in (5, 15, 50)]
    print(
        f"{n:7d}" + "".join(f"{v:9.4f}" for v in binned) + f"{smooth_ece(y, p):11.4f}"
    )

# %%
# All estimates shrink like :math:`1/\sqrt{n}`; none is 0. The SmoothECE
# chooses its own bandwidth and has no bins to tune. To tell whether such a
# value is consistent with a calibrated model, give it an interval
# (:func:`~skcal.metrics.confidence_interval`): for a calibrated model its
# lower end is 0.

# %%
# A real network: the ECE depends on the bins
# -------------------------------------------
#
# The WideResNet-16-4 of :func:`~skcal.datasets.load_cifar100_wideresnet`
# (100 classes) is over-confident at high confidence and under-confident at
# low confidence. Its top-label ECE for 5 to 100 equal-width bins, and with
# equal-mass (quantile) bins:
import matplotlib.pyplot as plt

from skcal.datasets import load_cifar100_wideresnet

wide = load_cifar100_wideresnet()
y, proba = wide.target, wide.probabilities
n_bins = [5, 10, 15, 20, 30, 50, 75, 100]
uniform = [expected_calibration_error(y, proba, n_bins=b) for b in n_bins]
quantile = [
    expected_calibration_error(y, proba, n_bins=b, strategy="quantile") for b in n_bins
]

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(n_bins, uniform, "o-", label="binned ECE, equal-width bins")
ax.plot(n_bins, quantile, "s-", label="binned ECE, equal-mass bins")
ax.axhline(smooth_ece(y, proba), color="black", linestyle="--", label="SmoothECE")
ax.set(xlabel="number of bins", ylabel="top-label calibration error")
ax.set_title("WideResNet on CIFAR-100: the ECE moves with the bins")
ax.legend()
fig.tight_layout()

# %%
# With few wide bins, over- and under-confident predictions share a bin and
# their gaps cancel: 5 equal-mass bins give 0.050. With many bins, each
# holds few predictions and their noise adds up: 100 equal-width bins give
# 0.063. Which value is "the" ECE is a
# choice of the analyst. The SmoothECE makes that choice from the data (its
# bandwidth is a fixed point), so it has nothing left to tune.

# %%
# Three consistent measures beside the binned ECE
# -----------------------------------------------
#
# The measures below estimate well-defined quantities that do not depend on
# a binning, and converge to them as the sample grows:
#
# - the SmoothECE (Błasiok and Nakkiran), the mean gap of a kernel-smoothed
#   reliability curve at a self-chosen bandwidth;
# - the cutoff calibration error (Rossellini et al.), the largest mean
#   residual over an interval of predictions, which comes with a test;
# - the smooth calibration error, the largest correlation of the residual
#   with a 1-Lipschitz function, within a factor of two of the distance to
#   calibration.
#
# On the WideResNet and on the badly over-confident LeNet-5 of
# :func:`~skcal.datasets.load_cifar10_lenet`:
from skcal.datasets import load_cifar10_lenet

lenet = load_cifar10_lenet()
measures = {
    "binned ECE (15 bins)": expected_calibration_error,
    "SmoothECE": smooth_ece,
    "cutoff calibration error": cutoff_calibration_error,
    "smooth calibration error": smooth_calibration_error,
}
print(f"{'':<26} {'WideResNet':>10} {'LeNet-5':>8}")
for name, measure in measures.items():
    print(
        f"{name:<26} {measure(y, proba):10.4f} "
        f"{measure(lenet.target, lenet.probabilities):8.4f}"
    )

# %%
# The LeNet-5 is over-confident at every confidence. When the gap between
# confidence and accuracy has the same sign everywhere, every one of these
# measures equals the gap of the means, mean confidence minus accuracy
# (0.6387 - 0.5308): they agree. The WideResNet's gap changes sign, and
# the measures weigh the change differently: the smooth calibration error,
# which only sees slowly varying patterns, is the smallest.

# %%
# What to report
# --------------
#
# Report the SmoothECE with its interval and its smooth reliability diagram,
# beside a proper score (the Brier score or the log loss), which also
# rewards sharp predictions. Report a binned ECE only to compare with
# published numbers, and then say how many bins and which kind. Use the
# cutoff calibration test to certify that the error is below a tolerance.
# The :ref:`user guide <which_measure>` discusses each choice.
