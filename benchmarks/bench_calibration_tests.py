"""Size, power and speed of the tests of perfect calibration.

Size: the rejection rate of each test on calibrated data (labels drawn from
the predictions), which should be at most ``alpha`` up to Monte-Carlo error
(printed as ``+- 2 se``). Power: the rejection rate on two miscalibrated
models, events drawn with probability ``p**2`` instead of ``p``, and an
overconfident model (``p = expit(2 logit q)`` for the true probability
``q``). Both at ``alpha = 0.05`` and ``0.01``, for each sample size.
Agreement: the largest differences from MAPIE's statistics and p-values
(``mapie.metrics.calibration``, if installed) on the same data. Speed: the
median time of 5 runs at n = 10**6, against MAPIE's functions, with the
ratio ``MAPIE / skcal``.

To compare another test, add it to :func:`tests` as ``name -> callable(y,
p) -> p-value``; to add a model, add ``name -> callable(rng, n) -> (y, p)``
to ``MODELS``.

Run as ``python benchmarks/bench_calibration_tests.py [--repeats R]
[--power-repeats R] [--sizes 100 1000 10000] [--timing-n N]``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import math
import time

import numpy as np
from scipy.special import expit, logit

from skcal.metrics import (
    hosmer_lemeshow_test,
    kolmogorov_smirnov_test,
    kuiper_test,
    spiegelhalter_test,
)

ALPHAS = (0.05, 0.01)


def tests():
    """The tests to compare, as name -> callable(y, p) -> p-value."""
    return {
        "Kolmogorov-Smirnov": lambda y, p: kolmogorov_smirnov_test(y, p).p_value,
        "Kuiper": lambda y, p: kuiper_test(y, p).p_value,
        "Spiegelhalter": lambda y, p: spiegelhalter_test(y, p).p_value,
        "Hosmer-Lemeshow": lambda y, p: hosmer_lemeshow_test(y, p).p_value,
    }


def calibrated_uniform(rng, n):
    """p ~ U(0, 1), y ~ Bernoulli(p)."""
    p = rng.uniform(size=n)
    return rng.uniform(size=n) < p, p


def calibrated_skewed(rng, n):
    """p ~ Beta(2, 8) (mostly small probabilities), y ~ Bernoulli(p)."""
    p = rng.beta(2.0, 8.0, size=n)
    return rng.uniform(size=n) < p, p


def squared(rng, n):
    """p ~ U(0, 1), y ~ Bernoulli(p**2): events rarer than predicted."""
    p = rng.uniform(size=n)
    return rng.uniform(size=n) < p**2, p


def overconfident(rng, n):
    """q ~ U(0.05, 0.95), y ~ Bernoulli(q), p = expit(2 logit q)."""
    q = rng.uniform(0.05, 0.95, size=n)
    return rng.uniform(size=n) < q, expit(2.0 * logit(q))


SIZE_MODELS = {"U(0,1)": calibrated_uniform, "Beta(2,8)": calibrated_skewed}
POWER_MODELS = {"y ~ B(p^2)": squared, "overconfident x2": overconfident}


def rejection_rates(test, model, n, repeats, seed=0):
    """The fraction of ``repeats`` datasets whose p-value is at most each alpha."""
    rng = np.random.RandomState(seed)
    p_values = np.array([test(*model(rng, n)) for _ in range(repeats)])
    return [float(np.mean(p_values <= alpha)) for alpha in ALPHAS]


def print_table(title, models, sizes, repeats, *, size=False):
    """One line per (test, model, n): the rejection rates at each alpha.

    With ``size``, also the Monte-Carlo error of a rate equal to alpha.
    """
    print(f"\n{title} ({repeats} datasets each)")
    header = f"{'test':<20}{'model':<18}{'n':>7}"
    header += "".join(f"{f'alpha={a}':>14}" for a in ALPHAS)
    print(header)
    for name, test in tests().items():
        for model_name, model in models.items():
            for n in sizes:
                rates = rejection_rates(test, model, n, repeats)
                cells = "".join(f"{r:>14.4f}" for r in rates)
                print(f"{name:<20}{model_name:<18}{n:>7}{cells}")
    if size:
        errors = [2 * math.sqrt(a * (1 - a) / repeats) for a in ALPHAS]
        print("2 se at the nominal level: " + ", ".join(f"{e:.4f}" for e in errors))


def median_time(func, arguments, repeat=5):
    """Median seconds of ``func(*arguments)`` over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func(*arguments)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def mapie_functions():
    """MAPIE's p-value functions of the same tests, or {} without MAPIE."""
    try:
        from mapie.metrics import calibration
    except ImportError:
        return {}
    return {
        "Kolmogorov-Smirnov": calibration.kolmogorov_smirnov_p_value,
        "Kuiper": calibration.kuiper_p_value,
        "Spiegelhalter": calibration.spiegelhalter_p_value,
    }


