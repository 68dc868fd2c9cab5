"""The ``skcal`` command line: ``skcal demo`` and ``skcal report``.

``python -m skcal demo`` compares every recalibrator under cross-validation
on a data set that ships with scikit-learn, and shows which one a grid
search picks by a proper score and by ECE alone. ``python -m skcal report
PREDICTIONS ...`` measures the calibration of predictions saved in a CSV or
NPZ file, without a model. A problem with the input is reported on one line,
``skcal: error: ...``, with exit status 2, as argparse does for bad options.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import csv
import importlib
import inspect
import math
import sys
import time
import types
import zipfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

PROG = "skcal"

# The measures of ``report``: three calibration errors and two proper scores.
REPORT_METRICS = (
    "expected_calibration_error",
    "smooth_ece",
    "cutoff_calibration_error",
    "brier_score_loss",
    "log_loss",
)
# The measures of ``demo`` (cross_val_calibration's default set): two
# calibration errors, each paired with a proper score.
DEMO_METRICS = (
    "expected_calibration_error",
    "smooth_ece",
    "brier_score_loss",
    "log_loss",
)
SHORT_NAMES = {
    "expected_calibration_error": "ECE",
    "smooth_ece": "SmoothECE",
    "cutoff_calibration_error": "cutoff",
    "brier_score_loss": "Brier",
    "log_loss": "log loss",
}
# The grid search's scorers: two proper scores, then the calibration errors.
GRID_SCORERS = {
    "neg_log_loss": "log loss",
    "neg_brier_score": "Brier",
    "neg_expected_calibration_error": "ECE",
    "neg_smooth_ece": "SmoothECE",
}
DATASETS = {
    "breast_cancer": ("load_breast_cancer", "breast cancer", "tumours"),
    "digits": ("load_digits", "handwritten digits", "images"),
}


class InputError(ValueError):
    """A problem with the user's input, reported on one line."""


def _one_line(exc):
    """The message of an exception, on one line."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _error(message):
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------


def _format_table(header, rows):
    """Align a table: first column to the left, the others to the right."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [
            f"{cell:<{w}}" if i == 0 else f"{cell:>{w}}"
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _cell(value, low=math.nan, high=math.nan, digits=3):
    """``value [low, high]``, or the value alone when there is no interval."""
    text = f"{value:.{digits}f}"
    if np.isfinite(low) and np.isfinite(high):
        text += f" [{low:.{digits}f}, {high:.{digits}f}]"
    return text


def _write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


# ---------------------------------------------------------------------------
# demo
# ---------------------------------------------------------------------------


@contextmanager
def _step(index, total, label):
    """Print ``[i/n] label ... 1.2 s`` to stderr around a slow step."""
    stream = sys.stderr
    stream.write(f"[{index}/{total}] {label} ...")
    stream.flush()
    start = time.perf_counter()
    try:
        yield
    except BaseException:
        stream.write(" failed\n")
        raise
    stream.write(f" {time.perf_counter() - start:.1f} s\n")
    stream.flush()


def _short(name):
    return name.removesuffix("Recalibrator")


def _display(name):
    """The Display class ``name`` of :mod:`skcal.plotting`, or None without it."""
    try:
        plotting = importlib.import_module("skcal.plotting")
    except ImportError:
        return None
    return getattr(plotting, name, None)


def _write_diagrams(results, out_dir):
    """Reliability and calibration-sharpness diagrams, one PNG of panels each.

    The hook for :mod:`skcal.plotting`: when it (or a Display) is not
    available, nothing is drawn and the list is empty.

    Parameters
    ----------
    results : dict
        ``{panel name: result}``, each result with ``y_true``, ``y_prob``
        (``(n, n_classes)``), ``classes`` and ``n_bootstrap`` (a
        :class:`~skcal.model_selection.CrossValCalibration`, or the report's
        predictions).
    out_dir : pathlib.Path
        The folder to write into.

    Returns
    -------
    paths : list of pathlib.Path
        The files written.
    """
    paths = []
    for display_name, file_name in (
        ("ReliabilityDisplay", "reliability_diagrams.png"),
        ("CalibrationSharpnessDisplay", "calibration_sharpness_diagrams.png"),
    ):
        display = _display(display_name)
        if display is not None:
            paths.append(_draw_panels(display, results, Path(out_dir) / file_name))
    return paths


