"""
=====================================
Calibration of data that do not fit
=====================================

Logged predictions often arrive in pieces: a file per day, a partition per
worker, a batch per step of an evaluation loop. A
:class:`~skcal.metrics.CalibrationSummary` is built piece by piece and
merged, and answers the measures without the rows. This example builds one
over a week of simulated click predictions, a day at a time, checks it
against the in-memory measures, and draws the reliability diagram from it.
"""

# SPDX-License-Identifier: BSD-3-Clause

# %%
# A week of logs, one day at a time
# ---------------------------------
#
# Each day's model over-predicts clicks a little more than the day before.
# Each day gets its own summary (as a worker would build it), and the week is
# their merge.
import matplotlib.pyplot as plt
import numpy as np

from skcal.metrics import CalibrationSummary, expected_calibration_error, smooth_ece

rng = np.random.default_rng(0)
days, week = [], []
for day in range(7):
    p = rng.beta(1, 8, size=200_000)
    y = (rng.uniform(size=p.shape[0]) < p * (1 - 0.03 * day)).astype(int)
    days.append(CalibrationSummary(labels=[0, 1]).update(y, p))
    week.append((y, p))

summary = days[0]
for other in days[1:]:
    summary = summary.merge(other)
print(f"{summary.n_samples_} predictions")

# %%
# The same numbers as in memory
# -----------------------------
#
# The binned ECE and the SmoothECE of the merged summary equal those of the
# concatenated rows, up to the rounding of sums; the cutoff calibration
# error is computed on the cells of the summary, with a bound on its
# distance to the exact value.
y_all = np.concatenate([y for y, _ in week])
p_all = np.concatenate([p for _, p in week])
print(
    "ECE",
    summary.expected_calibration_error(),
    expected_calibration_error(y_all, p_all),
)
print("SmoothECE", summary.smooth_ece(), smooth_ece(y_all, p_all))
value, bound = summary.cutoff_calibration_error(return_bound=True)
print(f"cutoff calibration error {value:.5f} (within {bound:.1e} of the exact value)")

# %%
# Drift, day by day, and the week's diagram
# -----------------------------------------
#
# Every day's summary answers on its own too. The smooth reliability curve
# and the per-bin table of the week come from the merged summary.
daily = [s.smooth_ece() for s in days]
curve = summary.smooth_reliability_curve()
table = summary.reliability_table(n_bins=20, strategy="quantile")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
ax1.plot(range(1, 8), daily, marker="o")
ax1.set(xlabel="day", ylabel="SmoothECE", title="Calibration drifts over the week")
ax2.plot([0, 0.6], [0, 0.6], color="grey", linestyle=":", label="calibrated")
ax2.plot(curve.grid, curve.calibration, label="smooth curve (week)")
ax2.errorbar(
    table.mean_predicted,
    table.event_rate,
    yerr=[
        table.event_rate - table.interval_low,
        table.interval_high - table.event_rate,
    ],
    fmt="o",
    markersize=3,
    label="20 quantile bins",
)
ax2.set(
    xlim=(0, 0.6),
    ylim=(0, 0.6),
    xlabel="predicted click probability",
    ylabel="observed click rate",
    title="The week, from the merged summary",
)
ax2.legend()
fig.tight_layout()
plt.show()
