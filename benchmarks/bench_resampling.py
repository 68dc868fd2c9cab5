"""What one bootstrap replicate of an interval costs, against its arithmetic floor.

For each default measure of the report and n in 1e3, 1e5 and 1e6 (binary,
calibrated-looking predictions), times one replicate of
:func:`skcal.metrics.confidence_interval` (a resample of the rows and, for a
calibration error, one set of labels drawn from the predictions) and the
floor of the same work on prepared arrays: one draw of resample counts, one
weighted pass of the measure's core (prepared once, as the intervals
prepare it), and for a calibration error one Bernoulli draw and one more
pass. Prints the median times of ``--repeat`` runs and their ratio.

Run as ``python benchmarks/bench_resampling.py [--repeat R]`` (a minute).
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import time

import numpy as np

from skcal._utils._bootstrap import resample_counts
from skcal._validation import check_calibration_inputs
from skcal.metrics import confidence_interval
from skcal.metrics._interval import _prepared
from skcal.metrics._registry import MEASURES_BY_NAME

METRICS = (
    "expected_calibration_error",
    "smooth_ece",
    "cutoff_calibration_error",
    "brier_score_loss",
    "log_loss",
)


def _median_time(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def floor(measure, y, p, rng):
    """A callable doing one replicate's arithmetic on prepared arrays."""
    n = p.shape[0]
    if measure.kind == "proper_score":
        losses = measure.row_losses(check_calibration_inputs(y, p))
        return lambda: np.dot(resample_counts(n, rng), losses)
    prepared = _prepared(measure.core(**measure.core_options({})), p)

    def replicate():
        prepared(y, resample_counts(n, rng))
        prepared((rng.random_sample(n) < p).view(np.uint8), None)

    return replicate


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="1000,100000,1000000")
    args = parser.parse_args()
    rng = np.random.RandomState(0)
    header = f"{'n':>8s} {'measure':28s} {'replicate ms':>12s} {'floor ms':>9s}"
    print(f"{header} {'ratio':>6s}")
    for n in (int(s) for s in args.sizes.split(",")):
        p = rng.uniform(size=n)
        y = (rng.uniform(size=n) < p).astype(np.uint8)
        # Enough replicates that validating once is a small share of the time.
        n_bootstrap = 50 if n >= 1_000_000 else 200
        for name in METRICS:
            measure = MEASURES_BY_NAME[name]

            def interval(name=name, n_bootstrap=n_bootstrap, y=y, p=p):
                confidence_interval(
                    y,
                    p,
                    metric=name,
                    n_bootstrap=n_bootstrap,
                    random_state=0,
                    verbose=False,
                )

            whole = _median_time(interval, args.repeat) / n_bootstrap
            one = floor(measure, y, p, rng)
            base = _median_time(one, args.repeat * 3)
            print(
                f"{n:8d} {name:28s} {1000 * whole:12.3f} {1000 * base:9.3f} "
                f"{whole / base:6.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
