"""The registry of measures: the one place where a measure is listed.

Scorers (:mod:`skcal.metrics._scorer`), :func:`~skcal.model_selection.
cross_val_calibration`, the command line, the common tests and the
documentation all take their list of measures from :data:`MEASURES`, through
:func:`skcal.discovery.all_measures`. Adding a measure means writing its
module and adding one :class:`Measure` here.
"""

# SPDX-License-Identifier: BSD-3-Clause

import functools
import inspect
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from sklearn.metrics import brier_score_loss, log_loss

from skcal._utils._cumulative import CutoffCore
from skcal._validation import check_pos_label
from skcal.metrics._binned import (
    binned_calibration_error,
    binned_error_core,
    expected_calibration_error,
)
from skcal.metrics._cutoff import cutoff_calibration_error
from skcal.metrics._kernel import kernel_calibration_error, kernel_error_core
from skcal.metrics._logit_smoothed import logit_smoothed_core, logit_smoothed_ece
from skcal.metrics._skce import skce_core, squared_kernel_calibration_error
from skcal.metrics._smooth_calibration import (
    smooth_calibration_error,
    smooth_error_core,
)
from skcal.metrics._smooth_ece import (
    smooth_ece,
    smooth_ece_core,
)

KINDS = ("calibration_error", "proper_score")


class Measure(NamedTuple):
    """A registered measure.

    Attributes
    ----------
    name : str
        The function's name, e.g. ``"expected_calibration_error"``.
    function : callable
        ``function(y_true, y_prob, *, sample_weight=None, ...)``, lower is
        better.
    scorer : str
        The name of its scorer for ``scoring=``: ``"neg_<name>"`` for skcal's
        measures, scikit-learn's name for scikit-learn's.
    greater_is_better : bool
        Whether larger values are better (False for every measure here:
        errors and losses).
    kind : {"calibration_error", "proper_score"}
        A calibration error (0 for a calibrated model, blind to sharpness),
        or a proper score (calibration and sharpness together).
    short_name : str
        The name in tables, e.g. ``"ECE"``.
    module : str
        Where the function lives: ``"skcal.metrics"`` or
        ``"sklearn.metrics"``.
    takes_positive_column : bool
        Whether a binary problem is passed as the probability of the
        positive class with ``pos_label`` (otherwise the whole
        ``(n_samples, 2)`` matrix).
    core : callable or None
        For skcal's calibration errors, ``core(**options)``: the measure of
        one binary view, ``measure(y, p, sample_weight)``, for the options
        of ``function`` other than the data, ``reduction`` and ``return_*``
        (the intervals evaluate it on resamples without validating again).
        A core may also have ``replicates(y, p, sample_weight)``: a
        :class:`~skcal._utils._bootstrap.Replicates` that gives the measure
        of a view on a batch of :class:`~skcal._utils._bootstrap.Draws`,
        chunk by chunk, from arrays prepared once (or None when it cannot
        prepare them).
    row_losses : callable or None
        For the proper scores, ``row_losses(data)``: each row's loss, whose
        mean is the score (of :class:`~skcal._validation.CalibrationData`).
    """

    name: str
    function: Callable
    scorer: str
    greater_is_better: bool
    kind: str
    short_name: str
    module: str
    takes_positive_column: bool = True
    core: Callable | None = None
    row_losses: Callable | None = None

    def evaluate(
        self, y_true, y_prob, *, classes, sample_weight=None, pos_label=None, **options
    ):
        """The measure of probabilities whose columns are ``classes``.

        The one place where a measure is called on a problem of any number
        of classes, for the scorers, cross-validation, the intervals and the
        command line: ``labels`` (and for a binary problem the positive
        column with ``pos_label``) are passed when the function takes them.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        y_prob : ndarray of shape (n_samples, n_classes)
            Predicted probabilities, one column per class of ``classes``.
        classes : array-like of shape (n_classes,)
            The class of each column.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        pos_label : hashable, default=None
            The positive class of a binary problem; None means the second
            class.
        **options : dict
            Other options of the measure (``labels`` overrides ``classes``).

        Returns
        -------
        value : float
        """
        y_prob, options = self.arguments(
            y_prob,
            classes=classes,
            sample_weight=sample_weight,
            pos_label=pos_label,
            **options,
        )
        return float(self.function(y_true, y_prob, **options))

    def arguments(
        self, y_prob, *, classes, sample_weight=None, pos_label=None, **options
    ):
        """The probabilities and keywords :meth:`evaluate` passes to the function.

        Returns
        -------
        y_prob : ndarray
            The positive column of a binary problem (for a function that
            takes it), the whole matrix otherwise.
        options : dict
            ``sample_weight``, ``labels`` and ``pos_label`` as the function
            takes them, and the other options.
        """
        accepted = accepted_keywords(self.function)

        def takes(name):
            return accepted is None or name in accepted

        if sample_weight is not None:
            options["sample_weight"] = sample_weight
        if takes("labels"):
            options.setdefault("labels", classes)
        if y_prob.shape[1] == 2 and self.takes_positive_column:
            classes = np.asarray(classes)
            pos_label = classes[1] if pos_label is None else pos_label
            y_prob = y_prob[:, check_pos_label(classes, pos_label)]
            if takes("pos_label"):
                options["pos_label"] = pos_label
        elif pos_label is not None and takes("pos_label"):
            options["pos_label"] = pos_label
        return y_prob, options

    def core_options(self, options):
        """The options of :attr:`core`: the function's defaults, then ``options``.

        The data (``sample_weight``, ``pos_label``, ``labels``, ``groups``),
        ``reduction`` and the ``return_*`` switches are left out.
        """
        parameters = inspect.signature(self.function).parameters
        merged = {
            name: parameter.default
            for name, parameter in parameters.items()
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY
        }
        merged.update(options)
        return {
            name: value
            for name, value in merged.items()
            if name not in _DATA_KEYWORDS and not name.startswith("return_")
        }


