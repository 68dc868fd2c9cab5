"""Platt scaling: a logistic map of the score (Platt, 1999; Lin, Lin and Weng, 2007)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import expit

from skcal._docstrings import fill_doc
from skcal._utils._logistic import fit_logistic
from skcal._utils._scaling import normalized_weights, power_of_two_scale
from skcal.calibration._base import BinaryMapRecalibrator


class Sigmoid(NamedTuple):
    """A fitted logistic map ``p = expit(coef * x + intercept)``."""

    coef: float
    intercept: float

    def __call__(self, x):
        return expit(self.coef * x + self.intercept)


def platt_targets(y, sample_weight):
    """Platt's smoothed targets: ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)``.

    ``N+`` and ``N-`` are the (weighted) numbers of positives and negatives,
    in the units of the weights, as scikit-learn counts them. They are added
    up on the weights divided by a power of two, then scaled back, so that they
    may exceed the largest float (a target is then 1 or 0) without a NaN.

    Returns
    -------
    targets : ndarray of shape (n_samples,)
    prior : float
        ``log((N+ + 1) / (N- + 1))``, Platt's starting intercept.
    """
    scale = 1.0 if sample_weight is None else power_of_two_scale(sample_weight)
    w = np.ones(y.shape[0]) if sample_weight is None else sample_weight / scale
    positive = float(w[y].sum())
    negative = float(w.sum()) - positive
    with np.errstate(over="ignore"):
        n_pos, n_neg = positive * scale, negative * scale
    targets = np.where(y, 1.0 - 1.0 / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    # log(N + 1) = logaddexp(log N, 0), finite whatever the scale.
    with np.errstate(divide="ignore"):
        log_pos = np.log(positive) + np.log(scale)
        log_neg = np.log(negative) + np.log(scale)
    return targets, float(np.logaddexp(log_pos, 0.0) - np.logaddexp(log_neg, 0.0))


def fit_sigmoid(x, y, sample_weight=None):
    r"""Fit Platt's sigmoid ``expit(a x + b)`` by Newton's method.

    Minimises the weighted logistic loss of Platt's smoothed targets with the
    Newton iteration and backtracking line search of Lin, Lin and Weng
    (2007) (:func:`~skcal._utils._logistic.fit_logistic`), on the centred
    and scaled feature (which leaves the fitted map unchanged and keeps the
    Hessian well conditioned).

    Parameters
    ----------
    x : ndarray of shape (n_samples,)
        The feature (log-odds or decision values).
    y : ndarray of shape (n_samples,)
        Boolean outcomes.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.

    Returns
    -------
    sigmoid : Sigmoid
    """
    t, prior = platt_targets(y, sample_weight)
    w = (
        np.ones(x.shape[0])
        if sample_weight is None
        else normalized_weights(sample_weight)
    )
    total = float(w.sum())
    support = x if sample_weight is None else x[sample_weight > 0]
    if support.max() == support.min():
        # A constant feature (where it has weight): the best map is the
        # constant mean target. (The spread computed below would be rounding
        # error, and the fit a step function.)
        return Sigmoid(0.0, float(np.log(np.dot(w, t)) - np.log(np.dot(w, 1.0 - t))))
    # Centre and scale the feature (an exact power of two first, so that
    # neither the mean nor the squares overflow or underflow at any scale).
    exact = power_of_two_scale(support)
    x = x / exact
    mean = float(np.dot(w, x)) / total
    scale = float(np.sqrt(np.dot(w, (x - mean) ** 2) / total))
    z = (x - mean) / scale
    fit = fit_logistic(
        np.column_stack([z, np.ones_like(z)]), t, w, start=np.array([0.0, prior])
    )
    theta = fit.coef
    coef = theta[0] / scale
    return Sigmoid(float(coef / exact), float(theta[1] - coef * mean))


@fill_doc
class PlattRecalibrator(BinaryMapRecalibrator):
    r"""Recalibrate with a logistic map of the log-odds (Platt scaling).

    The map is :math:`h(s) = 1 / (1 + e^{-(a s + b)})` on the score's
    log-odds :math:`s` (the decision value, or :math:`\log(p / (1 - p))` of a
    probability clipped to :math:`[10^{-12}, 1 - 10^{-12}]`). :math:`a` and
    :math:`b` minimise the weighted logistic loss of Platt's smoothed targets

    .. math::

        t_i = \frac{N_+ + 1}{N_+ + 2} \text{ if } y_i = 1, \qquad
        t_i = \frac{1}{N_- + 2} \text{ if } y_i = 0,

    with :math:`N_\pm` the (weighted) numbers of positives and negatives,
    found by the Newton method with line search of Lin, Lin and Weng (2007).
    Weights count as repetitions in these targets, as in scikit-learn:
    multiplying all of them by a constant changes the targets (weights that
    sum to 1 pull them towards 1/2).

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    %(multiclass)s
        With ``"top_label"`` the classifier's predicted class (the first
        largest score) is kept, as in the top-versus-all approach of Le Coz
        et al. (2024): it gets the map's output clipped to :math:`[1/K, 1]`
        (:math:`K` classes), and the other classes share the rest in
        proportion to their probabilities, capped just below it.
    %(input)s
        With ``"logit"`` the map reads the values as they are, e.g.
        probabilities themselves, as in Rossellini et al. (2025).
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    coef_ : ndarray of shape (n_maps,)
        The slope :math:`a` of each map (one for a binary problem or
        ``"top_label"``, one per class for ``"ovr"``).
    intercept_ : ndarray of shape (n_maps,)
        The intercept :math:`b` of each map.
    calibrators_ : list of callables
        The fitted maps, from feature to probability.
    input_ : {"probability", "logit"}
        The kind of scores the maps were fitted on.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    ModifiedPlattRecalibrator : Platt scaling that falls back to the mean
        label when the sigmoid is misspecified.
    TemperatureRecalibrator : One slope shared by all classes.

    Notes
    -----
    On decision values, the fit agrees with
    ``CalibratedClassifierCV(FrozenEstimator(clf), method="sigmoid")``, which
    minimises the same loss (to its optimiser's tolerance). On probabilities
    scikit-learn fits the sigmoid on the probabilities themselves; here it
    is fitted on their log-odds, where a sigmoid can return the identity.
    Platt scaling has no calibration guarantee when no sigmoid is calibrated
    (Rossellini et al., 2025, Figure 4).

    References
    ----------
    .. [1] J. Platt, "Probabilistic outputs for support vector machines and
       comparisons to regularized likelihood methods", Advances in Large
       Margin Classifiers, 1999.
    .. [2] H.-T. Lin, C.-J. Lin and R. C. Weng, "A note on Platt's
       probabilistic outputs for support vector machines", Machine Learning
       68, 2007, doi:10.1007/s10994-007-5018-6.
    .. [3] L. Rossellini, J. A. Soloff, R. F. Barber, Z. Ren and R. Willett,
       "Can a calibration metric be both testable and actionable?",
       COLT 2025, arXiv:2502.19851.
    .. [4] A. Le Coz, S. Herbin and F. Adjed, "Confidence calibration of
       classifiers with many classes", NeurIPS 2024, arXiv:2411.02988.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import PlattRecalibrator
    >>> decision = np.array([-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0])
    >>> y = np.array([0, 0, 1, 0, 0, 1, 1, 1])
    >>> recal = PlattRecalibrator().fit(decision, y)
    >>> recal.input_
    'logit'
    >>> recal.predict_proba([-3.0, 0.0, 4.0])[:, 1].round(2).tolist()
    [0.18, 0.45, 0.82]
    """

    _feature = "logit"

    def _fit_map(self, x, y, sample_weight):
        return fit_sigmoid(x, y, sample_weight)

    def _apply_map(self, fitted_map, x):
        return fitted_map(x)

    def _fit_scores(self, X, scores, y, sample_weight):
        super()._fit_scores(X, scores, y, sample_weight)
        self.coef_ = np.array([m.coef for m in self._sigmoids()])
        self.intercept_ = np.array([m.intercept for m in self._sigmoids()])

    def _sigmoids(self):
        return self.calibrators_
