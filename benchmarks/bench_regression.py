"""Time of the regression scores, measures and recalibrators against references.

For n in 10**4 .. ``--max-n`` Gaussian predictions (means N(0, 9), standard
deviations uniform in [0.5, 2], outcomes with 1.5 times the predicted
variance plus 0.7), each row times skcal and a reference computing the same
number on the same arrays, interleaved (skcal, reference, skcal, ...) so
that both see the same machine load, and prints the median seconds of each,
the ratio reference / skcal (above 1: skcal is faster), the difference of
their results relative to the largest (``max |a - b| / max |b|``), and
skcal's peak traced memory (``tracemalloc``) as a multiple of its input's
bytes (24 a row for three float64 arrays; 160 for the outcomes and 19
quantiles of ``pinball_loss``).

==========================  ===============================================
skcal                       reference
==========================  ===============================================
``gaussian_crps``           ``properscoring.crps_gaussian(...).mean()`` and
                            ``scoringrules.crps_normal(...).mean()``
``gaussian_log_loss``       ``-scipy.stats.norm.logpdf(...).mean()`` and
                            ``-scoringrules.logs_normal(...).mean()``
``pinball_loss``, 19        ``sklearn.metrics.mean_pinball_loss`` per level
levels 0.05 .. 0.95         and ``scoringrules.quantile_score`` per level
``mean_calibration_         ``model_diagnostics.scoring.decompose`` with
decomposition``             ``SquaredError`` (CORP isotonic decomposition)
``pit_calibration_error``   the exact L1 distance of the PIT's ECDF from
                            the uniform, a sort and a sum in numpy
``IsotonicPITRecalibrator``  Kuleshov et al.'s recipe: scikit-learn's
fit + predict_quantiles     ``IsotonicRegression`` of the PIT's ECDF, then
                            the Gaussian quantile of its inverse
``VarianceRecalibrator``    none (its time per row is printed)
==========================  ===============================================

A reference that is not installed is skipped with a printed line
(``pip install properscoring scoringrules model-diagnostics``);
model-diagnostics is skipped above ``--decompose-max-n`` (default 10**6).

Run as ``python benchmarks/bench_regression.py [--max-n N] [--repeat R]``;
the default (10**7, 5 repeats) takes about four minutes on two cores.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import importlib
import time
import tracemalloc

import numpy as np
from scipy import stats
from scipy.special import ndtr, ndtri
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import mean_pinball_loss

from skcal.regression import (
    IsotonicPITRecalibrator,
    VarianceRecalibrator,
    gaussian_crps,
    gaussian_log_loss,
    mean_calibration_decomposition,
    pinball_loss,
    pit_calibration_error,
)

LEVELS = np.round(np.linspace(0.05, 0.95, 19), 2)


def _optional(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        print(f"# {name} is not installed: its rows are skipped")
        return None


def _data(n, seed=0):
    rng = np.random.RandomState(seed)
    mean = rng.normal(scale=3.0, size=n)
    std = rng.uniform(0.5, 2.0, size=n)
    y = mean + np.sqrt(1.5 * std**2 + 0.7) * rng.normal(size=n)
    return y, mean, std


def _pit_l1(y, mean, std):
    """The exact L1 distance of the PIT's ECDF from the uniform, in numpy."""
    u = np.sort(ndtr((y - mean) / std))
    n = u.shape[0]
    edges = np.concatenate([[0.0], u, [1.0]])
    h = np.arange(n + 1) / n
    # On [a, b) the ECDF is h, and (t - h)|t - h| / 2 is a primitive of |t - h|.
    a, b = edges[:-1] - h, edges[1:] - h
    return float(np.sum(b * np.abs(b) - a * np.abs(a)) / 2)


def _kuleshov(y, mean, std):
    """Kuleshov et al.: isotonic regression of the PIT's ECDF, then its inverse."""
    u = ndtr((y - mean) / std)
    ecdf = np.searchsorted(np.sort(u), u, side="right") / u.shape[0]
    inverse = IsotonicRegression(out_of_bounds="clip").fit(ecdf, u)
    return mean[:, None] + std[:, None] * ndtri(
        np.clip(inverse.predict(LEVELS), 1e-12, 1 - 1e-12)
    )


