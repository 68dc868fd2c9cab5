"""Tests of skcal._utils._bootstrap: resampling atoms, percentiles and intervals."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal

from skcal._utils._bootstrap import Atoms


def test_atoms_resample_is_a_bootstrap(global_random_seed):
    """Check that atom totals have the moments of a bootstrap of the rows."""
    rng = np.random.RandomState(global_random_seed)
    key = rng.randint(0, 5, size=200)
    weights = rng.choice([0.5, 2.0], size=200)
    atoms = Atoms(key, weights)
    draws = np.array([atoms.resample(rng) for _ in range(2000)])
    assert_allclose(draws.sum(axis=1).mean(), weights.sum(), rtol=0.02)
    # The total of each atom is weight * Binomial(n, rows / n).
    n_rows = atoms.n_rows
    assert_allclose(draws.mean(axis=0), atoms.weight * n_rows, rtol=0.1)
    variance = atoms.weight**2 * n_rows * (1 - n_rows / 200)
    assert_allclose(draws.var(axis=0), variance, rtol=0.25)
    # Drawing rows (many atoms) and multinomial counts (few) agree in law.
    many = Atoms(np.arange(200), weights)
    draws_rows = np.array([many.resample(rng) for _ in range(2000)])
    assert_allclose(draws_rows.mean(axis=0).mean(), weights.mean(), rtol=0.05)
    assert_allclose(draws_rows.var(axis=0).mean(), np.mean(weights**2), rtol=0.1)


def test_atoms_group_rows_by_key_and_weight():
    """Check the atoms of keys and weights: sorted, with their rows and means."""
    key = np.array([3, 1, 3, 1, 0, 3])
    atoms = Atoms(key, None)
    assert_array_equal(atoms.key, [0, 1, 3])
    assert_array_equal(atoms.n_rows, [1, 2, 3])
    assert_array_equal(atoms.inverse, [2, 1, 2, 1, 0, 2])
    assert_allclose(atoms.mean(np.arange(6.0)), [4.0, 2.0, 7.0 / 3.0])
    weighted = Atoms(key, np.array([1.0, 2.0, 1.0, 2.0, 1.0, 5.0]))
    assert_array_equal(weighted.key, [0, 1, 3, 3])
    assert_array_equal(weighted.weight, [1.0, 2.0, 1.0, 5.0])
    assert_array_equal(weighted.n_rows, [1, 2, 2, 1])
