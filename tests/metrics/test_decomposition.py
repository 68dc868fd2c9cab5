"""Tests of the decomposition of proper scores (exact grouping and CORP)."""

# SPDX-License-Identifier: BSD-3-Clause

import functools
import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.metrics import brier_score_loss, log_loss

from skcal._param_validation import InvalidParameterError
from skcal.metrics import (
    _decomposition,
    calibration_decomposition,
    expected_calibration_error,
)
from tests.metrics._reference import ref_views

TERMS = ("score", "miscalibration", "discrimination", "uncertainty")

# Most tests check the exact (grouped) decomposition against its reference;
# the default method="auto" picks it only for predictions with few values.
# Its warning about rows alone in their group is tested once, below.
exact_decomposition = functools.partial(calibration_decomposition, method="exact")
pytestmark = pytest.mark.filterwarnings("ignore:Exact grouping:UserWarning")

# ---------------------------------------------------------------------------
# Brute-force references: groups in Python dicts, scores term by term, and
# the pool-adjacent-violators algorithm written out.
# ---------------------------------------------------------------------------


def ref_vector_score(P, k, loss):
    if loss == "brier":
        return sum((P[j] - (j == k)) ** 2 for j in range(len(P)))
    return math.inf if P[k] == 0 else -math.log(P[k])


def ref_vector_divergence(P, Q, loss):
    if loss == "brier":
        return sum((a - b) ** 2 for a, b in zip(P, Q, strict=True))
    total = 0.0
    for a, b in zip(P, Q, strict=True):
        if b > 0:
            total += math.inf if a == 0 else b * math.log(b / a)
    return total


def ref_vector_entropy(Q, loss):
    if loss == "brier":
        return 1.0 - sum(q * q for q in Q)
    return -sum(q * math.log(q) for q in Q if q > 0)


def ref_decomposition(rows, y, w, loss):
    """Murphy/Broecker decomposition of probability vectors, by loops."""
    w = [1.0] * len(y) if w is None else [float(v) for v in w]
    k = len(rows[0])
    groups = {}
    total = score = 0.0
    base = [0.0] * k
    for row, label, weight in zip(rows, y, w, strict=True):
        if weight == 0:
            continue
        key = tuple(float(v) for v in row)
        group = groups.setdefault(key, [0.0, [0.0] * k])
        group[0] += weight
        group[1][label] += weight
        base[label] += weight
        total += weight
        score += weight * ref_vector_score(key, label, loss)
    base = [b / total for b in base]
    mcb = dsc = 0.0
    for key, (weight, counts) in groups.items():
        rate = [c / weight for c in counts]
        mcb += weight * ref_vector_divergence(key, rate, loss)
        dsc += weight * ref_vector_divergence(base, rate, loss)
    return score / total, mcb / total, dsc / total, ref_vector_entropy(base, loss)


def ref_binary_score(p, y, loss):
    if loss == "brier":
        return (p - y) ** 2
    q = p if y == 1 else 1.0 - p
    return math.inf if q == 0 else -math.log(q)


def ref_binary_divergence(p, q, loss):
    if loss == "brier":
        return (p - q) ** 2
    total = 0.0
    for a, b in ((p, q), (1.0 - p, 1.0 - q)):
        if b > 0:
            total += math.inf if a == 0 else b * math.log(b / a)
    return total


def ref_binary_entropy(q, loss):
    if loss == "brier":
        return q * (1.0 - q)
    return -sum(v * math.log(v) for v in (q, 1.0 - q) if v > 0)


def ref_pav(rates, weights):
    """Weighted isotonic (non-decreasing) fit by pooling adjacent violators."""
    blocks = []  # [weighted sum, weight, number of values]
    for r, w in zip(rates, weights, strict=True):
        blocks.append([r * w, w, 1])
        while len(blocks) > 1 and (
            blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]
        ):
            last = blocks.pop()
            for j in range(3):
                blocks[-1][j] += last[j]
    fitted = []
    for s, w, count in blocks:
        fitted += [s / w] * count
    return fitted


def ref_binary_decomposition(y, p, w, loss, method="exact"):
    """Decomposition of a binary view by the CORP score differences, by loops."""
    w = [1.0] * len(y) if w is None else [float(v) for v in w]
    rows = [
        (float(pi), int(yi), wi) for pi, yi, wi in zip(p, y, w, strict=True) if wi > 0
    ]
    groups = {}
    for pi, yi, wi in rows:
        group = groups.setdefault(pi, [0.0, 0.0])
        group[0] += wi
        group[1] += wi * yi
    keys = sorted(groups)
    rates = [groups[x][1] / groups[x][0] for x in keys]
    if method == "isotonic":
        fitted = ref_pav(rates, [groups[x][0] for x in keys])
    else:
        fitted = rates
    recalibrated = dict(zip(keys, fitted, strict=True))
    total = sum(wi for _, _, wi in rows)
    base = sum(wi * yi for _, yi, wi in rows) / total

    def mean_score(prediction):
        return sum(
            wi * ref_binary_score(prediction(pi), yi, loss) for pi, yi, wi in rows
        )

    score = mean_score(lambda x: x) / total
    fitted_score = mean_score(recalibrated.get) / total
    base_score = mean_score(lambda x: base) / total
    return score, score - fitted_score, base_score - fitted_score, base_score


def _terms(result):
    return np.array([result[name] for name in TERMS])


def _discrete_binary(rng, n, n_values=6, edges=False):
    pool = rng.uniform(0.02, 0.98, size=n_values)
    if edges:
        pool[:2] = [0.0, 1.0]
    p = pool[rng.randint(n_values, size=n)]
    y = (rng.uniform(size=n) < p**1.4).astype(int)
    return y, p


