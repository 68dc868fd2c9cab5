"""Modified Platt scaling: Platt's sigmoid, or the mean label when it is misspecified.

Rossellini et al. (2025, Appendix D.2).
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, Literal, NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions
from skcal._typing import ArrayLike, RandomStateLike
from skcal._utils._bootstrap import N_BOOTSTRAP
from skcal._utils._cumulative import (
    bootstrap_margin,
    bound_margin,
    cutoff_statistic,
    null_statistics,
)
from skcal._utils._scaling import effective_size, normalized_weights
from skcal._utils._ties import Ties
from skcal.calibration._platt import PlattRecalibrator, Sigmoid, fit_sigmoid


class _CheckedSigmoid(NamedTuple):
    """A Platt sigmoid kept, or replaced by the constant ``mean``."""

    sigmoid: Sigmoid
    fell_back: bool
    mean: float
    cutoff_error: float
    tolerance: float

    def __call__(self, x):
        if self.fell_back:
            return np.full(np.shape(x), self.mean)
        return self.sigmoid(x)


@fill_doc
class ModifiedPlattRecalibrator(PlattRecalibrator):
    r"""Platt scaling that falls back to the mean label when it is misspecified.

    The modified Platt scaling of Rossellini et al. (2025, Appendix D.2):
    fit Platt's sigmoid :math:`\tilde h` (see :class:`PlattRecalibrator`),
    compute its cutoff calibration error
    :math:`\widehat\Delta_{\mathrm{Cutoff}}(\tilde h)` on the same calibration
    set, and keep it when this error is at most the tolerance
    :math:`\varepsilon_n`; otherwise predict the (weighted) mean label
    :math:`\bar y` everywhere, whose in-sample cutoff error is 0. So the
    recalibrated model's in-sample cutoff error is always at most
    :math:`\varepsilon_n`, and its population cutoff error is at most
    :math:`\varepsilon_n + O(n^{-1/2})` (their Proposition D.1), which plain
    Platt scaling cannot promise.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    tolerance : "paper", "bootstrap" or float, default="paper"
        The tolerance :math:`\varepsilon_n` for misspecification.
        ``"paper"``: :math:`(20 + \sqrt{2\log(1/\alpha)})/\sqrt{n}`, the
        paper's default for ``alpha=0.05`` (the :math:`1 - \alpha` bound of
        Proposition 4.1 on the error of a calibrated model), with :math:`n`
        Kish's effective size when weighted. It is at least 1, so the
        sigmoid is always kept, up to :math:`n = 503`. ``"bootstrap"``: the
        :math:`1 - \alpha` quantile of the statistic when labels are redrawn
        from the sigmoid's probabilities (its distribution if the sigmoid
        were calibrated), about 20 times smaller. A float is used as given.
    alpha : float, default=0.05
        The level of the tolerance, in (0, 1).
    n_bootstrap : int, default=1000
        Number of label draws for ``tolerance="bootstrap"``.
    random_state : int, RandomState instance or None, default=None
        Seeds the draws of ``tolerance="bootstrap"``. Pass an int for
        reproducible output across multiple function calls.
    %(multiclass)s
        Each map is checked and may fall back on its own.
        With ``"top_label"`` the classifier's predicted class (the first
        largest score) is kept, as in the top-versus-all approach of Le Coz
        et al. (2024): it gets the map's output clipped to :math:`[1/K, 1]`
        (:math:`K` classes), and the other classes share the rest in
        proportion to their probabilities, capped just below it.
    %(input)s
        With ``"logit"`` the sigmoid reads the values as they are, e.g. the
        probabilities themselves, as in the paper.
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    fell_back_ : ndarray of bool of shape (n_maps,)
        Whether each map (one for a binary problem or ``"top_label"``, one per
        class for ``"ovr"``) was replaced by the mean label.
    cutoff_error_ : ndarray of shape (n_maps,)
        The in-sample cutoff calibration error of each fitted sigmoid.
    tolerance_ : ndarray of shape (n_maps,)
        The tolerance each was compared with.
    mean_ : ndarray of shape (n_maps,)
        The mean label of each map, predicted where it fell back.
    coef_ : ndarray of shape (n_maps,)
        The slope of each fitted sigmoid (kept or not).
    intercept_ : ndarray of shape (n_maps,)
        The intercept of each fitted sigmoid.
    calibrators_ : list of callables
        The fitted maps, from feature to probability.
    input_ : {"probability", "logit"}
        The kind of scores the maps were fitted on.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    PlattRecalibrator : The sigmoid without the check.
    skcal.metrics.cutoff_calibration_test : The test behind the tolerances.

    Notes
    -----
    With the paper's tolerance the fallback needs a large sample (about
    :math:`10^4` on the example of the paper's Figure 4); the bootstrap
    tolerance falls back from a few hundred samples, without the
    distribution-free guarantee. Integer weights are not equivalent to
    repeated rows for the tolerances, which use Kish's effective sample size.

    References
    ----------
    .. [1] L. Rossellini, J. A. Soloff, R. F. Barber, Z. Ren and R. Willett,
       "Can a calibration metric be both testable and actionable?",
       COLT 2025, arXiv:2502.19851.
    .. [2] A. Le Coz, S. Herbin and F. Adjed, "Confidence calibration of
       classifiers with many classes", NeurIPS 2024, arXiv:2411.02988.

    Examples
    --------
    The example of the paper's Figure 4: scores 0, 0.25, 0.5 and 1 with
    outcomes 1, 0, 0, 1; no increasing sigmoid fits them.

    >>> import numpy as np
    >>> from skcal.calibration import ModifiedPlattRecalibrator
    >>> scores = np.tile([0.0, 0.25, 0.5, 1.0], 50)
    >>> y = np.tile([1, 0, 0, 1], 50)
    >>> recal = ModifiedPlattRecalibrator(input="logit").fit(scores, y)
    >>> recal.fell_back_.tolist(), recal.tolerance_.round(2).tolist()
    ([False], [1.59])
    >>> recal = ModifiedPlattRecalibrator(
    ...     input="logit", tolerance="bootstrap", random_state=0
    ... ).fit(scores, y)
    >>> recal.fell_back_.tolist()
    [True]
    >>> recal.predict_proba([0.0, 0.5])[:, 1].tolist()
    [0.5, 0.5]
    """

    _parameter_constraints: dict = {
        **PlattRecalibrator._parameter_constraints,
        "tolerance": [
            StrOptions({"paper", "bootstrap"}),
            Interval(Real, 0, None, closed="left"),
        ],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "n_bootstrap": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator: Any = None,
        *,
        tolerance: Literal["bootstrap", "paper"] | float = "paper",
        alpha: float = 0.05,
        n_bootstrap: int = N_BOOTSTRAP,
        random_state: RandomStateLike = None,
        multiclass: Literal["ovr", "top_label"] = "ovr",
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.tolerance = tolerance
        self.alpha = alpha
        self.n_bootstrap = n_bootstrap
        self.random_state = random_state
        self.multiclass = multiclass
        self.input = input
        self.response_method = response_method
        self.classes = classes

    def _fit_map(self, x, y, sample_weight):
        sigmoid = fit_sigmoid(x, y, sample_weight)
        p = sigmoid(x)
        # The checks depend on ratios of weights only.
        sample_weight = normalized_weights(sample_weight)
        ties = Ties(p, sample_weight)
        error = cutoff_statistic(y, p, sample_weight, ties)
        if self.tolerance == "paper":
            n_effective = effective_size(sample_weight, x.shape[0])
            tolerance = bound_margin(n_effective, self.alpha)
        elif self.tolerance == "bootstrap":
            null = null_statistics(ties, self.n_bootstrap, self._rng)
            tolerance = bootstrap_margin(null, self.alpha)
        else:
            tolerance = float(self.tolerance)
        mean = float(np.average(y, weights=sample_weight))
        return _CheckedSigmoid(sigmoid, bool(error > tolerance), mean, error, tolerance)

    def _fit_scores(self, X, scores, y, sample_weight):
        self._rng = check_random_state(self.random_state)
        try:
            super()._fit_scores(X, scores, y, sample_weight)
        finally:
            del self._rng
        self.fell_back_ = np.array([m.fell_back for m in self.calibrators_])
        self.cutoff_error_ = np.array([m.cutoff_error for m in self.calibrators_])
        self.tolerance_ = np.array([m.tolerance for m in self.calibrators_])
        self.mean_ = np.array([m.mean for m in self.calibrators_])

    def _sigmoids(self):
        return [m.sigmoid for m in self.calibrators_]
