"""``skcal report``: the calibration of predictions saved in a file.

The file is read (only the named columns), the columns are validated once by
skcal's input contract, every measure is computed by the registry's
``Measure.evaluate`` with the intervals of
:func:`skcal.metrics.confidence_interval` (one engine,
:func:`skcal.metrics._interval.measure_intervals`), and the table is printed and,
with ``--out``, written with the diagrams; then the per-bin table and the
answers to ``--at`` (:mod:`skcal._cli._bin_table`). Output files are written
before anything is printed, so that an error leaves stdout empty.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from pathlib import Path

import numpy as np

from skcal._cli._bin_table import (
    BIN_HEADER,
    ReportView,
    bin_rows,
    bin_table,
    bins_phrase,
    describe,
    near,
    printed_bins,
)
from skcal._cli._diagrams import (
    CONFIDENCE_LEVEL,
    diagram_paths,
    smooth_panel,
    write_diagrams,
)
from skcal._cli._errors import reported
from skcal._cli._groups import (
    group_paths,
    measure_groups,
    printed_groups,
    write_groups,
)
from skcal._cli._inputs import build_problem, column_request
from skcal._cli._output import prepare_outputs, verbosity, write_csv
from skcal._cli._reading import TEXT_FORMATS, read_columns, source
from skcal._cli._stream import is_streamed, run_streamed_report
from skcal._utils._table import format_table
from skcal.metrics._interval import measure_intervals
from skcal.metrics._registry import MEASURES_BY_NAME

# The measures that take the report's --n-bins and --strategy.
_BINNED = ("expected_calibration_error", "binned_calibration_error")


def _bins(args):
    return {"n_bins": args.n_bins, "strategy": args.strategy}


def _options(args, measures):
    """``{name: options}``: the bins of the binned measures."""
    return {name: (_bins(args) if name in _BINNED else {}) for name in measures}


def _about(src, request):
    """The subject of a data error: the file, and what top-label input means."""
    if request.confidence is None:
        return str(src.path)
    return (
        f"{src.path} (top-label input: y_true is whether {request.predicted!r} "
        f"equals {request.y_true!r}, y_prob is {request.confidence!r})"
    )


def _load(args, src, request):
    """The validated problem and the group column (or None); the other columns
    as read are dropped on return."""
    columns = read_columns(src, request.labels(), request.numbers(), args.max_bytes)
    with reported(_about(src, request)):
        problem = build_problem(
            request,
            columns,
            printed=src.format in TEXT_FORMATS,
            pos_label=args.pos_label,
            labels=args.labels,
        )
    return problem, columns.get(request.groups)


def _panel(problem):
    """The diagrams' panel of the problem: labels, matrix, classes, no weights."""
    return (problem.classes[problem.y_true], problem.y_prob, problem.classes, None)


def _smooth(problem, measures, args):
    """The smooth curve of the diagram, when the SmoothECE has an interval.

    ``(smooth_panel's curves, {"smooth_ece": bootstrap})``: the curve's
    replicates, drawn with the other measures', give both the diagram's
    band and the SmoothECE's interval. ``(None, {})`` otherwise.
    """
    if "smooth_ece" not in measures or not args.n_bootstrap:
        return None, {}
    computed, bootstrap = smooth_panel(_panel(problem))
    return computed, {"smooth_ece": bootstrap}


def _intervals(problem, measures, values, args, joint):
    """``{name: (low, high)}`` from ``--n-bootstrap`` resamples; empty for 0.

    ``joint`` are other statistics drawn with the measures (see
    :func:`~skcal.metrics._interval.measure_intervals`).
    """
    if not args.n_bootstrap or not (measures or joint):
        return {}
    return measure_intervals(
        measures,
        (
            problem.y_true,
            problem.y_prob,
            np.arange(problem.y_prob.shape[1]),
            None,
            None,
        ),
        values,
        n_bootstrap=args.n_bootstrap,
        confidence_level=CONFIDENCE_LEVEL,
        rng=np.random.RandomState(args.random_state),
        verbose=verbosity(args),
        options=_options(args, measures),
        n_jobs=args.n_jobs,
        joint=joint,
    )


def _measure(args, src, request):
    """The problem, ``{name: value}``, ``{name: (low, high)}``, the smooth curve,
    and the groups' (:func:`~skcal._cli._groups.measure_groups`, or None)."""
    problem, group_column = _load(args, src, request)
    measures = {name: MEASURES_BY_NAME[name] for name in dict.fromkeys(args.metrics)}
    options = _options(args, measures)

    def measure(part):
        return {name: part.score(m, **options[name]) for name, m in measures.items()}

    with reported(str(src.path)):
        values = measure(problem)
        smooth, joint = _smooth(problem, measures, args)
        others = {k: m for k, m in measures.items() if k not in joint}
        intervals = _intervals(problem, others, values, args, joint)
    groups = None
    if group_column is not None:
        with reported(f"{src.path}: --groups {request.groups!r}"):
            groups = measure_groups(
                problem,
                group_column,
                measure,
                lambda part, v: _intervals(part, measures, v, args, {}),
            )
    return problem, values, intervals, smooth, group_column, groups


