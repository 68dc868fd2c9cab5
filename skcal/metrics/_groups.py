"""Measures by group: one measure on the rows of each group.

A model calibrated on average can be badly off for a region, an age band or
a language. Every public function of :mod:`skcal.metrics` whose first
arguments are ``y_true`` and predictions takes ``groups=``, one label per
row, through :func:`accepts_groups`: the data are validated once, the
function is called on the rows of each group with the classes of the whole
data (so that a group missing a class keeps every column), and the answers
are gathered in a :class:`GroupedResult`.
"""

# SPDX-License-Identifier: BSD-3-Clause

import functools
import inspect
import math
from numbers import Real
from typing import Any

import numpy as np

from skcal._utils._indexing import take_rows
from skcal._utils._table import format_table
from skcal._validation import check_calibration_inputs, check_groups

# The data arguments a grouped call splits by row (y_true and predictions are
# the function's first parameters; the other names are always rows).
_ROW_KEYWORDS = ("sample_weight",)


class GroupedResult:
    """A function of ``(y_true, y_prob)`` evaluated on each group of rows.

    Returned by every public function of :mod:`skcal.metrics` called with
    ``groups=``. Scalar answers are gathered in arrays: a measure's value in
    ``value``, and each number of a result object (``low`` and ``high`` of
    :func:`~skcal.metrics.confidence_interval`, ``statistic`` and
    ``p_value`` of a test) under its own name.

    Read more in the :ref:`User Guide <groups>`.

    Parameters
    ----------
    function : str
        The name of the function evaluated.
    groups : ndarray of shape (n_groups,)
        The group labels, sorted.
    results : list
        The function's answer on each group's rows.
    n_samples : ndarray of shape (n_groups,)
        The number of rows of each group.
    weight : ndarray of shape (n_groups,)
        The sum of each group's sample weights (``n_samples`` when
        unweighted).
    overall : object
        The function's answer on all the rows.

    Attributes
    ----------
    value : ndarray of shape (n_groups,)
        Each group's value, for a function that returns a number (or a
        result with a ``value``).
    worst_group : label or None
        The group with the largest value (or, for a test, the smallest
        p-value); None when the answers have neither. A small group's
        calibration error is biased upwards: read it with its size, an
        interval (:func:`~skcal.metrics.confidence_interval` with
        ``groups=``), or :func:`~skcal.metrics.calibration_audit`.

    See Also
    --------
    calibration_audit : The groups and intersections of groups whose
        calibration is worst relative to their uncertainty.

    Examples
    --------
    >>> from skcal.metrics import expected_calibration_error
    >>> y_true = [0, 1, 0, 1, 1, 1]
    >>> y_prob = [0.2, 0.8, 0.3, 0.7, 0.5, 0.6]
    >>> result = expected_calibration_error(
    ...     y_true, y_prob, n_bins=2, groups=["a", "a", "a", "b", "b", "b"])
    >>> result.groups.tolist(), result.value.round(4).tolist()
    (['a', 'b'], [0.2333, 0.4])
    >>> result.worst_group, result.n_samples.tolist()
    ('b', [3, 3])
    """

    def __init__(
        self,
        *,
        function: str,
        groups: np.ndarray,
        results: list,
        n_samples: np.ndarray,
        weight: np.ndarray,
        overall: Any,
    ) -> None:
        self.function = function
        self.groups = groups
        self.results = results
        self.n_samples = n_samples
        self.weight = weight
        self.overall = overall
        self.fields = _scalar_fields(results)
        self.worst_group = _worst_group(groups, self.fields)

    def __getattr__(self, name):
        # Only reached for names that are not attributes: the gathered fields.
        fields = self.__dict__.get("fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(
            f"{type(self).__name__} of {self.__dict__.get('function')!r} has no "
            f"attribute {name!r}; its fields are {sorted(fields)}."
        )

    def __getitem__(self, group):
        """The answer of one group, by its label."""
        matches = np.flatnonzero(self.groups == group)
        if matches.shape[0] != 1:
            raise KeyError(group)
        return self.results[int(matches[0])]

    def to_frame(self):
        """The table as a pandas DataFrame, one row per group.

        Returns
        -------
        frame : pandas.DataFrame
            Indexed by group, with columns ``n_samples``, ``weight`` and the
            gathered fields.
        """
        import pandas as pd

        columns = {"n_samples": self.n_samples, "weight": self.weight}
        columns.update(self.fields)
        return pd.DataFrame(columns, index=pd.Index(self.groups, name="group"))

    def __str__(self):
        # The numbers that differ between groups (not the options repeated).
        varying = [
            n
            for n, v in self.fields.items()
            if n == "value" or (n != "n_samples" and np.unique(v).shape[0] > 1)
        ]
        rows = [
            [str(g), str(n), *(f"{float(self.fields[k][i]):.4g}" for k in varying)]
            for i, (g, n) in enumerate(zip(self.groups, self.n_samples, strict=True))
        ]
        return (
            f"{self.function} by group (worst: {self.worst_group!r})\n"
            + format_table(["group", "n_samples", *varying], rows)
        )

    def __repr__(self):
        return str(self)


