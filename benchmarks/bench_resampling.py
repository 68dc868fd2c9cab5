"""What one bootstrap replicate of an interval costs, against its arithmetic floor.

For each default measure of the report and n in 1e3, 1e5 and 1e6 (binary,
calibrated-looking predictions), times one replicate of
:func:`skcal.metrics.confidence_interval` (a resample of the rows and, for a
calibration error, one set of labels drawn from the predictions) and the
floor of the same work written plainly on validated arrays: one draw of the
rows (their counts), one weighted call of the measure's core (or, for a
proper score, one weighted mean of the per-row losses), and for a
calibration error one Bernoulli draw and one more call. The last line per
n times the report's five intervals together (they share their draws)
against the sum of the five floors. Prints medians of ``--repeat`` runs and
their ratio, ratio first.

Intervals draw 1000 replicates (the default) below a million rows, and 50
at a million. Run as ``python benchmarks/bench_resampling.py [--repeat R]``
(three minutes).
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import time

import numpy as np

from skcal._validation import check_calibration_inputs
from skcal.metrics import confidence_interval
from skcal.metrics._interval import measure_intervals, problem_of
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
    """A callable doing one replicate's arithmetic, plainly, on validated arrays."""
    n = p.shape[0]

    def counts():
        return np.bincount(rng.integers(0, n, size=n), minlength=n).astype(float)

    if measure.kind == "proper_score":
        losses = measure.row_losses(check_calibration_inputs(y, p))
        return lambda: np.dot(counts(), losses) / n
    core = measure.core(**measure.core_options({}))

    def replicate():
        core(y, p, counts())
        core((rng.random(n) < p).view(np.uint8), p, None)

    return replicate


def report_intervals(y, p, n_bootstrap):
    """The report's five intervals, computed together."""
    data = check_calibration_inputs(y, p)
    measures = {name: MEASURES_BY_NAME[name] for name in METRICS}
    problem = problem_of(data)
    measure_intervals(
        measures,
        problem,
        dict.fromkeys(METRICS, 0.0),
        n_bootstrap=n_bootstrap,
        confidence_level=0.95,
        rng=np.random.RandomState(0),
        verbose=False,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="1000,100000,1000000")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    header = f"{'ratio':>6s} {'n':>8s} {'measure':28s} {'replicate ms':>12s}"
    print(f"{header} {'floor ms':>9s}")
    for n in (int(s) for s in args.sizes.split(",")):
        p = rng.uniform(size=n)
        y = (rng.uniform(size=n) < p).astype(np.uint8)
        floors = 0.0
        # The default number of replicates (validating once is then a small
        # share of the time), fewer at a million rows to keep the run short.
        n_bootstrap = 50 if n >= 1_000_000 else 1000
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
            floors += base
            print(
                f"{whole / base:6.2f} {n:8d} {name:28s} {1000 * whole:12.3f} "
                f"{1000 * base:9.3f}",
                flush=True,
            )
        together = _median_time(
            lambda y=y, p=p, b=n_bootstrap: report_intervals(y, p, b), args.repeat
        )
        together /= n_bootstrap
        print(
            f"{together / floors:6.2f} {n:8d} {'all five, shared draws':28s} "
            f"{1000 * together:12.3f} {1000 * floors:9.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
