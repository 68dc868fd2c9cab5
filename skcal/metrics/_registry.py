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

from skcal._validation import check_pos_label
from skcal.metrics._binned import binned_calibration_error, expected_calibration_error
from skcal.metrics._cutoff import cutoff_calibration_error
from skcal.metrics._kernel import kernel_calibration_error
from skcal.metrics._logit_smoothed import logit_smoothed_ece
from skcal.metrics._smooth_calibration import smooth_calibration_error
from skcal.metrics._smooth_ece import smooth_ece

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
    """

    name: str
    function: Callable
    scorer: str
    greater_is_better: bool
    kind: str
    short_name: str
    module: str
    takes_positive_column: bool = True

    def evaluate(
        self, y_true, y_prob, *, classes, sample_weight=None, pos_label=None, **options
    ):
        """The measure of probabilities whose columns are ``classes``.

        The one place where a measure is called on a problem of any number
        of classes, for the scorers, cross-validation and the command line:
        ``labels`` (and for a binary problem the positive column with
        ``pos_label``) are passed when the function takes them.

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
        elif pos_label is not None:
            options["pos_label"] = pos_label
        return float(self.function(y_true, y_prob, **options))


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


def _calibration_error(function, short_name):
    return Measure(
        name=function.__name__,
        function=function,
        scorer=f"neg_{function.__name__}",
        greater_is_better=False,
        kind="calibration_error",
        short_name=short_name,
        module="skcal.metrics",
    )


MEASURES = (
    _calibration_error(binned_calibration_error, "binned CE"),
    _calibration_error(cutoff_calibration_error, "cutoff"),
    _calibration_error(expected_calibration_error, "ECE"),
    _calibration_error(kernel_calibration_error, "kernel CE"),
    _calibration_error(logit_smoothed_ece, "LS-ECE"),
    _calibration_error(smooth_calibration_error, "smooth CE"),
    _calibration_error(smooth_ece, "SmoothECE"),
    Measure(
        name="brier_score_loss",
        function=brier_score_loss,
        scorer="neg_brier_score",
        greater_is_better=False,
        kind="proper_score",
        short_name="Brier",
        module="sklearn.metrics",
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
    ),
)

MEASURES_BY_NAME = {m.name: m for m in MEASURES}
