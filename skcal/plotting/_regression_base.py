"""What the diagrams of probabilistic regression share: predictions of a
fitted regressor and the parameters of their plotting methods."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from skcal._docstrings import REGRESSION_DOC
from skcal._param_validation import HasMethods
from skcal.plotting._base import doc_filler
from skcal.regression._base import (
    check_fitted_regressor,
    gaussian_predictions,
    predicted_quantiles,
)

# Fills the docstrings of the Displays of regression: their data, and the
# plotting parameters they share with the classification diagrams.
fill_regression_doc = doc_filler(
    {
        **REGRESSION_DOC,
        "name": """\
name : str or None, default=None
    The model's name in the legend; ``from_estimator`` uses the
    estimator's class name when None.""",
        "ref_line_kwargs": """\
ref_line_kwargs : dict or None, default=None
    Keywords of the reference line (the diagonal, or the uniform
    density of the PIT).""",
    }
)

REGRESSION_PLOT_CONSTRAINTS = {
    "name": [str, None],
    "ax": [HasMethods(["plot"]), None],
    "ref_line": ["boolean"],
    "ref_line_kwargs": [dict, None],
}


def regressor_gaussian(estimator, X, caller):
    """Means and standard deviations of a fitted regressor, for a Display."""
    check_fitted_regressor(estimator, caller)
    predictions = gaussian_predictions(estimator, X)
    return predictions[:, 0], predictions[:, 1]


def regressor_quantiles(estimator, X, quantiles, caller):
    """Predicted quantiles and their levels of a fitted regressor, for a Display."""
    check_fitted_regressor(estimator, caller)
    return predicted_quantiles(estimator, X, quantiles)


def estimator_name(estimator, name):
    """The legend name of a model: ``name``, or its class name."""
    return type(estimator).__name__ if name is None else name


def binomial_band(share, n_effective, level=0.95):
    """Central ``level`` interval of the share of ``n`` Bernoulli(share) draws."""
    from scipy.stats import binom

    n = max(round(n_effective), 1)
    tail = (1.0 - level) / 2.0
    return binom.ppf(tail, n, share) / n, binom.isf(tail, n, share) / n


def legend_label(display, name, measure, value, spec):
    """A curve's legend entry: the model's name and, if known, its measure.

    ``name`` is the ``plot`` argument (None: the Display's own ``name``);
    ``value`` is shown as ``measure = value`` with the format ``spec``.
    """
    label = (display.name if name is None else name) or "Model"
    if value is None:
        return label
    return f"{label} ({measure} = {value:{spec}})"