def _rows(modules, n, decompose_max_n):
    """``(name, skcal callable, {reference name: callable}, input bytes)``."""
    properscoring, scoringrules, scoring = modules
    y, mean, std = _data(n)
    quantiles = mean[:, None] + std[:, None] * ndtri(LEVELS)
    X = np.column_stack([mean, std])
    rows = []

    refs = {}
    if properscoring is not None:
        refs["properscoring"] = lambda: properscoring.crps_gaussian(y, mean, std).mean()
    if scoringrules is not None:
        refs["scoringrules"] = lambda: scoringrules.crps_normal(y, mean, std).mean()
    rows.append(("gaussian_crps", lambda: gaussian_crps(y, mean, std), refs, 24))

    refs = {"scipy": lambda: -stats.norm.logpdf(y, mean, std).mean()}
    if scoringrules is not None:
        refs["scoringrules"] = lambda: scoringrules.logs_normal(y, mean, std).mean()
    rows.append(
        ("gaussian_log_loss", lambda: gaussian_log_loss(y, mean, std), refs, 24)
    )

    def sklearn_pinball():
        return np.mean(
            [
                mean_pinball_loss(y, quantiles[:, j], alpha=a)
                for j, a in enumerate(LEVELS)
            ]
        )

    refs = {"scikit-learn": sklearn_pinball}
    if scoringrules is not None:
        refs["scoringrules"] = lambda: np.mean(
            [
                scoringrules.quantile_score(y, quantiles[:, j], a).mean()
                for j, a in enumerate(LEVELS)
            ]
        )
    rows.append(
        (
            "pinball_loss",
            lambda: pinball_loss(y, quantiles, quantiles=LEVELS),
            refs,
            8 * (1 + LEVELS.size),
        )
    )

    refs = {}
    if scoring is not None and n <= decompose_max_n:
        refs["model-diagnostics"] = lambda: float(
            scoring.decompose(y, mean, scoring_function=scoring.SquaredError())[
                "miscalibration"
            ][0]
        )
    rows.append(
        (
            "mean_calibration_decomposition",
            lambda: mean_calibration_decomposition(y, mean).miscalibration,
            refs,
            16,
        )
    )
    rows.append(
        (
            "pit_calibration_error",
            lambda: pit_calibration_error(y, mean, std),
            {"numpy": lambda: _pit_l1(y, mean, std)},
            24,
        )
    )
    rows.append(
        (
            "IsotonicPITRecalibrator",
            lambda: IsotonicPITRecalibrator().fit(X, y).predict_quantiles(X, LEVELS),
            {"scikit-learn isotonic": lambda: _kuleshov(y, mean, std)},
            24,
        )
    )
    rows.append(
        ("VarianceRecalibrator", lambda: VarianceRecalibrator().fit(X, y).coef_, {}, 24)
    )
    return rows


def _seconds(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def _peak(function):
    tracemalloc.start()
    function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def _difference(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--decompose-max-n", type=float, default=1e6)
    args = parser.parse_args()
    modules = tuple(
        _optional(name)
        for name in ("properscoring", "scoringrules", "model_diagnostics.scoring")
    )
    sizes = [10**k for k in range(4, int(np.log10(args.max_n)) + 1)]
    header = (
        f"{'n':>9} {'skcal':<31} {'s':>8} {'reference':<22} {'s':>8} "
        f"{'ratio':>6} {'rel diff':>9} {'peak/in':>7}"
    )
    print(header)
    for n in sizes:
        for name, ours, refs, row_bytes in _rows(modules, n, args.decompose_max_n):
            memory = _peak(ours) / (row_bytes * n)
            if not refs:
                times = [_seconds(ours)[0] for _ in range(args.repeat)]
                print(
                    f"{n:>9} {name:<31} {np.median(times):8.4f} {'-':<22} "
                    f"{'':>8} {'':>6} {'':>9} {memory:7.1f}"
                )
            for ref_name, ref in refs.items():
                mine, theirs = [], []
                for _ in range(args.repeat):
                    t, value = _seconds(ours)
                    mine.append(t)
                    t, expected = _seconds(ref)
                    theirs.append(t)
                ratio = np.median(theirs) / np.median(mine)
                print(
                    f"{n:>9} {name:<31} {np.median(mine):8.4f} {ref_name:<22} "
                    f"{np.median(theirs):8.4f} {ratio:6.2f} "
                    f"{_difference(value, expected):9.1e} {memory:7.1f}"
                )


if __name__ == "__main__":
    main()
