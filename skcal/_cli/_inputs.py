"""From options and columns to validated predictions (a :class:`Problem`).

The command line checks nothing that skcal's input contract checks: the
columns go to :func:`skcal._validation.check_calibration_inputs` as they
were read, and its ``ValueError`` or ``TypeError`` is reported. What
happens here is assembly only:

- labels typed on the command line (``--pos-label``, ``--labels``, the names
  of probability columns) are converted to the type of the label column;
- several probability columns are stacked into a matrix, whose column names
  the contract may take as the classes (a data frame);
- rows of printed probabilities that sum to 1 only up to the rounding of the
  printed values are renormalised (see :func:`renormalize_rounded`);
- top-label input becomes the event "predicted label == true label", with
  missing labels kept missing, and its confidence.
"""

# SPDX-License-Identifier: BSD-3-Clause

from typing import NamedTuple

import numpy as np

from skcal._cli._errors import InputError
from skcal._cli._reading import guess_columns
from skcal._validation import check_calibration_inputs

# Rows of a matrix must sum to 1 within this tolerance (the contract's
# smallest); printed values get more, from their rounding.
ROW_SUM_TOLERANCE = 1e-6


class Request(NamedTuple):
    """The columns the report needs.

    Attributes
    ----------
    y_true : str
        The labels.
    y_prob : list of str
        The probability columns (empty for top-label input).
    predicted, confidence : str or None
        Top-label input: the predicted label and its confidence.
    groups : str or None
        The group labels (``--groups``).
    """

    y_true: str
    y_prob: list
    predicted: str | None = None
    confidence: str | None = None
    groups: str | None = None

    def labels(self):
        """The label columns."""
        columns = [self.y_true]
        if self.predicted is not None:
            columns.append(self.predicted)
        if self.groups is not None and self.groups not in columns:
            columns.append(self.groups)
        return columns

    def numbers(self):
        """The columns of numbers."""
        return list(self.y_prob) if self.confidence is None else [self.confidence]


def _check_top_label_options(args):
    """Refuse options that do not go with top-label input."""
    if args.y_prob:
        raise InputError(
            "use either --y-prob or --confidence with --predicted, not both"
        )
    if args.confidence is None or args.predicted is None:
        raise InputError("--confidence and --predicted go together")
    if args.pos_label is not None or args.labels is not None:
        raise InputError(
            "--pos-label and --labels do not apply to top-label input "
            "(--confidence, --predicted)"
        )


def column_request(args, src):
    """The columns named by the options; for NPZ and NPY files, found if unnamed.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``skcal report``.
    src : skcal._cli._reading.Source
        The file.

    Returns
    -------
    request : Request
    """
    if args.confidence is not None or args.predicted is not None:
        _check_top_label_options(args)
        if args.y_true is None:
            raise InputError("name the column of true labels with --y-true")
        return Request(args.y_true, [], args.predicted, args.confidence, args.groups)
    y_true, y_prob = args.y_true, args.y_prob
    if (y_true is None or not y_prob) and src.format in ("npz", "npy"):
        found_true, found_prob = guess_columns(src)
        y_true, y_prob = y_true or found_true, y_prob or [found_prob]
    if y_true is None:
        raise InputError("name the column of true labels with --y-true")
    if not y_prob:
        raise InputError(
            "name the probability column(s) with --y-prob (one column for a binary "
            "problem, one per class otherwise), or give --confidence and "
            "--predicted for top-label predictions"
        )
    return Request(y_true, list(y_prob), groups=args.groups)


def label_like(text, labels):
    """A label typed on the command line, converted to the type of ``labels``.

    Text that does not convert stays text (and will match no label).

    Examples
    --------
    >>> import numpy as np
    >>> label_like("1", np.array([0, 1])), label_like("1", np.array([0.5]))
    (1, 1.0)
    >>> label_like("true", np.array([True])), label_like("sick", np.array([0, 1]))
    (True, 'sick')
    """
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


def _all_integers(values):
    """Whether every value is an integer up to a few units of float rounding."""
    tolerance = 4 * np.finfo(np.float64).eps * np.maximum(1.0, np.abs(values))
    return bool(np.all(np.abs(values - np.rint(values)) <= tolerance))


def printed_decimals(values, max_decimals=15):
    """The fewest decimals that print every value of a column exactly.

    A value printed with ``d`` decimals times ``10**d`` is an integer, up to
    the rounding of the float; the first few thousand values are tried
    first, so that each ``d`` they rule out costs no pass over the column.

    Parameters
    ----------
    values : ndarray of shape (n_samples,)
        The floats read from text; NaN and infinities are ignored.
    max_decimals : int, default=15
        The most decimals tried.

    Returns
    -------
    decimals : int or None
        None when more than ``max_decimals`` are needed (full precision).

    Examples
    --------
    >>> import numpy as np
    >>> printed_decimals(np.array([0.25, 0.5, 0.125]))
    3
    >>> printed_decimals(np.array([0.1, 0.9]))
    1
    >>> printed_decimals(np.array([0.5, 1 / 7])) is None
    True
    """
    finite = values[np.isfinite(values)]
    head = finite[:4096]
    for decimals in range(max_decimals + 1):
        scale = 10.0**decimals
        if _all_integers(head * scale) and _all_integers(finite * scale):
            return decimals
    return None