def _discrete_multiclass(rng, n, k, n_rows=8):
    pool = rng.dirichlet(np.ones(k), size=n_rows) * 0.96 + 0.04 / k
    P = pool[rng.randint(n_rows, size=n)]
    y = np.array([rng.choice(k, p=row**1.5 / (row**1.5).sum()) for row in P])
    return y, P


def _weights(rng, n, weighted):
    if not weighted:
        return None
    w = rng.uniform(0.0, 3.0, size=n)
    w[rng.uniform(size=n) < 0.1] = 0.0
    w[0] = 1.0  # never all zero
    return w


# ---------------------------------------------------------------------------
# Agreement with the references
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["brier", "log"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n, n_values", [(1, 1), (25, 3), (300, 12)])
def test_positive_view_matches_reference(
    global_random_seed, loss, weighted, n, n_values
):
    """Check the exact decomposition of a binary view against the loops."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _discrete_binary(rng, n, n_values)
    w = _weights(rng, n, weighted)
    got = exact_decomposition(y, p, sample_weight=w, loss=loss, reduction="positive")
    assert all(type(got[name]) is float for name in TERMS)
    expected = ref_binary_decomposition(y, p, w, loss)
    assert_allclose(_terms(got), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("loss", ["brier", "log"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [3, 5])
def test_full_multiclass_matches_reference(global_random_seed, loss, weighted, k):
    """Check the exact decomposition of probability vectors against the loops."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _discrete_multiclass(rng, 400, k)
    w = _weights(rng, 400, weighted)
    got = exact_decomposition(y, P, sample_weight=w, loss=loss)
    assert got.reduction == "full"
    expected = ref_decomposition(P.tolist(), y, w, loss)
    assert_allclose(_terms(got), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("loss", ["brier", "log"])
@pytest.mark.parametrize("weighted", [False, True])
def test_full_binary_matches_vector_reference(global_random_seed, loss, weighted):
    """Check a binary problem: the vector (1 - p, p), Brier halved as scikit-learn."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _discrete_binary(rng, 200)
    w = _weights(rng, 200, weighted)
    got = exact_decomposition(y, p, sample_weight=w, loss=loss)
    rows = np.column_stack([1 - p, p]).tolist()
    expected = np.array(ref_decomposition(rows, y, w, loss))
    expected /= 2 if loss == "brier" else 1
    assert_allclose(_terms(got), expected, rtol=1e-12, atol=1e-14)
    positive = exact_decomposition(
        y, p, sample_weight=w, loss=loss, reduction="positive"
    )
    assert_allclose(_terms(got), _terms(positive), rtol=1e-12, atol=1e-15)
    two_columns = exact_decomposition(y, np.column_stack([1 - p, p]), loss=loss)
    assert_allclose(
        _terms(two_columns),
        _terms(exact_decomposition(y, p, loss=loss)),
        rtol=1e-12,
        atol=1e-15,
    )


@pytest.mark.parametrize("method", ["exact", "isotonic"])
@pytest.mark.parametrize("reduction", ["top_label", "classwise", "positive"])
@pytest.mark.parametrize("loss", ["brier", "log"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_views_match_reference(
    global_random_seed, method, reduction, loss, weighted
):
    """Check every binary view of a multiclass problem against the loops."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _discrete_multiclass(rng, 250, 4)
    w = _weights(rng, 250, weighted)
    pos_label = 2 if reduction == "positive" else None
    per_view = [
        ref_binary_decomposition(yv, pv, w, loss, method)
        for yv, pv in ref_views(y, P, reduction, pos_label=2)
    ]
    got = calibration_decomposition(
        y,
        P,
        sample_weight=w,
        loss=loss,
        method=method,
        reduction=reduction,
        pos_label=pos_label,
    )
    assert got.reduction == reduction
    assert_allclose(_terms(got), np.mean(per_view, axis=0), rtol=1e-11, atol=1e-14)
    if reduction == "classwise":
        vector = calibration_decomposition(
            y,
            P,
            sample_weight=w,
            loss=loss,
            method=method,
            reduction=reduction,
            return_per_class=True,
        )
        for name in TERMS:
            assert vector[name].shape == (4,)
        stacked = np.array([vector[name] for name in TERMS]).T
        assert_allclose(stacked, per_view, rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize("loss", ["brier", "log"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_values", [5, 60])
def test_isotonic_matches_reference(global_random_seed, loss, weighted, n_values):
    """Check the CORP decomposition of a binary problem against the PAV loops."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _discrete_binary(rng, 300, n_values)
    w = _weights(rng, 300, weighted)
    got = calibration_decomposition(
        y, p, sample_weight=w, loss=loss, method="isotonic", reduction="positive"
    )
    expected = ref_binary_decomposition(y, p, w, loss, "isotonic")
    assert_allclose(_terms(got), expected, rtol=1e-11, atol=1e-14)
    full = calibration_decomposition(
        y, p, sample_weight=w, loss=loss, method="isotonic"
    )
    assert_allclose(_terms(full), expected, rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize("loss", ["brier", "log"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("method", ["exact", "isotonic"])
@pytest.mark.parametrize("n_values", [5, None])
def test_chunked_terms_match_reference(
    global_random_seed, monkeypatch, loss, weighted, method, n_values
):
    """Check the terms read in many small chunks against the PAV loops."""
    monkeypatch.setattr(_decomposition, "_CHUNK", 7)
    rng = np.random.RandomState(global_random_seed)
    if n_values is None:  # distinct predictions: the rows are the groups
        p = rng.uniform(0.05, 0.95, size=300)
        y = (rng.uniform(size=300) < p**1.3).astype(int)
    else:
        y, p = _discrete_binary(rng, 300, n_values)
    w = _weights(rng, 300, weighted)
    got = calibration_decomposition(
        y, p, sample_weight=w, loss=loss, method=method, reduction="positive"
    )
    expected = ref_binary_decomposition(y, p, w, loss, method)
    assert_allclose(_terms(got), expected, rtol=1e-11, atol=1e-14)


# ---------------------------------------------------------------------------
# The identity and the signs of the terms
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["exact", "isotonic"])
@pytest.mark.parametrize("reduction", ["full", "positive", "top_label", "classwise"])
@pytest.mark.parametrize("loss", ["brier", "log"])
def test_identity_and_signs(global_random_seed, method, reduction, loss):
    """Check score = MCB - DSC + UNC and MCB, DSC >= 0 (Lemma 4.1; CORP)."""
    rng = np.random.RandomState(global_random_seed)
    if reduction == "full" and method == "isotonic":
        y, P = _discrete_binary(rng, 300, 40)
    else:
        y, P = _discrete_multiclass(rng, 300, 3, n_rows=40)
    w = rng.uniform(0.1, 2, size=300)
    pos_label = 1 if reduction == "positive" else None
    got = calibration_decomposition(
        y,
        P,
        sample_weight=w,
        loss=loss,
        method=method,
        reduction=reduction,
        pos_label=pos_label,
        return_per_class=reduction == "classwise",
    )
    rhs = got.miscalibration - got.discrimination + got.uncertainty
    assert_allclose(got.score, rhs, rtol=1e-12, atol=1e-14)
    assert np.all(np.asarray(got.miscalibration) >= -1e-14)
    assert np.all(np.asarray(got.discrimination) >= -1e-14)


@given(
    data=st.lists(
        st.tuples(
            st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]),
            st.integers(0, 1),
            st.integers(0, 3),
        ),
        min_size=1,
        max_size=30,
    ),
    method=st.sampled_from(["exact", "isotonic"]),
    loss=st.sampled_from(["brier", "log"]),
)
def test_identity_property(data, method, loss):
    """Check the identity and the signs on arbitrary small weighted data."""
    p, y, w = (np.array(c, dtype=float) for c in zip(*data, strict=True))
    if w.sum() == 0:
        w[0] = 1.0
    got = calibration_decomposition(y, p, sample_weight=w, loss=loss, method=method)
    if math.isinf(got.score):
        assert math.isinf(got.miscalibration)
        return
    rhs = got.miscalibration - got.discrimination + got.uncertainty
    assert_allclose(got.score, rhs, rtol=1e-12, atol=1e-14)
    assert got.miscalibration >= -1e-14
    assert got.discrimination >= -1e-14
    exact = exact_decomposition(y, p, sample_weight=w, loss=loss)
    assert got.miscalibration <= exact.miscalibration + 1e-12


# ---------------------------------------------------------------------------
# Invariances
# ---------------------------------------------------------------------------


@given(
    data=st.lists(
        st.tuples(st.sampled_from([0.2, 0.4, 0.6, 0.8]), st.integers(0, 1)),
        min_size=2,
        max_size=25,
    ),
    counts=st.lists(st.integers(0, 3), min_size=25, max_size=25),
    method=st.sampled_from(["exact", "isotonic"]),
    loss=st.sampled_from(["brier", "log"]),
)
def test_weights_are_repetitions_property(data, counts, method, loss):
    """Check that integer weights equal repeated rows and order does not matter."""
    p, y = (np.array(c, dtype=float) for c in zip(*data, strict=True))
    counts = np.array(counts[: len(p)])
    if counts.sum() == 0:
        counts[0] = 1
    kwargs = dict(loss=loss, method=method)
    weighted = exact_decomposition(y, p, sample_weight=counts, **kwargs)
    repeated = exact_decomposition(np.repeat(y, counts), np.repeat(p, counts), **kwargs)
    assert_allclose(_terms(weighted), _terms(repeated), rtol=1e-12, atol=1e-14)
    order = np.argsort(-p, kind="stable")
    permuted = exact_decomposition(
        y[order], p[order], sample_weight=counts[order], **kwargs
    )
    assert_allclose(_terms(permuted), _terms(weighted), rtol=1e-12, atol=1e-14)
    scaled = exact_decomposition(y, p, sample_weight=counts * 7.5, **kwargs)
    assert_allclose(_terms(scaled), _terms(weighted), rtol=1e-12, atol=1e-14)


@given(
    data=st.lists(
        st.tuples(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), st.integers(0, 1)),
        min_size=1,
        max_size=25,
    ),
    method=st.sampled_from(["exact", "isotonic"]),
    reduction=st.sampled_from(["full", "positive"]),
)
def test_label_flip_symmetry_property(data, method, reduction):
    """Check that swapping the classes (y -> 1 - y, p -> 1 - p) changes nothing."""
    p, y = (np.array(c, dtype=float) for c in zip(*data, strict=True))
    for loss in ("brier", "log"):
        kwargs = dict(loss=loss, method=method, reduction=reduction)
        got = exact_decomposition(y, p, **kwargs)
        flipped = exact_decomposition(1 - y, 1 - p, **kwargs)
        assert_allclose(_terms(flipped), _terms(got), rtol=1e-12, atol=1e-14)


def test_duplication_and_zero_weights(global_random_seed):
    """Check that duplicating the data changes nothing and zero weights drop rows."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _discrete_multiclass(rng, 120, 3)
    base = exact_decomposition(y, P, loss="log")
    doubled = exact_decomposition(np.r_[y, y], np.r_[P, P], loss="log")
    assert_allclose(_terms(doubled), _terms(base), rtol=1e-12, atol=1e-14)
    w = rng.uniform(0.5, 2, size=120)
    w[::4] = 0.0
    kept = w > 0
    for method, reduction in [("exact", "full"), ("isotonic", "top_label")]:
        kwargs = dict(method=method, reduction=reduction)
        assert_allclose(
            _terms(exact_decomposition(y, P, sample_weight=w, **kwargs)),
            _terms(
                exact_decomposition(y[kept], P[kept], sample_weight=w[kept], **kwargs)
            ),
            rtol=1e-12,
            atol=1e-14,
        )


# ---------------------------------------------------------------------------
# Checkable claims of the notes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["brier", "log"])
def test_gap_to_score_is_mean_entropy_of_recalibration(global_random_seed, loss):
    """Check score - MCB = E[g(C)] >= 0 (Lemma D.1, Thm 4.3; proper note §4, 4-5)."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _discrete_multiclass(rng, 500, 4)
    got = exact_decomposition(y, P, loss=loss)
    keys, inverse = np.unique(P, axis=0, return_inverse=True)
    entropies = []
    for g in range(len(keys)):
        members = y[inverse.ravel() == g]
        rate = np.bincount(members, minlength=4) / len(members)
        entropies += [ref_vector_entropy(rate, loss)] * len(members)
    gap = got.score - got.miscalibration
    assert_allclose(gap, np.mean(entropies), rtol=1e-12)
    assert_allclose(gap, got.uncertainty - got.discrimination, rtol=1e-12)
    assert gap >= 0


def test_upper_bound_tightens_with_accuracy():
    """Check that BS - CE_2^2 shrinks to 0 as accuracy goes to 1 (Thm 4.3 tightness)."""
    k, n = 4, 1000
    y = np.arange(n) % k
    gaps = []
    for accuracy in [0.6, 0.8, 0.95, 1.0]:
        predicted = y.copy()
        wrong = np.arange(n) < round((1 - accuracy) * n)
        predicted[wrong] = (y[wrong] + 1) % k
        P = np.full((n, k), 0.1 / (k - 1))
        P[np.arange(n), predicted] = 0.9
        got = exact_decomposition(y, P)
        gaps.append(got.score - got.miscalibration)
    assert all(a > b for a, b in itertools.pairwise(gaps))
    assert_allclose(gaps[-1], 0.0, atol=1e-15)


@pytest.mark.parametrize("loss", ["brier", "log"])
def test_full_error_bounds_confidence_and_classwise(global_random_seed, loss):
    """Check CE >= TCE and CE >= sum of CWCE, exactly (Lemma 4.6, Thm 3.1 eqs 15-16)."""
    rng = np.random.RandomState(global_random_seed)
    for _ in range(20):
        k = rng.randint(2, 6)
        y, P = _discrete_multiclass(rng, 200, k, n_rows=rng.randint(1, 10))
        labels = np.arange(k)
        full = exact_decomposition(y, P, loss=loss, labels=labels)
        full = full.miscalibration
        top = exact_decomposition(y, P, loss=loss, reduction="top_label", labels=labels)
        assert top.miscalibration <= full + 1e-12
        per_class = exact_decomposition(
            y,
            P,
            loss=loss,
            reduction="classwise",
            return_per_class=True,
            labels=labels,
        ).miscalibration
        assert np.all(per_class <= full + 1e-12)
        if loss == "brier":
            # The lemma is about the Brier score of the vector, twice
            # scikit-learn's (ours) for two classes.
            vector = 2 * full if k == 2 else full
            assert per_class.sum() <= vector + 1e-12
            # TCE_2 >= TCE_1 >= ECE for any fixed binning (eqs 17, 19).
            for n_bins in (1, 5, 15):
                ece = expected_calibration_error(y, P, n_bins=n_bins, labels=labels)
                assert ece <= math.sqrt(top.miscalibration) + 1e-12


@pytest.mark.parametrize(
    "n_classes, expected",
    [
        (3, dict(ce2=0.12005, bs=0.61985, nll=1.0325892857, ce_log=0.3396421185)),
        (
            10,
            dict(
                ce2=0.2134222222, bs=0.7132222222, nll=1.7695872101, ce_log=1.0766400429
            ),
        ),
    ],
)
def test_proposition_3_2_construction(n_classes, expected):
    """Check the numbers of Prop. 3.2 at alpha = 0.51 (proper note §2.10, §4 item 8)."""
    alpha = 0.51
    beta, gamma = (1 - alpha) / (n_classes - 1), 1 - alpha
    rows, labels, weights = [], [], []
    for k in range(n_classes):
        row = np.full(n_classes, beta)
        row[k] = alpha
        # P(Y | f = p_k) puts alpha on class k and gamma on class k - 1.
        for label, mass in ((k, alpha), ((k - 1) % n_classes, gamma)):
            rows.append(row)
            labels.append(label)
            weights.append(mass / n_classes)
    P, y, w = np.array(rows), np.array(labels), np.array(weights)
    brier = exact_decomposition(y, P, sample_weight=w)
    assert_allclose(brier.miscalibration, expected["ce2"], rtol=1e-9)
    assert_allclose(brier.score, expected["bs"], rtol=1e-9)
    assert_allclose(brier.score - brier.miscalibration, 0.4998, rtol=1e-12)
    log = exact_decomposition(y, P, sample_weight=w, loss="log")
    assert_allclose(log.score, expected["nll"], rtol=1e-9)
    assert_allclose(log.miscalibration, expected["ce_log"], rtol=1e-9)
    assert_allclose(log.score - log.miscalibration, 0.6929471672, rtol=1e-9)
    for loss in ("brier", "log"):
        for reduction in ("top_label", "classwise"):
            view = exact_decomposition(
                y, P, sample_weight=w, loss=loss, reduction=reduction
            )
            assert_allclose(view.miscalibration, 0.0, atol=1e-15)


def test_mean_replacement_is_confidence_calibrated_only(global_random_seed):
    """Check top-label mean replacement: TCE = 0, CE > 0 (Prop. D.2; M3; §4 item 9)."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _discrete_multiclass(rng, 400, 5, n_rows=30)
    predicted = P.argmax(axis=1)
    accuracy = np.mean(predicted == y)
    mrr = np.full_like(P, (1 - accuracy) / 4)
    mrr[np.arange(400), predicted] = accuracy
    top = exact_decomposition(y, mrr, reduction="top_label")
    assert_allclose(top.miscalibration, 0.0, atol=1e-15)
    assert_allclose(expected_calibration_error(y, mrr), 0.0, atol=1e-12)
    assert exact_decomposition(y, mrr).miscalibration > 1e-3


def test_class_frequency_replacement_is_calibrated(global_random_seed):
    """Check App. E.1.2 mean replacement: zero CE, Gini Brier, less DSC (§4 item 10)."""
    rng = np.random.RandomState(global_random_seed)
    k = 4
    y, P = _discrete_multiclass(rng, 500, k, n_rows=40)
    predicted = P.argmax(axis=1)
    replaced = np.zeros_like(P)
    gini = 0.0
    for c in np.unique(predicted):
        members = predicted == c
        frequency = np.bincount(y[members], minlength=k) / members.sum()
        replaced[members] = frequency
        gini += members.mean() * (1 - np.sum(frequency**2))
    assert len(np.unique(replaced, axis=0)) <= k
    for reduction in ("full", "top_label", "classwise"):
        got = exact_decomposition(y, replaced, reduction=reduction)
        assert_allclose(got.miscalibration, 0.0, atol=1e-15)
    got = exact_decomposition(y, replaced)
    assert_allclose(got.score, gini, rtol=1e-12)
    assert got.discrimination <= exact_decomposition(y, P).discrimination + 1e-12


def test_binary_threshold_replacement_is_calibrated(global_random_seed):
    """Check App. E.1.1: two output values, zero plug-in CE (proper note §4 item 11)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _discrete_binary(rng, 300, 20)
    low = p < 0.5
    replaced = np.where(low, y[low].mean() if low.any() else 0, y[~low].mean())
    assert len(np.unique(replaced)) <= 2
    for loss in ("brier", "log"):
        got = exact_decomposition(y, replaced, loss=loss)
        assert_allclose(got.miscalibration, 0.0, atol=1e-15)


@pytest.mark.parametrize("loss", ["brier", "log"])
def test_constant_prior_predictor(global_random_seed, loss):
    """Check the prior predictor: CE = DSC = 0, score = UNC; calibration helps (D4)."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _discrete_multiclass(rng, 300, 3)
    prior = np.bincount(y, minlength=3) / 300
    got = exact_decomposition(y, np.tile(prior, (300, 1)), loss=loss)
    assert_allclose(got.miscalibration, 0.0, atol=1e-15)
    assert_allclose(got.discrimination, 0.0, atol=1e-15)
    assert_allclose(got.score, got.uncertainty, rtol=1e-12)
    assert_allclose(got.uncertainty, ref_vector_entropy(prior, loss), rtol=1e-12)
    # Any empirically calibrated predictor scores at most the prior's score.
    _keys, inverse = np.unique(P, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    calibrated = np.array(
        [
            np.bincount(y[inverse == g], minlength=3) / np.sum(inverse == g)
            for g in inverse
        ]
    )
    better = exact_decomposition(y, calibrated, loss=loss)
    assert_allclose(better.miscalibration, 0.0, atol=1e-15)
    assert better.score <= got.score + 1e-12


def test_score_is_unbiased_over_subsamples():
    """Check that the mean score over all subsets equals the full one (§4 item 16)."""
    rng = np.random.RandomState(0)
    y, P = _discrete_multiclass(rng, 8, 3)
    full = exact_decomposition(y, P).score
    subsets = list(itertools.combinations(range(8), 3))
    labels = np.arange(3)
    mean = np.mean(
        [
            exact_decomposition(y[list(s)], P[list(s)], labels=labels).score
            for s in subsets
        ]
    )
    assert_allclose(mean, full, rtol=1e-12)


def test_brier_relation_to_scikit_learn(global_random_seed):
    """Check that every Brier score is brier_score_loss of its input (§4 item 22)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _discrete_binary(rng, 200)
    full = exact_decomposition(y, p)
    positive = exact_decomposition(y, p, reduction="positive")
    assert_allclose(full.score, brier_score_loss(y, p), rtol=1e-12)
    assert_allclose(positive.score, brier_score_loss(y, p), rtol=1e-12)
    assert_allclose(full.miscalibration, positive.miscalibration, rtol=1e-12)
    top = exact_decomposition(y, p, reduction="top_label")
    assert top.miscalibration <= positive.miscalibration + 1e-12
    log = exact_decomposition(y, p, loss="log")
    assert_allclose(log.score, log_loss(y, p), rtol=1e-12)
    yk, P = _discrete_multiclass(rng, 200, 4)
    got = exact_decomposition(yk, P)
    assert_allclose(got.score, brier_score_loss(yk, P), rtol=1e-12)
    correct = (np.argmax(P, axis=1) == yk).astype(int)
    top = exact_decomposition(yk, P, reduction="top_label")
    assert_allclose(top.score, brier_score_loss(correct, P.max(axis=1)), rtol=1e-12)


def test_miscalibration_zero_only_when_calibrated(global_random_seed):
    """Check MCB = 0 iff P = C, and the Brier sharpness gap in [0, 1 - 1/K] (D2)."""
    rng = np.random.RandomState(global_random_seed)
    k = 3
    y, P = _discrete_multiclass(rng, 300, k)
    keys, inverse = np.unique(P, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    rates = np.array(
        [np.bincount(y[inverse == g], minlength=k) for g in range(len(keys))]
    )
    rates = rates / rates.sum(1, keepdims=True)
    # Distinct groups keep distinct rows when their rates are nudged apart.
    calibrated = rates[inverse]
    got = exact_decomposition(y, calibrated)
    assert_allclose(got.miscalibration, 0.0, atol=1e-15)
    gap = got.uncertainty - got.discrimination
    assert -1e-15 <= gap <= 1 - 1 / k
    uniform = exact_decomposition(np.arange(300) % k, np.full((300, k), 1 / k))
    assert_allclose(uniform.uncertainty - uniform.discrimination, 1 - 1 / k, rtol=1e-12)
    assert exact_decomposition(y, 0.9 * P + 0.1 / k).miscalibration > 0


@pytest.mark.parametrize("loss", ["brier", "log"])
def test_coarsening_loses_discrimination(global_random_seed, loss):
    """Check that merging two prediction groups weakly lowers DSC (Prop. 4.2, D3)."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _discrete_multiclass(rng, 300, 3)
    keys = np.unique(P, axis=0)
    merged = P.copy()
    merged[np.all(keys[1] == P, axis=1)] = keys[0]
    before = exact_decomposition(y, P, loss=loss)
    after = exact_decomposition(y, merged, loss=loss)
    assert after.discrimination <= before.discrimination + 1e-12


@pytest.mark.parametrize("loss", ["brier", "log"])
def test_recalibrating_to_group_means_removes_miscalibration(global_random_seed, loss):
    """Check that P -> C lowers the score by exactly MCB and keeps DSC (D5)."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _discrete_multiclass(rng, 300, 4)
    before = exact_decomposition(y, P, loss=loss)
    keys, inverse = np.unique(P, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    C = np.array([np.bincount(y[inverse == g], minlength=4) for g in range(len(keys))])
    C = (C / C.sum(1, keepdims=True))[inverse]
    after = exact_decomposition(y, C, loss=loss)
    assert_allclose(after.score, before.score - before.miscalibration, rtol=1e-12)
    assert_allclose(after.discrimination, before.discrimination, rtol=1e-12)


@pytest.mark.parametrize("k, full", [(10, 0.913889), (100, 0.990126), (1000, 0.999001)])
def test_always_wrong_predictor(k, full):
    """Check the always-wrong predictor: 1-D loss O(1/k), full loss Omega(1) (I3)."""
    n = 20
    eps = 1 / (2 * k)
    y = np.arange(n) % k
    wrong = (y + 1) % k
    P = np.full((n, k), 1 / k - eps / (k - 1))
    P[np.arange(n), wrong] = 1 / k + eps
    labels = np.arange(k)
    top = exact_decomposition(y, P, reduction="top_label", labels=labels)
    assert_allclose(top.score, (1 / k + eps) ** 2, rtol=1e-12)
    assert_allclose(exact_decomposition(y, P, labels=labels).score, full, atol=5e-7)
    if k == 10:
        eps = 0.05
        P = np.full((n, k), 1 / k - eps / (k - 1))
        P[np.arange(n), wrong] = 1 / k + eps
        assert_allclose(exact_decomposition(y, P, reduction="top_label").score, 0.0225)
        assert_allclose(exact_decomposition(y, P).score, 0.913889, atol=5e-7)


@pytest.mark.parametrize(
    "k, accuracy, nll, brier",
    [(1000, 0.8514, 144.66, 27.51), (10, 0.9346, 38.53, 12.60)],
)
def test_mean_replacement_closed_forms(k, accuracy, nll, brier):
    """Check MRR's NLL and Brier closed forms and the paper's numbers (M5, M6)."""
    n = 5000
    correct = round(accuracy * n)
    y = np.arange(n) % k
    predicted = y.copy()
    predicted[correct:] = (y[correct:] + 1) % k
    a_hat = accuracy
    P = np.full((n, k), (1 - a_hat) / (k - 1))
    P[np.arange(n), predicted] = a_hat
    a = correct / n
    expected_nll = -a * np.log(a_hat) - (1 - a) * np.log((1 - a_hat) / (k - 1))
    expected_brier = (
        1
        - 2 * a * a_hat
        - 2 * (1 - a) * (1 - a_hat) / (k - 1)
        + a_hat**2
        + (1 - a_hat) ** 2 / (k - 1)
    )
    got_nll = exact_decomposition(y, P, loss="log").score
    got_brier = exact_decomposition(y, P).score
    assert_allclose(got_nll, expected_nll, rtol=1e-12)
    assert_allclose(got_brier, expected_brier, rtol=1e-12)
    assert round(100 * got_nll, 2) == nll
    assert round(100 * got_brier, 2) == brier


def test_isotonic_miscalibration_at_most_exact(global_random_seed):
    """Check 0 <= isotonic MCB <= exact MCB on random binary views."""
    rng = np.random.RandomState(global_random_seed)
    for loss in ("brier", "log"):
        y, p = _discrete_binary(rng, 300, 25)
        exact = exact_decomposition(y, p, loss=loss)
        corp = calibration_decomposition(y, p, loss=loss, method="isotonic")
        assert -1e-14 <= corp.miscalibration <= exact.miscalibration + 1e-12
        assert corp.discrimination <= exact.discrimination + 1e-12
        assert_allclose(corp.uncertainty, exact.uncertainty, rtol=1e-12)


def test_isotonic_equals_exact_on_monotone_rates():
    """Check that CORP is the exact decomposition when rates already increase."""
    p = np.repeat([0.1, 0.4, 0.8], 4)
    y = np.array([0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0])
    for loss in ("brier", "log"):
        exact = exact_decomposition(y, p, loss=loss)
        corp = calibration_decomposition(y, p, loss=loss, method="isotonic")
        assert_allclose(_terms(corp), _terms(exact), rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------------------
# Edge cases and errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["exact", "isotonic"])
def test_predictions_zero_and_one(method):
    """Check predictions 0 and 1: finite Brier, infinite log loss when wrong."""
    y = np.array([0, 1, 1, 0])
    p = np.array([0.0, 1.0, 0.5, 0.5])
    brier = calibration_decomposition(y, p, method=method, reduction="positive")
    assert_allclose(brier.score, 0.125)
    log = calibration_decomposition(y, p, method=method, loss="log")
    assert math.isfinite(log.score)
    assert_allclose(log.score, math.log(2) / 2)
    wrong = calibration_decomposition([1, 0], [0.0, 0.5], method=method, loss="log")
    assert wrong.score == math.inf
    assert wrong.miscalibration == math.inf
    assert math.isfinite(wrong.discrimination) and math.isfinite(wrong.uncertainty)


@pytest.mark.parametrize("method", ["exact", "isotonic"])
@pytest.mark.parametrize("loss", ["brier", "log"])
def test_single_sample_and_one_class(method, loss):
    """Check one sample, one class and all weight on one point."""
    one = calibration_decomposition([1], [0.3], method=method, loss=loss)
    score = ref_binary_score(0.3, 1, loss)
    assert_allclose(_terms(one), [score, score, 0.0, 0.0], atol=1e-15)
    y = np.zeros(5, dtype=int)
    p = np.array([0.1, 0.2, 0.2, 0.4, 0.1])
    got = calibration_decomposition(y, p, method=method, loss=loss)
    assert_allclose(got.uncertainty, 0.0, atol=0)
    assert_allclose(got.discrimination, 0.0, atol=1e-15)
    assert_allclose(got.miscalibration, got.score, rtol=1e-12)
    w = np.array([0.0, 0.0, 5.0, 0.0, 0.0])
    weighted = calibration_decomposition(
        [0, 1, 1, 0, 1], p, sample_weight=w, method=method, loss=loss
    )
    assert_allclose(
        _terms(weighted),
        _terms(calibration_decomposition([1], [0.2], method=method, loss=loss)),
    )


def test_reduction_resolution():
    """Check what "auto" means: full, or the view of a given multiclass pos_label."""
    rng = np.random.RandomState(0)
    y, P = _discrete_multiclass(rng, 60, 3)
    assert exact_decomposition(y, P).reduction == "full"
    assert exact_decomposition(y, P, pos_label=2).reduction == "positive"
    yb, p = _discrete_binary(rng, 60)
    assert exact_decomposition(yb, p).reduction == "full"
    assert exact_decomposition(yb, p, pos_label=1).reduction == "full"
    result = calibration_decomposition(yb, p, loss="log", method="isotonic")
    assert (result.loss, result.method) == ("log", "isotonic")


def test_errors():
    """Check the rejections of inconsistent options."""
    rng = np.random.RandomState(0)
    y, P = _discrete_multiclass(rng, 30, 3)
    with pytest.raises(ValueError, match='method="isotonic" recalibrates one'):
        calibration_decomposition(y, P, method="isotonic")
    with pytest.raises(ValueError, match="return_per_class=True needs"):
        exact_decomposition(y, P, return_per_class=True)
    with pytest.raises(ValueError, match="needs pos_label"):
        exact_decomposition(y, P, reduction="positive")
    with pytest.raises(InvalidParameterError, match="'loss' parameter"):
        exact_decomposition(y, P, loss="hinge")
    with pytest.raises(InvalidParameterError, match="'method' parameter"):
        calibration_decomposition(y, P, method="kernel")
    with pytest.raises(InvalidParameterError, match="'reduction' parameter"):
        exact_decomposition(y, P, reduction="none")


# ---------------------------------------------------------------------------
# Real data
# ---------------------------------------------------------------------------


def test_real_data_matches_reference(real_multiclass, global_random_seed):
    """Check full and top-label decompositions of real outputs against the loops."""
    labels, probs = real_multiclass
    rng = np.random.RandomState(global_random_seed)
    rows = rng.choice(len(labels), size=600, replace=False)
    y, P = labels[rows], probs[rows].astype(np.float64)
    # Rounding makes groups of identical rows; renormalising keeps rows valid.
    P = np.round(P, 1) + 0.01
    P = P / P.sum(axis=1, keepdims=True)
    full = exact_decomposition(y, P, labels=np.arange(P.shape[1]))
    expected = ref_decomposition(P.tolist(), y, None, "brier")
    assert_allclose(_terms(full), expected, rtol=1e-11, atol=1e-14)
    correct = (probs.argmax(axis=1) == labels).astype(int)
    confidence = probs.max(axis=1).astype(np.float64)
    sub = rng.choice(len(labels), size=1500, replace=False)
    for method in ("exact", "isotonic"):
        got = calibration_decomposition(
            labels[sub],
            probs[sub],
            method=method,
            reduction="top_label",
            labels=np.arange(probs.shape[1]),
        )
        expected = ref_binary_decomposition(
            correct[sub], confidence[sub], None, "brier", method
        )
        assert_allclose(_terms(got), expected, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("loss", ["brier", "log"])
def test_isotonic_matches_model_diagnostics(global_random_seed, loss):
    """Check CORP against model-diagnostics' decompose, where it is installed."""
    scoring = pytest.importorskip("model_diagnostics.scoring")
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=500)
    p[:50] = np.round(p[:50], 1)
    y = (rng.uniform(size=500) < p**1.3).astype(float)
    w = rng.uniform(0.2, 2, size=500)
    function = scoring.SquaredError() if loss == "brier" else scoring.LogLoss()
    table = scoring.decompose(y_obs=y, y_pred=p, weights=w, scoring_function=function)
    expected = [table[name][0] for name in TERMS]
    got = calibration_decomposition(
        y, p, sample_weight=w, loss=loss, method="isotonic", reduction="positive"
    )
    assert_allclose(_terms(got), expected, rtol=1e-9, atol=1e-12)


def test_auto_method_groups_few_values_and_regresses_continuous(global_random_seed):
    """Check method="auto": exact for few values, isotonic (CORP) for continuous.

    The issue's case: continuous predictions grouped exactly put every row in
    its own group, so the miscalibration is the whole score; the default must
    not, and asking for it warns.
    """
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=569)
    y = (rng.uniform(size=569) < p**2).astype(int)
    auto = calibration_decomposition(y, p)
    isotonic = calibration_decomposition(y, p, method="isotonic")
    assert auto.method == "isotonic"
    assert _terms(auto) == pytest.approx(_terms(isotonic), rel=1e-12)
    assert auto.miscalibration < 0.5 * auto.score
    with pytest.warns(UserWarning, match="569 of 569 rows in groups of their own"):
        exact = calibration_decomposition(y, p, method="exact")
    assert exact.miscalibration == pytest.approx(exact.score)
    rounded = np.round(p, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        few = calibration_decomposition(y, rounded)
    assert few.method == "exact"
    assert _terms(few) == pytest.approx(
        _terms(calibration_decomposition(y, rounded, method="exact")), rel=1e-12
    )
    # Every view must have few values for "auto" to group exactly.
    P = rng.dirichlet(np.ones(3), size=300)
    labels = rng.randint(0, 3, size=300)
    top = calibration_decomposition(labels, P, reduction="top_label")
    assert top.method == "isotonic"
    with pytest.warns(UserWarning, match='reduction="top_label"'):
        full = calibration_decomposition(labels, P)
    assert (full.method, full.reduction) == ("exact", "full")


def test_exact_warning_needs_enough_rows():
    """Check that a handful of rows does not warn: nothing to regularise."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        calibration_decomposition([0, 1, 1], [0.2, 0.6, 0.9], method="exact")


@pytest.mark.parametrize("method", ["exact", "isotonic"])
@pytest.mark.parametrize("loss", ["brier", "log"])
@pytest.mark.parametrize("n_values", [5, None])
def test_sorted_keys_path_equals_the_argsort_path(
    global_random_seed, method, loss, n_values
):
    """Check that unweighted views (sorted by keys) decompose as weighted ones.

    Unit weights take the argsort path of :class:`Ties`; the terms must
    agree to rounding, with repeated predictions (0 and 1 among them) and
    with distinct ones.
    """
    rng = np.random.RandomState(global_random_seed)
    n = 300
    if n_values is None:
        p = rng.uniform(size=n)
    else:
        p = rng.choice(np.r_[0.0, 1.0, rng.uniform(size=n_values - 2)], size=n)
    y = (rng.uniform(size=n) < np.clip(p, 0.05, 0.95)).astype(int)
    options = {"method": method, "loss": loss}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # exact on distinct values
        unweighted = calibration_decomposition(y, p, **options)
        weighted = calibration_decomposition(y, p, sample_weight=np.ones(n), **options)
    for term in ("score", "miscalibration", "discrimination", "uncertainty"):
        assert_allclose(unweighted[term], weighted[term], rtol=1e-10, atol=1e-12)


def test_binned_method_against_a_brute_force_recalibration():
    rng = np.random.default_rng(5)
    p = rng.uniform(size=500)
    y = (rng.uniform(size=500) < p**2).astype(int)
    w = rng.exponential(size=500)
    for loss in ("brier", "log"):
        result = calibration_decomposition(
            y, p, sample_weight=w, loss=loss, method="binned", n_bins=7
        )
        bins = np.minimum((np.ceil(p * 7) - 1).astype(int), 6)
        rate = np.bincount(bins, w * y, 7) / np.bincount(bins, w, 7)
        base = np.average(y, weights=w)

        def mean_score(q, loss=loss):
            if loss == "brier":
                return np.average((q - y) ** 2, weights=w)
            return np.average(-np.log(np.where(y == 1, q, 1 - q)), weights=w)

        recalibrated = mean_score(rate[bins])
        assert result.method == "binned"
        assert result.score == pytest.approx(mean_score(p), rel=1e-12)
        assert result.miscalibration == pytest.approx(mean_score(p) - recalibrated)
        assert result.discrimination == pytest.approx(
            mean_score(np.full_like(p, base)) - recalibrated
        )


def test_binned_method_equals_exact_when_bins_separate_the_values():
    rng = np.random.default_rng(6)
    p = rng.choice([0.1, 0.35, 0.8], size=300)
    y = (rng.uniform(size=300) < p).astype(int)
    binned = calibration_decomposition(y, p, method="binned", n_bins=10)
    exact = calibration_decomposition(y, p, method="exact")
    for term in ("score", "miscalibration", "discrimination", "uncertainty"):
        assert binned[term] == pytest.approx(exact[term], rel=1e-12)
    with pytest.raises(ValueError, match='method="binned" recalibrates one'):
        calibration_decomposition([0, 1, 2], np.eye(3), method="binned")
