"""Bootstrap resampling and intervals, for the measures, the curves and the report.

Resamples draw the rows with replacement (``n`` draws), as multinomial counts
that multiply the sample weights. :class:`Atoms` draws the counts of groups
of exchangeable rows instead of the rows, which makes a resample O(groups).
:class:`NullLabels` draws labels from the predictions themselves: the data a
perfectly calibrated model with these predictions would give.

The rules that turn draws into intervals live here, once: a calibration
error's interval (:func:`calibration_error_interval`) and a proper score's
(:func:`score_interval`); :func:`skcal.metrics.confidence_interval` documents
them and the coverage measured by simulation.
"""

# SPDX-License-Identifier: BSD-3-Clause

import contextlib
import contextvars
import itertools
import math
import threading
from functools import cached_property

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from threadpoolctl import threadpool_limits

from skcal._reduction import binary_views

# The number of resamples of every interval, band and test, unless a caller
# asks for another: percentiles at 2.5% and 97.5% of 1000 draws move by
# less than a tenth of the statistic's spread from one seed to the next.
N_BOOTSTRAP = 1000

# Rows whose counts are drawn together (see :class:`RowCounts`):
# 16384 float64 counts (128 KiB) stay in a core's cache while they are added.
# A power of two, so that a row of a block is 14 random bits.
COUNT_BLOCK = 16384

# Values of a chunk of a batch's draws (8 MiB of float64 counts), which the
# batch's statistics read in turn: the draws need no array of the data's size
# (at ten million rows a thread drew 80 MB of counts, 40 MB of bits and as
# much again of temporaries per batch), at the same speed. Not smaller: in
# 2 MiB chunks, two threads drawing the report's resamples of a million rows
# took 15-25% longer (more, shorter numpy calls pass the GIL back and forth).
_CHUNK_VALUES = 1 << 20

# Random 64-bit words drawn at once (256 KiB): small enough that drawing them
# takes no fresh pages from the system once the allocator has reused the first
# chunk, and long enough that threads drawing batches at once do not queue
# for the GIL between chunks (with 64 KiB, two threads drew a million values
# more slowly than one; 100 resamples of the report's measures at a million
# rows took 1.75 s instead of 1.98 s on two threads).
_WORDS = 32768

# Uniforms are drawn as 32-bit integers: u = bits / 2**32.
_UNIFORM_SCALE = 2.0**32

# Rows per segment from which :func:`segment_sums` counts each segment on its
# own (one call per segment and draw) instead of summing bytes.
_LONG_SEGMENT = 2048


def _quantiles(draws, levels):
    """Quantiles of the finite draws (NaN when there are none)."""
    finite = draws[np.isfinite(draws)]
    if not finite.size:
        return [math.nan] * len(levels)
    return [float(q) for q in np.quantile(finite, levels)]


def _widened(low, high, draws):
    """``(low, high)``, or the range of the draws if that is empty while they differ.

    Percentiles of draws that nearly all coincide can coincide too; the
    interval is then the range of the draws rather than a point.
    """
    finite = draws[np.isfinite(draws)]
    if low == high and finite.size and finite.min() < finite.max():
        return min(low, float(finite.min())), max(high, float(finite.max()))
    return low, high


def score_interval(estimate, draws, confidence_level):
    """Percentile interval of a proper score (a mean of per-row losses).

    The ``(1 - confidence_level) / 2`` and ``(1 + confidence_level) / 2``
    quantiles of the resampled values, stretched to contain the estimate.

    Returns
    -------
    low, high : float
        NaN when no resample has a finite value.
    """
    tail = 0.5 * (1.0 - confidence_level)
    low, high = _quantiles(draws, [tail, 1.0 - tail])
    if math.isnan(low):
        return low, high
    return _widened(min(low, estimate), max(high, estimate), draws)


def calibration_error_interval(estimate, draws, null_draws, confidence_level):
    r"""Interval of a calibration error, from resamples and from calibrated draws.

    With :math:`T` the estimate, :math:`q^*_a` the :math:`a` quantile of the
    bootstrap draws and :math:`q^0_a` that of the null draws (the measure on
    labels drawn from the predictions, i.e. if the model were calibrated),
    and :math:`a = (1 + \text{level}) / 2`:

    .. math::

        \Big[\max\big(0, \min(T - q^0_a,\ 2T - q^*_a,\ q^*_{1-a})\big),\
        \max(q^*_a, T)\Big].

    A calibration error is a norm of the mean residual (a supremum of
    weighted residual means), so the estimate exceeds the population value
    by at most the norm of the noise, whose distribution the null draws
    give: :math:`T - q^0_a` is a lower bound wherever the model is, and it
    is 0 exactly when the calibration test at level :math:`1 - a` does not
    reject. The basic bootstrap bound :math:`2T - q^*_a` covers measures
    that are not norms (squared errors) far from calibration, and
    :math:`q^*_{1-a}` keeps the bound below the resampled values. The upper
    end is the bootstrap percentile: resampling inflates an upward-biased
    estimate further, so it lies above the estimate.

    Returns
    -------
    low, high : float
        NaN when no resample has a finite value.
    """
    tail = 0.5 * (1.0 - confidence_level)
    low_star, high_star = _quantiles(draws, [tail, 1.0 - tail])
    (high_null,) = _quantiles(null_draws, [1.0 - tail])
    if math.isnan(low_star) or math.isnan(high_null):
        return math.nan, math.nan
    low = max(0.0, min(estimate - high_null, 2.0 * estimate - high_star, low_star))
    return _widened(low, max(high_star, estimate), draws)


