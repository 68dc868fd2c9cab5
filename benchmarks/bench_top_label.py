"""Top-label recalibration on real multiclass outputs: does the predicted class stay?

For every softmax matrix of :mod:`skcal.datasets`, each top-label recalibrator
(and temperature scaling) is fitted on the even rows and applied to the odd
ones. Prints, per recalibrator, the share of test predictions whose class
differs from the classifier's, the accuracy, the top-label ECE, and the share
of rows whose largest probability is not the predicted class.

Run as ``python benchmarks/bench_top_label.py`` (seconds).
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from skcal.calibration import (
    HistogramBinningRecalibrator,
    IsotonicRecalibrator,
    ModifiedPlattRecalibrator,
    PlattRecalibrator,
    TemperatureRecalibrator,
)
from skcal.datasets import (
    load_cifar10_lenet,
    load_cifar10_vgg16,
    load_cifar10_wideresnet,
    load_cifar100_wideresnet,
)
from skcal.metrics import expected_calibration_error

SOFTMAX_LOADERS = (
    load_cifar10_vgg16,
    load_cifar10_wideresnet,
    load_cifar10_lenet,
    load_cifar100_wideresnet,
)


def multiclass_files():
    """``(name, labels, float64 probabilities)`` of each shipped softmax matrix."""
    for loader in SOFTMAX_LOADERS:
        data = loader()
        proba = data.probabilities.astype(np.float64)
        proba /= proba.sum(axis=1, keepdims=True)
        yield loader.__name__.removeprefix("load_"), data.target, proba


def recalibrators():
    return {
        "isotonic": IsotonicRecalibrator(multiclass="top_label"),
        "Platt": PlattRecalibrator(multiclass="top_label"),
        "modified Platt": ModifiedPlattRecalibrator(multiclass="top_label"),
        "histogram": HistogramBinningRecalibrator(multiclass="top_label"),
        "temperature": TemperatureRecalibrator(),
    }


def main():
    for name, y, p in multiclass_files():
        fit, test = slice(0, None, 2), slice(1, None, 2)
        classifier = p[test].argmax(axis=1)
        print(
            f"{name}: {classifier.shape[0]} test rows, accuracy "
            f"{np.mean(classifier == y[test]):.4f}, top-label ECE "
            f"{expected_calibration_error(y[test], p[test]):.4f}"
        )
        print(
            f"  {'recalibrator':15s} {'changed':>8s} {'accuracy':>9s} {'ECE':>7s} "
            f"{'max not predicted':>18s}"
        )
        for label, recalibrator in recalibrators().items():
            recalibrator.fit(p[fit], y[fit])
            proba = recalibrator.predict_proba(p[test])
            predicted = recalibrator.predict(p[test])
            print(
                f"  {label:15s} {np.mean(predicted != classifier):8.4f} "
                f"{np.mean(predicted == y[test]):9.4f} "
                f"{expected_calibration_error(y[test], proba):7.4f} "
                f"{np.mean(proba.argmax(axis=1) != predicted):18.4f}"
            )


if __name__ == "__main__":
    main()
