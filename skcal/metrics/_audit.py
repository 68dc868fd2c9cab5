"""The multicalibration audit: which groups, and intersections of groups, are
miscalibrated beyond their uncertainty.

A model calibrated on average can be miscalibrated on a group, or on the
intersection of two groups that each look fine (Hebert-Johnson et al., 2018).
The audit tests every group of every grouping column, and every intersection
of up to ``max_depth`` columns, for perfect calibration with the cumulative
tests of :mod:`skcal.metrics._significance`, whose normalised statistic is
the error in units of its standard deviation under calibration; it ranks them
by it and corrects the p-values for the number of groups tested.
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import itertools
from numbers import Integral, Real
from typing import Literal

import numpy as np
from scipy.stats import false_discovery_control

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions, validate_params
from skcal._reduction import binary_views, resolve_reduction
from skcal._typing import ArrayLike, Label
from skcal._utils._table import format_table
from skcal._validation import (
    DATA_CONSTRAINTS,
    Groups,
    check_calibration_inputs,
    check_groups,
)
from skcal.metrics._registry import MEASURES_BY_NAME
from skcal.metrics._significance import (
    _kolmogorov_smirnov_view,
    _kuiper_view,
    _spiegelhalter_view,
)

# The tests of one binary view: (y, p, w) -> (statistic, p_value, extras).
_TESTS = {
    "kuiper": _kuiper_view,
    "kolmogorov_smirnov": _kolmogorov_smirnov_view,
    "spiegelhalter": _spiegelhalter_view,
}

# The calibration errors reported beside the test (those with a view core).
_ERRORS = sorted(
    name
    for name, m in MEASURES_BY_NAME.items()
    if m.kind == "calibration_error" and m.core is not None
)


def _grouping_columns(groups, n_samples):
    """``[(name, Groups)]`` of a DataFrame, a dict of columns or a 1-D array."""
    if hasattr(groups, "columns") and hasattr(groups, "__getitem__"):
        items = [(str(c), groups[c]) for c in groups.columns]
    elif isinstance(groups, dict):
        items = [(str(k), v) for k, v in groups.items()]
    else:
        array = np.asarray(groups, dtype=object)
        if array.ndim == 2:
            items = [(f"x{j}", array[:, j]) for j in range(array.shape[1])]
        else:
            items = [("group", groups)]
    if not items:
        raise ValueError("groups has no column: pass at least one grouping column.")
    return [(name, check_groups(column, n_samples)) for name, column in items]


def _subgroups(columns, max_depth):
    """Every group and intersection of up to ``max_depth`` columns.

    Yields ``(description, depth, rows)``, e.g. ``("region=east & age=old",
    2, rows)``, for every combination of values that has rows.
    """
    for depth in range(1, min(max_depth, len(columns)) + 1):
        for chosen in itertools.combinations(columns, depth):
            shape = tuple(g.labels.shape[0] for _, g in chosen)
            key = np.ravel_multi_index(tuple(g.codes for _, g in chosen), shape)
            cells = Groups(*np.unique(key, return_inverse=True))
            for cell, rows in zip(cells.labels, cells.members(), strict=True):
                where = np.unravel_index(cell, shape)
                description = " & ".join(
                    f"{name}={g.labels[i]!s}"
                    for (name, g), i in zip(chosen, where, strict=True)
                )
                yield description, depth, rows


def adjusted_p_values(p_values, correction):
    """p-values corrected for the number of tests.

    ``"holm"`` (Holm 1979) and ``"bonferroni"`` bound the probability of any
    false discovery whatever the dependence between the tests;
    ``"fdr_bh"`` (Benjamini and Hochberg 1995, by
    :func:`scipy.stats.false_discovery_control`) bounds the expected share
    of false discoveries among the flagged groups, for independent or
    positively dependent tests; None leaves them as they are.

    Examples
    --------
    >>> adjusted_p_values([0.01, 0.04, 0.03], "holm").round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.shape[0]
    if correction is None or m == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, m * p)
    if correction == "fdr_bh":
        return false_discovery_control(p, method="bh")
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, stepped)
    return adjusted


