"""Calibration diagrams as scikit-learn style Display objects."""

# SPDX-License-Identifier: BSD-3-Clause

from skcal.plotting._reliability import ReliabilityDisplay
from skcal.plotting._sharpness import CalibrationSharpnessDisplay

__all__ = ["CalibrationSharpnessDisplay", "ReliabilityDisplay"]
