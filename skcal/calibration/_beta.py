"""Beta calibration: a logistic map of log p and log(1 - p) (Kull et al., 2017)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math
from itertools import combinations
from typing import Any, Literal, NamedTuple

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, log_expit

from skcal._docstrings import fill_doc
from skcal._param_validation import StrOptions
from skcal._typing import ArrayLike
from skcal._utils._logistic import fit_logistic, softplus
from skcal._utils._scaling import normalized_weights
from skcal.calibration._base import _CLIP, BinaryMapRecalibrator, _clipped

# The log-odds of probabilities clipped to [_CLIP, 1 - _CLIP].
_LOGIT_BOUND = math.log1p(-_CLIP) - math.log(_CLIP)
_LOG2 = math.log(2.0)


def _log_features(x, probability):
    """``(log p, -log(1 - p))`` of scores, with ``p`` clipped as skcal clips it.

    ``x`` holds probabilities, or log-odds ``s`` (``p = expit(s)``), for which
    ``-log p = log(1 + e^-s)`` and ``-log(1 - p) = log(1 + e^-s) + s``, from
    one softplus.
    """
    if probability:
        p = _clipped(x)
        return np.log(p), -np.log1p(-p)
    s = np.clip(x, -_LOGIT_BOUND, _LOGIT_BOUND)
    minus_log_p = softplus(-s)
    return -minus_log_p, minus_log_p + s


def _log_odds(x, probability):
    """``log p - log(1 - p)`` of scores, with ``p`` clipped as skcal clips it."""
    if probability:
        p = _clipped(x)
        return np.log(p) - np.log1p(-p)
    return np.clip(x, -_LOGIT_BOUND, _LOGIT_BOUND)


class BetaMap(NamedTuple):
    """A fitted beta calibration map ``expit(c + a log p - b log(1 - p))``.

    It reads probabilities ``p`` (``probability=True``) or log-odds
    (``p = expit(x)``), clipped to (the log-odds of) ``[_CLIP, 1 - _CLIP]``.
    """

    a: float
    b: float
    c: float
    probability: bool = True

    def __call__(self, x):
        if self.a == self.b:
            return expit(self.c + self.a * _log_odds(x, self.probability))
        log_p, minus_log_q = _log_features(x, self.probability)
        return expit(self.c + self.a * log_p + self.b * minus_log_q)

    def midpoint(self):
        """The score ``m`` mapped to 1/2: ``a log m - b log(1 - m) + c = 0``.

        A map that stays above 1/2 on (0, 1) gives 0, one that stays below
        gives 1: ``m = sup {p in [0, 1] : map(p) < 1/2}`` (with ``sup {} = 0``),
        except the constant map 1/2, which gives 1/2.
        """
        a, b, c = self.a, self.b, self.c
        if a == b == c == 0:
            return 0.5
        if a == b and a > 0:
            return float(expit(-c / a))
        if a > 0 and b > 0:
            # g(u) = a log expit(u) + b log(1 + e^u) + c increases in u = logit(m)
            # from -inf to +inf, below a u + c + b log 2 and above b u + c - a log 2.
            def g(u):
                return a * log_expit(u) + b * np.logaddexp(0.0, u) + c

            low = min(-1.0, -(b * _LOG2 + abs(c) + 1.0) / a)
            high = max(1.0, (a * _LOG2 + abs(c) + 1.0) / b)
            return float(expit(brentq(g, low, high, xtol=1e-14, rtol=1e-15)))
        with np.errstate(over="ignore", divide="ignore"):
            if a > 0:  # b = 0: a log m + c = 0 needs c > 0
                return math.exp(-c / a) if c > 0 else 1.0
            if b > 0:  # a = 0: -b log(1 - m) + c = 0 needs c < 0
                return -math.expm1(c / b) if c < 0 else 0.0
        return 1.0 if c < 0 else 0.0


def _design(x, probability, parameters):
    """The features whose coefficients must be non-negative, and an intercept flag.

    ``"abm"``: ``(log p, -log(1 - p))`` with an intercept; ``"ab"``:
    ``(log 2p, -log 2(1 - p))`` without (so that ``p = 1/2`` maps to 1/2);
    ``"am"``: the log-odds ``log p - log(1 - p)`` with an intercept.
    """
    if parameters == "am":
        return [_log_odds(x, probability)], True
    log_p, minus_log_q = _log_features(x, probability)
    if parameters == "abm":
        return [log_p, minus_log_q], True
    return [log_p + _LOG2, minus_log_q - _LOG2], False


def _fit_subset(columns, keep, t, w, intercept):
    """Unconstrained fit on the columns ``keep``: coefficients, intercept, loss.

    Columns are centred (with an intercept) or scaled to unit weighted mean
    square; a column constant where the weights are positive is left out
    (coefficient 0), which also makes a constant feature give a constant map.
    """
    total = float(w.sum())
    support = w > 0
    used, scaled, shifts, scales = [], [], [], []
    for j in keep:
        col = columns[j]
        if col[support].min() == col[support].max():
            continue
        shift = float((w * col).sum()) / total if intercept else 0.0
        scale = math.sqrt(float((w * (col - shift) ** 2).sum()) / total)
        used.append(j)
        scaled.append((col - shift) / scale)
        shifts.append(shift)
        scales.append(scale)
    mean_t = float((w * t).sum()) / total
    start = np.zeros(len(used) + intercept)
    if intercept:
        scaled.append(np.ones_like(t))
        if 0.0 < mean_t < 1.0:
            start[-1] = math.log(mean_t) - math.log1p(-mean_t)
    if not scaled:  # "ab" without a varying column: the map 1/2
        return np.zeros(len(columns)), 0.0, math.log(2.0)
    fit = fit_logistic(np.column_stack(scaled), t, w, start=start)
    coef = np.zeros(len(columns))
    coef[used] = fit.coef[: len(used)] / np.asarray(scales)
    intercept_value = float(fit.coef[-1] - coef[used] @ shifts) if intercept else 0.0
    return coef, intercept_value, fit.objective


def fit_beta(x, y, sample_weight, parameters, probability=False):
    """Maximum-likelihood beta map with ``a, b >= 0``.

    The unconstrained logistic fit is kept when its shape coefficients are
    non-negative. Otherwise the constrained minimum lies on a face where
    some of them are 0 (the loss is convex): each face is fitted without its
    columns (Kull et al. refit without the negative one) and the feasible
    fit of least loss is kept, which is the constrained minimum.

    Parameters
    ----------
    x : ndarray of shape (n_samples,)
        Probabilities, or log-odds of the scores.
    y : ndarray of shape (n_samples,)
        Boolean outcomes.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.
    parameters : {"abm", "ab", "am"}
        The parameterisation.
    probability : bool
        Whether ``x`` holds probabilities (else log-odds).

    Returns
    -------
    beta_map : BetaMap
        The map ``(a, b, c)``.
    """
    w = (
        np.ones(x.shape[0])
        if sample_weight is None
        else normalized_weights(sample_weight)
    )
    columns, intercept = _design(x, probability, parameters)
    t = y.astype(np.float64)
    n_cols = len(columns)
    best = _fit_subset(columns, range(n_cols), t, w, intercept)
    if np.any(best[0] < 0):
        faces = [
            _fit_subset(columns, keep, t, w, intercept)
            for size in range(n_cols - 1, -1, -1)
            for keep in combinations(range(n_cols), size)
        ]
        best = min((f for f in faces if np.all(f[0] >= 0)), key=lambda f: f[2])
    coef, c, _ = best
    if parameters == "abm":
        return BetaMap(float(coef[0]), float(coef[1]), c, probability)
    if parameters == "ab":
        a, b = float(coef[0]), float(coef[1])
        return BetaMap(a, b, (a - b) * _LOG2, probability)
    return BetaMap(float(coef[0]), float(coef[0]), c, probability)


@fill_doc
class BetaRecalibrator(BinaryMapRecalibrator):
    r"""Recalibrate with a beta calibration map.

    The map of Kull, Silva Filho and Flach (2017) sends the score's
    probability :math:`p` to

    .. math::

        \mu(p) = \frac{1}{1 + 1 / \left(e^{c}\, p^{a} / (1 - p)^{b}\right)}
        = \sigma\left(a \log p - b \log(1 - p) + c\right),

    a logistic regression on the features :math:`\log p` and
    :math:`-\log(1 - p)`, fitted by maximum likelihood (weighted logistic
    loss of the labels) with :math:`a, b \ge 0`. It is the posterior of two
    classes whose scores follow beta distributions, contains the identity
    (:math:`a = b = 1, c = 0`) and every non-decreasing logistic map of the
    log-odds (:math:`a = b`), and with :math:`a, b \ge 0` it is
    non-decreasing.
    The score mapped to 1/2, :math:`m`, solves :math:`a \log m - b \log(1 -
    m) + c = 0`, that is :math:`c = b \log(1 - m) - a \log m`;
    :math:`m = 1 / (1 + e^{c / a})` when :math:`a = b`.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    parameters : {"abm", "ab", "am"}, default="abm"
        The parameters fitted. ``"abm"``: :math:`a`, :math:`b` and
        :math:`c` (equivalently :math:`m`). ``"ab"``: :math:`a` and
        :math:`b`, with :math:`m = 1/2` (:math:`c = (a - b) \log 2`, so
        that :math:`\mu(1/2) = 1/2`). ``"am"``: :math:`a = b` and :math:`c`,
        a logistic map of the log-odds :math:`\log(p / (1 - p))` (Platt
        scaling of the log-odds without Platt's smoothed targets).
    %(multiclass)s
    %(input)s
        Decision values (``"logit"``) are read as the probabilities
        :math:`p = \sigma(s)` (as ``score_probabilities`` makes them for a
        binary problem; each one-vs-rest value on its own with
        ``multiclass="ovr"``; the top class's softmax probability with
        ``"top_label"``).
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    a_ : ndarray of shape (n_maps,)
        The coefficient :math:`a \ge 0` of :math:`\log p` in each map (one
        for a binary problem or ``"top_label"``, one per class for
        ``"ovr"``).
    b_ : ndarray of shape (n_maps,)
        The coefficient :math:`b \ge 0` of :math:`-\log(1 - p)`.
    c_ : ndarray of shape (n_maps,)
        The intercept :math:`c`.
    m_ : ndarray of shape (n_maps,)
        The score mapped to 1/2, :math:`m`; 0 if the map stays above 1/2 on
        (0, 1), 1 if it stays below (1/2 for the constant map 1/2).
    calibrators_ : list of callables
        The fitted maps, from probabilities (or from decision values) to
        probabilities.
    input_ : {"probability", "logit"}
        The kind of scores the maps were fitted on.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    PlattRecalibrator : A logistic map of the log-odds, with smoothed targets.
    SplineRecalibrator : A smooth logistic map of the log-odds.

    Notes
    -----
    As in the paper, probabilities are clipped first, here to
    :math:`[10^{-12}, 1 - 10^{-12}]` (decision values to the log-odds of
    these). When the unconstrained fit has :math:`a < 0` or :math:`b < 0`,
    the paper's implementation (``betacal``) refits without the negative
    feature; here every such face is refitted and the one of least loss is
    kept, which is the constrained maximum of the likelihood (the two agree
    whenever the refit of ``betacal`` is non-negative and best). ``betacal``
    constrains only ``"abm"``; here ``"ab"`` and ``"am"`` are constrained
    too, so that every map is non-decreasing (``"am"`` with a negative slope
    becomes the constant mean label). The fit is Newton's method on
    centred and scaled features, to a gradient of :math:`10^{-12}`.

    References
    ----------
    .. [1] M. Kull, T. M. Silva Filho and P. Flach, "Beta calibration: a
       well-founded and easily implemented improvement on logistic
       calibration for binary classifiers", AISTATS 2017, PMLR 54:623-631.
    .. [2] M. Kull, T. M. Silva Filho and P. Flach, "Beyond sigmoids: how to
       obtain well-calibrated probabilities from binary classifiers with
       beta calibration", Electronic Journal of Statistics 11(2), 2017,
       doi:10.1214/17-EJS1338SI.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import BetaRecalibrator
    >>> p = np.array([0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.95])
    >>> y = np.array([0, 0, 1, 0, 0, 1, 1, 1])
    >>> recal = BetaRecalibrator().fit(p, y)
    >>> recal.predict_proba([0.1, 0.5, 0.9])[:, 1].round(2).tolist()
    [0.15, 0.48, 0.99]

    The unconstrained fit has :math:`a < 0`; the constrained one has
    :math:`a = 0`:

    >>> recal.a_.round(2).tolist(), recal.b_.round(2).tolist()
    ([0.0], [2.86])
    """

    _parameter_constraints: dict = {
        **BinaryMapRecalibrator._parameter_constraints,
        "parameters": [StrOptions({"abm", "ab", "am"})],
    }

    # Probabilities for probability scores (their logarithms are the
    # features), log-odds for decision values.
    _feature = "natural"

    def __init__(
        self,
        estimator: Any = None,
        *,
        parameters: Literal["abm", "ab", "am"] = "abm",
        multiclass: Literal["ovr", "top_label"] = "ovr",
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.parameters = parameters
        self.multiclass = multiclass
        self.input = input
        self.response_method = response_method
        self.classes = classes

    def _fit_map(self, x, y, sample_weight):
        probability = self.input_ == "probability"
        return fit_beta(x, y, sample_weight, self.parameters, probability)

    def _apply_map(self, fitted_map, x):
        return fitted_map(x)

    def _fit_scores(self, X, scores, y, sample_weight):
        super()._fit_scores(X, scores, y, sample_weight)
        self.a_ = np.array([m.a for m in self.calibrators_])
        self.b_ = np.array([m.b for m in self.calibrators_])
        self.c_ = np.array([m.c for m in self.calibrators_])
        self.m_ = np.array([m.midpoint() for m in self.calibrators_])
