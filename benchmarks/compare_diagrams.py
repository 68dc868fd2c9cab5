"""skcal's default diagrams beside scikit-learn's and relplot's, to look at.

For the demo's data (breast cancer, GaussianNB), iris (virginica against the
rest), wine (3 classes), ``make_classification``, ``load_digits`` (GaussianNB
and logistic regression, 10 classes) and every real model output of
:mod:`skcal.datasets`, draws skcal's smooth, binned and
calibration-sharpness diagrams, scikit-learn's ``CalibrationDisplay`` and
``relplot.rel_diagram`` on the same predictions (the binary view: the
positive class, or the top label's confidence against its correctness) and
writes them side by side as ``<out>/compare-<data>.png``; for the multiclass
sets also skcal's classwise grids. Prints which diagram the smooth Display
drew (``kind_``) and why.

Run as ``python benchmarks/compare_diagrams.py [--out DIR] [NAME ...]``
(a few minutes; NAME keeps the data sets whose name contains it). Needs
relplot.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import CalibrationDisplay
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_iris,
    load_wine,
    make_classification,
)
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import skcal.datasets
from skcal.plotting import (
    BinnedReliabilityDisplay,
    CalibrationSharpnessDisplay,
    SmoothReliabilityDisplay,
)


def _cv(model, X, y):
    return cross_val_predict(model, X, y, cv=5, method="predict_proba")


def datasets():
    """``(name, y_true, y_prob)`` of every data set compared."""
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast-cancer-gnb", y, _cv(GaussianNB(), X, y)
    X, y = load_iris(return_X_y=True)
    virginica = (y == 2).astype(int)
    yield "iris-logreg", virginica, _cv(LogisticRegression(max_iter=1000), X, virginica)
    X, y = load_wine(return_X_y=True)
    yield "wine-gnb", y, _cv(GaussianNB(), X, y)
    X, y = make_classification(n_samples=2000, n_informative=5, random_state=0)
    yield "make-classification-gnb", y, _cv(GaussianNB(), X, y)
    X, y = load_digits(return_X_y=True)
    yield "digits-gnb", y, _cv(GaussianNB(), X, y)
    scaled = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    yield "digits-logreg", y, _cv(scaled, X, y)
    for name in skcal.datasets.__all__:
        data = getattr(skcal.datasets, name)()
        if "probabilities" in data:
            proba = data.probabilities.astype(np.float64)
            y, p = data.target, proba / proba.sum(axis=1, keepdims=True)
        else:  # a top-label log
            y = (data.target == data.predicted).astype(int)
            p = data.confidence.astype(np.float64)
        yield name.removeprefix("load_"), y, p


def binary_view(y, p):
    """The positive class (or the top label's confidence) and its events."""
    if p.ndim == 1:
        return y, p
    if p.shape[1] == 2:
        return y, p[:, 1]
    return (p.argmax(axis=1) == y).astype(int), p.max(axis=1)


def _save(figure, path):
    figure.savefig(path, dpi=80, bbox_inches="tight")
    plt.close(figure)
    return path


def _parts(name, y, p, out):
    """One PNG per diagram, in the order they are shown."""
    smooth = SmoothReliabilityDisplay.from_predictions(y, p, random_state=0)
    print(f"{name}: smooth Display drew {smooth.kind_!r}; {smooth.reason_}")
    paths = [_save(smooth.figure_, out / f"part-{name}-smooth.png")]
    for label, display in [
        ("binned", BinnedReliabilityDisplay.from_predictions(y, p)),
        ("sharpness", CalibrationSharpnessDisplay.from_predictions(y, p)),
    ]:
        paths.append(_save(display.figure_, out / f"part-{name}-{label}.png"))
    yb, pb = binary_view(y, p)
    figure, ax = plt.subplots()
    CalibrationDisplay.from_predictions(yb, pb, n_bins=10, ax=ax)
    paths.append(_save(figure, out / f"part-{name}-sklearn.png"))
    import relplot

    with plt.rc_context():  # relplot sets its own style
        figure, _ = relplot.rel_diagram(pb, yb)
        paths.append(_save(figure, out / f"part-{name}-relplot.png"))
    return paths


def compare(name, y, p, out):
    """Write ``compare-<name>.png``: skcal's three diagrams, sklearn's, relplot's."""
    paths = _parts(name, y, p, out)
    titles = ["skcal smooth", "skcal binned", "skcal sharpness", "sklearn", "relplot"]
    figure, axes = plt.subplots(1, len(paths), figsize=(5 * len(paths), 5.5))
    for ax, path, title in zip(axes, paths, titles, strict=True):
        ax.imshow(mpimg.imread(path))
        ax.set_title(f"{title}: {name}", fontsize="small")
        ax.axis("off")
    _save(figure, out / f"compare-{name}.png")
    if p.ndim == 2 and p.shape[1] > 2 and p.shape[1] <= 10:
        for Display in (SmoothReliabilityDisplay, BinnedReliabilityDisplay):
            display = Display.from_predictions(y, p, reduction="classwise")
            _save(display.figure_, out / f"classwise-{name}-{Display.__name__}.png")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--out", default="compare-diagrams")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, y, p in datasets():
        if not args.names or any(n in name for n in args.names):
            compare(name, y, p, out)


if __name__ == "__main__":
    main()
