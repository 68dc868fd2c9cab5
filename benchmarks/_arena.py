"""The recalibration arena of ``bench_recalibrators.py``: every method, every data set.

In the spirit of CalArena (probkit): every recalibrator of skcal, with
``multiclass="ovr"`` and ``"top_label"`` where it has that parameter, is fitted
on one part of a data set and scored on another, and the methods are ranked
within each experiment. Two families of experiments:

* **real outputs** (``skcal.datasets``): each network's probabilities as a
  multiclass problem, and their binary top-label view (the confidence against
  the correctness of the top class); the two top-label logs are binary
  already. Fit on the first half and test on the second, then the reverse.
  The ImageNet log is sorted by class, so that its halves would hold disjoint
  classes: a sorted target is shuffled once (seed 0) before halving.
* **scikit-learn data sets** (built in or generated, no download):
  ``RecalibratedClassifierCV(base, recalibrator, cv=5)`` is fitted on a
  stratified half (train) and scored on the other half (test), over a few
  random splits, for three base models. The base models of the folds are
  fitted once and shared by all the recalibrators (:class:`SharedFits`), so
  that the methods are compared on the very same classifiers.

"none" is the baseline: the scores as they are (real outputs), or the base
model fitted on the whole train part (scikit-learn data sets).

Measures on the test part, lower is better: log loss
(:func:`sklearn.metrics.log_loss` on float64 probabilities, clipped to
``[eps, 1 - eps]`` with ``eps`` = 2.2e-16); Brier score
(:func:`sklearn.metrics.brier_score_loss`: ``mean (y - p)**2`` for a binary
problem, the sum over the classes for a multiclass one); ECE
(:func:`skcal.metrics.expected_calibration_error`, 15 equal-width bins) and
SmoothECE (:func:`skcal.metrics.smooth_ece`), both with their default
reduction: the positive class for a binary problem, top-label (confidence
against correctness) for a multiclass one. A method that raises, or returns
probabilities that are not finite, in [0, 1] and summing to 1, fails the
experiment: it ranks last there, and the failures are counted.
"""

# SPDX-License-Identifier: BSD-3-Clause

import csv
import hashlib
import importlib
import inspect
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import (
    fetch_covtype,
    load_breast_cancer,
    load_digits,
    make_classification,
    make_gaussian_quantiles,
    make_hastie_10_2,
    make_moons,
)
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import LabelEncoder, StandardScaler
from sklearn.utils.metaestimators import available_if

import skcal.calibration
import skcal.datasets
from skcal.calibration import RecalibratedClassifierCV
from skcal.metrics import expected_calibration_error, smooth_ece

MEASURES = ("log loss", "Brier", "ECE", "SmoothECE")

# Folds of RecalibratedClassifierCV in the scikit-learn experiments.
CV_FOLDS = 5

# (label, class name, private modules that may hold it, keyword arguments).
# Classes are looked up in skcal.calibration first, then in the modules, so
# that a recalibrator is benchmarked as soon as its module exists.
RECALIBRATORS = (
    ("Platt", "PlattRecalibrator", ("_platt",), {}),
    ("modified Platt", "ModifiedPlattRecalibrator", ("_modified_platt",), {}),
    ("isotonic", "IsotonicRecalibrator", ("_isotonic",), {}),
    ("histogram", "HistogramBinningRecalibrator", ("_histogram",), {}),
    ("temperature", "TemperatureRecalibrator", ("_temperature",), {}),
    ("mean replacement", "MeanReplacementRecalibrator", ("_mean_replacement",), {}),
    ("beta abm", "BetaRecalibrator", ("_beta",), {"parameters": "abm"}),
    ("beta am", "BetaRecalibrator", ("_beta",), {"parameters": "am"}),
    ("beta ab", "BetaRecalibrator", ("_beta",), {"parameters": "ab"}),
    (
        "centered isotonic",
        "CenteredIsotonicRecalibrator",
        ("_centered_isotonic",),
        {},
    ),
    ("spline", "SplineRecalibrator", ("_spline",), {}),
    ("Venn-Abers", "VennAbersRecalibrator", ("_venn_abers",), {}),
    ("kernel smoothing", "KernelSmoothingRecalibrator", ("_kernel_smoothing",), {}),
    (
        "ensemble temperature",
        "EnsembleTemperatureRecalibrator",
        ("_ensemble_temperature",),
        {},
    ),
    ("vector scaling", "VectorScalingRecalibrator", ("_matrix_scaling",), {}),
    ("matrix scaling", "MatrixScalingRecalibrator", ("_matrix_scaling",), {}),
    ("Dirichlet", "DirichletRecalibrator", ("_matrix_scaling", "_dirichlet"), {}),
    (
        "structured matrix",
        "StructuredMatrixScalingRecalibrator",
        ("_matrix_scaling", "_structured_matrix_scaling"),
        {},
    ),
)


