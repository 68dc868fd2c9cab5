"""Tests of ``skcal report --groups``: the measures of each group of rows."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest

from skcal.metrics import confidence_interval, expected_calibration_error
from tests.cli._helpers import error_line, read_csv, run, write_rows


def _grouped_file(path, n=600, seed=0):
    """Binary predictions of three regions, ``"east"`` badly calibrated."""
    rng = np.random.RandomState(seed)
    p = rng.uniform(0.05, 0.95, size=n)
    region = np.array(["east", "north", "south"])[rng.randint(0, 3, size=n)]
    rate = np.where(region == "east", p**3, p)
    y = (rng.uniform(size=n) < rate).astype(int)
    write_rows(path, ["y", "p", "region"], zip(y, p.round(6), region, strict=True))
    return y, p.round(6), region


def test_groups_table_and_files(capsys, tmp_path):
    """Check the printed table, its CSV file and the diagram by group.

    Each group's ECE is the function's on the group's rows, its interval is
    confidence_interval's with the same seed and resamples, and the worst
    group is the badly calibrated one.
    """
    path = tmp_path / "preds.csv"
    y, p, region = _grouped_file(path)
    status, out, _ = run(
        capsys,
        "report",
        path,
        "--y-true", "y",
        "--y-prob", "p",
        "--groups", "region",
        "--metrics", "expected_calibration_error", "brier_score_loss",
        "--n-bootstrap", "50",
        "--out", tmp_path / "out",
    )  # fmt: skip
    assert status == 0
    assert "By group (region;" in out
    assert "Worst group: expected_calibration_error: 'east'" in out
    rows = read_csv(tmp_path / "out" / "preds-groups.csv")
    ece = {r["region"]: r for r in rows if r["measure"] == "expected_calibration_error"}
    assert sorted(ece) == ["east", "north", "south"]
    for group, row in ece.items():
        rows_of = region == group
        assert int(row["n"]) == rows_of.sum()
        expected = expected_calibration_error(y[rows_of], p[rows_of])
        assert float(row["value"]) == pytest.approx(expected, rel=1e-9)
        low, high = float(row["ci_low"]), float(row["ci_high"])
        assert low <= float(row["value"]) <= high
    east = region == "east"
    interval = confidence_interval(y[east], p[east], n_bootstrap=50, random_state=0)
    assert float(ece["east"]["ci_low"]) > 0.05
    assert interval.low > 0.05
    assert (tmp_path / "out" / "preds-reliability-by-group.png").stat().st_size > 0


@pytest.mark.parametrize(
    "rows, message",
    [
        ([[0, 0.2, "a"], [1, 0.7, ""]], "groups contains 1 missing value"),
    ],
)
def test_missing_group_is_one_error_line(capsys, tmp_path, rows, message):
    """Check that a missing group label gives one error line and exit status 2."""
    path = tmp_path / "bad.csv"
    write_rows(path, ["y", "p", "g"], rows)
    line = error_line(
        capsys, "report", path, "--y-true", "y", "--y-prob", "p", "--groups", "g"
    )
    assert message in line
    assert "--groups 'g'" in line


def test_unknown_group_column(capsys, tmp_path):
    """Check that a group column absent from the file is named in the error."""
    path = tmp_path / "preds.csv"
    _grouped_file(path, n=40)
    line = error_line(
        capsys, "report", path, "--y-true", "y", "--y-prob", "p", "--groups", "nope"
    )
    assert "no column 'nope'" in line


def test_groups_refused_by_streamed_report(capsys, tmp_path):
    """Check that a streamed report refuses --groups, which needs the rows."""
    pytest.importorskip("pyarrow")
    import pandas as pd

    path = tmp_path / "preds.parquet"
    pd.DataFrame({"y": [0, 1], "p": [0.2, 0.7], "g": ["a", "b"]}).to_parquet(path)
    line = error_line(
        capsys,
        "report", path, "--stream",
        "--y-true", "y", "--y-prob", "p", "--groups", "g",
    )  # fmt: skip
    assert "--groups needs the rows" in line