def renormalize_rounded(matrix):
    """Renormalise, in place, rows whose sum is 1 up to the printing's rounding.

    When some row of a matrix read from text misses 1 by more than
    :data:`ROW_SUM_TOLERANCE`, each column's printed decimals ``d_j`` are
    found (:func:`printed_decimals`; integers count as exact), and rows
    within ``sum_j 0.5 * 10**-d_j`` of 1 are divided by their sum. Other
    rows are left for the contract to reject.

    Parameters
    ----------
    matrix : ndarray of shape (n_samples, n_classes)
        float64 probabilities, modified in place.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.333, 0.333, 0.333], [0.5, 0.25, 0.25]])
    >>> renormalize_rounded(p)
    >>> p.sum(axis=1).tolist()
    [1.0, 1.0]
    """
    totals = matrix.sum(axis=1)
    deviation = np.abs(totals - 1.0)
    if not deviation.max() > ROW_SUM_TOLERANCE:  # also False with NaN
        return
    half_units = 0.0
    for column in matrix.T:
        decimals = printed_decimals(column)
        if decimals:
            half_units += 0.5 * 10.0**-decimals
    rows = (totals > 0) & (deviation <= max(ROW_SUM_TOLERANCE, half_units))
    matrix[rows] /= totals[rows, np.newaxis]


class Problem(NamedTuple):
    """Validated predictions, in the form every registered measure takes.

    Attributes
    ----------
    y_true : ndarray of shape (n_samples,)
        The column of each sample's class in ``y_prob`` (binary: 1 for the
        positive class).
    y_prob : ndarray of shape (n_samples, n_classes)
        float64 probabilities; for two classes the second is positive.
    classes : ndarray of shape (n_classes,)
        The class of each column.
    description : str
        One line on what is measured.
    event : str
        In plain words, the event whose probability the binary view gives,
        e.g. ``"the predicted label was right"``.
    top_label : bool
        Whether that view is a confidence against the correctness of a
        predicted label (top-label input, or several classes).
    """

    y_true: np.ndarray
    y_prob: np.ndarray
    classes: np.ndarray
    description: str
    event: str
    top_label: bool

    def score(self, measure, sample_weight=None, **options):
        """The value of a registered measure (see ``Measure.evaluate``)."""
        return measure.evaluate(
            self.y_true,
            self.y_prob,
            classes=np.arange(self.y_prob.shape[1]),
            sample_weight=sample_weight,
            **options,
        )

    def view(self):
        """``(y, p)``: the binary view the calibration errors measure.

        The positive class's probability against its indicator, or the
        largest probability against whether its class is the true one.
        """
        if self.y_prob.shape[1] == 2:
            return self.y_true.astype(np.float64), self.y_prob[:, 1]
        rows = np.arange(self.y_prob.shape[0])
        top = np.argmax(self.y_prob, axis=1)
        return (top == self.y_true).astype(np.float64), self.y_prob[rows, top]


def _two_columns(positive):
    """``[1 - p, p]`` as a Fortran-ordered matrix (so ``p`` stays contiguous)."""
    matrix = np.empty((positive.shape[0], 2), order="F")
    np.subtract(1.0, positive, out=matrix[:, 0])
    matrix[:, 1] = positive
    return matrix


def _binary(data, what, event):
    """The problem of a validated binary ``CalibrationData``.

    The matrix is ``[1 - p, p]``, so the classes are put in that order: the
    positive one (``classes[pos_index]``, which may be the first column of
    the file) second.
    """
    events = np.asarray(data.y_true).view(np.uint8)
    rate, mean = events.mean(), data.y_prob.mean()
    classes = data.classes[[1 - data.pos_index, data.pos_index]]
    return Problem(
        events,
        _two_columns(data.y_prob),
        classes,
        f"{what}; event rate {rate:.4f}, mean probability {mean:.4f}",
        event,
        False,
    )


