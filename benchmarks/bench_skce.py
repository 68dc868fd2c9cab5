"""Time, accuracy and size/power of the squared kernel calibration error (SKCE).

Four tables, each from fixed seeds (p ~ U(0, 1); calibrated labels
y ~ Bernoulli(p); miscalibrated y ~ Bernoulli(p**2)):

1. ``timing``: the binary full estimator (O(n log n) scan) at n = 1e4..1e7,
   with a fixed bandwidth and with the exact median heuristic, the block
   estimator (block_size=2), and, at small n, a brute-force full kernel
   matrix and the PyPI package ``probcal`` (its ``skce``, O(n**2) memory),
   with the largest absolute difference of the values (``probcal``'s
   binary SKCE is twice skcal's ``"positive"`` one: it keeps the two-class
   factor 2 but not the sqrt(2) in the distance). Medians of ``--repeat``
   interleaved runs; ratio = other / skcal.
2. ``canonical``: the canonical (multiclass) full and block estimators at
   n = 1e4, K = 10 (softmax of Gaussian logits, labels drawn from them).
3. ``size``: the rejection rate of ``kernel_calibration_test`` at alpha 0.05
   on calibrated data (the size; it must not exceed 0.05 beyond the Monte
   Carlo error, shown as 3 standard errors), full and block, at n in {100,
   1000, 10000}.
4. ``power``: the same on y ~ Bernoulli(p**2), and y ~ Bernoulli(p**1.1)
   (a milder miscalibration). The size and power tables add ``probcal``'s
   bootstrap test (199 draws) at n = 100 and 1000 when it is installed (at
   most 100 repetitions at n = 1000).

The resampling test uses ``--n-resamples`` draws (default 199: the test is
exact for any number, and fewer draws only lose a little power).

Run as ``python benchmarks/bench_skce.py [--repeat 3] [--repetitions 300]
[--tables timing,canonical,size,power]``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import math
import statistics
import time

import numpy as np

from skcal.metrics._skce import (
    kernel_calibration_test,
    squared_kernel_calibration_error,
)

try:
    from probcal.metrics.kernel import skce as probcal_skce
    from probcal.metrics.kernel import skce_test as probcal_test
except ImportError:  # pragma: no cover - the reference is optional
    probcal_skce = probcal_test = None

ALPHA = 0.05


def _binary(n, seed, power=1.0):
    rng = np.random.RandomState(seed)
    p = rng.uniform(0.001, 0.999, size=n)
    y = (rng.uniform(size=n) < p**power).astype(np.uint8)
    return y, p


def _brute_force(y, p, bandwidth):
    """The full estimator from the whole kernel matrix (O(n**2) memory)."""
    r = y - p
    terms = np.exp(-np.abs(p[:, None] - p[None, :]) / bandwidth) * np.outer(r, r)
    n = len(p)
    return (terms.sum() - np.trace(terms)) / (n * (n - 1))


def _median_time(function, repeat):
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def timing(repeat):
    print("\n== timing: binary view, seconds (median of", repeat, "runs) ==")
    header = f"{'n':>9} {'full h=0.2':>11} {'full median':>12} {'block':>8}"
    print(
        header
        + f" {'brute':>8} {'ratio':>7} {'probcal':>8} {'ratio':>7} {'max|diff|':>10}"
    )
    for n in [1_000, 3_000, 10_000, 100_000, 1_000_000, 10_000_000]:
        y, p = _binary(n, 0, power=2.0)
        runs = 1 if n >= 1_000_000 else repeat
        fixed, value = _median_time(
            lambda y=y, p=p: squared_kernel_calibration_error(y, p, bandwidth=0.2), runs
        )
        median, _ = _median_time(
            lambda y=y, p=p: squared_kernel_calibration_error(y, p), runs
        )
        block, _ = _median_time(
            lambda y=y, p=p: squared_kernel_calibration_error(
                y, p, bandwidth=0.2, estimator="block"
            ),
            runs,
        )
        row = f"{n:>9} {fixed:>11.4f} {median:>12.4f} {block:>8.4f}"
        if n <= 10_000:
            brute, expected = _median_time(
                lambda y=y, p=p: _brute_force(y.astype(float), p, 0.2), runs
            )
            row += f" {brute:>8.4f} {brute / fixed:>7.1f}"
            diffs = [abs(value - expected)]
            if probcal_skce is not None and n <= 3_000:
                other, reference = _median_time(
                    lambda y=y, p=p: probcal_skce(y, p, bandwidth=0.2), runs
                )
                diffs.append(abs(reference - 2 * value))
                row += f" {other:>8.4f} {other / fixed:>7.1f}"
            else:
                row += f" {'-':>8} {'-':>7}"
            row += f" {max(diffs):>10.1e}"
        print(row)


def canonical(repeat):
    print("\n== canonical: n = 10000, K = 10, seconds ==")
    rng = np.random.RandomState(0)
    logits = rng.normal(scale=2.0, size=(10_000, 10))
    prob = np.exp(logits - logits.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    y = (rng.uniform(size=10_000)[:, None] >= np.cumsum(prob, axis=1)).sum(axis=1)
    y = np.minimum(y, 9)
    for estimator in ["full", "block"]:
        seconds, value = _median_time(
            lambda estimator=estimator: squared_kernel_calibration_error(
                y, prob, reduction="canonical", estimator=estimator
            ),
            repeat,
        )
        print(f"{estimator:>6}: {seconds:.3f} s, SKCE = {value:.3e}")


def _rate(n, power, estimator, repetitions, n_resamples, seed):
    rng = np.random.RandomState(seed)
    rejected = 0
    for _ in range(repetitions):
        p = rng.uniform(0.001, 0.999, size=n)
        y = rng.uniform(size=n) < p**power
        result = kernel_calibration_test(
            y, p, estimator=estimator, n_resamples=n_resamples, random_state=rng
        )
        rejected += result.p_value <= ALPHA
    return rejected / repetitions


def _probcal_rate(n, power, repetitions, seed):
    rng = np.random.RandomState(seed)
    rejected = 0
    for _ in range(repetitions):
        p = rng.uniform(0.001, 0.999, size=n)
        y = (rng.uniform(size=n) < p**power).astype(int)
        rejected += probcal_test(y, p, n_boot=199, random_state=0).p_value <= ALPHA
    return rejected / repetitions


def size_power(repetitions, n_resamples, powers, title):
    print(f"\n== {title}: rejection rate at alpha = {ALPHA} ==")
    print(
        f"{'n':>6} {'P(Y=1|p)':>9} {'full':>7} {'block':>7} {'probcal':>8} {'reps':>6}"
    )
    for n in [100, 1_000, 10_000]:
        reps = repetitions if n < 10_000 else max(50, repetitions // 3)
        for power in powers:
            full = _rate(n, power, "full", reps, n_resamples, 1)
            block = _rate(n, power, "block", reps, n_resamples, 2)
            other = "-"
            if probcal_test is not None and n <= 1_000:
                # O(n_boot * n**2) per test: fewer repetitions at n = 1000.
                other_reps = reps if n < 1_000 else min(reps, 100)
                other = f"{_probcal_rate(n, power, other_reps, 3):.3f}"
            label = "p" if power == 1.0 else f"p**{power:g}"
            print(f"{n:>6} {label:>9} {full:>7.3f} {block:>7.3f} {other:>8} {reps:>6}")
        if powers == [1.0]:
            limit = ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / reps)
            print(f"{'':>6} size limit (alpha + 3 standard errors): {limit:.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=300)
    parser.add_argument("--n-resamples", type=int, default=199)
    parser.add_argument("--tables", default="timing,canonical,size,power")
    args = parser.parse_args()
    tables = args.tables.split(",")
    if probcal_skce is None:
        print("probcal is not installed: its columns are left out.")
    if "timing" in tables:
        timing(args.repeat)
    if "canonical" in tables:
        canonical(args.repeat)
    if "size" in tables:
        size_power(args.repetitions, args.n_resamples, [1.0], "size")
    if "power" in tables:
        size_power(args.repetitions, args.n_resamples, [2.0, 1.1], "power")


if __name__ == "__main__":
    main()
