"""Tests of modified Platt scaling (skcal/calibration/_modified_platt.py)."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit

from skcal.calibration import ModifiedPlattRecalibrator, PlattRecalibrator
from skcal.metrics import cutoff_calibration_error, cutoff_calibration_test

# The paper's default tolerance is (20 + sqrt(2 log(1 / alpha))) / sqrt(n).
PAPER_CONSTANT = 20.0 + math.sqrt(2.0 * math.log(20.0))  # 22.4477468...

FIG4_SCORES = np.array([0.0, 0.25, 0.5, 1.0])


def sample_counterexample(rng, n):
    """``n`` draws of the Figure 4 example: y = 1 where the forecast is 0 or 1."""
    f = FIG4_SCORES[rng.randint(4, size=n)]
    return f, ((f == 0.0) | (f == 1.0)).astype(int)


def _random_binary(rng, n):
    p = rng.uniform(size=n)
    # A miscalibration that no sigmoid of the log-odds removes.
    y = (rng.uniform(size=n) < 0.5 + 0.4 * np.sin(6.0 * p)).astype(int)
    y[:2] = [0, 1]
    return p, y


def _logit(p):
    p = np.clip(p, 1e-12, 1.0 - 1e-12)
    return np.log(p) - np.log1p(-p)


# ---------------------------------------------------------------------------
# Decision rule
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_decision_rule(global_random_seed, weighted):
    """Check that the sigmoid is kept iff its in-sample cutoff error is <= tolerance."""
    rng = np.random.RandomState(global_random_seed)
    p, y = _random_binary(rng, 300)
    w = rng.uniform(0.1, 3.0, size=300) if weighted else None
    platt = PlattRecalibrator().fit(p, y, sample_weight=w)
    error = cutoff_calibration_error(y, platt.predict_proba(p)[:, 1], sample_weight=w)
    assert error > 0.01
    mean = np.average(y, weights=w)

    for tolerance, fell_back in [
        (0.0, True),
        (0.5 * error, True),
        (0.999 * error, True),
        (1.001 * error, False),
        (2.0 * error, False),
    ]:
        recal = ModifiedPlattRecalibrator(tolerance=tolerance).fit(
            p, y, sample_weight=w
        )
        assert_array_equal(recal.fell_back_, [fell_back])
        assert_allclose(recal.tolerance_, [tolerance], rtol=1e-15)
        assert_allclose(recal.cutoff_error_, [error], rtol=1e-12)
        assert_allclose(recal.mean_, [mean], rtol=1e-12)
        # The sigmoid is fitted (and reported) either way.
        assert_allclose(recal.coef_, platt.coef_, rtol=1e-12)
        assert_allclose(recal.intercept_, platt.intercept_, rtol=1e-12)
        proba = recal.predict_proba(p)[:, 1]
        if fell_back:
            assert_allclose(proba, mean, rtol=1e-12)
        else:
            assert_allclose(proba, platt.predict_proba(p)[:, 1], rtol=1e-12)
        # In-sample, the output's cutoff error never exceeds the tolerance.
        assert cutoff_calibration_error(y, proba, sample_weight=w) <= tolerance + 1e-12

    # At the tolerance exactly, the sigmoid is kept.
    at = ModifiedPlattRecalibrator(tolerance=float(recal.cutoff_error_[0]))
    assert not at.fit(p, y, sample_weight=w).fell_back_[0]


def test_fallback_predicts_weighted_mean(global_random_seed):
    """Check that the fallback predicts the weighted mean label at every score."""
    rng = np.random.RandomState(global_random_seed)
    p, y = _random_binary(rng, 200)
    w = rng.uniform(0.0, 3.0, size=200)
    recal = ModifiedPlattRecalibrator(tolerance=0.0).fit(p, y, sample_weight=w)
    assert recal.fell_back_[0]
    mean = np.dot(w, y) / w.sum()
    assert_allclose(recal.mean_, [mean], rtol=1e-12)
    new = np.array([0.0, 1e-9, 0.3, 0.77, 1.0])
    assert_allclose(recal.predict_proba(new), [[1.0 - mean, mean]] * 5, rtol=1e-12)
    assert_array_equal(recal.predict(new), np.full(5, int(mean > 0.5)))


@pytest.mark.parametrize("n", [100, 1_000, 3_000])
@pytest.mark.parametrize("tolerance", ["paper", "bootstrap", 0.02])
def test_in_sample_error_below_tolerance(global_random_seed, n, tolerance):
    """Check that the output's in-sample cutoff error is <= tolerance_ on any data."""
    rng = np.random.RandomState(global_random_seed)
    for p, y, kind in [
        (*_random_binary(rng, n), "auto"),
        (*sample_counterexample(rng, n), "logit"),
    ]:
        recal = ModifiedPlattRecalibrator(
            tolerance=tolerance, input=kind, n_bootstrap=200, random_state=0
        ).fit(p, y)
        assert recal.fell_back_[0] == (recal.cutoff_error_[0] > recal.tolerance_[0])
        proba = recal.predict_proba(p)[:, 1]
        assert cutoff_calibration_error(y, proba) <= recal.tolerance_[0] + 1e-12


