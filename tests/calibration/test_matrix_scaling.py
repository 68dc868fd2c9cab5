"""Tests of vector scaling, matrix scaling and Dirichlet calibration."""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize
from scipy.special import expit, log_softmax, softmax
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from skcal._param_validation import InvalidParameterError
from skcal.calibration import (
    DirichletRecalibrator,
    MatrixScalingRecalibrator,
    TemperatureRecalibrator,
    VectorScalingRecalibrator,
)
from skcal.calibration._linear_softmax import fit_linear_softmax

CLASSES = [VectorScalingRecalibrator, MatrixScalingRecalibrator, DirichletRecalibrator]
UNPENALISED = {"off_diagonal_penalty": 0.0, "intercept_penalty": 0.0}


def _params(cls, off_diagonal_penalty, intercept_penalty):
    """The penalties of ``cls`` (vector scaling has no off-diagonal)."""
    params = {"intercept_penalty": intercept_penalty}
    if cls is not VectorScalingRecalibrator:
        params["off_diagonal_penalty"] = off_diagonal_penalty
    return params


def _miscalibrated(rng, n, k):
    """Logits and labels drawn from a distorted softmax of them (every class seen).

    The true probabilities are ``softmax(A z + c)`` for a random ``A`` near
    ``I / 2`` and a random ``c``: the logits are overconfident, biased and
    mix classes, so every map has work to do and no class is separable.
    """
    z = rng.normal(scale=3.0, size=(n, k))
    a = 0.5 * np.eye(k) + rng.normal(scale=0.1, size=(k, k))
    proba = softmax(z @ a.T + rng.normal(scale=0.5, size=k), axis=1)
    u = rng.uniform(size=(n, 1))
    y = np.minimum((proba.cumsum(axis=1) < u).sum(axis=1), k - 1)
    y[:k] = np.arange(k)
    return z, y


def _features(cls, z):
    """What each map reads: centred logits, or log-probabilities."""
    if cls is DirichletRecalibrator:
        return log_softmax(z, axis=1)
    return z - z.mean(axis=1, keepdims=True)


def _objective(coef, intercept, x, y, w, off_diagonal_penalty, intercept_penalty):
    """Weighted mean log loss of ``softmax(W x + b)`` plus the ODIR penalties."""
    k = intercept.shape[0]
    eta = (x * coef if coef.ndim == 1 else x @ coef.T) + intercept
    loss = np.average(-log_softmax(eta, axis=1)[np.arange(y.shape[0]), y], weights=w)
    off = 0.0 if coef.ndim == 1 else np.sum(coef[~np.eye(k, dtype=bool)] ** 2)
    return (
        loss
        + off_diagonal_penalty / (k * (k - 1)) * off
        + intercept_penalty / k * intercept @ intercept
    )


def _brute_force(x, y, w, diagonal, off_diagonal_penalty, intercept_penalty):
    """Minimise :func:`_objective` by BFGS in the raw parameters, from zero."""
    n, k = x.shape
    w = np.ones(n) if w is None else w
    w = w / w.sum()
    onehot = np.eye(k)[y]
    off = ~np.eye(k, dtype=bool)
    lam, mu = off_diagonal_penalty / (k * (k - 1)), intercept_penalty / k
    n_coef = k if diagonal else k * k

    def fun(params):
        coef, b = params[:n_coef], params[n_coef:]
        coef = coef if diagonal else coef.reshape(k, k)
        eta = (x * coef if diagonal else x @ coef.T) + b
        r = w[:, None] * (softmax(eta, axis=1) - onehot)
        value = w @ -log_softmax(eta, axis=1)[np.arange(n), y] + mu * b @ b
        grad_coef = np.einsum("ik,ik->k", r, x) if diagonal else r.T @ x
        if not diagonal:
            value += lam * np.sum(coef[off] ** 2)
            grad_coef = grad_coef + 2 * lam * coef * off
        grad = np.concatenate([grad_coef.ravel(), r.sum(axis=0) + 2 * mu * b])
        return value, grad

    result = minimize(
        fun, np.zeros(n_coef + k), jac=True, method="BFGS", options={"gtol": 1e-11}
    )
    coef, b = result.x[:n_coef], result.x[n_coef:]
    return (coef if diagonal else coef.reshape(k, k)), b


def _fitted_objective(recal, z, y, w, off_diagonal_penalty, intercept_penalty):
    return _objective(
        recal.coef_,
        recal.intercept_,
        _features(type(recal), z),
        y,
        w,
        off_diagonal_penalty,
        intercept_penalty,
    )