def find_recalibrator(name, modules=()):
    """The class ``name`` of skcal.calibration, or of one of its private modules.

    Returns ``(cls, None)``, or ``(None, why)`` when it is not there (yet).
    """
    cls = getattr(skcal.calibration, name, None)
    if cls is not None:
        return cls, None
    why = "not in skcal.calibration"
    for module in modules:
        path = f"skcal.calibration.{module}"
        try:
            found = importlib.import_module(path)
        except ModuleNotFoundError as exc:
            if exc.name != path:  # the module exists, one of its imports not
                why = f"importing {module} raised ModuleNotFoundError: {exc}"
            continue
        except Exception as exc:  # a half-written module: report, go on
            why = f"importing {module} raised {type(exc).__name__}: {exc}"
            continue
        cls = getattr(found, name, None)
        if cls is not None:
            return cls, None
        why = f"skcal.calibration.{module} has no {name}"
    return None, why


def selected(label, only):
    """Whether ``label`` is asked for by ``--only`` (substrings, any case)."""
    return not only or any(word.lower() in label.lower() for word in only)


@dataclass(frozen=True)
class Method:
    """One recalibrator configuration: a class and its keyword arguments."""

    label: str
    cls: type
    kwargs: dict = field(default_factory=dict)

    def make(self, estimator=None):
        """A new unfitted recalibrator of ``estimator`` (None: scores as X)."""
        return self.cls(estimator, **self.kwargs)


def _probe_data(n_classes):
    """A small, deterministic score set with ``n_classes`` classes."""
    rng = np.random.default_rng(0)
    logits = rng.normal(scale=2.0, size=(300, n_classes))
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)
    return (proba[:, 1] if n_classes == 2 else proba), y


def _probe(method, n_classes):
    """None if ``method`` fits and predicts a small problem, else why not."""
    X, y = _probe_data(n_classes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            proba = method.make().fit(X, y).predict_proba(X)
        check_proba(proba, len(y), n_classes)
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:90]}"
    return None


def _variants(label, cls, kwargs):
    """The binary method and the multiclass methods of one registry entry."""
    binary = [Method(label, cls, kwargs)]
    if "multiclass" not in inspect.signature(cls).parameters:
        return binary, binary
    return binary, [
        Method(f"{label} ({short})", cls, {**kwargs, "multiclass": option})
        for short, option in (("ovr", "ovr"), ("top", "top_label"))
    ]


def build_methods(only=None, log=print):
    """Binary and multiclass methods of every recalibrator skcal has now.

    A missing class, or one that lacks a keyword argument of its entry, is
    skipped with a printed line; so is a method that cannot fit a small
    binary (or multiclass) problem, for that kind of problem.
    """
    binary, multiclass = [], []
    for label, name, modules, kwargs in RECALIBRATORS:
        if not selected(label, only):
            continue
        cls, why = find_recalibrator(name, modules)
        if cls is None:
            log(f"  skipped {label}: {name} {why}")
            continue
        missing = set(kwargs) - set(inspect.signature(cls).parameters)
        if missing:
            log(f"  skipped {label}: {name} has no parameter {sorted(missing)}")
            continue
        variants = _variants(label, cls, kwargs)
        for kind, found, n_classes in zip(
            ("binary", "multiclass"), variants, (2, 3), strict=True
        ):
            for method in found:
                why = _probe(method, n_classes)
                if why is None:
                    (binary if kind == "binary" else multiclass).append(method)
                else:
                    log(f"  skipped {method.label} on {kind} problems: {why}")
    return binary, multiclass


