"""Calibration diagrams as scikit-learn style Display objects."""

# SPDX-License-Identifier: BSD-3-Clause

from skcal.plotting._binned_reliability import BinnedReliabilityDisplay
from skcal.plotting._mean_reliability import MeanReliabilityDisplay
from skcal.plotting._pit_histogram import PITHistogramDisplay
from skcal.plotting._quantile_reliability import QuantileReliabilityDisplay
from skcal.plotting._sample_size import SampleSizeDisplay
from skcal.plotting._sharpness import CalibrationSharpnessDisplay
from skcal.plotting._smooth_reliability import SmoothReliabilityDisplay

__all__ = [
    "BinnedReliabilityDisplay",
    "CalibrationSharpnessDisplay",
    "MeanReliabilityDisplay",
    "PITHistogramDisplay",
    "QuantileReliabilityDisplay",
    "SampleSizeDisplay",
    "SmoothReliabilityDisplay",
]
