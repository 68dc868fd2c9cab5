"""skcal.dask on a real dask.distributed cluster of worker processes."""

import subprocess
import sys

import numpy as np
import pytest

from skcal.metrics import (
    cutoff_calibration_error,
    expected_calibration_error,
    reliability_table,
    smooth_ece,
)

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("dask.distributed")
pd = pytest.importorskip("pandas")

from skcal import dask as skdask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def _binary(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 3, size=n)
    y = (rng.uniform(size=n) < p**1.3).astype(int)
    order = np.argsort(y, kind="stable")  # the first chunk holds one class
    return y[order], p[order], rng.exponential(size=n)


def _multiclass(n=3000, k=4, seed=1):
    rng = np.random.default_rng(seed)
    e = np.exp(2 * rng.normal(size=(n, k)))
    probs = e / e.sum(axis=1, keepdims=True)
    y = (probs.cumsum(axis=1) < rng.uniform(size=(n, 1))).sum(axis=1)
    return y, probs, rng.exponential(size=n)


# Uneven chunks, an empty one among them.
CHUNKS = ((700, 0, 1300, 1500, 500),)


def test_binary_weighted_blocks_equal_the_in_memory_measures(client):
    y, p, w = _binary()
    Y, P = da.from_array(y, chunks=CHUNKS), da.from_array(p, chunks=CHUNKS)
    W = da.from_array(w, chunks=1000)  # rechunked to the rows of y_prob
    assert set(y[:700]) == {0}
    with distributed.get_task_stream(client) as stream:
        summary = skdask.summarize(Y, P, sample_weight=W)
    workers = {task["worker"] for task in stream.data}
    assert workers <= set(client.scheduler_info()["workers"]) and workers
    _close(
        summary.expected_calibration_error(),
        expected_calibration_error(y, p, sample_weight=w),
    )
    _close(summary.smooth_ece(), smooth_ece(y, p, sample_weight=w))
    table = reliability_table(y, p, sample_weight=w)
    got = summary.reliability_table()
    for key in table:
        _close(got[key], table[key])
    value, bound = summary.cutoff_calibration_error(return_bound=True)
    exact = cutoff_calibration_error(y, p, sample_weight=w)
    assert value <= exact + 1e-12 and exact - value <= bound
    _close(
        skdask.expected_calibration_error(Y, P, sample_weight=W, n_bins=10),
        expected_calibration_error(y, p, sample_weight=w, n_bins=10),
    )
    _close(
        skdask.smooth_ece(Y, P, sample_weight=W),
        smooth_ece(y, p, sample_weight=w),
    )


@pytest.mark.parametrize("reduction", ["top_label", "classwise"])
def test_multiclass_chunks_on_rows_and_columns(client, reduction):
    y, p, w = _multiclass()
    Y = da.from_array(y, chunks=800)
    P = da.from_array(p, chunks=(1100, 2))  # columns split: put back together
    W = da.from_array(w, chunks=800)
    kw = {"sample_weight": w, "reduction": reduction}
    _close(
        skdask.expected_calibration_error(
            Y, P, sample_weight=W, reduction=reduction, return_per_class=False
        ),
        expected_calibration_error(y, p, **kw),
    )
    summary = skdask.summarize(Y, P, sample_weight=W, reduction=reduction)
    _close(summary.smooth_ece(), smooth_ece(y, p, **kw))
    assert summary.n_samples_ == len(y)


def test_dataframes_keep_their_partitions(client):
    y, p, w = _multiclass(k=3)
    frame = pd.DataFrame(p, columns=["a", "b", "c"])
    frame["label"] = np.array(["a", "b", "c"])[y]
    frame["weight"] = w
    ddf = dd.from_pandas(frame, npartitions=5)
    summary = skdask.summarize(
        ddf["label"], ddf[["a", "b", "c"]], sample_weight=ddf["weight"]
    )
    assert summary.classes_.tolist() == ["a", "b", "c"]
    _close(
        summary.expected_calibration_error(),
        expected_calibration_error(frame["label"], p, sample_weight=w),
    )
    with pytest.raises(ValueError, match="partitions"):
        skdask.summarize(ddf["label"], dd.from_pandas(frame[["a", "b", "c"]], 2))


def test_lazy_results_and_labels_given(client):
    y, p, _w = _binary()
    Y, P = da.from_array(y, chunks=CHUNKS), da.from_array(p, chunks=CHUNKS)
    lazy = skdask.expected_calibration_error(Y, P, labels=[0, 1], compute=False)
    assert hasattr(lazy, "dask")
    _close(lazy.compute(), expected_calibration_error(y, p))


def test_bad_inputs_are_refused():
    with pytest.raises(TypeError, match="Dask array"):
        skdask.summarize(np.array([0, 1]), np.array([0.2, 0.8]))
    y = da.from_array(np.array([0, 1, 2]), chunks=2)
    with pytest.raises(ValueError, match="1-D"):
        skdask.summarize(y, da.from_array(np.array([0.2, 0.8, 0.5]), chunks=2))
    with pytest.raises(ValueError, match="n_cells"):
        skdask.summarize(y[:2], da.from_array(np.array([0.2, 0.8])), n_cells=0)


def test_importing_skcal_does_not_import_dask():
    code = (
        "import sys, skcal, skcal.metrics, skcal.dask; "
        "assert 'dask' not in sys.modules, 'dask imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
