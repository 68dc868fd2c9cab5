"""Kernel smoothing: the smooth reliability curve as the map (Blasiok and Nakkiran).

The map is the curve of a smooth reliability diagram, the reflected-Gaussian
kernel regression of the outcomes on the predictions at the SmoothECE
bandwidth. Adding reflected Gaussian noise of that bandwidth to a prediction
before reading the curve gives the randomized post-processing of Blasiok and
Nakkiran's Theorem 20, perfectly calibrated on the distribution it is fitted
on.
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from contextvars import ContextVar
from numbers import Real
from typing import Any, Literal, NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions
from skcal._typing import ArrayLike, RandomStateLike
from skcal._utils._scaling import normalized_weights
from skcal.calibration._base import BinaryMapRecalibrator
from skcal.metrics._smooth_ece import (
    _SIGMA_MIN,
    interpolable_curve,
    reflected_gaussian_noise,
)

# The tolerance of the SmoothECE fixed point: smooth_ece's default.
_EPS = 1e-3

# The generator of one predict_proba call of a randomized recalibrator, which
# the maps of every class draw from in turn (the base class calls _apply_map
# without one; a context variable keeps the estimator itself unchanged).
_NOISE: ContextVar[np.random.RandomState | None] = ContextVar("_NOISE", default=None)


class SmoothedCurve(NamedTuple):
    """A fitted curve: its bandwidth, and its values on a uniform grid of [0, 1]."""

    sigma: float
    grid: np.ndarray
    values: np.ndarray

    def __call__(self, p):
        # Linear interpolation between the nodes j / M, located arithmetically
        # (in place: a pass over the rows per step).
        n_intervals = self.values.shape[0] - 1
        position = p * n_intervals
        cell = position.astype(np.intp)
        np.minimum(cell, n_intervals - 1, out=cell)
        position -= cell
        lower = self.values.take(cell)
        cell += 1
        out = self.values.take(cell)
        out -= lower
        out *= position
        out += lower
        return out


def _fill_undefined(values):
    """Values where the curve is NaN taken from the nearest node where it is not.

    Far from every prediction, the kernel regression tends to the outcomes of
    the nearest predictions, and the exact ratio is a step midway between two
    groups of predictions: the nearest defined value is its limit.
    """
    defined = np.flatnonzero(~np.isnan(values))
    if defined.shape[0] == values.shape[0]:
        return values
    nodes = np.arange(values.shape[0])
    right = np.minimum(np.searchsorted(defined, nodes), defined.shape[0] - 1)
    left = np.maximum(right - 1, 0)
    nearer = np.where(
        np.abs(nodes - defined[left]) <= np.abs(defined[right] - nodes),
        defined[left],
        defined[right],
    )
    return values[nearer]


def fit_smoothed_curve(p, y, sample_weight, sigma):
    """The curve of :class:`KernelSmoothingRecalibrator` for one binary view.

    Parameters
    ----------
    p : ndarray of shape (n_samples,)
        Predictions in [0, 1].
    y : ndarray of shape (n_samples,)
        Boolean outcomes.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.
    sigma : "auto" or float
        The bandwidth, or ``"auto"`` for the SmoothECE fixed point.

    Returns
    -------
    curve : SmoothedCurve
    """
    used, values = interpolable_curve(
        y.astype(np.float64),
        p,
        normalized_weights(sample_weight),
        sigma=sigma,
        eps=_EPS,
    )
    grid = np.linspace(0.0, 1.0, values.shape[0])
    return SmoothedCurve(used, grid, _fill_undefined(values))


@fill_doc
class KernelSmoothingRecalibrator(BinaryMapRecalibrator):
    r"""Recalibrate with the smooth reliability curve at the SmoothECE bandwidth.

    The map is the curve of a smooth reliability diagram (Blasiok and
    Nakkiran, 2024): the Nadaraya-Watson regression of the outcomes on the
    predicted probabilities with the reflected Gaussian kernel
    :math:`\tilde K_\sigma`,

    .. math::

        \hat y(t) = \frac{\sum_i w_i y_i \tilde K_\sigma(t, p_i)}
        {\sum_i w_i \tilde K_\sigma(t, p_i)},

    at the bandwidth :math:`\sigma^*` of :func:`~skcal.metrics.smooth_ece`
    on the calibration set (or a given :math:`\sigma`). The randomized
    version predicts :math:`\hat y(\pi_R(p + \sigma Z))`, with :math:`Z`
    standard normal, drawn afresh for each prediction, and :math:`\pi_R` the
    folding of the real line onto [0, 1] by reflections at 0 and 1: on the
    calibration set (with the noise), its predictions are perfectly
    calibrated, :math:`E[y \mid \kappa(p)] = \kappa(p)` for
    :math:`\kappa(p) = \hat y(\pi_R(p + \sigma Z))`.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    sigma : "auto" or float, default="auto"
        The bandwidth, at least 1e-4; ``"auto"`` is the SmoothECE fixed
        point :math:`\sigma^*` of each map's calibration data, as
        :func:`~skcal.metrics.smooth_ece` computes it.
    randomized : bool, default=False
        Add reflected Gaussian noise of scale :math:`\sigma` to each
        prediction before reading the curve (Theorem 20 of Blasiok and
        Nakkiran). :meth:`predict_proba` is then random: see
        ``random_state``.
    random_state : int, RandomState instance or None, default=None
        The noise of ``randomized=True`` (otherwise unused), drawn at each
        call of :meth:`predict_proba`, :meth:`predict` or :meth:`transform`
        from ``check_random_state(random_state)``. Pass an int for
        reproducible output across multiple function calls: every call then
        starts from that seed, so the same ``X`` gets the same draws. With
        None or a RandomState instance, each call draws fresh noise (and
        advances the instance). Draws are made row by row in order, so a
        row's noise depends on the rows before it.
    %(multiclass)s
        With ``"top_label"`` the classifier's predicted class (the first
        largest score) is kept, as in the top-versus-all approach of Le Coz
        et al. (2024): it gets the map's output clipped to :math:`[1/K, 1]`
        (:math:`K` classes), and the other classes share the rest in
        proportion to their probabilities, capped just below it.
    %(input)s
        Logits are smoothed after the logistic (binary) or softmax function.
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    sigma_ : ndarray of shape (n_maps,)
        The bandwidth of each map (one for a binary problem or
        ``"top_label"``, one per class for ``"ovr"``).
    curve_grid_ : list of ndarray of shape (n_nodes,)
        The uniform grid of [0, 1] on which each map's curve is stored, with
        at least 512 intervals per bandwidth for bandwidths above 4e-4.
    curve_values_ : list of ndarray of shape (n_nodes,)
        The curve :math:`\hat y` at the nodes, read between them by linear
        interpolation.
    calibrators_ : list of callables
        The fitted maps, from probability to probability (without noise).
    input_ : {"probability", "logit"}
        The kind of scores the maps were fitted on.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    skcal.metrics.smooth_reliability_curve : The same curve, for a diagram.
    skcal.metrics.smooth_ece : Its bandwidth :math:`\sigma^*`.
    HistogramBinningRecalibrator : The binned counterpart.

    Notes
    -----
    The curve is computed as :func:`~skcal.metrics.smooth_reliability_curve`
    computes it (the same code), on a grid four times finer, within about
    :math:`5 \cdot 10^{-7}` of the exact kernel regression. Where the
    density of the calibration predictions is below :math:`10^{-9}` of its
    largest value, the ratio is not computable and the curve takes its
    value at the nearest node where it is.

    The randomized version is the post-processing :math:`\kappa` of Blasiok
    and Nakkiran (2024, Theorem 20 and appendix A.8), with the curve of the
    reflected kernel: the noisy prediction :math:`q = \pi_R(p + \sigma Z)`
    has density :math:`\tilde K_\sigma(\cdot, p)` given :math:`p`, so that
    on the calibration set :math:`E[y \mid q] = \hat y(q)`, and
    :math:`\kappa = \hat y(q)` is perfectly calibrated. It moves the
    predictions by :math:`E|\kappa(p) - p| \le \mathrm{smECE}_\sigma +
    2\sqrt{2/\pi}\,\sigma` on the calibration set (about :math:`2.6
    \sigma^*` at the fixed point). The guarantee is that of the calibration
    distribution, for each map: one-vs-rest rows are renormalised
    afterwards. The deterministic version is relplot's suggestion for
    recalibration; it has no such guarantee, but its map is smooth and
    removes most of the SmoothECE on the calibration set.

    References
    ----------
    .. [1] J. Blasiok and P. Nakkiran, "Smooth ECE: principled reliability
       diagrams via kernel smoothing", ICLR 2024, arXiv:2309.12236.
    .. [2] A. Le Coz, S. Herbin and F. Adjed, "Confidence calibration of
       classifiers with many classes", NeurIPS 2024, arXiv:2411.02988.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import KernelSmoothingRecalibrator
    >>> p = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> recal = KernelSmoothingRecalibrator(sigma=0.1).fit(p, y)
    >>> recal.predict_proba([0.1, 0.5, 0.9])[:, 1].round(2).tolist()
    [0.0, 0.5, 1.0]
    """

    _parameter_constraints: dict = {
        **BinaryMapRecalibrator._parameter_constraints,
        "sigma": [
            StrOptions({"auto"}),
            Interval(Real, _SIGMA_MIN, None, closed="left"),
        ],
        "randomized": ["boolean"],
        "random_state": ["random_state"],
    }

    _feature = "probability"

    def __init__(
        self,
        estimator: Any = None,
        *,
        sigma: Literal["auto"] | float = "auto",
        randomized: bool = False,
        random_state: RandomStateLike = None,
        multiclass: Literal["ovr", "top_label"] = "ovr",
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.sigma = sigma
        self.randomized = randomized
        self.random_state = random_state
        self.multiclass = multiclass
        self.input = input
        self.response_method = response_method
        self.classes = classes

    def _fit_map(self, x, y, sample_weight):
        return fit_smoothed_curve(x, y, sample_weight, self.sigma)

    def _apply_map(self, fitted_map, x):
        if self.randomized:
            rng = _NOISE.get()
            if rng is None:
                rng = check_random_state(self.random_state)
            x = reflected_gaussian_noise(x, fitted_map.sigma, rng)
        return fitted_map(x)

    def _fit_scores(self, X, scores, y, sample_weight):
        super()._fit_scores(X, scores, y, sample_weight)
        self.sigma_ = np.array([m.sigma for m in self.calibrators_])
        self.curve_grid_ = [m.grid for m in self.calibrators_]
        self.curve_values_ = [m.values for m in self.calibrators_]

    def _predict_proba_scores(self, X, scores):
        if not self.randomized:
            return super()._predict_proba_scores(X, scores)
        token = _NOISE.set(check_random_state(self.random_state))
        try:
            return super()._predict_proba_scores(X, scores)
        finally:
            _NOISE.reset(token)
