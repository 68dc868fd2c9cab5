"""Timing of skcal's recalibrators against reference implementations.

Used by ``bench_recalibrators.py``. Each case fits a skcal recalibrator on a
score array (``estimator=None``) and the reference implementation on the
same array, alternating within each repeat, and predicts the same array.
References are imported when their case runs; a package that is not
installed, or a skcal class that does not exist yet, skips its cases with a
printed line.

Data (``binary_data`` and ``multiclass_data`` of the main script): binary,
probabilities ``expit(s)`` of decision values ``s``, as a 1-D array; multiclass,
logits and their softmax.
"""

# SPDX-License-Identifier: BSD-3-Clause

import importlib.metadata
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from _arena import RECALIBRATORS, find_recalibrator, selected
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.frozen import FrozenEstimator

# Seconds after which a case stops repeating (slow references: fewer runs).
BUDGET = 15.0

# Keyword arguments that switch a penalty off, in the order they are tried
# for DirichletRecalibrator and MatrixScalingRecalibrator (their parameter
# names are not known in advance); {} means the default has no penalty.
_NO_PENALTY = (
    {"off_diagonal_penalty": 0.0, "intercept_penalty": 0.0},
    {"penalty": None},
    {"reg_lambda": 0.0, "reg_mu": 0.0},
    {"reg_lambda": 0.0},
    {"alpha": 0.0},
    {"l2": 0.0},
    {"C": np.inf},
    {"lambda_": 0.0},
)


def time_fit_predict(factories, X, y, repeat, budget=None):
    """Median fit and predict_proba seconds of each factory's fresh estimators.

    The factories take turns within each repeat, so that a change of load
    on the machine hits them alike. Returns one ``(fit, predict, proba)``
    per factory, ``proba`` from its last run. With ``budget`` (seconds), no
    further repeat starts once the repeats so far have taken that long.
    """
    times = np.zeros((len(factories), 2, repeat))
    probas = [None] * len(factories)
    start_all = time.perf_counter()
    runs = repeat
    for r in range(repeat):
        for i, make in enumerate(factories):
            estimator = make()
            start = time.perf_counter()
            estimator.fit(X, y)
            middle = time.perf_counter()
            probas[i] = estimator.predict_proba(X)
            times[i, :, r] = middle - start, time.perf_counter() - middle
        if budget is not None and time.perf_counter() - start_all > budget:
            runs = r + 1
            break
    medians = np.median(times[:, :, :runs], axis=2)
    return [
        (fit, predict, p) for (fit, predict), p in zip(medians, probas, strict=True)
    ]


class Reference:
    """``fit`` / ``predict_proba`` around a reference's own functions.

    ``fit(X, y)`` returns the fitted state, ``predict(state, X)`` the
    probabilities (of the positive class when 1-D).
    """

    def __init__(self, fit, predict):
        self._fit = fit
        self._predict = predict

    def fit(self, X, y):
        """Fit the reference; returns self."""
        self.state_ = self._fit(X, y)
        return self

    def predict_proba(self, X):
        """Probabilities, one column per class."""
        proba = np.asarray(self._predict(self.state_, X), dtype=np.float64)
        if proba.ndim == 1 or proba.shape[1] == 1:
            proba = proba.reshape(-1)
            return np.column_stack([1.0 - proba, proba])
        return proba