# What the intervals take from the data rather than pass to a core.
_DATA_KEYWORDS = frozenset(
    {"sample_weight", "pos_label", "labels", "groups", "reduction"}
)


@functools.cache
def accepted_keywords(function):
    """The names of a function's parameters; None when it takes ``**kwargs``.

    Returns
    -------
    names : frozenset of str or None
    """
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a callable without a signature
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(p.name for p in parameters)


def custom_measure(name, function):
    """A user's callable as an unregistered :class:`Measure`."""
    return Measure(
        name=name,
        function=function,
        scorer=None,
        greater_is_better=False,
        kind=None,
        short_name=name,
        module=None,
    )


def _calibration_error(function, short_name, core):
    return Measure(
        name=function.__name__,
        function=function,
        scorer=f"neg_{function.__name__}",
        greater_is_better=False,
        kind="calibration_error",
        short_name=short_name,
        module="skcal.metrics",
        core=core,
    )


def _brier_rows(data):
    """Each row's Brier loss, as :func:`sklearn.metrics.brier_score_loss` sums it.

    Binary: ``(y - p)**2`` for the positive class (scikit-learn halves the
    sum over both columns); multiclass: the sum over the classes of
    ``(p_k - 1{y = k})**2``.
    """
    if data.binary:
        return (data.y_true - data.y_prob) ** 2
    rows = np.arange(data.y_prob.shape[0])
    squares = np.einsum("ij,ij->i", data.y_prob, data.y_prob, dtype=np.float64)
    return squares - 2.0 * data.y_prob[rows, data.y_true] + 1.0


def _log_loss_rows(data):
    """Each row's log loss, clipped as :func:`sklearn.metrics.log_loss` clips."""
    if data.binary:
        chosen = np.where(data.y_true, data.y_prob, 1.0 - data.y_prob)
    else:
        rows = np.arange(data.y_prob.shape[0])
        chosen = data.y_prob[rows, data.y_true].astype(np.float64)
    eps = np.finfo(np.float64).eps
    return -np.log(np.clip(chosen, eps, 1.0 - eps))


MEASURES = (
    _calibration_error(binned_calibration_error, "binned CE", binned_error_core),
    _calibration_error(cutoff_calibration_error, "cutoff", CutoffCore),
    _calibration_error(
        expected_calibration_error,
        "ECE",
        functools.partial(binned_error_core, norm="l1", debias=False),
    ),
    _calibration_error(kernel_calibration_error, "kernel CE", kernel_error_core),
    _calibration_error(logit_smoothed_ece, "LS-ECE", logit_smoothed_core),
    _calibration_error(smooth_calibration_error, "smooth CE", smooth_error_core),
    _calibration_error(smooth_ece, "SmoothECE", smooth_ece_core),
    _calibration_error(squared_kernel_calibration_error, "SKCE", skce_core),
    Measure(
        name="brier_score_loss",
        function=brier_score_loss,
        scorer="neg_brier_score",
        greater_is_better=False,
        kind="proper_score",
        short_name="Brier",
        module="sklearn.metrics",
        row_losses=_brier_rows,
    ),
    Measure(
        name="log_loss",
        function=log_loss,
        scorer="neg_log_loss",
        greater_is_better=False,
        kind="proper_score",
        short_name="log loss",
        module="sklearn.metrics",
        takes_positive_column=False,
        row_losses=_log_loss_rows,
    ),
)

MEASURES_BY_NAME = {m.name: m for m in MEASURES}
