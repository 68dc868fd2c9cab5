"""Recalibrators: estimators that map scores to calibrated probabilities."""

# SPDX-License-Identifier: BSD-3-Clause

from skcal.calibration._beta import BetaRecalibrator
from skcal.calibration._centered_isotonic import CenteredIsotonicRecalibrator
from skcal.calibration._cross_fit import RecalibratedClassifierCV
from skcal.calibration._ensemble_temperature import EnsembleTemperatureRecalibrator
from skcal.calibration._histogram import HistogramBinningRecalibrator
from skcal.calibration._isotonic import IsotonicRecalibrator
from skcal.calibration._kernel_smoothing import KernelSmoothingRecalibrator
from skcal.calibration._matrix_scaling import (
    DirichletRecalibrator,
    MatrixScalingRecalibrator,
    VectorScalingRecalibrator,
)
from skcal.calibration._mean_replacement import MeanReplacementRecalibrator
from skcal.calibration._modified_platt import ModifiedPlattRecalibrator
from skcal.calibration._platt import PlattRecalibrator
from skcal.calibration._spline import SplineRecalibrator
from skcal.calibration._temperature import TemperatureRecalibrator
from skcal.calibration._venn_abers import VennAbersRecalibrator

__all__ = [
    "BetaRecalibrator",
    "CenteredIsotonicRecalibrator",
    "DirichletRecalibrator",
    "EnsembleTemperatureRecalibrator",
    "HistogramBinningRecalibrator",
    "IsotonicRecalibrator",
    "KernelSmoothingRecalibrator",
    "MatrixScalingRecalibrator",
    "MeanReplacementRecalibrator",
    "ModifiedPlattRecalibrator",
    "PlattRecalibrator",
    "RecalibratedClassifierCV",
    "SplineRecalibrator",
    "TemperatureRecalibrator",
    "VectorScalingRecalibrator",
    "VennAbersRecalibrator",
]
