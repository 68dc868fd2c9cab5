"""Tests of the smooth (weak, 1-Lipschitz) calibration error."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import sparse
from scipy.optimize import linprog
from scipy.stats import spearmanr

from skcal.metrics import cutoff_calibration_error, smooth_calibration_error
from tests.metrics._reference import (
    plugin_ece,
    random_binary,
    random_multiclass,
    random_weights,
    ref_views,
)

# ---------------------------------------------------------------------------
# Reference implementations: generic linear programs
# ---------------------------------------------------------------------------


def lp_smooth_error(y, p, w=None):
    """sup over 1-Lipschitz g: [0, 1] -> [-1, 1] of the weighted mean of (y - p) g(p).

    A linear program in the values of g at every sample (ties are not
    grouped: equal predictions get a zero gap, which forces equal values),
    solved by HiGHS through ``scipy.optimize.linprog``.
    """
    y = np.asarray(y, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    w = np.ones_like(p) if w is None else np.asarray(w, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    p, objective = p[order], (w * (y - p))[order] / w.sum()
    n = p.shape[0]
    if n == 1:
        return abs(objective[0])
    rows = np.arange(n - 1)
    difference = sparse.csr_matrix(
        (
            np.r_[np.ones(n - 1), -np.ones(n - 1)],
            (np.r_[rows, rows], np.r_[rows + 1, rows]),
        ),
        shape=(n - 1, n),
    )
    gaps = np.diff(p)
    result = linprog(
        -objective,
        A_ub=sparse.vstack([difference, -difference]),
        b_ub=np.r_[gaps, gaps],
        bounds=[(-1.0, 1.0)] * n,
        method="highs",
    )
    assert result.status == 0
    return -result.fun


def lp_distance_to_calibration(y, p, w, grid):
    """Upper bound on dCE: the W1 cost of moving (p, y) to a calibrated law on a grid.

    Mass keeps its label and moves to grid values (or stays); at every value
    the share of positive mass must equal the value (Błasiok et al., 2023).
    """
    values = np.unique(np.r_[grid, p])
    n, m = len(p), len(values)
    cost = np.abs(p[:, None] - values[None, :]).ravel()
    keep_mass = np.kron(np.eye(n), np.ones(m))
    calibrated = np.hstack([np.diag(y[i] - values) for i in range(n)])
    result = linprog(
        cost,
        A_eq=np.vstack([keep_mass, calibrated]),
        b_eq=np.r_[w, np.zeros(m)],
        bounds=(0, None),
        method="highs",
    )
    assert result.status == 0
    return result.fun


# ---------------------------------------------------------------------------
# Agreement with the linear program
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 10, 60, 250])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_matches_linear_program(global_random_seed, n, ties, weighted):
    """Check the exact algorithm against a generic LP solver."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, n, ties=ties)
    w = random_weights(rng, n) if weighted else None
    got = smooth_calibration_error(y, p, sample_weight=w, method="exact")
    assert isinstance(got, float)
    assert_allclose(got, lp_smooth_error(y, p, w), rtol=1e-7, atol=1e-10)
    assert smooth_calibration_error(y, p, sample_weight=w) == got


def test_many_random_small_problems_match_linear_program(global_random_seed):
    """Check the exact algorithm on many tiny, heavily tied problems."""
    rng = np.random.RandomState(global_random_seed)
    for _ in range(100):
        n = rng.randint(1, 12)
        p = np.round(rng.uniform(size=n), 1)
        y = rng.randint(2, size=n)
        w = rng.uniform(0.1, 2, size=n)
        assert_allclose(
            smooth_calibration_error(y, p, sample_weight=w),
            lp_smooth_error(y, p, w),
            rtol=1e-7,
            atol=1e-10,
        )