def _draw_panels(display, results, path):
    """One panel per result, drawn by ``display.from_predictions``, saved as PNG."""
    # A bare Figure draws without pyplot, whatever the user's backend.
    from matplotlib.figure import Figure

    n_cols = min(4, len(results))
    n_rows = -(-len(results) // n_cols)
    figure = Figure(figsize=(3.6 * n_cols, 3.8 * n_rows), layout="constrained")
    axes = np.atleast_1d(figure.subplots(n_rows, n_cols, squeeze=False)).ravel()
    accepted = inspect.signature(display.from_predictions).parameters
    for ax, (name, result) in zip(axes, results.items(), strict=False):
        y_prob, options = result.y_prob, {}
        if y_prob.shape[1] == 2:
            y_prob, options["pos_label"] = y_prob[:, 1], result.classes[1]
        else:
            options["labels"] = result.classes
        if "random_state" in accepted:
            options["random_state"] = 0  # reproducible bands
        if "n_bootstrap" in accepted:
            options["n_bootstrap"] = min(result.n_bootstrap, 100)
        # The model names the panel; the legend keeps the measure short.
        display.from_predictions(result.y_true, y_prob, ax=ax, **options)
        ax.set_title(name)
    for ax in axes[len(results) :]:
        ax.set_visible(False)
    figure.savefig(path, dpi=100)
    return path


def _lesson(chosen, by_ece_rank):
    """One line on what selecting by ECE alone did, from the actual choices."""
    mrr = "MeanReplacementRecalibrator"
    ece, log, brier = (
        chosen["neg_expected_calibration_error"],
        chosen["neg_log_loss"],
        chosen["neg_brier_score"],
    )
    if ece == mrr and mrr not in (log, brier):
        return (
            "Lesson: ECE alone picked the mean-replacement baseline, which gives "
            "every sample the same confidence (its held-out accuracy): calibrated "
            "but useless. The proper scores, which also reward sharpness, did not."
        )
    if ece == mrr:
        return (
            "Lesson: here even a proper score picked the mean-replacement "
            "baseline: the classifier's scores carry little beyond its accuracy."
        )
    return (
        f"Lesson: here ECE alone picked {ece}, not the mean-replacement baseline "
        f"(ranked {by_ece_rank[mrr]} of {len(by_ece_rank)} by ECE); still, ECE "
        "cannot see sharpness: select by a proper score, report ECE beside it."
    )


def _demo(args):
    import sklearn.datasets
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.naive_bayes import GaussianNB

    from skcal.calibration import (
        HistogramBinningRecalibrator,
        IsotonicRecalibrator,
        MeanReplacementRecalibrator,
        ModifiedPlattRecalibrator,
        PlattRecalibrator,
        RecalibratedClassifierCV,
        TemperatureRecalibrator,
    )
    from skcal.model_selection import cross_val_calibration, get_scorer

    started = time.perf_counter()
    n_bootstrap = args.n_bootstrap
    if n_bootstrap is None:
        n_bootstrap = 10 if args.quick else 200
    n_folds = args.cv if args.cv is not None else (3 if args.quick else 5)
    inner_folds = 3 if args.quick else 5
    out_dir = Path(args.out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the output folder {out_dir}: {exc}") from exc

    loader, title, things = DATASETS[args.dataset]
    bunch = getattr(sklearn.datasets, loader)()
    X, y = bunch.data, bunch.target
    counts = ", ".join(
        f"{np.count_nonzero(y == k)} {name}"
        for k, name in enumerate(bunch.target_names)
    )
    if len(bunch.target_names) > 2:
        counts = f"{len(bunch.target_names)} classes"
    print(
        f"skcal demo: {title} (sklearn.datasets.{loader}: {X.shape[0]} {things}, "
        f"{X.shape[1]} features; {counts}); classifier GaussianNB"
    )
    print(
        "Each recalibrator wraps it in RecalibratedClassifierCV(GaussianNB(), "
        f"recalibrator, cv={inner_folds}, ensemble=False): fitted on out-of-fold "
        "scores, then GaussianNB refitted on all the training data."
    )

    recalibrators = [
        IsotonicRecalibrator,
        HistogramBinningRecalibrator,
        PlattRecalibrator,
        ModifiedPlattRecalibrator,
        TemperatureRecalibrator,
        MeanReplacementRecalibrator,
    ]

    def wrapped(recalibrator=None):
        return RecalibratedClassifierCV(
            GaussianNB(), recalibrator, cv=inner_folds, ensemble=False
        )

    models = {"GaussianNB": GaussianNB()}
    models.update({r.__name__: wrapped(r()) for r in recalibrators})
    folds = StratifiedKFold(n_folds, shuffle=True, random_state=0)
    drawing = _display("ReliabilityDisplay") is not None
    total = len(models) + 1 + drawing
    results = {}
    for i, (name, model) in enumerate(models.items(), start=1):
        with _step(i, total, name):
            results[name] = cross_val_calibration(
                model,
                X,
                y,
                cv=folds,
                metrics=DEMO_METRICS,
                n_bootstrap=n_bootstrap,
                random_state=0,
            )

    # (1) The comparison table, one row per model.
    level = next(iter(results.values())).confidence_level
    best = {m: min(r.value[m] for r in results.values()) for m in DEMO_METRICS}
    rows = []
    for name, result in results.items():
        row = ["none (GaussianNB)" if name == "GaussianNB" else _short(name)]
        for m in DEMO_METRICS:
            mark = "*" if result.value[m] == best[m] else " "
            row.append(
                _cell(result.value[m], result.ci_low[m], result.ci_high[m]) + mark
            )
        rows.append(row)
    interval = (
        f", [{100 * level:g}% bootstrap interval, {n_bootstrap} resamples]"
        if n_bootstrap
        else ""
    )
    print()
    print(
        f"(1) {n_folds}-fold cross-validation, measures on the pooled out-of-fold "
        f"predictions{interval}; lower is better, * = best:"
    )
    print(
        _format_table(["recalibrator", *(SHORT_NAMES[m] for m in DEMO_METRICS)], rows)
    )
    platt, modified = results["PlattRecalibrator"], results["ModifiedPlattRecalibrator"]
    if np.array_equal(platt.y_prob, modified.y_prob):
        print(
            "ModifiedPlatt predicted exactly what Platt did: its misspecification "
            "check kept the sigmoid every time."
        )

    # (2) Grid search over the recalibrators, by each scorer.
    scoring = {name: get_scorer(name) for name in GRID_SCORERS}
    candidates = [r() for r in recalibrators]
    search = GridSearchCV(
        wrapped(),
        {"recalibrator": candidates},
        scoring=scoring,
        refit="neg_log_loss",
        cv=folds,
    )
    with _step(
        len(models) + 1, total, f"GridSearchCV over {len(candidates)} recalibrators"
    ):
        search.fit(X, y)
    cv_results = search.cv_results_
    names = [type(c).__name__ for c in cv_results["param_recalibrator"]]
    chosen, rank_of = {}, {}
    for scorer in GRID_SCORERS:
        ranks = np.asarray(cv_results[f"rank_test_{scorer}"])
        chosen[scorer] = names[int(np.argmin(ranks))]
        rank_of[scorer] = dict(zip(names, ranks.tolist(), strict=True))
    rows = []
    for i, name in enumerate(names):
        row = [_short(name)]
        for scorer in GRID_SCORERS:
            mark = "*" if chosen[scorer] == name else " "
            row.append(f"{-cv_results[f'mean_test_{scorer}'][i]:.4f}{mark}")
        rows.append(row)
    print()
    print(
        f"(2) GridSearchCV(RecalibratedClassifierCV(GaussianNB()), "
        f'{{"recalibrator": [...]}}, cv={n_folds}): mean over the test folds, '
        "lower is better, * = chosen by that scorer:"
    )
    print(_format_table(["recalibrator", *GRID_SCORERS.values()], rows))
    print(
        f"Chosen by log loss: {chosen['neg_log_loss']}; by Brier score: "
        f"{chosen['neg_brier_score']}; by ECE alone: "
        f"{chosen['neg_expected_calibration_error']}."
    )
    print(_lesson(chosen, rank_of["neg_expected_calibration_error"]))

    # (3) Files.
    try:
        table_path = out_dir / "comparison.csv"
        _write_csv(
            table_path,
            [
                "recalibrator",
                *(f"{m}{s}" for m in DEMO_METRICS for s in ("", "_ci_low", "_ci_high")),
            ],
            [
                [
                    "none" if name == "GaussianNB" else name,
                    *(
                        repr(float(getattr(r, a)[m]))
                        for m in DEMO_METRICS
                        for a in ("value", "ci_low", "ci_high")
                    ),
                ]
                for name, r in results.items()
            ],
        )
        grid_path = out_dir / "grid_search.csv"
        _write_csv(
            grid_path,
            [
                "recalibrator",
                *(
                    f"{k}_{s}"
                    for s in GRID_SCORERS
                    for k in ("mean_test", "std_test", "rank_test")
                ),
            ],
            [
                [
                    name,
                    *(
                        cv_results[f"{k}_{s}"][i].item()
                        for s in GRID_SCORERS
                        for k in ("mean_test", "std_test", "rank_test")
                    ),
                ]
                for i, name in enumerate(names)
            ],
        )
        diagrams = []
        if drawing:
            with _step(total, total, "reliability diagrams"):
                diagrams = _write_diagrams(results, out_dir)
    except OSError as exc:
        raise InputError(f"cannot write to {out_dir}: {exc}") from exc
    print()
    print(f"(3) Wrote {table_path}, {grid_path}")
    if diagrams:
        print("    and the reliability diagrams " + ", ".join(map(str, diagrams)))
    else:
        print("    (no reliability diagrams: skcal.plotting is not available)")
    print(f"Done in {time.perf_counter() - started:.1f} s.", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------
# report: reading the file
# ---------------------------------------------------------------------------


def _rounding(text):
    """Half a unit of the last digit printed in ``text``; 0 for an integer."""
    mantissa, _, exponent = text.strip().lower().partition("e")
    _, dot, fraction = mantissa.partition(".")
    if not dot and not exponent:
        return 0.0
    return 0.5 * 10.0 ** (int(exponent or 0) - len(fraction))


def _labels_from_text(values):
    """Labels read as text: integers if all are, else numbers, else strings."""
    for kind in (int, float):
        try:
            return np.array([kind(v) for v in values])
        except ValueError:
            pass
    return np.array(values, dtype=str)


def _label_like(text, labels):
    """A label typed on the command line, converted to the type of ``labels``."""
    kind = labels.dtype.kind
    try:
        if kind in "iu":
            return int(text)
        if kind == "f":
            return float(text)
        if kind == "b":
            return {"true": True, "1": True, "false": False, "0": False}[text.lower()]
    except (ValueError, KeyError):
        pass
    return text


class _CsvColumns:
    """The columns of a CSV file with a header row."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, newline="", encoding="utf-8-sig") as f:
                reader = csv.reader(f)
                header = next(reader, None)
                rows, lines = [], []
                for row in reader:
                    if not row or (len(row) == 1 and not row[0].strip()):
                        continue  # a blank line
                    if len(row) != len(header):
                        raise InputError(
                            f"{path}, line {reader.line_num}: {len(row)} field(s), "
                            f"but the header has {len(header)}."
                        )
                    rows.append(row)
                    lines.append(reader.line_num)
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{path} is not a UTF-8 text CSV file (use --format npz for a NumPy "
                ".npz file)."
            ) from exc
        except csv.Error as exc:
            raise InputError(f"{path} is not a valid CSV file: {exc}") from exc
        if header is None:
            raise InputError(
                f"{path} is empty: expected a header row naming the columns, "
                "then one row per sample."
            )
        self.header = [name.strip() for name in header]
        if not rows:
            raise InputError(f"{path} has a header row but no data rows.")
        self.rows, self.lines = rows, lines
        self.n_samples = len(rows)

    def _index(self, name):
        if name not in self.header:
            shown = ", ".join(self.header[:20]) + (
                ", ..." if len(self.header) > 20 else ""
            )
            raise InputError(f"{self.path} has no column {name!r}; it has: {shown}.")
        return self.header.index(name)

    def _text(self, name):
        j = self._index(name)
        values = [row[j].strip() for row in self.rows]
        for value, line in zip(values, self.lines, strict=True):
            if not value:
                raise InputError(f"{self.path}, line {line}, column {name!r}: empty.")
        return values

    def labels(self, *names):
        """The label columns, read as one type (so that they compare)."""
        texts = [self._text(name) for name in names]
        joint = _labels_from_text([v for t in texts for v in t])
        n = self.n_samples
        return [joint[i * n : (i + 1) * n] for i in range(len(names))]

    def probabilities(self, names):
        """The columns as an (n, k) float array, and each row's rounding bound."""
        columns, rounding = [], np.zeros(self.n_samples)
        for name in names:
            values = []
            for i, (text, line) in enumerate(
                zip(self._text(name), self.lines, strict=True)
            ):
                try:
                    value = float(text)
                except ValueError:
                    value = None
                if value is None or not math.isfinite(value):
                    raise InputError(
                        f"{self.path}, line {line}, column {name!r}: {text!r} is not "
                        "a finite number."
                    )
                values.append(value)
                rounding[i] += _rounding(text)
            columns.append(values)
        where = [f"{self.path}, line {line}" for line in self.lines]
        return np.array(columns, dtype=np.float64).T, rounding, where

    def column_names(self, names):
        return list(names)


class _NpzColumns:
    """The arrays of a NumPy ``.npz`` file, read without pickles."""

    def __init__(self, path):
        self.path = path
        not_npz = InputError(
            f"{path} is not a NumPy .npz file (use --format csv for a CSV file)."
        )
        if not zipfile.is_zipfile(path):
            raise not_npz
        try:
            with np.load(path, allow_pickle=False) as data:
                self.arrays = {key: data[key] for key in data.files}
        except (zipfile.BadZipFile, EOFError, AttributeError) as exc:
            raise not_npz from exc
        except ValueError as exc:
            raise InputError(f"cannot read {path}: {exc}") from exc
        if not self.arrays:
            raise InputError(f"{path} is empty: it holds no arrays.")

    def guess(self):
        """The names of the only 1-D and the only 2-D array, if unambiguous."""
        one = [k for k, v in self.arrays.items() if v.ndim == 1]
        two = [k for k, v in self.arrays.items() if v.ndim == 2]
        if len(one) == 1 and len(two) == 1:
            return one[0], two[0]
        shown = ", ".join(f"{k} {v.shape}" for k, v in self.arrays.items())
        raise InputError(
            f"name the arrays of {self.path} with --y-true and --y-prob; it has: "
            f"{shown}."
        )

    def _array(self, name):
        if name not in self.arrays:
            raise InputError(
                f"{self.path} has no array {name!r}; it has: {', '.join(self.arrays)}."
            )
        return self.arrays[name]

    def _vector(self, name):
        array = self._array(name)
        if array.ndim != 1:
            raise InputError(
                f"array {name!r} of {self.path} has shape {array.shape}; expected "
                "one value per sample (1-D)."
            )
        return array

    def labels(self, *names):
        arrays = [self._vector(name) for name in names]
        for name, array in zip(names, arrays, strict=True):
            if array.shape[0] == 0:
                raise InputError(f"array {name!r} of {self.path} is empty.")
            if array.dtype.kind not in "biufUS":
                raise InputError(
                    f"array {name!r} of {self.path} has dtype {array.dtype}; "
                    "expected numbers or strings."
                )
        return arrays

    def probabilities(self, names):
        if len(names) == 1 and self._array(names[0]).ndim == 2:
            p = self._array(names[0])
        else:
            p = np.column_stack([self._vector(name) for name in names])
        if p.dtype.kind not in "biuf":
            raise InputError(
                f"{', '.join(names)} of {self.path} has dtype {p.dtype}; expected "
                "numbers."
            )
        bad = ~np.isfinite(p)
        if bad.any():
            i = int(np.argwhere(bad)[0, 0])
            raise InputError(f"{self.path}, row {i}: {p[i].tolist()} is not finite.")
        eps = np.finfo(p.dtype).eps if p.dtype.kind == "f" else 0.0
        rounding = np.full(p.shape[0], p.shape[1] * eps)
        where = [f"{self.path}, row {i}" for i in range(p.shape[0])]
        return p.astype(np.float64), rounding, where

    def column_names(self, names):
        if len(names) == 1 and self._array(names[0]).ndim == 2:
            return [
                f"{names[0]}[:, {j}]" for j in range(self._array(names[0]).shape[1])
            ]
        return list(names)


# ---------------------------------------------------------------------------
# report: the problem and its measures
# ---------------------------------------------------------------------------


def _check_probabilities(p, rounding, where, names):
    """Values in [0, 1]; rows of several columns summing to 1, then renormalized."""
    outside = (p < 0) | (p > 1)
    if outside.any():
        i, j = (int(v) for v in np.argwhere(outside)[0])
        raise InputError(
            f"{where[i]}, column {names[j]!r}: {p[i, j]:g} is outside [0, 1] "
            f"({int(outside.sum())} such value(s)); pass probabilities, not scores "
            "or logits."
        )
    if p.shape[1] == 1:
        return p[:, 0]
    totals = p.sum(axis=1)
    tolerance = np.maximum(1e-6, rounding)
    bad = np.abs(totals - 1) > tolerance
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(
            f"{where[i]}: the probabilities of the {p.shape[1]} classes sum to "
            f"{totals[i]:.6g}, not 1 ({int(bad.sum())} such row(s)); give one "
            "column per class."
        )
    return p / totals[:, None]


class _Problem:
    """Labels and probabilities ready for the measures.

    ``binary``: ``y`` holds 0/1 events and ``p`` their probabilities;
    otherwise ``y`` holds labels and ``p`` is (n, k) with columns ``classes``.
    """

    def __init__(self, y, p, classes, binary, description):
        self.y, self.p, self.classes = y, p, classes
        self.binary, self.description = binary, description

    def score(self, measure, sample_weight=None):
        if self.binary:
            y_prob = np.column_stack([1.0 - self.p, self.p])
            return measure.evaluate(
                self.y, y_prob, classes=[0, 1], sample_weight=sample_weight
            )
        return measure.evaluate(
            self.y, self.p, classes=self.classes, sample_weight=sample_weight
        )


def _positive_class(y, pos_label, y_name, column):
    """The class whose probability a single column gives."""
    seen = np.unique(y)
    if seen.shape[0] > 2:
        raise InputError(
            f"{y_name} has {seen.shape[0]} classes but there is one probability "
            "column: give one --y-prob column per class."
        )
    if pos_label is None:
        if seen.dtype.kind in "biuf" and (
            set(seen.tolist()) <= {0, 1} or set(seen.tolist()) <= {-1, 1}
        ):
            return 1
        raise InputError(
            f"{y_name} takes the values {seen.tolist()}: name the class whose "
            f"probability {column!r} gives with --pos-label."
        )
    pos = _label_like(pos_label, seen)
    if seen.shape[0] == 2 and pos not in seen.tolist():
        raise InputError(
            f"--pos-label {pos_label!r} is not one of the labels {seen.tolist()} "
            f"of {y_name}."
        )
    return pos


def _binary_problem(y, p, pos, y_name, column):
    events = (y == pos).astype(np.int64)
    return _Problem(
        events,
        p,
        None,
        True,
        f"binary; {column!r} is the probability of {y_name} == {pos!r}; "
        f"event rate {events.mean():.4f}, mean probability {p.mean():.4f}",
    )


def _multiclass_classes(y, k, labels, column_names, y_name):
    """The class of each probability column."""
    seen = np.unique(y)
    if labels is not None:
        classes = np.array([_label_like(v, seen) for v in labels])
        if len(classes) != k:
            raise InputError(
                f"--labels names {len(classes)} classes but there are {k} "
                "probability columns."
            )
    else:
        named = np.array([_label_like(v, seen) for v in column_names])
        if (
            len(column_names) == k
            and len(set(named.tolist())) == k
            and set(seen.tolist()) <= set(named.tolist())
        ):
            classes = named  # columns named after their classes
        elif seen.dtype.kind in "iu" and seen.min() >= 0 and seen.max() < k:
            classes = np.arange(k)  # integer labels index the columns
        elif seen.shape[0] == k:
            classes = seen
        else:
            raise InputError(
                f"{y_name} has {seen.shape[0]} distinct labels for {k} probability "
                "columns: name the class of each column with --labels."
            )
    if len(set(classes.tolist())) != k:
        raise InputError(f"--labels names a class twice: {classes.tolist()}.")
    missing = sorted(set(seen.tolist()) - set(classes.tolist()))
    if missing:
        raise InputError(
            f"{y_name} has labels {missing[:10]} that name no probability column "
            f"(the columns are the classes {classes.tolist()[:10]})."
        )
    return classes


def _read_problem(args):
    path = Path(args.predictions)
    fmt = args.format or ("npz" if path.suffix.lower() == ".npz" else "csv")
    if not path.exists():
        raise InputError(f"{path}: no such file.")
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a file.")
    columns = _CsvColumns(path) if fmt == "csv" else _NpzColumns(path)

    top_label = args.confidence is not None or args.predicted is not None
    if top_label:
        if args.y_prob:
            raise InputError(
                "use either --y-prob or --confidence with --predicted, not both."
            )
        if args.confidence is None or args.predicted is None:
            raise InputError("--confidence and --predicted go together.")
        if args.pos_label is not None or args.labels is not None:
            raise InputError(
                "--pos-label and --labels do not apply to top-label input "
                "(--confidence, --predicted)."
            )
    y_name, prob_names = args.y_true, args.y_prob
    if y_name is None:
        if fmt == "npz" and not top_label and not prob_names:
            y_name, prob_name = columns.guess()
            prob_names = [prob_name]
        else:
            raise InputError("name the column of true labels with --y-true.")
    if not top_label and not prob_names:
        if fmt == "npz":
            one, two = columns.guess()
            prob_names = [two]
        else:
            raise InputError(
                "name the probability column(s) with --y-prob (one column for a "
                "binary problem, one per class otherwise), or give --confidence "
                "and --predicted for top-label predictions."
            )

    if top_label:
        y, predicted = columns.labels(y_name, args.predicted)
        p, rounding, where = columns.probabilities([args.confidence])
        _check_lengths(path, {y_name: y, args.predicted: predicted, "": p})
        p = _check_probabilities(p, rounding, where, [args.confidence])
        correct = (y == predicted).astype(np.int64)
        return path, _Problem(
            correct,
            p,
            None,
            True,
            f"top-label: probability {args.confidence!r} of the event "
            f"{args.predicted} == {y_name}; accuracy {correct.mean():.4f}, "
            f"mean confidence {p.mean():.4f}",
        )

    (y,) = columns.labels(y_name)
    p, rounding, where = columns.probabilities(prob_names)
    _check_lengths(path, {y_name: y, "": p})
    names = columns.column_names(prob_names)
    p = _check_probabilities(p, rounding, where, names)
    if p.ndim == 1:
        pos = _positive_class(y, args.pos_label, y_name, names[0])
        return path, _binary_problem(y, p, pos, y_name, names[0])
    classes = _multiclass_classes(y, p.shape[1], args.labels, names, y_name)
    if p.shape[1] == 2:
        pos = classes[1].item()
        if args.pos_label is not None:
            pos = _label_like(args.pos_label, classes)
            if pos not in classes.tolist():
                raise InputError(
                    f"--pos-label {args.pos_label!r} is not one of the classes "
                    f"{classes.tolist()} of the columns."
                )
        j = classes.tolist().index(pos)
        return path, _binary_problem(y, p[:, j], pos, y_name, names[j])
    if args.pos_label is not None:
        raise InputError(
            f"--pos-label applies to binary problems; there are {p.shape[1]} "
            "probability columns."
        )
    order = np.argsort(classes, kind="stable")
    classes, p = classes[order], p[:, order]
    accuracy = np.mean(classes[p.argmax(axis=1)] == y)
    return path, _Problem(
        y,
        p,
        classes,
        False,
        f"{p.shape[1]} classes; calibration errors of the top label (confidence), "
        f"Brier score and log loss of the whole probability vectors; accuracy "
        f"{accuracy:.4f}, mean confidence {p.max(axis=1).mean():.4f}",
    )


def _check_lengths(path, arrays):
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{n or 'probabilities'}: {k}" for n, k in lengths.items())
        raise InputError(f"{path}: the arrays have different lengths ({shown}).")


def _report(args):
    from skcal._utils._bootstrap import bootstrap_intervals
    from skcal.metrics._registry import MEASURES_BY_NAME as METRICS

    path, problem = _read_problem(args)
    if args.out is not None:
        out_dir = Path(args.out)
        target = out_dir / f"{path.stem}-calibration.csv"
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(
                f"cannot create the output folder {out_dir}: {exc}"
            ) from exc
    n = problem.y.shape[0]
    metrics = {name: METRICS[name] for name in REPORT_METRICS}
    value = {name: problem.score(m) for name, m in metrics.items()}
    level = 0.95
    intervals = {}
    if args.n_bootstrap:
        with _step(1, 1, f"{args.n_bootstrap} bootstrap resamples of {n} rows"):
            intervals = bootstrap_intervals(
                lambda name, weights: problem.score(metrics[name], weights),
                value,
                n,
                args.n_bootstrap,
                level,
                np.random.RandomState(args.random_state),
            )
    rows, csv_rows = [], []
    for name in metrics:
        low, high = intervals.get(name, (math.nan, math.nan))
        interval = f"[{low:.4f}, {high:.4f}]" if args.n_bootstrap else "-"
        rows.append([name, f"{value[name]:.4f}", interval])
        csv_rows.append([name, repr(value[name]), repr(low), repr(high)])
    print(f"skcal report: {path.name}: {n} samples, {problem.description}")
    header = f"{100 * level:g}% CI" if args.n_bootstrap else "no interval"
    print(_format_table(["measure", "value", header], rows))
    if args.n_bootstrap:
        print(
            f"(bias-corrected percentile intervals from {args.n_bootstrap} "
            "bootstrap resamples of the rows; lower is better)"
        )
    if args.out is not None:
        try:
            _write_csv(target, ["measure", "value", "ci_low", "ci_high"], csv_rows)
        except OSError as exc:
            raise InputError(f"cannot write {target}: {exc}") from exc
        print(f"Wrote {target}")
        y_prob = (
            problem.p
            if not problem.binary
            else np.column_stack([1.0 - problem.p, problem.p])
        )
        predictions = types.SimpleNamespace(
            y_true=problem.y,
            y_prob=y_prob,
            classes=np.asarray(problem.classes if not problem.binary else [0, 1]),
            n_bootstrap=args.n_bootstrap,
        )
        try:
            diagrams = _write_diagrams({path.stem: predictions}, out_dir)
        except OSError as exc:
            raise InputError(f"cannot write to {out_dir}: {exc}") from exc
        if diagrams:
            print("Wrote " + ", ".join(map(str, diagrams)))
    return 0


# ---------------------------------------------------------------------------
# The parser and the entry point
# ---------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse, with every error (of a command too) as ``skcal: error: ...``."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(2, f"{PROG}: error: {message}\n")


def _count(minimum):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is less than {minimum}")
        return value

    parse.__name__ = "integer"
    return parse


def _build_parser():
    from skcal import __version__

    parser = _Parser(
        prog=PROG,
        description=(
            "Measure and repair the calibration of probabilistic classifiers. "
            "Start with `skcal demo`."
        ),
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    demo = commands.add_parser(
        "demo",
        help="compare every recalibrator on a data set that ships with scikit-learn",
        description=(
            "Cross-validate GaussianNB alone and wrapped in every skcal "
            "recalibrator; print calibration errors and proper scores with "
            "bootstrap intervals, then the recalibrator a grid search picks by a "
            "proper score and by ECE alone. Writes CSV files (and, when "
            "skcal.plotting is available, reliability diagrams) to --out. "
            "No downloads; about a minute on 2 cores."
        ),
    )
    demo.add_argument(
        "--out",
        metavar="DIR",
        default="skcal-demo",
        help="output folder, created if needed (default: ./skcal-demo)",
    )
    demo.add_argument(
        "--n-bootstrap",
        metavar="N",
        type=_count(0),
        default=None,
        help="bootstrap resamples per interval, 0 for none (default: 200; --quick: 10)",
    )
    demo.add_argument(
        "--cv",
        metavar="K",
        type=_count(2),
        default=None,
        help="cross-validation folds of the evaluation (default: 5; --quick: 3)",
    )
    demo.add_argument(
        "--dataset",
        choices=sorted(DATASETS),
        default="breast_cancer",
        help="breast_cancer (binary, default) or digits (10 classes, slower)",
    )
    demo.add_argument(
        "--quick",
        action="store_true",
        help="tiny settings (3 folds, 10 resamples), for a smoke test",
    )
    demo.set_defaults(func=_demo)

    report = commands.add_parser(
        "report",
        help="measure the calibration of predictions saved in a CSV or NPZ file",
        description=(
            "Measure the calibration of saved predictions, without a model: "
            "expected_calibration_error, smooth_ece, cutoff_calibration_error, "
            "brier_score_loss and log_loss, with bootstrap intervals. Give the "
            "true labels (--y-true) and either the probabilities (--y-prob: one "
            "column for a binary problem, one per class otherwise, or for an NPZ "
            "file the name of a 2-D array) or, for top-label predictions, the "
            "predicted label and its confidence (--predicted, --confidence). "
            "Rows of several columns must sum to 1, up to the rounding of the "
            "printed values."
        ),
    )
    report.add_argument(
        "predictions",
        metavar="PREDICTIONS",
        help="a CSV file with a header row, or a NumPy .npz file",
    )
    report.add_argument(
        "--y-true", metavar="COL", help="column (or NPZ array) of the true labels"
    )
    report.add_argument(
        "--y-prob",
        metavar="COL",
        nargs="+",
        help="probability column(s): one for a binary problem (of --pos-label), "
        "one per class, or the name of a 2-D NPZ array",
    )
    report.add_argument(
        "--confidence",
        metavar="COL",
        help="top-label input: the confidence of the predicted label",
    )
    report.add_argument(
        "--predicted",
        metavar="COL",
        help="top-label input: the predicted label (an event when it equals --y-true)",
    )
    report.add_argument(
        "--pos-label",
        metavar="L",
        help="binary input: the class whose probability --y-prob gives (default "
        "1 for labels in {0, 1} or {-1, 1})",
    )
    report.add_argument(
        "--labels",
        metavar="L",
        nargs="+",
        help="the class of each --y-prob column (default: the column names when "
        "they are the labels, else 0..k-1 for integer labels, else the sorted "
        "labels)",
    )
    report.add_argument(
        "--format",
        choices=["csv", "npz"],
        help="file format (default: from the extension)",
    )
    report.add_argument(
        "--out", metavar="DIR", help="also write the table as a CSV file to DIR"
    )
    report.add_argument(
        "--n-bootstrap",
        metavar="N",
        type=_count(0),
        default=200,
        help="bootstrap resamples for the intervals, 0 for none (default: 200)",
    )
    report.add_argument(
        "--random-state",
        metavar="SEED",
        type=_count(0),
        default=0,
        help="seed of the bootstrap (default: 0)",
    )
    report.set_defaults(func=_report)
    return parser


def main(argv=None):
    """Run the ``skcal`` command line.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments; None reads ``sys.argv[1:]``.

    Returns
    -------
    status : int
        0 on success, 2 for a usage error or malformed input.
    """
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if args.func is _demo:
        try:
            return _demo(args)
        except InputError as exc:
            return _error(_one_line(exc))
    try:
        return _report(args)
    except (ValueError, TypeError, OSError) as exc:
        # skcal's own validation messages, and ours, on one line.
        return _error(_one_line(exc))
