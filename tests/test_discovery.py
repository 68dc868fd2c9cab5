"""Tests of skcal.discovery: the registry of measures, recalibrators and Displays."""

# SPDX-License-Identifier: BSD-3-Clause

import inspect

import numpy as np
import pytest
import sklearn.metrics
from numpy.testing import assert_allclose

import skcal.calibration
import skcal.metrics
import skcal.plotting
from skcal._param_validation import InvalidParameterError
from skcal.calibration._base import BaseRecalibrator
from skcal.discovery import all_displays, all_measures, all_recalibrators
from skcal.metrics import get_scorer_names


def test_all_measures_is_sorted_and_split_by_kind():
    """Check that the measures are sorted by name and the kinds partition them."""
    measures = all_measures()
    names = [m.name for m in measures]
    assert names == sorted(names)
    errors = all_measures(kind="calibration_error")
    scores = all_measures(kind="proper_score")
    assert sorted(m.name for m in errors + scores) == names
    assert [m.name for m in scores] == ["brier_score_loss", "log_loss"]


def test_every_calibration_error_of_skcal_metrics_is_registered():
    """Check that every public function returning a calibration error is listed."""
    errors = {m.name for m in all_measures(kind="calibration_error")}
    public = {
        name
        for name in skcal.metrics.__all__
        if name.endswith(("_calibration_error", "_ece"))
    }
    assert public == errors


@pytest.mark.parametrize("measure", all_measures(), ids=lambda m: m.name)
def test_measure_entries(measure):
    """Check each entry: its module holds the function, its scorer exists."""
    module = skcal.metrics if measure.module == "skcal.metrics" else sklearn.metrics
    assert getattr(module, measure.name) is measure.function
    assert measure.scorer in get_scorer_names()
    assert measure.greater_is_better is False
    assert measure.short_name


@pytest.mark.parametrize("measure", all_measures(), ids=lambda m: m.name)
def test_evaluate_binary_and_multiclass(measure, global_random_seed):
    """Check that evaluate equals the function called by hand on both shapes."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.dirichlet(np.ones(3), size=80)
    y = np.array(["a", "b", "c"])[[rng.choice(3, p=row) for row in p]]
    value = measure.evaluate(y, p, classes=["a", "b", "c"])
    assert_allclose(value, measure.function(y, p, labels=["a", "b", "c"]))
    binary = np.column_stack([1 - p[:, 0], p[:, 0]])
    y2 = np.where(y == "a", "yes", "no")
    value = measure.evaluate(y2, binary, classes=["no", "yes"])
    if measure.takes_positive_column:
        expected = measure.function(y2, p[:, 0], pos_label="yes", labels=["no", "yes"])
    else:
        expected = measure.function(y2, binary, labels=["no", "yes"])
    assert_allclose(value, expected)


def test_all_recalibrators():
    """Check that every recalibrator class of skcal.calibration is listed."""
    listed = dict(all_recalibrators())
    expected = {
        name
        for name in skcal.calibration.__all__
        if issubclass(getattr(skcal.calibration, name), BaseRecalibrator)
    }
    assert set(listed) == expected
    assert "RecalibratedClassifierCV" not in listed
    assert list(listed) == sorted(listed)
    for name, cls in listed.items():
        assert getattr(skcal.calibration, name) is cls
        assert not inspect.isabstract(cls)


def test_all_displays():
    """Check that every Display of skcal.plotting is listed, and nothing else."""
    listed = dict(all_displays())
    assert set(listed) == set(skcal.plotting.__all__)
    for cls in listed.values():
        assert callable(getattr(cls, "from_predictions", None))
        assert callable(getattr(cls, "plot", None))


def test_all_measures_rejects_an_unknown_kind():
    """Check the parameter constraint of kind."""
    with pytest.raises(InvalidParameterError, match="'kind' parameter"):
        all_measures(kind="loss")