def _multiclass(data):
    """The problem of a validated multiclass ``CalibrationData``.

    The rows, which sum to 1 within the contract's tolerance, are divided
    by their sums, so that every measure sees the same distributions (and
    none warns about sums).
    """
    y_true = data.y_true
    y_prob = data.y_prob / data.y_prob.sum(axis=1, keepdims=True)
    accuracy = np.mean(y_prob.argmax(axis=1) == y_true)
    confidence = y_prob.max(axis=1).mean()
    return Problem(
        y_true,
        y_prob,
        data.classes,
        f"{y_prob.shape[1]} classes; calibration errors of the top label "
        "(confidence), proper scores of the whole probability vectors; accuracy "
        f"{accuracy:.4f}, mean confidence {confidence:.4f}",
        "the most probable class was the true one",
        True,
    )


def _column_names(request, columns):
    """A name for each probability column (``a[:, j]`` for a 2-D array ``a``)."""
    first = columns[request.y_prob[0]]
    if len(request.y_prob) == 1 and first.ndim == 2:
        return [f"{request.y_prob[0]}[:, {j}]" for j in range(first.shape[1])]
    return list(request.y_prob)


def _probabilities(request, columns, printed):
    """The probability column, or several stacked into a matrix (a copy)."""
    arrays = [columns[name] for name in request.y_prob]
    if len(arrays) == 1:
        return arrays[0]
    lengths = [array.shape[0] for array in arrays]
    if len(set(lengths)) > 1:
        raise ValueError(f"the probability columns have different lengths: {lengths}")
    matrix = np.column_stack(arrays)
    if printed and matrix.dtype == np.float64:
        renormalize_rounded(matrix)
    return matrix


def _named(matrix, names):
    """A data frame whose column names the contract may take as the classes."""
    try:
        import pandas
    except ImportError:  # only NPZ and NPY files are read without pandas
        return matrix
    return pandas.DataFrame(matrix, columns=names, copy=False)


def _missing(labels):
    """Where a label column has no value (NaN, None or pandas' NA)."""
    if labels.dtype.kind == "f":
        return np.isnan(labels)
    if labels.dtype == object:  # from pandas' readers, so pandas is there
        import pandas

        return np.asarray(pandas.isna(labels))
    return np.zeros(labels.shape, dtype=bool)


def _events(y_true, predicted):
    """1.0 where the predicted label is the true one, 0.0 elsewhere, NaN if missing.

    Numbers and text are compared as text.
    """
    if y_true.shape != predicted.shape:
        raise ValueError(
            f"the label columns have different shapes: {y_true.shape} and "
            f"{predicted.shape}"
        )
    missing = _missing(y_true) | _missing(predicted)
    if (y_true.dtype.kind in "biuf") != (predicted.dtype.kind in "biuf"):
        y_true, predicted = y_true.astype(str), predicted.astype(str)
    events = np.asarray(y_true == predicted, dtype=np.float64)
    events[missing] = np.nan
    return events


def _top_label(request, columns):
    """The binary problem of top-label input: is the predicted label right?"""
    events = _events(columns[request.y_true], columns[request.predicted])
    data = check_calibration_inputs(events, columns[request.confidence])
    accuracy, confidence = np.mean(data.y_true), data.y_prob.mean()
    return Problem(
        np.asarray(data.y_true).view(np.uint8),
        _two_columns(data.y_prob),
        np.array([0, 1]),
        f"top-label: probability {request.confidence!r} of the event "
        f"{request.predicted} == {request.y_true}; accuracy {accuracy:.4f}, "
        f"mean confidence {confidence:.4f}",
        f"{request.predicted} was right",
        True,
    )


def build_problem(request, columns, *, printed, pos_label=None, labels=None):
    """Validate the columns with skcal's input contract.

    Parameters
    ----------
    request : Request
        The columns' roles.
    columns : dict
        ``{name: ndarray}`` as read.
    printed : bool
        Whether the values were read from text (their rounding is tolerated
        in the sums of rows).
    pos_label : str, default=None
        ``--pos-label``, converted to the type of the labels.
    labels : list of str, default=None
        ``--labels``, converted to the type of the labels.

    Returns
    -------
    problem : Problem
        Raises the contract's ``ValueError`` or ``TypeError`` on bad data.
    """
    if request.confidence is not None:
        return _top_label(request, columns)
    y_true = columns[request.y_true]
    y_prob = _probabilities(request, columns, printed)
    if len(request.y_prob) > 1:
        y_prob = _named(y_prob, [label_like(name, y_true) for name in request.y_prob])
    data = check_calibration_inputs(
        y_true,
        y_prob,
        pos_label=None if pos_label is None else label_like(pos_label, y_true),
        labels=None if labels is None else [label_like(v, y_true) for v in labels],
    )
    if not data.binary:
        return _multiclass(data)
    names = _column_names(request, columns)
    column = names[data.pos_index] if len(names) > 1 else names[0]
    positive = data.classes.tolist()[data.pos_index]
    what = f"binary; {column!r} is the probability of {request.y_true} == {positive!r}"
    return _binary(data, what, f"{request.y_true} was {positive!r}")
