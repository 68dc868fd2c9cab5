"""``skcal report`` streaming Parquet data through a summary, locally and on Dask."""

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss

from skcal.metrics import expected_calibration_error, smooth_ece
from tests.cli._helpers import error_line, read_csv, run

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")


@pytest.fixture
def parts(tmp_path):
    """Three Parquet files of binary predictions, in row groups of 700 rows."""
    rng = np.random.default_rng(0)
    frames = []
    folder = tmp_path / "preds"
    folder.mkdir()
    for i, n in enumerate((2000, 1, 3100)):
        p = rng.uniform(size=n)
        frame = pd.DataFrame({"y": (rng.uniform(size=n) < p**1.3).astype(int), "p": p})
        frame.to_parquet(folder / f"part-{i}.parquet", row_group_size=700)
        frames.append(frame)
    return folder, pd.concat(frames, ignore_index=True)


def _values(path):
    return {row["measure"]: float(row["value"]) for row in read_csv(path)}


@pytest.mark.parametrize("how", ["directory", "glob", "one file"])
def test_streamed_report_equals_the_in_memory_measures(capsys, tmp_path, parts, how):
    folder, frame = parts
    target = {
        "directory": folder,
        "glob": f"{folder}/part-*.parquet",
        "one file": folder / "part-0.parquet",
    }[how]
    if how == "one file":
        frame = pd.read_parquet(target)
    extra = ["--stream"] if how == "one file" else []
    status, out, _ = run(
        capsys, "report", target, "--y-true", "y", "--y-prob", "p",
        "--batch-rows", 500, "--out", tmp_path / "out", *extra,
    )  # fmt: skip
    assert status == 0
    assert f"{len(frame)} samples" in out
    (table,) = (tmp_path / "out").glob("*-calibration.csv")
    assert (
        table.name == ("part-0" if how == "one file" else "preds") + "-calibration.csv"
    )
    values = _values(table)
    y, p = frame["y"].to_numpy(), frame["p"].to_numpy()
    assert values["expected_calibration_error"] == pytest.approx(
        expected_calibration_error(y, p), rel=1e-12
    )
    assert values["smooth_ece"] == pytest.approx(smooth_ece(y, p), rel=1e-12)
    assert values["brier_score_loss"] == pytest.approx(brier_score_loss(y, p))
    (bins,) = (tmp_path / "out").glob("*-bins.csv")
    assert sum(int(float(row["count"])) for row in read_csv(bins)) == len(frame)


def test_streamed_multiclass_with_columns_named_as_classes(capsys, tmp_path):
    rng = np.random.default_rng(1)
    e = np.exp(2 * rng.normal(size=(900, 3)))
    probs = e / e.sum(axis=1, keepdims=True)
    y = np.array(["a", "b", "c"])[(probs.cumsum(1) < rng.uniform(size=(900, 1))).sum(1)]
    frame = pd.DataFrame(probs, columns=["c", "a", "b"])  # not in sorted order
    frame["label"] = y
    frame.to_parquet(tmp_path / "m.parquet")
    status, out, _ = run(
        capsys, "report", tmp_path / "m.parquet", "--stream", "--y-true", "label",
        "--y-prob", "c", "a", "b", "--metrics", "expected_calibration_error",
    )  # fmt: skip
    assert status == 0
    expected = expected_calibration_error(y, probs, labels=["c", "a", "b"])
    assert f"{expected:.4f}" in out and "top_label view" in out


def test_dask_engine_on_a_cluster_given_by_address(capsys, parts):
    distributed = pytest.importorskip("dask.distributed")
    folder, frame = parts
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        status, out, _ = run(
            capsys, "report", folder, "--y-true", "y", "--y-prob", "p",
            "--engine", "dask", "--scheduler", cluster.scheduler_address,
            "--metrics", "expected_calibration_error", "smooth_ece",
        )  # fmt: skip
    assert status == 0, out
    y, p = frame["y"].to_numpy(), frame["p"].to_numpy()
    assert f"{expected_calibration_error(y, p):.4f}" in out
    assert f"{smooth_ece(y, p):.4f}" in out
    assert "engine dask" in out


@pytest.mark.parametrize(
    "options, message",
    [
        (["--y-true", "y", "--y-prob", "q"], "no column q"),
        (["--y-true", "y", "--y-prob", "p", "--at", "0.5"], "--at needs the rows"),
        (
            ["--y-true", "y", "--y-prob", "p", "--metrics", "logit_smoothed_ece"],
            "cannot be computed from a summary",
        ),
        (["--y-true", "y", "--confidence", "p", "--predicted", "y"], "top-label"),
        (["--y-prob", "p"], "needs --y-true"),
    ],
)
def test_streamed_report_errors(capsys, parts, options, message):
    folder, _ = parts
    assert message in error_line(capsys, "report", folder, *options)


def test_no_file_and_bad_values(capsys, tmp_path):
    line = error_line(capsys, "report", tmp_path / "*.parquet", "--y-true", "y",
                      "--y-prob", "p")  # fmt: skip
    assert "no Parquet file" in line
    pd.DataFrame({"y": [0, 1], "p": [0.2, 1.5]}).to_parquet(tmp_path / "bad.parquet")
    line = error_line(capsys, "report", tmp_path, "--y-true", "y", "--y-prob", "p")
    assert "[0, 1]" in line
