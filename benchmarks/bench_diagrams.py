"""Time and peak memory of the smooth reliability diagram, and relplot's.

For n = 10**5 and 10**6 calibrated binary predictions (p uniform on [0, 1],
y ~ Bernoulli(p), seed 0), with 100 bootstrap replicates
(``random_state=0``), prints the median time over ``--repeat`` runs (3 by
default) and the peak memory of one more run (``tracemalloc``, which sees
numpy's allocations), in MB and as a multiple of the input arrays (16 bytes
a row: int64 labels, float64 predictions). Public API only; three rows per n:

- ``numbers``: :func:`skcal.metrics.smooth_reliability_curve` with
  ``n_bootstrap=100``: the grid, curve, density, band, SmoothECE and its
  interval, without matplotlib;
- ``display``: :meth:`skcal.plotting.SmoothReliabilityDisplay.from_predictions`
  with ``n_bootstrap=100`` on a new Agg figure, followed by
  ``figure.canvas.draw()`` (the same numbers, drawn and rendered, as a user
  pays it);
- ``relplot``: ``relplot.rel_diagram(p, y, num_bootstrap=100)`` with an Agg
  render (100 bootstrap curves and its default 100-resample interval of
  the smECE), at n up to ``--relplot-max-n`` (default 10**5: at 10**6 it
  takes about a minute and several GB). The ``value`` column is its
  ``relplot.smECE(p, y)``, computed once, untimed.

The ``value`` column of skcal's rows is the SmoothECE with its bootstrap
interval. Calibrated data are the slow case: the SmoothECE bandwidth, and with
it the smoothing grid of every replicate, shrinks with the calibration error
(about 0.003 at n = 10**6 here). For each n with a relplot row, the ratios
``skcal / relplot`` of the times (below 1: skcal is faster) are printed.

The targets of issue 6: n = 10**6 with 100 replicates in under 5 s and under
1 GB; the last line says whether the ``display`` row meets them. Runs in
about two minutes on two cores.

Run as ``python benchmarks/bench_diagrams.py [--quick] [--repeat R]
[--relplot-max-n N]``; ``--quick`` uses n = 10**4 and 10**5 (relplot at
10**4).
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import time
import tracemalloc
import warnings

import matplotlib
import numpy as np

from skcal.metrics import smooth_reliability_curve
from skcal.plotting import SmoothReliabilityDisplay

N_BOOTSTRAP = 100
TARGET_SECONDS = 5.0
TARGET_BYTES = 10**9


def run(func, arguments, repeat):
    """Median seconds of ``func(*arguments)``; peak bytes and result of one more run."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func(*arguments)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    result = func(*arguments)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return float(np.median(times)), peak, result


def skcal_numbers(y, p):
    """The numbers of the smooth diagram, from the public function."""
    curve = smooth_reliability_curve(y, p, n_bootstrap=N_BOOTSTRAP, random_state=0)
    return curve.smooth_ece, curve.smooth_ece_interval


def skcal_display(y, p):
    """The public Display: numbers, drawing on a new Agg figure and rendering."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    display = SmoothReliabilityDisplay.from_predictions(
        y, p, n_bootstrap=N_BOOTSTRAP, random_state=0, ax=ax
    )
    fig.canvas.draw()
    plt.close(fig)
    return display.smooth_ece, display.smooth_ece_interval


def relplot_diagram(y, p):
    """relplot's smooth diagram with as many bootstrap curves, rendered with Agg."""
    import matplotlib.pyplot as plt
    import relplot

    # relplot resets matplotlib's rcParams and uses a deprecated pandas call.
    with matplotlib.rc_context(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig, _ = relplot.rel_diagram(p, y.astype(np.float64), num_bootstrap=N_BOOTSTRAP)
        fig.canvas.draw()
        plt.close(fig)


def relplot_value(y, p):
    """relplot's smECE of the same data (untimed reference value)."""
    import relplot

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(relplot.smECE(p, y.astype(np.float64))), None


def _value(result):
    if result is None:
        return ""
    value, interval = result
    if interval is None:
        return f"{value:.5f}"
    return f"{value:.5f} [{interval[0]:.5f}, {interval[1]:.5f}]"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 10**4 and 10**5")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--relplot-max-n", type=int, default=None)
    args = parser.parse_args()
    matplotlib.use("Agg")
    sizes = [10**4, 10**5] if args.quick else [10**5, 10**6]
    relplot_max_n = args.relplot_max_n
    if relplot_max_n is None:
        relplot_max_n = sizes[0]
    try:
        import relplot  # noqa: F401
    except ImportError:
        relplot_max_n = 0
        print("relplot is not installed: no reference row")

    print(
        f"smooth reliability diagram, {N_BOOTSTRAP} bootstrap replicates, "
        f"median of {args.repeat} runs"
    )
    print(
        f"{'n':>10}  {'':9} {'time':>10}  {'peak memory':>11}  {'x input':>8}  "
        "value (SmoothECE [interval])"
    )
    results = {}
    for n in sizes:
        rng = np.random.default_rng(0)
        p = rng.uniform(size=n)
        y = (rng.uniform(size=n) < p).astype(np.int64)
        input_bytes = y.nbytes + p.nbytes
        rows = [("numbers", skcal_numbers), ("display", skcal_display)]
        if n <= relplot_max_n:
            rows.append(("relplot", relplot_diagram))
        for label, func in rows:
            seconds, peak, result = run(func, (y, p), args.repeat)
            if label == "relplot":
                result = relplot_value(y, p)
            results[n, label] = seconds, peak
            print(
                f"{n:>10,}  {label:9} {seconds:8.2f} s  {peak / 2**20:8.1f} MB  "
                f"{peak / input_bytes:7.1f}x  {_value(result)}"
            )
        if (n, "relplot") in results:
            reference = results[n, "relplot"][0]
            numbers = results[n, "numbers"][0] / reference
            display = results[n, "display"][0] / reference
            print(
                f"{n:>10,}  time skcal / relplot: numbers {numbers:.3f}, "
                f"display {display:.3f}"
            )
    if (10**6, "display") in results:
        seconds, peak = results[10**6, "display"]
        verdict = (
            "met" if seconds < TARGET_SECONDS and peak < TARGET_BYTES else "MISSED"
        )
        print(
            f"target at n = 10**6 (< {TARGET_SECONDS:.0f} s, < 1 GB): {verdict} "
            f"({seconds:.2f} s, {peak / 2**20:.0f} MB)"
        )


if __name__ == "__main__":
    main()
