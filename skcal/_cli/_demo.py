"""``skcal demo``: every recalibrator under cross-validation, then a grid search.

A classifier, alone and with each recalibrator of
:func:`skcal.discovery.all_recalibrators`, is cross-validated by
:func:`skcal.model_selection.cross_val_calibration`; a grid search over the
recalibrators (scorers from :func:`skcal.metrics.get_scorers`) shows which
one each criterion picks. The classifier is GaussianNB on a data set of
scikit-learn (each recalibrator wraps it in ``RecalibratedClassifierCV``),
or a published network whose probabilities :mod:`skcal.datasets` ships
(each recalibrator then takes them as its ``X``). Everything is computed
and written first, then printed, so that an error leaves stdout empty.
"""

# SPDX-License-Identifier: BSD-3-Clause

import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from skcal._cli._diagrams import diagram_paths, write_diagrams
from skcal._cli._errors import reported
from skcal._cli._output import (
    format_interval,
    prepare_outputs,
    step,
    verbosity,
    write_csv,
)
from skcal._utils._bootstrap import N_BOOTSTRAP
from skcal._utils._table import format_table
from skcal.metrics._registry import MEASURES_BY_NAME

# The measures of the comparison (cross_val_calibration's default set): two
# calibration errors, each paired with a proper score.
DEMO_METRICS = (
    "expected_calibration_error",
    "smooth_ece",
    "brier_score_loss",
    "log_loss",
)
# The grid search's criteria: two proper scores, then the calibration errors.
GRID_METRICS = (
    "log_loss",
    "brier_score_loss",
    "expected_calibration_error",
    "smooth_ece",
)
# Data sets of scikit-learn (features, GaussianNB), then networks' outputs.
DATASETS = {
    "breast_cancer": ("load_breast_cancer", "breast cancer", "tumours"),
    "digits": ("load_digits", "handwritten digits", "images"),
}
NETWORKS = {
    "cifar10_lenet": ("load_cifar10_lenet", "LeNet-5", "CIFAR-10"),
    "cifar10_wideresnet": ("load_cifar10_wideresnet", "WideResNet-16-4", "CIFAR-10"),
}
MEAN_REPLACEMENT = "MeanReplacementRecalibrator"


class Settings(NamedTuple):
    """The demo's sizes: resamples, evaluation folds, recalibration folds, threads."""

    n_bootstrap: int
    n_folds: int
    inner_folds: int
    verbose: object
    n_jobs: int


def _settings(args):
    """The sizes from the options, ``--quick`` choosing small ones."""
    quick = args.quick
    return Settings(
        n_bootstrap=args.n_bootstrap
        if args.n_bootstrap is not None
        else (10 if quick else N_BOOTSTRAP),
        n_folds=args.cv if args.cv is not None else (3 if quick else 5),
        inner_folds=3 if quick else 5,
        verbose=verbosity(args),
        n_jobs=args.n_jobs,
    )


def _short(name):
    """A recalibrator's name without the ``Recalibrator`` suffix."""
    return name.removesuffix("Recalibrator")


def _scorer(metric):
    """The name of a registered measure's scorer."""
    return MEASURES_BY_NAME[metric].scorer


class Setup(NamedTuple):
    """The demo's data, its classifier and how a recalibrator is put around it.

    ``wrap(recalibrator)`` is the model with that recalibrator (None for the
    grid search's template, whose ``recalibrator`` parameter is searched);
    ``baseline`` names the classifier alone; ``template`` and ``wrapping``
    describe the models in the printed lines.
    """

    X: np.ndarray
    y: np.ndarray
    intro: str
    baseline: str
    classifier: object
    wrap: object
    template: str
    wrapping: str