def random_bits(generator, out):
    """Fill a uint32 array with independent uniform 32-bit integers.

    The bit generator's raw words, two values per word, drawn
    :data:`_WORDS` at a time: a quarter of the cost of ``Generator.random``
    (float64), and without an array of the whole size.

    Returns
    -------
    out : ndarray of uint32
    """
    flat = out.reshape(-1)
    n_words = flat.shape[0] // 2
    words = flat[: 2 * n_words].view(np.uint64)
    for start in range(0, n_words, _WORDS):
        stop = min(start + _WORDS, n_words)
        words[start:stop] = generator.bit_generator.random_raw(stop - start)
    if flat.shape[0] % 2:
        flat[-1] = generator.bit_generator.random_raw() & 0xFFFFFFFF
    return out


def _block_rows(generator, block, size):
    """``size`` rows drawn uniformly from ``range(block)``.

    For a power of two up to 2**16, each row is the low bits of 16 random
    bits (a quarter of a raw word), as uint16; otherwise
    ``Generator.integers``.
    """
    if block & (block - 1) or block > 1 << 16:
        return generator.integers(0, block, size=size)
    rows = np.empty(-(-size // 4) * 4, dtype=np.uint16)
    random_bits(generator, rows.view(np.uint32))
    return np.bitwise_and(rows[:size], np.uint16(block - 1), out=rows[:size])


class RowCounts:
    """The row counts of bootstrap resamples, drawn a chunk of rows at a time.

    A resample's counts are multinomial with ``n_samples`` trials and equal
    probabilities. Drawing the rows and counting them is ten times faster
    than ``Generator.multinomial``, but scatters its increments over the
    whole count array, which outgrows the cache at a million rows. So the
    rows are split into blocks of ``block``: the number of draws that fall
    in each block is drawn first, for all blocks (multinomial over the
    blocks, in proportion to their rows), then each block's draws are
    counted on their own, when :meth:`fill` asks for its rows, while its
    counts are in the cache (``np.add.at``, in place into the float64
    counts, without an integer array to convert). Given the block totals,
    the counts within a block are multinomial with equal probabilities, so
    the joint distribution is exactly that of drawing all rows at once.

    Parameters
    ----------
    generator : numpy.random.Generator
        The source of randomness.
    n_samples : int
        The number of rows, and of draws per resample.
    size : int
        The number of resamples.
    block : int, default=COUNT_BLOCK
        Rows per block.

    Examples
    --------
    >>> import numpy as np
    >>> counts = RowCounts(np.random.default_rng(0), 10, 3, 4).fill(
    ...     0, 10, np.empty((3, 10)))
    >>> counts.sum(axis=1).tolist(), bool((counts >= 0).all())
    ([10.0, 10.0, 10.0], True)
    """

    def __init__(self, generator, n_samples, size, block=COUNT_BLOCK):
        self.generator, self.block = generator, block
        n_full, rest = divmod(n_samples, block)
        self.lengths = [block] * n_full + ([rest] if rest else [])
        if len(self.lengths) == 1:
            self.totals = np.full((size, 1), n_samples)
        else:
            shares = np.array(self.lengths) / n_samples
            self.totals = generator.multinomial(n_samples, shares, size=size)
        # A block's rows as intp, which np.add.at indexes with fastest.
        self.index = np.empty(int(self.totals.max()), dtype=np.intp)

    def fill(self, start, stop, out):
        """Write the counts of rows ``start:stop`` of each resample into ``out``.

        ``start`` and ``stop`` are block boundaries (or ``n_samples``);
        successive calls must ask for successive rows.
        """
        block, index = self.block, self.index
        if len(self.lengths) == 1 and out.flags.c_contiguous:
            # Fewer rows than a block: every resample draws all of them, and
            # the rows of the whole batch are drawn and counted at once (the
            # same draws as one resample after another).
            rows = self.generator.integers(0, self.lengths[0], size=out.shape)
            rows += np.arange(0, out.size, self.lengths[0])[:, None]
            out[:] = 0.0
            np.add.at(out.reshape(-1), rows.reshape(-1), 1.0)
            return out
        first, last = start // block, -(-stop // block)
        lengths = self.lengths[first:last]
        # The blocks of the whole length draw their rows together, then cut
        # them at the block totals; the short last block draws its own.
        n_whole = sum(length == block for length in lengths)
        block_totals = self.totals[:, first:last].tolist()
        for counts, totals in zip(out, block_totals, strict=True):
            if n_whole:
                rows = _block_rows(self.generator, block, sum(totals[:n_whole]))
            end = 0
            for k, (length, total) in enumerate(zip(lengths, totals, strict=True)):
                segment = counts[k * block : k * block + length]
                segment[:] = 0.0  # just before the adds, which find it in the cache
                if k < n_whole:
                    index[:total] = rows[end : end + total]
                    np.add.at(segment, index[:total], 1.0)
                    end += total
                else:  # intp already
                    rows = self.generator.integers(0, length, size=total)
                    np.add.at(segment, rows, 1.0)
        return out


def seed_of(rng):
    """A :class:`numpy.random.SeedSequence` drawn from a ``RandomState``.

    The draws of the intervals come from Generators (their integers and
    uniforms cost 60% of ``RandomState``'s), one per batch of replicates,
    spawned from this seed: seeding it from the caller's ``random_state``
    keeps results reproducible, and the same whatever the number of
    threads that draw the batches.
    """
    return np.random.SeedSequence(rng.randint(0, 2**32, size=4, dtype=np.uint64))


def chunk_rows(n_samples, size, block=COUNT_BLOCK):
    """Rows per chunk of a batch of ``size`` draws: whole count blocks, about
    :data:`_CHUNK_VALUES` values.

    All rows when that would make fewer than three chunks: the draws of a
    few tens of thousands of rows are in the shared cache already, and two
    chunks would double the statistics' calls (20,000 rows: 1.55 ms a
    replicate of the report's measures in chunks of 16,384 rows, 1.35 ms
    in one).
    """
    rows = max(1, _CHUNK_VALUES // (size * block)) * block
    return rows if 3 * rows <= n_samples else n_samples


def positions_within(positions, start, stop):
    """The sorted ``positions`` in ``start:stop``, counted from ``start``."""
    first, last = np.searchsorted(positions, [start, stop]).tolist()
    return positions[first:last] - start


class Chunk:
    """The draws of one chunk of rows of a :class:`Draws` batch.

    Attributes
    ----------
    start, stop : int
        The rows, ``start:stop``, in the order a statistic applies them in.
    counts : ndarray of shape (size, stop - start) or None
        The rows' counts in each resample (float64).
    bits : ndarray of shape (size, stop - start) or None
        Uniform 32-bit integers (uint32), from which calibrated outcomes
        are drawn (:meth:`SortedView.outcomes`).
    """

    def __init__(self, draws, start, stop, counts, bits):
        self.draws, self.start, self.stop = draws, start, stop
        self.counts, self.bits = counts, bits
        self.size = draws.size
        # The outcomes drawn for each SortedView, by id: the statistics of a
        # view share them (see SortedView.outcomes).
        self.outcomes = {}

    def scratch(self, name, dtype=np.float64):
        """A ``(size, stop - start)`` array for a statistic's temporaries."""
        return self.draws.scratch(name, dtype, self.stop - self.start)

    def ends_within(self, ends):
        """The sorted positions ``ends`` inside the chunk, from its start."""
        return positions_within(ends, self.start, self.stop)


class Draws:
    """One batch of random draws, shared by the replicates of every measure.

    Both kinds are drawn a chunk of rows at a time (:meth:`chunks`), so
    that the statistics of a batch read each chunk while it is in the
    cache: each measure of a report, whose intervals each use only their
    own measure's replicates (so that the dependence between measures does
    not matter). Rows are exchangeable under both, so a measure may apply
    them to its rows in any fixed order, e.g. sorted by prediction. The two
    kinds come from two streams of the batch's Generator, so that each is
    the same whatever else is drawn, and every pass over the chunks gives
    the same draws.

    Parameters
    ----------
    generator : numpy.random.Generator
        The source of randomness.
    n_samples : int
        Rows per replicate.
    size : int
        Replicates in the batch.
    buffers : _ThreadBuffers, default=None
        Arrays to draw chunks into, reused from batch to batch; new arrays
        if None.
    block : int, default=COUNT_BLOCK
        Rows per block of the counts (:class:`RowCounts`); a chunk is whole
        blocks.

    Attributes
    ----------
    counts : ndarray of shape (size, n_samples)
        How often each row is drawn in each bootstrap resample: the counts
        of ``n_samples`` rows drawn uniformly with replacement (multinomial,
        :class:`RowCounts`), as float64; the chunks' counts, gathered.
    bits : ndarray of shape (size, n_samples)
        The chunks' uniform 32-bit integers (uint32), gathered.
    uniforms : ndarray of shape (size, n_samples)
        The same draws as uniforms on [0, 1): ``bits / 2**32`` (float64),
        so that ``uniforms < p`` is an outcome with probability
        ``ceil(p * 2**32) / 2**32``, within 2**-32 of ``p``.
    """

    def __init__(self, generator, n_samples, size, buffers=None, block=COUNT_BLOCK):
        self.n_samples, self.size, self.buffers = n_samples, size, buffers
        # The seeds of the two streams (those of ``generator.spawn(2)``),
        # from which each pass starts a Generator afresh.
        bit_generator = generator.bit_generator
        self._sources = [
            (type(bit_generator), seed) for seed in bit_generator.seed_seq.spawn(2)
        ]
        self.block = block
        # The chunks of a smaller last batch have the rows of the full
        # batches' chunks, which the buffers hold.
        self.width = (
            chunk_rows(n_samples, size, block) if buffers is None else buffers.rows
        )

    def scratch(self, name, dtype, width):
        """A C-contiguous ``(size, width)`` array for ``name``, from
        ``buffers`` if given (``width`` at most the rows of a chunk).

        The draws of a chunk are written into such arrays, and so are the
        temporaries of a statistic (which must not keep them): the thread's
        next chunk reuses them.
        """
        if self.buffers is None:
            return np.empty((self.size, width), dtype=dtype)
        return self.buffers.get(name, dtype)[: self.size * width].reshape(
            self.size, width
        )

    def chunks(self, counts=True, bits=True):
        """The draws a chunk of rows at a time (:class:`Chunk`), in order.

        Only the kinds asked for are drawn. Once :attr:`counts` or
        :attr:`bits` are gathered, the chunks are views of them.
        """
        if "counts" in self.__dict__ or "bits" in self.__dict__:
            for start, stop in self._spans():
                yield Chunk(
                    self,
                    start,
                    stop,
                    self.counts[:, start:stop] if counts else None,
                    self.bits[:, start:stop] if bits else None,
                )
            return
        yield from self._drawn(counts, bits)

    def _drawn(self, counts, bits):
        """The chunks drawn afresh, from the streams' first draws."""
        count_source, bit_source = (
            np.random.Generator(kind(seed)) for kind, seed in self._sources
        )
        rows = None
        if counts:
            rows = RowCounts(count_source, self.n_samples, self.size, self.block)
        for start, stop in self._spans():
            chunk = Chunk(self, start, stop, None, None)
            if counts:
                chunk.counts = rows.fill(start, stop, chunk.scratch("counts"))
            if bits:
                chunk.bits = random_bits(bit_source, chunk.scratch("bits", np.uint32))
            yield chunk

    def _spans(self):
        """``(start, stop)`` of the rows of each chunk, in order."""
        for start in range(0, self.n_samples, self.width):
            yield start, min(start + self.width, self.n_samples)

    def _gathered(self, kind, dtype):
        whole = np.empty((self.size, self.n_samples), dtype=dtype)
        for chunk in self._drawn(kind == "counts", kind == "bits"):
            whole[:, chunk.start : chunk.stop] = getattr(chunk, kind)
        return whole

    @cached_property
    def counts(self):
        return self._gathered("counts", np.float64)

    @cached_property
    def bits(self):
        return self._gathered("bits", np.uint32)

    @cached_property
    def uniforms(self):
        return as_uniforms(self.bits)


def as_uniforms(bits):
    """Uniform 32-bit integers as uniforms on [0, 1): ``bits / 2**32``."""
    return np.multiply(bits, 1.0 / _UNIFORM_SCALE)


class ResampledTotals:
    """The total weight of each bootstrap resample of a batch, chunk by chunk.

    Unweighted, every resample's total is ``n_samples`` (its counts add up
    to it); weighted, :meth:`add` sums each chunk's counts times the
    weights of its rows (``weight`` in the order the chunks apply to).

    Attributes
    ----------
    values : ndarray of shape (size,)
        The totals of the chunks added so far.
    """

    def __init__(self, draws, weight):
        self.weight = weight
        self.values = np.full(
            draws.size, 0.0 if weight is not None else float(draws.n_samples)
        )

    def add(self, chunk):
        if self.weight is not None:
            self.values += chunk.counts @ self.weight[chunk.start : chunk.stop]

    def per_weight(self, sums):
        """``sums`` of the resamples divided by their totals; NaN for a
        resample that drew only rows of zero weight."""
        with np.errstate(invalid="ignore", divide="ignore"):
            values = sums / self.values
        values[~(self.values > 0)] = np.nan
        return values


class _ThreadBuffers:
    """Arrays reused, per thread, by the chunks of the batches it draws.

    A chunk's draws are arrays of up to :data:`_CHUNK_VALUES` values (more
    with many draws of few rows): allocating them afresh for every chunk
    costs page faults. Each thread keeps its own, for the duration of one
    :func:`draw_replicates`; the statistics must not keep references to
    them.

    Parameters
    ----------
    size : int
        The most draws of a batch.
    rows : int
        The rows of a chunk (:func:`chunk_rows` of the full batches), which
        every batch's chunks have.
    """

    def __init__(self, size, rows):
        self.rows, self.n_values = rows, size * rows
        self.local = threading.local()

    def get(self, name, dtype=np.float64):
        arrays = self.local.__dict__.setdefault("arrays", {})
        if name not in arrays:
            arrays[name] = np.empty(self.n_values, dtype=dtype)
        return arrays[name]


def batch_size(n_samples, max_values=4_000_000):
    """Replicates drawn together: at most ``max_values`` row values at once."""
    return max(1, min(100, max_values // max(n_samples, 1)))


class Replicates:
    """A statistic evaluated on the draws of a batch, chunk by chunk.

    Subclasses define ``resampling(draws)`` and, for a calibration error,
    ``relabeling(draws)``: each returns an accumulator, an object with
    ``add(chunk)``, called with each :class:`Chunk` of the batch in order,
    and ``result()``, the statistic of each draw of the batch.
    :func:`draw_replicates` feeds the accumulators of all the statistics
    of the same rows each chunk in turn.
    """


class Gathered:
    """An accumulator that gathers a batch's draws of one kind whole.

    For a statistic that needs every row of a draw at once: ``function``
    is called with the :class:`WholeDraws` of the batch.
    """

    def __init__(self, function, draws, kind):
        self.function, self.kind = function, kind
        dtype = np.float64 if kind == "counts" else np.uint32
        self.batch = WholeDraws(
            draws.size, **{kind: np.empty((draws.size, draws.n_samples), dtype=dtype)}
        )

    def add(self, chunk):
        getattr(self.batch, self.kind)[:, chunk.start : chunk.stop] = getattr(
            chunk, self.kind
        )

    def result(self):
        return self.function(self.batch)


class WholeDraws:
    """A batch's draws of one kind, every row at once (see :class:`Draws`).

    Attributes
    ----------
    size : int
        Replicates in the batch.
    counts : ndarray of shape (size, n_samples) or None
        The resamples' counts of the rows.
    bits : ndarray of shape (size, n_samples) or None
        Uniform 32-bit integers.
    uniforms : ndarray of shape (size, n_samples)
        The bits as uniforms on [0, 1) (:func:`as_uniforms`).
    """

    def __init__(self, size, counts=None, bits=None):
        self.size, self.counts, self.bits = size, counts, bits

    @cached_property
    def uniforms(self):
        return as_uniforms(self.bits)


def _batch_replicates(statistics, draws):
    """``[(resampled, relabeled or None), ...]`` of each statistic on one batch.

    Every statistic reads each chunk of the draws in turn, while it is in
    the cache.
    """
    accumulators = [
        (resampling(draws), None if relabeling is None else relabeling(draws))
        for resampling, relabeling in statistics
    ]
    relabel = any(relabeling is not None for _, relabeling in statistics)
    for chunk in draws.chunks(counts=True, bits=relabel):
        for resampled, relabeled in accumulators:
            resampled.add(chunk)
            if relabeled is not None:
                relabeled.add(chunk)
    return [
        (
            resampled.result(),
            None if relabeled is None else np.asarray(relabeled.result(), np.float64),
        )
        for resampled, relabeled in accumulators
    ]


def draw_replicates(statistics, n_samples, n_bootstrap, seed, progress, n_jobs=None):
    """Replicates of several statistics of the same rows, from shared draws.

    The replicates come in batches (:func:`batch_size`); each batch is one
    :class:`Draws`, from its own Generator spawned from ``seed``, shared by
    every statistic, and read a chunk of rows at a time. Batches are
    independent, so ``n_jobs`` threads draw them at once (numpy releases
    the GIL in the arithmetic), and the results do not depend on
    ``n_jobs``.

    Parameters
    ----------
    statistics : list of (callable, callable or None)
        ``(resampling, relabeling)`` per statistic (see :class:`Replicates`):
        ``resampling(draws)`` gives an accumulator of the statistic on the
        bootstrap resamples of a :class:`Draws` (whose result is an array,
        or a tuple of arrays, of length ``draws.size``) and
        ``relabeling(draws)`` one on outcomes drawn from the predictions
        (None for a proper score). Accumulators of several threads run at
        once (they only read what they share), and must not keep the
        chunks' arrays, which the thread's next chunk reuses.
    n_samples : int
        The number of rows.
    n_bootstrap : int
        The number of each kind of replicate.
    seed : numpy.random.SeedSequence
        The source of randomness (:func:`seed_of`).
    progress : Progress
        Counts one step per replicate.
    n_jobs : int or None, default=None
        Threads drawing batches at once: None means 1 unless in a
        :func:`joblib.parallel_config` context, -1 means all processors.

    Returns
    -------
    replicates : list of (list, ndarray or None)
        Per statistic, the results of its resampling accumulators, batch by
        batch, and the ``n_bootstrap`` calibrated draws (None without
        ``relabeling``).
    """
    batch = batch_size(n_samples)
    sizes = [min(batch, n_bootstrap - start) for start in range(0, n_bootstrap, batch)]
    steps = sum(1 if relabel is None else 2 for _, relabel in statistics)
    buffers = _ThreadBuffers(batch, chunk_rows(n_samples, batch))
    tasks = (
        delayed(_batch_replicates)(
            statistics, Draws(np.random.default_rng(child), n_samples, size, buffers)
        )
        for child, size in zip(seed.spawn(len(sizes)), sizes, strict=True)
    )
    resampled = [[] for _ in statistics]
    null = [[] for _ in statistics]
    # Threads drawing batches at once leave BLAS one thread each (its
    # products of a chunk's counts would otherwise start threads of their
    # own, more than the processors): 100 resamples of the report's
    # measures at a million rows, 2.65 s against 2.30 s on two threads.
    limits = (
        threadpool_limits(1, user_api="blas")
        if effective_n_jobs(n_jobs) > 1
        else contextlib.nullcontext()
    )
    with limits:
        batches = Parallel(n_jobs=n_jobs, require="sharedmem", return_as="generator")(
            tasks
        )
        for size, results in zip(sizes, batches, strict=True):
            for (values, null_values), kept, kept_null in zip(
                results, resampled, null, strict=True
            ):
                kept.append(values)
                kept_null.append(null_values)
            progress.update(steps * size)
    return [
        (kept, None if relabel is None else np.concatenate(kept_null))
        for (_, relabel), kept, kept_null in zip(
            statistics, resampled, null, strict=True
        )
    ]


class SortedView:
    """One binary view with its rows sorted by prediction, for replicates.

    Under :class:`Draws` the rows are exchangeable, so the replicates of a
    measure that works on sorted predictions (bins, cumulative sums, grid
    cells) apply the draws to the sorted rows directly: no sort and no
    gather per replicate.

    Parameters
    ----------
    y, p, sample_weight : ndarray of shape (n_samples,)
        0/1 outcomes (uint8), float64 predictions and weights (or None).
    order : ndarray of shape (n_samples,), default=None
        Another order of the rows (one that sorts ``p`` by groups, e.g.
        :attr:`Atoms.order`); by default the stable sort of ``p``.

    Attributes
    ----------
    order : ndarray of shape (n_samples,)
        The order of the rows; ``y``, ``p`` and ``weight`` are in that
        order.
    p : ndarray of shape (n_samples,) or None
        The sorted predictions. :meth:`outcomes` does not read them, so a
        measure that has prepared its arrays may drop them (set None) to
        hold less memory.
    total : float
        The total weight.
    """

    def __init__(self, y, p, sample_weight, order=None):
        self.order = np.argsort(p, kind="stable") if order is None else order
        self.p = p[self.order]
        self.y = y[self.order]
        self.weight = None if sample_weight is None else sample_weight[self.order]
        self.total = (
            float(p.shape[0]) if sample_weight is None else float(self.weight.sum())
        )
        self._thresholds, self._sure = _bernoulli_thresholds(self.p)

    def outcomes(self, chunk):
        """Outcomes drawn from the predictions of a chunk's rows (bool), one
        set per draw.

        Equal to ``uniforms < p``, from the chunk's 32-bit integers (half the
        bytes to read). Arithmetic with float64 arrays, and sums with
        ``dtype=np.float64``, use them without a float copy.
        """
        outcomes = chunk.outcomes.get(id(self))
        if outcomes is None:
            rows = slice(chunk.start, chunk.stop)
            outcomes = chunk.bits < self._thresholds[rows]
            outcomes[:, chunk.ends_within(self._sure)] = True
            # The view's other statistics read the same outcomes, unchanged.
            chunk.outcomes[id(self)] = outcomes
        return outcomes

    def weighted_outcomes(self, chunk):
        """The drawn outcomes of a chunk's rows times their weights.

        The boolean :meth:`outcomes` when unweighted; otherwise float64,
        written into the chunk's scratch array ``"weighted"`` (see
        :meth:`Chunk.scratch`).
        """
        outcomes = self.outcomes(chunk)
        if self.weight is None:
            return outcomes
        weight = self.weight[chunk.start : chunk.stop]
        return np.multiply(outcomes, weight, out=chunk.scratch("weighted"))


# The sorted views prepared so far, while measures share them (sharing_views).
_SHARED_VIEWS = contextvars.ContextVar("skcal_shared_views", default=None)


@contextlib.contextmanager
def sharing_views():
    """Within the block, :func:`sorted_view` of the same rows is one view.

    The measures of an interval sort their rows once between them: the
    binned error and the cutoff error of a view apply the draws to the
    same sorted rows, which also share each chunk's drawn outcomes.
    """
    token = _SHARED_VIEWS.set([])
    try:
        yield
    finally:
        _SHARED_VIEWS.reset(token)


def sorted_view(y, p, sample_weight):
    """The :class:`SortedView` of a view's rows, shared within
    :func:`sharing_views` with the views of the same arrays.

    The same arrays, not equal ones: the measures of an interval get their
    views from one validation of the data (see
    :func:`skcal.metrics._interval.measure_intervals`).
    """
    shared = _SHARED_VIEWS.get()
    for rows, view in shared or ():
        if all(a is b for a, b in zip(rows, (y, p, sample_weight), strict=True)):
            return view
    view = SortedView(y, p, sample_weight)
    if shared is not None:
        shared.append(((y, p, sample_weight), view))
    return view


def _bernoulli_thresholds(p, block=1 << 16):
    """``(thresholds, sure)`` of predictions, for outcomes drawn from 32 bits.

    For an integer ``b < 2**32``, ``b / 2**32 < p`` exactly when
    ``b < ceil(p * 2**32)``: the uint32 thresholds. That is 2**32 for ``p``
    within 2**-32 of 1, beyond uint32: those rows (``sure``) are always
    outcomes. Computed ``block`` rows at a time, without a float array of
    the data's size.
    """
    thresholds = np.empty(p.shape[0], dtype=np.uint32)
    scaled = np.empty(min(block, p.shape[0]))
    sure = []
    for start in range(0, p.shape[0], block):
        part = scaled[: min(block, p.shape[0] - start)]
        np.ceil(
            np.multiply(p[start : start + block], _UNIFORM_SCALE, out=part), out=part
        )
        sure.append(start + np.flatnonzero(part >= _UNIFORM_SCALE))
        np.minimum(part, _UNIFORM_SCALE - 1, out=part)
        thresholds[start : start + part.shape[0]] = part
    return thresholds, np.concatenate(sure) if sure else np.zeros(0, dtype=np.intp)


def segment_sums(outcomes, starts, long_segment=_LONG_SEGMENT):
    """The (weighted) outcomes of each segment of rows, per set of draws.

    Segment ``k`` is the rows ``starts[k]`` to ``starts[k + 1]`` (the last
    one to the end). Weighted outcomes (float) are summed by
    ``np.add.reduceat``; boolean ones are counted. Long segments
    (``long_segment`` rows on average) are counted one by one
    (``np.count_nonzero``, a tenth of the cost of a sum per row); many short
    ones would pay a call each, so their bytes are summed.

    Parameters
    ----------
    outcomes : ndarray of shape (n_draws, n_samples), bool or float64
        (float64 may also be one set of shape (n_samples,)).
        E.g. :meth:`SortedView.weighted_outcomes`.
    starts : ndarray of shape (n_segments,)
        Increasing, from 0.
    long_segment : int, default=_LONG_SEGMENT
        The mean length from which boolean segments are counted one by one.

    Returns
    -------
    sums : ndarray of shape (n_draws, n_segments)
        int64 counts for boolean outcomes, float64 sums otherwise.
    """
    if outcomes.dtype != bool:
        return np.add.reduceat(outcomes, starts, axis=-1, dtype=np.float64)
    n_samples = outcomes.shape[1]
    if n_samples < long_segment * starts.shape[0]:
        return np.add.reduceat(outcomes.view(np.uint8), starts, axis=1, dtype=np.int64)
    bounds = list(itertools.pairwise([*starts.tolist(), n_samples]))
    return np.array(
        [[np.count_nonzero(row[a:b]) for a, b in bounds] for row in outcomes],
        dtype=np.int64,
    )


def add_segment_sums(sums, values, starts, chunk):
    """Add the :func:`segment_sums` of a chunk's rows to the whole rows'.

    The segments (of all rows, ``starts`` as in :func:`segment_sums`) that
    overlap the chunk get the sums of ``values``, the chunk's columns, over
    their rows in it.

    Parameters
    ----------
    sums : ndarray of shape (n_draws, n_segments)
        Updated in place.
    values : ndarray of shape (n_draws, chunk.stop - chunk.start)
        Bool or float64.
    starts : ndarray of shape (n_segments,)
        Increasing, from 0.
    chunk : Chunk
        Whose rows ``values`` holds.
    """
    first, local = segments_within(starts, chunk)
    sums[:, first : first + local.shape[0]] += segment_sums(values, local)


def segments_within(starts, chunk):
    """The segments of rows (``starts`` as in :func:`segment_sums`) that
    overlap a chunk: the index of the first, and where each starts in the
    chunk (the first at 0)."""
    first = int(np.searchsorted(starts, chunk.start, side="right")) - 1
    last = int(np.searchsorted(starts, chunk.stop))
    local = starts[first:last] - chunk.start
    local[0] = 0
    return first, local


class NullLabels:
    """Labels drawn from the predictions: the outcomes of a calibrated model.

    A row's class is drawn from its predicted probabilities, so that every
    view of the data (binary, top-label, one-vs-rest) is calibrated. A
    single view is drawn directly, as Bernoulli outcomes with the view's
    probabilities; the one-vs-rest views of ``"classwise"`` come from whole
    classes drawn per row, so that the classes stay exclusive.

    Parameters
    ----------
    data : CalibrationData
        Validated inputs.
    reduction : {"positive", "top_label", "classwise"}
        A resolved reduction.
    """

    def __init__(self, data, reduction):
        self.data, self.reduction = data, reduction
        self.views = list(binary_views(data, reduction))
        multiclass = len(self.views) > 1 and not data.binary
        self.cumulative = (
            np.cumsum(data.y_prob, axis=1, dtype=np.float64) if multiclass else None
        )

    def draw_classes(self, u):
        """A label per row, drawn from its probabilities (column indices).

        ``u`` holds a uniform on [0, 1) per row.
        """
        if self.data.binary:
            return u < self.data.y_prob
        # The first column whose cumulative probability exceeds u; rows that
        # sum to slightly less than 1 could give n_classes.
        return np.minimum(
            (u[:, None] >= self.cumulative).sum(axis=1), self.cumulative.shape[1] - 1
        )

    def draw_views(self, u):
        """The views ``[(y, p), ...]`` of one draw of the labels.

        ``u`` holds a uniform on [0, 1) per row.
        """
        if len(self.views) == 1:
            ((_, p),) = self.views
            return [((u < p).view(np.uint8), p)]
        y_true = self.draw_classes(u)
        return list(binary_views(self.data._replace(y_true=y_true), self.reduction))


# Atom counts are drawn as a multinomial (O(atoms)) when there are at least
# this many rows per atom, and by drawing rows (O(rows)) otherwise.
_ROWS_PER_ATOM = 8


class Atoms:
    """Rows grouped into atoms whose members are exchangeable for a statistic.

    Rows with the same ``key`` (a non-negative int, e.g. a bin and an outcome)
    and the same weight contribute identically to every per-key sum, so a
    bootstrap resample of the rows (``n`` draws with replacement) changes
    such sums only through the number of draws that fall in each atom. Those
    numbers are multinomial with probabilities ``rows in atom / n``: drawing
    them costs O(number of atoms) per resample instead of O(n).

    Parameters
    ----------
    key : ndarray of shape (n_samples,)
        Non-negative integers.
    sample_weight : ndarray of shape (n_samples,) or None
        Row weights; atoms are split by distinct weight.

    Attributes
    ----------
    key : ndarray of shape (n_atoms,)
        The key of each atom.
    weight : ndarray of shape (n_atoms,)
        The weight of each of its rows.
    inverse : ndarray of shape (n_samples,)
        The atom of each row.
    """

    def __init__(self, key, sample_weight):
        key = np.asarray(key, dtype=np.int64)
        if sample_weight is None:
            rows = np.bincount(key)
            keys = np.flatnonzero(rows)
            lookup = np.zeros(rows.shape[0], dtype=np.intp)
            lookup[keys] = np.arange(keys.shape[0])
            self.inverse = lookup[key]
            self.key = keys
            self.n_rows = rows[keys]
            self.weight = np.ones(keys.shape[0])
        else:
            values, w_index = np.unique(sample_weight, return_inverse=True)
            combined = key * values.shape[0] + w_index
            atoms, self.inverse = np.unique(combined, return_inverse=True)
            self.key = atoms // values.shape[0]
            self.weight = values[atoms % values.shape[0]]
            self.n_rows = np.bincount(self.inverse, minlength=atoms.shape[0])
        self.n_samples = key.shape[0]
        self._p = self.n_rows / float(self.n_samples)

    def mean(self, values):
        """Mean of a per-row value over the rows of each atom."""
        sums = np.bincount(self.inverse, weights=values, minlength=self.key.shape[0])
        return sums / self.n_rows

    def resample(self, rng):
        """Total weight of each atom in one bootstrap resample of the rows.

        The atom counts are multinomial; they are drawn directly when there
        are few atoms, and by drawing the rows when atoms are nearly as
        many as rows (which is then cheaper).
        """
        n_atoms = self.key.shape[0]
        if n_atoms * _ROWS_PER_ATOM <= self.n_samples:
            counts = rng.multinomial(self.n_samples, self._p)
        else:
            rows = rng.randint(0, self.n_samples, size=self.n_samples)
            counts = np.bincount(self.inverse[rows], minlength=n_atoms)
        return counts * self.weight

    @cached_property
    def order(self):
        """A permutation of the rows that makes each atom a contiguous segment."""
        return np.argsort(self.inverse, kind="stable")

    @cached_property
    def starts(self):
        """Where each atom's segment of rows starts, in :attr:`order`.

        The row counts of a :class:`Draws` batch, applied to the rows in
        that order (they are exchangeable), summed over these segments and
        times :attr:`weight`, are each atom's total weight in each resample
        (:func:`add_segment_sums`).
        """
        return np.cumsum(self.n_rows) - self.n_rows


def percentile_band(draws, confidence_level):
    """Lower and upper percentiles of the finite draws, column by column.

    ``numpy.nanpercentile`` with linear interpolation, vectorised over the
    columns of a 2-D array (a 1-D array is one column); NaN where a column
    has no finite draw.

    Returns
    -------
    low, high : ndarray of shape (n_columns,), or float for 1-D draws
    """
    draws = np.asarray(draws, dtype=np.float64)
    single = draws.ndim == 1
    if single:
        draws = draws[:, None]
    ordered = np.sort(np.where(np.isfinite(draws), draws, np.nan), axis=0)
    n_finite = np.count_nonzero(np.isfinite(ordered), axis=0)
    columns = np.arange(draws.shape[1])
    tail = 0.5 * (1.0 - confidence_level)
    bounds = []
    for level in (tail, 1.0 - tail):
        position = level * np.maximum(n_finite - 1, 0)
        below = np.floor(position).astype(np.intp)
        above = np.minimum(below + 1, np.maximum(n_finite - 1, 0))
        fraction = position - below
        low, high = ordered[below, columns], ordered[above, columns]
        value = low + fraction * (high - low)
        value[n_finite == 0] = np.nan
        bounds.append(value[0] if single else value)
    return bounds[0], bounds[1]
