"""Benchmark every recalibrator: quality on real and scikit-learn data, and speed.

Two parts, in one run (``--part`` runs one of them).

**Part 1, the arena** (``benchmarks/_arena.py`` says how, in detail). In the
spirit of CalArena (probkit: some 1,800 recalibration experiments ranked on
log loss), every recalibrator skcal has (and its ``multiclass="ovr"`` and
``"top_label"`` variants) is fitted and scored on:

* the real outputs of ``skcal.datasets``: each network's softmax matrix
  (multiclass) and its top-label view (confidence against correctness,
  binary), and the two top-label logs (binary); fit on the first half and
  test on the second, and the reverse;
* scikit-learn data sets (breast cancer, digits and generated ones; the
  covertype data only when cached, as nothing is downloaded) with three base
  models (Gaussian naive Bayes, random forest, logistic regression) through
  ``RecalibratedClassifierCV(base, recalibrator, cv=5)``, fitted on a
  stratified half and scored on the other, over ``--splits`` random splits.

On the test part: log loss, Brier score, ECE and SmoothECE (top-label for
multiclass problems, the package's default). It prints one line per
experiment, then for binary and multiclass problems separately a ranking
table (mean rank on each measure, "none" = no recalibration as a baseline
row, share of first places, median change of log loss, failures, time) and
the pairwise win rates on log loss, and names the method with the best mean
log-loss rank. ``--out FILE`` writes every (experiment, method) row as CSV.
Recalibrators that are not in skcal yet (being written) are skipped with a
printed line and picked up once their module exists.

**Part 2, speed against references**, on the same kind of scores at
``--n-binary`` (default 10**5) binary and ``--n-multi`` x ``--n-classes``
(default 10**4 x 10 and 100) multiclass samples:

* scikit-learn's ``CalibratedClassifierCV`` (as before). Both libraries
  recalibrate the same frozen classifier on the same data:
  ``CalibratedClassifierCV(FrozenEstimator(clf), method=...)`` for the
  methods scikit-learn has (``isotonic``, ``sigmoid``, ``temperature``) and
  the matching skcal recalibrator with ``estimator=FrozenEstimator(clf)``.
  The classifier costs nothing: ``X`` holds the scores themselves and the
  classifier's ``decision_function`` (or ``predict_proba``) returns ``X`` as
  it is, so both libraries receive identical scores and the time is that of
  the recalibration alone. Predictions are made on the calibration set. Each
  row prints the median time (over ``--repeat`` runs) of fit and of
  predict_proba for skcal, for scikit-learn, and for skcal fed the score
  array directly (``estimator=None``); the ratio skcal / scikit-learn of fit
  + predict_proba (target <= 1.2); and the largest absolute difference of the
  two libraries' predict_proba, which shows they compute the same map.
  Histogram binning, modified Platt and mean replacement have no
  scikit-learn counterpart: only their own times are printed.
  Configurations matched to scikit-learn: on probabilities scikit-learn fits
  its sigmoid on the probabilities themselves, so Platt runs with
  ``input="logit"`` there (which reads the values as they are);
  scikit-learn's binary temperature scaling uses the logits ``(-s, s)`` and
  skcal ``(0, s)``, which give the same probabilities at the optimum. The
  optimisers differ (scikit-learn's sigmoid stops at a gradient of 1e-6), and
  scikit-learn takes ``log(p + 1e-12)`` of probabilities where skcal clips
  them, so the outputs differ by rounding and optimiser tolerance only.
* the reference packages, each where it computes the same kind of map
  (``benchmarks/_references.py``): betacal and netcal (beta calibration),
  cir_model (centered isotonic), splinecalib (spline), venn_abers and mapie
  (Venn-Abers), netcal (temperature, logistic = Platt / vector scaling,
  histogram binning, isotonic), relplot (kernel smoothing at the SmoothECE
  bandwidth) and scikit-learn's unpenalised multinomial logistic regression
  on log-probabilities (Dirichlet) and on logits (matrix scaling). Same
  columns; target: skcal no slower (ratio <= 1). A reference that is not
  installed is skipped with a printed line.

Run as ``python benchmarks/bench_recalibrators.py [--part {all,arena,timing}]
[--quick] [--splits S] [--out FILE] [--n-binary N] [--n-multi N]
[--n-classes K ...] [--repeat R] [--only NAME ...] [--data SET ...]``.
``--quick`` is a smoke run of about a minute; the default run takes some
15 minutes on two cores. ``--only`` keeps the methods whose label contains
one of the words (any case), ``--data`` the CalibratedClassifierCV score sets.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import itertools
import time
import warnings
from functools import partial

import numpy as np
from _arena import (
    build_methods,
    print_ranking,
    print_win_rates,
    ranking,
    real_experiments,
    run_arena,
    selected,
    sklearn_experiments,
    write_csv,
)
from _references import run_references, time_fit_predict
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
        if not selected(name, only):
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


def run_sklearn_blocks(args, data):
    """The CalibratedClassifierCV comparison on every requested score set."""
    print(
        "\ntimes in ms; skcal with FrozenEstimator(clf) (fit, predict_proba), "
        "skcal with estimator=None\n(fit + predict_proba), scikit-learn "
        "CalibratedClassifierCV(FrozenEstimator(clf)) (fit, predict_proba);\n"
        "ratio = skcal / scikit-learn of fit + predict_proba (target <= 1.2); "
        "max|diff| of predict_proba"
    )
    print(
        f"  {'method':16s} {'skcal fit':>9s} {'predict':>8s} {'X=scores':>9s} "
        f"{'sk fit':>9s} {'predict':>8s} {'ratio':>7s} {'max|diff|':>9s}"
    )
    s, p, y = data["binary"]
    blocks = {
        "binary-logit": [(f"binary, n = {len(y):,}, decision values", s, y, "logit")],
        "binary-proba": [
            (f"binary, n = {len(y):,}, probabilities", p, y, "probability")
        ],
        "multi-logit": [],
        "multi-proba": [],
    }
    for k in args.n_classes:
        logits, proba, y = data["multi", k]
        title = f"multiclass, n = {len(y):,} x {k} classes"
        blocks["multi-logit"].append((f"{title}, logits", logits, y, "logit"))
        blocks["multi-proba"].append(
            (f"{title}, probabilities", proba, y, "probability")
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for block in args.data or list(blocks):
            for title, X, y, kind in blocks[block]:
                run_block(title, X, y, kind, args.repeat, args.only)


def timing_part(args):
    """Part 2: fit + predict times against CalibratedClassifierCV and references."""
    print("\n=== Part 2: speed against scikit-learn and the reference implementations")
    rng = np.random.default_rng(0)
    data = {"binary": binary_data(args.n_binary, rng)}
    for k in args.n_classes:
        data["multi", k] = multiclass_data(args.n_multi, k, rng)
    run_sklearn_blocks(args, data)
    run_references(data, args.n_classes, args.repeat, args.only, args.quick)


def arena_part(args):
    """Part 1: every recalibrator on every data set, ranked."""
    print("=== Part 1: the arena (lower is better for every measure)")
    binary, multiclass = build_methods(args.only)
    print(f"  {len(binary)} binary and {len(multiclass)} multiclass methods, plus none")
    experiments = itertools.chain(
        real_experiments(args.quick),
        sklearn_experiments(args.quick, args.splits),
    )
    results = run_arena(experiments, binary, multiclass)
    for kept in results.values():
        if kept.experiments:
            order = print_ranking(kept)
            print_win_rates(kept, order)
    print("\ntry first (the three best mean log-loss ranks):")
    for kind, kept in results.items():
        if kept.experiments:
            rows = [row for row in ranking(kept) if row["method"] != "none"][:3]
            podium = ", ".join(f"{r['method']} ({r['ranks'][0]:.2f})" for r in rows)
            print(f"  {kind}: {podium}")
    if args.out:
        write_csv(args.out, results)
        print(f"every (experiment, method) row written to {args.out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["all", "arena", "timing"], default="all")
    parser.add_argument("--splits", type=int, default=3, help="random splits")
    parser.add_argument("--out", help="CSV file for every (experiment, method) row")
    parser.add_argument("--n-binary", type=int, default=10**5)
    parser.add_argument("--n-multi", type=int, default=10**4)
    parser.add_argument("--n-classes", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--quick", action="store_true", help="small sizes, one run (a smoke test)"
    )
    parser.add_argument("--only", nargs="*", help="words of method labels to run")
    parser.add_argument(
        "--data",
        nargs="*",
        choices=["binary-logit", "binary-proba", "multi-logit", "multi-proba"],
        help="CalibratedClassifierCV score sets (default: all four)",
    )
    args = parser.parse_args()
    if args.quick:
        args.n_binary, args.n_multi, args.n_classes = 10_000, 1_000, [5]
        args.repeat, args.splits = 1, 1
    start = time.perf_counter()
    if args.part in {"all", "arena"}:
        arena_part(args)
    if args.part in {"all", "timing"}:
        timing_part(args)
    print(f"\ntotal wall time {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