def _features_setup(dataset, inner_folds):
    """GaussianNB on a data set of scikit-learn, wrapped by each recalibrator."""
    import sklearn.datasets
    from sklearn.naive_bayes import GaussianNB

    from skcal.calibration import RecalibratedClassifierCV

    loader, title, things = DATASETS[dataset]
    bunch = getattr(sklearn.datasets, loader)()
    X, y = bunch.data, bunch.target
    counts = ", ".join(
        f"{np.count_nonzero(y == k)} {name}"
        for k, name in enumerate(bunch.target_names)
    )
    if len(bunch.target_names) > 2:
        counts = f"{len(bunch.target_names)} classes"
    return Setup(
        X,
        y,
        intro=f"skcal demo: {title} (sklearn.datasets.{loader}: {X.shape[0]} "
        f"{things}, {X.shape[1]} features; {counts}); classifier GaussianNB",
        baseline="GaussianNB",
        classifier=GaussianNB(),
        wrap=lambda recalibrator: RecalibratedClassifierCV(
            GaussianNB(), recalibrator, cv=inner_folds, ensemble=False
        ),
        template="RecalibratedClassifierCV(GaussianNB())",
        wrapping="Each recalibrator wraps it in RecalibratedClassifierCV("
        f"GaussianNB(), recalibrator, cv={inner_folds}, ensemble=False): fitted "
        "on out-of-fold scores, then GaussianNB refitted on all the training data.",
    )


def _network_setup(dataset):
    """A network's shipped probabilities, which each recalibrator takes as ``X``."""
    from sklearn.pipeline import Pipeline

    import skcal.datasets
    from skcal._cli._given import GivenProbabilities
    from skcal.calibration import TemperatureRecalibrator

    loader, network, images = NETWORKS[dataset]
    bunch = getattr(skcal.datasets, loader)()
    X = bunch.probabilities.astype(np.float64)
    X /= X.sum(axis=1, keepdims=True)
    return Setup(
        X,
        bunch.target,
        intro=f"skcal demo: the {images} test images scored by a {network} "
        f"(skcal.datasets.{loader}: {X.shape[0]} images, {X.shape[1]} classes); "
        "its softmax probabilities are the classifier",
        baseline=network,
        classifier=GivenProbabilities(),
        wrap=lambda recalibrator: Pipeline(
            [("recalibrator", recalibrator or TemperatureRecalibrator())]
        ),
        template='Pipeline([("recalibrator", ...)])',
        wrapping="Each recalibrator takes the network's probabilities as its X "
        "(estimator=None): fitted on the training folds' probabilities.",
    )


def _setup(dataset, inner_folds):
    if dataset in NETWORKS:
        return _network_setup(dataset)
    return _features_setup(dataset, inner_folds)


def _models(setup):
    """``{name: model}``: the classifier alone, then with each recalibrator."""
    from skcal.discovery import all_recalibrators

    models = {setup.baseline: setup.classifier}
    for name, recalibrator in all_recalibrators():
        models[name] = setup.wrap(recalibrator())
    return models


def _cross_validate(models, X, y, folds, settings, total):
    """``{name: CrossValCalibration}``, one progress line per model."""
    from skcal.model_selection import cross_val_calibration

    results = {}
    for i, (name, model) in enumerate(models.items(), start=1):
        with step(i, total, name, settings.verbose):
            results[name] = cross_val_calibration(
                model,
                X,
                y,
                cv=folds,
                metrics=DEMO_METRICS,
                n_bootstrap=settings.n_bootstrap,
                random_state=0,
                n_jobs=settings.n_jobs,
                verbose=False,
            )
    return results


class GridResult(NamedTuple):
    """The grid search's candidates, its ``cv_results_`` and each scorer's pick."""

    names: list
    cv_results: dict
    chosen: dict
    rank_of: dict


