"""Tests of temperature scaling."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize_scalar
from scipy.special import expit, log_softmax, softmax
from sklearn.calibration import CalibratedClassifierCV
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss
from sklearn.naive_bayes import GaussianNB

from skcal.calibration import TemperatureRecalibrator, _temperature
from skcal.calibration._temperature import _log_loss_beta, _newton_on_beta

LOSSES = ["log", "brier"]


def _blobs(rng, n, k):
    """Overlapping Gaussian classes in two dimensions."""
    y = rng.randint(k, size=n)
    centers = rng.normal(size=(k, 2))
    return centers[y] + rng.normal(size=(n, 2)), y


def _random_logits(rng, n, k):
    """Logits and labels drawn from ``softmax(logits / T)`` for a random ``T``."""
    logits = rng.normal(scale=rng.uniform(1.0, 4.0), size=(n, k))
    true_temperature = math.exp(rng.uniform(-1.0, 1.5))
    proba = softmax(logits / true_temperature, axis=1)
    u = rng.uniform(size=(n, 1))
    y = np.minimum((proba.cumsum(axis=1) < u).sum(axis=1), k - 1)
    return logits, y


def _mean_loss(logits, y, sample_weight, temperature, loss):
    """Weighted mean log loss or Brier score (sum over classes) of softmax(z / T).

    ``temperature`` may be an array of shape (n_temperatures,); the result
    then has that shape.
    """
    t = np.asarray(temperature, dtype=float)[..., None, None]
    scaled = logits / t
    rows = np.arange(y.shape[0])
    if loss == "log":
        per_sample = -log_softmax(scaled, axis=-1)[..., rows, y]
    else:
        onehot = np.eye(logits.shape[1])[y]
        per_sample = ((softmax(scaled, axis=-1) - onehot) ** 2).sum(axis=-1)
    return np.average(per_sample, axis=-1, weights=sample_weight)


def _nll(y, proba):
    return float(-np.mean(np.log(proba[np.arange(y.shape[0]), y])))


def _brier(y, proba):
    onehot = np.eye(proba.shape[1])[y]
    return float(np.mean(((proba - onehot) ** 2).sum(axis=1)))


# ---------------------------------------------------------------------------
# Agreement with scikit-learn
# ---------------------------------------------------------------------------

SKLEARN_CASES = {
    # decision_function of shape (n,): scikit-learn's logits are (-s, s), ours
    # (0, s), so its temperature is twice ours but the probabilities agree.
    "binary_logistic": (2, LogisticRegression),
    # decision_function of shape (n, 4).
    "multiclass_logistic": (4, LogisticRegression),
    # predict_proba only: log-probabilities as logits.
    "multiclass_naive_bayes": (3, GaussianNB),
    "binary_naive_bayes": (2, GaussianNB),
}


# FrozenEstimator.fit does not take sample_weight, so scikit-learn warns that
# the weights only reach the calibration; that is what is compared here.
@pytest.mark.filterwarnings("ignore:Since FrozenEstimator:UserWarning")
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("case", list(SKLEARN_CASES))
def test_matches_scikit_learn(global_random_seed, case, weighted):
    """Check predict_proba against CalibratedClassifierCV(method="temperature")."""
    n_classes, make_classifier = SKLEARN_CASES[case]
    rng = np.random.RandomState(global_random_seed)
    X, y = _blobs(rng, 600, n_classes)
    clf = make_classifier().fit(X[:200], y[:200])
    X_cal, y_cal, X_test = X[200:400], y[200:400], X[400:]
    w = rng.uniform(0.1, 3.0, size=200) if weighted else None

    ours = TemperatureRecalibrator(FrozenEstimator(clf)).fit(
        X_cal, y_cal, sample_weight=w
    )
    ref = CalibratedClassifierCV(FrozenEstimator(clf), method="temperature").fit(
        X_cal, y_cal, sample_weight=w
    )
    expected_input = "logit" if make_classifier is LogisticRegression else "probability"
    assert ours.input_ == expected_input
    proba = ours.predict_proba(X_test)
    assert_allclose(proba, ref.predict_proba(X_test), rtol=0, atol=1e-6)
    # The fit moves the probabilities well beyond the tolerance.
    assert np.abs(proba - clf.predict_proba(X_test)).max() > 1e-5
    assert_array_equal(ours.predict(X_test), clf.predict(X_test))


# ---------------------------------------------------------------------------
# The fitted temperature minimises the loss
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("loss", LOSSES)
def test_temperature_minimises_mean_loss(global_random_seed, loss, weighted):
    """Check temperature_ against a grid search refined by scipy on log T."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 300, 5)
    w = rng.uniform(0.0, 2.0, size=300) if weighted else None

    recal = TemperatureRecalibrator(loss=loss, input="logit").fit(
        logits, y, sample_weight=w
    )

    log_grid = np.linspace(-4.0, 4.0, 1601)
    grid_loss = _mean_loss(logits, y, w, np.exp(log_grid), loss)
    start = log_grid[np.argmin(grid_loss)]
    refined = minimize_scalar(
        lambda log_t: float(_mean_loss(logits, y, w, math.exp(log_t), loss)),
        bounds=(start - 0.01, start + 0.01),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert_allclose(math.log(recal.temperature_), refined.x, rtol=0, atol=1e-5)
    fitted_loss = float(_mean_loss(logits, y, w, recal.temperature_, loss))
    assert fitted_loss <= refined.fun + 1e-12
    assert fitted_loss <= grid_loss.min() + 1e-12


@pytest.mark.parametrize("loss", LOSSES)
def test_sample_weight_is_repetition(global_random_seed, loss):
    """Check that integer weights give the fit of the repeated rows."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 80, 3)
    w = rng.randint(0, 4, size=80)
    w[:3] = 1  # keep at least two classes, whatever the seed
    y[:3] = [0, 1, 2]
    weighted = TemperatureRecalibrator(loss=loss).fit(logits, y, sample_weight=w)
    repeated = TemperatureRecalibrator(loss=loss).fit(
        np.repeat(logits, w, axis=0), np.repeat(y, w)
    )
    # Sums in another order move the minimiser within Brent's tolerance.
    assert_allclose(weighted.temperature_, repeated.temperature_, rtol=1e-5)


# ---------------------------------------------------------------------------
# The map itself
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("loss", LOSSES)
def test_predict_proba_is_tempered_softmax(global_random_seed, loss):
    """Check predict_proba: softmax(z / T) for logits, p^(1/T) for probabilities."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 200, 4)
    new = rng.normal(scale=3.0, size=(50, 4))

    recal = TemperatureRecalibrator(loss=loss, input="logit").fit(logits, y)
    assert_allclose(
        recal.predict_proba(new), softmax(new / recal.temperature_, axis=1), rtol=1e-12
    )

    proba = softmax(logits, axis=1)
    new_proba = softmax(new, axis=1)
    recal = TemperatureRecalibrator(loss=loss).fit(proba, y)
    assert recal.input_ == "probability"
    powered = new_proba ** (1.0 / recal.temperature_)
    assert_allclose(
        recal.predict_proba(new_proba),
        powered / powered.sum(axis=1, keepdims=True),
        rtol=1e-9,
    )


@pytest.mark.parametrize("loss", LOSSES)
def test_probabilities_and_logits_agree(global_random_seed, loss):
    """Check that a model's probabilities and its logits give the same fit."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 200, 4)
    # Logits are defined up to a constant per row.
    shifted = logits + rng.normal(scale=5.0, size=(200, 1))
    from_logits = TemperatureRecalibrator(loss=loss).fit(shifted, y)
    from_proba = TemperatureRecalibrator(loss=loss).fit(softmax(logits, axis=1), y)
    assert (from_logits.input_, from_proba.input_) == ("logit", "probability")
    assert_allclose(from_logits.temperature_, from_proba.temperature_, rtol=1e-6)
    assert_allclose(
        from_logits.predict_proba(shifted),
        from_proba.predict_proba(softmax(logits, axis=1)),
        rtol=1e-6,
        atol=1e-12,
    )


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("input", ["probability", "logit"])
def test_binary_one_column_equals_two_columns(global_random_seed, input, loss):
    """Check that 1-D binary scores give the same fit as their two-column form."""
    rng = np.random.RandomState(global_random_seed)
    z = rng.normal(scale=3.0, size=150)
    y = (rng.uniform(size=150) < expit(z / 2.0)).astype(int)
    y[:2] = [0, 1]
    z_new = rng.normal(scale=3.0, size=40)
    if input == "probability":
        one, one_new = expit(z), expit(z_new)
        two = np.column_stack([1 - one, one])
        two_new = np.column_stack([1 - one_new, one_new])
    else:
        one, one_new = z, z_new
        # Two columns of logits: only their difference matters.
        c, c_new = rng.normal(size=150), rng.normal(size=40)
        two = np.column_stack([c, c + z])
        two_new = np.column_stack([c_new, c_new + z_new])

    rec_one = TemperatureRecalibrator(loss=loss, input=input).fit(one, y)
    rec_two = TemperatureRecalibrator(loss=loss, input=input).fit(two, y)
    # The difference of two logit columns is z to rounding, which moves the
    # minimiser within Brent's tolerance.
    assert_allclose(rec_one.temperature_, rec_two.temperature_, rtol=1e-6)
    proba = rec_one.predict_proba(one_new)
    assert proba.shape == (40, 2)
    assert_allclose(proba, rec_two.predict_proba(two_new), rtol=0, atol=1e-6)
    # A binary score s is the pair of logits (0, s): P(y=1) = expit(s / T).
    assert_allclose(proba[:, 1], expit(z_new / rec_one.temperature_), rtol=1e-9)
    assert_array_equal(rec_one.predict(one_new), (z_new > 0).astype(int))


# ---------------------------------------------------------------------------
# Real model outputs
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("loss", LOSSES)
def test_real_data_keeps_argmax_and_lowers_loss(real_multiclass, loss):
    """Check on real classifiers: argmax kept, T > 0, calibration-set loss lowered."""
    labels, probs = real_multiclass
    prob64 = probs.astype(np.float64)
    recal = TemperatureRecalibrator(loss=loss).fit(prob64, labels)
    assert recal.input_ == "probability"
    assert math.exp(-10) < recal.temperature_ < math.exp(10)
    assert_array_equal(recal.predict(prob64), prob64.argmax(axis=1))
    calibrated = recal.predict_proba(prob64)
    assert_array_equal(calibrated.argmax(axis=1), prob64.argmax(axis=1))
    # T = 1 is in the search space, so the calibration-set loss cannot rise
    # (notes: mean_replacement_and_sharpness.md section 4.6 R1).
    score = _nll if loss == "log" else _brier
    assert score(labels, calibrated) <= score(labels, prob64)


def test_brier_loss_finds_the_global_minimum():
    """Check that the Brier temperature is not a local minimum (issue 4 review)."""
    z = np.array([-0.731, -0.503, -34.851, -0.007, 0.019, 0.541])
    y = np.array([0, 1, 0, 0, 1, 1])
    recal = TemperatureRecalibrator(loss="brier").fit(z, y)
    p = recal.predict_proba(z)[:, 1]
    brier = np.mean((p - y) ** 2)
    # A local minimum sits at T ~ 0.68 (Brier 0.370); T -> 0 gives 0.333.
    grid = [np.mean((expit(z / t) - y) ** 2) for t in np.logspace(-4, 2, 200)]
    assert brier <= min(grid) + 1e-9
    assert brier < 0.34


def _two_group_brier_problem(seed, n):
    """Two groups of rows whose Brier curves have their minima far apart.

    Group A (confidence 0.73, 10% events) alone pulls T towards 0.44; the
    whole is best at T -> 0 (Brier 0.09 against 0.33 at the local minimum).
    """
    rng = np.random.default_rng(seed)
    logits = np.zeros((n, 2))
    y = np.zeros(n, dtype=int)
    logits[::2, 1] = -1.0
    y[::2] = rng.random(len(y[::2])) > 0.9
    logits[1::2, 1] = -0.001
    y[1::2] = rng.random(len(y[1::2])) > 0.999
    return logits, y


def test_brier_search_does_not_depend_on_row_order():
    """Check the subsample cannot alias with a period of the rows (review).

    Rows taken at a fixed stride of 2 saw only group A and settled in its
    minimum; shuffled, the same rows gave the global one.
    """
    logits, y = _two_group_brier_problem(0, 8192)
    order = np.random.default_rng(1).permutation(8192)
    interleaved = TemperatureRecalibrator(loss="brier", input="logit").fit(logits, y)
    shuffled = TemperatureRecalibrator(loss="brier", input="logit")
    shuffled.fit(logits[order], y[order])
    assert_allclose(interleaved.temperature_, shuffled.temperature_, rtol=1e-10)
    assert interleaved.temperature_ < 0.01


@pytest.mark.parametrize("seed", range(5))
def test_brier_search_sees_a_heavy_row(seed, monkeypatch):
    """Check one row carrying three quarters of the weight steers the search.

    The subsample is drawn with probabilities proportional to the weights,
    so the heavy row is in it wherever it stands (review: at a fixed stride
    it was missed at 9 positions of 20).
    """
    rng = np.random.default_rng(seed)
    n = 6000
    logits = np.zeros((n, 2))
    logits[:, 1] = -1.0
    y = (rng.random(n) > 0.9).astype(int)
    w = np.ones(n)
    k = rng.integers(n)
    logits[k, 1], y[k], w[k] = -0.001, 0, 3 * n
    fast, full = _subsampled_and_full_brier_fits(logits, y, w, monkeypatch)
    assert_allclose(fast.temperature_, full.temperature_, rtol=1e-10)


def test_newton_stops_at_a_zero_gradient():
    """Check that a step landing on the minimum ends the search at once.

    A zero gradient once made the point an end of the bracket, and the
    next step, equal to it, was replaced by a geometric bisection towards
    e^20: some 45 more passes over the data before coming back.
    """
    calls = []

    def derivatives(beta):
        calls.append(beta)
        return beta - 4.0, 1.0  # Newton from 1 lands on 4 exactly

    assert _newton_on_beta(derivatives) == 4.0
    assert calls == [1.0, 4.0]


def _subsampled_and_full_brier_fits(X, y, sample_weight, monkeypatch):
    """Brier temperature fits with the subsampled bracket, and with none."""
    fast = TemperatureRecalibrator(loss="brier", input="logit")
    fast.fit(X, y, sample_weight=sample_weight)
    with monkeypatch.context() as patch:
        patch.setattr(_temperature, "_BRIER_SUBSAMPLE", 10**9)
        full = TemperatureRecalibrator(loss="brier", input="logit")
        full.fit(X, y, sample_weight=sample_weight)
    return fast, full


def _brier_problems(seed):
    """Problems of more rows than the Brier search's subsample."""
    rng = np.random.RandomState(seed)
    logits = rng.normal(scale=3.0, size=(20_000, 5))
    truth = softmax(0.5 * logits, axis=1)
    u = rng.uniform(size=(20_000, 1))
    y = np.minimum((np.cumsum(truth, axis=1) < u).sum(axis=1), 4)
    # The two-minimum problem of test_brier_loss_finds_the_global_minimum,
    # repeated with a little noise: the subsample must not settle in the
    # local minimum at T ~ 0.68.
    z = np.tile([-0.731, -0.503, -34.851, -0.007, 0.019, 0.541], 1500)
    z = z + rng.normal(scale=1e-3, size=z.shape[0])
    labels = np.tile([0, 1, 0, 0, 1, 1], 1500)
    return [(logits, y), (z, labels)]


@pytest.mark.parametrize("weighted", [False, True])
def test_brier_subsample_search_equals_the_full_grid(
    global_random_seed, weighted, monkeypatch
):
    """Check the subsampled Brier bracket against evaluating the whole grid.

    Above 4096 rows the grid is evaluated on a subsample and only the
    plausible minima are followed on all rows; the temperature must be the
    one the full grid finds (weights with zeros included). The replicated
    two-minimum problem has its global minimum as T -> 0, where every
    probability saturates and the loss is flat to the last bit: there the
    two searches may stop at different temperatures (7e-5 and 1.7e-4 for
    seed 18), and both must reach the loss of that minimum, not the local
    minimum at T ~ 0.68.
    """
    (X, y), (z, labels) = _brier_problems(global_random_seed)
    for features, target, flat in [(X, y, False), (z, labels, True)]:
        w = None
        if weighted:
            rng = np.random.RandomState(global_random_seed + 1)
            w = rng.uniform(0.0, 3.0, size=target.shape[0])
            w[rng.uniform(size=target.shape[0]) < 0.3] = 0.0
        fast, full = _subsampled_and_full_brier_fits(features, target, w, monkeypatch)
        if not flat:
            assert_allclose(fast.temperature_, full.temperature_, rtol=1e-12)
            continue
        assert fast.temperature_ < 0.05 and full.temperature_ < 0.05
        assert_allclose(
            *(
                brier_score_loss(
                    target, fitted.predict_proba(features)[:, 1], sample_weight=w
                )
                for fitted in (fast, full)
            ),
            rtol=1e-12,
        )


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_newton_equals_the_softmax_newton(global_random_seed, weighted):
    """Check the two-class shortcut against the K-class computation.

    With two classes the log loss's derivatives are those of a logistic
    model in the logit difference; a third class whose logits are so low
    that its probability underflows to 0 sends the same problem through the
    softmax path, which must find the same inverse temperature.
    """
    rng = np.random.RandomState(global_random_seed)
    logits = rng.normal(scale=2.0, size=(500, 2))
    y = (rng.uniform(size=500) < softmax(1.7 * logits, axis=1)[:, 1]).astype(int)
    w = rng.uniform(0.2, 3.0, size=500) if weighted else None
    padded = np.column_stack([logits, np.full(500, -1e4)])
    assert_allclose(
        _log_loss_beta(logits, y, w), _log_loss_beta(padded, y, w), rtol=1e-10
    )