def check_proba(proba, n_samples, n_classes):
    """Raise ValueError unless ``proba`` is a valid probability matrix."""
    proba = np.asarray(proba)
    if proba.shape != (n_samples, n_classes):
        raise ValueError(f"predict_proba has shape {proba.shape}")
    if not np.all(np.isfinite(proba)):
        raise ValueError("predict_proba is not finite")
    if proba.min() < -1e-12 or proba.max() > 1 + 1e-12:
        raise ValueError("predict_proba is outside [0, 1]")
    if np.max(np.abs(proba.sum(axis=1) - 1.0)) > 1e-6:
        raise ValueError("rows of predict_proba do not sum to 1")
    return np.asarray(proba, dtype=np.float64)


def measure(y, proba):
    """Log loss, Brier score, ECE and SmoothECE of ``proba`` (lower is better)."""
    labels = np.arange(proba.shape[1])
    if proba.shape[1] == 2:
        p = proba[:, 1]
        return (
            log_loss(y, p, labels=labels),
            brier_score_loss(y, p, labels=labels),
            expected_calibration_error(y, p),
            smooth_ece(y, p),
        )
    return (
        log_loss(y, proba, labels=labels),
        brier_score_loss(y, proba, labels=labels),
        expected_calibration_error(y, proba, labels=labels),
        smooth_ece(y, proba, labels=labels),
    )


# --- base models shared by the recalibrators ----------------------------------

_FITTED: dict = {}
_SCORES: dict = {}


def _digest(*arrays):
    """A short fingerprint of arrays (their bytes and shapes)."""
    h = hashlib.blake2b(digest_size=16)
    for array in arrays:
        a = np.ascontiguousarray(array)
        h.update(repr((a.shape, a.dtype.str)).encode())
        h.update(a.view(np.uint8).reshape(-1))
    return h.hexdigest()


def _has(method):
    return lambda self: hasattr(self.estimator, method)


class SharedFits(ClassifierMixin, BaseEstimator):
    """A classifier whose fits (and scores) are shared by its identical clones.

    RecalibratedClassifierCV clones its classifier for each fold; every
    recalibrator would refit the same base model on the same fold. This
    wrapper fits ``estimator`` once per ``(key, X, y)`` and remembers its
    scores per ``X``, so that all the recalibrators see the same fitted
    classifiers (deterministic base models give them anyway) at the cost of
    one fit. Call :func:`forget_fits` between experiments.
    """

    def __init__(self, estimator=None, key=""):
        self.estimator = estimator
        self.key = key

    def fit(self, X, y):
        """Fit ``estimator`` on ``(X, y)``, or reuse its fit on the same data."""
        name = (self.key, _digest(X, y))
        if name not in _FITTED:
            _FITTED[name] = clone(self.estimator).fit(X, y)
        self.estimator_ = _FITTED[name]
        self.classes_ = self.estimator_.classes_
        self.n_features_in_ = np.shape(X)[1]
        return self

    def _scores(self, method, X):
        name = (id(self.estimator_), method, _digest(X))
        if name not in _SCORES:
            _SCORES[name] = getattr(self.estimator_, method)(X)
        return _SCORES[name].copy()  # a recalibrator may not share our copy

    def predict(self, X):
        """The predictions of the shared fitted classifier."""
        return self._scores("predict", X)

    @available_if(_has("decision_function"))
    def decision_function(self, X):
        """The decision function of the shared fitted classifier."""
        return self._scores("decision_function", X)

    @available_if(_has("predict_proba"))
    def predict_proba(self, X):
        """The probabilities of the shared fitted classifier."""
        return self._scores("predict_proba", X)