def _is_number(x):
    return isinstance(x, Real) and not isinstance(x, bool)


def _scalar_fields(results):
    """``{name: ndarray}`` of the numbers every answer has."""
    if all(_is_number(r) for r in results):
        return {"value": np.array(results, dtype=np.float64)}
    if not all(isinstance(r, dict) for r in results):
        return {}
    names = [
        k
        for k, v in results[0].items()
        if (_is_number(v) or v is None) and not isinstance(v, bool)
    ]
    fields = {}
    for name in names:
        column = [r.get(name) for r in results]
        if all(_is_number(v) or v is None for v in column):
            fields[name] = np.array(
                [math.nan if v is None else v for v in column], dtype=np.float64
            )
    return fields


def _worst_group(groups, fields):
    """The group of the largest value, or of the smallest p-value."""
    if "value" in fields:
        key = fields["value"]
    elif "p_value" in fields:
        key = -fields["p_value"]
    else:
        return None
    if np.isnan(key).all():
        return None
    return groups.tolist()[int(np.nanargmax(key))]


def _row_arguments(signature, bound):
    """The names of the bound arguments that hold one entry per row."""
    data = list(signature.parameters)[:2]
    if data[1] != "y_prob":  # y_prob_before, y_prob_after, ...
        data = [n for n in signature.parameters if n.startswith("y_")]
    return [n for n in (*data, *_ROW_KEYWORDS) if bound.get(n) is not None]


def evaluate_by_group(function, groups, args, kwargs):
    """``function(*args, **kwargs)`` on all the rows and on each group's rows.

    Parameters
    ----------
    function : callable
        A public function of ``(y_true, y_prob, ...)``, called without
        ``groups``.
    groups : array-like of shape (n_samples,)
        The group of each row.
    args, kwargs : tuple and dict
        The call's other arguments.

    Returns
    -------
    result : GroupedResult
        The answers of the groups whose weights are not all zero.
    """
    signature = inspect.signature(function)
    bound = signature.bind(*args, **kwargs).arguments
    rows = _row_arguments(signature, bound)
    y_prob = bound[rows[1]]
    weight = bound.get("sample_weight")
    data = check_calibration_inputs(
        bound[rows[0]], y_prob, weight, bound.get("pos_label"), bound.get("labels")
    )
    split = check_groups(groups, data.y_true.shape[0])
    if "labels" in signature.parameters:
        # Every group keeps the columns of the whole data.
        bound["labels"] = data.classes
    w = data.sample_weight
    labels, members = split.weighted_members(w)
    results = [
        function(**{**bound, **{n: take_rows(bound[n], part) for n in rows}})
        for part in members
    ]
    sizes = np.array([part.shape[0] for part in members])
    weights = (
        sizes.astype(np.float64)
        if w is None
        else np.array([w[part].sum() * data.weight_scale for part in members])
    )
    return GroupedResult(
        function=function.__name__,
        groups=labels,
        results=results,
        n_samples=sizes,
        weight=weights,
        overall=function(*args, **kwargs),
    )


def accepts_groups(function):
    """Give a public function of ``(y_true, y_prob, ...)`` its ``groups=``.

    The decorated function declares ``groups=None`` in its signature (so
    that its parameter validation and documentation have it) and never sees
    a value other than None: a call with groups goes to
    :func:`evaluate_by_group`, which calls it once per group.
    """

    @functools.wraps(function)
    def with_groups(*args, groups=None, **kwargs):
        if groups is None:
            return function(*args, **kwargs)
        return evaluate_by_group(function, groups, args, kwargs)

    return with_groups