class _Probabilities(ClassifierMixin, BaseEstimator):
    """A fitted classifier whose ``predict_proba(X)`` is ``X`` (for mapie)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return X


def _two_columns(p):
    return np.column_stack([1.0 - p, p])


# --- the references: each returns (fit, predict) or raises ImportError --------


def _betacal(parameters):
    from betacal import BetaCalibration

    return (
        lambda X, y: BetaCalibration(parameters=parameters).fit(X, y),
        lambda model, X: model.predict(X),
    )


def _netcal(name):
    import netcal.binning
    import netcal.scaling
    import torch

    # netcal runs on torch. On these small problems torch's worker threads
    # make it slower (120-230 ms against 23 ms for one thread, temperature
    # scaling at 10**5 rows on two cores), and they stay busy after each
    # call, slowing whatever runs next: interleaved, skcal's temperature fit
    # took 50-100 ms instead of 9. One thread is netcal's fastest setting.
    torch.set_num_threads(1)

    module = netcal.scaling if hasattr(netcal.scaling, name) else netcal.binning
    cls = getattr(module, name)

    def fit(X, y):
        # skcal's histogram binning has 15 equal-width bins by default.
        model = cls(bins=15) if name == "HistogramBinning" else cls()
        if "tensorboard" in model.fit.__code__.co_varnames:
            return model.fit(X, y, tensorboard=False)
        return model.fit(X, y)

    return fit, lambda model, X: model.transform(X)


def _cir():
    from cir_model import CenteredIsotonicRegression

    return (
        lambda X, y: CenteredIsotonicRegression(out_of_bounds="clip").fit(X, y),
        lambda model, X: model.predict(X),
    )


def _splinecalib():
    from splinecalib import SplineCalib

    def fit(X, y):
        model = SplineCalib()
        model.fit(X, y)  # returns None
        return model

    return fit, lambda model, X: model.calibrate(X)


def _venn_abers_binary():
    from venn_abers import VennAbers

    def fit(X, y):
        return VennAbers().fit(_two_columns(X), y)

    return fit, lambda model, X: model.predict_proba(_two_columns(X))[0]


def _venn_abers_manual(va_type):
    """venn_abers' manual multiclass mode: fit and predict in one call."""
    from venn_abers import VennAbersCalibrator

    def predict(state, X):
        P, y = state
        return VennAbersCalibrator().predict_proba(
            p_cal=P, y_cal=y, p_test=X, va_type=va_type
        )

    return (lambda X, y: (X, y)), predict


def _venn_abers_inductive():
    """venn_abers' inductive Venn-Abers (IVAP) around a Gaussian naive Bayes."""
    from sklearn.naive_bayes import GaussianNB
    from venn_abers import VennAbersCalibrator

    def fit(X, y):
        model = VennAbersCalibrator(
            GaussianNB(), inductive=True, cal_size=0.5, random_state=0
        )
        return model.fit(X, y)

    return fit, lambda model, X: model.predict_proba(X)


class Inductive:
    """skcal's inductive Venn-Abers: the classifier fitted on one part of the
    data and the recalibrator on the other, split as venn_abers splits it."""

    def __init__(self, recalibrator):
        self.recalibrator = recalibrator

    def fit(self, X, y):
        """Fit a Gaussian naive Bayes and the recalibrator on halves; returns self."""
        from sklearn.base import clone
        from sklearn.model_selection import train_test_split
        from sklearn.naive_bayes import GaussianNB

        X_train, X_cal, y_train, y_cal = train_test_split(
            X, y, test_size=0.5, random_state=0
        )
        fitted = GaussianNB().fit(X_train, y_train)
        self.model_ = clone(self.recalibrator).set_params(estimator=fitted)
        self.model_.fit(X_cal, y_cal)
        return self

    def predict_proba(self, X):
        """The recalibrated probabilities of the classifier."""
        return self.model_.predict_proba(X)


def _mapie():
    from mapie.calibration import VennAbersCalibrator

    def fit(X, y):
        X2 = _two_columns(X) if X.ndim == 1 else X
        frozen = FrozenEstimator(_Probabilities().fit(X2, y))
        return VennAbersCalibrator(frozen, cv="prefit").fit(X2, y)

    def predict(model, X):
        return model.predict_proba(_two_columns(X) if X.ndim == 1 else X)

    return fit, predict


def _relplot():
    """relplot's smooth reliability curve at its SmoothECE bandwidth."""
    import relplot
    from relplot.kernels import ReflectedGaussianKernel

    def fit(X, y):
        _, sigma = relplot.smECE(X, y, return_width=True)
        return ReflectedGaussianKernel(sigma), X, y.astype(np.float64)

    def predict(state, X):
        kernel, f, y = state
        return np.clip(kernel.smooth(f, y, X)[0], 0.0, 1.0)

    return fit, predict