def forget_fits():
    """Drop the shared fits and scores of :class:`SharedFits`."""
    _FITTED.clear()
    _SCORES.clear()


# --- experiments ---------------------------------------------------------------


@dataclass
class Experiment:
    """A recalibration problem: fit on one part, score on the other."""

    name: str
    kind: str  # "binary" or "multiclass"
    source: str  # "real" or "sklearn"
    X_fit: Any
    y_fit: np.ndarray
    X_test: Any
    y_test: np.ndarray
    baseline: np.ndarray  # test probabilities without recalibration
    base: Any = None  # classifier for RecalibratedClassifierCV; None: X are scores

    @property
    def n_classes(self):
        """Number of classes (columns of the probabilities)."""
        return self.baseline.shape[1]

    def prepare(self):
        """Fit and score the shared base models of the folds before any timing.

        RecalibratedClassifierCV then finds them in :class:`SharedFits`'s
        memory, so that the time of a method is that of its recalibration.
        """
        if self.base is None:
            return
        folds = StratifiedKFold(CV_FOLDS).split(self.X_fit, self.y_fit)
        methods = ("predict", "predict_proba", "decision_function")
        for train, test in folds:
            model = clone(self.base).fit(self.X_fit[train], self.y_fit[train])
            for method in (m for m in methods if hasattr(model, m)):
                getattr(model, method)(self.X_fit[test])
                getattr(model, method)(self.X_test)

    def predict_proba(self, method):
        """Fit ``method`` on the fit part and predict the test part."""
        recalibrator = method.make()
        if self.base is None:
            model = recalibrator
        else:
            model = RecalibratedClassifierCV(self.base, recalibrator, cv=CV_FOLDS)
        model.fit(self.X_fit, self.y_fit)
        return model.predict_proba(self.X_test)


def _as_proba(X, kind):
    """Probabilities (n, K) of a score set: binary confidence or renormalised rows."""
    if kind == "binary":
        return np.column_stack([1.0 - X, X])
    return X / X.sum(axis=1, keepdims=True)


def real_score_sets(quick):
    """``(name, kind, X, y)`` of skcal's real outputs, float64.

    Each network's softmax matrix (multiclass) and its top-label view
    (binary: the largest probability against the correctness of its class);
    the top-label logs give the latter only.
    """
    networks = ["cifar10_lenet"]
    top_label = ["cifar10_resnet110_top_label"]
    if not quick:
        networks += ["cifar10_vgg16", "cifar10_wideresnet", "cifar100_wideresnet"]
        top_label += ["imagenet_resnet34_top_label"]
    for name in networks:
        data = getattr(skcal.datasets, f"load_{name}")()
        proba = np.asarray(data.probabilities, dtype=np.float64)
        y = np.asarray(data.target)
        yield name, "multiclass", proba, y
        correct = (np.argmax(proba, axis=1) == y).astype(np.int64)
        yield f"{name} top-label", "binary", proba.max(axis=1), correct
    for name in top_label:
        data = getattr(skcal.datasets, f"load_{name}")()
        correct = (np.asarray(data.target) == np.asarray(data.predicted)).astype(int)
        yield name, "binary", np.asarray(data.confidence, dtype=np.float64), correct


def real_experiments(quick):
    """Two experiments per real score set: fit on either half, test on the other."""
    for name, kind, X, y in real_score_sets(quick):
        order = np.arange(len(y))
        if np.all(np.diff(y) >= 0):  # sorted by class: shuffle once
            order = np.random.default_rng(0).permutation(len(y))
        half = len(y) // 2
        first, second = order[:half], order[half:]
        for label, fit, test in (
            ("1st->2nd", first, second),
            ("2nd->1st", second, first),
        ):
            yield Experiment(
                name=f"{name} {label}",
                kind=kind,
                source="real",
                X_fit=X[fit],
                y_fit=y[fit],
                X_test=X[test],
                y_test=y[test],
                baseline=_as_proba(X[test], kind),
            )


