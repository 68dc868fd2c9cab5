"""What skcal offers: its measures, recalibrators and Displays, listed.

In the spirit of :mod:`sklearn.utils.discovery`: the scorers, the command
line, the common tests and the documentation take their lists from here, so
that a new measure, recalibrator or Display is registered in one place.
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import inspect
from importlib import import_module
from typing import Literal

from skcal._param_validation import StrOptions, validate_params
from skcal.metrics._registry import KINDS, Measure

__all__ = ["all_displays", "all_measures", "all_recalibrators"]


@validate_params(
    {"kind": [StrOptions(set(KINDS)), None]},
    prefer_skip_nested_validation=True,
)
def all_measures(
    kind: Literal["calibration_error", "proper_score"] | None = None,
) -> list[Measure]:
    """The measures skcal knows by name, with their scorers.

    Parameters
    ----------
    kind : {"calibration_error", "proper_score"}, default=None
        Only the calibration errors (skcal's measures, 0 for a calibrated
        model) or only the proper scores (scikit-learn's Brier score and
        log loss, which also reward sharpness); None lists both.

    Returns
    -------
    measures : list of Measure
        Named tuples sorted by name, with the fields ``name``,
        ``function``, ``scorer`` (the name for
        :func:`~skcal.metrics.get_scorer`), ``greater_is_better``, ``kind``,
        ``short_name`` (for tables), ``module`` and
        ``takes_positive_column``, and the method
        ``evaluate(y_true, y_prob, *, classes, sample_weight=None)``, which
        calls the measure on an ``(n_samples, n_classes)`` matrix.

    See Also
    --------
    all_recalibrators : The recalibrators.
    all_displays : The Displays.

    Examples
    --------
    >>> from skcal.discovery import all_measures
    >>> [(m.name, m.scorer) for m in all_measures("proper_score")]
    [('brier_score_loss', 'neg_brier_score'), ('log_loss', 'neg_log_loss')]
    >>> "smooth_ece" in [m.name for m in all_measures()]
    True
    """
    from skcal.metrics._registry import MEASURES

    found = [m for m in MEASURES if kind is None or m.kind == kind]
    return sorted(found, key=lambda m: m.name)


def _public_classes(package, predicate):
    """``(name, class)`` of the classes in ``package.__all__`` that match."""
    module = import_module(package)
    found = []
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isclass(obj) and predicate(obj):
            found.append((name, obj))
    return sorted(found)


def all_recalibrators() -> list[tuple[str, type]]:
    """The recalibrators of :mod:`skcal.calibration`.

    A recalibrator maps a classifier's scores (or the scores given as ``X``)
    to calibrated probabilities.
    :class:`~skcal.calibration.RecalibratedClassifierCV`, which fits a
    classifier and a recalibrator together, is not one of them.

    Returns
    -------
    recalibrators : list of (str, type)
        ``(name, class)`` pairs sorted by name.

    See Also
    --------
    all_measures : The measures.

    Examples
    --------
    >>> from skcal.discovery import all_recalibrators
    >>> recalibrators = dict(all_recalibrators())
    >>> recalibrators["PlattRecalibrator"].__name__
    'PlattRecalibrator'
    """
    from skcal.calibration._base import BaseRecalibrator

    return _public_classes(
        "skcal.calibration",
        lambda cls: issubclass(cls, BaseRecalibrator) and not inspect.isabstract(cls),
    )


def all_displays() -> list[tuple[str, type]]:
    """The Displays of :mod:`skcal.plotting`.

    Returns
    -------
    displays : list of (str, type)
        ``(name, class)`` pairs sorted by name.

    See Also
    --------
    all_measures : The measures whose numbers they draw.

    Examples
    --------
    >>> from skcal.discovery import all_displays
    >>> [name for name, _ in all_displays()]  # doctest: +ELLIPSIS
    ['...Display', ...]
    """
    return _public_classes(
        "skcal.plotting", lambda cls: cls.__name__.endswith("Display")
    )