def _multinomial(features):
    """scikit-learn's unpenalised multinomial regression on the scores."""
    from sklearn.linear_model import LogisticRegression

    def fit(X, y):
        model = LogisticRegression(C=np.inf, max_iter=10_000)
        return model.fit(features(X), y)

    return fit, lambda model, X: model.predict_proba(features(X))


# The features skcal's maps are defined on, so that the reference solves the
# same problem: log-probabilities clipped at 1e-12 and renormalised
# (Dirichlet), and logits centred in each row (matrix scaling: a softmax
# depends on the logits only up to a constant per row, and a map of the
# uncentred logits would depend on that arbitrary constant).
def _log_probabilities(P):
    return log_softmax(np.log(np.clip(P, 1e-12, 1.0)), axis=1)


def _centred(X):
    return X - X.mean(axis=1, keepdims=True)


def _zhang_ets():
    """Ensemble temperature scaling fitted as Zhang, Kailkhura and Han's code does.

    No package ships it. Their two stages: the temperature by L-BFGS-B in
    [0.05, 5] from 1, then the three weights by SLSQP on the simplex from
    (1, 0, 0), each minimising the mean squared error over all n * K
    entries; predictions are the mixture, each row renormalised.
    """

    def mixture(logits, temperature, weights):
        k = logits.shape[1]
        p = weights[0] * softmax(logits / temperature, axis=1)
        p += weights[1] * softmax(logits, axis=1) + weights[2] / k
        return p / p.sum(axis=1, keepdims=True)

    def fit(X, y):
        onehot = np.eye(X.shape[1])[y]
        stage1 = minimize(
            lambda t: float(np.mean((softmax(X / t[0], axis=1) - onehot) ** 2)),
            [1.0],
            method="L-BFGS-B",
            bounds=[(0.05, 5.0)],
            tol=1e-12,
        )
        temperature = float(stage1.x[0])
        stage2 = minimize(
            lambda w: float(np.mean((mixture(X, temperature, w) - onehot) ** 2)),
            [1.0, 0.0, 0.0],
            method="SLSQP",
            bounds=[(0.0, 1.0)] * 3,
            constraints={"type": "eq", "fun": lambda w: np.sum(w) - 1.0},
            tol=1e-12,
        )
        return temperature, stage2.x

    return fit, lambda model, X: mixture(X, *model)


@dataclass(frozen=True)
class Case:
    """A skcal recalibrator against a reference, on one kind of data."""

    reference: str  # what the reference is, for the table
    skcal: str  # label in _arena.RECALIBRATORS (class and keyword arguments)
    kwargs: Any  # more keyword arguments of the skcal class, or "no penalty"
    data: str  # "binary", "multi-proba" or "multi-logit"
    build: tuple  # (function, *args) -> (fit, predict); may raise ImportError
    max_classes: int = 1000  # skipped above this number of classes
    max_samples: int | None = None  # the first rows only, for slow references
    inductive: bool = False  # the reference fits a classifier too (see Inductive)


def _case(reference, skcal, data, build, *args, kwargs=None, **limits):
    return Case(reference, skcal, kwargs or {}, data, (build, *args), **limits)


_NETCAL_BINARY = (
    ("TemperatureScaling", "temperature"),
    ("LogisticCalibration", "Platt"),
    ("BetaCalibration", "beta abm"),
    ("IsotonicRegression", "isotonic"),
)

