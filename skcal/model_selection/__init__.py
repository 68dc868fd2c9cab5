"""Model selection with calibration: scorers and cross-validated measures."""

# SPDX-License-Identifier: BSD-3-Clause

from skcal.metrics._scorer import (
    get_scorer,
    get_scorer_names,
    get_scorers,
    make_calibration_scorer,
)
from skcal.model_selection._cross_val import CrossValCalibration, cross_val_calibration
from skcal.model_selection._sample_size import sample_size_curve

__all__ = [
    "CrossValCalibration",
    "cross_val_calibration",
    "get_scorer",
    "get_scorer_names",
    "get_scorers",
    "make_calibration_scorer",
    "sample_size_curve",
]
