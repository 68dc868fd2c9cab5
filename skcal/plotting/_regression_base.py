"""What the diagrams of probabilistic regression share: predictions of a
fitted regressor and the parameters of their plotting methods."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import numpy as np

from skcal._param_validation import HasMethods
from skcal._utils._scaling import effective_size
from skcal.regression._base import check_fitted_regressor, gaussian_predictions

REGRESSION_PLOT_CONSTRAINTS = {
    "name": [str, None],
    "ax": [HasMethods(["plot"]), None],
    "ref_line": ["boolean"],
    "ref_line_kwargs": [dict, None],
}

# Levels of a quantile diagram of Gaussian predictions, when none are given.
DEFAULT_LEVELS = np.round(np.linspace(0.05, 0.95, 19), 2)


def regressor_gaussian(estimator, X, caller):
    """Means and standard deviations of a fitted regressor, for a Display."""
    check_fitted_regressor(estimator, caller)
    predictions = gaussian_predictions(estimator, X)
    return predictions[:, 0], predictions[:, 1]


def regressor_quantiles(estimator, X, quantiles, caller):
    """Predicted quantiles and their levels, for a Display.

    A quantile model (with ``quantiles_`` or ``quantiles``) predicts its own
    levels; a model with ``predict_quantiles`` (skcal's Gaussian
    recalibrators) predicts ``quantiles``; any other predicts means and
    standard deviations, whose Gaussian quantiles are taken.
    """
    from scipy.special import ndtri

    check_fitted_regressor(estimator, caller)
    own = getattr(estimator, "quantiles_", getattr(estimator, "quantiles", None))
    if own is not None and quantiles is None:
        return estimator.predict(X), np.asarray(own, dtype=np.float64)
    levels = DEFAULT_LEVELS if quantiles is None else np.asarray(quantiles, float)
    if callable(getattr(estimator, "predict_quantiles", None)):
        try:
            return estimator.predict_quantiles(X, levels), levels
        except AttributeError:  # a cross-fitted quantile model
            pass
    mean, std = regressor_gaussian(estimator, X, caller)
    return mean[:, None] + std[:, None] * ndtri(levels), levels


def estimator_name(estimator, name):
    """The legend name of a model: ``name``, or its class name."""
    return type(estimator).__name__ if name is None else name


def binomial_band(share, n_effective, level=0.95):
    """Central ``level`` interval of the share of ``n`` Bernoulli(share) draws."""
    from scipy.stats import binom

    n = max(round(n_effective), 1)
    tail = (1.0 - level) / 2.0
    return binom.ppf(tail, n, share) / n, binom.isf(tail, n, share) / n


def sample_size(sample_weight, n_samples):
    """Kish's effective sample size of the weights."""
    weight = None if sample_weight is None else np.asarray(sample_weight, float)
    return effective_size(weight, n_samples)
