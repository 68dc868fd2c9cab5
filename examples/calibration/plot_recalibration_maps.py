"""
======================================
The maps that binary recalibrators fit
======================================

A binary recalibrator is a map from a score to a probability. This example
fits each of skcal's binary maps to the top-label confidence of a LeNet-5
network on CIFAR-10 (the probability of its predicted class, against whether
that class is right) and draws the maps side by side: the parametric ones
(Platt, beta, spline), the monotone non-parametric ones (isotonic, centred
isotonic, Venn-Abers with its interval) and the smooth reliability curve of
the kernel-smoothing recalibrator. Read more in the :ref:`User Guide
<recalibrators>`.
"""

# SPDX-License-Identifier: BSD-3-Clause

# %%
# The data: 2,000 images to fit the maps, 8,000 to test them
# -----------------------------------------------------------
# With ``multiclass="top_label"`` every map reads the confidence of the
# predicted class and returns the probability that this class is right; the
# predicted class never changes.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import log_loss

from skcal.calibration import (
    BetaRecalibrator,
    CenteredIsotonicRecalibrator,
    IsotonicRecalibrator,
    KernelSmoothingRecalibrator,
    PlattRecalibrator,
    SplineRecalibrator,
    VennAbersRecalibrator,
)
from skcal.datasets import load_cifar10_lenet
from skcal.metrics import expected_calibration_error, smooth_ece

data = load_cifar10_lenet()
proba, y = data.probabilities, data.target
p_cal, y_cal = proba[:2000], y[:2000]
p_test, y_test = proba[2000:], y[2000:]

recalibrators = {
    "Platt": PlattRecalibrator(multiclass="top_label"),
    "beta": BetaRecalibrator(multiclass="top_label"),
    "spline": SplineRecalibrator(multiclass="top_label"),
    "isotonic": IsotonicRecalibrator(multiclass="top_label"),
    "centred isotonic": CenteredIsotonicRecalibrator(multiclass="top_label"),
    "Venn-Abers": VennAbersRecalibrator(multiclass="top_label"),
    "kernel smoothing": KernelSmoothingRecalibrator(multiclass="top_label"),
}
for recal in recalibrators.values():
    recal.fit(p_cal, y_cal)

# %%
# The maps
# --------
# Each map is evaluated on rows whose top class has confidence ``c`` and
# whose other classes share the rest equally. Recalibrated top-label
# probabilities are clipped to at least 1/10, the smallest a top class of
# ten can have.
confidence = np.linspace(0.1, 1.0, 400)
rows = np.column_stack([confidence, np.repeat(((1 - confidence) / 9)[:, None], 9, 1)])


def top_probability(recal):
    return recal.predict_proba(rows)[:, 0]


fig, axes = plt.subplots(1, 3, figsize=(13, 4.4), sharey=True)
panels = [
    ("Parametric", ["Platt", "beta", "spline"]),
    ("Monotone, non-parametric", ["isotonic", "centred isotonic"]),
    ("Validity and smoothing", ["Venn-Abers", "kernel smoothing"]),
]
for ax, (title, names) in zip(axes, panels, strict=True):
    ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", label="identity")
    for name in names:
        ax.plot(confidence, top_probability(recalibrators[name]), label=name)
    if "Venn-Abers" in names:
        p0, p1 = recalibrators["Venn-Abers"].predict_interval(rows).T
        ax.fill_between(confidence, p0, p1, alpha=0.3, label="(p0, p1)")
    ax.set(title=title, xlabel="confidence of the predicted class", xlim=(0.1, 1))
    ax.legend(loc="upper left", fontsize=8)
axes[0].set(ylabel="recalibrated probability", ylim=(0, 1))
fig.tight_layout()

# %%
# The network is overconfident: the maps lie below the identity. The three
# parametric maps nearly coincide (the spline's criterion keeps a straight
# line in the log-odds, and beta calibration finds a = b, Platt's shape).
# Isotonic regression is a staircase, which ties confidences the network
# had ranked; the centred map joins the centres of the same steps and keeps
# the ranking. Venn-Abers' interval is narrow where calibration confidences
# are dense and wide below 0.2, where few images are. The kernel-smoothing
# curve averages over a bandwidth of about 0.1, which lifts it at the left
# end and flattens it near 1.
#
# How they do on the test images
# ------------------------------
# Log loss and Brier score are proper scores (lower is better); the ECE and
# the SmoothECE measure calibration alone.
print(f"{'':18} log loss    ECE  SmoothECE")
for name, recal in {"none": None, **recalibrators}.items():
    q = p_test if recal is None else recal.predict_proba(p_test)
    print(
        f"{name:<18} {log_loss(y_test, q):8.4f} "
        f"{expected_calibration_error(y_test, q):6.4f} "
        f"{smooth_ece(y_test, q):10.4f}"
    )

# %%
# All the maps remove most of the miscalibration. The parametric maps have
# the best log loss, Venn-Abers comes next, and the two isotonic maps pay
# for their steps. The kernel-smoothing map has the largest calibration
# error of the seven on the test images: near 1, where most images are, its
# bandwidth pulls the curve below the rate at which they are right.
# ``benchmarks/bench_recalibrators.py`` ranks every recalibrator on every
# real output in skcal's data and on scikit-learn data sets.
plt.show()
