"""Ensemble temperature scaling: tempered, original and uniform predictions mixed.

Zhang, Kailkhura and Han (2020) widen temperature scaling by a convex
combination of the tempered softmax, the original softmax and the uniform
distribution; the temperature is that of temperature scaling, and the three
weights minimise the same loss on the simplex.
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from scipy.optimize import minimize
from scipy.special import softmax

from skcal._docstrings import fill_doc
from skcal._param_validation import StrOptions
from skcal._typing import ArrayLike
from skcal._utils._scaling import normalized_weights
from skcal.calibration._base import BaseRecalibrator, score_log_probabilities
from skcal.calibration._temperature import fit_temperature

# SLSQP's tolerance on the mean log loss, and its most iterations (three
# weights: a handful of iterations reach the rounding floor).
_LOG_FTOL = 1e-15
_LOG_MAX_ITER = 200

# The vertex of temperature scaling, (1, 0) in the coordinates
# (w_tempered, w_original) of the simplex: first among equal candidates.
_TS_VERTEX = (1.0, 0.0)

# The edges of the triangle v >= 0, v_1 + v_2 <= 1 of the weights
# v = (w_tempered, w_original): v_2 = 0, v_1 = 0 and v_1 + v_2 = 1, each as
# a start and a direction, start + t * direction for t in [0, 1].
_EDGES = tuple(
    (np.array(start), np.array(direction))
    for start, direction in (
        ((0.0, 0.0), (1.0, 0.0)),
        ((0.0, 0.0), (0.0, 1.0)),
        ((0.0, 1.0), (1.0, -1.0)),
    )
)


def _components(logits, temperature):
    """The tempered and the original softmax of the logits."""
    return softmax(logits / temperature, axis=1), softmax(logits, axis=1)


def _mean(values, sample_weight):
    """The (weighted) mean of ``values`` along the first axis."""
    if sample_weight is None:
        return values.mean(axis=0)
    return sample_weight @ values / sample_weight.sum()


def _brier_weights(tempered, original, y, sample_weight):
    r"""The weights of least mean Brier score on the simplex, exactly.

    With :math:`u` the uniform row, :math:`a = s(z/T) - u`,
    :math:`b = s(z) - u` and :math:`v = (w_1, w_2)`, the mixture is
    :math:`u + v_1 a + v_2 b` and its mean Brier score
    :math:`(K - 1)/K + v^\top G v - 2 g^\top v`, with
    :math:`G = \mathrm{mean}\,[a, b]^\top [a, b]` and
    :math:`g = \mathrm{mean}\,(a_y, b_y)` (the rows of :math:`a` and
    :math:`b` sum to 0). This convex quadratic is minimised over the
    triangle :math:`v \ge 0, v_1 + v_2 \le 1` by comparing the exact minima
    on its three edges with the unconstrained minimiser when it lies inside.
    """
    n_classes = tempered.shape[1]
    rows = np.arange(y.shape[0])
    a, b = tempered - 1.0 / n_classes, original - 1.0 / n_classes
    products = np.column_stack(
        [
            np.einsum("ij,ij->i", a, a),
            np.einsum("ij,ij->i", a, b),
            np.einsum("ij,ij->i", b, b),
            a[rows, y],
            b[rows, y],
        ]
    )
    aa, ab, bb, a_y, b_y = _mean(products, sample_weight)
    gram, target = np.array([[aa, ab], [ab, bb]]), np.array([a_y, b_y])

    def objective(v):
        return float(v @ gram @ v - 2.0 * target @ v)

    candidates = [np.array(_TS_VERTEX)]
    for start, direction in _EDGES:
        curvature = float(direction @ gram @ direction)
        slope = float(target @ direction - direction @ gram @ start)
        steps = [0.0, 1.0]
        if curvature > 0:
            steps.append(min(max(slope / curvature, 0.0), 1.0))
        candidates += [start + t * direction for t in steps]
    inside = np.linalg.lstsq(gram, target, rcond=None)[0]
    if inside.min() >= 0 and inside.sum() <= 1:
        candidates.append(inside)
    best = min(candidates, key=objective)
    return np.array([best[0], best[1], max(1.0 - best[0] - best[1], 0.0)])


def _log_weights(tempered, original, y, sample_weight):
    r"""The weights of least mean log loss on the simplex, by SLSQP.

    The mixture's probability of the true class is
    :math:`1/K + v_1 (a_y - 1/K) + v_2 (b_y - 1/K)`, with :math:`a_y` and
    :math:`b_y` the tempered and original probabilities of the true class:
    the mean log loss is convex in :math:`v = (w_1, w_2)`, minimised over
    the triangle :math:`v \ge 0, v_1 + v_2 \le 1` from the vertex of
    temperature scaling; a vertex is kept if SLSQP finds nothing better.
    """
    n_classes = tempered.shape[1]
    rows = np.arange(y.shape[0])
    base = 1.0 / n_classes
    slopes = np.column_stack([tempered[rows, y] - base, original[rows, y] - base])
    w = np.ones(y.shape[0]) if sample_weight is None else sample_weight
    w = w / w.sum()

    def loss_and_gradient(v):
        p = base + slopes @ v
        # A true class of probability 0 (underflow) makes the loss infinite.
        with np.errstate(divide="ignore", invalid="ignore"):
            return -float(w @ np.log(p)), -(w / p) @ slopes

    result = minimize(
        loss_and_gradient,
        np.array(_TS_VERTEX),
        jac=True,
        method="SLSQP",
        bounds=[(0.0, 1.0), (0.0, 1.0)],
        constraints=[
            {
                "type": "ineq",
                "fun": lambda v: 1.0 - v[0] - v[1],
                "jac": lambda v: np.array([-1.0, -1.0]),
            }
        ],
        options={"ftol": _LOG_FTOL, "maxiter": _LOG_MAX_ITER},
    )
    v = np.clip(result.x, 0.0, 1.0)
    if v.sum() > 1.0:
        v /= v.sum()
    # The vertices (temperature scaling first), should SLSQP stop short.
    candidates = [np.array(_TS_VERTEX), np.array([0.0, 1.0]), np.zeros(2), v]
    v = min(candidates, key=lambda c: loss_and_gradient(c)[0])
    return np.array([v[0], v[1], max(1.0 - v[0] - v[1], 0.0)])


@fill_doc
class EnsembleTemperatureRecalibrator(BaseRecalibrator):
    r"""Recalibrate with a mixture of tempered, original and uniform predictions.

    Ensemble temperature scaling (Zhang, Kailkhura and Han, 2020) predicts

    .. math::

        p = w_1\, \mathrm{softmax}(z / T) + w_2\, \mathrm{softmax}(z)
        + w_3 \frac{1}{K},

    with :math:`z` the logits, :math:`K` the number of classes and weights
    :math:`w \ge 0`, :math:`w_1 + w_2 + w_3 = 1`. As the authors do, it is
    fitted in two stages: :math:`T` is the temperature of temperature
    scaling with the same loss, then :math:`w` minimises the (weighted) mean
    loss on the calibration set with :math:`T` fixed. Each of the three
    parts ranks the classes as :math:`z` does (the uniform one ties them),
    so the predicted class does not change when :math:`w_1 + w_2 > 0`.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    loss : {"brier", "log"}, default="brier"
        The loss of both stages: the Brier score (squared error summed over
        classes; the authors' mean squared error over all entries, which has
        the same minimisers) or the log loss.
    %(input)s
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    temperature_ : float
        The temperature :math:`T`, as :class:`TemperatureRecalibrator` fits
        it with the same loss.
    weights_ : ndarray of shape (3,)
        The weights :math:`(w_1, w_2, w_3)` of the tempered softmax, the
        original softmax and the uniform distribution.
    input_ : {"probability", "logit"}
        The kind of scores seen at fit.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    TemperatureRecalibrator : The first stage alone, :math:`w = (1, 0, 0)`.

    Notes
    -----
    Probabilities are turned into logits by their logarithm (clipped at
    :math:`10^{-12}`) and a binary score :math:`s` is the pair of logits
    :math:`(0, s)`, as in :class:`TemperatureRecalibrator`. Temperature
    scaling is the mixture :math:`w = (1, 0, 0)`, so the fitted loss on the
    calibration set is never above that of temperature scaling with the same
    loss. With :math:`u` the uniform row, :math:`a = \mathrm{softmax}(z/T) -
    u` and :math:`b = \mathrm{softmax}(z) - u`, the mixture is :math:`u +
    w_1 a + w_2 b`: the mean Brier score is a convex quadratic in
    :math:`(w_1, w_2)` over a triangle, minimised exactly (the best of the
    exact minima on its edges and the unconstrained minimiser inside it),
    and the mean log loss is convex there, minimised by SLSQP. The authors'
    code fits :math:`T` with the squared error in :math:`[0.05, 5]`; here
    the temperature's search range is that of
    :class:`TemperatureRecalibrator`, whose Brier minimiser is refined to
    the root of the derivative. The
    two-stage fit need not minimise the loss jointly over :math:`T` and
    :math:`w`. Unlike temperature scaling, the fit depends on the scale of
    decision values: the original softmax :math:`\mathrm{softmax}(z)`
    changes with it.

    References
    ----------
    .. [1] J. Zhang, B. Kailkhura and T. Y.-J. Han, "Mix-n-Match: ensemble
       and compositional methods for uncertainty calibration in deep
       learning", ICML 2020, arXiv:2003.07329.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import EnsembleTemperatureRecalibrator
    >>> logits = np.array([[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0],
    ...                    [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0],
    ...                    [4.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    >>> y = np.array([0, 1, 2, 1, 1, 2, 1, 1])
    >>> recal = EnsembleTemperatureRecalibrator().fit(logits, y)
    >>> round(recal.temperature_, 2)
    0.57
    >>> recal.weights_.round(2).tolist()
    [0.74, 0.0, 0.26]
    >>> recal.predict_proba([[4.0, 0.0, 0.0]]).round(2).tolist()
    [[0.82, 0.09, 0.09]]
    """

    _parameter_constraints: dict = {
        **BaseRecalibrator._parameter_constraints,
        "loss": [StrOptions({"brier", "log"})],
    }

    def __init__(
        self,
        estimator: Any = None,
        *,
        loss: Literal["brier", "log"] = "brier",
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.loss = loss
        self.input = input
        self.response_method = response_method
        self.classes = classes

    def _fit_scores(self, X, scores, y, sample_weight):
        logits = score_log_probabilities(scores)
        sample_weight = normalized_weights(sample_weight)
        self.temperature_ = fit_temperature(logits, y, sample_weight, self.loss)
        tempered, original = _components(logits, self.temperature_)
        fit_weights = _brier_weights if self.loss == "brier" else _log_weights
        self.weights_ = fit_weights(tempered, original, y, sample_weight)

    def _predict_proba_scores(self, X, scores):
        tempered, original = _components(
            score_log_probabilities(scores), self.temperature_
        )
        w_tempered, w_original, w_uniform = self.weights_
        uniform = w_uniform / tempered.shape[1]
        return w_tempered * tempered + w_original * original + uniform