# max_classes=10: the multiclass references that loop in Python over classes
# (splinecalib's cross-validated spline per class; venn_abers and mapie, the
# latter over all K (K - 1) / 2 pairs of classes) would take minutes at 100
# classes; an unpenalised multinomial regression with K (K + 1) parameters
# is ill-posed on 10**4 rows at 100 classes; netcal's vector scaling (scipy
# on a torch loss, numerical gradients) takes some 90 s at 10**4 x 100.
# splinecalib takes about a minute per 10**5 binary rows, and its multiclass
# fits tens of seconds at 2,000 x 10: it runs on the first 20,000 (binary) or
# 2,000 rows.
CASES = (
    *(
        _case(f"betacal {p}", f"beta {p}", "binary", _betacal, p)
        for p in ("abm", "am", "ab")
    ),
    _case("cir_model", "centered isotonic", "binary", _cir),
    _case("splinecalib", "spline", "binary", _splinecalib, max_samples=20_000),
    _case(
        "splinecalib",
        "spline",
        "multi-proba",
        _splinecalib,
        max_classes=10,
        max_samples=2_000,
    ),
    _case("venn_abers VennAbers", "Venn-Abers", "binary", _venn_abers_binary),
    _case(
        "venn_abers one_vs_rest",
        "Venn-Abers",
        "multi-proba",
        _venn_abers_manual,
        "one_vs_rest",
        max_classes=10,
    ),
    _case(
        "venn_abers IVAP GaussianNB",
        "Venn-Abers",
        "binary",
        _venn_abers_inductive,
        inductive=True,
    ),
    _case("mapie VennAbers prefit", "Venn-Abers", "binary", _mapie),
    _case("mapie VennAbers (ovo)", "Venn-Abers", "multi-proba", _mapie, max_classes=10),
    *(
        _case(f"netcal {name}", skcal, "binary", _netcal, name)
        for name, skcal in _NETCAL_BINARY
    ),
    _case(
        "netcal HistogramBinning", "histogram", "binary", _netcal, "HistogramBinning"
    ),
    _case(
        "netcal TemperatureScaling",
        "temperature",
        "multi-proba",
        _netcal,
        "TemperatureScaling",
    ),
    _case(
        "netcal LogisticCalibration",
        "vector scaling",
        "multi-proba",
        _netcal,
        "LogisticCalibration",
        max_classes=10,
    ),
    _case("relplot smooth curve", "kernel smoothing", "binary", _relplot),
    _case(
        "Zhang et al.'s procedure",
        "ensemble temperature",
        "multi-logit",
        _zhang_ets,
    ),
    _case(
        "sklearn multinomial log p",
        "Dirichlet",
        "multi-proba",
        _multinomial,
        _log_probabilities,
        kwargs="no penalty",
        max_classes=10,
    ),
    _case(
        "sklearn multinomial logits",
        "matrix scaling",
        "multi-logit",
        _multinomial,
        _centred,
        kwargs="no penalty",
        max_classes=10,
    ),
)


def _skcal_class(label):
    """The skcal class and keyword arguments behind a registry label.

    Returns ``(cls, kwargs, None)``, or ``(None, None, why)``.
    """
    for name_label, name, modules, kwargs in RECALIBRATORS:
        if name_label == label:
            cls, why = find_recalibrator(name, modules)
            return cls, kwargs, why
    return None, None, f"no recalibrator labelled {label!r}"


def _skcal_kwargs(cls, kwargs, extra):
    """The registry's ``kwargs``, with ``extra`` ("no penalty": resolved) added."""
    if extra != "no penalty":
        return {**kwargs, **extra}
    params = cls().get_params()
    for option in _NO_PENALTY:
        if set(option) <= set(params):
            return {**kwargs, **option}
    return dict(kwargs)


def _case_data(case, data, n_classes, quick=False):
    """``(X, y, title)`` of the case, or None when it does not apply.

    ``quick`` cuts the rows of the slow references (``max_samples``) by 10.
    """
    if case.data == "binary":
        X, y = data["binary"][1][:, 1], data["binary"][2]
        if case.inductive:  # a feature column for the classifier
            X = X.reshape(-1, 1)
    elif n_classes > case.max_classes:
        return None
    else:
        logits, proba, y = data["multi", n_classes]
        X = proba if case.data == "multi-proba" else logits
    n = case.max_samples
    if n is not None and quick:
        n //= 10
    X, y = X[:n], y[:n]
    return X, y, f"{len(y):,} x {n_classes}"


