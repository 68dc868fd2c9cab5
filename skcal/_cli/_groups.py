"""``skcal report --groups COL``: the measures of each group of rows.

The group column is validated by the input contract
(:func:`skcal._validation.check_groups`); each group's rows get the report's
measures with their intervals (one engine,
:func:`skcal.metrics._interval.measure_intervals`), a table, a CSV file and a
reliability diagram with one panel per group
(:class:`~skcal.plotting.BinnedReliabilityDisplay` with ``groups=``).
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from pathlib import Path

import numpy as np

from skcal._cli._diagrams import CONFIDENCE_LEVEL
from skcal._cli._output import open_output, write_csv
from skcal._utils._table import format_table
from skcal._validation import check_groups


def group_paths(prefix):
    """The files ``--groups`` adds to ``--out``: its table and its diagram.

    Examples
    --------
    >>> [path.name for path in group_paths("out/preds-")]
    ['preds-groups.csv', 'preds-reliability-by-group.png']
    """
    return [Path(f"{prefix}groups.csv"), Path(f"{prefix}reliability-by-group.png")]


def measure_groups(problem, group_column, measure, intervals):
    """Each group's rows, size, values and intervals.

    Parameters
    ----------
    problem : skcal._cli._inputs.Problem
        The validated predictions.
    group_column : ndarray of shape (n_samples,)
        The group of each row, as read.
    measure : callable
        ``measure(problem) -> {name: value}``.
    intervals : callable
        ``intervals(problem, values) -> {name: (low, high)}`` (empty without
        resamples).

    Returns
    -------
    groups : list of tuple
        ``(label, n_rows, values, intervals)`` of each group, in the order
        of the sorted labels.
    """
    split = check_groups(group_column, problem.y_true.shape[0])
    found = []
    for label, rows in zip(split.labels.tolist(), split.members(), strict=True):
        part = problem._replace(
            y_true=problem.y_true[rows], y_prob=problem.y_prob[rows]
        )
        values = measure(part)
        found.append((label, rows.shape[0], values, intervals(part, values)))
    return found


def _cell(value, interval):
    low, high = interval if interval else (math.nan, math.nan)
    text = f"{value:.4f}"
    return text if not interval else f"{text} [{low:.4f}, {high:.4f}]"


def printed_groups(column, groups, names):
    """The lines of the table by group, and its worst group per measure."""
    header = ["group", "n", *names]
    rows = [
        [str(label), str(n), *(_cell(values[m], bounds.get(m)) for m in names)]
        for label, n, values, bounds in groups
    ]
    worst = []
    for name in names:
        label, _, values, _ = max(groups, key=lambda g, m=name: g[2][m])
        worst.append(f"{name}: {label!r} ({values[name]:.4f})")
    return [
        "",
        f"By group ({column}; value [{100 * CONFIDENCE_LEVEL:g}% CI]; a small "
        "group's calibration error is biased upwards, read it with its n and "
        "interval):",
        format_table(header, rows),
        "Worst group: " + "; ".join(worst),
    ]


def write_groups(paths, groups, column, panel, options):
    """Write the table by group as CSV and the reliability diagram by group.

    ``panel`` is ``(y_true, y_prob, classes)`` of all the rows and ``options``
    carries ``n_bins``, ``strategy``, ``top_label`` and ``overwrite``.
    """
    table, diagram = paths
    rows = []
    for label, n, values, bounds in groups:
        for name, value in values.items():
            low, high = bounds.get(name, (math.nan, math.nan))
            rows.append([label, n, name, repr(value), repr(low), repr(high)])
    header = [column, "n", "measure", "value", "ci_low", "ci_high"]
    write_csv(table, header, rows, options["overwrite"])
    _draw_groups(diagram, panel, column, options)
    return [table, diagram]


def _draw_groups(path, panel, column, options):
    """The binned reliability diagram, one panel per group, as a PNG file."""
    from matplotlib.figure import Figure

    from skcal.plotting import BinnedReliabilityDisplay

    y_true, y_prob, classes, groups = panel
    n_groups = np.unique(groups).shape[0]
    n_cols = math.ceil(math.sqrt(n_groups))
    n_rows = math.ceil(n_groups / n_cols)
    figure = Figure(
        figsize=(2.8 * n_cols + 0.8, 2.8 * n_rows + 1.6), layout="constrained"
    )
    display = BinnedReliabilityDisplay.from_predictions(
        y_true,
        y_prob,
        labels=classes,
        groups=groups,
        n_bins=options["n_bins"],
        strategy=options["strategy"],
        ax=figure.subplots(),
    )
    if options["top_label"]:
        for ax in display.axes_:
            ax.set(
                xlabel="Confidence" if ax.get_xlabel() else "",
                ylabel="Accuracy" if ax.get_ylabel() else "",
            )
    figure.suptitle(f"Reliability by {column}")
    with open_output(path, options["overwrite"], binary=True) as file:
        figure.savefig(file, format="png", dpi=100)
