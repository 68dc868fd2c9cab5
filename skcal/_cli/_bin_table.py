"""What ``skcal report`` says beyond the measures: bins, probabilities, definitions.

The per-bin table is :func:`skcal.metrics.reliability_table` of the binary
view the calibration errors measure (the positive class, or the top label's
confidence); ``--at`` asks the same of the rows whose prediction lies near a
probability; each measure gets one line on what it is, with its bins or
bandwidth.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from typing import NamedTuple

import numpy as np

from skcal.metrics import reliability_table, smooth_ece

# The columns of the table, printed and written as CSV.
BIN_HEADER = [
    "bin_low",
    "bin_high",
    "count",
    "mean_prediction",
    "observed_rate",
    "ci_low",
    "ci_high",
]


class ReportView(NamedTuple):
    """The binary view of a report's problem, taken once, and its words.

    Attributes
    ----------
    y, p : ndarray of shape (n_samples,)
        The events and their probabilities (``Problem.view``).
    event : str
        The event in plain words.
    top_label : bool
        Whether ``p`` is a confidence.
    n_classes : int
        The columns of the problem's probabilities.
    """

    y: np.ndarray
    p: np.ndarray
    event: str
    top_label: bool
    n_classes: int

    @classmethod
    def of(cls, problem):
        y, p = problem.view()
        return cls(y, p, problem.event, problem.top_label, problem.y_prob.shape[1])

    @property
    def axis(self):
        """What the probabilities are, in words."""
        return "confidence" if self.top_label else "predicted probability"


def bins_phrase(n_bins, strategy):
    """``"15 equal-width bins"``, ``"10 equal-count bins"``."""
    kind = "equal-width" if strategy == "uniform" else "equal-count"
    return f"{n_bins} {kind} bins"


def bin_table(view, n_bins, strategy, confidence_level):
    """The per-bin table of the view, with Wilson intervals."""
    return reliability_table(
        view.y,
        view.p,
        n_bins=n_bins,
        strategy=strategy,
        interval="wilson",
        confidence_level=confidence_level,
    )


def bin_rows(table):
    """The rows of the table, one per bin: edges, count, means and interval."""
    return [
        [float(low), float(high), int(count)]
        + [float(v) for v in (mean, rate, ci_low, ci_high)]
        for low, high, count, mean, rate, ci_low, ci_high in zip(
            table.bin_lower,
            table.bin_upper,
            table.count,
            table.mean_predicted,
            table.event_rate,
            table.interval_low,
            table.interval_high,
            strict=True,
        )
    ]


def _cell(value):
    return "-" if math.isnan(value) else f"{value:.3f}"


def printed_bins(table, view, level):
    """The table's header and cells as printed (empty bins show dashes)."""
    x = "confidence" if view.top_label else "prediction"
    header = [
        "bin",
        "count",
        f"mean {x}",
        "observed rate",
        f"{100 * level:g}% interval",
    ]
    cells = []
    for low, high, count, mean, rate, ci_low, ci_high in bin_rows(table):
        interval = "-" if count == 0 else f"[{ci_low:.3f}, {ci_high:.3f}]"
        cells.append(
            [
                f"({low:.3f}, {high:.3f}]",
                str(count),
                _cell(mean),
                _cell(rate),
                interval,
            ]
        )
    return header, cells


def near(view, at, width, level):
    """One sentence on the rows whose prediction lies within ``width`` of ``at``.

    The observed rate among them, with its Wilson interval, against their
    mean prediction.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([0.78, 0.8, 0.82, 0.81, 0.3])
    >>> view = ReportView(np.array([1, 1, 0, 1, 0]), p, "y was 1", False, 2)
    >>> print(near(view, 0.8, 0.05, 0.95))
    At 0.8: 4 predictions lie within 0.05 of it (mean 0.802); y was 1 for 3
    of them, 75.0% (95% interval 30.1% to 95.4%), in line with the
    predictions.
    """
    y, p = view.y, view.p
    rows = np.abs(p - at) <= width + 1e-12
    count = int(np.count_nonzero(rows))
    if not count:
        return f"At {at:g}: no prediction lies within {width:g} of it."
    window = reliability_table(
        y[rows], p[rows], n_bins=1, interval="wilson", confidence_level=level
    )
    mean, rate = window.mean_predicted[0], window.event_rate[0]
    low, high = window.interval_low[0], window.interval_high[0]
    if low > mean:
        verdict = "more often than predicted: the predictions are too low there"
    elif high < mean:
        verdict = "less often than predicted: the predictions are too high there"
    else:
        verdict = "in line with the predictions"
    events = round(float(np.sum(y[rows])))
    return (
        f"At {at:g}: {count} predictions lie within {width:g} of it (mean "
        f"{mean:.3f}); {view.event} for {events} of them, {100 * rate:.1f}% "
        f"({100 * level:g}% interval {100 * low:.1f}% to {100 * high:.1f}%), "
        f"{verdict}."
    )


# One line per measure; {x} is what is binned or smoothed, {bins} the bins,
# {sigma} the SmoothECE's bandwidth, {brier} and {log} what the scores score.
_BINNED = (
    "|observed rate - mean prediction| of each bin, weighted by its rows, "
    "over {bins} of the {x}"
)
_DEFINITIONS = {
    "expected_calibration_error": _BINNED,
    "binned_calibration_error": _BINNED,
    "smooth_ece": (
        "mean |rate - prediction| after reflected-Gaussian smoothing of the {x}, "
        "bandwidth {sigma:.3f} (fixed point)"
    ),
    "cutoff_calibration_error": (
        "largest mean residual (outcome - prediction) over any interval of the {x}"
    ),
    "kernel_calibration_error": (
        "mean squared gap to a Gaussian-kernel event rate, bandwidth 0.050"
    ),
    "smooth_calibration_error": (
        "largest mean residual weighted by a 1-Lipschitz function of the {x}"
    ),
    "logit_smoothed_ece": (
        "ECE of the {x} with Gaussian noise (0.1) added in logit space"
    ),
    "brier_score_loss": (
        "mean squared error {brier} (scikit-learn's brier_score_loss)"
    ),
    "log_loss": (
        "mean -ln of the probability given to {log} (scikit-learn's log_loss)"
    ),
}


def describe(name, view, options):
    """One line on what the measure ``name`` is, with its bins or bandwidth.

    ``options`` holds ``n_bins`` and ``strategy`` (those of the binned
    measures).
    """
    several = view.n_classes > 2
    fields = {
        "x": view.axis,
        "bins": bins_phrase(options["n_bins"], options["strategy"]),
        "brier": "summed over the classes" if several else f"of the {view.axis}",
        "log": "the true class" if several else "the observed outcome",
    }
    if name == "smooth_ece":
        fields["sigma"] = smooth_ece(view.y, view.p, return_sigma=True)[1]
    if name not in _DEFINITIONS:  # a measure registered without a line here
        from skcal.metrics._registry import MEASURES_BY_NAME

        doc = (MEASURES_BY_NAME[name].function.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else "(no description)"
    return _DEFINITIONS[name].format(**fields)
