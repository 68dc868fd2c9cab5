"""Time every recalibrator's fit + predict_proba against CalibratedClassifierCV.

Both libraries recalibrate the same frozen classifier on the same data in one
run: ``CalibratedClassifierCV(FrozenEstimator(clf), method=...)`` for the
methods scikit-learn has (``isotonic``, ``sigmoid``, ``temperature``) and the
matching skcal recalibrator with ``estimator=FrozenEstimator(clf)``. The
classifier costs nothing: ``X`` holds the scores themselves and the
classifier's ``decision_function`` (or ``predict_proba``) returns ``X`` as it
is, so both libraries receive identical scores and the time is that of the
recalibration alone. Predictions are made on the calibration set.

* binary: ``--n-binary`` (default 10**6) decision values, and their
  probabilities (a classifier with ``predict_proba`` only);
* multiclass: ``--n-multi`` x ``--n-classes`` (default 10**5 x 100) logits,
  and their softmax.

Each row prints the median time (over ``--repeat`` runs) of fit and of
predict_proba for skcal, for scikit-learn, and for skcal fed the score array
directly (``estimator=None``); the ratio skcal / scikit-learn of fit +
predict_proba (target <= 1.2); and the largest absolute difference of the two
libraries' predict_proba, which shows they compute the same map. Histogram
binning, modified Platt and mean replacement have no scikit-learn counterpart:
only their own times are printed.

Configurations matched to scikit-learn: on probabilities scikit-learn fits its
sigmoid on the probabilities themselves, so Platt runs with ``input="logit"``
there (which reads the values as they are); scikit-learn's binary temperature
scaling uses the logits ``(-s, s)`` and skcal ``(0, s)``, which give the same
probabilities at the optimum. The optimisers differ (scikit-learn's sigmoid
stops at a gradient of 1e-6), and scikit-learn takes ``log(p + 1e-12)`` of
probabilities where skcal clips them, so the outputs differ by rounding and
optimiser tolerance only (below 1e-6 at the default sizes).

Run as ``python benchmarks/bench_recalibrators.py [--n-binary N] [--n-multi N]
[--n-classes K] [--repeat R] [--quick] [--only METHOD ...] [--data SET ...]``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import time
import warnings
from functools import partial

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.calibration import CalibratedClassifierCV
from sklearn.frozen import FrozenEstimator

from skcal.calibration import (
    HistogramBinningRecalibrator,
    IsotonicRecalibrator,
    MeanReplacementRecalibrator,
    ModifiedPlattRecalibrator,
    PlattRecalibrator,
    TemperatureRecalibrator,
)


class _ScoreClassifier(ClassifierMixin, BaseEstimator):
    """A classifier whose input ``X`` is already its scores."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.n_features_in_ = X.shape[1]
        return self

    def _response(self, X):
        # A binary decision function is one column; anything else is returned
        # as it is (a view, so it costs nothing).
        return X[:, 0] if X.shape[1] == 1 else X

    def predict(self, X):
        scores = self._response(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]


class LogitClassifier(_ScoreClassifier):
    """``decision_function(X)`` returns ``X`` (one column when binary)."""

    def decision_function(self, X):
        return self._response(X)


class ProbabilityClassifier(_ScoreClassifier):
    """``predict_proba(X)`` returns ``X`` (rows of probabilities)."""

    def predict_proba(self, X):
        return self._response(X)


def binary_data(n, rng):
    """Decision values, their probabilities (two columns) and labels."""
    s = rng.normal(scale=2.0, size=n)
    y = (rng.uniform(size=n) < expit(0.6 * s + 0.3)).astype(np.int64)
    p = expit(s)
    return s.reshape(-1, 1), np.column_stack([1.0 - p, p]), y


def multiclass_data(n, n_classes, rng):
    """Overconfident logits, their softmax and labels drawn from the truth."""
    logits = rng.normal(scale=3.0, size=(n, n_classes))
    truth = softmax(0.5 * logits, axis=1)
    u = rng.uniform(size=(n, 1))
    y = np.minimum((np.cumsum(truth, axis=1) < u).sum(axis=1), n_classes - 1)
    y[:n_classes] = np.arange(n_classes)  # every class is seen
    return logits, softmax(logits, axis=1), y


def time_fit_predict(factories, X, y, repeat):
    """Median fit and predict_proba seconds of each factory's fresh estimators.

    The factories take turns within each repeat, so that a change of load
    on the machine hits them alike. Returns one ``(fit, predict, proba)``
    per factory, ``proba`` from its last run.
    """
    times = np.zeros((len(factories), 2, repeat))
    probas = [None] * len(factories)
    for r in range(repeat):
        for i, make in enumerate(factories):
            estimator = make()
            start = time.perf_counter()
            estimator.fit(X, y)
            middle = time.perf_counter()
            probas[i] = estimator.predict_proba(X)
            times[i, :, r] = middle - start, time.perf_counter() - middle
    medians = np.median(times, axis=2)
    return [
        (fit, predict, p) for (fit, predict), p in zip(medians, probas, strict=True)
    ]