# ---------------------------------------------------------------------------
# Tolerances
# ---------------------------------------------------------------------------


def test_paper_tolerance_value(global_random_seed):
    """Check the default tolerance: 0.2244775 at n = 10_000 and alpha = 0.05."""
    rng = np.random.RandomState(global_random_seed)
    p, y = _random_binary(rng, 10_000)
    recal = ModifiedPlattRecalibrator().fit(p, y)
    assert_allclose(recal.tolerance_, [0.2244775], rtol=1e-6)
    assert_allclose(recal.tolerance_, [PAPER_CONSTANT / 100.0], rtol=1e-12)

    recal = ModifiedPlattRecalibrator(alpha=0.01).fit(p[:2_500], y[:2_500])
    expected = (20.0 + math.sqrt(2.0 * math.log(100.0))) / 50.0
    assert_allclose(recal.tolerance_, [expected], rtol=1e-12)


def test_paper_tolerance_kish_effective_size(global_random_seed):
    """Check that weights enter the default tolerance through Kish's effective size."""
    rng = np.random.RandomState(global_random_seed)
    p, y = _random_binary(rng, 400)
    w = rng.uniform(0.0, 5.0, size=400)
    recal = ModifiedPlattRecalibrator().fit(p, y, sample_weight=w)
    n_effective = w.sum() ** 2 / np.dot(w, w)
    assert_allclose(recal.tolerance_, [PAPER_CONSTANT / np.sqrt(n_effective)])
    # Only the ratios of the weights matter to the tolerance.
    scaled = ModifiedPlattRecalibrator().fit(p, y, sample_weight=1e-200 * w)
    assert_allclose(scaled.tolerance_, recal.tolerance_, rtol=1e-12)


