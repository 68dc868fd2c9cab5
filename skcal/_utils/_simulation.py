"""Simulated predictions whose calibration is known, for measuring coverage.

The coverage tests (small) and ``benchmarks/bench_interval_coverage.py``
(full size) draw data sets from the settings below, compute intervals, and
count how often they contain the population value. A setting is a
distribution of predictions and a *truth*: the probability that the event
happens given the prediction.

* ``"binary"``: positive-class probabilities :math:`p = \\sigma(Z)`,
  :math:`Z \\sim N(0.8, 1.5^2)`; the event has probability :math:`q(p)`.
* ``"top_label"``: 10 classes, probabilities :math:`P = \\mathrm{softmax}(Z)`
  with :math:`Z_k \\sim N(\\mu_k, 1.5^2)` (class 0 favoured); the class is
  drawn from :math:`\\mathrm{softmax}(t Z)`, so the top label is right
  with a probability that differs from its confidence unless :math:`t = 1`.

Truths: ``"calibrated"`` (:math:`q = p`, :math:`t = 1`),
``"overconfident"`` (:math:`q = \\sigma(0.7\\,\\mathrm{logit}\\,p)`,
:math:`t = 0.7`), ``"underconfident"`` (:math:`q = \\sigma(1.4\\,
\\mathrm{logit}\\,p)`, :math:`t = 1.4`) and ``"one_bin"`` (calibrated
except predictions in :math:`[0.6, 0.667)`, whose events are 0.15 less
likely; top-label: confidences there).

Population values come from ``n_population`` predictions with exact
conditional probabilities: every prediction enters twice, as an event of
weight :math:`q` and a non-event of weight :math:`1 - q`, so that a measure
of that weighted sample is the measure of the distribution of the
predictions with the truth's event rates (the only error is the sampling of
the predictions). Proper scores are expected losses, row by row.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from scipy.special import expit, logit, softmax

KINDS = ("binary", "top_label")
TRUTHS = ("calibrated", "overconfident", "underconfident", "one_bin")
N_CLASSES = 10
_TEMPERATURE = {"calibrated": 1.0, "overconfident": 0.7, "underconfident": 1.4}
_ONE_BIN = (0.6, 0.6 + 1.0 / 15.0, 0.15)


def _binary_truth(truth, p):
    if truth == "one_bin":
        low, high, shift = _ONE_BIN
        inside = (p >= low) & (p < high)
        return np.where(inside, p - shift, p)
    return expit(_TEMPERATURE[truth] * logit(np.clip(p, 1e-15, 1 - 1e-15)))


class Setting:
    """One distribution of predictions and outcomes.

    Parameters
    ----------
    kind : {"binary", "top_label"}
    truth : {"calibrated", "overconfident", "underconfident", "one_bin"}
    """

    def __init__(self, kind, truth):
        if kind not in KINDS or truth not in TRUTHS:
            raise ValueError(f"unknown setting {kind!r}, {truth!r}")
        self.kind, self.truth = kind, truth

    def __repr__(self):
        return f"Setting({self.kind!r}, {self.truth!r})"

    def predictions(self, n, rng):
        """``(y_prob, event_probability)``: predictions and the truth's rates.

        Binary: ``y_prob`` of shape (n,) and the probability of class 1.
        Top-label: ``y_prob`` of shape (n, 10) and, per row, the probability
        of each class, shape (n, 10).
        """
        if self.kind == "binary":
            p = expit(rng.normal(0.8, 1.5, size=n))
            return p, _binary_truth(self.truth, p)
        means = np.linspace(1.0, -1.0, N_CLASSES)
        z = rng.normal(means, 1.5, size=(n, N_CLASSES))
        y_prob = softmax(z, axis=1)
        if self.truth == "one_bin":
            classes = y_prob.copy()
            top = np.argmax(y_prob, axis=1)
            rows = np.arange(n)
            confidence = y_prob[rows, top]
            right = _binary_truth("one_bin", confidence)
            # The top class loses (or keeps) mass; the others share the rest
            # in proportion.
            others = 1.0 - confidence
            scale = np.where(others > 0, (1.0 - right) / np.maximum(others, 1e-300), 0)
            classes *= scale[:, None]
            classes[rows, top] = right
            return y_prob, classes
        return y_prob, softmax(_TEMPERATURE[self.truth] * z, axis=1)

    def sample(self, n, rng):
        """``(y_true, y_prob)``: ``n`` rows with outcomes drawn from the truth."""
        y_prob, truth = self.predictions(n, rng)
        if self.kind == "binary":
            return (rng.uniform(size=n) < truth).astype(np.int64), y_prob
        cumulative = np.cumsum(truth, axis=1)
        u = rng.uniform(size=n)[:, None]
        y_true = np.minimum((u >= cumulative).sum(axis=1), N_CLASSES - 1)
        return y_true, y_prob

    def population_view(self, n_population, rng):
        """``(y, p, weight)``: the binary view of the population, weighted.

        The binary events of the measure's view (the positive class, or the
        top label's correctness against its confidence), each prediction as
        an event of weight ``q`` and a non-event of weight ``1 - q``.
        """
        y_prob, truth = self.predictions(n_population, rng)
        if self.kind == "binary":
            p, q = y_prob, truth
        else:
            top = np.argmax(y_prob, axis=1)
            rows = np.arange(n_population)
            p, q = y_prob[rows, top], truth[rows, top]
        y = np.concatenate([np.ones(n_population, int), np.zeros(n_population, int)])
        return y, np.concatenate([p, p]), np.concatenate([q, 1.0 - q])

    def expected_scores(self, n_population, rng):
        """``{"brier_score_loss": ..., "log_loss": ...}`` of the population.

        As scikit-learn defines them: the Brier score of the positive class
        (binary) or summed over the classes (multiclass), the log loss with
        probabilities clipped to machine epsilon.
        """
        y_prob, truth = self.predictions(n_population, rng)
        eps = np.finfo(np.float64).eps
        if self.kind == "binary":
            brier = truth * (1 - y_prob) ** 2 + (1 - truth) * y_prob**2
            clipped = np.clip(y_prob, eps, 1 - eps)
            log = -(truth * np.log(clipped) + (1 - truth) * np.log(1 - clipped))
        else:
            squares = np.sum(y_prob**2, axis=1)
            brier = squares - 2 * np.sum(truth * y_prob, axis=1) + 1
            log = -np.sum(truth * np.log(np.clip(y_prob, eps, 1 - eps)), axis=1)
        return {"brier_score_loss": float(brier.mean()), "log_loss": float(log.mean())}


def population_value(setting, metric, *, n_population=2_000_000, random_state=0):
    """The population value of a registered measure in a setting.

    Parameters
    ----------
    setting : Setting
    metric : str
        A name of the registry; calibration errors with their default
        options.
    n_population : int, default=2_000_000
        Predictions drawn to represent the population.
    random_state : int, default=0

    Returns
    -------
    value : float
    """
    from skcal.metrics._registry import MEASURES_BY_NAME

    rng = np.random.RandomState(random_state)
    measure = MEASURES_BY_NAME[metric]
    if measure.kind == "proper_score":
        return setting.expected_scores(n_population, rng)[metric]
    y, p, weight = setting.population_view(n_population, rng)
    return float(measure.function(y, p, sample_weight=weight))


def coverage(
    setting,
    metrics,
    *,
    n_samples,
    n_runs,
    n_bootstrap,
    confidence_level=0.95,
    population=None,
    random_state=0,
):
    """How often the intervals of ``metrics`` contain their population values.

    Each run draws ``n_samples`` rows of ``setting`` and computes every
    measure's interval as :func:`skcal.metrics.confidence_interval` does.

    Parameters
    ----------
    setting : Setting
    metrics : list of str
        Names of the registry.
    n_samples, n_runs, n_bootstrap : int
    confidence_level : float, default=0.95
    population : dict, default=None
        ``{metric: population value}``; computed by :func:`population_value`
        when None.
    random_state : int, default=0

    Returns
    -------
    results : dict
        ``{metric: {"population", "covered", "below", "above", "width"}}``:
        the population value, and per run whether the interval contains it,
        lies below or above it, and its width (arrays of shape (n_runs,)).
    """
    from skcal._validation import check_calibration_inputs
    from skcal.metrics._interval import measure_intervals, problem_of
    from skcal.metrics._registry import MEASURES_BY_NAME

    if population is None:
        population = {m: population_value(setting, m) for m in metrics}
    measures = {m: MEASURES_BY_NAME[m] for m in metrics}
    rng = np.random.RandomState(random_state)
    lows, highs = np.empty((n_runs, len(metrics))), np.empty((n_runs, len(metrics)))
    for run in range(n_runs):
        y_true, y_prob = setting.sample(n_samples, rng)
        problem = problem_of(check_calibration_inputs(y_true, y_prob))
        values = {
            m: measure.evaluate(
                problem[0], problem[1], classes=problem[2], pos_label=problem[4]
            )
            for m, measure in measures.items()
        }
        intervals = measure_intervals(
            measures,
            problem,
            values,
            n_bootstrap=n_bootstrap,
            confidence_level=confidence_level,
            rng=rng,
            verbose=False,
        )
        for j, m in enumerate(metrics):
            lows[run, j], highs[run, j] = intervals[m]
    results = {}
    for j, m in enumerate(metrics):
        value = population[m]
        below, above = highs[:, j] < value, lows[:, j] > value
        results[m] = {
            "population": value,
            "covered": ~(below | above),
            "below": below,
            "above": above,
            "width": highs[:, j] - lows[:, j],
        }
    return results