@pytest.mark.parametrize("reduction", ["top_label", "classwise"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_matches_linear_program(global_random_seed, reduction, weighted):
    """Check top-label and classwise errors against the LP per view."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = random_multiclass(rng, 80, 4)
    w = random_weights(rng, 80) if weighted else None
    per_class = [lp_smooth_error(yv, pv, w) for yv, pv in ref_views(y, prob, reduction)]
    got = smooth_calibration_error(y, prob, sample_weight=w, reduction=reduction)
    assert_allclose(got, np.mean(per_class), rtol=1e-7, atol=1e-10)
    if reduction == "classwise":
        vector = smooth_calibration_error(
            y, prob, sample_weight=w, reduction=reduction, return_per_class=True
        )
        assert vector.shape == (4,)
        assert_allclose(vector, per_class, rtol=1e-7, atol=1e-10)


# ---------------------------------------------------------------------------
# Grid approximation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_grid", [1, 3, 20, 1000])
@pytest.mark.parametrize("weighted", [False, True])
def test_grid_is_the_exact_error_at_cell_centres(global_random_seed, n_grid, weighted):
    """Check that the grid method solves the problem moved to the cell centres."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 120)
    w = random_weights(rng, 120) if weighted else None
    # Cells are right-closed, (j / n_grid, (j + 1) / n_grid]; random p avoid edges.
    centres = (np.ceil(p * n_grid) - 0.5) / n_grid
    got = smooth_calibration_error(y, p, sample_weight=w, method="grid", n_grid=n_grid)
    # The residuals stay y - p; only the place where g is evaluated moves.
    assert_allclose(got, _lp_with_residuals(y - p, centres, w), rtol=1e-7, atol=1e-10)


def _lp_with_residuals(residual, where, w):
    """The LP of ``lp_smooth_error`` with given residuals placed at ``where``."""
    w = np.ones_like(residual) if w is None else w
    # y - p with p = where reproduces residual when y = residual + where.
    return lp_smooth_error(residual + where, where, w)


@pytest.mark.parametrize("n_grid", [1, 5, 50, 500])
def test_grid_error_is_within_its_bound(global_random_seed, n_grid):
    """Check that the grid value is within mean|y - p| / (2 n_grid) of the exact."""
    rng = np.random.RandomState(global_random_seed)
    for weighted in (False, True):
        y, p = random_binary(rng, 300)
        w = random_weights(rng, 300) if weighted else np.ones(300)
        exact = smooth_calibration_error(y, p, sample_weight=w, method="exact")
        grid = smooth_calibration_error(
            y, p, sample_weight=w, method="grid", n_grid=n_grid
        )
        bound = np.average(np.abs(y - p), weights=w) / (2 * n_grid)
        assert abs(grid - exact) <= bound + 1e-12


def test_auto_switches_to_the_grid_above_n_grid_distinct_values():
    """Check that "auto" is exact up to n_grid distinct predictions, grid above."""
    rng = np.random.RandomState(0)
    y, p = random_binary(rng, 50)
    p[:30] = np.round(p[:30], 1)
    distinct = len(np.unique(p))
    exact = smooth_calibration_error(y, p, method="exact")
    assert smooth_calibration_error(y, p, n_grid=distinct) == exact
    assert smooth_calibration_error(y, p, n_grid=distinct - 1) == (
        smooth_calibration_error(y, p, method="grid", n_grid=distinct - 1)
    )
    assert smooth_calibration_error(y, p, method="grid", n_grid=7) != exact


def test_default_grid_on_large_data():
    """Check the default grid against the exact value on 300,000 predictions."""
    rng = np.random.RandomState(0)
    n = 300_000
    p = rng.uniform(size=n)
    y = rng.uniform(size=n) < np.clip(p + 0.3 * np.sin(6 * p), 0, 1)
    auto = smooth_calibration_error(y, p)
    exact = smooth_calibration_error(y, p, method="exact")
    assert auto != exact  # the grid was used
    assert abs(auto - exact) <= np.mean(np.abs(y - p)) / 200_000


# ---------------------------------------------------------------------------
# Checkable claims (cutoff_calibration.md sections 2.3, 2.5, 5; smooth_ece.md 2.6)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("ties", [False, True])
def test_bounds_by_the_cutoff_error(global_random_seed, ties):
    """Check smCE <= (1 + (max p - min p) / 2) cutoff <= 4 cutoff (note 2.5, 5.13)."""
    rng = np.random.RandomState(global_random_seed)
    for _ in range(30):
        n = rng.randint(1, 80)
        y, p = random_binary(rng, n, ties=ties)
        w = random_weights(rng, n)
        smooth = smooth_calibration_error(y, p, sample_weight=w)
        cutoff = cutoff_calibration_error(y, p, sample_weight=w)
        assert smooth <= (1 + np.ptp(p[w > 0]) / 2) * cutoff + 1e-12
        # Proposition 2.2 of Rossellini et al. with M = 2.
        assert smooth <= 4 * cutoff + 1e-12


@pytest.mark.parametrize("weighted", [False, True])
def test_chain_of_bounds(global_random_seed, weighted):
    """Check |mean residual| <= smCE <= plug-in ECE <= mean |y - p| (note 5.13)."""
    rng = np.random.RandomState(global_random_seed)
    for ties in (False, True):
        y, p = random_binary(rng, 100, ties=ties)
        w = random_weights(rng, 100) if weighted else np.ones(100)
        smooth = smooth_calibration_error(y, p, sample_weight=w)
        assert abs(np.average(y - p, weights=w)) <= smooth + 1e-15
        assert smooth <= plugin_ece(y, p, w) + 1e-15
        assert plugin_ece(y, p, w) <= np.average(np.abs(y - p), weights=w) + 1e-15


@pytest.mark.parametrize("c", [0.0, 0.2, 0.5, 0.93, 1.0])
def test_constant_predictor(global_random_seed, c):
    """Check that a constant prediction c has smCE |mean(y) - c|."""
    rng = np.random.RandomState(global_random_seed)
    y = rng.randint(2, size=57)
    assert_allclose(
        smooth_calibration_error(y, np.full(57, c)),
        abs(y.mean() - c),
        rtol=1e-12,
        atol=1e-15,
    )


@pytest.mark.parametrize("label", [0, 1])
def test_one_sided_residuals(global_random_seed, label):
    """Check that residuals of one sign give smCE = |mean(y - p)| (w = +-1 is best)."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=90)
    got = smooth_calibration_error(np.full(90, label), p)
    assert_allclose(got, abs(label - p.mean()), rtol=1e-12)
    # Also with both labels, as long as every residual has the same sign.
    y = rng.randint(2, size=90)
    p = np.where(y == 1, rng.uniform(size=90), 0.0)
    assert_allclose(smooth_calibration_error(y, p), np.mean(y - p), rtol=1e-12)


def test_zero_on_perfectly_calibrated_data():
    """Check that every tie group at its event rate gives 0."""
    p = np.repeat([0.0, 0.25, 0.5, 1.0], [3, 4, 2, 5])
    y = np.r_[[0] * 3, [1, 0, 0, 0], [0, 1], [1] * 5]
    assert smooth_calibration_error(y, p) == pytest.approx(0.0, abs=1e-15)
    assert cutoff_calibration_error(y, p) == pytest.approx(0.0, abs=1e-15)


def test_distance_to_calibration_example():
    """Check the note's example: smCE = 0.0456 = dCE / 2 for f = (0.62, 0.38)."""
    y, p = np.array([1.0, 0.0]), np.array([0.62, 0.38])
    smooth = smooth_calibration_error(y, p)
    assert_allclose(smooth, 0.19 * 0.24, rtol=1e-12)
    dce = lp_distance_to_calibration(y, p, np.full(2, 0.5), np.linspace(0, 1, 11))
    assert_allclose(dce, 0.0912, rtol=1e-9)
    # The lower bound dCE / 2 <= smCE is attained; dCE <= smCE is false.
    assert_allclose(smooth, dce / 2, rtol=1e-9)


def test_within_a_factor_two_of_the_distance_to_calibration():
    """Check dCE / 2 <= smCE <= 2 dCE on small empirical laws (smooth_ece.md 2.6).

    The grid LP only bounds dCE from above, so the seed is fixed.
    """
    rng = np.random.RandomState(0)
    for _ in range(40):
        n = rng.randint(1, 6)
        p = rng.uniform(size=n)
        y = (rng.uniform(size=n) < rng.uniform(size=n)).astype(float)
        dce = lp_distance_to_calibration(
            y, p, np.full(n, 1 / n), np.linspace(0, 1, 101)
        )
        smooth = smooth_calibration_error(y, p)
        assert dce / 2 <= smooth + 1e-12
        assert smooth <= 2 * dce + 1e-12


def test_platt_counterexample():
    """Check the population Platt map of the counterexample: smCE = 0.021158."""
    f = np.array([0.0, 0.25, 0.5, 1.0])
    y = np.array([1, 0, 0, 1])
    h = 1 / (1 + np.exp(0.40580424 - 0.93089507 * f))
    got = smooth_calibration_error(y, h, sample_weight=np.full(4, 0.25))
    assert_allclose(got, 0.021158, atol=1e-6)
    # So dCE(h o f) >= smCE / 2 > 0.0106: Platt is not calibrated in the limit.
    assert got / 2 > 0.0105


def test_all_wrong_and_example_3_1():
    """Check the all-wrong fixture (1) and Example 3.1 (7 eps / 8 + eps^2 / 2)."""
    assert smooth_calibration_error([0, 0, 0], [1.0, 1.0, 1.0]) == 1.0
    for eps in (0.01, 0.05, 0.1):
        got = smooth_calibration_error(
            [1, 0], [0.75 - eps, 0.75 + eps], sample_weight=[0.75, 0.25]
        )
        # The best test function is 1 at 0.75 - eps and 1 - 2 eps at 0.75 + eps.
        assert_allclose(got, 7 * eps / 8 + eps**2 / 2, rtol=1e-12)
        # At most 2 dCE <= 2 eps, while the risk gap of the plug-in rule is 3/8.
        assert got <= 2 * eps


def _risks_of_thresholds(e, f, tau):
    """Risks of 1{f >= t} and of 1{f <= t} over every cut point, all and none."""
    order = np.argsort(f)
    e = e[order]
    loss_if_one = tau * (1 - e)
    loss_if_zero = (1 - tau) * e
    # Decide 1 on the top n - k predictions (k = 0..n), or on the bottom k.
    below = np.r_[0.0, np.cumsum(loss_if_zero)]
    above = np.r_[np.cumsum(loss_if_one[::-1])[::-1], 0.0]
    upper_rule = below + above
    below_one = np.r_[0.0, np.cumsum(loss_if_one)]
    above_zero = np.r_[np.cumsum(loss_if_zero[::-1])[::-1], 0.0]
    lower_rule = below_one + above_zero
    return np.r_[upper_rule, lower_rule] / len(e)


def test_reproduces_figure_3_simulation():
    """Check the Fig. 3 simulation of Rossellini et al. (note section 4.1 table).

    The note reproduced the authors' notebook (seed 1, the same draws, smCE
    by an LP, cutoff by brute force); every number here is from its table.
    """
    rng = np.random.RandomState(1)
    n, n_population, tau = 500, 1000, 0.35
    rows = []
    for _ in range(100):
        x = rng.uniform(size=n)
        x_population = rng.uniform(size=n_population)
        alpha = rng.uniform(size=1)[0]
        y = rng.binomial(n=1, p=alpha * (1 - 2 * x) ** 2 + (1 - alpha) * x)
        # Unpenalised logistic regression of y on [1, x], by Newton's method.
        design = np.column_stack([np.ones(n), x])
        beta = np.zeros(2)
        for _ in range(30):
            prob = 1 / (1 + np.exp(-design @ beta))
            hessian = (design * (prob * (1 - prob))[:, None]).T @ design
            beta += np.linalg.solve(hessian, design.T @ (y - prob))
        f = 1 / (1 + np.exp(-(beta[0] + beta[1] * x_population)))
        e = alpha * (1 - 2 * x_population) ** 2 + (1 - alpha) * x_population
        # E[Y | X] in place of Y: two rows per point, weighted e and 1 - e.
        data = dict(
            y_true=np.r_[np.ones(n_population), np.zeros(n_population)],
            y_prob=np.r_[f, f],
            sample_weight=np.r_[e, 1 - e],
        )
        risk = np.mean(tau * (1 - e) * (f >= tau) + (1 - tau) * e * (f < tau))
        oracle = np.mean(tau * (1 - e) * (e >= tau) + (1 - tau) * e * (e < tau))
        monotone = _risks_of_thresholds(e, f, tau).min()
        rows.append(
            (
                smooth_calibration_error(**data),
                cutoff_calibration_error(**data),
                risk - oracle,
                risk - monotone,
            )
        )
    smooth, cutoff, gap, monotone_gap = np.array(rows).T
    assert_allclose([smooth.min(), smooth.max()], [0.0028, 0.0631], atol=5e-5)
    assert_allclose(np.median(smooth), 0.0201, atol=5e-5)
    assert_allclose([cutoff.min(), cutoff.max()], [0.0112, 0.1524], atol=5e-5)
    assert_allclose(np.median(cutoff), 0.0682, atol=5e-5)
    assert_allclose(spearmanr(smooth, gap)[0], 0.1774, atol=5e-5)
    assert_allclose(spearmanr(smooth, monotone_gap)[0], 0.1926, atol=5e-5)
    assert_allclose(spearmanr(cutoff, gap)[0], 0.9588, atol=5e-5)
    assert_allclose(spearmanr(cutoff, monotone_gap)[0], 0.8539, atol=5e-5)
    # Proposition 3.2 on every run, and the note's largest ratio.
    assert np.all(monotone_gap <= 2 * cutoff)
    assert_allclose(np.max(monotone_gap / cutoff), 0.9856, atol=5e-5)


# ---------------------------------------------------------------------------
# Edge cases
# ---------------------------------------------------------------------------


def test_predictions_exactly_zero_and_one():
    """Check predictions at 0 and 1, right and wrong."""
    assert smooth_calibration_error([0, 1], [0.0, 1.0]) == 0.0
    # Residuals +1 at 0 and -1 at 1: g(0) - g(1) <= 1, so the value is 1 / 2.
    assert smooth_calibration_error([1, 0], [0.0, 1.0]) == 0.5
    assert smooth_calibration_error([1, 1], [0.0, 0.0]) == 1.0


def test_single_sample():
    """Check that one sample gives |y - p|."""
    assert_allclose(smooth_calibration_error([1], [0.3]), 0.7, rtol=1e-15)
    assert_allclose(
        smooth_calibration_error([1], [0.3], method="grid", n_grid=4), 0.7, rtol=1e-15
    )


def test_all_weight_on_one_point():
    """Check that zero-weight rows are ignored when one row has all the weight."""
    got = smooth_calibration_error(
        [1, 0, 1, 0], [0.1, 0.4, 0.8, 0.9], sample_weight=[0, 0, 2.5, 0]
    )
    assert_allclose(got, 0.2, rtol=1e-12)


def test_ties_share_the_test_function_value():
    """Check that identical predictions get one value of the test function."""
    assert smooth_calibration_error([1, 0], [0.5, 0.5]) == 0.0
    assert_allclose(
        smooth_calibration_error([1, 0, 1], [0.5, 0.5, 0.9]),
        lp_smooth_error([1, 0, 1], [0.5, 0.5, 0.9]),
        rtol=1e-9,
    )


def test_invalid_parameters():
    """Check that an unknown method and a grid of no cells are refused."""
    with pytest.raises(ValueError, match="'method' parameter"):
        smooth_calibration_error([0, 1], [0.2, 0.7], method="lp")
    with pytest.raises(ValueError, match="'n_grid' parameter"):
        smooth_calibration_error([0, 1], [0.2, 0.7], n_grid=0)


# ---------------------------------------------------------------------------
# Invariances (hypothesis)
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Real model outputs
# ---------------------------------------------------------------------------


def test_real_data_top_label(real_multiclass):
    """Check the top-label error of real classifiers against the LP."""
    labels, probs = real_multiclass
    prob64 = probs.astype(np.float64)
    confidence = prob64.max(axis=1)
    correct = prob64.argmax(axis=1) == labels
    full = smooth_calibration_error(labels, prob64)
    assert full == smooth_calibration_error(labels, prob64, method="exact")
    rows = np.random.RandomState(0).choice(len(labels), size=400, replace=False)
    assert_allclose(
        smooth_calibration_error(
            labels[rows], prob64[rows], labels=np.arange(probs.shape[1])
        ),
        lp_smooth_error(correct[rows], confidence[rows]),
        rtol=1e-7,
    )
    cutoff = cutoff_calibration_error(labels, prob64)
    assert abs(np.mean(correct - confidence)) <= full <= 1.5 * cutoff


@pytest.mark.parametrize("scale", [1e-300, 1e-170, 1e170, 1e300])
def test_extreme_weight_scales(scale):
    """Check that weights of extreme magnitude neither underflow nor overflow."""
    rng = np.random.RandomState(0)
    y, p = random_binary(rng, 200)
    w = rng.uniform(0.5, 2, size=200)
    for method in ("exact", "grid"):
        assert_allclose(
            smooth_calibration_error(y, p, sample_weight=w * scale, method=method),
            smooth_calibration_error(y, p, sample_weight=w, method=method),
            rtol=1e-12,
        )