def _prepare(case, only, log):
    """``(skcal factory, reference factory)`` of a case, or None (printed why)."""
    if not (selected(case.skcal, only) or selected(case.reference, only)):
        return None
    cls, registry_kwargs, why = _skcal_class(case.skcal)
    if cls is None:
        log(f"  skipped {case.reference} vs {case.skcal}: skcal {why}")
        return None
    try:
        fit, predict = case.build[0](*case.build[1:])
    except ImportError as exc:
        log(f"  skipped {case.reference} vs {case.skcal}: {exc}")
        return None
    kwargs = _skcal_kwargs(cls, registry_kwargs, case.kwargs)
    if case.inductive:
        make_skcal = lambda: Inductive(cls(None, **kwargs))  # noqa: E731
    else:
        make_skcal = lambda: cls(None, **kwargs)  # noqa: E731
    return make_skcal, (lambda: Reference(fit, predict)), kwargs


_DISTRIBUTIONS = (
    "scikit-learn",
    "betacal",
    "cir-model",
    "splinecalib",
    "venn-abers",
    "mapie",
    "netcal",
    "relplot",
)


def _version(name):
    try:
        return f"{name} {importlib.metadata.version(name)}"
    except importlib.metadata.PackageNotFoundError:
        return f"{name} (not installed)"


def _versions():
    """``name version`` of each reference distribution."""
    return ", ".join(_version(name) for name in _DISTRIBUTIONS)


def run_references(data, class_counts, repeat, only=None, quick=False, log=print):
    """Time every case on every applicable data set and print the rows."""
    log(f"\nreferences: {_versions()}")
    log(
        f"skcal against reference implementations, median of {repeat} (fewer "
        f"once a case has taken {BUDGET:.0f} s), in ms;\nratio = skcal / reference "
        "of fit + predict_proba (target <= 1); max|diff| of predict_proba;\nskcal is "
        "fed the scores (estimator=None)."
    )
    log(
        f"  {'skcal':22s} {'reference':27s} {'n x K':12s} {'fit':>8s} {'predict':>7s} "
        f"{'ref fit':>8s} {'predict':>7s} {'ratio':>6s} {'max|diff|':>9s}"
    )
    for case in CASES:
        prepared = _prepare(case, only, log)
        if prepared is None:
            continue
        make_skcal, make_reference, kwargs = prepared
        counts = [2] if case.data == "binary" else class_counts
        for n_classes in counts:
            found = _case_data(case, data, n_classes, quick)
            if found is None:
                name = f"{case.skcal[:22]:22s} {case.reference[:27]:27s}"
                log(f"  {name} {n_classes} classes: not run (over {case.max_classes})")
                continue
            X, y, title = found
            _time_case(
                case, kwargs, title, (make_skcal, make_reference), X, y, repeat, log
            )


def _time_case(case, kwargs, title, factories, X, y, repeat, log):
    """Time one case and print its row (or the error)."""
    label = case.skcal + (" (no penalty)" if case.kwargs == "no penalty" else "")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (fit, predict, proba), (rfit, rpredict, rproba) = time_fit_predict(
                factories, X, y, repeat, budget=BUDGET
            )
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}".splitlines()[0][:100]
        log(f"  {label[:22]:22s} {case.reference[:27]:27s} {title:12s} {message}")
        return
    ratio = (fit + predict) / (rfit + rpredict)
    diff = np.max(np.abs(proba - rproba)) if proba.shape == rproba.shape else np.nan
    log(
        f"  {label[:22]:22s} {case.reference[:27]:27s} {title:12s} {fit * 1e3:8.1f} "
        f"{predict * 1e3:7.1f} {rfit * 1e3:8.1f} {rpredict * 1e3:7.1f} {ratio:6.2f} "
        f"{diff:9.2e}{'' if ratio <= 1 else '  SLOWER'}",
        flush=True,
    )
    if case.kwargs == "no penalty" and not set(kwargs) - {"multiclass"}:
        log("    (no penalty parameter recognised: skcal's defaults were used)")
