"""Shared fixtures: the global random seed, hypothesis profiles, real data."""

# SPDX-License-Identifier: BSD-3-Clause

import datetime
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from threadpoolctl import threadpool_limits

# Tests fit many tiny models; BLAS threads only compete for the cores there.
threadpool_limits(limits=1)

# Hypothesis: derandomized and without deadlines under CI, so that a run is
# reproducible and a slow machine does not fail a property.
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# ---------------------------------------------------------------------------
# global_random_seed, with the contract of scikit-learn's fixture of that name:
# tests must pass for every seed in 0-99; by default one seed per day is used;
# SKCAL_TESTS_GLOBAL_RANDOM_SEED="42", "40-42" or "all" overrides it.
# ---------------------------------------------------------------------------


def _seeds():
    value = os.environ.get("SKCAL_TESTS_GLOBAL_RANDOM_SEED")
    if value is None:
        return [datetime.date.today().toordinal() % 100]
    if value == "all":
        return list(range(100))
    if "-" in value:
        first, last = (int(v) for v in value.split("-"))
        return list(range(first, last + 1))
    return [int(value)]


_SEEDS = _seeds()


def pytest_report_header(config):
    return f"skcal: global_random_seed in {_SEEDS[0]}..{_SEEDS[-1]} ({len(_SEEDS)})"


@pytest.fixture(params=_SEEDS)
def global_random_seed(request):
    return request.param


# ---------------------------------------------------------------------------
# Real model outputs from the project's shared data folder.
# ---------------------------------------------------------------------------

_DATA_DIR = Path(
    os.environ.get(
        "SKCAL_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"
    )
)


@pytest.fixture(scope="session")
def shared_data_dir():
    """The folder of real model outputs; under CI its absence is an error."""
    if not _DATA_DIR.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"real-data folder {_DATA_DIR} is missing under CI")
        pytest.skip(f"real-data folder {_DATA_DIR} not found (set SKCAL_DATA_DIR)")
    return _DATA_DIR


def _load_npz(folder, name):
    with np.load(folder / name, allow_pickle=False) as data:
        arrays = {key: data[key] for key in data.files}
    probs = next(v for v in arrays.values() if v.ndim == 2)
    labels = next(v for v in arrays.values() if v.ndim == 1)
    return labels, probs


REAL_MULTICLASS = [
    "verified_calibration-cifar10-vgg16.npz",
    "netcal-wideresnet-16-4-cifar-10.npz",
    "netcal-lenet-5-cifar-10.npz",
    "netcal-wideresnet-16-4-cifar-100.npz",
]


@pytest.fixture(params=REAL_MULTICLASS)
def real_multiclass(request, shared_data_dir):
    """``(labels, float32 probabilities)`` of a real image classifier."""
    return _load_npz(shared_data_dir, request.param)


@pytest.fixture
def pyplot():
    """matplotlib's pyplot with the Agg backend; figures are closed afterwards."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")
