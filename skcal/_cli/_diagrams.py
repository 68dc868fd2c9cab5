"""The diagrams of ``skcal report`` and ``skcal demo``, drawn by skcal.plotting.

All drawing of the command line is here: :func:`write_diagrams` draws one
panel per set of predictions with each Display and saves one PNG per
Display. A bare :class:`matplotlib.figure.Figure` is used (no pyplot), so
the user's backend does not matter.
"""

# SPDX-License-Identifier: BSD-3-Clause

from pathlib import Path

from skcal._cli._output import open_output

# The level of every interval and band the command line shows.
CONFIDENCE_LEVEL = 0.95


def diagram_paths(prefix):
    """The files :func:`write_diagrams` writes for ``prefix``.

    Examples
    --------
    >>> [path.name for path in diagram_paths("out/preds-")]
    ['preds-reliability.png', 'preds-calibration-sharpness.png']
    """
    return [
        Path(f"{prefix}{name}.png") for name in ("reliability", "calibration-sharpness")
    ]


def _draw_reliability(ax, panel, n_bootstrap, n_jobs, verbose, computed=None):
    """A smooth reliability diagram; ``panel = (y_true, y_prob, classes, weights)``.

    ``computed`` is what :func:`smooth_panel` gave for the panel, if
    anything: the curve is then drawn, not computed again.
    """
    from skcal.plotting import SmoothReliabilityDisplay

    y_true, y_prob, classes, sample_weight = panel
    if computed is not None:
        SmoothReliabilityDisplay._from_curves(
            (y_true, y_prob, sample_weight, None, classes, None),
            computed,
            confidence_level=CONFIDENCE_LEVEL,
        ).plot(ax=ax)
        return
    SmoothReliabilityDisplay.from_predictions(
        y_true,
        y_prob,
        sample_weight=sample_weight,
        labels=classes,
        n_bootstrap=n_bootstrap,
        random_state=0,  # a reproducible band
        n_jobs=n_jobs,
        verbose=verbose,
        ax=ax,
    )


def smooth_panel(panel):
    """The smooth reliability curve of a panel, and what completes its band.

    What :class:`~skcal.plotting.SmoothReliabilityDisplay` computes for the
    panel (its one view, binary or top-label), at the same defaults:
    ``(data, reduction, [curve], None)``, for :func:`write_diagrams` to draw, and
    the curve's :class:`~skcal.metrics._smooth_ece.CurveBootstrap`, which
    sets its band and SmoothECE interval from replicates drawn with other
    measures' (:func:`~skcal.metrics._interval.measure_intervals`).
    """
    from skcal._reduction import resolve_reduction
    from skcal._validation import check_calibration_inputs
    from skcal.metrics._smooth_ece import curve_and_bootstrap

    y_true, y_prob, classes, sample_weight = panel
    data = check_calibration_inputs(y_true, y_prob, sample_weight, None, classes)
    reduction = resolve_reduction(data, "auto")
    curve, bootstrap = curve_and_bootstrap(
        data, reduction, confidence_level=CONFIDENCE_LEVEL
    )
    return (data, reduction, [curve], None), bootstrap


def _draw_binned(ax, panel, binned):
    """A binned reliability diagram with counts and Wilson intervals."""
    from skcal.plotting import BinnedReliabilityDisplay

    y_true, y_prob, classes, sample_weight = panel
    BinnedReliabilityDisplay.from_predictions(
        y_true,
        y_prob,
        sample_weight=sample_weight,
        labels=classes,
        n_bins=binned["n_bins"],
        strategy=binned["strategy"],
        ax=ax,
    )


def _draw_sharpness(ax, panel):
    """A calibration-sharpness diagram."""
    from skcal.plotting import CalibrationSharpnessDisplay

    y_true, y_prob, classes, sample_weight = panel
    CalibrationSharpnessDisplay.from_predictions(
        y_true, y_prob, sample_weight=sample_weight, labels=classes, ax=ax
    )


def _figure(n_panels):
    """A figure of up to four panels a row, and its axes."""
    from matplotlib.figure import Figure

    n_cols = min(4, n_panels)
    n_rows = -(-n_panels // n_cols)
    figure = Figure(figsize=(3.6 * n_cols, 3.8 * n_rows), layout="constrained")
    axes = figure.subplots(n_rows, n_cols, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return figure, axes


def _drawings(panels, n_bootstrap, n_jobs, binned, verbose, computed):
    """``[(title, draw(ax)), ...]`` of each file, in the order of the paths.

    With one set of predictions, its title goes to the figure (see
    :func:`write_diagrams`) and the panels are named by what they draw.
    """
    one = len(panels) == 1
    reliability, sharpness = [], []
    for title, panel in panels.items():
        curve = computed.get(title)
        reliability.append(
            (
                "smooth" if one else title,
                lambda ax, p=panel, c=curve: _draw_reliability(
                    ax, p, n_bootstrap, n_jobs, verbose, c
                ),
            )
        )
        if binned is not None:
            reliability.append(
                (
                    "binned" if one else f"{title}, binned",
                    lambda ax, p=panel: _draw_binned(ax, p, binned),
                )
            )
        sharpness.append(
            (None if one else title, lambda ax, p=panel: _draw_sharpness(ax, p))
        )
    return [reliability, sharpness]


def write_diagrams(
    panels,
    prefix,
    *,
    n_bootstrap=100,
    n_jobs=None,
    overwrite=False,
    binned=None,
    top_label=False,
    verbose=False,
    computed=None,
):
    """Write the reliability and calibration-sharpness diagrams as PNG files.

    Parameters
    ----------
    panels : dict
        ``{panel title: (y_true, y_prob, classes, sample_weight)}``, with
        ``y_prob`` of shape ``(n_samples, n_classes)`` whose columns are
        ``classes`` (for two classes the second is positive), and
        ``sample_weight`` None or of shape ``(n_samples,)``.
    prefix : str or pathlib.Path
        The start of each file's path, e.g. ``"out/preds-"``.
    n_bootstrap : int, default=100
        The bootstrap resamples of the reliability diagram's band.
    n_jobs : int or None, default=None
        Threads drawing them.
    overwrite : bool, default=False
        Whether existing files may be replaced.
    binned : dict, default=None
        ``{"n_bins": ..., "strategy": ...}``: draw each panel's binned
        diagram (counts and Wilson intervals) beside its smooth one.
    top_label : bool, default=False
        Whether the two classes are the correctness of a predicted label
        (top-label input): the axes then say confidence and accuracy.
    verbose : "auto" or bool, default=False
        Progress of the bands' resamples (see :mod:`skcal._utils._progress`).
    computed : dict, default=None
        ``{panel title: smooth_panel(panel)}`` for the panels whose smooth
        curve is already computed (with ``n_bootstrap`` resamples).

    Returns
    -------
    paths : list of pathlib.Path
        The files written (:func:`diagram_paths`).
    """
    paths = diagram_paths(prefix)
    for path, drawings in zip(
        paths,
        _drawings(panels, n_bootstrap, n_jobs, binned, verbose, computed or {}),
        strict=True,
    ):
        figure, axes = _figure(len(drawings))
        if len(panels) == 1:
            figure.suptitle(next(iter(panels)))
        for ax, (title, draw) in zip(axes, drawings, strict=False):
            draw(ax)
            if title is not None:
                ax.set_title(title)
            if top_label:
                ax.set(xlabel="Confidence", ylabel="Accuracy")
        with open_output(path, overwrite, binary=True) as file:
            figure.savefig(file, format="png", dpi=100)
    return paths
