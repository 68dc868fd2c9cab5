"""Tests of skcal._utils._bootstrap: resampling atoms, percentiles and intervals."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from skcal._utils import _bootstrap
from skcal._utils._bootstrap import (
    Atoms,
    Chunk,
    Draws,
    RowCounts,
    SortedView,
    _bernoulli_thresholds,
    random_bits,
    segment_sums,
)


def _whole(draws):
    """All rows of a batch as one chunk, of its gathered draws."""
    return Chunk(draws, 0, draws.n_samples, draws.counts, draws.bits)


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


@pytest.mark.parametrize("block", [4, 10, 64])
def test_blocked_counts_are_a_multinomial_of_the_rows(block):
    """Check that counts drawn block by block have the law of drawing all rows.

    Each count is Binomial(n, 1/n) and two counts have covariance -1/n,
    within a block and across blocks (blocks of 4 cut 10 rows into three).
    """
    n, n_draws = 10, 20000
    generator = np.random.default_rng(0)
    draws = RowCounts(generator, n, n_draws, block).fill(0, n, np.empty((n_draws, n)))
    assert_array_equal(draws.sum(axis=1), n)
    covariance = np.cov(draws, rowvar=False)
    expected = np.full((n, n), -1.0 / n)
    np.fill_diagonal(expected, 1.0 - 1.0 / n)
    assert_allclose(draws.mean(axis=0), 1.0, atol=0.03)
    assert_allclose(covariance, expected, atol=0.04)
    # Every row's count against the binomial pmf (counts of 4 or more pooled).
    observed = np.bincount(np.minimum(draws.ravel(), 4).astype(int), minlength=5)
    pmf = stats.binom.pmf(np.arange(4), n, 1.0 / n)
    expected_counts = draws.size * np.append(pmf, 1.0 - pmf.sum())
    assert stats.chisquare(observed, expected_counts).pvalue > 1e-3


@pytest.mark.parametrize("shape", [(3, 7), (2, 20001)])
def test_random_bits_are_uniform_32_bit_integers(shape):
    """Check every bit of the drawn integers, odd sizes included (a half word)."""
    generator = np.random.default_rng(0)
    bits = np.array(
        [random_bits(generator, np.empty(shape, dtype=np.uint32)) for _ in range(300)]
    )
    # Bit j of each integer is bit j % 8 of its byte j // 8, little-endian.
    little = bits.astype("<u4", copy=False).view(np.uint8)
    ones = np.unpackbits(little, bitorder="little")
    frequency = ones.reshape(-1, 32).mean(axis=0)
    spread = 5 * np.sqrt(0.25 / bits.size)
    assert_allclose(frequency, 0.5, atol=spread)
    # Consecutive values come from distinct halves of the words, not copies.
    assert np.mean(bits.ravel()[1:] == bits.ravel()[:-1]) < 1e-3


def test_outcomes_are_uniforms_below_the_predictions():
    """Check that outcomes from the bits equal ``uniforms < p``, 0 and 1 included.

    Predictions within 2**-32 of 1 are always outcomes, those of 0 never;
    the rest have probability ceil(p * 2**32) / 2**32.
    """
    p = np.array([0.0, 2.0**-33, 2.0**-32, 0.3, 0.5, 1 - 2.0**-32, 1 - 2.0**-33, 1.0])
    view = SortedView(np.zeros(p.shape[0], dtype=np.uint8), p, None)
    draws = Draws(np.random.default_rng(0), p.shape[0], 4000)
    outcomes = view.outcomes(_whole(draws))
    assert_array_equal(outcomes, draws.uniforms < view.p)
    assert not outcomes[:, view.p == 0].any()
    assert outcomes[:, view.p >= 1 - 2.0**-33].all()
    assert_allclose(outcomes.mean(axis=0)[3:5], [0.3, 0.5], atol=0.03)
    # The largest uniform, 1 - 2**-32, is below the last two predictions
    # only: the threshold 2**32 - 1 alone would miss them.
    draws.bits[0] = 2**32 - 1
    del draws.uniforms
    assert_array_equal(view.outcomes(_whole(draws))[0], draws.uniforms[0] < view.p)
    assert_array_equal(view.outcomes(_whole(draws))[0], [0, 0, 0, 0, 0, 0, 1, 1])
    # Thresholds computed in blocks of 3 rows are those of one block.
    blocked, sure = _bernoulli_thresholds(view.p, block=3)
    assert_array_equal(blocked, _bernoulli_thresholds(view.p)[0])
    assert_array_equal(sure, [6, 7])


@pytest.mark.parametrize("long_segment", [1, 10**9])
def test_segment_sums_count_each_segment(global_random_seed, long_segment):
    """Check both ways of counting a segment's outcomes against a loop.

    Segments of one row, of many, and a last one to the end; counted one
    by one (``long_segment`` 1) or by summed bytes (a huge one).
    """
    rng = np.random.RandomState(global_random_seed)
    outcomes = rng.uniform(size=(3, 50)) < 0.4
    starts = np.array([0, 1, 2, 10, 11, 37])
    expected = [
        [row[a:b].sum() for a, b in zip(starts, [*starts[1:], 50], strict=True)]
        for row in outcomes
    ]
    counts = segment_sums(outcomes, starts, long_segment=long_segment)
    assert counts.dtype == np.int64
    assert_array_equal(counts, expected)


@pytest.mark.parametrize("weighted", [False, True])
def test_outcomes_summed_by_segment_chunk_by_chunk(
    global_random_seed, weighted, monkeypatch
):
    """Check each segment's sum of (weight times) outcome, whole and by chunks.

    Chunks of 8 rows: segments that start inside a chunk, span several, or
    end at the last row; the chunks' outcomes are those of the whole rows.
    """
    rng = np.random.RandomState(global_random_seed)
    p, w = rng.uniform(size=50), rng.uniform(0.0, 2.0, size=50)
    view = SortedView(np.zeros(50, dtype=np.uint8), p, w if weighted else None)
    monkeypatch.setattr(_bootstrap, "_CHUNK_VALUES", 1)
    draws = Draws(np.random.default_rng(global_random_seed), 50, 3, block=8)
    outcomes = view.weighted_outcomes(_whole(draws))
    weight = view.weight if weighted else 1.0
    assert_array_equal(outcomes, view.outcomes(_whole(draws)) * weight)
    starts = np.array([0, 1, 2, 10, 11, 37])
    expected = [
        [row[a:b].sum() for a, b in zip(starts, [*starts[1:], 50], strict=True)]
        for row in outcomes
    ]
    sums = segment_sums(outcomes, starts)
    assert sums.dtype == (np.float64 if weighted else np.int64)
    assert_allclose(sums, expected, rtol=1e-12)
    chunked = np.zeros((3, starts.shape[0]))
    chunks = list(draws.chunks(counts=False))
    assert [(c.start, c.stop) for c in chunks] == [
        (a, min(a + 8, 50)) for a in range(0, 50, 8)
    ]
    for chunk in chunks:
        _bootstrap.add_segment_sums(
            chunked, view.weighted_outcomes(chunk), starts, chunk
        )
    assert_allclose(chunked, expected, rtol=1e-12)


def test_chunks_are_the_gathered_draws(global_random_seed, monkeypatch):
    """Check that the draws drawn chunk by chunk are the gathered ones.

    Drawn afresh at each pass, with or without the other kind, in chunks of
    whole count blocks; and multinomial in each resample.
    """
    monkeypatch.setattr(_bootstrap, "_CHUNK_VALUES", 1)
    n, size = 103, 5
    draws = Draws(np.random.default_rng(global_random_seed), n, size, block=16)
    passes = [
        [(c.start, c.counts.copy(), c.bits.copy()) for c in draws.chunks()],
        [(c.start, c.counts.copy(), None) for c in draws.chunks(bits=False)],
    ]
    fresh = Draws(np.random.default_rng(global_random_seed), n, size, block=16)
    counts, bits = fresh.counts, fresh.bits
    assert_array_equal(counts.sum(axis=1), n)
    for chunks in passes:
        assert [start for start, _, _ in chunks] == list(range(0, n, 16))
        assert_array_equal(np.hstack([c for _, c, _ in chunks]), counts)
    assert_array_equal(np.hstack([b for _, _, b in passes[0]]), bits)
    # Once gathered, the chunks are views of the gathered arrays.
    counts[0, :] = 0.0
    assert not any(c.counts[0].any() for c in fresh.chunks())


def test_sorted_views_are_shared_within_sharing_views(global_random_seed):
    """Check that the same rows get one sorted view while views are shared.

    The same arrays share a view; copies of them (the rows of another
    validation), other weights or outcomes do not; outside the block every
    call sorts anew. The view's outcomes of a chunk are drawn once for its
    statistics.
    """
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < p).astype(np.uint8)
    w = rng.uniform(size=300)
    with _bootstrap.sharing_views():
        view = _bootstrap.sorted_view(y, p, None)
        assert _bootstrap.sorted_view(y, p, None) is view
        assert _bootstrap.sorted_view(y.copy(), p.copy(), None) is not view
        assert _bootstrap.sorted_view(y, p, w) is not view
        assert _bootstrap.sorted_view(1 - y, p, None) is not view
        assert _bootstrap.sorted_view(y, p[::-1].copy(), None) is not view
    assert _bootstrap.sorted_view(y, p, None) is not view
    assert_array_equal(view.p, np.sort(p))
    draws = Draws(np.random.default_rng(global_random_seed), 300, 4)
    (chunk,) = draws.chunks(counts=False)
    assert view.outcomes(chunk) is view.outcomes(chunk)
    assert_array_equal(view.outcomes(chunk), draws.uniforms < view.p)


def test_a_smaller_last_batch_keeps_the_chunks_of_the_full_ones(monkeypatch):
    """Check that a last batch of fewer draws reads chunks of the same rows.

    Batches of 4 draws of 50,000 rows in chunks of 16,384 rows; the last
    batch has 2 draws, whose own chunks would be all 50,000 rows, more than
    the threads' buffers hold. Its resamples are those of a batch drawn in
    the full batches' chunks.
    """
    from skcal._utils._progress import Progress
    from skcal.metrics._interval import _RowLossReplicates

    monkeypatch.setattr(_bootstrap, "_CHUNK_VALUES", 4 * _bootstrap.COUNT_BLOCK)
    monkeypatch.setattr(_bootstrap, "batch_size", lambda n_samples: 4)
    n = 50_000
    losses = np.random.RandomState(0).uniform(size=n)
    statistic = _RowLossReplicates(losses, None)
    seed = np.random.SeedSequence(0)
    with Progress(1, "", False) as progress:
        ((resampled, _),) = _bootstrap.draw_replicates(
            [(statistic.resampling, None)], n, 6, seed, progress
        )
    assert [values.shape[0] for values in resampled] == [4, 2]
    last = np.random.default_rng(np.random.SeedSequence(0).spawn(2)[1])
    buffers = _bootstrap._ThreadBuffers(4, _bootstrap.COUNT_BLOCK)
    draws = Draws(last, n, 2, buffers)
    assert draws.width == _bootstrap.COUNT_BLOCK
    assert_allclose(resampled[1], draws.counts @ losses / n, rtol=1e-12)