def _outputs(args, src):
    """The table's path and the diagrams' prefix; the folder ready, or None."""
    if args.out is None:
        return None
    folder = Path(args.out)
    table, prefix = folder / f"{src.stem}-calibration.csv", f"{folder / src.stem}-"
    bins = folder / f"{src.stem}-bins.csv"
    paths = [table, bins, *diagram_paths(prefix)]
    if args.groups is not None:
        paths += group_paths(prefix)
    prepare_outputs(folder, paths, args.overwrite)
    return table, bins, prefix


def _write(outputs, measured, bins, args, src):
    """Write the tables as CSV and the diagrams; return the paths.

    ``measured`` is what :func:`_measure` returned.
    """
    problem, values, intervals, smooth, group_column, groups = measured
    table, bins_path, prefix = outputs
    rows = []
    for name, value in values.items():
        low, high = intervals.get(name, (math.nan, math.nan))
        rows.append([name, repr(value), repr(low), repr(high)])
    write_csv(table, ["measure", "value", "ci_low", "ci_high"], rows, args.overwrite)
    write_csv(bins_path, BIN_HEADER, bin_rows(bins), args.overwrite)
    with reported(f"{src.path}: cannot draw the diagrams"):
        diagrams = write_diagrams(
            {src.stem: _panel(problem)},
            prefix,
            n_bootstrap=args.n_bootstrap,
            n_jobs=args.n_jobs,
            overwrite=args.overwrite,
            binned={"n_bins": args.n_bins, "strategy": args.strategy},
            top_label=problem.top_label,
            verbose=verbosity(args),
            computed=None if smooth is None else {src.stem: smooth},
        )
    written = [table, bins_path, *diagrams]
    if groups is not None:
        options = {**_bins(args), "top_label": problem.top_label}
        options["overwrite"] = args.overwrite
        classes = np.arange(problem.y_prob.shape[1])
        panel = (problem.y_true, problem.y_prob, classes, group_column)
        with reported(f"{src.path}: cannot draw the diagram by group"):
            written += write_groups(
                group_paths(prefix), groups, args.groups, panel, options
            )
    return written


def _printed_table(src, problem, values, intervals, n_bootstrap):
    """The lines of the measures' table."""
    rows = []
    for name, value in values.items():
        low, high = intervals.get(name, (math.nan, math.nan))
        interval = f"[{low:.4f}, {high:.4f}]" if n_bootstrap else "-"
        rows.append([name, f"{value:.4f}", interval])
    n = problem.y_prob.shape[0]
    level = f"{100 * CONFIDENCE_LEVEL:g}% CI" if n_bootstrap else "no interval"
    lines = [
        f"skcal report: {src.path.name}: {n} samples, {problem.description}",
        format_table(["measure", "value", level], rows),
    ]
    if n_bootstrap:
        lines.append(
            f"({n_bootstrap} bootstrap resamples; intervals for the population "
            "value: a calibration error's lower end allows for its upward bias "
            "and is 0 when the data are consistent with a calibrated model; "
            "lower is better)"
        )
    return lines


def _printed_rest(args, view, values, bins):
    """The lines after the measures: definitions, per-bin table, --at answers."""
    lines = ["", "What the measures are:"]
    lines += [f"  {name}: {describe(name, view, _bins(args))}" for name in values]
    lines += [
        "",
        f"Per bin ({bins_phrase(args.n_bins, args.strategy)} of the {view.axis}; "
        f"observed rate: how often {view.event}; {100 * CONFIDENCE_LEVEL:g}% "
        "Wilson intervals):",
        format_table(*printed_bins(bins, view, CONFIDENCE_LEVEL)),
    ]
    if args.at:
        lines.append("")
        lines += [near(view, at, args.near, CONFIDENCE_LEVEL) for at in args.at]
    return lines


def run_report(args):
    """Run ``skcal report``.

    Parameters
    ----------
    args : argparse.Namespace
        The options (see :func:`skcal._cli._arguments.build_parser`).

    Returns
    -------
    status : int
        0; bad input raises :class:`~skcal._cli._errors.InputError`.
    """
    if is_streamed(args):
        return run_streamed_report(args)
    src = source(args.predictions, args.format)
    request = column_request(args, src)
    outputs = _outputs(args, src)
    measured = _measure(args, src, request)
    problem, values, intervals, _, _, groups = measured
    view = ReportView.of(problem)  # the binary view, taken once
    bins = bin_table(view, args.n_bins, args.strategy, CONFIDENCE_LEVEL)
    written = [] if outputs is None else _write(outputs, measured, bins, args, src)
    lines = _printed_table(src, problem, values, intervals, args.n_bootstrap)
    if groups is not None:
        lines += printed_groups(args.groups, groups, list(values))
    lines += _printed_rest(args, view, values, bins)
    lines += [f"Wrote {path}" for path in written]
    print("\n".join(lines))
    return 0
