"""Shared parameter descriptions, inserted into docstrings by one decorator.

A docstring line that holds only ``%(name)s`` is replaced by the entry
``name`` below, indented like the placeholder. Nothing else in the docstring
is touched, so LaTeX braces and percent signs need no escaping.
"""

# SPDX-License-Identifier: BSD-3-Clause

import re
import textwrap

_SHARED = {
    "y_true": """\
y_true : array-like of shape (n_samples,)
    True labels.""",
    "y_prob": """\
y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
    Predicted probabilities: of the positive class (1-D, binary), or one
    column per class in the order of ``labels`` (or of the sorted labels
    of ``y_true``), rows summing to 1.""",
    "sample_weight": """\
sample_weight : array-like of shape (n_samples,), default=None
    Non-negative sample weights; None gives every sample weight 1.""",
    "pos_label": """\
pos_label : int, float, bool, str or other hashable label, default=None
    The positive class. When None, labels in ``{0, 1}`` or ``{-1, 1}``
    make 1 positive, and a two-column ``y_prob`` has its positive class
    in the second column. It need not occur in ``y_true`` (a sample of
    one class is valid data). On a multiclass problem, it selects the
    one-vs-rest view of that class (``reduction="positive"``).""",
    "labels": """\
labels : array-like of shape (n_classes,), default=None
    The class of each column of ``y_prob``. When None, the columns follow
    the sorted labels of ``y_true``, or the column names of a pandas
    ``y_prob`` when they are exactly those labels.""",
    "n_bins": """\
n_bins : int or "cube_root", default=15
    Number of bins; ``"cube_root"`` is ``ceil(n ** (1/3))`` for ``n``
    samples of positive weight.""",
    "strategy": """\
strategy : {"uniform", "quantile"}, default="uniform"
    ``"uniform"``: bins of equal width on [0, 1]. ``"quantile"``: bins of
    equal weight, from weighted quantiles of the predictions; identical
    predictions share a bin, so there may be fewer bins than ``n_bins``.
    Bins are right-closed, with 0 in the first bin and 1 in the last; a
    prediction equal to an edge lies in the bin below it. A quantile edge
    is the smallest prediction whose cumulative weight reaches the level,
    up to a relative rounding tolerance of 1e-10.""",
    "reduction": """\
reduction : {"auto", "positive", "top_label", "classwise"}, default="auto"
    How a multiclass problem is reduced to binary ones. ``"positive"``:
    the probability of ``pos_label`` against its indicator.
    ``"top_label"``: the largest probability (confidence) against the
    correctness of the argmax. ``"classwise"``: every one-vs-rest column,
    averaged over classes. ``"auto"`` is ``"positive"`` for binary
    problems and ``"top_label"`` otherwise.""",
    "return_per_class": """\
return_per_class : bool, default=False
    With ``reduction="classwise"``, return the value of every class
    instead of their mean.""",
}

_PLACEHOLDER = re.compile(r"^( *)%\((\w+)\)s$", flags=re.MULTILINE)


def fill_doc(func):
    """Replace ``%(name)s`` placeholder lines of ``func``'s docstring."""

    def replace(match):
        indent, name = match.groups()
        return textwrap.indent(_SHARED[name], indent)

    if func.__doc__ is not None:  # docstrings are stripped under python -OO
        func.__doc__ = _PLACEHOLDER.sub(replace, func.__doc__)
    return func
