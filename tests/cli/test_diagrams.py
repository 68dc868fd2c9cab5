"""Tests of the command line's diagrams (``skcal/_cli/_diagrams.py``)."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import skcal.plotting
from skcal._cli._diagrams import diagram_paths, write_diagrams
from skcal._cli._errors import InputError


def _panel(rng, n_classes, n=40):
    y_prob = rng.dirichlet(np.ones(n_classes), size=n)
    return rng.randint(n_classes, size=n), y_prob, np.arange(n_classes), None


def test_write_diagrams_draws_each_panel(global_random_seed, monkeypatch, tmp_path):
    """Check that each Display draws every panel, its columns named by labels."""
    calls = []

    def recorder(name):
        def from_predictions(y_true, y_prob, *, ax=None, **options):
            calls.append((name, y_true, y_prob, options))
            ax.plot([0, 1], [0, 1])

        return from_predictions

    for name in ("SmoothReliabilityDisplay", "CalibrationSharpnessDisplay"):
        monkeypatch.setattr(
            getattr(skcal.plotting, name), "from_predictions", recorder(name)
        )
    rng = np.random.RandomState(global_random_seed)
    panels = {"binary": _panel(rng, 2), "multiclass": _panel(rng, 4)}
    paths = write_diagrams(panels, f"{tmp_path}/run-", n_bootstrap=7)
    assert paths == diagram_paths(f"{tmp_path}/run-")
    assert [p.name for p in paths] == [
        "run-reliability.png",
        "run-calibration-sharpness.png",
    ]
    for path in paths:
        assert path.read_bytes().startswith(b"\x89PNG")
    assert [call[0] for call in calls] == ["SmoothReliabilityDisplay"] * 2 + [
        "CalibrationSharpnessDisplay"
    ] * 2
    for (_, y, p, options), panel in zip(calls[:2], panels.values(), strict=True):
        assert_array_equal(y, panel[0])
        assert_array_equal(p, panel[1])
        assert_array_equal(options.pop("labels"), panel[2])
        assert options == {
            "sample_weight": None,
            "n_bootstrap": 7,
            "random_state": 0,
            "n_jobs": None,
            "verbose": False,
        }
    assert "n_bootstrap" not in calls[2][3]


def test_write_diagrams_real_displays(global_random_seed, tmp_path):
    """Check that the Displays of today draw a binary and a multiclass panel."""
    rng = np.random.RandomState(global_random_seed)
    panels = {"binary": _panel(rng, 2, n=200), "multiclass": _panel(rng, 3, n=200)}
    for path in write_diagrams(panels, tmp_path / "x-", n_bootstrap=0):
        assert path.read_bytes().startswith(b"\x89PNG")


def test_write_diagrams_binned_beside_smooth_and_top_label_axes(
    global_random_seed, monkeypatch, tmp_path
):
    """Check the report's figure: binned with counts beside smooth, axes named.

    Top-label input is a binary problem (is the predicted label right?), whose
    axes are the confidence and the accuracy, not "positive class: 1".
    """
    import skcal._cli._diagrams as diagrams

    figures = []
    make_figure = diagrams._figure

    def recording(n_panels):
        figure, axes = make_figure(n_panels)
        figures.append(figure)
        return figure, axes

    monkeypatch.setattr(diagrams, "_figure", recording)
    rng = np.random.RandomState(global_random_seed)
    panels = {"model": _panel(rng, 2, n=300)}
    write_diagrams(
        panels,
        tmp_path / "x-",
        n_bootstrap=0,
        binned={"n_bins": 7, "strategy": "quantile"},
        top_label=True,
    )
    reliability, sharpness = figures
    smooth, binned = [ax for ax in reliability.axes if ax.get_visible()]
    assert "binned" in binned.get_title()
    # Seven bins: seven count bars under the binned curve.
    assert len(binned.patches) == 7
    for ax in (smooth, binned, *sharpness.axes):
        assert (ax.get_xlabel(), ax.get_ylabel()) == ("Confidence", "Accuracy")


def test_write_diagrams_never_overwrites(global_random_seed, tmp_path):
    rng = np.random.RandomState(global_random_seed)
    panels = {"binary": _panel(rng, 2, n=100)}
    write_diagrams(panels, tmp_path / "x-", n_bootstrap=0)
    with pytest.raises(InputError, match="x-reliability.png exists; pass --overwrite"):
        write_diagrams(panels, tmp_path / "x-", n_bootstrap=0)
    write_diagrams(panels, tmp_path / "x-", n_bootstrap=0, overwrite=True)