# ---------------------------------------------------------------------------
# The fit minimises its objective
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "cls", [MatrixScalingRecalibrator, DirichletRecalibrator], ids=lambda c: c.__name__
)
def test_unpenalised_equals_multinomial_logistic_regression(
    global_random_seed, cls, weighted
):
    """Check that without penalties the fit is scikit-learn's multinomial regression.

    Both minimise the weighted mean log loss of ``softmax(W x + b)`` over all
    ``W`` and ``b``, on the same features; their probabilities must agree on
    the calibration set and on new scores.
    """
    rng = np.random.RandomState(global_random_seed)
    z, y = _miscalibrated(rng, 400, 4)
    z_new = rng.normal(scale=3.0, size=(100, 4))
    w = rng.uniform(0.2, 3.0, size=400) if weighted else None

    recal = cls(input="logit", **UNPENALISED).fit(z, y, sample_weight=w)
    reference = LogisticRegression(C=np.inf, solver="newton-cg", tol=1e-12)
    reference.fit(_features(cls, z), y, sample_weight=w)

    for scores in (z, z_new):
        assert_allclose(
            recal.predict_proba(scores),
            reference.predict_proba(_features(cls, scores)),
            rtol=0,
            atol=1e-6,
        )
    # The map is far from the identity: the comparison is not a trivial one.
    assert np.abs(recal.predict_proba(z) - softmax(z, axis=1)).max() > 0.1