def sklearn_data_sets(quick, log=print):
    """``(name, kind, X, y)`` of scikit-learn data, without any download."""
    sets = [
        ("breast_cancer", "binary", lambda: load_breast_cancer(return_X_y=True)),
        ("digits", "multiclass", lambda: load_digits(return_X_y=True)),
    ]
    if not quick:
        sets += [
            ("classification", "binary", _classification_binary),
            ("hastie_10_2", "binary", lambda: make_hastie_10_2(4000, random_state=0)),
            ("moons", "binary", lambda: make_moons(3000, noise=0.35, random_state=0)),
            ("classification-5", "multiclass", _classification_5),
            ("gaussian_quantiles-3", "multiclass", _quantiles_3),
            ("covtype 10k", "multiclass", _covtype_if_cached),
        ]
    for name, kind, load in sets:
        try:
            X, y = load()
        except OSError as exc:  # not cached: no download
            log(f"  skipped {name}: {exc}")
            continue
        yield (
            name,
            kind,
            np.asarray(X, dtype=np.float64),
            LabelEncoder().fit_transform(y),
        )


def _classification_binary():
    return make_classification(
        n_samples=4000,
        n_features=20,
        n_informative=6,
        n_redundant=4,
        flip_y=0.05,
        class_sep=0.8,
        random_state=0,
    )


def _classification_5():
    return make_classification(
        n_samples=5000,
        n_features=20,
        n_informative=8,
        n_classes=5,
        flip_y=0.03,
        random_state=0,
    )


def _quantiles_3():
    return make_gaussian_quantiles(
        n_samples=3000, n_features=4, n_classes=3, random_state=0
    )


def _covtype_if_cached():
    X, y = fetch_covtype(return_X_y=True, download_if_missing=False)
    keep = np.random.default_rng(0).choice(len(y), 10_000, replace=False)
    return X[keep], y[keep]


def base_models(quick):
    """The classifiers recalibrated through RecalibratedClassifierCV.

    Gaussian naive Bayes (over-confident), a random forest (under-confident
    near 0 and 1) and a logistic regression (nearly calibrated already;
    recalibrated on its decision function, the logit path).
    """
    models = {
        "naive Bayes": GaussianNB(),
        "forest": RandomForestClassifier(n_estimators=100, random_state=0),
    }
    if not quick:
        models["logistic"] = make_pipeline(
            StandardScaler(), LogisticRegression(max_iter=1000)
        )
    return models


def sklearn_experiments(quick, n_splits, log=print):
    """Stratified halves of each data set x base model x split."""
    models = base_models(quick)
    for data_name, kind, X, y in sklearn_data_sets(quick, log):
        splitter = StratifiedShuffleSplit(n_splits, test_size=0.5, random_state=0)
        for split, (train, test) in enumerate(splitter.split(X, y)):
            for model_name, model in models.items():
                baseline = clone(model).fit(X[train], y[train]).predict_proba(X[test])
                yield Experiment(
                    name=f"{data_name}, {model_name} #{split}",
                    kind=kind,
                    source="sklearn",
                    X_fit=X[train],
                    y_fit=y[train],
                    X_test=X[test],
                    y_test=y[test],
                    baseline=baseline,
                    base=SharedFits(model, key=model_name),
                )


# --- running and ranking ------------------------------------------------------


@dataclass
class Results:
    """Measures of every method in every experiment of one kind."""

    kind: str
    methods: list  # labels, "none" first
    experiments: list = field(default_factory=list)  # Experiment objects
    values: list = field(default_factory=list)  # (n_methods, 4) per experiment
    seconds: list = field(default_factory=list)  # (n_methods,) per experiment
    errors: dict = field(default_factory=dict)  # label -> list of messages

    def array(self):
        """Measures as ``(n_experiments, n_methods, 4)``; failures are NaN."""
        return np.asarray(self.values, dtype=np.float64)


