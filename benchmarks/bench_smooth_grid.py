"""SmoothECE's grids: one small call against relplot, classwise views against
the pass over their data.

The SmoothECE smooths each bandwidth its bisection tries on a grid sized to
that bandwidth. This script prints, ratio first, medians of interleaved runs:

- ``skcal.metrics.smooth_ece`` on the 569 out-of-fold predictions of a
  logistic regression on scikit-learn's breast cancer data, against
  ``relplot.smECE`` on the same data (if installed): ``skcal / relplot``;
- the classwise SmoothECE per class, on the shipped CIFAR-100 WideResNet
  predictions (10,000 x 100) and on simulated softmax outputs (100,000 x 1000,
  float32, ``--rows`` and ``--classes`` to change), against the floor of one
  pass over each class's data: taking its column as float64 and binning it
  onto a 256-node grid. The ratio says how much more than its data a class
  costs.

Run as ``python benchmarks/bench_smooth_grid.py [--repeat R]``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skcal._utils._grid import linear_binning
from skcal.datasets import load_cifar100_wideresnet
from skcal.metrics import smooth_ece

try:
    import relplot
except ImportError:  # pragma: no cover - optional reference
    relplot = None


def interleaved(contenders, repeat):
    """Median seconds of each callable, run in turn ``repeat`` times."""
    times = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, func in contenders.items():
            start = time.perf_counter()
            func()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def breast_cancer_predictions():
    """Out-of-fold probabilities of a scaled logistic regression."""
    X, y = load_breast_cancer(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression())
    return y, cross_val_predict(model, X, y, method="predict_proba")[:, 1]


def simulated_softmax(n_rows, n_classes, seed=0):
    """Float32 softmax outputs of a fairly accurate, overconfident model."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_rows)
    logits = rng.normal(size=(n_rows, n_classes)).astype(np.float32)
    logits[np.arange(n_rows), y] += rng.normal(5.5, 2.0, n_rows).astype(np.float32)
    logits -= logits.max(axis=1, keepdims=True)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=1, keepdims=True)
    return y, logits


def data_pass(y, proba):
    """Each class's column as float64, binned onto a 256-node grid."""
    for k in range(proba.shape[1]):
        column = proba[:, k].astype(np.float64)
        linear_binning(column, (y == k).view(np.uint8), None, 256, ("residual",))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--classes", type=int, default=1000)
    args = parser.parse_args()

    y, p = breast_cancer_predictions()
    contenders = {"skcal": lambda: smooth_ece(y, p)}
    if relplot is not None:
        contenders["relplot"] = lambda: relplot.smECE(p, y)
    times = interleaved(contenders, max(args.repeat, 20))
    line = f"breast cancer, 569 rows: skcal {times['skcal'] * 1e3:.2f} ms"
    if relplot is not None:
        ratio = times["skcal"] / times["relplot"]
        line = f"{ratio:.2f}x relplot  " + line
        line += f", relplot {times['relplot'] * 1e3:.2f} ms"
    print(line)

    cifar = load_cifar100_wideresnet()
    datasets = {
        "CIFAR-100 WideResNet": (cifar.target, cifar.probabilities),
        f"simulated {args.rows} x {args.classes}": simulated_softmax(
            args.rows, args.classes
        ),
    }
    for name, (y, proba) in datasets.items():
        n_classes = proba.shape[1]
        times = interleaved(
            {
                "classwise": lambda y=y, proba=proba: smooth_ece(
                    y, proba, reduction="classwise"
                ),
                "data pass": lambda y=y, proba=proba: data_pass(y, proba),
            },
            args.repeat,
        )
        per_class = times["classwise"] / n_classes
        floor = times["data pass"] / n_classes
        print(
            f"{per_class / floor:.1f}x the data pass  {name} ({proba.dtype}): "
            f"classwise {per_class * 1e3:.2f} ms a class, "
            f"data pass {floor * 1e3:.3f} ms a class"
        )


if __name__ == "__main__":
    main()
