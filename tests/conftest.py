"""Shared fixtures: the global random seed, hypothesis profiles, real data."""

# SPDX-License-Identifier: BSD-3-Clause

import datetime
import os

import pytest
from hypothesis import HealthCheck, settings
from threadpoolctl import threadpool_limits

from skcal.datasets import (
    load_cifar10_lenet,
    load_cifar10_vgg16,
    load_cifar10_wideresnet,
    load_cifar100_wideresnet,
)

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
        # Kept for the processes pytest-xdist starts, so that a run across
        # midnight collects the same tests in every one.
        seed = datetime.date.today().toordinal() % 100
        os.environ["SKCAL_TESTS_GLOBAL_RANDOM_SEED"] = str(seed)
        return [seed]
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
# Real model outputs, shipped with skcal.datasets.
# ---------------------------------------------------------------------------

REAL_MULTICLASS = [
    load_cifar10_vgg16,
    load_cifar10_wideresnet,
    load_cifar10_lenet,
    load_cifar100_wideresnet,
]


@pytest.fixture(params=REAL_MULTICLASS, ids=lambda loader: loader.__name__[5:])
def real_multiclass(request):
    """``(labels, float32 probabilities)`` of a real image classifier."""
    data = request.param()
    return data.target, data.probabilities


@pytest.fixture
def pyplot():
    """matplotlib's pyplot with the Agg backend; figures are closed afterwards."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")