def test_never_falls_back_up_to_503():
    """Check that the default tolerance is at least 1, so no fallback, up to n = 503."""
    for n, at_least_one in [(2, True), (100, True), (503, True), (504, False)]:
        recal = ModifiedPlattRecalibrator().fit(
            np.linspace(0.0, 1.0, n), np.arange(n) % 2
        )
        assert (recal.tolerance_[0] >= 1.0) == at_least_one
    # The worst data for a sigmoid: outcomes alternate against the ranking.
    rng = np.random.RandomState(0)
    for n in [4, 20, 100, 503]:
        p = np.sort(rng.uniform(size=n))
        y = np.where(np.arange(n) < n // 2, 1, 0)
        y[(np.arange(n) % 5) == 0] ^= 1
        recal = ModifiedPlattRecalibrator().fit(p, y)
        assert not recal.fell_back_[0]
        f, y = sample_counterexample(rng, n)
        recal = ModifiedPlattRecalibrator(input="logit").fit(f, y)
        assert not recal.fell_back_[0]


@pytest.mark.parametrize("tolerance", [0, 0.15, 1, 2.5])
def test_float_tolerance_used_as_given(tolerance):
    """Check that a float (or int) tolerance is stored and used as it is."""
    rng = np.random.RandomState(0)
    f, y = sample_counterexample(rng, 1_000)
    recal = ModifiedPlattRecalibrator(tolerance=tolerance, input="logit").fit(f, y)
    assert_array_equal(recal.tolerance_, [float(tolerance)])
    # The in-sample cutoff error of the sigmoid is about 0.24 here.
    assert recal.fell_back_[0] == (tolerance < 0.24)


def test_bootstrap_tolerance(global_random_seed):
    """Check that the bootstrap tolerance is reproducible and much below the paper's."""
    rng = np.random.RandomState(global_random_seed)
    p, y = _random_binary(rng, 2_000)
    params = dict(tolerance="bootstrap", n_bootstrap=300)
    first = ModifiedPlattRecalibrator(**params, random_state=7).fit(p, y)
    again = ModifiedPlattRecalibrator(**params, random_state=7).fit(p, y)
    other = ModifiedPlattRecalibrator(**params, random_state=8).fit(p, y)
    paper = ModifiedPlattRecalibrator().fit(p, y)
    assert_array_equal(first.tolerance_, again.tolerance_)
    assert first.tolerance_[0] != other.tolerance_[0]
    assert 0.0 < first.tolerance_[0] < paper.tolerance_[0] / 10.0
    # The same margin as the bootstrap test of the sigmoid's probabilities.
    platt = PlattRecalibrator().fit(p, y).predict_proba(p)[:, 1]
    result = cutoff_calibration_test(
        y, platt, tolerance=0.1, method="bootstrap", n_bootstrap=300, random_state=7
    )
    assert_allclose(first.tolerance_, [result.margin], rtol=1e-12)
    assert_allclose(first.cutoff_error_, [result.statistic], rtol=1e-12)


def test_bootstrap_tolerance_too_few_draws():
    """Check that fewer than 1 / alpha - 1 draws give an infinite tolerance."""
    rng = np.random.RandomState(0)
    f, y = sample_counterexample(rng, 1_000)
    recal = ModifiedPlattRecalibrator(
        tolerance="bootstrap", n_bootstrap=18, random_state=0, input="logit"
    ).fit(f, y)
    assert recal.tolerance_[0] == np.inf
    assert not recal.fell_back_[0]


def test_bootstrap_falls_back_on_counterexample(global_random_seed):
    """Check that the bootstrap tolerance drops the sigmoid at n = 400."""
    rng = np.random.RandomState(global_random_seed)
    f, y = sample_counterexample(rng, 400)
    recal = ModifiedPlattRecalibrator(
        tolerance="bootstrap", n_bootstrap=200, random_state=0, input="logit"
    ).fit(f, y)
    assert recal.tolerance_[0] < 0.1
    assert recal.fell_back_[0]
    assert_allclose(recal.predict_proba(FIG4_SCORES)[:, 1], y.mean(), rtol=1e-12)


# ---------------------------------------------------------------------------
# Rossellini et al. (2025), section 4.2: sample sizes on the counterexample
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, fell_back", [(5_000, False), (8_000, False), (10_000, True), (20_000, True)]
)
def test_counterexample_sample_sizes(global_random_seed, n, fell_back):
    """Check the paper's tolerance keeps Platt up to n = 8000 and drops it from 10^4."""
    rng = np.random.RandomState(global_random_seed)
    f, y = sample_counterexample(rng, n)
    recal = ModifiedPlattRecalibrator(input="logit").fit(f, y)
    assert_allclose(recal.tolerance_, [PAPER_CONSTANT / math.sqrt(n)], rtol=1e-12)
    # In-sample error of the sigmoid: 0.2429 in the population; seeds 0-99
    # give 0.2390-0.2460 (n = 5000), so 8000 keeps a margin of 0.006 and
    # 10^4 one of 0.016 to its tolerance.
    assert 0.235 < recal.cutoff_error_[0] < 0.25
    assert recal.fell_back_[0] == fell_back
    proba = recal.predict_proba(f)[:, 1]
    if fell_back:
        assert_allclose(proba, y.mean(), rtol=1e-12)
        assert_allclose(cutoff_calibration_error(y, proba), 0.0, atol=1e-12)
    else:
        # The kept sigmoid is increasing, near the population fit.
        assert_allclose(recal.coef_, [0.9309], atol=0.4)
        assert_allclose(proba, expit(recal.coef_[0] * f + recal.intercept_[0]))