class CalibrationAudit:
    """The result of :func:`calibration_audit`: one row per group tested.

    Read more in the :ref:`User Guide <groups>`.

    Parameters
    ----------
    table : dict of ndarray
        The columns of the table (see :func:`calibration_audit`), sorted by
        decreasing normalised statistic.
    test, metric, correction : str
        The test, the calibration error shown and the correction.
    alpha : float
        The level at which groups are flagged.
    n_skipped : int
        Groups and intersections left out for having fewer than
        ``min_samples`` rows.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.metrics import calibration_audit
    >>> rng = np.random.RandomState(0)
    >>> y_prob = rng.uniform(size=2000)
    >>> region = rng.choice(["north", "south"], size=2000)
    >>> y_true = rng.uniform(size=2000) < np.where(region == "south", y_prob**2, y_prob)
    >>> audit = calibration_audit(y_true, y_prob, groups={"region": region})
    >>> audit.flagged
    ['region=south']
    >>> int(audit.table["n_samples"][0])
    1008
    """

    def __init__(
        self,
        *,
        table: dict[str, np.ndarray],
        test: str,
        metric: str,
        correction: str | None,
        alpha: float,
        n_skipped: int,
    ) -> None:
        self.table = table
        self.test = test
        self.metric = metric
        self.correction = correction
        self.alpha = alpha
        self.n_skipped = n_skipped

    @property
    def flagged(self):
        """The groups whose corrected p-value is at most ``alpha``, worst first."""
        return self.table["group"][self.table["flagged"]].tolist()

    def to_frame(self):
        """The table as a pandas DataFrame, one row per group, worst first.

        Returns
        -------
        frame : pandas.DataFrame
            The columns of ``table``, one row per group tested.
        """
        import pandas as pd

        return pd.DataFrame(self.table)

    def __str__(self, max_rows=20):
        t = self.table
        rows = [
            [
                t["group"][r],
                str(t["n_samples"][r]),
                f"{t['error'][r]:.4f}",
                f"{t['normalized_statistic'][r]:.2f}",
                f"{t['p_value'][r]:.2g}",
                f"{t['adjusted_p_value'][r]:.2g}" + (" *" if t["flagged"][r] else ""),
            ]
            for r in range(min(max_rows, len(t["group"])))
        ]
        header = ["group", "n", self.metric, "normalized", "p_value", "adjusted"]
        return (
            f"Calibration audit ({self.test} test, {self.correction or 'no'} "
            f"correction; * flagged at alpha={self.alpha:g}): {len(t['group'])} "
            f"groups, {len(self.flagged)} flagged, {self.n_skipped} too small\n"
            + format_table(header, rows)
        )

    def __repr__(self):
        return str(self)


def _tested(y, p, w, columns, options):
    """The test and the calibration error of every group large enough.

    Returns the table's rows as a list of dicts, and the number of groups
    left out for having fewer than ``min_samples`` rows (or no weight).
    """
    view_test = _TESTS[options["test"]]
    measure = MEASURES_BY_NAME[options["metric"]]
    error = measure.core(**measure.core_options({}))
    rows_out, n_skipped = [], 0
    for description, depth, rows in _subgroups(columns, options["max_depth"]):
        weight = None if w is None else w[rows]
        if rows.shape[0] < options["min_samples"] or (
            weight is not None and not weight.any()
        ):
            n_skipped += 1
            continue
        statistic, p_value, extras = view_test(y[rows], p[rows], weight)
        normalized = extras.get("normalized_statistic", abs(statistic))
        rows_out.append(
            {
                "group": description,
                "depth": depth,
                "n_samples": rows.shape[0],
                "error": error(y[rows], p[rows], weight),
                "statistic": statistic,
                "normalized_statistic": normalized,
                "p_value": p_value,
            }
        )
    return rows_out, n_skipped


def _table(rows, correction, alpha):
    """The columns of the table, worst first, with corrected p-values."""
    keys = ("group", "depth", "n_samples", "error", "statistic")
    keys += ("normalized_statistic", "p_value")
    table = {k: np.array([r[k] for r in rows]) for k in keys}
    if not rows:
        table = {k: np.array([]) for k in keys}
    table["adjusted_p_value"] = adjusted_p_values(table["p_value"], correction)
    table["flagged"] = table["adjusted_p_value"] <= alpha
    order = np.argsort(-table["normalized_statistic"], kind="stable")
    return {k: v[order] for k, v in table.items()}


