"""Tests of the loaders of real model outputs (skcal.datasets)."""

# SPDX-License-Identifier: BSD-3-Clause

import re
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

import skcal.datasets
from skcal._param_validation import InvalidParameterError
from skcal.datasets import (
    load_cifar10_lenet,
    load_cifar10_resnet110_top_label,
    load_cifar10_vgg16,
    load_cifar10_wideresnet,
    load_cifar100_wideresnet,
    load_imagenet_resnet34_top_label,
)
from skcal.metrics import expected_calibration_error

SOFTMAX = {
    load_cifar10_vgg16: (10, "verified_calibration-MIT"),
    load_cifar10_wideresnet: (10, "netcal-Apache-2.0"),
    load_cifar10_lenet: (10, "netcal-Apache-2.0"),
    load_cifar100_wideresnet: (100, "netcal-Apache-2.0"),
}
TOP_LABEL = {
    load_cifar10_resnet110_top_label: (10000, 10, "reliability-diagrams-MIT"),
    load_imagenet_resnet34_top_label: (50000, 1000, "reliability-diagrams-MIT"),
}
LOADERS = [*SOFTMAX, *TOP_LABEL]
by_name = {"ids": lambda f: f.__name__}


def test_every_loader_is_public_and_tested():
    """Check that the tests cover exactly the public loaders."""
    assert sorted(skcal.datasets.__all__) == sorted(f.__name__ for f in LOADERS)


def _descr_figure(descr, label):
    """A number of the DESCR's characteristics, e.g. ``Accuracy``."""
    return float(re.search(rf"{label} (\d\.\d+)", descr).group(1))


@pytest.mark.parametrize("loader", list(SOFTMAX), **by_name)
def test_softmax_loader(loader):
    """Check shapes, dtypes, rows summing to 1 and the DESCR's figures."""
    n_classes, _ = SOFTMAX[loader]
    data = loader()
    p, y = data.probabilities, data.target
    assert p.shape == (10000, n_classes) and p.dtype == np.float32
    assert y.shape == (10000,) and y.dtype == np.int64
    assert_array_equal(np.unique(y), np.arange(n_classes))
    assert np.all(p >= 0)
    assert np.abs(p.sum(axis=1, dtype=np.float64) - 1).max() < 1e-6
    assert data.target_names.shape == (n_classes,)
    assert data.frame is None
    accuracy = np.mean(p.argmax(axis=1) == y)
    assert round(accuracy, 4) == _descr_figure(data.DESCR, "Accuracy:")
    confidence = p.max(axis=1).astype(np.float64).mean()
    assert round(confidence, 4) == _descr_figure(data.DESCR, "mean confidence")
    ece = expected_calibration_error(y, p)
    assert round(ece, 4) == _descr_figure(data.DESCR, r"ECE \(15 bins\)")


@pytest.mark.parametrize("loader", list(TOP_LABEL), **by_name)
def test_top_label_loader(loader):
    """Check the three columns and the DESCR's figures."""
    n_samples, n_classes, _ = TOP_LABEL[loader]
    data = loader()
    assert data.confidence.shape == (n_samples,)
    assert data.confidence.dtype == np.float32
    assert np.all((data.confidence > 0) & (data.confidence <= 1))
    for name in ("target", "predicted"):
        labels = data[name]
        assert labels.dtype == np.int64
        assert labels.min() >= 0 and labels.max() < n_classes
    correct = data.target == data.predicted
    assert round(correct.mean(), 4) == _descr_figure(data.DESCR, "Accuracy:")
    mean = data.confidence.astype(np.float64).mean()
    assert round(mean, 4) == _descr_figure(data.DESCR, "mean confidence")
    ece = expected_calibration_error(correct, data.confidence)
    assert round(ece, 4) == _descr_figure(data.DESCR, r"ECE \(15 bins\)")


@pytest.mark.parametrize("loader", LOADERS, **by_name)
def test_licence_shipped_and_named(loader):
    """Check that DESCR names a licence notice that is shipped beside the data."""
    licence = (SOFTMAX.get(loader) or TOP_LABEL[loader])[-1]
    name = f"LICENSE-{licence}.txt"
    descr = loader().DESCR
    assert f"skcal/datasets/data/{name}" in descr
    notice = resources.files("skcal.datasets") / "data" / name
    text = notice.read_text(encoding="utf-8")
    assert "Permission is hereby granted" in text or "Apache License" in text
    assert "Provenance:" in descr and "commit" in descr


@pytest.mark.parametrize("loader", list(SOFTMAX), **by_name)
def test_softmax_as_frame(loader):
    """Check the pandas objects against the arrays."""
    arrays, frames = loader(), loader(as_frame=True)
    assert isinstance(frames.probabilities, pd.DataFrame)
    assert list(frames.probabilities.columns) == list(arrays.target_names)
    assert_array_equal(frames.probabilities.to_numpy(), arrays.probabilities)
    assert isinstance(frames.target, pd.Series) and frames.target.name == "target"
    assert_array_equal(frames.target, arrays.target)
    assert list(frames.frame.columns) == [*arrays.target_names, "target"]
    value = expected_calibration_error(frames.target, frames.probabilities)
    assert value == expected_calibration_error(arrays.target, arrays.probabilities)


@pytest.mark.parametrize("loader", list(TOP_LABEL), **by_name)
def test_top_label_as_frame(loader):
    """Check the frame's columns and that the attributes are its Series."""
    arrays, frames = loader(), loader(as_frame=True)
    assert list(frames.frame.columns) == ["target", "predicted", "confidence"]
    for name in ("target", "predicted", "confidence"):
        assert isinstance(frames[name], pd.Series)
        assert_array_equal(frames[name], arrays[name])


def test_loaders_return_fresh_arrays():
    """Check that modifying one result does not change the next."""
    first = load_cifar10_lenet()
    first.probabilities[:] = 0
    first.target[:] = 0
    second = load_cifar10_lenet()
    assert second.probabilities.sum() > 0 and second.target.max() == 9


@pytest.mark.parametrize("loader", LOADERS, **by_name)
def test_as_frame_validated(loader):
    """Check that as_frame must be a boolean."""
    with pytest.raises(InvalidParameterError, match="'as_frame' parameter"):
        loader(as_frame="yes")


def test_shipped_data_are_small():
    """Check that the data files stay a few MB (compressed, float32)."""
    folder = resources.files("skcal.datasets") / "data"
    archives = [entry for entry in folder.iterdir() if entry.name.endswith(".npz")]
    assert len(archives) == len(LOADERS)
    total = sum(len(entry.read_bytes()) for entry in archives)
    assert total < 6 * 2**20