# ---------------------------------------------------------------------------
# Multiclass
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_ovr_per_class(global_random_seed, weighted):
    """Check that each one-vs-rest map is checked, and falls back, on its own."""
    rng = np.random.RandomState(global_random_seed)
    n, k = 600, 3
    proba = rng.dirichlet(np.ones(k), size=n)
    # Outcomes from a distorted version of the probabilities.
    distorted = proba**3 + 0.2 * np.sin(5.0 * proba)
    distorted = np.clip(distorted, 0.01, None)
    distorted /= distorted.sum(axis=1, keepdims=True)
    y = (rng.uniform(size=(n, 1)) > np.cumsum(distorted, axis=1)).sum(axis=1)
    y = np.minimum(y, k - 1)
    y[:k] = np.arange(k)
    w = rng.uniform(0.1, 3.0, size=n) if weighted else None

    platt = PlattRecalibrator().fit(proba, y, sample_weight=w)
    features = _logit(proba)
    errors = np.array(
        [
            cutoff_calibration_error(
                (y == c).astype(int), m(features[:, c]), sample_weight=w
            )
            for c, m in enumerate(platt.calibrators_)
        ]
    )
    low, second = np.sort(errors)[:2]
    assert second > low
    tolerance = 0.5 * (low + second)

    recal = ModifiedPlattRecalibrator(tolerance=tolerance).fit(
        proba, y, sample_weight=w
    )
    for name in ("fell_back_", "cutoff_error_", "tolerance_", "mean_"):
        assert getattr(recal, name).shape == (k,)
    assert recal.fell_back_.dtype == bool
    assert_allclose(recal.cutoff_error_, errors, rtol=1e-10)
    assert_array_equal(recal.fell_back_, errors > tolerance)
    assert recal.fell_back_.sum() == k - 1
    assert_allclose(
        recal.mean_, [np.average(y == c, weights=w) for c in range(k)], rtol=1e-12
    )
    assert_allclose(recal.tolerance_, tolerance)
    for c, m in enumerate(recal.calibrators_):
        out = m(features[:, c])
        if recal.fell_back_[c]:
            assert_allclose(out, recal.mean_[c], rtol=1e-12)
        else:
            assert_allclose(out, platt.calibrators_[c](features[:, c]), rtol=1e-12)
        got = cutoff_calibration_error((y == c).astype(int), out, sample_weight=w)
        assert got <= recal.tolerance_[c] + 1e-12
    # Rows are the renormalised maps.
    maps = np.column_stack(
        [m(features[:, c]) for c, m in enumerate(recal.calibrators_)]
    )
    expected = maps / maps.sum(axis=1, keepdims=True)
    assert_allclose(recal.predict_proba(proba), expected, rtol=1e-12)

    # The default tolerance is the same for every class.
    default = ModifiedPlattRecalibrator().fit(proba, y, sample_weight=w)
    assert_array_equal(default.fell_back_, np.zeros(k, dtype=bool))
    assert_allclose(default.tolerance_, default.tolerance_[0])


def test_multiclass_top_label_single_map(global_random_seed):
    """Check that top_label checks a single map."""
    rng = np.random.RandomState(global_random_seed)
    proba = rng.dirichlet(np.ones(4), size=300)
    # Labels that follow the argmax more often than 1 in 4: the top class's
    # constant (the accuracy) is then above 1/4, where top_label_proba would
    # raise it.
    follows = rng.uniform(size=300) < 0.5
    y = np.where(follows, np.argmax(proba, axis=1), rng.randint(4, size=300))
    recal = ModifiedPlattRecalibrator(multiclass="top_label", tolerance=0.0).fit(
        proba, y
    )
    for name in ("fell_back_", "cutoff_error_", "tolerance_", "mean_"):
        assert getattr(recal, name).shape == (1,)
    assert recal.fell_back_[0]
    correct = np.argmax(proba, axis=1) == y
    assert_allclose(recal.mean_, [correct.mean()], rtol=1e-12)
    top = recal.predict_proba(proba)[np.arange(300), np.argmax(proba, axis=1)]
    assert_allclose(top, correct.mean(), rtol=1e-12)
