"""Measure the coverage of skcal's intervals by simulation, at full size.

For every setting of :mod:`skcal._utils._simulation` (binary and top-label
of 10 classes; calibrated, over- and under-confident, one miscalibrated
bin) and every size ``n``, draws ``--n-runs`` data sets and counts how often

* the interval of each measure (:func:`skcal.metrics.confidence_interval`'s
  rule, ``--n-bootstrap`` resamples) contains the population value (from
  ``--n-population`` predictions with exact event rates);
* with ``--bands``, the band of the smooth reliability curve contains the
  kernel-smoothed population curve at the bandwidth used, at the grid
  points where the curve is drawn, and the per-bin Wilson intervals of
  :func:`skcal.metrics.reliability_table` contain the population event
  rates of their bins. The band is judged where the Display draws it.

Prints one line per setting, size and measure: the population value, the
coverage, how often the interval lies below and above the value, the
median width and the time per run. ``--out`` writes the same as CSV.

Run as ``python benchmarks/bench_interval_coverage.py`` (hours at full size
on 2 cores); ``--n-runs 20 --sizes 300`` is a quick look.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import csv
import time

import numpy as np

from skcal._utils._bootstrap import N_BOOTSTRAP
from skcal._utils._simulation import (
    KINDS,
    TRUTHS,
    Setting,
    coverage,
    population_value,
)
from skcal.metrics import reliability_table, smooth_reliability_curve
from skcal.plotting._base import drawn_points

DEFAULT_METRICS = (
    "expected_calibration_error",
    "smooth_ece",
    "brier_score_loss",
    "log_loss",
)
OTHER_METRICS = (
    "binned_calibration_error",
    "cutoff_calibration_error",
    "kernel_calibration_error",
    "smooth_calibration_error",
    "logit_smoothed_ece",
)


def band_coverage(setting, n, n_runs, n_bootstrap, n_population, seed):
    """Pointwise coverage of the smooth band and of the per-bin Wilson intervals."""
    rng = np.random.RandomState(seed)
    y_pop, p_pop, w_pop = setting.population_view(
        n_population, np.random.RandomState(0)
    )
    table = reliability_table(y_pop, p_pop, sample_weight=w_pop, interval=None)
    band_hits, wilson_hits = [], []
    for _ in range(n_runs):
        y_true, y_prob = setting.sample(n, rng)
        curve = smooth_reliability_curve(
            y_true, y_prob, n_bootstrap=n_bootstrap, random_state=rng, verbose=False
        )
        truth = smooth_reliability_curve(
            y_pop, p_pop, sample_weight=w_pop, sigma=curve.sigma
        ).calibration
        # Only where SmoothReliabilityDisplay draws the curve and its band.
        drawn = drawn_points(
            curve.grid,
            curve.calibration,
            n_effective=curve.n_effective,
            mean_prediction=curve.mean_prediction,
            prediction_range=curve.prediction_range,
            sigma=curve.sigma,
            min_effective_count=10,
        )
        drawn &= np.isfinite(curve.band_low) & np.isfinite(truth)
        band_hits.append(
            (curve.band_low[drawn] <= truth[drawn])
            & (truth[drawn] <= curve.band_high[drawn])
        )
        bins = reliability_table(y_true, y_prob)
        seen = bins.weight > 0
        wilson_hits.append(
            (bins.interval_low[seen] <= table.event_rate[seen])
            & (table.event_rate[seen] <= bins.interval_high[seen])
        )
    return np.concatenate(band_hits), np.concatenate(wilson_hits)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-runs", type=int, default=200)
    parser.add_argument("--n-bootstrap", type=int, default=N_BOOTSTRAP)
    parser.add_argument("--sizes", default="300,3000,30000")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--truths", default=",".join(TRUTHS))
    parser.add_argument("--metrics", default=",".join(DEFAULT_METRICS))
    parser.add_argument("--all", action="store_true", help="every registered measure")
    parser.add_argument("--bands", action="store_true")
    parser.add_argument("--n-population", type=int, default=2_000_000)
    parser.add_argument("--out")
    args = parser.parse_args()

    metrics = args.metrics.split(",") + (list(OTHER_METRICS) if args.all else [])
    rows = []
    print(
        f"{'setting':26s} {'n':>6s} {'measure':28s} {'population':>10s} "
        f"{'coverage':>8s} {'below':>6s} {'above':>6s} {'width':>8s} {'s/run':>6s}"
    )
    for kind in args.kinds.split(","):
        for truth in args.truths.split(","):
            setting = Setting(kind, truth)
            population = {
                m: population_value(setting, m, n_population=args.n_population)
                for m in metrics
            }
            for n in (int(s) for s in args.sizes.split(",")):
                start = time.perf_counter()
                results = coverage(
                    setting,
                    metrics,
                    n_samples=n,
                    n_runs=args.n_runs,
                    n_bootstrap=args.n_bootstrap,
                    population=population,
                    random_state=n,
                )
                per_run = (time.perf_counter() - start) / args.n_runs
                for m, r in results.items():
                    row = {
                        "kind": kind,
                        "truth": truth,
                        "n": n,
                        "measure": m,
                        "population": r["population"],
                        "coverage": r["covered"].mean(),
                        "below": r["below"].mean(),
                        "above": r["above"].mean(),
                        "median_width": float(np.median(r["width"])),
                        "seconds_per_run": per_run,
                    }
                    rows.append(row)
                    print(
                        f"{kind + ' ' + truth:26s} {n:6d} {m:28s} "
                        f"{row['population']:10.4f} {row['coverage']:8.3f} "
                        f"{row['below']:6.3f} {row['above']:6.3f} "
                        f"{row['median_width']:8.4f} {per_run:6.2f}",
                        flush=True,
                    )
                if args.bands:
                    band, wilson = band_coverage(
                        setting,
                        n,
                        args.n_runs,
                        args.n_bootstrap,
                        args.n_population,
                        seed=n,
                    )
                    for name, hits in (("smooth band", band), ("Wilson bins", wilson)):
                        rows.append(
                            {
                                "kind": kind,
                                "truth": truth,
                                "n": n,
                                "measure": name,
                                "coverage": hits.mean(),
                            }
                        )
                        print(
                            f"{kind + ' ' + truth:26s} {n:6d} {name:28s} "
                            f"{'':10s} {hits.mean():8.3f} (pointwise, "
                            f"{hits.size} points)",
                            flush=True,
                        )
    if args.out:
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