@pytest.mark.parametrize("intercept_penalty", [0.0, 0.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_vector_scaling_minimises_its_objective(
    global_random_seed, weighted, intercept_penalty
):
    """Check vector scaling against BFGS on its own objective, in raw parameters."""
    rng = np.random.RandomState(global_random_seed)
    z, y = _miscalibrated(rng, 300, 5)
    w = rng.uniform(0.0, 2.0, size=300) if weighted else None
    recal = VectorScalingRecalibrator(intercept_penalty=intercept_penalty).fit(
        z, y, sample_weight=w
    )
    x = _features(VectorScalingRecalibrator, z)
    coef, intercept = _brute_force(x, y, w, True, 0.0, intercept_penalty)

    ours = _fitted_objective(recal, z, y, w, 0.0, intercept_penalty)
    theirs = _objective(coef, intercept, x, y, w, 0.0, intercept_penalty)
    assert ours <= theirs + 1e-12
    intercept -= intercept.mean()
    assert_allclose(recal.coef_, coef, rtol=0, atol=1e-5)
    assert_allclose(recal.intercept_, intercept, rtol=0, atol=1e-5)


@pytest.mark.parametrize(
    "cls", [MatrixScalingRecalibrator, DirichletRecalibrator], ids=lambda c: c.__name__
)
@pytest.mark.parametrize("penalties", [(3.0, 0.5), (100.0, 1.0), (0.0, 2.0)])
def test_penalised_fit_minimises_its_objective(global_random_seed, cls, penalties):
    """Check the penalised objective against BFGS in the raw parameters.

    With both penalties positive the minimiser is unique, so the parameters
    must agree too.
    """
    rng = np.random.RandomState(global_random_seed)
    z, y = _miscalibrated(rng, 300, 3)
    w = rng.uniform(0.2, 2.0, size=300)
    off_diagonal, intercept_penalty = penalties
    recal = cls(
        off_diagonal_penalty=off_diagonal, intercept_penalty=intercept_penalty
    ).fit(z, y, sample_weight=w)
    x = _features(cls, z)
    coef, intercept = _brute_force(x, y, w, False, *penalties)

    ours = _fitted_objective(recal, z, y, w, *penalties)
    assert ours <= _objective(coef, intercept, x, y, w, *penalties) + 1e-12
    assert ours < _objective(np.eye(3), np.zeros(3), x, y, w, *penalties) - 1e-3
    if off_diagonal > 0 and cls is DirichletRecalibrator:
        assert_allclose(recal.coef_, coef, rtol=0, atol=1e-5)
        assert_allclose(recal.intercept_, intercept, rtol=0, atol=1e-5)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_fit_is_no_worse_than_the_uncalibrated_scores(cls, real_multiclass):
    """Check on real outputs: the fitted objective is below the identity map's.

    The identity map (``W = I``, ``b = 0``) has zero penalties, and the
    search starts from it or from a better multiple of it.
    """
    labels, proba = real_multiclass
    proba = proba[:2000].astype(np.float64)
    proba /= proba.sum(axis=1, keepdims=True)
    labels = labels[:2000]
    recal = cls().fit(proba, labels)
    log_p = np.log(np.clip(proba, 1e-12, 1.0))
    penalties = (getattr(recal, "off_diagonal_penalty", 0.0), recal.intercept_penalty)
    fitted = _fitted_objective(recal, log_p, labels, None, *penalties)
    uncalibrated = -np.mean(log_softmax(log_p, axis=1)[np.arange(2000), labels])
    assert fitted <= uncalibrated
    calibrated = recal.predict_proba(proba)
    assert -np.mean(np.log(calibrated[np.arange(2000), labels])) <= fitted + 1e-12


# ---------------------------------------------------------------------------
# Reference implementations
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("penalties", [(0.5, 0.1), (10.0, 2.0)])
def test_matches_dirichletcal(global_random_seed, penalties):
    """Check against the authors' package, on the same ODIR objective.

    ``FullDirichletCalibrator(reg_norm=True, ref_row=False)`` minimises the
    mean log loss plus ``reg_lambda / (K (K - 1))`` times the squared
    off-diagonal entries and ``reg_mu / K`` times the squared intercepts,
    in a free ``K x K`` matrix: the objective here.
    """
    fulldirichlet = pytest.importorskip("dirichletcal.calib.fulldirichlet")
    rng = np.random.RandomState(global_random_seed)
    z, y = _miscalibrated(rng, 300, 3)
    proba = softmax(z / 3.0, axis=1)  # no probability near the clipping floor
    lam, mu = penalties
    reference = fulldirichlet.FullDirichletCalibrator(
        reg_lambda=lam, reg_mu=mu, reg_norm=True, ref_row=False
    ).fit(proba, y)
    recal = DirichletRecalibrator(off_diagonal_penalty=lam, intercept_penalty=mu)
    recal.fit(proba, y)

    x = np.log(proba)
    ours = _objective(recal.coef_, recal.intercept_, x, y, None, lam, mu)
    coef, intercept = np.asarray(reference.coef_), np.asarray(reference.intercept_)
    theirs = _objective(coef, intercept, x, y, None, lam, mu)
    assert ours <= theirs + 1e-10
    assert_allclose(
        recal.predict_proba(proba), reference.predict_proba(proba), rtol=0, atol=1e-5
    )


def test_diagonal_fit_is_no_worse_than_netcal(global_random_seed):
    """Check the diagonal fit against netcal's vector scaling (maximum likelihood).

    netcal's multiclass ``LogisticCalibration`` fits ``softmax(v * log p + b)``
    to the logarithms of the probabilities it is given (not centred, unlike
    :class:`VectorScalingRecalibrator`); the same model is fitted here by
    the shared solver on the same features.
    """
    netcal_scaling = pytest.importorskip("netcal.scaling")
    rng = np.random.RandomState(global_random_seed)
    z, y = _miscalibrated(rng, 300, 4)
    proba = softmax(z, axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = netcal_scaling.LogisticCalibration(method="mle", use_cuda=False)
        reference.fit(proba, y, random_state=global_random_seed, tensorboard=False)
        theirs = reference.transform(proba)
    log_p = np.log(proba)
    fitted = fit_linear_softmax(log_p, y, diagonal=True)
    ours = _objective(fitted.coef, fitted.intercept, log_p, y, None, 0.0, 0.0)
    assert ours <= -np.mean(np.log(theirs[np.arange(300), y])) + 1e-9


# ---------------------------------------------------------------------------
# Claims of the papers
# ---------------------------------------------------------------------------


def _mean_log_loss(proba, y):
    return float(-np.mean(np.log(proba[np.arange(y.shape[0]), y])))


@pytest.mark.parametrize("input", ["logit", "probability"])
def test_vector_scaling_fits_better_than_temperature_scaling(global_random_seed, input):
    """Check Guo et al.: vector scaling contains temperature scaling (v = 1/T, b = 0).

    So its log loss on the calibration set is at most temperature scaling's.
    """
    rng = np.random.RandomState(global_random_seed)
    z, y = _miscalibrated(rng, 300, 5)
    scores = z if input == "logit" else softmax(z / 4.0, axis=1)
    vector = VectorScalingRecalibrator(input=input).fit(scores, y)
    temperature = TemperatureRecalibrator(input=input).fit(scores, y)
    vs_loss = _mean_log_loss(vector.predict_proba(scores), y)
    assert vs_loss <= _mean_log_loss(temperature.predict_proba(scores), y)
    # Here the classes differ in bias and scale, so it is strictly better.
    assert vs_loss < _mean_log_loss(temperature.predict_proba(scores), y) - 1e-3


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_dirichlet_is_beta_calibration(global_random_seed, weighted):
    """Check Kull et al.: with two classes, Dirichlet calibration is beta calibration.

    The unpenalised map is the logistic regression of the labels on
    ``(ln p, -ln(1 - p))`` (Kull, Silva Filho and Flach's beta calibration,
    three parameters), here scikit-learn's.
    """
    rng = np.random.RandomState(global_random_seed)
    p = rng.beta(0.7, 0.7, size=400)
    y = (rng.uniform(size=400) < p**2 / (p**2 + (1 - p) ** 0.5)).astype(int)
    w = rng.uniform(0.2, 3.0, size=400) if weighted else None
    p_new = np.linspace(0.001, 0.999, 50)

    recal = DirichletRecalibrator(**UNPENALISED).fit(p, y, sample_weight=w)
    beta_features = np.column_stack([np.log(p), -np.log1p(-p)])
    beta = LogisticRegression(C=np.inf, solver="newton-cg", tol=1e-12)
    beta.fit(beta_features, y, sample_weight=w)
    new_features = np.column_stack([np.log(p_new), -np.log1p(-p_new)])
    assert_allclose(
        recal.predict_proba(p_new)[:, 1],
        beta.predict_proba(new_features)[:, 1],
        rtol=0,
        atol=1e-6,
    )
    # The Notes' parameters: a ln p - c ln(1 - p) + d.
    (w00, w01), (w10, w11) = recal.coef_
    a, c = w11 - w01, w00 - w10
    assert_allclose([a, c], beta.coef_[0], rtol=1e-5)
    assert_allclose(
        recal.intercept_[1] - recal.intercept_[0], beta.intercept_[0], atol=1e-5
    )


@pytest.mark.parametrize(
    "cls",
    [VectorScalingRecalibrator, MatrixScalingRecalibrator],
    ids=lambda c: c.__name__,
)
def test_binary_scaling_is_logistic_in_the_log_odds(global_random_seed, cls):
    """Check that with two classes vector and matrix scaling fit ``sigma(a s + b)``.

    The centred logits of a log-odds ``s`` are ``(-s/2, s/2)``: any map of
    them is logistic in ``s``. Without penalties, the fit is the logistic
    regression of the labels on ``s``.
    """
    rng = np.random.RandomState(global_random_seed)
    s = rng.normal(scale=3.0, size=300)
    y = (rng.uniform(size=300) < expit(0.4 * s - 0.7)).astype(int)
    recal = cls(**_params(cls, 0.0, 0.0)).fit(s, y)
    reference = LogisticRegression(C=np.inf, solver="newton-cg", tol=1e-12)
    reference.fit(s[:, None], y)
    s_new = np.linspace(-10.0, 10.0, 41)
    assert_allclose(
        recal.predict_proba(s_new)[:, 1],
        reference.predict_proba(s_new[:, None])[:, 1],
        rtol=0,
        atol=1e-6,
    )


def test_large_off_diagonal_penalty_gives_vector_scaling(global_random_seed):
    """Check that matrix scaling tends to vector scaling as lambda grows."""
    rng = np.random.RandomState(global_random_seed)
    z, y = _miscalibrated(rng, 300, 4)
    matrix = MatrixScalingRecalibrator(off_diagonal_penalty=1e9, intercept_penalty=0.5)
    vector = VectorScalingRecalibrator(intercept_penalty=0.5)
    matrix.fit(z, y)
    vector.fit(z, y)
    assert_allclose(matrix.predict_proba(z), vector.predict_proba(z), atol=1e-5)
    off = matrix.coef_[~np.eye(4, dtype=bool)]
    assert np.abs(off).max() < 1e-5
    # A moderate penalty leaves a map that is not vector scaling.
    matrix.set_params(off_diagonal_penalty=1.0).fit(z, y)
    assert np.abs(matrix.predict_proba(z) - vector.predict_proba(z)).max() > 1e-3


# ---------------------------------------------------------------------------
# Invariances
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 1000), shift_scale=st.floats(0.1, 1e6))
def test_invariant_to_a_constant_added_to_each_row(cls, seed, shift_scale):
    """Check that adding a constant to every logit of a row changes no prediction.

    A softmax depends on its logits only up to such constants; the maps read
    centred logits or log-probabilities, which do not see them.
    """
    rng = np.random.RandomState(seed)
    z, y = _miscalibrated(rng, 120, 3)
    shifted = z + rng.normal(scale=shift_scale, size=(120, 1))
    recal = cls(input="logit").fit(z, y)
    moved = cls(input="logit").fit(shifted, y)
    assert_allclose(moved.predict_proba(shifted), recal.predict_proba(z), atol=1e-7)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_logits_and_probabilities_give_the_same_map(global_random_seed, cls):
    """Check that a model's logits and its probabilities are recalibrated alike."""
    rng = np.random.RandomState(global_random_seed)
    z, y = _miscalibrated(rng, 200, 4)
    z /= 3.0  # probabilities above the 1e-12 clipping floor
    from_logits = cls().fit(z, y)
    from_proba = cls().fit(softmax(z, axis=1), y)
    assert (from_logits.input_, from_proba.input_) == ("logit", "probability")
    assert_allclose(
        from_logits.predict_proba(z),
        from_proba.predict_proba(softmax(z, axis=1)),
        atol=1e-7,
    )


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_relabelling_the_classes_permutes_the_map(global_random_seed, cls):
    """Check that permuting the classes (columns and labels) permutes the fit."""
    rng = np.random.RandomState(global_random_seed)
    z, y = _miscalibrated(rng, 200, 4)
    order = rng.permutation(4)
    inverse = np.argsort(order)
    recal = cls().fit(z, y)
    permuted = cls().fit(z[:, order], inverse[y])
    assert_allclose(
        permuted.predict_proba(z[:, order]), recal.predict_proba(z)[:, order], atol=1e-7
    )
    expected = (
        recal.coef_[order]
        if recal.coef_.ndim == 1
        else recal.coef_[np.ix_(order, order)]
    )
    # With the default penalties the minimiser is unique.
    assert_allclose(permuted.coef_, expected, atol=1e-5)


# ---------------------------------------------------------------------------
# Attributes and bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_fitted_attributes(global_random_seed, cls):
    """Check the shapes of coef_ and intercept_, and predict_proba's formula."""
    rng = np.random.RandomState(global_random_seed)
    z, y = _miscalibrated(rng, 150, 3)
    recal = cls().fit(z, y)
    expected_shape = (3,) if cls is VectorScalingRecalibrator else (3, 3)
    assert recal.coef_.shape == expected_shape
    assert recal.intercept_.shape == (3,)
    assert abs(recal.intercept_.sum()) < 1e-12
    assert recal.n_iter_ >= 1
    x = _features(cls, z)
    eta = (
        x * recal.coef_ if recal.coef_.ndim == 1 else x @ recal.coef_.T
    ) + recal.intercept_
    assert_allclose(recal.predict_proba(z), softmax(eta, axis=1), rtol=1e-10)
    assert_array_equal(recal.predict(z), recal.predict_proba(z).argmax(axis=1))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_max_iter_reached_warns(cls):
    """Check that a fit stopped by max_iter says so."""
    rng = np.random.RandomState(0)
    z, y = _miscalibrated(rng, 200, 4)
    with pytest.warns(ConvergenceWarning, match="max_iter=1 iterations"):
        recal = cls(max_iter=1).fit(z, y)
    assert recal.n_iter_ == 1


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "params, match",
    [
        ({"intercept_penalty": -1.0}, "'intercept_penalty' parameter"),
        ({"intercept_penalty": "big"}, "'intercept_penalty' parameter"),
        ({"off_diagonal_penalty": -0.5}, "'off_diagonal_penalty' parameter"),
        ({"max_iter": 0}, "'max_iter' parameter"),
        ({"max_iter": 2.5}, "'max_iter' parameter"),
    ],
)
def test_invalid_parameters(cls, params, match):
    """Check that invalid penalties and iteration counts are refused at fit."""
    if "off_diagonal_penalty" in params and cls is VectorScalingRecalibrator:
        with pytest.raises(TypeError, match="off_diagonal_penalty"):
            cls(**params)
        return
    with pytest.raises(InvalidParameterError, match=match):
        cls(**params).fit([[0.2, 0.8], [0.6, 0.4], [0.3, 0.7]], [1, 0, 0])


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "row", [[0.2, 0.3, 0.5], [1.0, 2.0, 3.0]], ids=["probability", "logit"]
)
def test_identical_scores_give_the_class_frequencies(cls, row):
    """Check that scores that are all the same are mapped to the class frequencies.

    Regression test: standardising such features divided rounding errors by
    a zero deviation, and the map fitted that noise.
    """
    y = np.array([0, 1, 2, 0, 1, 0])
    recal = cls().fit(np.tile(row, (6, 1)), y)
    assert_allclose(recal.predict_proba([row]), [[3 / 6, 2 / 6, 1 / 6]], atol=1e-6)