def run_one(experiment, methods):
    """Measures and fit + predict seconds of each method; errors by label."""
    values = [measure(experiment.y_test, experiment.baseline)]
    seconds, errors = [0.0], {}
    experiment.prepare()
    for method in methods:
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                proba = experiment.predict_proba(method)
            proba = check_proba(proba, len(experiment.y_test), experiment.n_classes)
            seconds.append(time.perf_counter() - start)
            values.append(measure(experiment.y_test, proba))
        except Exception as exc:
            seconds.append(time.perf_counter() - start)
            values.append((np.nan,) * len(MEASURES))
            errors[method.label] = f"{type(exc).__name__}: {exc}".splitlines()[0]
    forget_fits()
    return values, seconds, errors


EXPERIMENT_HEADER = (
    f"  {'experiment':40s} {'K':>3s} {'n fit':>6s} {'n test':>6s} {'LL none':>8s} "
    f"{'LL best':>8s} {'best on log loss':22s} {'2nd':22s} {'s':>5s}"
)


def experiment_line(experiment, results, values, seconds):
    """One row of the per-experiment table."""
    ll = np.asarray(values)[:, 0]
    order = np.argsort(np.where(np.isnan(ll), np.inf, ll), kind="stable")
    best, second = (results.methods[i][:22] for i in order[:2])
    return (
        f"  {experiment.name[:40]:40s} {experiment.n_classes:3d} "
        f"{len(experiment.y_fit):6d} {len(experiment.y_test):6d} {ll[0]:8.4f} "
        f"{ll[order[0]]:8.4f} {best:22s} {second:22s} {sum(seconds):5.1f}"
    )


def run_arena(experiments, binary_methods, multiclass_methods, log=print):
    """Run every method on every experiment; print one line per experiment."""
    results = {
        "binary": Results("binary", ["none"] + [m.label for m in binary_methods]),
        "multiclass": Results(
            "multiclass", ["none"] + [m.label for m in multiclass_methods]
        ),
    }
    methods = {"binary": binary_methods, "multiclass": multiclass_methods}
    log(EXPERIMENT_HEADER)
    for experiment in experiments:
        kept = results[experiment.kind]
        values, seconds, errors = run_one(experiment, methods[experiment.kind])
        kept.experiments.append(experiment)
        kept.values.append(values)
        kept.seconds.append(seconds)
        for label, message in errors.items():
            kept.errors.setdefault(label, []).append(f"{experiment.name}: {message}")
        log(experiment_line(experiment, kept, values, seconds), flush=True)
    return results


def _ranks(values):
    """Ranks (1 = best) within each experiment; failures (NaN) rank last."""
    return rankdata(np.where(np.isnan(values), np.inf, values), axis=1)


def _firsts(ll):
    """Each method's share of first places on log loss (ties share the place)."""
    filled = np.where(np.isnan(ll), np.inf, ll)
    best = filled == filled.min(axis=1, keepdims=True)
    return (best / best.sum(axis=1, keepdims=True)).mean(axis=0)


def win_rates(ll):
    """``W[a, b]``: share of experiments where a's log loss is below b's.

    Ties count half; a failure loses to any result.
    """
    filled = np.where(np.isnan(ll), np.inf, ll)
    a, b = filled[:, :, None], filled[:, None, :]
    return ((a < b) + 0.5 * (a == b)).mean(axis=0)


