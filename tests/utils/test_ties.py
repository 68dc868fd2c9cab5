"""Tests of skcal._utils._ties and skcal._utils._scaling: tie groups and weights."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcal._utils._scaling import (
    drop_zero_weight,
    effective_size,
    normalized_weights,
    power_of_two_scale,
)
from skcal._utils._ties import Ties


def _simplex(rng, n, k):
    """``n`` distinct probability vectors over ``k`` classes."""
    return rng.dirichlet(np.ones(k), size=n)


def ref_groups(p, w):
    """Groups of identical predictions by a dict: value -> (weight, members)."""
    groups = {}
    for i, row in enumerate(p):
        key = tuple(np.atleast_1d(row).tolist())
        weight, members = groups.get(key, (0.0, []))
        groups[key] = (weight + (1.0 if w is None else w[i]), [*members, i])
    return groups


@pytest.mark.parametrize("k", [None, 3, "distinct", "distinct rows"])
@pytest.mark.parametrize("weighted", [False, True])
def test_ties_matches_dict_grouping(global_random_seed, k, weighted):
    """Check grouping of identical predictions against a dictionary.

    Predictions that all differ are groups of one, without an array of
    group ends until one is asked for.
    """
    rng = np.random.RandomState(global_random_seed)
    n = 200
    if k is None:
        p = rng.choice([0.0, 0.1, 0.25, 0.5, 1.0], size=n)
    elif k == "distinct":
        p = rng.uniform(size=n)
    elif k == "distinct rows":
        p = _simplex(rng, n, 3)
    else:
        pool = _simplex(rng, 6, k)
        p = pool[rng.randint(6, size=n)]
    w = rng.uniform(0, 2, size=n) if weighted else None
    groups = Ties(p, w)
    expected = ref_groups(p, w)
    assert groups.distinct == (len(expected) == n)
    assert (groups.tied_ends is None) == groups.distinct
    assert groups.n_groups == len(expected)
    assert groups.n_alone == sum(len(m) == 1 for _, m in expected.values())
    assert_array_equal(
        groups.ends,
        np.cumsum([len(m) for _, m in (expected[key] for key in sorted(expected))]) - 1,
    )
    assert len(groups.weight) == len(expected)
    keys = [tuple(np.atleast_1d(v).tolist()) for v in groups.values]
    assert keys == sorted(expected)
    for g, key in enumerate(keys):
        weight, members = expected[key]
        assert_allclose(groups.weight[g], weight, rtol=1e-12)
        assert_array_equal(np.flatnonzero(groups.inverse == g), members)
    values = rng.uniform(size=n)
    sums = groups.sum(values)
    w_ = np.ones(n) if w is None else w
    for g, key in enumerate(keys):
        members = expected[key][1]
        assert_allclose(sums[g], np.sum(values[members] * w_[members]), rtol=1e-12)


def test_ties_merges_signed_zeros():
    """Check that -0.0 and 0.0 fall in the same group."""
    groups = Ties(np.array([0.0, -0.0, 0.5, -0.0]))
    assert_array_equal(groups.weight, [3.0, 1.0])
    rows = Ties(np.array([[0.0, 1.0], [-0.0, 1.0]]))
    assert_array_equal(rows.weight, [2.0])


def test_drop_zero_weight():
    """Check that rows of zero weight are dropped and nothing else changes."""
    a = np.arange(4.0)
    w, b = drop_zero_weight(None, a)
    assert w is None and b is a
    w, b = drop_zero_weight(np.ones(4), a)
    assert b is a
    w, b, c = drop_zero_weight(np.array([1.0, 0.0, 2.0, 0.0]), a, a * 2)
    assert_array_equal(w, [1.0, 2.0])
    assert_array_equal(b, [0.0, 2.0])
    assert_array_equal(c, [0.0, 4.0])


def test_ties_sorted_view():
    """Check order, sorted values, ends, sorted weights and the total weight."""
    p = np.array([0.5, 0.1, 0.5, 0.9, 0.1])
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    ties = Ties(p, w)
    assert_array_equal(ties.sorted, np.sort(p))
    assert_array_equal(p[ties.order], ties.sorted)
    assert_array_equal(ties.values, [0.1, 0.5, 0.9])
    assert_array_equal(ties.sorted[ties.ends], ties.values)
    assert ties.ends[-1] == 4
    assert_array_equal(ties.w_sorted, w[ties.order])
    assert ties.total_weight == 15.0
    assert_array_equal(ties.weight, [7.0, 4.0, 4.0])
    assert Ties(p).total_weight == 5.0
    assert_array_equal(Ties(p).weight, [2.0, 2.0, 1.0])


@pytest.mark.parametrize("scale", [1e-300, 1e-154, 1.0, 1e154, 1e300])
def test_normalized_weights_and_effective_size_at_every_scale(scale):
    """Check the exact power-of-two scaling and Kish's size at every scale."""
    w = np.array([1.0, 2.0, 0.0, 4.0]) * scale
    normalized = normalized_weights(w)
    assert 1.0 <= normalized.max() < 2.0
    factor = power_of_two_scale(w)
    assert np.frexp(factor)[0] == 0.5  # a power of two
    assert_array_equal(normalized * factor, w)  # exact
    assert_allclose(normalized / normalized.max(), [0.25, 0.5, 0.0, 1.0], rtol=1e-15)
    assert_allclose(effective_size(w, 4), 49.0 / 21.0, rtol=1e-14)
    assert normalized_weights(None) is None
    ones = np.ones(3)
    assert normalized_weights(ones) is ones
    assert effective_size(None, 7) == 7.0
    assert power_of_two_scale(np.zeros(3)) == 1.0


@pytest.mark.parametrize("weighted", [False, True])
def test_presorted_ties_are_the_ties_of_the_sorted_rows(global_random_seed, weighted):
    """Check Ties of sorted predictions (no order) against a sort of shuffled ones."""
    rng = np.random.RandomState(global_random_seed)
    p = np.sort(rng.choice([0.1, 0.4, 0.4, 0.7, 0.9], size=40))
    w = rng.uniform(0.5, 2.0, size=40) if weighted else None
    values = rng.uniform(size=40)
    presorted = Ties(p, w, presorted=True)
    assert presorted.order is None
    shuffle = rng.permutation(40)
    ties = Ties(p[shuffle], None if w is None else w[shuffle])
    assert_array_equal(presorted.sorted, ties.sorted)
    assert_array_equal(presorted.ends, ties.ends)
    assert_allclose(presorted.weight, ties.weight)
    assert_allclose(presorted.sum(values), ties.sum(values[shuffle]))
    assert_array_equal(presorted.inverse, ties.inverse[np.argsort(shuffle)])
    assert presorted.n_alone == ties.n_alone and presorted.n_samples == 40