@validate_params(
    {
        **DATA_CONSTRAINTS,
        "groups": ["array-like", dict],
        "reduction": [StrOptions({"auto", "positive", "top_label"})],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "min_samples": [Interval(Integral, 1, None, closed="left")],
        "test": [StrOptions(set(_TESTS))],
        "metric": [StrOptions(set(_ERRORS))],
        "correction": [StrOptions({"holm", "bonferroni", "fdr_bh"}), None],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
@fill_doc
def calibration_audit(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    groups: ArrayLike | dict,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    reduction: Literal["auto", "positive", "top_label"] = "auto",
    max_depth: int = 2,
    min_samples: int = 50,
    test: Literal["kolmogorov_smirnov", "kuiper", "spiegelhalter"] = "kuiper",
    metric: str = "expected_calibration_error",
    correction: Literal["bonferroni", "fdr_bh", "holm"] | None = "holm",
    alpha: float = 0.05,
) -> CalibrationAudit:
    r"""Find the groups, and intersections of groups, that are miscalibrated.

    Every group of every grouping column, and every intersection of up to
    ``max_depth`` columns (e.g. ``region=east & age=old``), with at least
    ``min_samples`` rows is tested for perfect calibration; the groups are
    ranked by the test's normalised statistic, the calibration error in
    units of its standard deviation under calibration, so that a large
    group with a moderate error ranks above a small group whose large error
    is noise. The p-values are corrected for the number of groups tested,
    and those at most ``alpha`` are flagged. A group that passes is not
    shown to be calibrated: the test may lack the rows to see its error.

    Read more in the :ref:`User Guide <groups>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    groups : DataFrame, dict or array-like
        The grouping columns: a pandas DataFrame or a dict ``{name: labels}``
        (each column one label per sample), an array of shape
        ``(n_samples, n_columns)``, or one column of shape ``(n_samples,)``.
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    reduction : {"auto", "positive", "top_label"}, default="auto"
        The binary view tested (see :ref:`multiclass`): ``"auto"`` is
        ``"positive"`` for binary problems and ``"top_label"`` otherwise.
    max_depth : int, default=2
        The most columns intersected.
    min_samples : int, default=50
        Groups with fewer rows are not tested (their number is
        ``n_skipped``): the tests' p-values are asymptotic.
    test : {"kuiper", "kolmogorov_smirnov", "spiegelhalter"}, default="kuiper"
        The test of perfect calibration (:func:`kuiper_test`,
        :func:`kolmogorov_smirnov_test`, :func:`spiegelhalter_test`).
    metric : str, default="expected_calibration_error"
        The calibration error shown for each group (a name of
        :func:`skcal.discovery.all_measures` of kind
        ``"calibration_error"``), at its defaults.
    correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
        The multiple-testing correction (see Notes).
    alpha : float, default=0.05
        The level at which a corrected p-value flags a group.

    Returns
    -------
    audit : CalibrationAudit
        ``audit.table`` holds, worst first, ``group`` (its description),
        ``depth``, ``n_samples``, ``error`` (the ``metric``),
        ``statistic``, ``normalized_statistic``, ``p_value``,
        ``adjusted_p_value`` and ``flagged``; ``audit.flagged`` lists the
        flagged groups; ``print(audit)`` shows the table.

    See Also
    --------
    kuiper_test : The test of one set of predictions.
    GroupedResult : Any measure by group, without tests.

    Notes
    -----
    For the rows of a group, sorted by prediction, with weights :math:`w_i`
    (1 when unweighted) and :math:`W = \sum_i w_i`, the Kuiper statistic
    is the range of the cumulative residual
    :math:`C_k = \sum_{i \le k} w_i (y_i - p_i) / W` and its scale under
    perfect calibration is
    :math:`\sigma = \sqrt{\sum_i w_i^2 p_i (1 - p_i)} / W`; the
    normalised statistic :math:`\max_k C_k - \min_k C_k` over
    :math:`\sigma` has, asymptotically, the law of the range of a standard
    Brownian motion on [0, 1] [2]_. The groups overlap (an intersection lies
    in each of its groups), so their tests are dependent: Holm's step-down
    correction [3]_ and Bonferroni's control the probability of flagging
    any calibrated group whatever the dependence; Benjamini and Hochberg's
    (``"fdr_bh"``) controls the expected share of calibrated groups among
    those flagged, under positive dependence. Auditing every intersection
    is the finite version of multicalibration [1]_.

    References
    ----------
    .. [1] U. Hebert-Johnson, M. P. Kim, O. Reingold and G. N. Rothblum,
       "Multicalibration: Calibration for the (Computationally-Identifiable)
       Masses", ICML 2018.
    .. [2] I. Arrieta-Ibarra, P. Gujral, J. Tannen, M. Tygert and C. Xu,
       "Metrics of calibration for probabilistic predictions", JMLR 23(351),
       2022, arXiv:2205.09680.
    .. [3] S. Holm, "A Simple Sequentially Rejective Multiple Test
       Procedure", Scandinavian Journal of Statistics 6(2), 1979.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.metrics import calibration_audit
    >>> rng = np.random.RandomState(0)
    >>> n = 4000
    >>> y_prob = rng.uniform(size=n)
    >>> region = rng.choice(["north", "south"], size=n)
    >>> age = rng.choice(["young", "old"], size=n)

    Only the old of the south are miscalibrated, which neither column shows
    as clearly as their intersection:

    >>> hidden = (region == "south") & (age == "old")
    >>> y_true = rng.uniform(size=n) < np.where(hidden, y_prob**2, y_prob)
    >>> audit = calibration_audit(
    ...     y_true, y_prob, groups={"region": region, "age": age})
    >>> audit.flagged[0]
    'region=south & age=old'
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    ((y, p),) = binary_views(data, resolve_reduction(data, reduction))
    columns = _grouping_columns(groups, data.y_true.shape[0])
    options = {"test": test, "metric": metric, "max_depth": max_depth}
    options["min_samples"] = min_samples
    rows, n_skipped = _tested(y, p, data.sample_weight, columns, options)
    return CalibrationAudit(
        table=_table(rows, correction, alpha),
        test=test,
        metric=metric,
        correction=correction,
        alpha=alpha,
        n_skipped=n_skipped,
    )