def print_agreement(n=2000, n_datasets=20):
    """The largest differences from MAPIE on tie-free data, calibrated or not.

    MAPIE's statistics are our ``normalized_statistic`` (its Kuiper range
    leaves out C_0 = 0, so the comparison is restricted to datasets whose
    cumulative residual changes sign); its Spiegelhalter p-value is
    one-sided, compared as ``2 min(p, 1 - p)``. Its statistics jitter the
    predictions by a relative 1e-8.
    """
    try:
        from mapie.metrics import calibration
    except ImportError:
        return
    rng = np.random.RandomState(0)
    gaps = {}

    def record(name, ours, theirs):
        gaps[name] = max(gaps.get(name, 0.0), abs(ours - theirs))

    for i in range(n_datasets):
        p = rng.uniform(0.01, 0.99, size=n)
        y = (rng.uniform(size=n) < p ** (1.0 + 0.3 * (i % 2))).astype(np.int64)
        ks, kuiper = kolmogorov_smirnov_test(y, p), kuiper_test(y, p)
        record(
            "KS statistic",
            ks.normalized_statistic,
            calibration.kolmogorov_smirnov_statistic(y, p),
        )
        record("KS p-value", ks.p_value, calibration.kolmogorov_smirnov_p_value(y, p))
        # MAPIE's definitions with its jitter off (and C_0 = 0 in the range).
        exact = calibration.cumulative_differences(y, p, noise_amplitude=0.0)
        scale = calibration.length_scale(p)
        record(
            "KS statistic, jitter off",
            ks.normalized_statistic,
            np.max(np.abs(exact)) / scale,
        )
        record(
            "Kuiper statistic with C_0, jitter off",
            kuiper.normalized_statistic,
            np.ptp(np.r_[0.0, exact]) / scale,
        )
        differences = calibration.cumulative_differences(y, p)
        if differences.min() < 0 < differences.max():
            record(
                "Kuiper statistic",
                kuiper.normalized_statistic,
                calibration.kuiper_statistic(y, p),
            )
            record("Kuiper p-value", kuiper.p_value, calibration.kuiper_p_value(y, p))
        spiegelhalter = spiegelhalter_test(y, p)
        record(
            "Spiegelhalter statistic",
            spiegelhalter.statistic,
            calibration.spiegelhalter_statistic(y, p),
        )
        one_sided = calibration.spiegelhalter_p_value(y, p)
        record(
            "Spiegelhalter p-value (two-sided)",
            spiegelhalter.p_value,
            2 * min(one_sided, 1 - one_sided),
        )
    print(f"\nLargest |skcal - MAPIE| over {n_datasets} tie-free datasets of {n} rows")
    for name, gap in gaps.items():
        print(f"{name:<40}{gap:.2e}")


def print_timing(n):
    """The median time of each test at ``n`` rows, and MAPIE's."""
    y, p = calibrated_uniform(np.random.RandomState(0), n)
    y = y.astype(np.int64)
    references = mapie_functions()
    print(f"\nTiming at n = {n} (median of 5 runs, seconds)")
    print(f"{'test':<20}{'skcal':>10}{'MAPIE':>10}{'MAPIE/skcal':>13}")
    for name, test in tests().items():
        ours = median_time(test, (y, p))
        line = f"{name:<20}{ours:>10.4f}"
        if name in references:
            theirs = median_time(references[name], (y, p))
            line += f"{theirs:>10.4f}{theirs / ours:>13.2f}"
        print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--power-repeats", type=int, default=1000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--power-sizes", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--timing-n", type=int, default=10**6)
    args = parser.parse_args()
    print_table(
        "Size: rejection rate on calibrated data",
        SIZE_MODELS,
        args.sizes,
        args.repeats,
        size=True,
    )
    print_table(
        "Power: rejection rate on miscalibrated data",
        POWER_MODELS,
        args.power_sizes,
        args.power_repeats,
    )
    print_agreement()
    print_timing(args.timing_n)


if __name__ == "__main__":
    main()