def _grid_search(setup, folds, settings, index, total):
    """Grid search over the recalibrators by each scorer of :data:`GRID_METRICS`."""
    from sklearn.model_selection import GridSearchCV

    from skcal.discovery import all_recalibrators
    from skcal.metrics import get_scorers

    candidates = [recalibrator() for _, recalibrator in all_recalibrators()]
    search = GridSearchCV(
        setup.wrap(None),
        {"recalibrator": candidates},
        scoring=get_scorers([_scorer(m) for m in GRID_METRICS]),
        refit=_scorer("log_loss"),
        cv=folds,
    )
    with step(
        index,
        total,
        f"GridSearchCV over {len(candidates)} recalibrators",
        settings.verbose,
    ):
        search.fit(setup.X, setup.y)
    cv_results = search.cv_results_
    names = [type(c).__name__ for c in cv_results["param_recalibrator"]]
    chosen, rank_of = {}, {}
    for scorer in map(_scorer, GRID_METRICS):
        ranks = np.asarray(cv_results[f"rank_test_{scorer}"])
        chosen[scorer] = names[int(np.argmin(ranks))]
        rank_of[scorer] = dict(zip(names, ranks.tolist(), strict=True))
    return GridResult(names, cv_results, chosen, rank_of)


def _lesson(chosen, by_ece_rank):
    """One line on what selecting by ECE alone did, from the actual choices."""
    ece, log, brier = (
        chosen["neg_expected_calibration_error"],
        chosen["neg_log_loss"],
        chosen["neg_brier_score"],
    )
    if ece == MEAN_REPLACEMENT and MEAN_REPLACEMENT not in (log, brier):
        return (
            "Lesson: ECE alone picked the mean-replacement baseline, which gives "
            "every sample the same confidence (its held-out accuracy): calibrated "
            "but useless. The proper scores, which also reward sharpness, did not."
        )
    if ece == MEAN_REPLACEMENT:
        return (
            "Lesson: here even a proper score picked the mean-replacement "
            "baseline: the classifier's scores carry little beyond its accuracy."
        )
    return (
        f"Lesson: here ECE alone picked {ece}, not the mean-replacement baseline "
        f"(ranked {by_ece_rank[MEAN_REPLACEMENT]} of {len(by_ece_rank)} by ECE); "
        "still, ECE cannot see sharpness: select by a proper score, report ECE "
        "beside it."
    )


def _comparison_lines(results, settings, baseline):
    """Part (1): the comparison table, one row per model, * on the best."""
    best = {m: min(r.value[m] for r in results.values()) for m in DEMO_METRICS}
    rows = []
    for name, result in results.items():
        row = [f"none ({baseline})" if name == baseline else _short(name)]
        for m in DEMO_METRICS:
            mark = "*" if result.value[m] == best[m] else " "
            cell = format_interval(result.value[m], result.ci_low[m], result.ci_high[m])
            row.append(cell + mark)
        rows.append(row)
    level = next(iter(results.values())).confidence_level
    interval = (
        f", [{100 * level:g}% bootstrap interval, {settings.n_bootstrap} resamples]"
        if settings.n_bootstrap
        else ""
    )
    header = ["recalibrator", *(MEASURES_BY_NAME[m].short_name for m in DEMO_METRICS)]
    lines = [
        f"(1) {settings.n_folds}-fold cross-validation, measures on the pooled "
        f"out-of-fold predictions{interval}; lower is better, * = best:",
        format_table(header, rows),
    ]
    platt, modified = (
        results.get("PlattRecalibrator"),
        results.get("ModifiedPlattRecalibrator"),
    )
    if (
        platt is not None
        and modified is not None
        and np.array_equal(platt.y_prob, modified.y_prob)
    ):
        lines.append(
            "ModifiedPlatt predicted exactly what Platt did: its misspecification "
            "check kept the sigmoid every time."
        )
    return lines


def _grid_lines(grid, settings, template):
    """Part (2): the grid search's table, choices and lesson."""
    rows = []
    for i, name in enumerate(grid.names):
        row = [_short(name)]
        for scorer in map(_scorer, GRID_METRICS):
            mark = "*" if grid.chosen[scorer] == name else " "
            row.append(f"{-grid.cv_results[f'mean_test_{scorer}'][i]:.4f}{mark}")
        rows.append(row)
    header = ["recalibrator", *(MEASURES_BY_NAME[m].short_name for m in GRID_METRICS)]
    chosen = grid.chosen
    return [
        f"(2) GridSearchCV({template}, "
        f'{{"recalibrator": [...]}}, cv={settings.n_folds}): mean over the test '
        "folds, lower is better, * = chosen by that scorer:",
        format_table(header, rows),
        f"Chosen by log loss: {chosen['neg_log_loss']}; by Brier score: "
        f"{chosen['neg_brier_score']}; by ECE alone: "
        f"{chosen['neg_expected_calibration_error']}.",
        _lesson(chosen, grid.rank_of["neg_expected_calibration_error"]),
    ]