def ranking(results):
    """Summary per method, sorted by mean log-loss rank (a list of dicts)."""
    values = results.array()
    ranks = np.stack([_ranks(values[:, :, j]) for j in range(len(MEASURES))], axis=2)
    real = np.array([e.source == "real" for e in results.experiments])
    ll = values[:, :, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        change = np.nanmedian(100.0 * (ll / ll[:, :1] - 1.0), axis=0)
        rows = [
            {
                "method": label,
                "ranks": ranks[:, i, :].mean(axis=0),
                "ll real": ranks[real, i, 0].mean() if real.any() else np.nan,
                "ll sklearn": ranks[~real, i, 0].mean() if (~real).any() else np.nan,
                "firsts": _firsts(ll)[i],
                "change": change[i],
                "fails": int(np.isnan(ll[:, i]).sum()),
                "seconds": float(np.sum(np.asarray(results.seconds)[:, i])),
            }
            for i, label in enumerate(results.methods)
        ]
    return sorted(rows, key=lambda row: row["ranks"][0])


def print_ranking(results, log=print):
    """The ranking table of one kind of problem; returns the sorted labels."""
    n_exp = len(results.experiments)
    n_real = sum(e.source == "real" for e in results.experiments)
    log(
        f"\n{results.kind}: {n_exp} experiments ({n_real} on real outputs, "
        f"{n_exp - n_real} on scikit-learn data), {len(results.methods)} methods;\n"
        "mean rank per measure (1 = best; failures rank last); LL real / LL sk: "
        "mean log-loss rank on\nreal outputs / scikit-learn data; 1st: share of "
        "first places on log loss; dLL: median\nchange of log loss from none; "
        "time: total fit + predict seconds"
    )
    log(
        f"  {'method':24s} {'LL':>5s} {'Brier':>5s} {'ECE':>5s} {'smECE':>5s} | "
        f"{'LL real':>7s} {'LL sk':>6s} | {'1st':>5s} {'dLL':>7s} {'fails':>5s} "
        f"{'time':>7s}"
    )
    rows = ranking(results)
    for row in rows:
        ll, brier, ece, sm = row["ranks"]
        log(
            f"  {row['method'][:24]:24s} {ll:5.2f} {brier:5.2f} {ece:5.2f} {sm:5.2f} | "
            f"{row['ll real']:7.2f} {row['ll sklearn']:6.2f} | "
            f"{100 * row['firsts']:4.0f}% {row['change']:+6.1f}% {row['fails']:5d} "
            f"{row['seconds']:7.1f}"
        )
    for label, messages in results.errors.items():
        log(f"  ! {label} failed {len(messages)} time(s); first: {messages[0][:160]}")
    return [row["method"] for row in rows]


def print_win_rates(results, order, log=print):
    """Pairwise win rates on log loss, rows and columns in ``order``."""
    index = [results.methods.index(label) for label in order]
    rates = win_rates(results.array()[:, :, 0])[np.ix_(index, index)]
    log(
        f"\n{results.kind}: win rates on log loss, % of experiments where the row "
        "beats the column (ties count half)"
    )
    log(f"  {'':27s}" + "".join(f"{j + 1:>4d}" for j in range(len(order))))
    for i, label in enumerate(order):
        cells = "".join(
            "   -" if i == j else f"{100 * rates[i, j]:4.0f}" for j in range(len(order))
        )
        log(f"  {i + 1:2d} {label[:24]:24s}{cells}")


def write_csv(path, results):
    """One row per (experiment, method): the measures, time and error."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(
            ["kind", "source", "experiment", "n_classes", "n_fit", "n_test", "method"]
            + [m.replace(" ", "_").lower() for m in MEASURES]
            + ["seconds", "error"]
        )
        for kept in results.values():
            for e, values, seconds in zip(
                kept.experiments, kept.values, kept.seconds, strict=True
            ):
                for label, v, s in zip(kept.methods, values, seconds, strict=True):
                    error = next(
                        (
                            m
                            for m in kept.errors.get(label, [])
                            if m.startswith(f"{e.name}: ")
                        ),
                        "",
                    )
                    head = [kept.kind, e.source, e.name, e.n_classes]
                    sizes = [len(e.y_fit), len(e.y_test)]
                    writer.writerow([*head, *sizes, label, *v, f"{s:.4f}", error])