def cases(kind):
    """Rows for scores of ``kind``: (name, skcal factory, sklearn method or None).

    A factory takes the estimator (a frozen classifier, or None for the score
    array itself) and returns an unfitted recalibrator.
    """
    platt_input = "logit" if kind == "probability" else "auto"
    return [
        ("isotonic", IsotonicRecalibrator, "isotonic"),
        ("sigmoid", lambda e: PlattRecalibrator(e, input=platt_input), "sigmoid"),
        ("temperature", TemperatureRecalibrator, "temperature"),
        ("histogram", HistogramBinningRecalibrator, None),
        ("modified Platt", ModifiedPlattRecalibrator, None),
        ("mean replacement", MeanReplacementRecalibrator, None),
    ]


def run_block(title, X, y, kind, repeat, only):
    """Time every recalibrator on the scores ``X`` of ``kind`` and print the rows."""
    model = LogitClassifier if kind == "logit" else ProbabilityClassifier
    frozen = FrozenEstimator(model().fit(X, y))
    print(f"{title}, median of {repeat}")
    for name, make, method in cases(kind):
        if only and name not in only:
            continue
        factories = [partial(make, frozen), partial(make, None)]
        if method is not None:
            factories.append(partial(CalibratedClassifierCV, frozen, method=method))
        results = time_fit_predict(factories, X, y, repeat)
        (fit, predict, proba), (fit_none, predict_none, _) = results[:2]
        line = (
            f"  {name:16s} {fit * 1e3:9.1f} {predict * 1e3:8.1f} "
            f"{(fit_none + predict_none) * 1e3:9.1f}"
        )
        if method is not None:
            sk_fit, sk_predict, sk_proba = results[2]
            ratio = (fit + predict) / (sk_fit + sk_predict)
            flag = "" if ratio <= 1.2 else "  SLOWER"
            line += (
                f" {sk_fit * 1e3:9.1f} {sk_predict * 1e3:8.1f} {ratio:7.3f} "
                f"{np.max(np.abs(proba - sk_proba)):9.2e}{flag}"
            )
        print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-binary", type=int, default=10**6)
    parser.add_argument("--n-multi", type=int, default=10**5)
    parser.add_argument("--n-classes", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--quick", action="store_true", help="small sizes, one run (a smoke test)"
    )
    parser.add_argument("--only", nargs="*", help="names of methods to run")
    parser.add_argument(
        "--data",
        nargs="*",
        choices=["binary-logit", "binary-proba", "multi-logit", "multi-proba"],
        help="score sets to run (default: all four)",
    )
    args = parser.parse_args()
    if args.quick:
        args.n_binary, args.n_multi, args.n_classes = 10_000, 1_000, 5
        args.repeat = 1

    print(
        "times in ms; skcal with FrozenEstimator(clf) (fit, predict_proba), "
        "skcal with estimator=None\n(fit + predict_proba), scikit-learn "
        "CalibratedClassifierCV(FrozenEstimator(clf)) (fit, predict_proba);\n"
        "ratio = skcal / scikit-learn of fit + predict_proba (target <= 1.2); "
        "max|diff| of predict_proba"
    )
    print(
        f"  {'method':16s} {'skcal fit':>9s} {'predict':>8s} {'X=scores':>9s} "
        f"{'sk fit':>9s} {'predict':>8s} {'ratio':>7s} {'max|diff|':>9s}"
    )
    rng = np.random.default_rng(0)
    binary = binary_data(args.n_binary, rng)
    multi = multiclass_data(args.n_multi, args.n_classes, rng)
    blocks = {
        "binary-logit": ("decision values", binary[0], binary[2], "logit"),
        "binary-proba": ("probabilities", binary[1], binary[2], "probability"),
        "multi-logit": ("logits", multi[0], multi[2], "logit"),
        "multi-proba": ("probabilities", multi[1], multi[2], "probability"),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for block in args.data or list(blocks):
            label, X, y, kind = blocks[block]
            if block.startswith("binary"):
                title = f"binary, n = {args.n_binary:,}, {label}"
            else:
                title = (
                    f"multiclass, n = {args.n_multi:,} x {args.n_classes} classes, "
                    f"{label}"
                )
            run_block(title, X, y, kind, args.repeat, args.only)


if __name__ == "__main__":
    main()