def _output_paths(out):
    """The demo's files in the folder ``out``: two tables, then the diagrams."""
    folder = Path(out)
    return [folder / "comparison.csv", folder / "grid_search.csv"], f"{folder}/"


def _write_comparison(path, results, baseline, overwrite):
    """The comparison table as CSV: each measure with its interval, per model."""
    header = [
        "recalibrator",
        *(f"{m}{s}" for m in DEMO_METRICS for s in ("", "_ci_low", "_ci_high")),
    ]
    rows = [
        [
            "none" if name == baseline else name,
            *(
                repr(float(getattr(result, a)[m]))
                for m in DEMO_METRICS
                for a in ("value", "ci_low", "ci_high")
            ),
        ]
        for name, result in results.items()
    ]
    write_csv(path, header, rows, overwrite)


def _write_grid(path, grid, overwrite):
    """The grid search's mean, spread and rank per scorer, per candidate."""
    keys = [
        f"{k}_{scorer}"
        for scorer in map(_scorer, GRID_METRICS)
        for k in ("mean_test", "std_test", "rank_test")
    ]
    rows = [
        [name, *(grid.cv_results[key][i].item() for key in keys)]
        for i, name in enumerate(grid.names)
    ]
    write_csv(path, ["recalibrator", *keys], rows, overwrite)


def _write_files(tables, prefix, results, grid, settings, baseline, overwrite):
    """Write both tables and the diagrams of every model; return the paths."""
    _write_comparison(tables[0], results, baseline, overwrite)
    _write_grid(tables[1], grid, overwrite)
    panels = {
        name: (r.y_true, r.y_prob, r.classes, r.sample_weight)
        for name, r in results.items()
    }
    return write_diagrams(
        panels,
        prefix,
        n_bootstrap=settings.n_bootstrap,
        n_jobs=settings.n_jobs,
        overwrite=overwrite,
    )


def run_demo(args):
    """Run ``skcal demo``.

    Parameters
    ----------
    args : argparse.Namespace
        The options (see :func:`skcal._cli._arguments.build_parser`).

    Returns
    -------
    status : int
        0; a failure raises :class:`~skcal._cli._errors.InputError`.
    """
    from joblib import parallel_config
    from sklearn.model_selection import StratifiedKFold

    started = time.perf_counter()
    settings = _settings(args)
    tables, prefix = _output_paths(args.out)
    prepare_outputs(Path(args.out), [*tables, *diagram_paths(prefix)], args.overwrite)
    setup = _setup(args.dataset, settings.inner_folds)
    models = _models(setup)
    folds = StratifiedKFold(settings.n_folds, shuffle=True, random_state=0)
    total = len(models) + 2
    # --n-jobs counts threads, for the fits too: on data this small, starting
    # worker processes costs more than the fits (about 1 s on two cores).
    with reported("demo"), parallel_config(backend="threading"):
        results = _cross_validate(models, setup.X, setup.y, folds, settings, total)
        grid = _grid_search(setup, folds, settings, len(models) + 1, total)
        with step(total, total, "tables and diagrams", settings.verbose):
            diagrams = _write_files(
                tables, prefix, results, grid, settings, setup.baseline, args.overwrite
            )
    lines = [
        setup.intro,
        setup.wrapping,
        "",
        *_comparison_lines(results, settings, setup.baseline),
        "",
        *_grid_lines(grid, settings, setup.template),
        "",
        f"(3) Wrote {', '.join(map(str, tables))}",
        f"    and the diagrams {', '.join(map(str, diagrams))}",
    ]
    print("\n".join(lines))
    if settings.verbose and sys.stderr.isatty():
        print(f"Done in {time.perf_counter() - started:.1f} s.", file=sys.stderr)
    return 0
