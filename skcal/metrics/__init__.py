"""Calibration measures for probabilistic classifiers."""

# SPDX-License-Identifier: BSD-3-Clause

from skcal.metrics._binned import (
    binned_calibration_error,
    expected_calibration_error,
    reliability_table,
)

__all__ = [
    "binned_calibration_error",
    "expected_calibration_error",
    "reliability_table",
]
